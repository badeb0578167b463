"""What a job of the grid costs, estimated from its config: model sizes, token budgets,
FLOPs and GPU-hours, and the bytes of what it writes.

The estimates are meant to show a request that is far from the work a job does, not to
replace measurement; every assumption is a named constant here and in docs/cluster.md:

* a model of N parameters spends about 2·N FLOPs per token it reads or writes in a forward
  pass and 6·N per token it is trained on (forward and backward; Kaplan et al. 2020,
  "Scaling laws for neural language models", section 2.1);
* a GPU reaches a share of its dense bf16 peak (NVIDIA's data sheets, `GPU_PEAK_TFLOPS`):
  TRAIN_UTILISATION in training (Llama 3 reports 38-43 % on H100s: "The Llama 3 herd of
  models", 2024, table 4) and GENERATE_UTILISATION in batched decoding, which is bound by
  memory bandwidth rather than arithmetic;
* a GRPO step generates at most `max_completion_length` tokens per completion (the budget,
  an upper bound) and trains on prompt and completion; a sampling job writes at most
  `max_new_tokens` per model turn.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from codefrontier.pipeline.places import Places, model_reference

# dense bf16 tensor-core TFLOP/s of one GPU (vendor data sheets, without sparsity)
GPU_PEAK_TFLOPS = {"b200": 2250.0, "h200": 989.0, "h100": 989.0, "a100": 312.0,
                   "l40s": 362.0, "a10": 125.0}
DEFAULT_GPU = "h100"  # when the config names no gpu_model
TRAIN_UTILISATION = 0.40
GENERATE_UTILISATION = 0.20
PROMPT_TOKENS = 1000  # a problem statement with its examples, when no problems file is there
EVAL_PROBLEMS = 500  # evaluation problems, when no problems file is there
CHARS_PER_TOKEN = 4  # bytes of a completion per token, stored as text
OPTIMIZER_BYTES_PER_PARAMETER = 12  # fp32 master weights (4) and Adam's two moments (8)
TRL_SAVE_TOTAL_LIMIT = 2  # our trainers' default (train/grpo.py, train/sft.py DEFAULTS)


@dataclass(frozen=True)
class ModelSize:
    parameters: float
    dtype_bytes: int
    source: str  # where the count came from

    @property
    def checkpoint_bytes(self) -> float:
        return self.parameters * self.dtype_bytes

    @property
    def trainer_checkpoint_bytes(self) -> float:
        """One trainer checkpoint: the weights, fp32 master weights and Adam's moments."""
        return self.parameters * (self.dtype_bytes + OPTIMIZER_BYTES_PER_PARAMETER)


def parameters_of_config(config: dict) -> float:
    """Parameters of a decoder-only transformer from its config.json (Qwen2, Llama,
    Mistral layouts: grouped-query attention, gated MLP, RMS norms)."""
    hidden, layers = config["hidden_size"], config["num_hidden_layers"]
    heads = config["num_attention_heads"]
    kv_heads = config.get("num_key_value_heads") or heads
    head_dim = config.get("head_dim") or hidden // heads
    attention = 2 * hidden * heads * head_dim + 2 * hidden * kv_heads * head_dim
    if config.get("model_type") == "qwen2":  # biases on q, k and v
        attention += heads * head_dim + 2 * kv_heads * head_dim
    mlp = 3 * hidden * config["intermediate_size"]
    embedding = config["vocab_size"] * hidden
    head = 0 if config.get("tie_word_embeddings") else embedding
    return float(embedding + head + layers * (attention + mlp + 2 * hidden) + hidden)


DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}


def model_size(config: dict, model: str, places: Places) -> ModelSize:
    """The size of the model a grid trains: the embedded model's from its config.json once
    built, else from its init sizes; a hub or local model's from the config.json of its
    folder or of its Hub snapshot in the cache, else from its name (`...-7B-...`)."""
    from codefrontier.base.layout import INIT_FOLDER
    from codefrontier.models.embedded import EmbeddedModelSpec

    model_config = config["models"][model]
    base = model_config["base"]
    built = Path(places.workdir) / INIT_FOLDER.fill(model=model) / "config.json"
    if base == "embedded" and built.is_file():  # its tokenizer's vocabulary, as trained
        return ModelSize(parameters_of_config(json.loads(built.read_text())), 4, str(built))
    if base == "embedded":
        spec = {**EmbeddedModelSpec().__dict__, **(model_config.get("init") or {})}
        return ModelSize(parameters_of_config({**spec, "model_type": "qwen2",
                                               "tie_word_embeddings": True}), 4, "init sizes")
    name = model_config.get("sft_checkpoint") or base
    found = _config_json(name, places)
    if found is not None:
        values, where = found
        dtype = values.get("torch_dtype") or values.get("dtype") or "bfloat16"
        return ModelSize(parameters_of_config(values), DTYPE_BYTES.get(dtype, 2), where)
    match = re.search(r"(\d+(?:\.\d+)?)\s*[bB](?![a-zA-Z])", name)
    if match:
        return ModelSize(float(match.group(1)) * 1e9, 2,
                         f"its name ({name}: config.json not at hand, `codefrontier prefetch`)")
    raise ValueError(f"models.{model}: cannot tell the size of {name}: neither a folder with "
                     f"a config.json, nor in the Hub cache, nor a size in its name; fetch it "
                     f"first (codefrontier prefetch)")


