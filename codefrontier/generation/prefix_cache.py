"""Keys and values of finished rows, reused when a later prompt starts with their tokens.

A multi-turn episode sends its whole conversation again at every turn: the previous
prompt, the model's reply and the tool's output. Without reuse each turn prefills all
of it, and in the agentic setting prefill was about 40% of a sampling job. The
compacting sampler (generation/decode.py) hands the keys and values of each row that
leaves the batch to a `PrefixCache`; a later prompt takes the cached row with which it
shares the longest token prefix and prefills only the rest. This is vLLM's automatic
prefix caching, done by hand for the transformers backend.

The cache is only valid while the weights stay the same: one per loaded model (the
evaluation backend) or per rollout of a training step. It holds the rows of the last
two `sample_prompts` calls, at most `budget_mb` of them, and offers a prompt the rows of
the previous call only (an episode's next turn extends a row of the previous call): a
row of the call under way would make a batch depend on the batches before it, and a
job that keeps each finished batch (base/shards.py) could not resume after one of them
and sample the rest as an uninterrupted job does. Within one call the rows share no
more than the chat template's system turn (the default's reasoning job lost 23 prompt
tokens a row, 3,675 in all, and sampled the same 240 samples).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class CachedRow:
    """The tokens of a row whose keys and values are held, and those keys and values:
    one (kv_heads, tokens, head_dim) tensor per layer."""

    token_ids: tuple[int, ...]
    keys: tuple
    values: tuple

    @property
    def nbytes(self) -> int:
        return sum(t.numel() * t.element_size() for t in (*self.keys, *self.values))


class PrefixCache:
    def __init__(self, budget_mb: float = 2048) -> None:
        self.budget_bytes = int(budget_mb * 2**20)
        self._previous: list[CachedRow] = []
        self._current: list[CachedRow] = []
        self._held_bytes = 0
        self._tokens: np.ndarray | None = None  # the previous call's rows' tokens, padded with -1
        self.reused_tokens = 0                  # prompt tokens not prefilled, in all
        self.prompt_tokens = 0                  # prompt tokens looked up, in all

    def __len__(self) -> int:
        return len(self._previous) + len(self._current)

    def add(self, row: CachedRow) -> None:
        """Keep a row of the call under way, unless the budget is spent."""
        if self._held_bytes + row.nbytes > self.budget_bytes:
            return
        self._current.append(row)
        self._held_bytes += row.nbytes

    def end_call(self) -> None:
        """A `sample_prompts` call is over: its rows are offered to the next call, older
        ones are dropped."""
        self._previous, self._current = self._current, []
        self._held_bytes = sum(row.nbytes for row in self._previous)
        self._tokens = None

    def clear(self) -> None:
        """Drop every row (the counts of reused tokens stay)."""
        self._previous, self._current = [], []
        self._held_bytes = 0
        self._tokens = None

    def match(self, prompt: list[int]) -> tuple[int, CachedRow | None]:
        """The row of the previous call sharing the longest token prefix with `prompt`,
        and how many of the prompt's tokens it covers: at most all but the last, whose
        logits the next token is drawn from."""
        self.prompt_tokens += len(prompt)
        rows = self._previous
        if not rows or len(prompt) < 2:
            return 0, None
        if self._tokens is None:
            width = max(len(row.token_ids) for row in rows)
            self._tokens = np.full((len(rows), width), -1, dtype=np.int64)
            for index, row in enumerate(rows):
                self._tokens[index, :len(row.token_ids)] = row.token_ids
        span = min(len(prompt) - 1, self._tokens.shape[1])
        same = self._tokens[:, :span] == np.asarray(prompt[:span], dtype=np.int64)
        shared = np.where(same.all(1), span, same.argmin(1))
        best = int(shared.argmax())
        length = int(shared[best])
        if length == 0:
            return 0, None
        self.reused_tokens += length
        return length, rows[best]
