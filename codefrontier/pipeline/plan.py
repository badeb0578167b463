"""`codefrontier plan`: what a run would cost before it starts.

The jobs are Snakemake's own: the same Snakefile, config files and targets, its DAG and
its decision of what needs to run (a partial rerun plans only what would run). Per rule:
the jobs, their GPUs, cores, memory and the hours they request; GPU-hours in total and
on the critical path (the longest chain of requested runtimes); beside each GRPO run's
and sampling job's request, the GPU-hours and hours a job its token work takes
(pipeline/costs.py) at the published runs' pace (pipeline/calibration.py), with
completions at their expected length and at their full budget, and a warning where a job
requests less time than the estimate; the bytes each kind of output takes and the disk
peak over the run, with the grid's `keep` choices and with everything kept.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

from codefrontier.base.layout import DATA, model_of
from codefrontier.generation.options import SampleOptions
from codefrontier.judge.verdicts import OUTCOMES
from codefrontier.pipeline import calibration, costs, power
from codefrontier.pipeline import resources as res
from codefrontier.pipeline.places import Places


@dataclass
class PlannedJob:
    """One job Snakemake would run, with what it asks for and what the plan estimates."""

    key: int
    rule: str
    wildcards: dict[str, str]
    threads: int
    gpus: int  # in all (per node x nodes)
    nodes: int
    mem_mb: int | None
    runtime_min: int | None
    outputs: list[str]
    temp_outputs: list[str]
    depends_on: list[int] = field(default_factory=list)
    estimated_gpu_hours: float | None = None  # completions at their expected length
    full_budget_gpu_hours: float | None = None  # every completion at its budget
    output_bytes: float = 0.0  # what stays when it is done
    transient_bytes: float = 0.0  # what exists only while it runs (trainer checkpoints)

    @property
    def hours(self) -> float:
        return (self.runtime_min or 0) / 60

    @property
    def gpu_hours(self) -> float:
        return self.gpus * self.hours

    @property
    def estimated_hours(self) -> float | None:
        """The estimate's wall-clock hours on the job's own GPUs."""
        return self.estimated_gpu_hours / self.gpus if self.estimated_gpu_hours else None


def snakemake_jobs(snakefile: Path, workdir: Path, configfiles: list[Path],
                   targets: list[str], forceall: bool = False) -> tuple[list[PlannedJob], dict]:
    """The jobs Snakemake would run for `targets`, and the run's config."""
    import logging

    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import (
        ConfigSettings,
        DAGSettings,
        OutputSettings,
        Quietness,
        ResourceSettings,
    )

    with SnakemakeApi(OutputSettings(quiet={Quietness.ALL})) as api:
        workflow_api = api.workflow(
            resource_settings=ResourceSettings(cores=1_000_000, nodes=1_000_000),
            config_settings=ConfigSettings(configfiles=[p.absolute() for p in configfiles]),
            snakefile=snakefile, workdir=workdir)
        for name in ("snakemake", "snakemake.logging"):  # no "Building DAG of jobs..."
            logging.getLogger(name).setLevel(logging.WARNING)
        workflow_api.dag(DAGSettings(targets=set(targets), forceall=forceall))
        workflow = workflow_api._workflow  # the API gives no DAG object: printd3dag's path
        workflow._prepare_dag(forceall=forceall, ignore_incomplete=True, lock_warn_only=True)
        workflow._build_dag()
        dag = workflow.dag
        # in a fixed order (Snakemake's is a set's): the plan is the same on every call
        needed = sorted(dag.needrun_jobs(), key=lambda job: (
            res.RULES.index(job.rule.name) if job.rule.name in res.RULES else len(res.RULES),
            job.rule.name, sorted(dict(job.wildcards).items())))
        keys = {job: index for index, job in enumerate(needed)}
        planned = [_planned(keys[job], job, [keys[d] for d in dag.dependencies[job] if d in keys])
                   for job in needed]
        return planned, dict(workflow.config)


