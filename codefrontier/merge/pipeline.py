"""The merge's tensors streamed through three stages that run at once: reading (one
thread per parent), combining (the calling thread) and writing (one thread).

Tensors are cut into pieces of at most `piece_bytes` (the embedding of a 1B model is
131 MB in bf16; a piece is 4 MiB), and a fixed ring of `depth` buffers per stage carries
them: while piece k is combined, the readers fill pieces k+1 .. k+depth-1 and the writer
writes piece k-1. Memory stays a few tens of MB whatever the model's size, and the three
stages overlap on two cores because pread, write and torch's kernels all release the
GIL. Each parent is read front to back by its own thread, which keeps the kernel's
readahead going when the parents are not in the page cache.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field

import torch
from tqdm import tqdm

from codefrontier.merge.method import Workspace, combine_piece
from codefrontier.merge.reader import TensorInfo, WeightFolder
from codefrontier.merge.writer import ShardWriter

PIECE_BYTES = 4 * 2**20
DEPTH = 4


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
    empty piece, so that it is still written)."""
    for info in tensors:
        step = max(1, piece_bytes // info.itemsize)
        if info.numel == 0:
            yield Piece(info, 0, 0)
        for start in range(0, info.numel, step):
            yield Piece(info, start, min(start + step, info.numel))


class PieceBuffer:
    """Bytes for one piece, reused: seen as the piece's dtype by the arithmetic and as a
    memoryview by pread and write."""

    def __init__(self, nbytes: int) -> None:
        self._bytes = torch.empty(nbytes, dtype=torch.uint8)

    def tensor(self, piece: Piece) -> torch.Tensor:
        return self._bytes[:piece.nbytes].view(piece.tensor.torch_dtype)

    def memory(self, piece: Piece) -> memoryview:
        return memoryview(self._bytes[:piece.nbytes].numpy())


@contextmanager
def one_torch_thread() -> Iterator[None]:
    """The arithmetic runs in the calling thread alone: the readers and the writer keep
    the other core busy, and torch's own worker threads would only contend with them."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


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


def stream_merge(parents: Sequence[WeightFolder], weights: Sequence[float],
                 writer: ShardWriter, tensors: Sequence[TensorInfo],
                 piece_bytes: int = PIECE_BYTES, depth: int = DEPTH) -> Totals:
    """Combine every tensor of `tensors` across the parents and hand it to `writer`."""
    pieces = list(cut_into_pieces(tensors, piece_bytes))
    size = max((piece.nbytes for piece in pieces), default=0)
    inputs = [[PieceBuffer(size) for _ in parents] for _ in range(depth)]
    outputs = [PieceBuffer(size) for _ in range(depth)]
    workspace, totals = Workspace(), Totals()
    reads: dict[int, list[Future]] = {}
    writes: list[Future | None] = [None] * depth

    with ExitStack() as stack:
        readers = [stack.enter_context(_thread(f"merge-read-{i}")) for i in range(len(parents))]
        writing = stack.enter_context(_thread("merge-write"))
        stack.enter_context(one_torch_thread())
        progress = stack.enter_context(tqdm(
            total=sum(piece.nbytes for piece in pieces), desc="merge", unit="B",
            unit_scale=True, disable=len(tensors) < 50, mininterval=2))

        def read_ahead(index: int) -> None:
            if index < len(pieces):
                piece, slot = pieces[index], inputs[index % depth]
                reads[index] = [
                    reader.submit(parent.read_into, piece.tensor.name, piece.byte_offset,
                                  buffer.memory(piece))
                    for reader, parent, buffer in zip(readers, parents, slot, strict=True)]

        for index in range(depth):
            read_ahead(index)
        for index, piece in enumerate(pieces):
            slot, out = index % depth, outputs[index % depth]
            for future in reads.pop(index):
                future.result()
            if writes[slot] is not None:
                writes[slot].result()  # the writer is done with this output buffer
            delta_sq, result_sq = combine_piece(
                piece.tensor.name, [buffer.tensor(piece) for buffer in inputs[slot]], weights,
                out.tensor(piece), workspace)
            totals.add(piece, delta_sq, result_sq)
            writes[slot] = writing.submit(writer.write, piece.tensor, piece.byte_offset,
                                          out.memory(piece))
            read_ahead(index + depth)  # into the input buffers just used
            progress.update(piece.nbytes)
        for future in writes:
            if future is not None:
                future.result()
    return totals


@contextmanager
def _thread(name: str) -> Iterator[ThreadPoolExecutor]:
    """One worker thread; on the way out, work not started is dropped (after an error
    nothing more is read or written) and work under way is waited for."""
    executor = ThreadPoolExecutor(1, thread_name_prefix=name)
    try:
        yield executor
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
