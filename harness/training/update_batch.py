"""`UpdateBatch`: the rows of one rollout batch that the policy updates train on, and their per-row extras.

Built from the step's kept rollouts (`UpdateBatch.from_rollouts`), then split into mini- and
micro-batches with `rows`. `engine_logp` holds the rollout engine's sampling log-probs when the trainer
asked for them: for truncated importance sampling (rollout.tis_cap), or, with rollout.staleness >= 1,
the behaviour policy's log-probs recorded by the rollout worker; the off-policy correction
(algorithms.corrections) says what the loss makes of them. `old_entropy` and `entropy_gate` come from
the trainer's no-grad pass at the step's start, when the loss (ERC) or algo.top_entropy_quantile needs them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import torch

from harness.rollout.engine import Rollouts


@dataclass(frozen=True)
class UpdateBatch:
    """The K kept sequences of one rollout batch, as the policy updates consume them."""

    input_ids: torch.Tensor  # [K, P + T] prompt (left-padded) then response (right-padded)
    attention_mask: torch.Tensor  # [K, P + T]
    prompt_length: int  # P
    mask: torch.Tensor  # [K, T] float: 1 on response tokens that count
    advantages: torch.Tensor  # [K]
    ref_logp: torch.Tensor | None = None  # [K, T] reference policy (KL penalty), None without one
    engine_logp: torch.Tensor | None = None  # [K, T] the rollout engine's sampling log-probs, if asked for
    positive: torch.Tensor | None = None  # [K] bool: rewarded rows (the NLL-on-positives term), if used
    old_entropy: torch.Tensor | None = None  # [K, T] the policy's entropy at the step's start (ERC, 80/20 rule)
    entropy_gate: torch.Tensor | None = None  # [K, T] float: 1 on the top-entropy tokens (80/20 rule), if used

    @staticmethod
    def from_rollouts(
        rollouts: Rollouts, advantages: torch.Tensor, positive: torch.Tensor | None = None
    ) -> UpdateBatch:
        return UpdateBatch(
            rollouts.input_ids,
            rollouts.attention_mask,
            rollouts.prompt_ids.shape[1],
            rollouts.response_mask.float(),
            advantages,
            engine_logp=rollouts.logprobs,
            positive=positive,
        )

    @property
    def positive_mask(self) -> torch.Tensor:
        """[K, T] the response tokens of the rewarded rows (all 0 without `positive`)."""
        if self.positive is None:
            return torch.zeros_like(self.mask)
        return self.mask * self.positive.unsqueeze(-1).to(self.mask.dtype)

    def __len__(self) -> int:
        return len(self.advantages)

    def rows(self, index: torch.Tensor) -> UpdateBatch:
        """The sub-batch of the given row indices (a [k] long tensor)."""
        sliced = {
            f.name: value if value is None or f.name == "prompt_length" else value[index]
            for f in dataclasses.fields(self)
            for value in (getattr(self, f.name),)
        }
        return UpdateBatch(**sliced)
