"""The merge's tensors cut into pieces and merged by one worker thread per core: each
worker takes the next piece, reads it from every parent (pread), combines it, and writes
it at its own place in the output (pwrite), then takes the next.

Why this shape. Copying through large buffers is several times slower than through
small ones on the 2-core VM this was measured on (the I/O floor takes 2.2 s with 1 MiB
buffers and 5 to 11 s with 16 MiB ones; merging in 4 MiB pieces was 3 to 6 times slower
than in 1 MiB ones), so a piece is small and makes its whole way on one core: what was
read is still in cache when it is combined, and the result when it is written. Nothing
orders the writes, because the output's layout is known before anything is merged (the
headers come from the parents): every piece has its own place in its shard, and the
workers write in whatever order they finish. Several workers overlap reading, computing
and writing (pread, pwrite and torch's kernels release the GIL), and pieces are handed
out in order, so each parent file is read nearly front to back and the kernel's
readahead keeps working when the parents are not in the page cache.

Memory: each worker holds one piece of every parent, the result and the delta, a few
MiB whatever the model's size.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch
from tqdm import tqdm

from codefrontier.base.threads import job_cores
from codefrontier.merge.method import Workspace, combine_piece
from codefrontier.merge.reader import TensorInfo, WeightFolder
from codefrontier.merge.writer import ShardWriter

PIECE_BYTES = 1 << 20
# Workers share the GIL for the Python between their kernels and syscalls, a small
# share of a piece's time: more workers than this would mostly wait for it.
MAX_WORKERS = 8


@dataclass(frozen=True)
class Piece:
    """Elements [start, stop) of one tensor, in the tensor's flat order."""

    tensor: TensorInfo
    start: int
    stop: int

    @property
    def byte_offset(self) -> int:
        return self.start * self.tensor.itemsize

    @property
    def nbytes(self) -> int:
        return (self.stop - self.start) * self.tensor.itemsize


def cut_into_pieces(tensors: Sequence[TensorInfo], piece_bytes: int) -> Iterator[Piece]:
    """Every tensor in order, in pieces of at most `piece_bytes` (an empty tensor is one
    empty piece)."""
    for info in tensors:
        step = max(1, piece_bytes // info.itemsize)
        if info.numel == 0:
            yield Piece(info, 0, 0)
        for start in range(0, info.numel, step):
            yield Piece(info, start, min(start + step, info.numel))


class PieceBuffer:
    """Bytes for one piece, reused: seen as the piece's dtype by the arithmetic and as a
    memoryview by pread and pwrite."""

    def __init__(self, nbytes: int) -> None:
        self._bytes = torch.empty(nbytes, dtype=torch.uint8)

    def tensor(self, piece: Piece) -> torch.Tensor:
        return self._bytes[:piece.nbytes].view(piece.tensor.torch_dtype)

    def memory(self, piece: Piece) -> memoryview:
        return memoryview(self._bytes[:piece.nbytes].numpy())


@dataclass
class Totals:
    """What provenance records of the whole merge."""

    delta_sq: float = 0.0
    result_sq: float = 0.0
    dtypes: set[str] = field(default_factory=set)

    def add(self, piece: Piece, delta_sq: float, result_sq: float) -> None:
        self.delta_sq += delta_sq
        self.result_sq += result_sq
        self.dtypes.add(str(piece.tensor.torch_dtype).removeprefix("torch."))

    def __iadd__(self, other: Totals) -> Totals:
        self.delta_sq += other.delta_sq
        self.result_sq += other.result_sq
        self.dtypes |= other.dtypes
        return self


class Handout:
    """The pieces, each handed out once and in order to whichever worker asks first;
    after `stop`, none."""

    def __init__(self, pieces: Sequence[Piece]) -> None:
        self._pieces = pieces
        self._next = itertools.count()  # next() on it is atomic under the GIL
        self._stopped = False

    def __iter__(self) -> Iterator[Piece]:
        while not self._stopped and (index := next(self._next)) < len(self._pieces):
            yield self._pieces[index]

    def stop(self) -> None:
        self._stopped = True


INTERRUPT_GRACE_S = 5.0  # what an interrupted merge waits for each helper's piece


def default_workers() -> int:
    return max(1, min(job_cores(), MAX_WORKERS))


def stream_merge(parents: Sequence[WeightFolder], weights: Sequence[float],
                 writer: ShardWriter, tensors: Sequence[TensorInfo],
                 piece_bytes: int = PIECE_BYTES, workers: int | None = None) -> Totals:
    """Combine every tensor of `tensors` across the parents into `writer`: the calling
    thread and `workers - 1` more (one per core by default) take pieces in turn. The
    first error stops every worker after its current piece and is raised here."""
    pieces = list(cut_into_pieces(tensors, piece_bytes))
    handout = Handout(pieces)
    progress = tqdm(total=sum(piece.nbytes for piece in pieces), desc="merge", unit="B",
                    unit_scale=True, disable=len(tensors) < 50, mininterval=2)
    size = max((piece.nbytes for piece in pieces), default=0)

    def work() -> Totals:
        return merge_pieces(handout, parents, weights, writer, size, progress)

    helpers = [Helper(work, handout) for _ in range((workers or default_workers()) - 1)]
    with progress, one_torch_thread():
        for helper in helpers:
            helper.start()
        grace = None  # wait for every helper to finish
        try:
            totals = work()
        except (KeyboardInterrupt, SystemExit):
            # Ctrl-C, or Snakemake stopping the job: the helpers finish their current
            # piece and stop, but one blocked (in a read, say) must not keep the process
            # alive: they are daemon threads, left behind after INTERRUPT_GRACE_S
            grace = INTERRUPT_GRACE_S
            raise
        finally:
            handout.stop()  # when this thread failed; otherwise every piece is taken
            for helper in helpers:
                helper.join(grace)
    for helper in helpers:
        totals += helper.totals()
    return totals


def merge_pieces(pieces: Handout, parents: Sequence[WeightFolder], weights: Sequence[float],
                 writer: ShardWriter, size: int, progress: tqdm) -> Totals:
    """One worker: its own buffers, pieces until none is left."""
    inputs = [PieceBuffer(size) for _ in parents]
    out, workspace, totals = PieceBuffer(size), Workspace(), Totals()
    for piece in pieces:
        for parent, buffer in zip(parents, inputs, strict=True):
            parent.read_into(piece.tensor.name, piece.byte_offset, buffer.memory(piece))
        delta_sq, result_sq = combine_piece(
            piece.tensor.name, [buffer.tensor(piece) for buffer in inputs], weights,
            out.tensor(piece), workspace)
        writer.write(piece.tensor, piece.byte_offset, out.memory(piece))
        totals.add(piece, delta_sq, result_sq)
        progress.update(piece.nbytes)
    return totals


class Helper(threading.Thread):
    """A worker beside the calling thread; an error stops the handout, so that the other
    workers stop too, and is raised again by `totals`."""

    def __init__(self, work, handout: Handout) -> None:
        super().__init__(name="merge-worker", daemon=True)
        self._work, self._handout = work, handout
        self._totals: Totals | None = None
        self._error: BaseException | None = None

    def run(self) -> None:
        try:
            self._totals = self._work()
        except BaseException as error:
            self._error = error
            self._handout.stop()

    def totals(self) -> Totals:
        if self._error is not None:
            raise self._error
        return self._totals


@contextmanager
def one_torch_thread() -> Iterator[None]:
    """torch computes each piece in the worker's own thread: the workers already keep
    every core busy, and torch's intra-op threads would only contend with them."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
