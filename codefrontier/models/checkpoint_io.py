"""Checkpoint I/O shared by every stage: tokenizers and generation defaults.

Any model, the embedded one or a hub id such as Qwen/Qwen2.5-7B-Instruct, is a
save_pretrained folder (or hub id) loaded with `from_pretrained`.
"""

from __future__ import annotations


def generation_config(tokenizer, config_class=None):
    """Generation defaults: stop at <|im_end|>, KV cache on (trainer checkpoints turn it off
    in their config, and generation without it is several times slower)."""
    if config_class is None:
        from transformers import GenerationConfig as config_class
    return config_class(eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
                        use_cache=True, do_sample=True, temperature=1.0, top_p=1.0)


def load_tokenizer(name_or_path: str):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(name_or_path)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer
