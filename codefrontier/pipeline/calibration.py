"""How many GPU-hours a job's token work takes, fitted to published runs (issue 50; the
figures and their sources: docs/data/published-runs.md; the fit's form and its
leave-one-out check: docs/cluster.md, "How the estimate is fitted").

* GRPO: a run reaches a share u of its GPUs' dense bf16 peak, counting its FLOPs as
  costs.grpo_flops does at its mean completion length. ln u is fitted by least squares on
  ln(parameters / 1e9) and on whether generation has GPUs of its own (a synchronous run
  whose generation and training GPUs wait for each other in turn), over every published
  run with a time and mean lengths. Runs measured with `codefrontier plan --calibrate`
  join the fit with a level of their own, which the estimate then uses: the published
  runs differ mostly by their trainer, and a measured run is this trainer on this cluster.
* Sampling: u of batched decoding, the geometric mean over the throughput benchmarks of
  one regime: short outputs, or reasoning-length outputs (thousands of tokens per turn).
* Completion lengths: completions fill a share of their budget; the default share of a
  model kind (reasoning-distilled or instruct) is the median over the published runs of
  that kind of mean / cap, each distinct (model, cap, mean) counted once.
"""

from __future__ import annotations

import csv
import functools
import math
import statistics
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from codefrontier.pipeline.costs import PROMPT_TOKENS, gpu_peak_flops, grpo_flops, sampling_flops

DATA = Path(__file__).resolve().parents[2] / "docs" / "data"  # in the checkout
RL_RUNS = DATA / "published-rl-runs.csv"
SAMPLING_BENCHMARKS = DATA / "published-sampling-throughput.csv"

REASONING, INSTRUCT = "reasoning", "instruct"
# name parts of models that think at length before answering (distilled from a reasoning
# model, or trained to think); any other model, base or instruct, is of the instruct kind
REASONING_NAMES = ("r1-distill", "deepseek-r1", "qwq", "qwen3", "thinking")
STAGE = "-stage"  # a stage's run name: its whole run's name, then -stage...
FP8_PEAK_FACTOR = 2.0  # FP8's dense peak over bf16's (a benchmark of an -FP8 checkpoint)


def model_kind(name: str) -> str:
    lowered = name.lower()
    return REASONING if any(part in lowered for part in REASONING_NAMES) else INSTRUCT


@dataclass(frozen=True)
class RlRun:
    """A GRPO run (or a stage of one): its work, and the GPU-hours it took when known.
    A run made of stages (other GPUs, other caps) is the sum of its stages."""

    name: str
    model: str
    parameters: float
    gpu: str
    separate_generation: bool
    gpus: float | None = None
    steps: float | None = None
    completions_per_step: float | None = None
    prompt_tokens: float | None = None
    max_completion_tokens: float | None = None
    mean_completion_tokens: float | None = None
    gpu_hours: float | None = None
    time_source: str = ""  # published, inferred, or measured (codefrontier plan --calibrate)
    stages: tuple[RlRun, ...] = ()

    @property
    def parts(self) -> tuple[RlRun, ...]:
        return self.stages or (self,)

    @property
    def kind(self) -> str:
        return model_kind(self.model)

    @property
    def lengths_known(self) -> bool:
        return all(part.mean_completion_tokens is not None for part in self.parts)

    def peak_gpu_seconds(self, fill: float | None = None) -> float:
        """GPU-seconds at the GPUs' full dense peak: completions at their mean length, or
        at `fill` of their cap when given (or when the mean is unknown)."""
        seconds = 0.0
        for part in self.parts:
            if fill is None and part.mean_completion_tokens is not None:
                completion = part.mean_completion_tokens
            elif fill is not None and part.max_completion_tokens is not None:
                completion = fill * part.max_completion_tokens
            else:
                raise ValueError(f"{part.name}: neither a mean completion length nor a cap")
            tokens = part.steps * part.completions_per_step * (part.prompt_tokens + completion)
            seconds += grpo_flops(self.parameters, tokens) / gpu_peak_flops(part.gpu)
        return seconds

    def utilisation(self) -> float:
        """The share of peak the run reached (its time and mean lengths known)."""
        return self.peak_gpu_seconds() / (self.gpu_hours * 3600)


def _existing(path: Path) -> Path:
    if not path.is_file():
        raise FileNotFoundError(f"{path}: the published runs the plan's estimate is fitted "
                                "to are not there (they come with the project's checkout)")
    return path


def _number(text: str) -> float | None:
    return float(text) if text.strip() else None


