"""Sampling and judging jobs keep their finished work in shards (base/shards.py): killed
with SIGKILL mid-way and run again, they do only what is missing and end with the table
an uninterrupted job writes."""

import dataclasses
import json
import logging
import signal
import subprocess
import sys
import time
from dataclasses import asdict

import pandas as pd
import pytest
from conftest import stdin_problem
from memorised import memorise
from test_training import OFFLINE, SPEC

from codefrontier.base.provenance import read_provenance
from codefrontier.base.shards import ShardStore, job_fingerprint, work_folder
from codefrontier.base.tables import read_records, write_records
from codefrontier.evaluate.second_attempt import CONVERSATIONS_SHARD, sample_second_attempts
from codefrontier.generation import SamplingSettings, load_backend
from codefrontier.judge.files import judge_files
from codefrontier.models.embedded import init_embedded_model
from codefrontier.problems.schema import load_problems, save_problems
from codefrontier.settings.base import SAMPLES_SCHEMA
from codefrontier.settings.episodes import Episode, run_episodes
from codefrontier.settings.registry import get_setting

# ------------------------------------------------------------------- the shard store


def test_a_rerun_keeps_the_shards_of_its_own_fingerprint(tmp_path):
    out = tmp_path / "samples.parquet"
    fingerprint = {"kind": "samples", "seed": 0}
    first = ShardStore(out, fingerprint)
    assert first.folder == tmp_path / "samples.parquet.work" == work_folder(out)
    first.put("batch-0", {"rows": [1, 2]}, {"judge_worker_losses": 1})
    (first.folder / ".batch-1.json.tmp-123").write_text("{")  # a write cut short
    again = ShardStore(out, fingerprint)
    assert again.kept == ["batch-0"] and again.get("batch-0") == {"rows": [1, 2]}
    assert again.get("batch-1") is None and not list(again.folder.glob(".*"))
    assert again.kept_count("judge_worker_losses") == 1
    again.remove()
    assert not again.folder.exists()


def test_a_rerun_with_another_fingerprint_discards_the_shards_and_says_why(tmp_path, caplog):
    out = tmp_path / "verdicts.parquet"
    ShardStore(out, {"kind": "verdicts", "seed": 0, "sampling": {"n": 2}}).put("part", [1])
    with caplog.at_level(logging.INFO, logger="codefrontier.base.shards"):
        store = ShardStore(out, {"kind": "verdicts", "seed": 0, "sampling": {"n": 4}})
    assert store.kept == [] and store.get("part") is None
    assert "not resuming" in caplog.text and "sampling.n 2 -> 4" in caplog.text
    with pytest.raises(ValueError, match="shard name"):
        store.put("../escape", [])


def test_a_fingerprint_holds_the_inputs_contents_and_the_code(tmp_path):
    data = tmp_path / "problems.jsonl"
    data.write_text("{}\n")
    before = job_fingerprint("samples", [data], seed=0)
    assert before["code_version"] and before["inputs"] == {str(data): before["inputs"][str(data)]}
    data.write_text("{} \n")
    assert job_fingerprint("samples", [data], seed=0)["inputs"] != before["inputs"]


def test_a_jobs_first_shard_keeps_its_seed_and_every_other_draws_its_own():
    sampling = SamplingSettings(n=2, temperature=0.2, seed=3)
    assert sampling.for_shard(0) == sampling
    assert len({sampling.for_shard(k).seed for k in range(4)}) == 4


