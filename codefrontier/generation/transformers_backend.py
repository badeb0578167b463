"""Generation with transformers: batched, left-padded, KV cache on; CPU or one GPU."""

from __future__ import annotations

import logging

from tqdm import tqdm

from codefrontier.generation.base import Backend, Generation, SamplingSettings

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
        # One row per (conversation, sample); batches of rows keep memory bounded.
        rows = [(i, j) for i in range(len(prompts)) for j in range(settings.n)]
        results: list[list[Generation | None]] = [[None] * settings.n for _ in prompts]
        bar = tqdm(total=len(rows), desc="sampling", unit="sample", disable=not progress)
        for start in range(0, len(rows), self.batch_size):
            batch = rows[start:start + self.batch_size]
            encoded = self.tokenizer([prompts[i] for i, _ in batch], return_tensors="pt",
                                     padding=True, add_special_tokens=False).to(self.device)
            torch.manual_seed(settings.seed * 1_000_003 + start)  # reproducible per batch
            sampling = {"do_sample": True, "temperature": settings.temperature,
                        "top_p": settings.top_p} if settings.temperature > 0 else \
                {"do_sample": False}
            with torch.inference_mode():
                output = self.model.generate(
                    **encoded, max_new_tokens=settings.max_new_tokens, use_cache=True,
                    pad_token_id=self.tokenizer.pad_token_id, top_k=None, **sampling)
            prompt_width = encoded["input_ids"].shape[1]
            for (i, j), row, mask in zip(batch, output, encoded["attention_mask"], strict=True):
                prompt_ids = row[:prompt_width][mask.bool()].tolist()
                results[i][j] = self._to_generation(row[prompt_width:].tolist(), prompt_ids)
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