def _rl_row(row: dict) -> RlRun:
    prompts, per_prompt = _number(row["prompts_per_step"]), _number(row["completions_per_prompt"])
    gpus, gpu_hours = _number(row["gpus"]), _number(row["gpu_hours"])
    wall = _number(row["wall_hours"])
    if gpu_hours is None and wall is not None and gpus is not None:
        gpu_hours = wall * gpus
    prompt = _number(row["max_prompt_tokens"])
    return RlRun(
        name=row["run"], model=row["model"], parameters=float(row["parameters_b"]) * 1e9,
        gpu=row["gpu"], separate_generation=row["colocated"].strip() == "no", gpus=gpus,
        steps=_number(row["steps"]),
        completions_per_step=prompts * per_prompt if prompts and per_prompt else None,
        # a run that states no prompt cap: the plan's own prompt length
        prompt_tokens=PROMPT_TOKENS if prompt is None else prompt,
        max_completion_tokens=_number(row["max_completion_tokens"]),
        mean_completion_tokens=_number(row["mean_completion_tokens"]),
        gpu_hours=gpu_hours, time_source=row["time_source"].strip())


@functools.cache
def published_rl_runs(path: Path = RL_RUNS) -> tuple[RlRun, ...]:
    """Every row of the runs table; a run whose stages have rows of their own carries them
    (its prompt count, completions and caps are theirs)."""
    with open(_existing(path), newline="") as handle:
        runs = [_rl_row(row) for row in csv.DictReader(handle)]
    names = {run.name for run in runs}
    stages: dict[str, list[RlRun]] = {}
    for run in runs:
        whole = run.name.split(STAGE)[0]
        if STAGE in run.name and whole in names:
            stages.setdefault(whole, []).append(run)
    return tuple(RlRun(**{**run.__dict__, "stages": tuple(stages.get(run.name, ()))})
                 for run in runs)


def timed(runs: tuple[RlRun, ...]) -> tuple[RlRun, ...]:
    """The runs whose GPU-hours are known (published, inferred or measured)."""
    return tuple(run for run in runs if run.gpu_hours is not None)


def fitted(runs: tuple[RlRun, ...]) -> tuple[RlRun, ...]:
    """The runs the GRPO fit reads: a time, and a mean completion length for every stage."""
    return tuple(run for run in timed(runs) if run.lengths_known)


@functools.cache
def default_fills(runs: tuple[RlRun, ...] | None = None) -> dict[str, float]:
    """Per model kind, the median share of its cap that a run's completions filled."""
    shares: dict[str, dict[tuple, float]] = {REASONING: {}, INSTRUCT: {}}
    for run in runs or published_rl_runs():
        mean, cap = run.mean_completion_tokens, run.max_completion_tokens
        if mean is not None and cap is not None:
            shares[run.kind][(run.model, cap, mean)] = mean / cap
    return {kind: statistics.median(found.values()) for kind, found in shares.items()}


@dataclass(frozen=True)
class RlFit:
    """ln u = intercept + slope · ln(parameters / 1e9) + separate · [generation GPUs of its
    own] (+ measured, the measured runs' own level, when there are any)."""

    intercept: float
    slope: float
    separate: float
    measured: float | None
    runs: int

    def utilisation(self, parameters: float, separate_generation: bool) -> float:
        return math.exp(self.intercept + self.slope * math.log(parameters / 1e9)
                        + self.separate * separate_generation + (self.measured or 0.0))


def _features(run: RlRun, with_measured: bool) -> list[float]:
    row = [1.0, math.log(run.parameters / 1e9), float(run.separate_generation)]
    return [*row, float(run.time_source == "measured")] if with_measured else row


@functools.cache
def fit_rl(runs: tuple[RlRun, ...]) -> RlFit:
    """Least squares of ln u over the runs that have a time and mean lengths."""
    used = fitted(runs)
    with_measured = any(run.time_source == "measured" for run in used)
    if len(used) < 4:
        raise ValueError(f"{len(used)} runs with a time and mean lengths: too few to fit")
    x = np.array([_features(run, with_measured) for run in used])
    y = np.log([run.utilisation() for run in used])
    coefficients = np.linalg.lstsq(x, y, rcond=None)[0]
    return RlFit(*map(float, coefficients[:3]),
                 float(coefficients[3]) if with_measured else None, len(used))


def rl_fit(measured: tuple[RlRun, ...] = ()) -> RlFit:
    """The fit over the published runs and any measured ones."""
    return fit_rl(published_rl_runs() + measured)


def grpo_gpu_hours(parameters: float, gpu_model: str | None, tokens: float,
                   separate_generation: bool, fit: RlFit) -> float:
    """GPU-hours of a GRPO run that reads and generates `tokens`, prompt and completion."""
    peak = gpu_peak_flops(gpu_model) * fit.utilisation(parameters, separate_generation)
    return grpo_flops(parameters, tokens) / peak / 3600


