"""Ensembles of checkpoints at an equal sample budget: the ensemble table.

For every model × setting and every budget k (1, 2, 4, … samples per problem), the
pooled pass@k of each pool of checkpoints (`metrics.pooled_pass_at_k`) next to the
best single checkpoint at the same k, with the gain over it and a bootstrap interval
over families (problems.schema.cluster_of) that chooses the best single checkpoint anew
in every resample. A checkpoint given second attempts at evaluation also gives a
`second-attempt:<ckpt>` pool: its episodes (a first attempt and, when it failed, its
second attempt) cost two samples each, so at an even budget k it draws k/2 episodes.

Over several training seeds (config `seeds`) a model × setting's rows pool them: each
value is the mean over problems and seeds, each seed's pools drawn from that seed's
checkpoints, the best single checkpoint the name with the highest mean over seeds, and
the bootstrap resamples families and seeds (distance.crossed_resamples).
Schema: ENSEMBLE_SCHEMA (docs/results.md).
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from codefrontier.analysis.distance import crossed_resamples
from codefrontier.analysis.frontier import Checkpoint, correct_counts, episode_counts
from codefrontier.analysis.metrics import most_draws_per_member, pass_at_k, pooled_pass_at_k
from codefrontier.base.layout import first_verdicts_path, merge_alpha, rl_name
from codefrontier.base.provenance import parquet_metadata, record
from codefrontier.base.tables import read_records, write_records
from codefrontier.problems.schema import cluster_of
from codefrontier.settings.registry import setting_order

SECOND_ATTEMPT_POOL = "second-attempt:"  # + checkpoint name; two samples per episode

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0

ENSEMBLE_SCHEMA = pa.schema([
    ("model", pa.string()), ("setting", pa.string()),
    ("pool", pa.string()),            # single:<ckpt> | best-single | interpolation | ...
    ("members", pa.list_(pa.string())),
    ("k", pa.int64()), ("pass_at_k", pa.float64()), ("problems", pa.int64()),
    # pass_at_k minus the best single checkpoint's at the same k, and its 95% bootstrap
    # interval over families (problems.schema.cluster_of, resampled with replacement; the
    # best single checkpoint chosen anew in each resample, so the interval includes the choice)
    ("gain_over_best", pa.float64()), ("gain_low", pa.float64()), ("gain_high", pa.float64()),
    ("solved", pa.list_(pa.string())),            # problems with a correct sample in the pool
    ("solved_beyond_best", pa.list_(pa.string())),  # ... that the best single one misses
])


def pools_for(names: list[str], low: str | None, high: str | None) -> dict[str, list[str]]:
    """The pools compared at equal budget (each present only when it has members); the
    RL endpoints are the α curve's points at 0 and 1."""
    alphas = {n: merge_alpha(n) for n in names if merge_alpha(n) is not None}
    if low and high and {rl_name(low), rl_name(high)} <= set(names):
        alphas |= {rl_name(low): 0.0, rl_name(high): 1.0}
    pools = {f"single:{n}": [n] for n in names}
    inside = sorted((n for n, a in alphas.items() if 0 <= a <= 1), key=alphas.get)
    everything = sorted(alphas, key=alphas.get)
    if inside:
        pools["interpolation"] = inside
    if len(everything) > len(inside):
        pools["interpolation+extrapolation"] = everything
    endpoints = [f"rl-{r}" for r in (low, high) if r and f"rl-{r}" in names]
    if len(endpoints) == 2:
        pools["rl-endpoints"] = endpoints
    return pools


def budgets(n: int) -> list[int]:
    """1, 2, 4, ... up to n samples per problem, and n itself."""
    ks, k = [], 1
    while k < n:
        ks.append(k)
        k *= 2
    return [*ks, n]


Cell = tuple[int, str]  # (training seed, problem id): where a checkpoint's pass@k is measured


