"""The merge's arithmetic, piece by piece as the pipeline runs it, against plain references."""

import math

import pytest
import torch

from codefrontier.merge import MergeError, alpha_weights
from codefrontier.merge.method import Workspace, check_weights, combine_piece, squared_norm
from codefrontier.merge.pipeline import cut_into_pieces
from codefrontier.merge.reader import TensorInfo

SAFETENSORS_NAMES = {torch.bfloat16: "BF16", torch.float16: "F16", torch.float32: "F32",
                     torch.int64: "I64"}
PIECE_BYTES = 4096  # 2048 bf16 values: the tensors below are several pieces and a remainder
SHAPE = (37, 301)  # 11137 values, not a multiple of any piece size used here


def combined_in_pieces(parents, weights, piece_bytes=PIECE_BYTES):
    """The parents cut as the pipeline cuts them and combined piece by piece; the result,
    the summed squared norms and the number of pieces."""
    info = TensorInfo("t", SAFETENSORS_NAMES[parents[0].dtype], tuple(parents[0].shape))
    flat = [parent.reshape(-1) for parent in parents]
    out = torch.empty(info.numel, dtype=parents[0].dtype)
    workspace = Workspace()
    delta_sq = result_sq = 0.0
    pieces = list(cut_into_pieces([info], piece_bytes))
    for piece in pieces:
        delta, result = combine_piece("t", [f[piece.start:piece.stop] for f in flat], weights,
                                      out[piece.start:piece.stop], workspace)
        delta_sq += delta
        result_sq += result
    return out.view(info.shape), delta_sq, result_sq, len(pieces)


def fine_tunes(dtype=torch.bfloat16, count=2, seed=0):
    """Parents as fine-tunes are: a shared base and small, different updates."""
    generator = torch.Generator().manual_seed(seed)
    base = torch.randn(SHAPE, generator=generator) * 0.02
    return [(base + torch.randn(SHAPE, generator=generator) * 0.002).to(dtype)
            for _ in range(count)]


def within_one_step(value, reference):
    """Every value at most one step of value's dtype from the float64 reference's
    rounding."""
    step = torch.finfo(value.dtype).eps * reference.abs().clamp_min(1e-30)
    return ((value.double() - reference.to(value.dtype).double()).abs() <= step * 1.01).all()


def test_pieces_cover_a_tensor_in_order_with_a_short_last_piece():
    info = TensorInfo("t", "BF16", SHAPE)
    pieces = list(cut_into_pieces([info], PIECE_BYTES))
    assert [p.start for p in pieces] == list(range(0, 11137, 2048))
    assert [p.stop - p.start for p in pieces] == [2048] * 5 + [11137 - 5 * 2048]
    assert [p.byte_offset for p in pieces] == [2 * p.start for p in pieces]
    assert list(cut_into_pieces([TensorInfo("empty", "F32", (0, 4))], PIECE_BYTES)) != []


@pytest.mark.parametrize("alpha", [-1.0, 0.5, 1.5, 3.0])
def test_pieces_equal_the_float32_combination_rounded_once(alpha):
    low, high = fine_tunes()
    merged, _, _, count = combined_in_pieces([low, high], alpha_weights(alpha))
    assert count == 6 and merged.dtype == torch.bfloat16
    # the fused lerp is float32 arithmetic with a float32 α, rounded once: the same bits
    assert torch.equal(merged, torch.lerp(low.float(), high.float(), alpha).to(torch.bfloat16))
    # the plain float32 formula rounds differently inside float32: at most one bf16 step
    plain = ((1 - alpha) * low.float() + alpha * high.float()).to(torch.bfloat16)
    assert within_one_step(merged, (1 - alpha) * low.double() + alpha * high.double())
    assert ((merged.double() - plain.double()).abs()
            <= torch.finfo(torch.bfloat16).eps * plain.double().abs() * 1.01).all()
    assert (merged == plain).float().mean() >= 0.999


def test_alpha_not_exact_in_bf16_is_kept_in_float32():
    """-1, 0.5, 1.5 and 3 are exact in bf16: 1.3 is not, and is not rounded to it."""
    low, high = fine_tunes()
    merged, *_ = combined_in_pieces([low, high], alpha_weights(1.3))
    in_bf16 = torch.tensor(1.3, dtype=torch.bfloat16).item()  # 1.296875
    assert torch.equal(merged, torch.lerp(low.float(), high.float(), 1.3).to(torch.bfloat16))
    assert not torch.equal(merged, torch.lerp(low.float(), high.float(), in_bf16)
                           .to(torch.bfloat16))


