"""Evaluating a checkpoint: sampling in a setting, failure feedback, second-attempt samples."""