def _config_json(name: str, places: Places) -> tuple[dict, str] | None:
    from codefrontier.loaders.hub import cached_snapshot

    reference = model_reference(name, places)
    folder = None
    if reference.kind == "folder":
        folder = Path(places.workdir) / reference.value
    elif reference.kind == "hub":
        folder = cached_snapshot(reference.value, "model", ["config.json"])
    if folder is None or not (folder / "config.json").is_file():
        return None
    return json.loads((folder / "config.json").read_text()), f"{folder / 'config.json'}"


@dataclass(frozen=True)
class Budget:
    """A job's work in tokens and FLOPs, and the GPU-hours that takes."""

    generated_tokens: float
    trained_tokens: float
    flops: float
    gpu_hours: float


def gpu_peak_flops(gpu_model: str | None) -> float:
    name = (gpu_model or DEFAULT_GPU).lower()
    for known, tflops in GPU_PEAK_TFLOPS.items():
        if known in name:
            return tflops * 1e12
    return GPU_PEAK_TFLOPS[DEFAULT_GPU] * 1e12


def _gpu_hours(train_flops: float, generate_flops: float, gpu_model: str | None) -> float:
    peak = gpu_peak_flops(gpu_model)
    seconds = train_flops / (peak * TRAIN_UTILISATION) + \
        generate_flops / (peak * GENERATE_UTILISATION)
    return seconds / 3600


def grpo_budget(trl: dict, world_size: int, size: ModelSize, gpu_model: str | None,
                prompt_tokens: float = PROMPT_TOKENS) -> Budget:
    """A GRPO run: per step, per_device_train_batch_size completions on each process
    (times gradient accumulation), each generated up to max_completion_length tokens,
    then trained on with its prompt; a reference model forward when beta > 0."""
    from codefrontier.train.grpo import DEFAULTS

    fields = {**DEFAULTS, **trl}
    completions = (fields["per_device_train_batch_size"] * world_size
                   * fields.get("gradient_accumulation_steps", 1))
    steps = fields["max_steps"]
    generated = steps * completions * fields["max_completion_length"]
    trained = steps * completions * (fields["max_completion_length"] + prompt_tokens)
    reference = 2 * size.parameters * trained if fields.get("beta", 0.0) else 0.0
    train_flops = 6 * size.parameters * trained + reference
    generate_flops = 2 * size.parameters * (generated + steps * completions * prompt_tokens)
    return Budget(generated, trained, train_flops + generate_flops,
                  _gpu_hours(train_flops, generate_flops, gpu_model))


def sample_budget(sampling: dict, turns: int, problems: int, size: ModelSize,
                  gpu_model: str | None, prompt_tokens: float = PROMPT_TOKENS) -> Budget:
    """A sampling job: n samples of each problem, up to max_new_tokens per model turn."""
    from codefrontier.generation.options import SampleOptions

    defaults = SampleOptions()
    n = sampling.get("n", defaults.n)
    per_turn = sampling.get("max_new_tokens", defaults.max_new_tokens)
    generated = problems * n * per_turn * turns
    read = problems * n * prompt_tokens * turns  # each turn reads the episode so far
    flops = 2 * size.parameters * (generated + read)
    return Budget(generated, 0.0, flops, _gpu_hours(0.0, flops, gpu_model))


def trainer_checkpoints_kept(fields: dict) -> int:
    """How many trainer checkpoints a run holds at once (save_total_limit, or every one
    it saves)."""
    limit = fields.get("save_total_limit", TRL_SAVE_TOTAL_LIMIT)
    steps, every = fields.get("max_steps"), fields.get("save_steps")
    if steps and every and steps > 0:
        saved = math.ceil(steps / every)
        return saved if limit is None else min(limit, saved)
    return limit or TRL_SAVE_TOTAL_LIMIT