def _planned(key: int, job, depends_on: list[int]) -> PlannedJob:
    resources = dict(job.resources)
    nodes = int(resources.get("nodes", 1) or 1)
    per_node = int(resources.get("gpu", 0) or 0)
    if not per_node and resources.get("gres", "").startswith("gpu:"):
        per_node = int(str(resources["gres"]).rsplit(":", 1)[-1])
    return PlannedJob(
        key=key, rule=job.rule.name, wildcards=dict(job.wildcards), threads=int(job.threads),
        gpus=per_node * nodes, nodes=nodes, mem_mb=resources.get("mem_mb"),
        runtime_min=resources.get("runtime"), outputs=[str(f) for f in job.output],
        temp_outputs=[str(f) for f in job.output if f.is_temp], depends_on=depends_on)


@dataclass(frozen=True)
class Assumptions:
    eval_problems: int
    prompt_tokens: float = costs.PROMPT_TOKENS
    gpu_default: str = costs.DEFAULT_GPU


@dataclass(frozen=True)
class Pace:
    """The pace the estimates assume: the fits to the published runs (and to measured
    ones), and each model's completion lengths as a share of their budget."""

    rl: calibration.RlFit
    sampling: calibration.SamplingFit
    fills: dict[str, calibration.Fill]
    measured: tuple[calibration.RlRun, ...] = ()

    @classmethod
    def of(cls, config: dict, measured: tuple[calibration.RlRun, ...] = ()) -> Pace:
        return cls(calibration.rl_fit(measured), calibration.sampling_fit(),
                   {model: calibration.model_fill(config, model) for model in config["models"]},
                   measured)


def grpo_generates_apart(trl: dict) -> bool:
    """Whether a GRPO run's generation has GPUs of its own (a vLLM server)."""
    return bool(trl.get("use_vllm")) and trl.get("vllm_mode") == "server"


def eval_problem_count(workdir: Path) -> int:
    """The evaluation problems: counted in the run's problems file when it is there."""
    path = workdir / DATA.fill(split="eval")
    if path.is_file():
        import pyarrow.parquet as pq

        return pq.ParquetFile(path).metadata.num_rows
    return costs.EVAL_PROBLEMS


def estimate(jobs: list[PlannedJob], config: dict, places: Places, assumptions: Assumptions,
             pace: Pace) -> dict[str, costs.ModelSize]:
    """Fill in each job's GPU-hour estimates and output bytes; the model sizes used."""
    from codefrontier.pipeline.workflow import (
        keeps,
        model_config,
        rl_trl,
        setting_sampling,
        sft_fields,
    )

    sizes = {model: costs.model_size(config, model, places) for model in config["models"]}
    keep_checkpoints = keeps(config, "trainer_checkpoints")
    for job in jobs:
        model = job.wildcards.get("model")
        size = sizes.get(model_of(model)) if model else None
        fill = pace.fills[model_of(model)].share if model else None
        gpu_model = res.rule_entry(config, job.rule, model or "").get("gpu_model")
        if job.rule == "rl":
            trl = rl_trl(config, model, job.wildcards["setting"])
            world = max(1, model_config(config, model)["rl"].get("processes", 1)) * job.nodes
            work = costs.grpo_workload(trl, world, assumptions.prompt_tokens)
            if job.gpus:
                job.estimated_gpu_hours, job.full_budget_gpu_hours = (
                    calibration.grpo_gpu_hours(size.parameters, gpu_model, work.tokens(share),
                                               grpo_generates_apart(trl), pace.rl)
                    for share in (fill, 1.0))
            job.output_bytes = size.checkpoint_bytes
            held = costs.trainer_checkpoints_kept({**_grpo_defaults(), **trl})
            job.transient_bytes = held * size.trainer_checkpoint_bytes
        elif job.rule == "sft":
            job.output_bytes = size.checkpoint_bytes
            held = costs.trainer_checkpoints_kept({**_sft_defaults(), **sft_fields(config, model)})
            job.transient_bytes = held * size.trainer_checkpoint_bytes
        elif job.rule in ("sample", "second_attempt"):
            setting = job.wildcards["setting"]
            sampling = setting_sampling(config, setting, model)
            turns = _turns(config, setting)
            problems = sampling.get("limit") or assumptions.eval_problems
            work = costs.sample_workload(sampling, turns, problems, assumptions.prompt_tokens)
            if job.gpus:
                job.estimated_gpu_hours, job.full_budget_gpu_hours = (
                    calibration.sampling_gpu_hours(size.parameters, gpu_model,
                                                   work.tokens(share), share * work.budget,
                                                   pace.sampling)
                    for share in (fill, 1.0))
            job.output_bytes = work.written_tokens() * costs.CHARS_PER_TOKEN  # at most
        elif job.rule == "merge" or job.rule == "model_init":
            job.output_bytes = size.checkpoint_bytes
        if keep_checkpoints and job.rule in ("sft", "rl"):
            job.output_bytes += job.transient_bytes
            job.transient_bytes = 0.0
    return sizes


