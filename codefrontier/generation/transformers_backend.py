"""Generation with transformers models: batched, left-padded, KV cache on, finished rows
leave the batch (generation.decode), and a prompt that extends an earlier row (the next
turn of an episode) prefills only its new tokens (generation.prefix_cache); CPU or one
GPU."""

from __future__ import annotations

import logging

from tqdm import tqdm

from codefrontier.generation.base import Backend, Generation, SamplingSettings
from codefrontier.generation.decode import Sampler, sample_prompts, stop_token_ids
from codefrontier.generation.prefix_cache import PrefixCache

log = logging.getLogger("codefrontier.generation")


class TransformersBackend(Backend):
    name = "transformers"

    def __init__(self, model: str, batch_size: int = 16, device: str | None = None,
                 dtype: str = "auto", prefix_cache_mb: float = 2048) -> None:
        import torch
        from transformers import AutoModelForCausalLM

        from codefrontier.models.checkpoint_io import load_tokenizer

        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.tokenizer = load_tokenizer(model)
        self.tokenizer.padding_side = "left"
        self.model = AutoModelForCausalLM.from_pretrained(model, dtype=dtype).to(self.device)
        self.model.eval()
        self.batch_size = batch_size
        self._stop_ids = stop_token_ids(self.model, self.tokenizer)
        self.prefix_cache = PrefixCache(prefix_cache_mb) if prefix_cache_mb > 0 else None

    def generate(self, conversations: list[list[dict]], settings: SamplingSettings,
                 progress: bool = True, tools: list | None = None) -> list[list[Generation]]:
        prompts = [self.tokenizer.apply_chat_template(c, tools=tools or None, tokenize=False,
                                                      add_generation_prompt=True)
                   for c in conversations]
        prompt_ids = self.tokenizer(prompts, add_special_tokens=False)["input_ids"]
        # one row per (conversation, sample), conversation-major
        rows = [prompt_ids[i] for i in range(len(prompts)) for _ in range(settings.n)]
        bar = tqdm(total=len(rows), desc="sampling", unit="sample", disable=not progress)
        completions = sample_prompts(self.model, rows, self.tokenizer.pad_token_id,
                                     settings.max_new_tokens, self._stop_ids,
                                     Sampler(settings.temperature, settings.top_p),
                                     settings.seed, self.batch_size, on_batch=bar.update,
                                     prefix_cache=self.prefix_cache)
        bar.close()
        generations = [self._to_generation(ids, row) for ids, row in zip(completions, rows,
                                                                         strict=True)]
        return [generations[i * settings.n:(i + 1) * settings.n] for i in range(len(prompts))]

    def _to_generation(self, new_ids: list[int], prompt_ids: list[int]) -> Generation:
        stop = next((k for k, t in enumerate(new_ids) if t in self._stop_ids), None)
        kept = new_ids if stop is None else new_ids[:stop]
        with_stop = new_ids if stop is None else new_ids[:stop + 1]
        return Generation(text=self.tokenizer.decode(kept, skip_special_tokens=True),
                          finish_reason="length" if stop is None else "stop",
                          prompt_tokens=len(prompt_ids), completion_tokens=len(with_stop),
                          token_ids=tuple(with_stop), prompt_token_ids=tuple(prompt_ids))

    def close(self) -> None:
        if self.prefix_cache is not None and self.prefix_cache.prompt_tokens:
            log.info("prefix cache: %d of %d prompt tokens were not prefilled again",
                     self.prefix_cache.reused_tokens, self.prefix_cache.prompt_tokens)
        self.prefix_cache = None
        del self.model
