"""A KV cache for the compacting sampler that grows in place.

transformers' DynamicLayer concatenates each step's keys and values onto the whole
cache, so a decode step copies everything cached so far: with multi-turn prompts of
about a thousand tokens that copying was a third of an episode's time on CPU. Here each
layer's keys and values are views of a buffer with room for the tokens still to come,
and a step writes one column.
"""

from __future__ import annotations

import torch
from transformers import DynamicCache
from transformers.cache_utils import DynamicLayer


class GrowingLayer(DynamicLayer):
    """A full-attention cache layer whose `keys`/`values` are views of buffers holding
    `headroom` spare columns. Code that replaces `keys`/`values` by other tensors (a
    batch selection, a crop, the sampler cutting shared padding from the front) is
    noticed: an update writes in place only while both are still views of the buffers
    that end where the written columns end."""

    def __init__(self, headroom: int) -> None:
        super().__init__()
        self.headroom = max(1, headroom)
        self._buffers: tuple[torch.Tensor, torch.Tensor] | None = None

    def update(self, key_states, value_states, *args, **kwargs):
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        new = key_states.shape[-2]
        span = self._span()
        if span is not None and span[1] + new <= self._buffers[0].shape[2]:
            start, end = span
            keys, values = self._buffers
        else:
            held = self.keys.shape[-2] if self.keys.numel() else 0
            shape = (*key_states.shape[:2], held + new + self.headroom, key_states.shape[-1])
            keys, values = key_states.new_empty(shape), value_states.new_empty(shape)
            if held:
                keys[:, :, :held], values[:, :, :held] = self.keys, self.values
            self._buffers = (keys, values)
            start, end = 0, held
        keys[:, :, end:end + new] = key_states
        values[:, :, end:end + new] = value_states
        self.keys, self.values = keys[:, :, start:end + new], values[:, :, start:end + new]
        return self.keys, self.values

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        span = self._span()
        if span is None:
            super().batch_select_indices(indices)
            return
        start, end = span
        keys, values = (buffer.index_select(0, indices) for buffer in self._buffers)
        self._buffers = (keys, values)
        self.keys, self.values = keys[:, :, start:end], values[:, :, start:end]

    def _span(self) -> tuple[int, int] | None:
        """The columns of the buffers that `keys` and `values` are views of, or None when
        they are not views of them (or hold nothing)."""
        if self._buffers is None or not self.keys.numel():
            return None
        for view, buffer in zip((self.keys, self.values), self._buffers, strict=True):
            if (view.untyped_storage().data_ptr() != buffer.untyped_storage().data_ptr()
                    or view.stride() != buffer.stride() or view.shape[:2] != buffer.shape[:2]
                    or view.shape[3] != buffer.shape[3]):
                return None
        offset = self.keys.storage_offset()
        if self.values.storage_offset() != offset or offset % self.keys.stride(2):
            return None
        start = offset // self.keys.stride(2)
        return start, start + self.keys.shape[2]


def growing_cache(config, headroom: int) -> DynamicCache:
    """A DynamicCache for `config` whose full-attention layers are GrowingLayers with
    room for `headroom` tokens (other layer kinds, e.g. sliding windows, stay as they are)."""
    cache = DynamicCache(config=config)
    cache.layers = [GrowingLayer(headroom) if type(layer) is DynamicLayer else layer
                    for layer in cache.layers]
    return cache
