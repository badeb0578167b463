"""`--configfile FILE...`, one definition for `plan`, `prefetch` and `audit`.

Like Snakemake's, the option takes every word after it, so in
`codefrontier plan --configfile a.yaml b.yaml results/frontier.parquet` the target would
be read as a third config file. Here a word after --configfile is a config file when its
suffix says so (YAML or JSON, as Snakemake reads them); any other word is a target of the
command, after the targets given before --configfile, or refused where the command takes
no target.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from codefrontier.base.layout import MERGE_RECORD

CONFIG_SUFFIXES = (".yaml", ".yml", ".json")
IN_WORDS = f"{', '.join(CONFIG_SUFFIXES[:-1])} or {CONFIG_SUFFIXES[-1]}"


def is_config_file(word: str) -> bool:
    """A config file by its suffix. A merge's record (results/…/merge/aα.json) is the one
    output of the workflow with such a suffix: a target."""
    return Path(word).suffix.lower() in CONFIG_SUFFIXES and MERGE_RECORD.parse(word) is None


def add_configfile_option(parser: argparse.ArgumentParser, help_text: str, *aliases: str,
                          targets: argparse.Action | None = None) -> None:
    """`--configfile FILE...` (and `aliases`) on `parser`; `targets`: the command's
    positional targets, which the other words after --configfile join (None: the command
    takes no target)."""
    if targets is None:
        help_text += f"; each ends in {IN_WORDS}"
    else:
        help_text += f"; a word after them that does not end in {IN_WORDS} is a target"
        # it may follow --configfile, where argparse does not see it: finish requires it
        targets.required = False
    parser.add_argument("--configfile", *aliases, action=ConfigFiles, targets=targets,
                        help=help_text)


class ConfigFiles(argparse.Action):
    """The config files of `--configfile`. The other words after it wait apart until the
    parse is done (Parser.parse_known_args calls `finish`): argparse sets the positional
    targets after the options, and would overwrite them."""

    def __init__(self, option_strings, dest, targets: argparse.Action | None = None,
                 **kwargs) -> None:
        super().__init__(option_strings, dest, nargs="+", default=[], metavar="FILE", **kwargs)
        self.targets = targets

    @property
    def _waiting(self) -> str:
        return f"_{self.dest}_targets"

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        others = [word for word in values if not is_config_file(word)]
        if others and self.targets is None:
            parser.error(f"{others[0]} is not a config file (YAML or JSON: {IN_WORDS}), "
                         f"and {parser.prog} takes no targets")
        files = [word for word in values if is_config_file(word)]
        setattr(namespace, self.dest, [*getattr(namespace, self.dest), *files])
        setattr(namespace, self._waiting, [*getattr(namespace, self._waiting, []), *others])

    def finish(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace) -> None:
        """The targets given after --configfile join those given before it."""
        after = vars(namespace).pop(self._waiting, [])
        if self.targets is None:
            return
        dest = self.targets.dest
        before = getattr(namespace, dest)
        if self.targets.nargs == "*":
            setattr(namespace, dest, [*before, *after])
        else:
            setattr(namespace, dest, self._one_target(parser, before, after))

    def _one_target(self, parser, before: str | None, after: list[str]) -> str:
        given = [*([before] if before is not None else []), *after]
        if not given:
            parser.error(f"the following arguments are required: {self.targets.dest}")
        if len(given) > 1:
            parser.error(f"one {self.targets.dest}, not {len(given)}: {' '.join(given)}")
        return given[0]
