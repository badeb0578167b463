"""Typed command options: a frozen dataclass whose fields carry each option's one default
and help. The command's argparse flags (`add_options`) and the command line the workflow
writes from a config block (`command_line`) both come from it, so an option's name and
default are written once. A field's flag is its name with dashes: `buffer_size` is
`--buffer-size` and the config key `buffer_size`.
"""

from __future__ import annotations

import argparse
from dataclasses import MISSING, field, fields


def option(default, help: str, choices: tuple | None = None, kind: type | None = None):
    """A field of an options dataclass: its default and its help; `kind` is the value's
    type where the default (None: unset) does not show it."""
    return field(default=default, metadata={"help": help, "choices": choices,
                                            "kind": kind or type(default)})


def flag(name: str) -> str:
    """The command-line flag of an option or config key: `buffer_size` -> `--buffer-size`."""
    return "--" + name.replace("_", "-")


def add_options(parser, options_class) -> None:
    """One flag per field of `options_class`, defaulting to the field's default."""
    for item in fields(options_class):
        if item.default is MISSING:
            raise TypeError(f"{options_class.__name__}.{item.name} needs a default")
        parser.add_argument(flag(item.name), type=item.metadata["kind"], default=item.default,
                            choices=item.metadata["choices"],
                            help=f"{item.metadata['help']} (default: {item.default})")


def from_args(options_class, args: argparse.Namespace):
    """The options a parsed command line gives."""
    return options_class(**{item.name: getattr(args, item.name) for item in fields(options_class)})


def field_names(options_class) -> list[str]:
    return [item.name for item in fields(options_class)]


def command_line(options_class, values: dict) -> str:
    """The flags of the fields that `values` (a config block) sets to something other than
    None, in field order; keys that are no field of the options are refused."""
    unknown = sorted(set(values) - set(field_names(options_class)))
    if unknown:
        raise ValueError(f"no {options_class.__name__} field {', '.join(unknown)}")
    return " ".join(f"{flag(item.name)} {values[item.name]}" for item in fields(options_class)
                    if values.get(item.name) is not None)
