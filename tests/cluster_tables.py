"""Cluster tables (analysis/clusters.py) for crafted frontier rows: each checkpoint's
rates spread over 16 families. A family's shift is shared by every checkpoint (families
differ in difficulty, and pairing removes that), and each checkpoint × family cell has
its own jitter (scaled down where a rate is near 0): small jitter makes a change of a few points clear, large jitter leaves
it undecided."""

import numpy as np
import pandas as pd

from codefrontier.judge.verdicts import OUTCOMES

FAMILIES = 16
SAMPLES = 1000  # per family: rates in steps of 0.001
# shared by every checkpoint: half the families 10 points easier, half harder
SHIFTS = np.tile([0.10, -0.10], FAMILIES // 2)


def jitters(checkpoint: str, size: float) -> np.ndarray:
    """Zero-mean per-family jitter of one checkpoint (the same for every call)."""
    rng = np.random.default_rng(sum(map(ord, checkpoint)))
    values = rng.normal(0.0, size, FAMILIES)
    return values - values.mean()


def cluster_table(rows: list[dict], jitter: float = 0.005, seed: int = 0) -> pd.DataFrame:
    """Per family, the shift moves correct samples and correctness failures in opposite
    directions, the jitter does the same for optimization and correctness failures; each
    checkpoint's mean rates stay its row's."""
    records = []
    for row in rows:
        wiggle = jitters(row["checkpoint"], jitter)
        for family in range(FAMILIES):
            rates = {o: row[f"rate_{o}"] for o in OUTCOMES}
            rates["correct"] += SHIFTS[family] * min(rates["correct"], rates["correctness_failure"])
            rates["correctness_failure"] -= SHIFTS[family] * min(rates["correct"],
                                                                 rates["correctness_failure"])
            # no more jitter than the smaller of the two rates has room for
            room = min(rates["optimization_failure"], rates["correctness_failure"])
            rates["optimization_failure"] += wiggle[family] * min(1.0, room / 0.2)
            rates["correctness_failure"] -= wiggle[family] * min(1.0, room / 0.2)
            counts = {o: round(rates[o] * SAMPLES) for o in OUTCOMES}
            counts["format_error"] = SAMPLES - sum(counts[o] for o in OUTCOMES
                                                   if o != "format_error")
            assert min(counts.values()) >= 0, (row, counts)
            records.append({"model": row["model"], "setting": row["setting"], "seed": seed,
                            "checkpoint": row["checkpoint"], "cluster": f"bundled/f{family}",
                            "difficulty": "easy", "problems": 3, "samples": SAMPLES,
                            **{f"n_{o}": counts[o] for o in OUTCOMES}})
    return pd.DataFrame(records)
