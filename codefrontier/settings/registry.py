"""The one list of inference settings.

Each entry names a setting's class (settings/base.py) and the dataclass of its episode
limits (its scripted SFT demonstrations live above it, in sftdata/demonstrations.py,
under the same name). The limits' fields are the setting's `episodes.<setting>` config keys and its `sample` / `train
grpo` options, with their one default and help. The CLI's choices and options, the
workflow's command options, the schema check (tests/test_registries.py) and the order
of the tables' and charts' settings all read this list.

Adding a setting is its module plus one `register` call below (docs/design.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import Field, dataclass, fields

from codefrontier.registry import Registry
from codefrontier.settings.agentic import AgenticSetting
from codefrontier.settings.base import Setting
from codefrontier.settings.environments import AgenticLimits, ToolUseLimits
from codefrontier.settings.reasoning import ReasoningSetting
from codefrontier.settings.tool_use import ToolUseSetting


@dataclass(frozen=True)
class SettingEntry:
    name: str
    make: Callable[..., Setting]  # the setting, given its limits (when it has any)
    limits: type | None           # a frozen dataclass of episode limits; None: one turn
    # repair (a second attempt after feedback on the hidden tests, evaluate/second_attempt.py and
    # train/repair.py) runs in this setting; one setting has it
    repairs: bool = False

    def limit_fields(self) -> tuple[Field, ...]:
        return fields(self.limits) if self.limits else ()

    def build(self, limits: dict | None = None) -> Setting:
        """The setting with these episode limits (the others at their defaults)."""
        limits = dict(limits or {})
        known = {f.name for f in self.limit_fields()}
        unknown = sorted(set(limits) - known)
        if unknown:
            offered = ", ".join(sorted(known)) or "none"
            raise ValueError(f"the {self.name} setting has no episode limit "
                             f"{', '.join(unknown)} (its limits: {offered})")
        return self.make(self.limits(**limits)) if self.limits else self.make()


# in the order tables and charts show them
SETTINGS: Registry[SettingEntry] = Registry("setting")


def register(entry: SettingEntry) -> SettingEntry:
    return SETTINGS.add(entry.name, entry)


def default_setting() -> str:
    """The setting a command or config that names none means: the first registered."""
    return next(iter(SETTINGS))


def repair_setting() -> str:
    """The one setting where repair runs (its entry's `repairs`)."""
    (name,) = (name for name, entry in SETTINGS.items() if entry.repairs)
    return name


def setting_entry(name: str) -> SettingEntry:
    if name not in SETTINGS:
        raise ValueError(f"unknown setting {name!r}: available {', '.join(SETTINGS)}")
    return SETTINGS[name]


def get_setting(name: str, limits: dict | None = None) -> Setting:
    """A setting by name; `limits` are its episode limits (config `episodes.<setting>`)."""
    return setting_entry(name).build(limits)


def limit_options() -> dict[str, dict[str, Field]]:
    """Every episode limit's name, with its field in each setting that has it: the
    `sample` / `train grpo` options (a name two settings share is one option)."""
    options: dict[str, dict[str, Field]] = {}
    for entry in SETTINGS.values():
        for limit in entry.limit_fields():
            options.setdefault(limit.name, {})[entry.name] = limit
    return options


def setting_order(settings) -> list[str]:
    """The distinct settings, the registered ones in registry order, then the others by
    name (rows of tables written before a setting was renamed or removed)."""
    distinct = set(settings)
    return [s for s in SETTINGS if s in distinct] + sorted(distinct - set(SETTINGS))


register(SettingEntry("reasoning", ReasoningSetting, None, repairs=True))
register(SettingEntry("tool_use", ToolUseSetting, ToolUseLimits))
register(SettingEntry("agentic", AgenticSetting, AgenticLimits))
