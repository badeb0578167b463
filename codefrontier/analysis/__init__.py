"""From verdicts to findings: the frontier, distance and ensemble tables, pass@k, the
claims check, charts, the Markdown view, and where a run's time went."""
