"""Generation with transformers models: batched, left-padded, KV cache on, finished rows
leave the batch (generation.decode); CPU or one GPU."""

from __future__ import annotations

import logging

from tqdm import tqdm

from codefrontier.generation.base import Backend, Generation, SamplingSettings
from codefrontier.generation.decode import Sampler, sample_batch

log = logging.getLogger("codefrontier.generation")


class TransformersBackend(Backend):
    name = "transformers"

    def __init__(self, model: str, batch_size: int = 16, device: str | None = None,
                 dtype: str = "auto") -> None:
        import torch
        from transformers import AutoModelForCausalLM

        from codefrontier.checkpoint_io import load_tokenizer

        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.tokenizer = load_tokenizer(model)
        self.tokenizer.padding_side = "left"
        self.model = AutoModelForCausalLM.from_pretrained(model, dtype=dtype).to(self.device)
        self.model.eval()
        self.batch_size = batch_size
        self._stop_ids = self._stop_token_ids()

    def _stop_token_ids(self) -> set[int]:
        ids = self.model.generation_config.eos_token_id
        ids = set(ids if isinstance(ids, list) else [ids] if ids is not None else [])
        return ids | {self.tokenizer.eos_token_id}

    def generate(self, conversations: list[list[dict]], settings: SamplingSettings,
                 progress: bool = True, tools: list | None = None) -> list[list[Generation]]:
        import torch

        prompts = [self.tokenizer.apply_chat_template(c, tools=tools or None, tokenize=False,
                                                      add_generation_prompt=True)
                   for c in conversations]
        # One row per (conversation, sample), batched by prompt length so that little
        # padding is attended; batches of rows keep memory bounded.
        prompt_ids = self.tokenizer(prompts, add_special_tokens=False)["input_ids"]
        rows = sorted(((i, j) for i in range(len(prompts)) for j in range(settings.n)),
                      key=lambda row: len(prompt_ids[row[0]]))
        results: list[list[Generation | None]] = [[None] * settings.n for _ in prompts]
        sampler = Sampler(settings.temperature, settings.top_p)
        bar = tqdm(total=len(rows), desc="sampling", unit="sample", disable=not progress)
        for start in range(0, len(rows), self.batch_size):
            batch = rows[start:start + self.batch_size]
            encoded = self.tokenizer.pad({"input_ids": [prompt_ids[i] for i, _ in batch]},
                                         return_tensors="pt").to(self.device)
            # reproducible per batch
            generator = torch.Generator(self.device).manual_seed(settings.seed * 1_000_003 + start)
            completions = sample_batch(self.model, encoded["input_ids"],
                                       encoded["attention_mask"], settings.max_new_tokens,
                                       self._stop_ids, sampler, generator)
            for (i, j), new_ids in zip(batch, completions, strict=True):
                results[i][j] = self._to_generation(new_ids, prompt_ids[i])
            bar.update(len(batch))
        bar.close()
        return results

    def _to_generation(self, new_ids: list[int], prompt_ids: list[int]) -> Generation:
        stop = next((k for k, t in enumerate(new_ids) if t in self._stop_ids), None)
        kept = new_ids if stop is None else new_ids[:stop]
        with_stop = new_ids if stop is None else new_ids[:stop + 1]
        return Generation(text=self.tokenizer.decode(kept, skip_special_tokens=True),
                          finish_reason="length" if stop is None else "stop",
                          prompt_tokens=len(prompt_ids), completion_tokens=len(with_stop),
                          token_ids=tuple(with_stop), prompt_token_ids=tuple(prompt_ids))

    def close(self) -> None:
        del self.model