def resample_shares(cells: list[Cell], resamples: int = BOOTSTRAP_RESAMPLES,
                    seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """[resamples, cells]: each (seed, problem) cell's share of a resample that draws the
    clusters (problems.schema.cluster_of: families) and the training seeds with
    replacement and takes every problem of a drawn cluster in a drawn seed as often as
    both were drawn. `shares @ values` gives the mean of per-cell values in each
    resample."""
    weights = crossed_resamples([cluster_of(pid) for _, pid in cells],
                                [run_seed for run_seed, _ in cells], resamples, seed)
    return weights / weights.sum(axis=1, keepdims=True)


def best_single_in_each_resample(singles: np.ndarray, shares: np.ndarray) -> np.ndarray:
    """[resamples]: the highest pass@k of any single checkpoint in each resample, that
    checkpoint chosen on the resample itself; singles: per-cell pass@k [cells,
    checkpoints]."""
    return (shares @ singles).max(axis=1)


def gain_interval(values: np.ndarray, best_in_resample: np.ndarray,
                  shares: np.ndarray) -> tuple[float, float]:
    """95% percentile interval of the gain of per-problem `values` over the best single
    checkpoint, over the resamples of `shares`; the best is the one chosen in each
    resample (best_single_in_each_resample), so the interval carries the choice of it."""
    low, high = np.percentile(shares @ values - best_in_resample, [2.5, 97.5])
    return float(low), float(high)


@dataclass(frozen=True)
class BestSingle:
    """The best single checkpoint at one budget: its per-cell pass@k (chosen on all
    cells, the point estimate's reference) and the best pass@k in each resample."""
    values: np.ndarray            # [cells]
    in_resample: np.ndarray       # [resamples]
    shares: np.ndarray            # [resamples, cells]

    def gain(self, values: np.ndarray | None) -> dict:
        if values is None:
            return {"pass_at_k": None, "gain_over_best": None, "gain_low": None,
                    "gain_high": None}
        low, high = gain_interval(values, self.in_resample, self.shares)
        return {"pass_at_k": float(values.mean()),
                "gain_over_best": float((values - self.values).mean()),
                "gain_low": low, "gain_high": high}

    def own_gain(self) -> dict:
        """The best-single row: it is the best single checkpoint of every resample too,
        so its gain is 0 in each."""
        return {"pass_at_k": float(self.values.mean()), "gain_over_best": 0.0,
                "gain_low": 0.0, "gain_high": 0.0}


def ensemble_rows(checkpoints: list[Checkpoint],
                  endpoints: dict[str, tuple[str, str]] | None = None,
                  episodes: dict[tuple[str, str, str], dict] | None = None) -> list[dict]:
    """Rows per (model, setting), models by name and settings in the registry's order:
    pools never mix settings, and pool each seed's checkpoints with the same seed's;
    `endpoints` names each model's merge parents, the same in every setting;
    `episodes[(model, setting, ckpt)]` are the episode counts per (seed, problem) cell of
    a checkpoint given second attempts (frontier.episode_counts)."""
    rows = []
    groups: dict[tuple[str, str], dict[str, list[Checkpoint]]] = defaultdict(
        lambda: defaultdict(list))
    for ckpt in checkpoints:
        groups[(ckpt.model, ckpt.setting)][ckpt.name].append(ckpt)
    order = {s: i for i, s in enumerate(setting_order(s for _, s in groups))}
    for (model, setting), by_name in sorted(groups.items(),
                                            key=lambda group: (group[0][0], order[group[0][1]])):
        low, high = (endpoints or {}).get(model, (None, None))
        retried = {name: counts for (m, s, name), counts in (episodes or {}).items()
                   if (m, s) == (model, setting) and name in by_name}
        rows += _group_rows(model, setting, by_name, low, high, retried)
    return rows


def cell_counts(checkpoints: list[Checkpoint]) -> dict[Cell, tuple[int, int]]:
    """(seed, problem) -> (samples, correct samples) of one checkpoint's runs."""
    return {(ckpt.seed, pid): counts for ckpt in checkpoints
            for pid, counts in correct_counts(ckpt).items()}


def _group_rows(model: str, setting: str, by_name: dict[str, list[Checkpoint]],
                low: str | None, high: str | None,
                episodes: dict[str, dict] | None = None) -> list[dict]:
    counts = {name: cell_counts(runs) for name, runs in by_name.items()}
    cells = sorted(set().union(*[c.keys() for c in counts.values()]))
    n_min = min(n for c in counts.values() for n, _ in c.values())
    pools = pools_for(sorted(by_name), low, high)
    solved = {name: {pid for (_, pid), (_, c) in counts[name].items() if c > 0}
              for name in by_name}
    base = {"model": model, "setting": setting,
            "problems": len({pid for _, pid in cells})}
    shares = resample_shares(cells)
    rows = []
    for k in budgets(n_min):
        per_cell = {name: _per_cell(counts, [name], cells, k) for name in by_name}
        best = max(per_cell, key=lambda name: (per_cell[name].mean(), name))
        reference = BestSingle(per_cell[best], best_single_in_each_resample(
            np.column_stack(list(per_cell.values())), shares), shares)
        for pool, members in {**pools, "best-single": [best]}.items():
            values = _per_cell(counts, members, cells, k) if _budget_fits(
                members, k, counts) else None
            pool_solved = set().union(*[solved[m] for m in members])
            rows.append({**base, "pool": pool, "members": members, "k": k,
                         **(reference.own_gain() if pool == "best-single"
                            else reference.gain(values)),
                         "solved": sorted(pool_solved),
                         "solved_beyond_best": sorted(pool_solved - solved[best])})
        for name, episodes_of in sorted((episodes or {}).items()):
            second = _second_attempt_row(name, episodes_of, cells, k, reference)
            rows.append({**base, **second,
                         "solved_beyond_best": sorted(set(second["solved"]) - solved[best])})
    extrapolated = [n for n in by_name
                    if merge_alpha(n) is not None and not 0 <= merge_alpha(n) <= 1]
    if extrapolated:
        others = set().union(*[solved[n] for n in by_name if n not in extrapolated])
        only = set().union(*[solved[n] for n in extrapolated]) - others
        rows.append({**base, "pool": "only-extrapolated", "members": sorted(extrapolated),
                     "k": None, "pass_at_k": None, "gain_over_best": None, "gain_low": None,
                     "gain_high": None, "solved": sorted(only), "solved_beyond_best": []})
    return rows


def _second_attempt_row(name: str, counts: dict, cells: list[Cell], k: int,
                        best: BestSingle) -> dict:
    """The second-attempt pool of one checkpoint at budget k: pass@(k/2) of its episodes, for an
    even k that every problem's first attempts can supply (else no value)."""
    fits = k % 2 == 0 and all(counts.get(cell, (0, 0))[0] >= k // 2 for cell in cells)
    values = np.array([pass_at_k(*counts.get(cell, (0, 0)), k // 2) for cell in cells]) \
        if fits else None
    return {"pool": f"{SECOND_ATTEMPT_POOL}{name}", "members": [name], "k": k,
            **best.gain(values),
            "solved": sorted({pid for (_, pid), (_, s) in counts.items() if s})}


def _per_cell(counts: dict, members: list[str], cells: list[Cell], k: int) -> np.ndarray:
    """Each (seed, problem) cell's pooled pass@k of the members (that seed's runs)."""
    return np.array([pooled_pass_at_k([counts[m][cell] for m in members], k) for cell in cells])


def _budget_fits(members: list[str], k: int, counts: dict) -> bool:
    """Whether every member can supply ⌈k/m⌉ samples on every problem: any of them may
    be among those drawing the k mod m extra samples."""
    most = most_draws_per_member(k, len(members))
    return all(most <= min(n for n, _ in counts[m].values()) for m in members)


def second_attempt_episodes(second_attempts: list[str | os.PathLike],
                            first_seed: int = 0) -> dict:
    """(model, setting, ckpt) -> episode counts per (seed, problem) cell, from second
    attempts' verdict files (layout.SECOND_ATTEMPT_VERDICTS) and the first attempts'
    beside them."""
    episodes: dict = defaultdict(dict)
    for path in second_attempts:
        first = Checkpoint.from_verdicts_path(first_verdicts_path(path), first_seed)
        counts = episode_counts(read_records(first.verdicts), read_records(path))
        episodes[(first.model, first.setting, first.name)] |= {
            (first.seed, pid): value for pid, value in counts.items()}
    return dict(episodes)


def write_ensemble(verdicts: list[str | os.PathLike], endpoints: dict[str, tuple[str, str]],
                   second_attempts: list[str | os.PathLike], out: str | os.PathLike,
                   first_seed: int = 0) -> int:
    """results/ensemble.parquet from the checkpoints' verdict files and the second
    attempts' verdict files (`first_seed`: the grid's first, the seed of the runs named
    by their model alone); the number of rows."""
    checkpoints = [Checkpoint.from_verdicts_path(p, first_seed) for p in verdicts]
    rows = ensemble_rows(checkpoints, endpoints,
                         second_attempt_episodes(second_attempts, first_seed))
    write_records(rows, out, schema=ENSEMBLE_SCHEMA,
                  metadata=parquet_metadata(record(verdicts, kind="ensemble")))
    return len(rows)
