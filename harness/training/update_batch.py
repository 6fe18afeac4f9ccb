"""`UpdateBatch`: the rows of one rollout batch that the policy updates train on, and their per-row extras.

Built from the step's kept rollouts (`UpdateBatch.from_rollouts`), then split into mini- and
micro-batches with `rows`. `engine_logp` holds the rollout engine's sampling log-probs when the trainer
asked for them: for truncated importance sampling (rollout.tis_cap), or, with rollout.staleness >= 1,
the behaviour policy's log-probs recorded by the rollout worker; the off-policy correction
(algorithms.corrections) says what the loss makes of them.
"""

from __future__ import annotations

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
        return UpdateBatch(
            self.input_ids[index],
            self.attention_mask[index],
            self.prompt_length,
            self.mask[index],
            self.advantages[index],
            None if self.ref_logp is None else self.ref_logp[index],
            None if self.engine_logp is None else self.engine_logp[index],
            None if self.positive is None else self.positive[index],
        )
