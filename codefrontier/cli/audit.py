"""`audit`: an output's provenance checked against its inputs, code and config."""

from __future__ import annotations

import argparse


def _audit(args: argparse.Namespace) -> int:
    from codefrontier.pipeline.audit import audit_report

    findings, summary = audit_report(args.target, args.configfile, args.root)
    print("\n".join([*map(str, findings), summary]))
    return 1 if findings else 0


def register(commands) -> None:
    audit = commands.add_parser(
        "audit", help="check an output's provenance: changed inputs, missing provenance, "
                      "other code or config", description="Exit status 1 when anything is off.")
    audit.add_argument("target", help="an output file or checkpoint folder")
    audit.add_argument("--configfile", "--config", nargs="+", metavar="FILE",
                       help="the run's config files, as given to snakemake --configfile "
                            "(config.yaml for the default): config slices are compared "
                            "with what they give")
    audit.add_argument("--root", default=".", metavar="DIR",
                       help="the workflow root that recorded input paths are relative to "
                            "(default: the current directory); give a copied or moved tree's "
                            "own root to audit it against its own files")
    audit.set_defaults(handler=_audit)
