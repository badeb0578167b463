"""Training: SFT and GRPO with TRL, the same code on a laptop CPU and on GPU nodes."""
