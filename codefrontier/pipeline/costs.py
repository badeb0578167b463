"""What a job of the grid costs, estimated from its config: model sizes, token work and
FLOPs, and the bytes of what it writes. How many GPU-hours that work takes is fitted to
published runs (pipeline/calibration.py); every assumption is a named constant here or
there, and in docs/cluster.md:

* a model of N parameters spends about 2·N FLOPs per token it reads or writes in a forward
  pass and 6·N per token it is trained on (forward and backward; Kaplan et al. 2020,
  "Scaling laws for neural language models", section 2.1);
* a GRPO step generates `per_device_train_batch_size × processes × gradient_accumulation_steps`
  completions of at most `max_completion_length` tokens (the budget) and trains on prompt
  and completion; a sampling job writes at most `max_new_tokens` per model turn;
* completions fill a share of their budget on average (`fill`, per model kind:
  pipeline/calibration.py); at fill 1 every completion reaches its budget, the upper bound.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from codefrontier.pipeline.places import Places, model_reference

# dense bf16 tensor-core TFLOP/s of one GPU (vendor data sheets, without sparsity; the
# H800 is an H100 with less interconnect bandwidth)
GPU_PEAK_TFLOPS = {"b200": 2250.0, "h200": 989.0, "h100": 989.0, "h800": 989.0, "a100": 312.0,
                   "l40s": 362.0, "a10": 125.0}
DEFAULT_GPU = "h100"  # when the config names no gpu_model
FORWARD_FLOPS_PER_PARAMETER = 2  # per token read or written
TRAIN_FLOPS_PER_PARAMETER = 6  # per token trained on: forward and backward
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


def gpu_peak_flops(gpu_model: str | None) -> float:
    """Dense bf16 FLOP/s of one GPU of this type (DEFAULT_GPU's when it is not in the table)."""
    name = (gpu_model or DEFAULT_GPU).lower()
    for known, tflops in GPU_PEAK_TFLOPS.items():
        if known in name:
            return tflops * 1e12
    return GPU_PEAK_TFLOPS[DEFAULT_GPU] * 1e12


def grpo_flops(parameters: float, tokens: float) -> float:
    """A GRPO run's FLOPs: each token, prompt or completion, read or generated in a forward
    pass and trained on. A reference model's forward pass (beta > 0) is not counted apart:
    the published runs' own, where they had one, are inside the times the fitted
    utilisation comes from."""
    return (FORWARD_FLOPS_PER_PARAMETER + TRAIN_FLOPS_PER_PARAMETER) * parameters * tokens


def sampling_flops(parameters: float, tokens: float) -> float:
    """A sampling job's FLOPs: each token read or generated in a forward pass."""
    return FORWARD_FLOPS_PER_PARAMETER * parameters * tokens


@dataclass(frozen=True)
class Workload:
    """A job's token work: `sequences` completions (GRPO) or model turns (sampling), each
    reading `prompt_tokens` and writing at most `budget` tokens."""

    sequences: float
    prompt_tokens: float
    budget: float

    def tokens(self, fill: float = 1.0) -> float:
        """Tokens read and written when completions fill `fill` of their budget on
        average (1: every completion at its budget, the upper bound)."""
        return self.sequences * (self.prompt_tokens + fill * self.budget)

    def written_tokens(self, fill: float = 1.0) -> float:
        return self.sequences * fill * self.budget


def grpo_workload(trl: dict, world_size: int, prompt_tokens: float = PROMPT_TOKENS) -> Workload:
    """A GRPO run: per step, per_device_train_batch_size completions on each process (times
    gradient accumulation), each generated up to max_completion_length tokens."""
    from codefrontier.train.grpo import DEFAULTS

    fields = {**DEFAULTS, **trl}
    completions = (fields["per_device_train_batch_size"] * world_size
                   * fields.get("gradient_accumulation_steps", 1))
    return Workload(fields["max_steps"] * completions, prompt_tokens,
                    fields["max_completion_length"])


def sample_workload(sampling: dict, turns: int, problems: int,
                    prompt_tokens: float = PROMPT_TOKENS) -> Workload:
    """A sampling job: n samples of each problem, up to max_new_tokens per model turn, each
    turn reading the prompt again."""
    from codefrontier.generation.options import SampleOptions

    defaults = SampleOptions()
    n = sampling.get("n", defaults.n)
    return Workload(problems * n * turns, prompt_tokens,
                    sampling.get("max_new_tokens", defaults.max_new_tokens))


def trainer_checkpoints_kept(fields: dict) -> int:
    """How many trainer checkpoints a run holds at once (save_total_limit, or every one
    it saves)."""
    limit = fields.get("save_total_limit", TRL_SAVE_TOTAL_LIMIT)
    steps, every = fields.get("max_steps"), fields.get("save_steps")
    if steps and every and steps > 0:
        saved = math.ceil(steps / every)
        return saved if limit is None else min(limit, saved)
    return limit or TRL_SAVE_TOTAL_LIMIT
