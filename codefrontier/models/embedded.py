"""The embedded model: a small Qwen2 model and its tokenizer, built here.

On a laptop nothing can be downloaded, so the default policy is built here: a
byte-level BPE tokenizer trained on the problems' text and the SFT programs, with
Qwen2.5's chat template (tool calls included), and a small Qwen2 model
initialised from a config.
Real configs name a hub id (e.g. Qwen/Qwen2.5-7B-Instruct) instead, and every
later stage loads either one the same way (`checkpoint_io`).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from codefrontier.base.provenance import record, write_provenance
from codefrontier.base.publish import publishing
from codefrontier.models.checkpoint_io import generation_config

log = logging.getLogger("codefrontier.models.embedded")

IM_START, IM_END, END_OF_TEXT = "<|im_start|>", "<|im_end|>", "<|endoftext|>"
# Qwen2.5 writes tool calls between these, each one token (added, not special: decoding
# keeps them, so the tool-call parser sees them).
TOOL_CALL_TOKENS = ("<tool_call>", "</tool_call>")


def qwen2_5_chat_template() -> str:
    """Qwen2.5's own chat template, tool syntax included: the embedded model and
    Qwen2.5-7B then share one prompt format and one tool-call parser (TRL recognises
    this template by its text and sets the matching response parser)."""
    from trl.chat_template_utils import qwen2_5_chat_template as template

    return template


@dataclass(frozen=True)
class EmbeddedModelSpec:
    """Sizes of the embedded model (the default's). 2.2M parameters learn under GRPO here
    as well as 5.2M (hidden 256, 6 layers) at half the cost per token; 0.7M did not."""

    vocab_size: int = 4096
    hidden_size: int = 192
    intermediate_size: int = 512
    num_hidden_layers: int = 4
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    max_position_embeddings: int = 2048
    seed: int = 0


def corpus_texts(paths: list[str | os.PathLike]) -> Iterator[str]:
    """Text for the tokenizer from problem files (statements) and SFT files (whole
    conversations, tool calls and tool schemas as the chat template renders them: JSON):
    everything the embedded model will read or write."""
    import json

    from codefrontier.base.tables import read_records

    for path in paths:
        for row in read_records(path):
            if "statement" in row:
                yield row["statement"]
            messages = json.loads(row["messages"]) if row.get("messages") else \
                [*(row.get("prompt") or []), *(row.get("completion") or [])]
            for message in messages:
                yield message.get("content") or ""
                for call in message.get("tool_calls") or []:
                    yield json.dumps(call["function"], ensure_ascii=False)
            if row.get("tools"):
                yield row["tools"]


def train_tokenizer(texts: Iterator[str], vocab_size: int):
    """A byte-level BPE tokenizer (every string encodes) with the chat special tokens."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, show_progress=False,
                                  special_tokens=[END_OF_TEXT, IM_START, IM_END],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    core.train_from_iterator(texts, trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, eos_token=IM_END,
                                        pad_token=END_OF_TEXT, unk_token=None)
    tokenizer.add_tokens(list(TOOL_CALL_TOKENS))
    tokenizer.chat_template = qwen2_5_chat_template()
    return tokenizer


def init_embedded_model(out: str | os.PathLike, texts: list[str | os.PathLike],
                        spec: EmbeddedModelSpec = EmbeddedModelSpec(),
                        force: bool = False) -> Path:
    """Write the tokenizer (trained on the problem and SFT files `texts`: everything the
    model will read or write) and a freshly initialised Qwen2 model as a save_pretrained
    folder."""
    import torch
    from transformers import GenerationConfig, Qwen2Config, Qwen2ForCausalLM

    out = Path(out)
    if (out / "config.json").exists() and not force:
        raise FileExistsError(f"{out} already holds a model; pass --force to replace it")
    if not texts:
        raise ValueError("the embedded tokenizer is trained on problem and SFT files: give "
                         "at least one (--texts)")
    tokenizer = train_tokenizer(corpus_texts(texts), spec.vocab_size)
    config = Qwen2Config(
        vocab_size=len(tokenizer), hidden_size=spec.hidden_size,
        intermediate_size=spec.intermediate_size, num_hidden_layers=spec.num_hidden_layers,
        num_attention_heads=spec.num_attention_heads,
        num_key_value_heads=spec.num_key_value_heads,
        max_position_embeddings=spec.max_position_embeddings, tie_word_embeddings=True,
        bos_token_id=None, eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id, use_cache=True)
    torch.manual_seed(spec.seed)
    model = Qwen2ForCausalLM(config)
    model.generation_config = generation_config(tokenizer, GenerationConfig)
    with publishing(out) as tmp:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        write_provenance(tmp, {**record(texts), "kind": "init", "spec": asdict(spec),
                               "seed": spec.seed,
                               "parameters": sum(p.numel() for p in model.parameters())})
    log.info("embedded model: %d parameters, vocabulary %d -> %s",
             sum(p.numel() for p in model.parameters()), len(tokenizer), out)
    return out