def test_endpoints_give_the_parents_back():
    low, high = fine_tunes()
    assert torch.equal(combined_in_pieces([low, high], alpha_weights(0.0))[0], low)
    assert torch.equal(combined_in_pieces([low, high], alpha_weights(1.0))[0], high)


@pytest.mark.parametrize("piece_bytes", [2, 1000, 4096, 1 << 20])
def test_the_piece_size_changes_no_bit(piece_bytes):
    parents = fine_tunes()
    whole = torch.lerp(parents[0], parents[1], 2.5)
    assert torch.equal(combined_in_pieces(parents, [-1.5, 2.5], piece_bytes)[0], whole)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_other_float_dtypes_are_combined_in_float32_and_kept(dtype):
    low, high = fine_tunes(dtype)
    merged, *_ = combined_in_pieces([low, high], alpha_weights(1.3))
    assert merged.dtype == dtype
    assert torch.equal(merged, torch.lerp(low.float(), high.float(), 1.3).to(dtype))


def test_norms_are_those_of_the_delta_and_the_result():
    low, high = fine_tunes()
    merged, delta_sq, result_sq, _ = combined_in_pieces([low, high], alpha_weights(1.3))
    exact_delta = (high.double() - low.double()).norm().item()
    # the delta and each piece's norm are rounded to bf16: 2⁻⁸ relative at most
    assert math.sqrt(delta_sq) == pytest.approx(exact_delta, rel=2**-8)
    assert math.sqrt(result_sq) == pytest.approx(merged.double().norm().item(), rel=2**-8)


def test_more_parents_are_a_float32_weighted_sum():
    parents = fine_tunes(count=3)
    weights = [-0.5, 0.75, 0.75]
    merged, delta_sq, _, _ = combined_in_pieces(parents, weights)
    exact = sum(w * p.double() for w, p in zip(weights, parents, strict=True))
    assert within_one_step(merged, exact)
    assert (merged == exact.to(torch.bfloat16)).float().mean() >= 0.999
    assert torch.equal(merged, combined_in_pieces(parents, weights, piece_bytes=1 << 20)[0])
    exact_delta = (parents[-1].double() - parents[0].double()).norm().item()
    assert math.sqrt(delta_sq) == pytest.approx(exact_delta, rel=2**-8)


def test_integer_pieces_are_copied_when_equal_and_refused_otherwise():
    ids = torch.arange(5000).reshape(50, 100)
    merged, delta_sq, result_sq, _ = combined_in_pieces([ids, ids.clone()], [-0.3, 1.3])
    assert torch.equal(merged, ids) and delta_sq == result_sq == 0.0
    other = ids.clone()
    other[-1, -1] = -1  # in the last piece only
    with pytest.raises(MergeError, match=r"'t'.*differ between parents and cannot be averaged"):
        combined_in_pieces([ids, other], [0.5, 0.5])


def test_a_non_finite_result_raises_naming_the_tensor():
    big = torch.finfo(torch.bfloat16).max / 2
    low = torch.full(SHAPE, -big).to(torch.bfloat16)
    high = torch.full(SHAPE, big).to(torch.bfloat16)
    with pytest.raises(MergeError, match="'t' has non-finite values"):
        combined_in_pieces([low, high], alpha_weights(3.0))


def test_a_float16_norm_beyond_its_range_is_kept_in_float32():
    values = torch.full((50, 2000), 300.0, dtype=torch.float16)  # norm 94868 > 65504
    assert squared_norm(values) == pytest.approx(300.0**2 * 100_000, rel=1e-3)
    merged, _, result_sq, _ = combined_in_pieces([values, values], [0.5, 0.5])
    assert result_sq == pytest.approx(300.0**2 * 100_000, rel=1e-3)
    assert torch.equal(merged, values)


@pytest.mark.parametrize(("weights", "message"), [
    ([0.5, 0.6], "sum to 1"), ([1.0], "at least two parents"),
    ([float("nan"), 1.0], "finite"), ([0.5, 0.25, 0.25], "one weight per parent")])
def test_weights_are_checked(weights, message):
    with pytest.raises(MergeError, match=message):
        check_weights(2, weights)
