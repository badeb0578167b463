"""codefrontier: correctness-efficiency frontiers of RL-trained code models."""

__version__ = "0.1.0"