def predicted_gpu_hours(run: RlRun, fit: RlFit, fill: float | None = None) -> float:
    """A run's GPU-hours as the fit predicts them: at its mean lengths, else (or with
    `fill`) at that share of its caps; the kind's default share where the mean is unknown."""
    if fill is None and not run.lengths_known:
        fill = default_fills()[run.kind]
    return (run.peak_gpu_seconds(fill)
            / fit.utilisation(run.parameters, run.separate_generation) / 3600)


@dataclass(frozen=True)
class Check:
    """One published figure against the estimator's prediction without it."""

    name: str
    source: str  # where the published figure's time comes from
    published: float
    predicted: float
    predicted_at_caps: float | None = None
    in_fit: bool = True  # False: not fitted (no mean length), predicted by the whole fit
    note: str = ""

    @property
    def ratio(self) -> float:
        """Predicted over published time."""
        return self.predicted / self.published


def leave_one_out_rl(runs: tuple[RlRun, ...] | None = None) -> list[Check]:
    """Every timed run's GPU-hours predicted by the fit without it (runs without mean
    lengths are not in any fit: the whole fit and the kind's default fill predict them)."""
    runs = runs or published_rl_runs()
    used = fitted(runs)
    checks = []
    for run in timed(runs):
        fit = fit_rl(tuple(r for r in used if r is not run))
        at_caps = (predicted_gpu_hours(run, fit, fill=1.0)
                   if all(p.max_completion_tokens for p in run.parts) else None)
        note = "" if run.lengths_known else (f"not fitted, mean length unknown: "
                                             f"{default_fills()[run.kind]:.2f} of the cap, "
                                             f"the {run.kind} default")
        checks.append(Check(run.name, run.time_source, run.gpu_hours,
                            predicted_gpu_hours(run, fit), at_caps, run in used, note))
    return checks


@dataclass(frozen=True)
class Spread:
    """How far the fitted runs' GPU-hours fell from their leave-one-out predictions:
    published over predicted, at the least and the most, and how many within 2x."""

    least: float
    most: float
    within_2x: int
    runs: int


@functools.cache
def rl_spread() -> Spread:
    """The leave-one-out spread of the published runs in the GRPO fit: the band around an
    estimate that the runs it was fitted to fell in."""
    factors = [1 / check.ratio for check in leave_one_out_rl() if check.in_fit]
    return Spread(min(factors), max(factors), sum(0.5 <= f <= 2 for f in factors), len(factors))


@dataclass(frozen=True)
class Benchmark:
    """A batched-decoding throughput: tokens read and written per second by `gpus` GPUs."""

    model: str
    parameters: float
    gpu: str
    gpus: int
    input_tokens: float
    output_tokens: float
    tokens_per_s: float
    reasoning_length: bool

    @property
    def peak(self) -> float:
        factor = FP8_PEAK_FACTOR if self.model.lower().endswith("-fp8") else 1.0
        return gpu_peak_flops(self.gpu) * factor * self.gpus

    def utilisation(self) -> float:
        return sampling_flops(self.parameters, self.tokens_per_s) / self.peak

    def tokens_per_s_at(self, utilisation: float) -> float:
        return utilisation * self.peak / sampling_flops(self.parameters, 1.0)


@functools.cache
def sampling_benchmarks(path: Path = SAMPLING_BENCHMARKS) -> tuple[Benchmark, ...]:
    with open(_existing(path), newline="") as handle:
        return tuple(Benchmark(row["model"], float(row["parameters_b"]) * 1e9, row["gpu"],
                               int(row["gpus"]), float(row["input_tokens"]),
                               float(row["output_tokens"]),
                               float(row["total_tokens_per_s"]),
                               row["reasoning_length"].strip() == "yes")
                     for row in csv.DictReader(handle))


@dataclass(frozen=True)
class SamplingFit:
    """u of batched decoding: short outputs, and outputs of at least `reasoning_from`
    tokens per turn (the geometric middle between the two regimes' benchmarks)."""

    short: float
    reasoning: float
    reasoning_from: float
    benchmarks: int = 0

    def utilisation(self, output_tokens_per_turn: float) -> float:
        return self.reasoning if output_tokens_per_turn >= self.reasoning_from else self.short


def _geometric_mean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


def fit_sampling(benchmarks: tuple[Benchmark, ...]) -> SamplingFit:
    short = [b for b in benchmarks if not b.reasoning_length]
    long = [b for b in benchmarks if b.reasoning_length]
    if not short or not long:
        raise ValueError("the sampling fit needs benchmarks with short and with "
                         "reasoning-length outputs")
    middle = math.sqrt(max(b.output_tokens for b in short) * min(b.output_tokens for b in long))
    return SamplingFit(_geometric_mean([b.utilisation() for b in short]),
                       _geometric_mean([b.utilisation() for b in long]), middle,
                       len(benchmarks))