# ----------------------------------------------------------------- a real tiny model


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Eight problems whose statements differ in length (so the batches, made in order
    of prompt length, are not in problem order), and an untrained tiny model."""
    folder = tmp_path_factory.mktemp("resume")
    problems = [dataclasses.replace(stdin_problem(f"p{i}"), statement="Print a + b. " * (i % 3 + 1))
                for i in range(8)]
    save_problems(problems, folder / "eval.parquet")
    model = init_embedded_model(folder / "model", [folder / "eval.parquet"], SPEC)
    return folder, model


def command(*args):
    return [sys.executable, "-m", "codefrontier.cli", *map(str, args)]


def run(*args):
    done = subprocess.run(command(*args), capture_output=True, text=True, env=OFFLINE,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def kill_once_a_shard_is_kept(args, work, pattern):
    """Start the command, SIGKILL it as soon as a shard matching `pattern` lies in its work
    folder (polled, never a fixed sleep), and return the shards it left."""
    process = subprocess.Popen(command(*args), env=OFFLINE, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 600
    while not list(work.glob(pattern)):
        assert process.poll() is None, "the job ended before it kept a shard"
        assert time.monotonic() < deadline, "no shard appeared"
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()
    return sorted(work.glob(pattern))


@pytest.mark.slow
def test_a_killed_sample_job_resumes_and_writes_the_uninterrupted_jobs_samples(world):
    folder, model = world
    options = ["--model", model, "--problems", folder / "eval.parquet", "--setting", "reasoning",
               "--n", 3, "--batch-size", 2, "--max-new-tokens", 128, "--temperature", 1.0,
               "--quiet"]
    run("sample", *options, "--out", folder / "whole.parquet")
    out = folder / "resumed.parquet"
    kept = kill_once_a_shard_is_kept(["sample", *options, "--out", out], work_folder(out),
                                     "batch-*.json")
    assert not out.exists()
    total = 8 * 3 // 2
    assert 1 <= len(kept) < total, "the kill should land mid-way"
    rerun = run("sample", *options, "--out", out)
    assert f"{len(kept)} of {total} batches kept from an earlier run, " \
           f"{total - len(kept)} sampled" in rerun.stderr
    pd.testing.assert_frame_equal(pd.read_parquet(out), pd.read_parquet(folder / "whole.parquet"))
    assert read_provenance(out) == read_provenance(folder / "whole.parquet")
    assert not work_folder(out).exists()


def old_multi_turn_run(setting, backend, problems, sampling, pool):
    """MultiTurnSetting.run before jobs had shards: every episode in one lockstep run."""
    by_id = {p.problem_id: p for p in problems}
    episodes = []
    for problem in problems:
        for index in range(sampling.n):
            environment = setting.environment(by_id, pool)
            environment.reset(problem_id=problem.problem_id)
            episodes.append(Episode(problem.problem_id, index, setting.messages(problem),
                                    environment))
    run_episodes(backend, episodes, sampling, setting.max_turns, progress=False)
    return [setting._record(e) for e in episodes]


@pytest.fixture(scope="module")
def memorised_tool_use(tmp_path_factory):
    """A model that plays the tool-use episode it memorised: a python call, then the answer."""
    folder = tmp_path_factory.mktemp("memorised")
    return folder, memorise(folder, ("tool_use",))


@pytest.mark.slow
def test_episodes_play_in_chunks_that_resume_exactly_and_one_chunk_plays_as_before(
        memorised_tool_use, judge, tmp_path):
    folder, model = memorised_tool_use
    problems = list(load_problems(folder / "train.parquet"))
    setting = get_setting("tool_use")
    sampling = SamplingSettings(n=6, temperature=1.0, max_new_tokens=200, seed=3)
    # 6 episodes, 4 a batch: two chunks
    backend = load_backend("transformers", str(model), batch_size=4)
    try:
        out = tmp_path / "samples.parquet"
        whole = setting.run(backend, problems, sampling, progress=False, pool=judge,
                            shards=ShardStore(out, {"job": 1}))
        assert any(r.tool_calls for r in whole)  # episodes of several turns
        store = ShardStore(out, {"job": 1})
        assert store.kept == ["episodes-000000", "episodes-000001"]
        (store.folder / "episodes-000001.json").unlink()  # killed during the second chunk
        resumed = setting.run(backend, problems, sampling, progress=False, pool=judge,
                              shards=ShardStore(out, {"job": 1}))
        assert [asdict(r) for r in resumed] == [asdict(r) for r in whole]
        # with a batch of 6 the episodes are one chunk, played as before chunks existed
        backend.rows_per_shard = backend.batch_size = 6
        one_chunk = setting.run(backend, problems, sampling, progress=False, pool=judge)
        backend.start_afresh()
        assert one_chunk == old_multi_turn_run(setting, backend, problems, sampling, judge)
        assert one_chunk[:4] != whole[:4]  # one chunk is not the first of two
    finally:
        backend.close()


def slow_sum(index: int) -> str:
    """A distinct program (copies would be judged once) that takes a few ms of CPU."""
    return (f"```python\n# sample {index}\nsum(range(300_000))\n"
            "a, b = map(int, input().split())\nprint(a + b)\n```")


@pytest.mark.slow
def test_a_killed_judge_job_judges_only_the_samples_it_had_not_kept(tmp_path):
    problems = [stdin_problem("sum-a"), stdin_problem("sum-b")]
    save_problems(problems, tmp_path / "eval.parquet")
    samples = [{"problem_id": p.problem_id, "sample_id": i, "setting": "reasoning",
                "completion": slow_sum(100 * k + i), "finish_reason": "stop",
                "prompt_tokens": 1, "completion_tokens": 1, "turns": 1, "tool_calls": 0,
                "transcript": [], "episode_error": None, "code": None,
                "answer_source": "final_turn"}
               for k, p in enumerate(problems) for i in range(80)]
    write_records(samples, tmp_path / "samples.parquet", schema=SAMPLES_SCHEMA)
    out = tmp_path / "verdicts.parquet"
    args = ["judge", "--problems", tmp_path / "eval.parquet", "--samples",
            tmp_path / "samples.parquet", "--workers", 1, "--quiet", "--out", out]
    kept = kill_once_a_shard_is_kept(args, work_folder(out), "verdicts-*.json")
    assert not out.exists()
    kept_rows = [row for shard in kept for row in json.loads(shard.read_text())["content"]]
    assert 1 <= len(kept_rows) < len(samples), "the kill should land mid-way"
    rerun = run(*args)
    assert f"resuming: {len(kept_rows)} of {len(samples)} samples judged by an earlier run, " \
           f"{len(samples) - len(kept_rows)} to judge" in rerun.stderr
    verdicts = read_records(out)
    assert [(v["problem_id"], v["sample_id"]) for v in verdicts] == [
        (s["problem_id"], s["sample_id"]) for s in samples]  # each once, in the samples' order
    by_key = {(v["problem_id"], v["sample_id"]): v for v in verdicts}
    assert all(by_key[(row["problem_id"], row["sample_id"])] == row for row in kept_rows)
    assert {v["outcome"] for v in verdicts} == {"correct"}
    assert read_provenance(out)["judge_worker_losses"] == 0
    assert not work_folder(out).exists()


def wrong_sum(index: int) -> str:
    return f"```python\n# attempt {index}\na, b = map(int, input().split())\nprint(a - b)\n```"


@pytest.mark.slow
def test_a_resumed_second_attempt_job_keeps_its_conversations_and_batches(world, tmp_path,
                                                                         monkeypatch, caplog):
    folder, model = world
    samples = [{"problem_id": f"p{i}", "sample_id": 0, "setting": "reasoning",
                "completion": wrong_sum(i), "finish_reason": "stop", "prompt_tokens": 1,
                "completion_tokens": 1, "turns": 1, "tool_calls": 0, "transcript": [],
                "episode_error": None, "code": None, "answer_source": "final_turn"}
               for i in range(3)]
    write_records(samples, tmp_path / "samples.parquet", schema=SAMPLES_SCHEMA)
    judge_files(folder / "eval.parquet", tmp_path / "samples.parquet",
                tmp_path / "verdicts.parquet", workers=1, progress=False)

    def second_attempts(out):
        return sample_second_attempts(
            model, folder / "eval.parquet", tmp_path / "samples.parquet",
            tmp_path / "verdicts.parquet", out, progress=False,
            sampling=SamplingSettings(n=1, temperature=1.0, max_new_tokens=32),
            backend_options={"batch_size": 1})

    whole = second_attempts(tmp_path / "whole.parquet")
    out = tmp_path / "resumed.parquet"
    with monkeypatch.context() as patch:  # the work folder as a kill leaves it
        patch.setattr(ShardStore, "remove", lambda self: None)
        second_attempts(out)
    out.unlink()
    work = work_folder(out)
    for name in ("batch-00000001", "batch-00000002"):  # killed during the second batch
        (work / f"{name}.json").unlink()
    conversations = json.loads((work / f"{CONVERSATIONS_SHARD}.json").read_text())
    with caplog.at_level(logging.INFO):
        second_attempts(out)
    assert "1 of 3 batches kept from an earlier run, 2 sampled" in caplog.text
    pd.testing.assert_frame_equal(pd.read_parquet(out), pd.read_parquet(whole))
    transcripts = pd.read_parquet(out)["transcript"]
    assert [list(t[:-1]) for t in transcripts] == [
        c[1:] for c in conversations["content"]["conversations"]]
    assert not work.exists()
