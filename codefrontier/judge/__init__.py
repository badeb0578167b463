"""Running model-written programs against tests, safely and fast.

Public API: `JudgePool` (in-memory judging), `Sample`, `SampleResult`,
`extract_code`, `classify`, `Verdict`, `Outcome`.
"""

from codefrontier.judge.extract import extract_code
from codefrontier.judge.pool import JudgePool, Sample, SampleResult
from codefrontier.judge.verdicts import Outcome, Verdict, classify

__all__ = ["JudgePool", "Outcome", "Sample", "SampleResult", "Verdict", "classify", "extract_code"]
