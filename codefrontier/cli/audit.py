"""`audit`: an output's provenance checked against its inputs, code and config."""

from __future__ import annotations

import argparse

from codefrontier.cli.configfiles import add_configfile_option


def _audit(args: argparse.Namespace) -> int:
    from codefrontier.pipeline.audit import OFF, audit_report

    findings, summary = audit_report(args.target, args.configfile, args.root)
    off = [finding for finding in findings if finding.kind == OFF]
    print("\n".join([*map(str, off), *_made_elsewhere(findings), summary]))
    return 1 if off else 0


def _made_elsewhere(findings) -> list[str]:
    """The informational findings, apart: each kind of difference once, then the outputs
    it was found for."""
    from codefrontier.pipeline.audit import ELSEWHERE

    by_problem: dict[str, list[str]] = {}
    for finding in findings:
        if finding.kind == ELSEWHERE:
            by_problem.setdefault(finding.problem, []).append(finding.path)
    lines = ["made elsewhere (informational: these outputs need not equal this machine's "
             "bit for bit):"] if by_problem else []
    for problem, paths in by_problem.items():
        lines += [f"  {problem}:", *(f"    {path}" for path in paths)]
    return lines


def register(commands) -> None:
    audit = commands.add_parser(
        "audit", help="check an output's provenance: changed inputs, missing provenance, "
                      "other code or config",
        description="Exit status 1 when anything is off. Outputs made on another kind of "
                    "processor or with other library versions than this machine's are listed "
                    "apart, for information: they leave the exit status alone.")
    target = audit.add_argument(
        "target", help="an output file or checkpoint folder, before --configfile or after "
                       "its files")
    add_configfile_option(audit, "the run's config files, as given to snakemake --configfile "
                                 "(config.yaml for the default): config slices are compared "
                                 "with what they give", "--config", targets=target)
    audit.add_argument("--root", default=".", metavar="DIR",
                       help="the workflow root that recorded input paths are relative to "
                            "(default: the current directory); give a copied or moved tree's "
                            "own root to audit it against its own files")
    audit.set_defaults(handler=_audit)
