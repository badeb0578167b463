"""Evaluating a checkpoint: sampling in a setting, failure feedback, repair attempts."""
