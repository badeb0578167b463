"""The bundled families: well-formed, covered in every decade up to each instance's scale,
calibrated, with a ladder of rungs, and split into train and eval instances that share no
statement and no test."""

import hashlib
import itertools
import json
import os
import subprocess
import sys
from dataclasses import replace

import pytest

from codefrontier.judge import JudgePool
from codefrontier.problems.schema import load_problems
from codefrontier.rewards import decade
from codefrontier.suite.build import DECADES, build_bundled, instances, load_families, to_problem
from codefrontier.suite.calibrate import (
    MARGIN,
    Calibration,
    SlowCheck,
    calibrate,
    calibration_table,
    moved_rungs,
)
from codefrontier.suite.spec import SCALE_SHARES
from codefrontier.suite.speed import CALIBRATING_CPU_S, MachineSpeed

FAMILIES = load_families()


@pytest.fixture(scope="module")
def first_instances():
    """Each family's first train instance at the largest scale: tests in every decade."""
    probes = {f.slug: replace(f.instance("train", 0), scale=max(DECADES)) for f in FAMILIES}
    return {slug: (instance, to_problem(instance)) for slug, instance in probes.items()}


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.slug)
def test_every_decade_has_two_tests_and_edge_cases_come_first(family, first_instances):
    instance, problem = first_instances[family.slug]
    per_decade = {d: sum(decade(t.input_len) == d for t in problem.tests) for d in DECADES}
    assert all(n >= 2 for n in per_decade.values()), per_decade
    assert len(problem.tests) >= 2 * len(DECADES) + len(instance.edge_cases())
    assert "Example 1" in problem.statement and "Example 2" in problem.statement


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.slug)
def test_every_statement_states_the_size_bound_of_its_instance(family):
    """Tests up to the instance's scale only, two per decade; the statement's bound is the
    instance's own (it grows with the scale)."""
    assert all("$max_n" in statement for statement in family.statements), family.slug
    statements = []
    for scale in sorted({min(SCALE_SHARES), max(SCALE_SHARES)}):
        instance = replace(family.instance("eval", 0), scale=scale)
        assert "123456789" in instance.statement(123456789)
        problem = to_problem(instance)
        generated = [t for t in problem.tests if t.input_len >= 10]
        assert max(decade(t.input_len) for t in generated) == scale
        assert len(generated) == 2 * scale
        statements.append(problem.statement.split("Example 1")[0])
    assert statements[0] != statements[-1]


def test_instances_draw_their_scales_with_the_designed_shares():
    family = FAMILIES[0]
    drawn = [family.instance("train", i).scale for i in range(4000)]
    total = sum(SCALE_SHARES.values())
    for scale, count in SCALE_SHARES.items():
        assert abs(drawn.count(scale) / len(drawn) - count / total) < 0.03, scale


def test_the_scale_shares_are_the_contest_data_s_counts():
    """SCALE_SHARES is what benchmarks/constraint_spread.py derives from
    docs/data/contest-constraints.csv (LiveCodeBench's problems, largest input's decade of
    bytes, folded into the suite's decades)."""
    import csv
    import math
    from collections import Counter
    from pathlib import Path

    data = Path(__file__).resolve().parents[1] / "docs" / "data" / "contest-constraints.csv"
    with data.open() as handle:
        rows = [r for r in csv.DictReader(handle)
                if r["dataset"].startswith("LiveCodeBench") and r["status"] == "ok"]
    decades = Counter(min(max(SCALE_SHARES), max(min(SCALE_SHARES),
                                                  int(math.log10(float(r["est_max_input_bytes"])))))
                      for r in rows)
    assert dict(decades) == SCALE_SHARES and len(rows) == 304


