"""Rollouts of our own for GRPOTrainer (its `rollout_func`), sampled by the compacting
sampler of generation/decode.py.

Without vLLM, TRL samples with `model.generate`: every row of the batch stays until the
longest completion ends, and the KV cache is copied at each step. A GRPO step of the
default spent a third of its time there. `SingleTurnRollout` samples the reasoning
setting's completions with the evaluation's sampler instead (rows leave the batch when
they stop; the cache grows in place) and hands TRL the token ids; TRL computes the
log-probabilities, the loss and everything else as it does for its own samples. With
`use_vllm`, TRL's own vLLM path is kept. The repair rollout (train/repair.py) samples
its attempts through the same `policy_sampler`.
"""

from __future__ import annotations

from codefrontier.generation.decode import Sampler, sample_prompts, stop_token_ids
from codefrontier.generation.prefix_cache import PrefixCache


def render_prompt(tokenizer, messages: list[dict], tools: list | None = None) -> list[int]:
    """The token ids of a conversation with the assistant's turn opened, as TRL renders
    its prompts (and the evaluation's transformers backend, tools included)."""
    text = tokenizer.apply_chat_template(messages, tools=tools or None, tokenize=False,
                                         add_generation_prompt=True)
    return tokenizer(text, add_special_tokens=False)["input_ids"]


_ANSWER = "ANSWER"  # next_turn_ids' probe: the assistant text, found again in its rendering


def next_turn_ids(tokenizer, following: list[dict], end_of_turn: str,
                  tool_calls: list[dict] | None = None) -> list[int]:
    """The tokens the chat template puts between an assistant turn the policy ended with
    `end_of_turn` (the text of the stop token it wrote; with `tool_calls`, a turn that
    called tools) and the policy's next turn: the rest of the template's end of the
    assistant turn, the `following` messages (feedback, tool results) and the opening of
    the next assistant turn. Appended to a rollout's tokens, they give what the template
    renders for the whole conversation, without rendering it again."""
    assistant = {"role": "assistant", "content": _ANSWER}
    if tool_calls:
        assistant["tool_calls"] = tool_calls
    probe = [{"role": "user", "content": "task"}, assistant]
    before = tokenizer.apply_chat_template(probe, tokenize=False)
    after = tokenizer.apply_chat_template([*probe, *following], tokenize=False,
                                          add_generation_prompt=True)
    end = before.rindex(_ANSWER) + len(_ANSWER)
    if end_of_turn and end_of_turn in before[end:]:
        # the template's own end of turn (after its rendering of the tool calls, which
        # the policy wrote in its own words) is the token the policy stopped at
        end = before.index(end_of_turn, end) + len(end_of_turn)
    if not after.startswith(before[:end]):
        raise ValueError("the chat template renders an assistant turn differently when "
                         "messages follow it: cannot append them to a rollout")
    return tokenizer(after[end:], add_special_tokens=False)["input_ids"]



class RolloutCalls:
    """A rollout's calls numbered 1, 2, ... as in a run from step 0, which seed its
    samples: a resumed run counts on from its step (TRL rolls out once per optimizer step
    unless told to reuse generations), so it samples with the seeds of the run that was
    not interrupted. A count of this process's calls alone would start again at 1."""

    def __init__(self) -> None:
        self.count = 0

    def next(self, trainer) -> int:
        self.count = (self.count or trainer.state.global_step) + 1
        return self.count


def policy_sampler(trainer, tokenizer, seed_base: int, reuse_prefixes: bool = False):
    """`generate(prompts_ids, attempt) -> (completions_ids, logprobs)` with the trainer's
    policy, temperature and top-p, each completion bounded by max_completion_length (and
    ending with its stop token, when it stopped). With `use_vllm` the trainer's vLLM
    engine samples (TRL has synced its weights before calling a rollout); it is called
    even with no prompts, since its server mode gathers across processes, and `logprobs`
    holds the engine's log-probability of each sampled token (TRL's importance-sampling
    correction compares them with the trained model's); else `logprobs` is None.
    `generate.stop_ids` holds the stop tokens. With `reuse_prefixes` a prompt that extends an earlier
    prompt and its completion (a second attempt after feedback) prefills only its new
    tokens: make one sampler per rollout, since the weights change between rollouts."""
    args = trainer.args
    model = trainer.accelerator.unwrap_model(trainer.model)
    stop_ids = stop_token_ids(model, tokenizer)
    sampler = Sampler(args.temperature, args.top_p)
    prefix_cache = PrefixCache() if reuse_prefixes else None

    def generate(prompts: list[list[int]], attempt: int = 0, max_new_tokens: int | None = None):
        if getattr(trainer, "use_vllm", False):
            _, completions, logprobs, _ = trainer.vllm_generation.generate(
                prompts=prompts, images=None, num_generations=1)
            # per token the engine's top log-probabilities, the sampled token's first
            return completions, [[top[0] for top in sequence] for sequence in logprobs]
        if not prompts:
            return [], None
        was_training = model.training
        model.eval()
        try:
            return sample_prompts(model, prompts, tokenizer.pad_token_id,
                                  max_new_tokens or args.max_completion_length, stop_ids, sampler,
                                  seed=(args.seed * 1_000 + seed_base) * 2 + attempt,
                                  batch_size=len(prompts), prefix_cache=prefix_cache), None
        finally:
            model.train(was_training)

    generate.stop_ids = stop_ids
    return generate


class SingleTurnRollout:
    """GRPOTrainer's `rollout_func` for single-turn settings on the transformers backend:
    one completion per prompt row (TRL has already repeated each prompt
    `num_generations` times)."""

    def __init__(self) -> None:
        self.__name__ = "single_turn_rollout"
        self.calls = RolloutCalls()

    @staticmethod
    def serves(config) -> bool:
        """Whether the rollout can sample as `config` (a GRPOConfig) asks: without vLLM,
        with temperature and top-p alone (other sampling options keep TRL's generate)."""
        return (not config.use_vllm and not config.top_k and config.min_p is None
                and config.repetition_penalty == 1.0 and not config.generation_kwargs)

    def __call__(self, prompts: list[list[dict]], trainer) -> dict:
        tokenizer = trainer.processing_class
        prompt_ids = [render_prompt(tokenizer, messages) for messages in prompts]
        completion_ids, logprobs = policy_sampler(trainer, tokenizer,
                                                  seed_base=self.calls.next(trainer))(prompt_ids)
        return {"prompt_ids": prompt_ids, "completion_ids": completion_ids, "logprobs": logprobs}
