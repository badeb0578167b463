"""Generation with transformers models: batched, left-padded, KV cache on, finished rows
leave the batch (generation.decode), and a prompt that extends an earlier row (the next
turn of an episode) prefills only its new tokens (generation.prefix_cache); CPU or one
GPU. In a job that keeps its work (base/shards.py) each batch is a shard (BatchShards)."""

from __future__ import annotations

import logging

from tqdm import tqdm

from codefrontier.base.shards import json_sha256
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
        self.batch_size = self.rows_per_shard = batch_size
        self._stop_ids = stop_token_ids(self.model, self.tokenizer)
        self.prefix_cache = PrefixCache(prefix_cache_mb) if prefix_cache_mb > 0 else None

    def start_afresh(self) -> None:
        if self.prefix_cache is not None:
            self.prefix_cache.clear()

    def generate(self, conversations: list[list[dict]], settings: SamplingSettings,
                 progress: bool = True, tools: list | None = None,
                 shards=None) -> list[list[Generation]]:
        prompts = [self.tokenizer.apply_chat_template(c, tools=tools or None, tokenize=False,
                                                      add_generation_prompt=True)
                   for c in conversations]
        prompt_ids = self.tokenizer(prompts, add_special_tokens=False)["input_ids"]
        # one row per (conversation, sample), conversation-major
        rows = [prompt_ids[i] for i in range(len(prompts)) for _ in range(settings.n)]
        journal = BatchShards(shards) if shards is not None else None
        bar = tqdm(total=len(rows), desc="sampling", unit="sample", disable=not progress)
        completions = sample_prompts(self.model, rows, self.tokenizer.pad_token_id,
                                     settings.max_new_tokens, self._stop_ids,
                                     Sampler(settings.temperature, settings.top_p),
                                     settings.seed, self.batch_size, on_batch=bar.update,
                                     prefix_cache=self.prefix_cache, journal=journal)
        bar.close()
        if journal is not None:
            journal.report()
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


class BatchShards:
    """The journal of `sample_prompts` (generation/decode.py) over a job's shards: one
    shard per batch, named by the batch's start, holding its completions and a digest of
    its prompts (kept completions of other prompts are not taken: sampled again)."""

    def __init__(self, shards) -> None:
        self.shards = shards
        self.taken = 0    # batches an earlier run of the job sampled
        self.sampled = 0

    def kept(self, start: int, prompts: list[list[int]]) -> list[list[int]] | None:
        shard = self.shards.get(_batch_name(start))
        if shard is None:
            return None
        if shard["prompts_sha256"] != json_sha256(prompts):
            log.warning("the kept batch at row %d was sampled from other prompts: sampling "
                        "it again", start)
            return None
        self.taken += 1
        return shard["completions"]

    def keep(self, start: int, prompts: list[list[int]], completions: list[list[int]]) -> None:
        self.shards.put(_batch_name(start), {"prompts_sha256": json_sha256(prompts),
                                             "completions": completions})
        self.sampled += 1

    def report(self) -> None:
        log.info("%d of %d batches kept from an earlier run, %d sampled", self.taken,
                 self.taken + self.sampled, self.sampled)


def _batch_name(start: int) -> str:
    return f"batch-{start:08d}"
