"""`codefrontier show`: the frontier table as Markdown."""

import pandas as pd

from codefrontier.analysis.show import frontier_markdown


def row(checkpoint, kind, alpha, setting="reasoning", distance=(0.0, -0.01, 0.02), **rates):
    values = {"correct": 0.3, "optimization_failure": 0.1, "correctness_failure": 0.6,
              "format_error": 0.0, **rates}
    d, lo, hi = distance
    return {"model": "tiny", "setting": setting, "checkpoint": checkpoint, "kind": kind,
            "alpha": alpha, "difficulty": "all", "problems": 48, "samples": 240,
            **{f"rate_{k}": v for k, v in values.items()},
            **{f"se_{k}": 0.05 for k in values}, "frontier_distance": d,
            "frontier_distance_lo": lo, "frontier_distance_hi": hi}


def test_one_table_per_setting_in_checkpoint_order_with_intervals():
    frame = pd.DataFrame([
        row("a0.5", "merge", 0.5), row("rl-kinf", "rl", 1.0), row("sft", "sft", None),
        row("rl-shaped-disc", "rl", None, distance=(-0.0421, -0.1, 0.013)),
        row("rl-k2", "rl", 0.0), row("sft", "sft", None, setting="agentic"),
        {**row("a0.5", "merge", 0.5), "difficulty": "easy"}])
    text = frontier_markdown(frame)
    assert text.index("### tiny / reasoning") < text.index("### tiny / agentic")
    reasoning = text.split("### tiny / agentic")[0]
    order = [line.split(" | ")[0].strip("| ") for line in reasoning.splitlines()
             if line.startswith("| ") and not line.startswith("| checkpoint")]
    assert order == ["sft", "rl-k2", "rl-kinf", "rl-shaped-disc", "a0.5"]
    assert "| rl-shaped-disc |  | 0.300 ± 0.050 | 0.100 ± 0.050 | 0.600 ± 0.050 | 0 | " \
           "−0.042 [−0.100, +0.013] |" in reasoning
    assert frontier_markdown(frame, ["agentic"]).count("###") == 1
