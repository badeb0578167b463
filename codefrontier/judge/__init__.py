"""Running model-written programs against tests, safely and fast.

Public API: `JudgePool` (in-memory judging; `execute` runs a program once),
`Execution`, `Sample`, `SampleResult`,
`extract_code`, `classify`, `Verdict`, `Outcome`; for trusted reference programs that
run in-process (the bundled suite's builder), the names a call-based program sees
(`CALL_PRELUDE`) and the judge's comparison of outputs (`outputs_match`). The layers
below the judge's users import these names, never its modules.

The names are imported lazily: the sandbox worker imports this package's
submodules and must stay single-threaded (unshare(CLONE_NEWUSER) and fork
require it), so importing the package must not pull in pyarrow, whose
import starts threads.
"""

from importlib import import_module

_EXPORTS = {
    "CALL_PRELUDE": "codefrontier.judge.child",
    "outputs_match": "codefrontier.judge.compare",
    "Execution": "codefrontier.judge.pool",
    "JudgePool": "codefrontier.judge.pool",
    "Sample": "codefrontier.judge.pool",
    "SampleResult": "codefrontier.judge.pool",
    "extract_code": "codefrontier.judge.extract",
    "classify": "codefrontier.judge.verdicts",
    "Outcome": "codefrontier.judge.verdicts",
    "Verdict": "codefrontier.judge.verdicts",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
