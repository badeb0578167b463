"""Loaders for the real experiment's datasets, mapped to the judge's problem schema."""