def _grpo_defaults() -> dict:
    from codefrontier.train.grpo import DEFAULTS

    return DEFAULTS


def _sft_defaults() -> dict:
    from codefrontier.train.sft import DEFAULTS

    return DEFAULTS


def _turns(config: dict, setting: str) -> int:
    from codefrontier.pipeline.workflow import episode_limits
    from codefrontier.settings.registry import get_setting

    return getattr(get_setting(setting, episode_limits(config, setting)), "max_turns", 1)


def critical_path(jobs: list[PlannedJob]) -> list[PlannedJob]:
    """The chain of jobs with the longest total requested runtime."""
    by_key = {job.key: job for job in jobs}
    longest: dict[int, tuple[float, int | None]] = {}

    def finish(key: int) -> float:
        if key not in longest:
            job = by_key[key]
            before = max(((finish(d), d) for d in job.depends_on), default=(0.0, None))
            longest[key] = (before[0] + job.hours, before[1])
        return longest[key][0]

    if not jobs:
        return []
    end = max(by_key, key=finish)
    chain = []
    while end is not None:
        chain.append(by_key[end])
        end = longest[end][1]
    return chain[::-1]


def disk_peak(jobs: list[PlannedJob], drop_temporaries: bool) -> float:
    """The most bytes the run's outputs take at once, jobs run one after another in an
    order that samples a merge as soon as it is made: each job's outputs appear when it
    ends, its trainer checkpoints exist while it runs, and a temporary output goes once
    every job that reads it is done (when `drop_temporaries`)."""
    readers: dict[int, set[int]] = defaultdict(set)
    for job in jobs:
        for dependency in job.depends_on:
            readers[dependency].add(job.key)
    done: set[int] = set()
    on_disk = peak = 0.0
    ready = [job for job in jobs if not job.depends_on]
    waiting = {job.key: set(job.depends_on) for job in jobs}
    by_key = {job.key: job for job in jobs}
    while ready:
        # the job whose inputs were made last first: depth first, so temporaries go early
        ready.sort(key=lambda j: max(j.depends_on, default=-1))
        job = ready.pop()
        peak = max(peak, on_disk + job.transient_bytes)
        on_disk += job.output_bytes
        peak = max(peak, on_disk)
        done.add(job.key)
        for dependency in job.depends_on:
            parent = by_key[dependency]
            if drop_temporaries and parent.temp_outputs and readers[dependency] <= done:
                on_disk -= parent.output_bytes
        for reader in readers[job.key]:
            waiting[reader].discard(job.key)
            if not waiting[reader]:
                ready.append(by_key[reader])
    return peak