def test_the_suite_meets_its_counts():
    assert len(FAMILIES) >= 48
    assert sum(f.kind == "call" for f in FAMILIES) >= 8
    assert sum(f.kind == "stdin" for f in FAMILIES) > len(FAMILIES) / 2
    for difficulty in ("easy", "medium", "hard"):
        assert sum(f.difficulty == difficulty for f in FAMILIES) >= 12, difficulty
    assert all(f.slow and f.buggy is not None for f in FAMILIES)
    assert len({f.slug for f in FAMILIES}) == len(FAMILIES)
    # slow programs of distinct complexity that break at distinct decades
    easy = [f for f in FAMILIES if f.difficulty == "easy"]
    # (4 of the 16 easy families have natural naive programs of distinct complexity that
    # break at different decades; the others' are all quadratic: docs/design.md)
    assert sum(len({p.break_decade for p in f.slow}) >= 2 for f in easy) >= 4
    decades = {p.break_decade for f in easy for p in f.slow}
    assert {2, 3, 4, 5} <= decades, decades


@pytest.fixture(scope="module")
def splits():
    train = build_bundled("train", 2)
    return train, build_bundled("eval", 2, {t.input for p in train for t in p.tests})


def test_every_family_has_instances_in_both_splits(splits):
    train, evaluation = splits
    family = lambda p: p.problem_id.rsplit("/", 1)[0]  # noqa: E731
    assert {family(p) for p in train} == {family(p) for p in evaluation} == {
        f"bundled/{f.slug}" for f in FAMILIES}
    assert not {p.problem_id for p in train} & {p.problem_id for p in evaluation}


def test_eval_instances_share_no_statement_and_no_test_with_train_instances(splits):
    train, evaluation = splits
    assert not {p.statement for p in train} & {p.statement for p in evaluation}
    train_inputs = {t.input for p in train for t in p.tests}
    assert not train_inputs & {t.input for p in evaluation for t in p.tests}
    train_tests = {(t.input, t.output) for p in train for t in p.tests}
    assert not train_tests & {(t.input, t.output) for p in evaluation for t in p.tests}


def test_the_sft_data_holds_train_instances_only(splits):
    from codefrontier.sftdata.conversations import build_sft

    train, evaluation = splits
    conversations = "\n".join(r["messages"] for r in build_sft("train", 2))

    def shown(problem) -> bool:  # the statement as the JSON of the conversations holds it
        return json.dumps(problem.statement, ensure_ascii=False)[1:-1] in conversations

    assert any(shown(p) for p in train)  # the check can see a statement
    assert not any(shown(p) for p in evaluation)


def test_instances_of_a_family_differ_in_wording_knobs_or_tests(splits):
    train, _ = splits
    by_family: dict[str, list] = {}
    for problem in train:
        by_family.setdefault(problem.problem_id.rsplit("/", 1)[0], []).append(problem)
    for family, problems in by_family.items():
        assert len({p.statement for p in problems}) == len(problems), family
        assert len({p.tests for p in problems}) == len(problems), family


def test_build_is_byte_for_byte_deterministic(tmp_path):
    """Two separate processes (different hash seeds) write the same bytes."""
    digests = []
    for attempt in range(2):
        path = tmp_path / f"eval{attempt}.parquet"
        subprocess.run([sys.executable, "-m", "codefrontier.cli", "problems", "build",
                        "--split", "eval", "--out", str(path)], check=True,
                       env={**os.environ, "PYTHONHASHSEED": str(attempt + 1)},
                       capture_output=True)
        digests.append(hashlib.sha256(path.read_bytes()).hexdigest())
    assert digests[0] == digests[1]
    assert [p.problem_id for p in load_problems(tmp_path / "eval0.parquet")] == [
        i.problem_id for i in instances("eval")]


def test_a_failure_that_stands_on_its_second_judgment_is_reported():
    """A buggy variant that is the efficient program passes every test on both
    judgments (the second scaled by the speed measured again before it): the failure
    stands, where a timing spike would not have."""
    family = next(f for f in FAMILIES if f.slug == "two-sum")
    instance = replace(family.instance("train", 0), scale=2)
    problem = to_problem(instance)
    instance = replace(instance, family=replace(family, buggy=family.efficient, slow=()))
    speeds = []
    with JudgePool(workers=1) as pool:
        [report] = calibrate([(instance, problem)], pool, on_speed=speeds.append)
    assert report.problems == ["buggy variant passes every test"]
    assert not report.judged_twice
    # the machine's speed is measured again for the second judgment, for real
    assert len(speeds) == 2 and speeds[0].cpu_s != speeds[1].cpu_s


