"""Inference settings: how a problem is put to the model and how its answer is read.

`reasoning` (single turn: think, then one fenced program) is the first; the
tool-use and agentic settings plug in beside it.
"""