@dataclass
class RulePlan:
    rule: str
    model: str
    jobs: int = 0
    gpus_per_job: set[int] = field(default_factory=set)
    cores_per_job: set[int] = field(default_factory=set)
    mem_gb_per_job: set[float] = field(default_factory=set)
    hours_per_job: set[float] = field(default_factory=set)
    estimated_hours_per_job: set[float] = field(default_factory=set)
    gpu_hours: float = 0.0
    estimated_gpu_hours: float | None = None
    full_budget_gpu_hours: float | None = None
    output_bytes: float = 0.0
    transient_bytes: float = 0.0
    short_jobs: list[PlannedJob] = field(default_factory=list)  # requesting less than needed


def _add(total: float | None, value: float | None) -> float | None:
    return total if value is None else (total or 0.0) + value


def summarise(jobs: list[PlannedJob], config: dict, sizes: dict,
              assumptions: Assumptions, pace: Pace) -> dict:
    rules: dict[tuple[str, str], RulePlan] = {}
    order = {rule: index for index, rule in enumerate(res.RULES)}
    for job in sorted(jobs, key=lambda j: (order.get(j.rule, len(order)),
                                           j.wildcards.get("model", ""))):
        model = job.wildcards.get("model", "")
        plan = rules.setdefault((job.rule, model), RulePlan(job.rule, model))
        plan.jobs += 1
        plan.gpus_per_job.add(job.gpus)
        plan.cores_per_job.add(job.threads)
        if job.mem_mb:
            plan.mem_gb_per_job.add(round(job.mem_mb / 1000, 1))
        plan.hours_per_job.add(round(job.hours, 2))
        plan.gpu_hours += job.gpu_hours
        plan.estimated_gpu_hours = _add(plan.estimated_gpu_hours, job.estimated_gpu_hours)
        plan.full_budget_gpu_hours = _add(plan.full_budget_gpu_hours, job.full_budget_gpu_hours)
        if job.estimated_hours is not None:
            plan.estimated_hours_per_job.add(round(job.estimated_hours, 1))
            if job.runtime_min and job.estimated_hours > job.hours:
                plan.short_jobs.append(job)
        plan.output_bytes += job.output_bytes
        plan.transient_bytes = max(plan.transient_bytes, job.transient_bytes)
    chain = critical_path(jobs)
    kept = sum(job.output_bytes for job in jobs if not job.temp_outputs)
    return {
        "jobs": len(jobs),
        "rules": [_rule_row(plan) for plan in rules.values()],
        "gpu_hours": sum(job.gpu_hours for job in jobs),
        "estimated_gpu_hours": sum(job.estimated_gpu_hours or 0.0 for job in jobs),
        "full_budget_gpu_hours": sum(job.full_budget_gpu_hours or 0.0 for job in jobs),
        "warnings": [runtime_warning(plan, config) for plan in rules.values() if plan.short_jobs],
        "critical_path": {"jobs": [f"{j.rule} {_wildcards(j)}".strip() for j in chain],
                          "hours": sum(j.hours for j in chain),
                          "gpu_hours": sum(j.gpu_hours for j in chain)},
        "disk": {"kept_bytes": kept,
                 "peak_bytes": disk_peak(jobs, drop_temporaries=True),
                 "peak_bytes_keeping_everything": disk_peak(jobs, drop_temporaries=False)
                 + sum(job.transient_bytes for job in jobs)},
        "models": {model: {**asdict(size), "fill": asdict(pace.fills[model])}
                   for model, size in sizes.items()},
        "calibration": calibration_summary(pace, sizes),
        "assumptions": asdict(assumptions),
    }


