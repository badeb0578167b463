"""`plan` and `prefetch`: a run's cost before it starts, and what it reads from the Hub."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from codefrontier.cli.configfiles import add_configfile_option

CONFIGFILE_HELP = ("config files, as for snakemake --configfile (default: the checkout's "
                   "config.yaml)")


def _checkout() -> Path:
    from codefrontier.pipeline.places import Places

    return Places.here().checkout


def _plan(args: argparse.Namespace) -> int:
    from codefrontier.pipeline.plan import as_json, markdown, plan

    summary = plan(Path(args.snakefile), Path(args.directory), [Path(f) for f in args.configfile],
                   args.targets, forceall=args.forceall, eval_problems=args.eval_problems,
                   variance_from=Path(args.variance_from) if args.variance_from else None,
                   calibrate=[Path(run) for run in args.calibrate],
                   calibrate_gpu=args.calibrate_gpu)
    print(markdown(summary))
    if args.json:
        Path(args.json).write_text(as_json(summary))
        print(f"plan -> {args.json}", file=sys.stderr)
    return 0


def _prefetch(args: argparse.Namespace) -> int:
    from codefrontier.pipeline.configfiles import DEFAULT_FILE, compose, validate
    from codefrontier.pipeline.places import Places
    from codefrontier.pipeline.prefetch import prefetch, prefetch_table
    from codefrontier.pipeline.workflow import set_job_environment

    checkout = _checkout()
    run = compose(args.configfile, checkout / DEFAULT_FILE)
    validate(run, checkout)
    set_job_environment(run.values)  # the config may name the cache (HF_HOME)
    places = Places(Path(args.directory).resolve(), checkout)
    rows = prefetch(run.values, places, dry_run=args.dry_run,
                    progress=lambda item: print(f"fetching {item.repo} ({item.kind}) ...",
                                                file=sys.stderr))
    print(prefetch_table(rows))
    return 0


def register(commands) -> None:
    plan = commands.add_parser(
        "plan", help="what a run would cost: jobs, GPU-hours requested and estimated, "
                     "critical path, disk",
        description="Builds Snakemake's own DAG from the same Snakefile, config files and "
                    "targets (so a partial rerun plans only what would run) and prints, per "
                    "rule, the jobs and what each requests, GPU-hours in total and on the "
                    "critical path, the GPU-hours and hours per job each GRPO run and sampling "
                    "job takes at the pace of published runs (completions at their expected "
                    "length, and all at their full budget), a warning where a job requests "
                    "less time than that, and the disk its outputs take (docs/cluster.md: the "
                    "fit and the assumptions).")
    targets = plan.add_argument(
        "targets", nargs="*", default=[],
        help="Snakemake targets, before --configfile or after its files (default: the "
             "workflow's default target, rule all)")
    add_configfile_option(plan, CONFIGFILE_HELP, targets=targets)
    plan.add_argument("-d", "--directory", default=".",
                      help="the run's working directory (default: the current one)")
    plan.add_argument("-s", "--snakefile", default=str(_checkout() / "Snakefile"),
                      help="the workflow (default: the checkout's Snakefile)")
    plan.add_argument("--forceall", action="store_true",
                      help="plan every job, as if nothing had run yet")
    plan.add_argument("--eval-problems", type=int, metavar="N",
                      help="evaluation problems per sampling job (default: counted in "
                           "results/data/eval.parquet when it is there, else 500)")
    plan.add_argument("--variance-from", metavar="RUN",
                      help="a finished run's folder: the smallest detectable differences "
                           "from the variance of its cluster table (default: figures "
                           "measured on the default's run)")
    plan.add_argument("--calibrate", action="append", default=[], metavar="RUN",
                      help="a GRPO run of this grid's trainer (its output folder, OUT.work or a "
                           "checkpoint): its step times and completion lengths join the fit, "
                           "and the estimates take its pace (repeat for several runs)")
    plan.add_argument("--calibrate-gpu", metavar="TYPE",
                      help="the GPUs the --calibrate runs ran on, one per training process "
                           "(default: the grid's resources.rl.gpu_model, else h100)")
    plan.add_argument("--json", metavar="FILE", help="also write the plan as JSON")
    plan.set_defaults(handler=_plan)

    prefetch = commands.add_parser(
        "prefetch", help="fetch every model and dataset a config reads from the Hugging Face "
                         "Hub into the cache",
        description="Run it once on a machine with network access; jobs (even with "
                    "HF_HUB_OFFLINE=1) then find everything in the cache. Prints each "
                    "repository, its state and size.")
    add_configfile_option(prefetch, CONFIGFILE_HELP)
    prefetch.add_argument("-d", "--directory", default=".",
                          help="where the config's relative paths are looked up first "
                               "(default: the current folder)")
    prefetch.add_argument("--dry-run", action="store_true",
                          help="fetch nothing: list what is cached and what would be fetched "
                               "(with sizes from the Hub when it answers)")
    prefetch.set_defaults(handler=_prefetch)
