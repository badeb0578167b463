"""The embedded model, SFT, GRPO and sampling, run for real on a very small model."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from types import SimpleNamespace

import pyarrow.parquet as pq
import pytest
from conftest import stdin_problem

from codefrontier.base.tables import write_records
from codefrontier.judge import Sample
from codefrontier.models.embedded import EmbeddedModelSpec, init_embedded_model
from codefrontier.problems.schema import Test, save_problems
from codefrontier.settings import reasoning
from codefrontier.train.grpo import JudgeReward, restrict_tests

OFFLINE = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
SPEC = EmbeddedModelSpec(vocab_size=512, hidden_size=64, intermediate_size=128,
                         num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1)
# Lists of 1 to 200,000 numbers: SLOW_SUM's quadratic Python loop is instant up to 500
# numbers and needs hours (thousands of time limits, on any machine) for the largest.
LENGTHS = (1, 5, 50, 500, 200_000)
SLOW_SUM = ("n = int(input())\nxs = list(map(int, input().split()))\n"
            "print(sum(xs[j] for i in range(n) for j in range(i + 1) if i == n - 1))\n")
FAST_SUM = "n = int(input())\nprint(sum(map(int, input().split())))\n"


def sum_problem(problem_id="sum-list"):
    tests = []
    for count in LENGTHS:
        xs = list(range(1, count + 1))
        tests.append(Test(f"{count}\n{' '.join(map(str, xs))}\n", str(sum(xs))))
    return stdin_problem(problem_id, tests=tuple(tests), time_limit_s=1.0)


def answer(program: str) -> str:
    return reasoning.answer("Add the numbers.", program)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("data")
    problems = [sum_problem("sum-a"), sum_problem("sum-b")]
    save_problems(problems, folder / "train.parquet")
    pairs = [{"problem_id": p.problem_id, "variant": variant, "prompt": reasoning.messages(p),
              "completion": [{"role": "assistant", "content": answer(program)}]}
             for p in problems for variant, program in (("efficient", FAST_SUM),
                                                        ("slow", SLOW_SUM))]
    write_records(pairs, folder / "sft.parquet")
    return folder


@pytest.fixture(scope="module")
def tiny_model(data):
    return init_embedded_model(data / "model", [data / "train.parquet", data / "sft.parquet"],
                               SPEC)


def cli(*args, timeout=900, **kwargs):
    return subprocess.run([sys.executable, "-m", "codefrontier.cli", *map(str, args)],
                          capture_output=True, text=True, env=OFFLINE, timeout=timeout, **kwargs)


def test_the_embedded_model_is_a_complete_qwen2_folder(tiny_model):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_model)
    text = "print('héllo')\x00 ∑ 🙂"
    assert tokenizer.decode(tokenizer(text).input_ids) == text  # byte-level: anything encodes
    conversation = [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}]
    rendered = tokenizer.apply_chat_template(conversation, tokenize=False,
                                             add_generation_prompt=True)
    assert rendered == ("<|im_start|>system\nsys<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n"
                        "<|im_start|>assistant\n")
    # Qwen2.5's template: TRL's tool-calling checks accept it, the tool-call tags are single
    # tokens that decoding keeps
    from trl.chat_template_utils import is_chat_template_prefix_preserving, supports_tool_calling

    assert supports_tool_calling(tokenizer) and is_chat_template_prefix_preserving(tokenizer)
    call = tokenizer("<tool_call>\n{}\n</tool_call>").input_ids
    assert tokenizer.convert_tokens_to_ids("<tool_call>") in call
    assert tokenizer.decode(call, skip_special_tokens=True) == "<tool_call>\n{}\n</tool_call>"
    model = AutoModelForCausalLM.from_pretrained(tiny_model)
    assert model.config.model_type == "qwen2" and model.generation_config.use_cache
    assert model.generation_config.eos_token_id == tokenizer.convert_tokens_to_ids("<|im_end|>")
    provenance = json.loads((tiny_model / "provenance.json").read_text())
    assert provenance["kind"] == "init" and provenance["parameters"] == model.num_parameters()


def test_reward_tests_only_what_the_reward_needs():
    problem = sum_problem()
    assert [t.input_len for t in restrict_tests(problem, 10.0**3).tests] == \
        [t.input_len for t in problem.tests_by_input_length() if t.input_len < 1000]
    assert len(restrict_tests(problem, 1.0).tests) == 1  # the shortest always counts


def test_judge_reward_scores_and_logs_the_verdict_mix(judge, tmp_path):
    problem = sum_problem()
    completions = [answer(FAST_SUM), answer(SLOW_SUM), answer("print('x\x00')"), "no code",
                   "```python\nwhile True:"]
    ids = [[1] * 10] * 4 + [[1] * 64]  # the last one used the whole budget
    rewards = {}
    for name in ("k3", "kinf"):
        log_path = tmp_path / f"{name}.jsonl"
        metrics = {}
        reward = JudgeReward(name, {problem.problem_id: problem}, judge, 64, log_path)
        rewards[name] = reward([None] * 5, [[{"role": "assistant", "content": c}] for c in completions],
                               ids, [problem.problem_id] * 5,
                               log_metric=lambda k, v, m=metrics: m.__setitem__(k, v))
        entry = json.loads(log_path.read_text())
        assert entry["samples"] == 5 and metrics["outcome/format_error"] == pytest.approx(0.4)
        assert entry["groups/zero_variance_share"] == 0.0  # one group: its rewards differ
        # rung disagreements, over the three judged programs, for the rungs the run judges
        rungs = {k: v for k, v in entry.items() if k.startswith("rungs/")}
        if name == "k3":
            assert rungs == {"rungs/R_1≠R_2": 0.0, "rungs/R_2≠R_3": 0.0}
        else:  # the slow program fails only the test of 10^6 bytes
            assert rungs["rungs/R_5≠R_inf"] == pytest.approx(1 / 3)
            assert sum(rungs.values()) == pytest.approx(1 / 3) and len(rungs) == 5
    assert rewards["k3"] == [1.0, 1.0, 0.0, 0.0, 0.0]  # the slow program passes below 10^3
    assert rewards["kinf"] == [1.0, 0.0, 0.0, 0.0, 0.0]
    assert entry["outcome/optimization_failure"] == pytest.approx(0.2)
    assert entry["verdict/tle_mle_share_of_failures"] == pytest.approx(0.5)


def test_a_truncated_completion_is_a_truncated_format_error(judge):
    problem = sum_problem()
    (result,) = judge.judge({problem.problem_id: problem},
                            [Sample(problem.problem_id, 0, completion="```python\nprint(",
                                    finish_reason="length")])
    assert (result.outcome, result.format_error_cause) == ("format_error", "truncated")


@pytest.mark.slow
def test_sft_is_killed_and_resumes_to_a_complete_checkpoint(tiny_model, data, tmp_path):
    out = tmp_path / "sft"
    args = ["train", "sft", "--model", tiny_model, "--data", data / "sft.parquet", "--out", out,
            "--set", "max_steps=400", "--set", "save_steps=2", "--set", "logging_steps=1",
            "--set", "per_device_train_batch_size=2", "--set", "learning_rate=1e-3",
            "--keep-checkpoints"]
    first = subprocess.Popen([sys.executable, "-m", "codefrontier.cli", *map(str, args)],
                             env=OFFLINE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    work = tmp_path / "sft.work"
    deadline = time.monotonic() + 600
    # kill once a complete checkpoint exists (the kill may land in the middle of the next save)
    while not list(work.glob("checkpoint-*/trainer_state.json")):
        assert first.poll() is None, "training ended before it could be killed"
        assert time.monotonic() < deadline, "no checkpoint appeared"
        time.sleep(0.05)
    first.send_signal(signal.SIGKILL)
    first.wait()
    assert not out.exists()  # a killed run leaves no output that looks complete
    done = cli(*args)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "resuming from" in done.stderr
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["kind"] == "sft" and provenance["resumed_from"].endswith(
        tuple(f"checkpoint-{n}" for n in range(2, 401, 2)))
    state = json.loads((work / "checkpoint-400" / "trainer_state.json").read_text())
    assert state["global_step"] == 400
    generation = json.loads((out / "generation_config.json").read_text())
    assert generation["use_cache"] is True
    assert json.loads((out / "config.json").read_text())["use_cache"] is True


def short_run(stage, tiny_model, data, out, learning_rate):
    """A 3-step SFT or GRPO command that saves and logs every step."""
    if stage == "sft":
        command = ["train", "sft", "--model", tiny_model, "--data", data / "sft.parquet",
                   "--set", "per_device_train_batch_size=2"]
    else:
        command = ["train", "grpo", "--model", tiny_model, "--problems", data / "train.parquet",
                   "--reward", "kinf", "--judge-workers", "1", "--set", "num_generations=4",
                   "--set", "per_device_train_batch_size=4", "--set", "max_completion_length=16"]
    return [*command, "--out", out, "--set", "max_steps=3", "--set", "save_steps=1",
            "--set", "logging_steps=1", "--set", f"learning_rate={learning_rate}",
            "--keep-checkpoints"]  # what these tests read


def logged_learning_rates(work, step=3):
    """(step, learning rate) as the trainer logged them up to checkpoint-`step`."""
    state = json.loads((work / f"checkpoint-{step}" / "trainer_state.json").read_text())
    return [(entry["step"], entry["learning_rate"]) for entry in state["log_history"]
            if "learning_rate" in entry]


@pytest.fixture(scope="module", params=["sft", "grpo"])
def retrained(request, tiny_model, data, tmp_path_factory):
    """A complete 3-step run at learning rate 1e-3, then a rerun at 5e-3 with the same
    output and work folder (a workflow rerun after a config change)."""
    stage = request.param
    out = tmp_path_factory.mktemp(f"retrain-{stage}") / "model"
    work = out.with_name("model.work")
    first = cli(*short_run(stage, tiny_model, data, out, "1e-3"))
    assert first.returncode == 0, first.stderr[-3000:]
    first_rates = [rate for _, rate in logged_learning_rates(work)]
    second = cli(*short_run(stage, tiny_model, data, out, "5e-3"))
    assert second.returncode == 0, second.stderr[-3000:]
    return SimpleNamespace(stage=stage, out=out, work=work, log=second.stderr,
                           first_rates=first_rates,
                           command=lambda to: short_run(stage, tiny_model, data, to, "5e-3"))


@pytest.mark.parametrize("stage", ["sft", "grpo"])
def test_a_published_run_removes_its_trainer_checkpoints_and_keeps_its_logs(stage, tiny_model,
                                                                           data, tmp_path):
    """Once the output is published its trainer checkpoints serve nothing (and with ZeRO-3
    weigh about 14 bytes a parameter each): gone, unless --keep-checkpoints."""
    out = tmp_path / "model"
    command = [word for word in short_run(stage, tiny_model, data, out, "1e-3")
               if word != "--keep-checkpoints"]
    done = cli(*command)
    assert done.returncode == 0, done.stderr[-3000:]
    work = tmp_path / "model.work"
    assert (out / "provenance.json").is_file() and not list(work.glob("checkpoint-*"))
    assert "removed 2 trainer checkpoints" in done.stderr  # save_total_limit: 2
    assert (work / "run.json").is_file()
    if stage == "grpo":
        assert len((work / "rewards.jsonl").read_text().splitlines()) == 3


@pytest.mark.slow
def test_a_rerun_with_a_changed_setting_starts_from_step_0(retrained):
    assert "not resuming: learning_rate 0.001 -> 0.005; starting from step 0" in retrained.log
    assert "resuming from" not in retrained.log
    logged = logged_learning_rates(retrained.work)
    assert [step for step, _ in logged] == [1, 2, 3]
    assert [rate for _, rate in logged] == pytest.approx([5 * r for r in retrained.first_rates])
    provenance = json.loads((retrained.out / "provenance.json").read_text())
    assert provenance["resumed_from"] is None
    assert provenance["settings"]["learning_rate"] == pytest.approx(5e-3)
    if retrained.stage == "grpo":  # the first run's reward log went with its checkpoints
        assert len((retrained.work / "rewards.jsonl").read_text().splitlines()) == 3


@pytest.mark.slow
def test_an_interrupted_rerun_resumes_its_own_checkpoint(retrained, tmp_path):
    # The rerun as if killed after saving checkpoint-2, in a copy of its work folder
    # (a work folder that moved stays resumable).
    out, work = tmp_path / "model", tmp_path / "model.work"
    shutil.copytree(retrained.work, work)
    shutil.rmtree(work / "checkpoint-3")
    done = cli(*retrained.command(out))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "not resuming" not in done.stderr
    assert f"resuming from {work / 'checkpoint-2'}" in done.stderr
    assert json.loads((out / "provenance.json").read_text())["resumed_from"] == str(
        work / "checkpoint-2")
    logged = logged_learning_rates(work)
    assert [step for step, _ in logged] == [1, 2, 3]
    assert [rate for _, rate in logged] == pytest.approx([5 * r for r in retrained.first_rates])


@pytest.fixture(scope="module")
def sft_model(tiny_model, data, tmp_path_factory):
    out = tmp_path_factory.mktemp("sft") / "model"
    done = cli("train", "sft", "--model", tiny_model, "--data", data / "sft.parquet", "--out", out,
               "--set", "max_steps=30", "--set", "learning_rate=3e-3",
               "--set", "per_device_train_batch_size=4")
    assert done.returncode == 0, done.stderr[-3000:]
    return out


@pytest.mark.slow
def test_grpo_steps_judge_completions_and_write_a_checkpoint(sft_model, data, tmp_path):
    out = tmp_path / "rl-k3"
    done = cli("train", "grpo", "--model", sft_model, "--problems", data / "train.parquet",
               "--reward", "k3", "--out", out, "--judge-workers", "2",
               "--set", "max_steps=2", "--set", "num_generations=4",
               "--set", "per_device_train_batch_size=8", "--set", "max_completion_length=48")
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [json.loads(line) for line in (tmp_path / "rl-k3.work" / "rewards.jsonl").open()]
    assert len(lines) == 2 and all(line["samples"] == 8 for line in lines)
    assert all(abs(sum(line[f"outcome/{o}"] for o in ("correct", "optimization_failure",
                                                       "correctness_failure", "format_error")) - 1)
               < 1e-9 for line in lines)
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["kind"] == "rl" and provenance["reward"] == "k3"
    assert provenance["inputs"][0]["sha256"] and provenance["model"] == str(sft_model)
    # the trainer's log outlives its checkpoints: what `codefrontier plan --calibrate` reads
    state = json.loads((tmp_path / "rl-k3.work" / "trainer_state.json").read_text())
    assert [entry["step"] for entry in state["log_history"] if "step_time" in entry] == [1, 2]
    assert not list((tmp_path / "rl-k3.work").glob("checkpoint-*"))


def weights(folder) -> dict:
    from safetensors.torch import load_file

    return load_file(str(folder / "model.safetensors"))


@pytest.mark.slow
def test_grpo_with_a_reward_that_varies_changes_the_weights(sft_model, data, tmp_path):
    """A rigged reward (1 for an even number of characters) gives every group variance:
    two steps must move the policy. A dead RL path would leave the SFT weights."""
    from codefrontier.train.grpo import run_grpo

    def even_length(completions, **_):
        return [float(len(json.dumps(c)) % 2 == 0) for c in completions]

    out = run_grpo(str(sft_model), data / "train.parquet", "rigged", tmp_path / "rl",
                   {"max_steps": 2, "num_generations": 4, "per_device_train_batch_size": 8,
                    "max_completion_length": 24, "learning_rate": 1e-3},
                   judge_workers=1, reward_function=even_length)
    before, after = weights(sft_model), weights(out)
    assert before.keys() == after.keys()
    assert any(not before[name].equal(after[name]) for name in before)


def test_zero_variance_share_counts_groups_whose_rewards_all_agree():
    from codefrontier.train.grpo import zero_variance_share

    rewards = [1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    problems = ["a", "a", "b", "b", "c", "c", "d", "d"]
    assert zero_variance_share(rewards, problems) == 0.75


@pytest.mark.slow
def test_sampling_is_reproducible_and_judgeable(sft_model, data, tmp_path):
    outputs = []
    for name in ("a", "b"):
        out = tmp_path / f"{name}.parquet"
        done = cli("sample", "--model", sft_model, "--problems", data / "train.parquet",
                   "--n", 3, "--max-new-tokens", 40, "--seed", 7, "--batch-size", 4,
                   "--out", out, "--quiet")
        assert done.returncode == 0, done.stderr[-3000:]
        outputs.append(pq.read_table(out))
    assert outputs[0].equals(outputs[1])
    rows = outputs[0].to_pylist()
    assert [(r["problem_id"], r["sample_id"]) for r in rows] == [
        (p, i) for p in ("sum-a", "sum-b") for i in range(3)]
    assert {r["finish_reason"] for r in rows} <= {"stop", "length"}
    assert all(0 < r["completion_tokens"] <= 40 and r["prompt_tokens"] > 20 for r in rows)
    metadata = json.loads(pq.read_schema(tmp_path / "a.parquet").metadata[b"codefrontier.base.provenance"])
    assert metadata["sampling"]["n"] == 3 and metadata["inputs"][0]["sha256"]
    judged = cli("judge", "--problems", data / "train.parquet", "--samples", tmp_path / "a.parquet",
                 "--out", tmp_path / "verdicts.parquet", "--quiet")
    assert judged.returncode == 0, judged.stderr[-3000:]
    assert pq.read_table(tmp_path / "verdicts.parquet").num_rows == 6


def test_a_missing_vllm_fails_with_the_install_hint(monkeypatch):
    """Where vLLM is not installed (the default's environment): a None entry in
    sys.modules makes `import vllm` fail as it does there, installed or not."""
    from codefrontier.generation import load_backend

    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(RuntimeError, match=r"codefrontier\[gpu\]"):
        load_backend("vllm", "any-model")


def test_unknown_trainer_settings_are_refused(tiny_model, data, tmp_path):
    done = cli("train", "sft", "--model", tiny_model, "--data", data / "sft.parquet",
               "--out", tmp_path / "x", "--set", "learning_rat=1e-3", timeout=300)
    assert done.returncode == 2 and "unknown SFTConfig settings: learning_rat" in done.stderr




def test_launch_commands_for_one_node_and_for_a_multi_node_slurm_job():
    from codefrontier.train.launch import accelerate_argv

    single = accelerate_argv(2, ["train", "sft"], cpu=True, env={})
    assert single[1:3] == ["-m", "accelerate.commands.launch"]
    assert single[single.index("--num_processes") + 1] == "2" and "--multi_gpu" in single
    assert single[single.index("--mixed_precision") + 1] == "no"
    assert single[-4:] == ["-m", "codefrontier.cli", "train", "sft"]
    # inside the one-task step Snakemake runs a job in: the job's nodes, not the step's
    multi = accelerate_argv(4, ["train", "grpo"], accelerate_config="zero3.yaml",
                            env={"SLURM_NNODES": "1", "SLURM_JOB_NUM_NODES": "2",
                                 "SLURM_JOB_NODELIST": "gpu01,gpu02"})
    assert multi[:8] == ["env", "SLURM_JOB_NODELIST=gpu01,gpu02", "SLURM_JOB_NUM_NODES=2", "srun",
                         "--overlap", "--nodes=2", "--ntasks=2", "--ntasks-per-node=1"]
    script = multi[-1]
    assert "--num_processes 8" in script and "--machine_rank $SLURM_NODEID" in script
    assert "--main_process_ip gpu01" in script and "--config_file zero3.yaml" in script


@pytest.mark.slow
@pytest.mark.parametrize("stage", ["sft", "grpo"])
def test_accelerate_runs_training_on_two_cpu_processes(stage, tiny_model, data, tmp_path):
    out = tmp_path / stage
    if stage == "sft":
        command = ["train", "sft", "--model", tiny_model, "--data", data / "sft.parquet",
                   "--set", "max_steps=3", "--set", "per_device_train_batch_size=2"]
    else:
        command = ["train", "grpo", "--model", tiny_model, "--problems", data / "train.parquet",
                   "--reward", "kinf", "--judge-workers", "1", "--set", "max_steps=2",
                   "--set", "num_generations=4", "--set", "per_device_train_batch_size=4",
                   "--set", "max_completion_length=24"]
    done = cli("launch", "--processes", 2, "--cpu", "--", *command, "--out", out,
               "--keep-checkpoints")
    assert done.returncode == 0, done.stderr[-4000:]
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["processes"] == 2
    state = json.loads((tmp_path / f"{stage}.work" / f"checkpoint-{3 if stage == 'sft' else 2}"
                        / "trainer_state.json").read_text())
    assert state["global_step"] == (3 if stage == "sft" else 2)


def test_set_values_are_read_as_yaml_but_yes_and_no_stay_words():
    from codefrontier.train.common import parse_overrides

    assert parse_overrides(["learning_rate=1e-3", "bf16=true", "save_strategy=no",
                            "report_to=[none]", "max_steps=20", "lr_scheduler_type=cosine"]) == {
        "learning_rate": 1e-3, "bf16": True, "save_strategy": "no", "report_to": ["none"],
        "max_steps": 20, "lr_scheduler_type": "cosine"}


def test_the_single_turn_rollout_serves_temperature_and_top_p_without_vllm():
    from types import SimpleNamespace

    from codefrontier.train.rollout import SingleTurnRollout

    defaults = {"use_vllm": False, "top_k": 0, "min_p": None, "repetition_penalty": 1.0,
                "generation_kwargs": None, "temperature": 0.3, "top_p": 0.9}  # GRPOConfig's
    assert SingleTurnRollout.serves(SimpleNamespace(**defaults))
    for change in ({"use_vllm": True}, {"top_k": 5}, {"min_p": 0.1}, {"repetition_penalty": 1.1},
                   {"generation_kwargs": {"top_k": 5}}):
        assert not SingleTurnRollout.serves(SimpleNamespace(**{**defaults, **change})), change


@pytest.mark.slow
def test_grpo_trains_on_the_compacting_samplers_completions(sft_model, data, tmp_path):
    """Each row stops at its own stop token or at the length budget (the sampler drops
    rows as they stop), and the rewards TRL computes come from those completions."""
    from codefrontier.models.checkpoint_io import load_tokenizer
    from codefrontier.train.grpo import run_grpo

    tokenizer = load_tokenizer(str(sft_model))
    seen = []

    def record(completions, completion_ids, **_):
        seen.extend(completion_ids)
        return [float(len(ids) % 2) for ids in completion_ids]

    run_grpo(str(sft_model), data / "train.parquet", "recorded", tmp_path / "rl",
             {"max_steps": 2, "num_generations": 4, "per_device_train_batch_size": 8,
              "max_completion_length": 24, "temperature": 1.0},
             judge_workers=1, reward_function=record)
    assert len(seen) == 16
    stops = {tokenizer.eos_token_id, tokenizer.convert_tokens_to_ids("<|im_end|>")}
    ended = [ids for ids in seen if len(ids) < 24]
    assert ended and all(ids[-1] in stops for ids in ended)
    assert all(len(ids) <= 24 for ids in seen)
