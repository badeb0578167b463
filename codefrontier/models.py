"""The embedded model, and loading any model or tokenizer by folder or hub id.

On a laptop nothing can be downloaded, so the default policy is built here: a
byte-level BPE tokenizer trained on the problems' text and the SFT programs, with
a Qwen-style chat template, and a small Qwen2 model initialised from a config.
Real configs name a hub id (e.g. Qwen/Qwen2.5-7B-Instruct) instead, and every
later stage loads either one the same way: `from_pretrained`.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from codefrontier import __version__
from codefrontier.provenance import record

log = logging.getLogger("codefrontier.models")

IM_START, IM_END, END_OF_TEXT = "<|im_start|>", "<|im_end|>", "<|endoftext|>"
# The template Qwen2.5 uses, without its default system prompt and tool syntax.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


@dataclass(frozen=True)
class EmbeddedModelSpec:
    """Sizes of the embedded model. About 5M parameters learn under GRPO here; 0.7M did not."""

    vocab_size: int = 4096
    hidden_size: int = 256
    intermediate_size: int = 688
    num_hidden_layers: int = 6
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    max_position_embeddings: int = 2048
    seed: int = 0


def corpus_texts(paths: list[str | os.PathLike]) -> Iterator[str]:
    """Text for the tokenizer from problem files (statements) and SFT files (prompts and
    completions): everything the embedded model will read or write."""
    from codefrontier.tables import read_records

    for path in paths:
        for row in read_records(path):
            if "statement" in row:
                yield row["statement"]
            for column in ("prompt", "completion"):
                for message in row.get(column) or []:
                    yield message["content"]


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
    tokenizer.chat_template = CHAT_TEMPLATE
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
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    write_provenance(out, {**record(texts), "kind": "init", "spec": asdict(spec),
                           "seed": spec.seed,
                           "parameters": sum(p.numel() for p in model.parameters())})
    log.info("embedded model: %d parameters, vocabulary %d -> %s",
             sum(p.numel() for p in model.parameters()), len(tokenizer), out)
    return out


def generation_config(tokenizer, config_class=None):
    """Generation defaults: stop at <|im_end|>, KV cache on (trainer checkpoints turn it off
    in their config, and generation without it is several times slower)."""
    if config_class is None:
        from transformers import GenerationConfig as config_class
    return config_class(eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
                        use_cache=True, do_sample=True, temperature=1.0, top_p=1.0)


def write_provenance(folder: Path, record: dict) -> None:
    import torch
    import transformers

    record = {**record, "codefrontier_version": __version__, "torch_version": torch.__version__,
              "transformers_version": transformers.__version__}
    (folder / "provenance.json").write_text(json.dumps(record, indent=2, sort_keys=True))


def load_tokenizer(name_or_path: str):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(name_or_path)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer
