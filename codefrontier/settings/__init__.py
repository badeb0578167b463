"""Inference settings: how a problem is put to the model and how its answer is read.

* `reasoning`: one turn, a short reasoning paragraph and one fenced program;
* `tool_use`: several turns, the model may run Python on inputs it chooses;
* `agentic`: several turns in a sandboxed terminal, ending with a submitted file.
"""
