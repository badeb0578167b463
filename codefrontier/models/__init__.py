"""The models: the embedded tiny Qwen2 built here, and loading any checkpoint's tokenizer
and generation defaults."""
