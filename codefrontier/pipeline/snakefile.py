"""What the Snakefile binds first: the run's config taken from the command line, checked,
and bound to the helpers its rules call (threads, resources, options, model paths).

The helpers' logic is codefrontier.pipeline.workflow's; this module sits above it and
above the config checks (pipeline/checks.py), which read the same logic.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from codefrontier.pipeline.checks import check, check_hub
from codefrontier.pipeline.configfiles import DEFAULT_FILE, compose, validate
from codefrontier.pipeline.places import Places
from codefrontier.pipeline.resources import rule_resources, rule_retries, rule_threads
from codefrontier.pipeline.workflow import (
    base_model,
    checkpoint_folder,
    command_options,
    launcher,
    local_input,
    provenance_option,
    rerun_marker,
    rl_start,
    set_job_environment,
)


class RuleHelpers:
    """What the rules ask of the run's config, bound to it and to the run's places: a
    rule's threads and resources, its provenance param, and paths the config names."""

    def __init__(self, config: dict, places: Places, main_process: bool = True) -> None:
        self.config = config
        self.places = places
        self.main_process = main_process

    def threads(self, rule: str):
        return rule_threads(self.config, rule)

    def resources(self, rule: str) -> dict:
        return rule_resources(self.config, rule)

    def retries(self, rule: str) -> int | None:
        """The rule's retries where the workflow submits its jobs; none inside a cluster
        job, whose own Snakemake would otherwise retry a stopped job within the same
        (spent) allocation."""
        return rule_retries(rule) if self.main_process else 0

    def provenance(self, rule: str):
        return lambda wildcards: provenance_option(self.config, rule, **dict(wildcards))

    def options(self, rule: str):
        """The rule's command options, for the job's wildcards."""
        return lambda wildcards: command_options(self.config, rule, self.places, **wildcards)

    def launcher(self, rule: str):
        return lambda wildcards: launcher(self.config, wildcards.model, rule, self.places)

    def checkpoint(self, wildcards) -> str:
        return checkpoint_folder(self.config, wildcards.model, wildcards.setting,
                                 wildcards.ckpt, self.places)

    def base(self, wildcards) -> str:
        return base_model(self.config, wildcards.model, self.places)

    def rl_start(self, wildcards) -> str:
        return rl_start(self.config, wildcards.model, wildcards.reward, self.places)

    # the same models as rule inputs (local_input: a hub id is none)
    def checkpoint_input(self, wildcards) -> list[str]:
        return local_input(self.checkpoint(wildcards))

    def base_input(self, wildcards) -> list[str]:
        return local_input(self.base(wildcards))

    def rl_start_input(self, wildcards) -> list[str]:
        return local_input(self.rl_start(wildcards))

    def rerun_if_inputs_changed(self, output: str, inputs: list[str]) -> list[str]:
        """An input that reruns `output` when it was made from other inputs (rerun_marker)."""
        return rerun_marker(output, inputs, touch=self.main_process)


def take_run_config(config: dict, workflow) -> RuleHelpers:
    """Make Snakemake's `config` the run's config: the files given with --configfile (the
    checkout's config.yaml when none), composed as grids and overlays
    (pipeline/configfiles.py), then --config; validated, exported to the jobs'
    environment, checked across keys and, with the Hub off, against the Hub cache. Prints
    which files made it, and the checks' warnings (in the main process: a cluster job
    reads the Snakefile again)."""
    checkout = Path(workflow.basedir)
    run = compose(workflow.config_settings.configfiles, checkout / DEFAULT_FILE,
                  workflow.config_settings.config)
    validate(run, checkout)
    places = Places(Path.cwd(), checkout)
    set_job_environment(run.values)
    warnings = check(run, places)
    if workflow.is_main_process:
        check_hub(run, places, prefetch_command(run))
        print(run.describe(relative_to=checkout), file=sys.stderr)
        for warning in warnings:
            print(f"config warning: {warning}", file=sys.stderr)
    config.clear()
    config.update(run.values)
    return RuleHelpers(config, places, workflow.is_main_process)


def prefetch_command(run) -> str:
    """The command that fetches what a run reads from the Hub."""
    files = " ".join(shlex.quote(str(layer.path)) for layer in run.layers
                     if not any(other.extends == layer.path for other in run.layers))
    return f"codefrontier prefetch --configfile {files}"
