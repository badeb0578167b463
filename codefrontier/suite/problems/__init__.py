"""One module per bundled problem, each defining PROBLEM (see suite/spec.py)."""
