"""Rollouts: sample G completions per prompt behind one small backend interface.

    backend = HFGenerateBackend(model, tokenizer, batch_size=64)
    rollouts = sample_messages(backend, tokenizer, ["07+45="], n=8, params=SamplingParams(4, 1.0))

`HFGenerateBackend` uses Hugging Face `generate` (batched, temperature / top-p, stop at EOS) on
the policy itself, so it needs no weight sync. `harness.rollout.vllm_backend.VLLMBackend` (the optional
`vllm` extra) runs its own engine with its own copy of the weights, which the trainer pushes in
with `sync_weights` after its optimizer steps. Both sit behind the `RolloutBackend` protocol;
`harness.rollout.backends` picks one by name. A rollout batch keeps prompt and response tokens apart: prompts
are left-padded to a common length P, responses right-padded to T. With `SamplingParams.logprobs`
a backend also returns the log-prob of every sampled token under the distribution it was drawn
from (temperature and top-p applied), which the trainer can compare with its own (see
`algorithms.corrections`: truncated importance sampling, stale rollouts).

`sample_messages` is the one place where user messages are wrapped in the model's chat template
and sampled: RL rollouts, held-out accuracy and benchmark evaluation all go through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import torch


@dataclass(frozen=True)
class SamplingParams:
    max_new_tokens: int
    temperature: float = 1.0
    top_p: float = 1.0
    greedy: bool = False
    seed: int | None = None  # seeds this call's sampling (None: the backend's running random state)
    logprobs: bool = False  # also return each sampled token's log-prob (Rollouts.logprobs)
    # with logprobs: the policy's own log-prob at the temperature, before top-p (the trainer's definition:
    # asynchronous rollouts' behaviour policy), not the renormalised nucleus the token was drawn from
    raw_logprobs: bool = False


@dataclass(frozen=True)
class EngineOptions:
    """Settings of a backend that runs its own engine beside the trainer (vLLM). Hugging Face
    `generate` samples from the policy itself and has no use for them."""

    gpu_memory_utilization: float = 0.3  # share of the GPU's memory the engine may take (colocated)
    kv_cache_gb: float | None = None  # KV-cache size (GiB); None: from the memory share on a GPU, 1 on CPU
    tensor_parallel_size: int = 1  # GPUs one engine shards the model over
    dtype: str | None = None  # the engine's compute dtype, e.g. "bfloat16" (None: the policy's dtype)
    seed: int = 0  # the engine's own seed (requests carry theirs)


@dataclass
class Rollouts:
    """N = prompts x group size sequences; row i belongs to prompt `prompt_index[i]`."""

    prompt_ids: torch.Tensor  # [N, P] left-padded prompt tokens
    prompt_mask: torch.Tensor  # [N, P] 1 on real prompt tokens
    response_ids: torch.Tensor  # [N, T] right-padded response tokens
    response_mask: torch.Tensor  # [N, T] 1 on generated tokens up to and including EOS
    truncated: torch.Tensor  # [N] bool: stopped by max_new_tokens, not by EOS
    texts: list[str]  # decoded responses, special tokens removed
    prompt_index: torch.Tensor  # [N] index into the prompt list
    logprobs: torch.Tensor | None = None  # [N, T] sampling log-prob of each response token (0 on padding)

    @property
    def input_ids(self) -> torch.Tensor:  # [N, P + T]
        return torch.cat([self.prompt_ids, self.response_ids], dim=1)

    @property
    def attention_mask(self) -> torch.Tensor:  # [N, P + T]
        return torch.cat([self.prompt_mask, self.response_mask], dim=1)

    def select(self, rows: torch.Tensor) -> Rollouts:
        """The sub-batch of the given row indices (a [K] long tensor)."""
        keep = rows.tolist()
        return Rollouts(
            self.prompt_ids[rows],
            self.prompt_mask[rows],
            self.response_ids[rows],
            self.response_mask[rows],
            self.truncated[rows],
            [self.texts[i] for i in keep],
            self.prompt_index[rows],
            None if self.logprobs is None else self.logprobs[rows],
        )


class RolloutBackend(Protocol):
    def generate(self, prompts: list[str], n: int, params: SamplingParams) -> Rollouts:
        """n completions for each chat-formatted prompt string."""

    def sync_weights(self, model: torch.nn.Module) -> None:
        """Make the engine sample from the current policy weights."""


def chat_prompt(tokenizer, message: str) -> str:
    """The user message wrapped in the model's chat template, ready for generation."""
    return tokenizer.apply_chat_template(
        [{"role": "user", "content": message}], add_generation_prompt=True, tokenize=False
    )


def context_length(model) -> int | None:
    """The longest sequence (prompt + completion, tokens) the model's positions allow, if it says."""
    return getattr(model.config, "max_position_embeddings", None)


class PromptBudget:
    """A test `message -> bool`: does the chat-formatted message fit `budget` tokens (None: any fits)?
    `tokens(message)` counts them and `describe()` says where the budget comes from, for refusals.

    A message with more characters than 64 tokens' worth per position is refused without
    tokenizing it (tokenizing megabytes takes long and no tokenizer packs that much per token)."""

    def __init__(self, tokenizer, budget: int | None, source: str):
        self.tokenizer, self.budget, self.source = tokenizer, budget, source

    def tokens(self, message: str) -> int:
        return len(self.tokenizer(chat_prompt(self.tokenizer, message), add_special_tokens=False).input_ids)

    def __call__(self, message: str) -> bool:
        if self.budget is None:
            return True
        if len(message) > 64 * max(self.budget, 1):
            return False
        return self.tokens(message) <= self.budget

    def describe(self) -> str:
        return f"{self.budget} prompt tokens ({self.source})"