def slow_check(cpu_s: list[float], verdicts: list[str], slowdown: float) -> SlowCheck:
    """A quadratic program that breaks at 10^4 bytes on a problem with a 1 s limit and
    tests in decades 2 to 5, judged up to its first failure."""
    return SlowCheck("quadratic", 4, 1.0, MARGIN, verdicts, [150, 1500, 15000, 150000],
                     cpu_s, slowdown)


def test_margins_are_checked_in_the_calibrating_machines_seconds():
    """A machine twice as slow: 0.6 s below the break decade is 0.3 s there, within a
    third of the 1 s limit; 5.9 s at it is under 3 limits there. Twice as fast: a run
    that finished in 1.6 s at the break decade needs 3.2 s there, beyond 3 limits."""
    slower = slow_check([0.01, 0.6, 6.5], ["AC", "AC", "TLE"], slowdown=2.0)
    assert slower.problems == []
    short = slow_check([0.01, 0.6, 5.9], ["AC", "AC", "AC"], slowdown=2.0)
    assert short.problems == ["quadratic program (break decade 4) finishes its first test "
                              "of 10^4 bytes (AC, 2.95 s), under 3× the 1 s limit"]
    faster = slow_check([0.01, 0.1, 1.6], ["AC", "AC", "AC"], slowdown=0.5)
    assert faster.problems == []
    assert slow_check([0.01, 0.2, 3.0], ["AC"] * 3, slowdown=0.5).problems[0].startswith(
        "quadratic program (break decade 4) is AC in 0.40 s below 10^4")


def test_a_machine_outside_the_envelope_is_named_with_the_rungs_it_moves():
    """Four times slower than the calibrating machine: the margins still hold in its
    seconds (judged under 12 limits here), but under the 1 s limit itself the quadratic
    program runs out of time at 10^3 bytes here, so R_4 rejects it on this machine; four times faster, it passes
    its first test of 10^4 bytes, and R_5 accepts it."""
    slower = MachineSpeed((CALIBRATING_CPU_S * 4,) * 3)
    assert not slower.within(MARGIN)
    assert "4.00× slower than it, OUTSIDE the 3× envelope" in slower.describe(MARGIN)
    assert "by 1.33×" in slower.describe(MARGIN)
    faster = MachineSpeed((CALIBRATING_CPU_S / 4,))
    assert "4.00× faster than it, OUTSIDE" in faster.describe(MARGIN)
    assert MachineSpeed((CALIBRATING_CPU_S * 2.9,)).within(MARGIN)

    def report(check):
        return Calibration("bundled/x/eval-0", 5, 1.0, "correct", 0.01, [check], "WA",
                           slowdown=check.slowdown)

    on_slower = report(slow_check([0.04, 1.2, 12.1], ["AC", "AC", "TLE"], slowdown=4.0))
    assert on_slower.problems == []
    assert moved_rungs([on_slower]) == [
        "bundled/x/eval-0: the quadratic program breaks at 10^3 bytes here, by design it "
        "breaks at 10^4 bytes: R_4 rejects it here"]
    on_faster = report(slow_check([0.001, 0.01, 0.8, 0.9], ["AC"] * 3 + ["TLE"], 0.25))
    assert on_faster.problems == []
    assert moved_rungs([on_faster]) == [
        "bundled/x/eval-0: the quadratic program breaks at 10^5 bytes here, by design it "
        "breaks at 10^4 bytes: R_5 accepts it here"]
    within = report(slow_check([0.01, 0.2, 6.0], ["AC", "AC", "TLE"], slowdown=1.0))
    assert moved_rungs([within]) == []


def test_the_table_names_problems_that_passed_on_their_second_judgment():
    def report(name, twice):
        return Calibration(f"bundled/{name}/eval-0", 2, 1.0, "correct", 0.01, [], "WA",
                           judged_twice=twice)

    table = calibration_table([report("a", False), report("b", True)]).splitlines()
    assert table[1].endswith("  yes") and table[2].endswith("  yes (2nd)")
    assert table[-1] == "2 of 2 problems calibrated (1 on their second judgment)"