@functools.cache
def sampling_fit() -> SamplingFit:
    return fit_sampling(sampling_benchmarks())


def sampling_gpu_hours(parameters: float, gpu_model: str | None, tokens: float,
                       output_tokens_per_turn: float, fit: SamplingFit) -> float:
    """GPU-hours of a sampling job that reads and writes `tokens`."""
    peak = gpu_peak_flops(gpu_model) * fit.utilisation(output_tokens_per_turn)
    return sampling_flops(parameters, tokens) / peak / 3600


def leave_one_out_sampling(benchmarks: tuple[Benchmark, ...] | None = None) -> list[Check]:
    """Every benchmark's GPU-hours per billion tokens predicted from the others of its
    regime."""
    benchmarks = benchmarks or sampling_benchmarks()
    checks = []
    for index, benchmark in enumerate(benchmarks):
        others = [b.utilisation() for i, b in enumerate(benchmarks)
                  if i != index and b.reasoning_length == benchmark.reasoning_length]
        predicted = benchmark.tokens_per_s_at(_geometric_mean(others))
        checks.append(Check(
            f"{benchmark.model} on {benchmark.gpus} {benchmark.gpu}, "
            f"{benchmark.input_tokens:.0f} tokens in, {benchmark.output_tokens:.0f} out",
            REASONING if benchmark.reasoning_length else "short",
            *(benchmark.gpus * 1e9 / rate / 3600 for rate in (benchmark.tokens_per_s, predicted))))
    return checks


def leave_one_out_markdown() -> str:
    """The leave-one-out checks as docs/cluster.md shows them
    (`python -m codefrontier.pipeline.calibration`)."""
    def hours(value: float | None) -> str:
        return "-" if value is None else f"{value:,.0f}" if value >= 10 else f"{value:#.2g}"

    def term(value: float) -> str:
        return f"{'+' if value >= 0 else '−'} {abs(value):.3f}"

    runs = published_rl_runs()
    lines = ["| run | time | published GPU-h | predicted without it | predicted / published "
             "| at full budgets |", "|---|---|---:|---:|---:|---:|"]
    for check in leave_one_out_rl(runs):
        name = f"{check.name} ({check.note})" if check.note else check.name
        lines.append(f"| {name} | {check.source} | {hours(check.published)} | "
                     f"{hours(check.predicted)} | {check.ratio:.2f} | "
                     f"{hours(check.predicted_at_caps)} |")
    fit = rl_fit()
    within = [c for c in leave_one_out_rl(runs) if c.in_fit and 0.5 <= c.ratio <= 2]
    lines += ["", f"{len(within)} of {fit.runs} fitted runs within 2x. Fit over all "
              f"{fit.runs}: ln u = {fit.intercept:.3f} {term(fit.slope)} ln(N / 1e9) "
              f"{term(fit.separate)} [generation on GPUs of its own]; default fills: "
              + ", ".join(f"{kind} {share:.3f}" for kind, share in default_fills().items())
              + ". Not scored (no time of their own, only their whole run's): "
              + ", ".join(run.name for run in runs if run.gpu_hours is None) + ".",
              "", "| benchmark | outputs | published GPU-h per 10⁹ tokens | predicted without "
              "it | predicted / published |", "|---|---|---:|---:|---:|"]
    lines += [f"| {check.name} | {check.source} | {hours(check.published)} | "
              f"{hours(check.predicted)} | {check.ratio:.2f} |"
              for check in leave_one_out_sampling()]
    pace = sampling_fit()
    lines += ["", f"Fit over all {pace.benchmarks}: u {pace.short:.3f} (short outputs), "
              f"{pace.reasoning:.3f} (from {pace.reasoning_from:,.0f} tokens a turn)."]
    return "\n".join(lines)


@dataclass(frozen=True)
class Fill:
    """The share of its token budget a model's completions fill on average, and whence."""

    share: float
    source: str


def model_fill(config: dict, model: str) -> Fill:
    """`models.<model>.fill` when the config sets it, else its kind's default (the kind
    from the names of its base and SFT checkpoint)."""
    model_config = config["models"][model]
    if model_config.get("fill") is not None:
        return Fill(float(model_config["fill"]), f"models.{model}.fill")
    kind = model_kind(f"{model_config['base']} {model_config.get('sft_checkpoint') or ''}")
    return Fill(default_fills()[kind], f"the {kind} default")


if __name__ == "__main__":
    print(leave_one_out_markdown())