def prompt_fits(model, tokenizer, max_new_tokens: int, max_prompt_tokens: int | None = None) -> PromptBudget:
    """Does the chat-formatted message leave room for `max_new_tokens` in the model's context, and is it
    at most `max_prompt_tokens` long (when given)? The tighter of the two budgets applies."""
    limit = context_length(model)
    context = None if limit is None else limit - max_new_tokens
    if max_prompt_tokens is not None and (context is None or max_prompt_tokens <= context):
        return PromptBudget(tokenizer, max_prompt_tokens, "rollout.max_prompt_tokens")
    return PromptBudget(tokenizer, context, f"the model's {limit}-token context less {max_new_tokens} new tokens")


def response_mask_from_ids(response_ids: torch.Tensor, eos_ids: set[int]) -> tuple[torch.Tensor, torch.Tensor]:
    """Mask tokens up to and including the first EOS; rows without EOS are truncated."""
    is_eos = torch.zeros_like(response_ids, dtype=torch.bool)  # [N, T]
    for eos in eos_ids:
        is_eos |= response_ids == eos
    # Number of EOS seen strictly before each position; a token counts while none was seen.
    seen_before = torch.cumsum(is_eos.long(), dim=1) - is_eos.long()  # [N, T]
    mask = (seen_before == 0).long()  # [N, T]
    truncated = ~is_eos.any(dim=1)  # [N]
    return mask, truncated


def eos_token_ids(model, tokenizer) -> set[int]:
    ids = model.generation_config.eos_token_id
    ids = set(ids if isinstance(ids, list) else [ids]) if ids is not None else set()
    ids.add(tokenizer.eos_token_id)
    return {i for i in ids if i is not None}


class HFGenerateBackend:
    """Rollouts with `model.generate` in chunks of `batch_size` sequences."""

    def __init__(self, model, tokenizer, batch_size: int = 256):
        self.model = model
        self.tokenizer = tokenizer
        self.batch_size = batch_size
        self.eos_ids = eos_token_ids(model, tokenizer)

    def sync_weights(self, model: torch.nn.Module) -> None:
        self.model = model  # generate runs on the live policy: nothing to copy

    @torch.no_grad()
    def generate(self, prompts: list[str], n: int, params: SamplingParams) -> Rollouts:
        tok = self.tokenizer
        tok.padding_side = "left"
        if params.seed is not None:
            torch.manual_seed(params.seed)
        expanded = [p for p in prompts for _ in range(n)]
        index = torch.arange(len(prompts)).repeat_interleave(n)  # [N]
        device = next(self.model.parameters()).device
        enc = tok(expanded, return_tensors="pt", padding=True, add_special_tokens=False)
        pieces, logprob_pieces = [], []
        was_training = self.model.training
        self.model.eval()
        try:
            for start in range(0, len(expanded), self.batch_size):
                ids = enc.input_ids[start : start + self.batch_size].to(device)  # [b, P]
                attn = enc.attention_mask[start : start + self.batch_size].to(device)  # [b, P]
                sampling = {} if params.greedy else {"temperature": params.temperature, "top_p": params.top_p}
                out = self.model.generate(
                    input_ids=ids,
                    attention_mask=attn,
                    max_new_tokens=params.max_new_tokens,
                    do_sample=not params.greedy,
                    top_k=0 if not params.greedy else None,
                    pad_token_id=tok.pad_token_id,
                    eos_token_id=sorted(self.eos_ids),
                    # `scores` are the logits after temperature and top-p (removed tokens at -inf):
                    # their log-softmax is the distribution each token was drawn from. They hold
                    # t_b x [b, V] floats, so ask for them only when the trainer wants them.
                    output_scores=params.logprobs and not params.raw_logprobs,
                    output_logits=params.logprobs and params.raw_logprobs,
                    return_dict_in_generate=True,
                    **sampling,
                )
                new = out.sequences[:, ids.shape[1] :]  # [b, t_b]
                pieces.append(new.cpu())
                if params.logprobs:
                    if params.raw_logprobs:  # the model's logits at the temperature, no nucleus cut
                        scores = torch.stack(out.logits, dim=1).float() / params.temperature  # [b, t_b, V]
                    else:
                        scores = torch.stack(out.scores, dim=1).float()  # [b, t_b, V]
                    logp = scores.log_softmax(-1).gather(-1, new.unsqueeze(-1)).squeeze(-1)  # [b, t_b]
                    logprob_pieces.append(logp.cpu())
        finally:
            self.model.train(was_training)
        width = max(p.shape[1] for p in pieces)
        response = torch.full((len(expanded), width), tok.pad_token_id, dtype=torch.long)  # [N, T]
        logprobs = torch.zeros(response.shape) if params.logprobs else None  # [N, T]
        row = 0
        for i, piece in enumerate(pieces):
            response[row : row + piece.shape[0], : piece.shape[1]] = piece
            if logprobs is not None:
                logprobs[row : row + piece.shape[0], : piece.shape[1]] = logprob_pieces[i]
            row += piece.shape[0]
        mask, truncated = response_mask_from_ids(response, self.eos_ids)
        response = torch.where(mask.bool(), response, torch.full_like(response, tok.pad_token_id))
        if logprobs is not None:
            logprobs = logprobs * mask  # [N, T] finished rows' padding has no log-prob
        texts = tok.batch_decode(response, skip_special_tokens=True)
        return Rollouts(enc.input_ids, enc.attention_mask, response, mask, truncated, texts, index, logprobs)


def sample_messages(
    backend: RolloutBackend, tokenizer, messages: list[str], n: int, params: SamplingParams
) -> Rollouts:
    """n completions for each user message, formatted with the model's chat template."""
    return backend.generate([chat_prompt(tokenizer, m) for m in messages], n, params)
