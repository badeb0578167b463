import math

import pytest

from codefrontier.rewards import (
    decade,
    parse_reward,
    reward_continuous,
    reward_discrete,
    reward_inf,
    reward_k,
)

LENS = [5, 50, 500, 5000, 50000]


@pytest.mark.parametrize(
    ("verdicts", "k", "expected"),
    [
        (["AC"] * 5, math.inf, 1.0),
        (["AC"] * 4 + ["TLE"], math.inf, 0.0),
        (["AC"] * 4 + ["TLE"], 4, 1.0),  # 50000 >= 10^4 is not covered by R_4
        (["AC"] * 3 + ["TLE"], 4, 0.0),  # 5000 < 10^4 is
        (["AC", "AC", "TLE"], 2, 1.0),
        (["AC", "WA"], 2, 0.0),
        (["AC", "TLE"], 1, 1.0),
        (["WA"], 1, 0.0),
        (["AC", "TLE"], 0, 1.0),  # no test is shorter than 1 byte: the shortest still counts
        (["WA"], 0, 0.0),
    ],
)
def test_reward_k(verdicts, k, expected):
    assert reward_k(verdicts, LENS, k) == expected


def test_unrun_tests_count_as_failed():
    assert reward_inf(["AC", "AC"], LENS) == 0.0
    assert reward_k(["AC", "AC"], LENS, 2) == 1.0


def test_rewards_are_nested():
    for stop in range(6):
        verdicts = ["AC"] * stop + (["TLE"] if stop < 5 else [])
        values = [reward_k(verdicts, LENS, k) for k in (1, 2, 3, 4, 5, math.inf)]
        assert values == sorted(values, reverse=True)


def test_shaping_variants():
    lens = [5, 7, 50, 60, 500]
    assert reward_discrete(["AC", "AC", "AC", "TLE"], lens) == pytest.approx(1 / 3)
    assert reward_continuous(["AC", "AC", "AC", "TLE"], lens) == pytest.approx(3 / 5)
    assert reward_discrete(["AC"] * 5, lens) == 1.0


def test_decades():
    assert [decade(n) for n in (0, 9, 10, 99, 100, 99999, 100000)] == [0, 0, 1, 1, 2, 4, 5]


def test_unsorted_lengths_are_rejected():
    with pytest.raises(ValueError, match="ascending"):
        reward_k(["AC"], [10, 5], 1)


def test_reward_names():
    assert parse_reward("k2")(["AC", "AC", "TLE"], [5, 50, 500]) == 1.0
    assert parse_reward("kinf")(["AC", "AC", "TLE"], [5, 50, 500]) == 0.0
    assert parse_reward("shaped-cont")(["AC", "TLE"], [5, 50]) == 0.5
    with pytest.raises(ValueError, match="unknown reward"):
        parse_reward("bogus")


def test_rung_disagreements_count_programs_that_adjacent_rungs_judge_differently():
    from codefrontier.rewards import rung_disagreements

    lens = [15, 150, 1500, 15000, 150000]
    judged = [(["AC"] * 5, lens),                   # every rung accepts
              (["AC", "AC", "TLE"], lens),           # R_1..R_3 accept, R_4 on reject
              (["AC", "WA"], lens),                  # R_1, R_2 accept
              (["AC"] * 4 + ["TLE"], lens)]          # R_1..R_5 accept, R_inf rejects
    shares = rung_disagreements(judged)
    assert shares == {"R_1≠R_2": 0.0, "R_2≠R_3": 0.25, "R_3≠R_4": 0.25, "R_4≠R_5": 0.0,
                      "R_5≠R_inf": 0.25}
    # judged only below 10^3 bytes (an R_3 run): only the rungs those tests decide
    assert set(rung_disagreements(judged, bound=1e3)) == {"R_1≠R_2", "R_2≠R_3"}
    assert rung_disagreements([], bound=1e3) == {}
