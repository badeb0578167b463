"""Streaming weight averaging: θ = Σ w_i θ_i with Σ w_i = 1, any real weights.

θ_α = α·θ_high + (1−α)·θ_low is the two-parent case (α outside [0, 1] extrapolates),
and base + Σ w_i (θ_i − base) is the same affine combination with the base weighted
1 − Σ w_i. One call writes one output folder.

Tensors are read from the parents' sharded safetensors with pread (no memory map, so
the parents' pages never count toward this process's memory) in pieces of 1 MiB,
combined in float32 (α is never rounded to bf16), rounded once to the parents' dtype
and written with pwrite into new shards with an index, by one worker thread per core.
The output is a complete save_pretrained folder plus provenance.json, published by
rename so that a killed merge leaves nothing that looks complete.

  reader    safetensors headers, tensor bytes read with pread (WeightFolder)
  method    the weights and the float32 arithmetic on one piece
  writer    shards created with their headers, pieces written at their places, the
            index, the parent's other files
  pipeline  pieces handed to one worker per core: read, combine, write
  run       one merge from parents to a published folder with provenance
"""

from codefrontier.merge.errors import MergeError
from codefrontier.merge.method import alpha_weights
from codefrontier.merge.reader import INDEX_FILE, SINGLE_FILE, WeightFolder
from codefrontier.merge.run import (
    merge_alpha,
    merge_checkpoints,
    remove_stale_temporaries,
    write_merge_record,
)
from codefrontier.merge.writer import DEFAULT_SHARD_BYTES

__all__ = ["DEFAULT_SHARD_BYTES", "INDEX_FILE", "SINGLE_FILE", "MergeError", "WeightFolder",
           "alpha_weights", "merge_alpha", "merge_checkpoints", "remove_stale_temporaries",
           "write_merge_record"]