@pytest.mark.slow
def test_limits_are_calibrated_with_the_judge(first_instances):
    """Every family at full scale: efficient within a third of the limit on every test;
    every slow program passes below its break decade within a third of the limit and runs
    out of time at it; buggy fails. The 3x margin at the break decade is checked for the
    default's families (easy); the medium and hard families' margins cost another five
    minutes of CI (`codefrontier problems calibrate` checks them all). Times are the
    calibrating machine's: this machine's, divided by its slowdown at a reference program
    judged in the same run (on a faster, slower or busy machine alike)."""
    easy = [pair for pair in first_instances.values() if pair[0].family.difficulty == "easy"]
    others = [pair for pair in first_instances.values() if pair not in easy]
    with JudgePool() as pool:
        def show(speed):
            print(speed.describe(MARGIN))
        reports = (calibrate(easy, pool, on_speed=show)
                   + calibrate(others, pool, margin=False, on_speed=show))
    trouble = {r.problem_id: r.problems for r in reports if r.problems}
    assert trouble == {}


@pytest.mark.slow
def test_the_default_builds_carry_the_ladder_and_eval_calibrates_instance_by_instance(
        tmp_path, capsys):
    """The default's train and eval builds (config.yaml's options, eval disjoint from
    train). Their ladder (`problems stats`): each rung from R_2 to R_inf accepts strictly
    fewer slow programs than the rung below it, and some slow program solves eval
    instances. The eval build calibrated instance by instance under its own limits: the
    efficient references keep their margin, every slow program passes below its break
    decade within a third of the limit and runs out of time at it, the judge fails every
    buggy variant (the 3x margins on every instance, and the train split, take
    `problems calibrate --split ...` 13 minutes: the families' full-scale probes check
    the margins here, test_limits_are_calibrated_with_the_judge)."""
    import shlex
    from pathlib import Path

    import yaml

    from codefrontier.cli import main
    from codefrontier.pipeline.workflow import command_options

    config = yaml.safe_load((Path(__file__).resolve().parents[1] / "config.yaml").read_text())
    built = {split: tmp_path / f"{split}.parquet" for split in ("train", "eval")}
    options = {split: shlex.split(command_options(config, "problems", split=split))
               for split in ("train", "eval")}
    disjoint = {"train": [], "eval": ["--disjoint-from", str(built["train"])]}
    for split in ("train", "eval"):
        assert main(["problems", "build", *options[split], *disjoint[split],
                     "--out", str(built[split])]) == 0
        capsys.readouterr()
        assert main(["problems", "stats", str(built[split])]) == 0
        rows = {line.split()[0] + (" " + line.split()[1] if line.startswith("slow (") else ""):
                line.split() for line in capsys.readouterr().out.splitlines() if line.strip()}
        everything = rows["slow (all)"]  # program, n, R_1 ... R_5, R_inf, solves
        shares = [float(x) for x in everything[3:9]]
        assert all(low > high for low, high in itertools.pairwise(shares[1:])), (split, shares)
        if split == "eval":
            assert float(everything[-1]) > 0, everything
    selection = [word for word in options["eval"] if word not in ("--source", "bundled")]
    assert main(["problems", "calibrate", *selection, *disjoint["eval"], "--at-limit"]) == 0


def test_a_knob_pool_gives_every_split_the_same_few_settings():
    family = next(f for f in FAMILIES if f.slug == "two-sum")
    train = [family.instance("train", i, knob_pool=3) for i in range(12)]
    evaluation = [family.instance("eval", i, knob_pool=3) for i in range(6)]
    settings = {i.knob_setting: i.knobs for i in train + evaluation}
    assert set(settings) <= {0, 1, 2} and len(settings) == 3
    for instance in train + evaluation:  # one setting, one set of knobs
        assert instance.knobs == settings[instance.knob_setting]
    assert len({(i.statement_index, i.framing) for i in train}) > 1  # wording still varies


def test_without_a_pool_knobs_are_drawn_per_instance():
    family = next(f for f in FAMILIES if f.slug == "distinct-values")
    knobs = {family.instance("train", i).knobs for i in range(8)}
    assert len(knobs) == 8 and family.instance("train", 0).knob_setting is None
