"""Where problems come from: the one list of sources (sources.py: the bundled suite and
the real experiment's datasets) and the loaders that map each dataset to the judge's
problem schema."""