def runtime_warning(plan: RulePlan, config: dict) -> str:
    """A rule whose jobs would hit their time limit: what they request, what they need on
    their GPUs, and the runtime (minutes) that fits."""
    needed = max(job.estimated_hours for job in plan.short_jobs)
    fits = math.ceil(needed * 60)
    model = model_of(plan.model) if plan.model else ""
    entry = res.entry_name(plan.rule)
    own = ((config["models"].get(model) or {}).get("resources") or {}).get(entry, {})
    key = (f"models.{model}.resources.{entry}.runtime" if "runtime" in own
           else f"resources.{entry}.runtime")
    requested = min(job.hours for job in plan.short_jobs)
    gpus = "/".join(str(g) for g in sorted({job.gpus for job in plan.short_jobs}))
    return (f"{plan.rule} {plan.model}: {len(plan.short_jobs)} of {plan.jobs} jobs request "
            f"{requested:g} h but need about {needed:.1f} h on their {gpus} "
            f"GPU{'' if gpus == '1' else 's'} at the "
            f"expected completion lengths: they would hit their time limit; "
            f"`{key}: {fits}` fits")


def calibration_summary(pace: Pace, sizes: dict) -> dict:
    """The fits the estimates used, with each model's GRPO pace (a share of peak)."""
    return {
        "grpo": {**asdict(pace.rl), "utilisation": {
            model: pace.rl.utilisation(size.parameters, False) for model, size in sizes.items()}},
        "grpo_spread": asdict(calibration.rl_spread()),
        "sampling": asdict(pace.sampling),
        "measured": [{"run": run.name, "steps": run.steps, "gpus": run.gpus, "gpu": run.gpu,
                      "gpu_hours": run.gpu_hours,
                      "mean_completion_tokens": run.mean_completion_tokens,
                      "fill": run.mean_completion_tokens / run.max_completion_tokens
                      if run.max_completion_tokens else None,
                      "utilisation": run.utilisation()} for run in pace.measured],
    }


def _wildcards(job: PlannedJob) -> str:
    return " ".join(f"{k}={v}" for k, v in job.wildcards.items())


def _rule_row(plan: RulePlan) -> dict:
    def spread(values: set) -> str:
        if not values:
            return "-"
        low, high = min(values), max(values)
        return f"{low:g}" if low == high else f"{low:g}-{high:g}"

    return {"rule": plan.rule, "model": plan.model, "jobs": plan.jobs, "gpus": spread(plan.gpus_per_job),
            "cores": spread(plan.cores_per_job), "mem_gb": spread(plan.mem_gb_per_job),
            "hours": spread(plan.hours_per_job),
            "estimated_hours": spread(plan.estimated_hours_per_job), "gpu_hours": plan.gpu_hours,
            "estimated_gpu_hours": plan.estimated_gpu_hours,
            "full_budget_gpu_hours": plan.full_budget_gpu_hours,
            "output_bytes": plan.output_bytes, "transient_bytes": plan.transient_bytes}


def markdown(summary: dict) -> str:
    from codefrontier.pipeline.prefetch import human_bytes

    def number(value: float | None) -> str:
        return "-" if value is None else f"{value:,.0f}" if value >= 10 else f"{value:.2g}"

    lines = ["| rule | model | jobs | GPUs/job | cores/job | GB/job | h/job | h/job estimated | "
             "GPU-h requested | GPU-h estimated | GPU-h at full budgets | outputs |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in summary["rules"]:
        lines.append(f"| {row['rule']} | {row['model'] or '-'} | {row['jobs']} | {row['gpus']} | {row['cores']} | "
                     f"{row['mem_gb']} | {row['hours']} | {row['estimated_hours']} | "
                     f"{number(row['gpu_hours'])} | {number(row['estimated_gpu_hours'])} | "
                     f"{number(row['full_budget_gpu_hours'])} | "
                     f"{human_bytes(row['output_bytes'])} |")
    path, disk = summary["critical_path"], summary["disk"]
    lines += [
        "",
        f"{summary['jobs']} jobs; {number(summary['gpu_hours'])} GPU-hours requested, "
        f"{number(summary['estimated_gpu_hours'])} estimated at the expected completion "
        f"lengths, {number(summary['full_budget_gpu_hours'])} with every completion at its "
        f"full budget.",
        *(f"Warning: {warning}." for warning in summary["warnings"]),
        f"Critical path: {len(path['jobs'])} jobs, {path['hours']:.1f} h requested, "
        f"{number(path['gpu_hours'])} GPU-hours ({' -> '.join(path['jobs'][:4])}"
        f"{' -> ...' if len(path['jobs']) > 4 else ''}).",
        "Trainer checkpoints while a run trains: " + (", ".join(
            f"{row['rule']} {row['model']} {human_bytes(row['transient_bytes'])}"
            for row in summary["rules"] if row["transient_bytes"]) or "none") + ".",
        f"Disk: {human_bytes(disk['kept_bytes'])} kept at the end; peak "
        f"{human_bytes(disk['peak_bytes'])} with the config's `keep`, "
        f"{human_bytes(disk['peak_bytes_keeping_everything'])} keeping every merge and "
        f"trainer checkpoint.",
        "", "Models: " + "; ".join(
            f"{model} {_count(size['parameters'])} parameters, {size['dtype_bytes']} bytes "
            f"each (from {size['source']}), completions filling {size['fill']['share']:.0%} "
            f"of their budget ({size['fill']['source']})"
            for model, size in summary["models"].items()),
        *calibration_markdown(summary["calibration"]),
        "Assumptions (docs/cluster.md): " + ", ".join(
            f"{key}={value}" for key, value in summary["assumptions"].items()),
        *detectable_markdown(summary.get("detectable") or {}),
    ]
    return "\n".join(lines)


def calibration_markdown(fits: dict) -> list[str]:
    """The pace the estimates assume, and the measured runs that set it."""
    grpo, sampling = fits["grpo"], fits["sampling"]
    origin = (f"{grpo['runs'] - len(fits['measured'])} published runs and "
              f"{len(fits['measured'])} measured, at the measured runs' level"
              if fits["measured"] else f"{grpo['runs']} published runs")
    lines = ["Pace (docs/cluster.md, fitted to " + origin + "): GRPO at " + ", ".join(
        f"{share:.1%}" + f" ({model})" for model, share in grpo["utilisation"].items())
        + f" of the GPUs' dense bf16 peak with generation on the training GPUs (a vLLM "
        f"server on GPUs of its own: x{math.exp(grpo['separate']):.2f}); sampling at "
        f"{sampling['short']:.1%} (short "
        f"outputs) or {sampling['reasoning']:.1%} (from {sampling['reasoning_from']:,.0f} "
        f"tokens a turn; {sampling['benchmarks']} benchmarks)."]
    spread = fits["grpo_spread"]
    lines.append(f"Each published GRPO run, left out of the fit, took {spread['least']:.2f} to "
                 f"{spread['most']:.2f} times the GPU-hours it predicts for it ({spread['within_2x']} "
                 f"of {spread['runs']} within 2x): a GRPO job that requests less than "
                 f"{spread['most']:.1f} times its estimated hours may reach its time limit "
                 "(training then saves, stops and resumes in the next submission).")
    lines += [f"Measured: {run['run']}: {run['steps']:g} steps on {run['gpus']:g} "
              f"{run['gpu']}, {run['gpu_hours'] * 3600 / run['steps']:.3g} GPU-seconds a step, "
              f"completions of {run['mean_completion_tokens']:.0f} tokens"
              + (f" ({run['fill']:.0%} of the cap: models.<name>.fill)" if run["fill"] else "")
              + f", {run['utilisation'] * 100:.2g}% of peak." for run in fits["measured"]]
    return lines


def detectable_markdown(detectable: dict) -> list[str]:
    """What the grid can show: the smallest detectable difference per setting and rate."""
    if not detectable:
        return []
    lines = ["", "What it can show: the smallest difference between two checkpoints' rates "
             "that the evaluation detects with 80% power at 95% (paired over clusters; "
             "docs/results.md, \"How verdicts are decided\"):", "",
             "| setting | clusters | problems | samples/problem | seeds | "
             + " | ".join(o.replace("_", " ") for o in OUTCOMES) + " | variance from |",
             "|---|---:|---:|---:|---:|" + "---:|" * len(OUTCOMES) + "---|"]
    for setting, row in detectable.items():
        lines.append(f"| {setting} | {row['clusters']} | {row['problems']} | "
                     f"{row['samples_per_problem']} | {row.get('seeds', 1)} | "
                     + " | ".join(f"{row['difference'][o]:.3f}" for o in OUTCOMES)
                     + f" | {row['variance_from']} |")
    if any(row.get("seeds", 1) > 1 and not row.get("seeds_measured")
           for row in detectable.values()):
        lines += ["", "With several seeds each family's rate averages every seed's samples; "
                      "the seed-to-seed variance of a comparison is left out (the variance "
                      "figures come from pairs of checkpoints within a seed), so these are "
                      "lower bounds; `--variance-from` a run of several seeds measures it."]
    return lines


def _count(parameters: float) -> str:
    return f"{parameters / 1e9:.2f}B" if parameters >= 1e9 else f"{parameters / 1e6:.1f}M"


def detectable_differences(config: dict, workdir: Path, eval_problems: int,
                           variance_from: Path | None = None) -> dict:
    """Per setting, the evaluation's design and the smallest difference in each rate
    between two checkpoints it detects (pipeline/power.py), and where the variance
    figures come from."""
    from codefrontier.pipeline.workflow import grid_seeds, setting_sampling

    measured = power.variance_from(variance_from) if variance_from else {}
    seeds = len(grid_seeds(config))
    clusters, problems = power.eval_design(config, workdir, eval_problems)
    found = {}
    for setting in config["settings"]:
        samples = setting_sampling(config, setting).get("n", SampleOptions().n)
        design = power.Design(clusters, problems, samples, seeds)
        variance = {**power.default_variance(setting), **measured.get(setting, {})}
        found[setting] = {"clusters": clusters, "problems": problems,
                          "samples_per_problem": samples, "seeds": seeds,
                          "seeds_measured": all(v.seeds_measured for v in variance.values()),
                          "difference": power.detectable(design, variance),
                          "variance_from": str(variance_from) if setting in measured
                          else "the default's run"}
    return found


def measured_runs(runs: list[Path], gpu_model: str | None, config: dict) -> tuple:
    """The runs given to --calibrate, measured on `gpu_model` GPUs (default: the type the
    grid's rl jobs ask for, else costs.DEFAULT_GPU)."""
    from codefrontier.pipeline.measured_runs import measured_run

    gpu = gpu_model or res.rule_entry(config, "rl").get("gpu_model") or costs.DEFAULT_GPU
    return tuple(measured_run(run, gpu) for run in runs)


def plan(snakefile: Path, workdir: Path, configfiles: list[Path], targets: list[str],
         forceall: bool = False, eval_problems: int | None = None,
         variance_from: Path | None = None, calibrate: list[Path] = (),
         calibrate_gpu: str | None = None) -> dict:
    """The plan of a run, as a summary dict (markdown() renders it); `calibrate`: GRPO
    runs of this trainer whose measured pace joins the fit."""
    jobs, config = snakemake_jobs(snakefile, workdir, configfiles, targets, forceall)
    places = Places(workdir.resolve(), snakefile.resolve().parent)
    assumptions = Assumptions(eval_problems or eval_problem_count(workdir))
    pace = Pace.of(config, measured_runs(list(calibrate), calibrate_gpu, config))
    sizes = estimate(jobs, config, places, assumptions, pace)
    summary = summarise(jobs, config, sizes, assumptions, pace)
    summary["detectable"] = detectable_differences(config, workdir, assumptions.eval_problems,
                                                   variance_from)
    return summary


def as_json(summary: dict) -> str:
    return json.dumps(summary, indent=1, default=lambda v: None if isinstance(v, float)
                      and math.isnan(v) else str(v))
