import pytest

from codefrontier.judge.verdicts import Outcome, classify


@pytest.mark.parametrize(
    ("verdicts", "outcome"),
    [
        (["AC", "AC"], Outcome.CORRECT),
        (["AC", "TLE"], Outcome.OPTIMIZATION_FAILURE),
        (["AC", "AC", "MLE"], Outcome.OPTIMIZATION_FAILURE),
        (["TLE"], Outcome.CORRECTNESS_FAILURE),  # TLE on the very first test
        (["MLE", "AC"], Outcome.CORRECTNESS_FAILURE),
        (["AC", "WA"], Outcome.CORRECTNESS_FAILURE),
        (["AC", "RE"], Outcome.CORRECTNESS_FAILURE),
        (["AC", "OLE"], Outcome.CORRECTNESS_FAILURE),
        (["AC", "WA", "TLE"], Outcome.CORRECTNESS_FAILURE),  # only the first failure counts
        (["AC", "TLE", "WA"], Outcome.OPTIMIZATION_FAILURE),
    ],
)
def test_outcome_follows_the_first_failure(verdicts, outcome):
    assert classify(verdicts) == outcome


def test_no_program_is_a_format_error():
    assert classify([], extracted=False) == Outcome.FORMAT_ERROR


def test_an_extracted_program_without_verdicts_is_an_error():
    with pytest.raises(ValueError):
        classify([])
