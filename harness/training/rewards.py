"""Rewards for RL: the project's one math grader (Countdown's checker for a countdown task, picked by
the reference answer: `benchmarks.grading.task_grader`), plus optional DAPO overlong shaping.

Grading goes through `benchmarks.grading.math_grader.grade_math_batch`, the same checker evaluation uses,
with the same inputs: each response's problem (so that boxing the problem's own expression,
"\\boxed{\\sqrt{242}}" for "Simplify $\\sqrt{242}$", earns the incorrect reward) and whether it was
cut at max_new_tokens (a cut-off response is graded by its boxes only, never by the
answer-statement fallback). The grader bounds the time a pathological answer can take
(math-verify's own timeouts need the main thread; the batch grader handles threads and worker
processes).

`reward.strict` (default true) picks the grader's mode: strict also refuses arithmetic left undone
(``\\frac{24}{2}`` for 12), a decimal for an exact value and an answer not in the form the question
asks for; lenient credits any equal value. Non-answers (restatements, side-by-side numbers, hedges,
retractions, hidden boxes) are refused in both. The `paper` profile sets it to what the official
recipe's reward does (harness/configs/paper.yaml says which file that is).
"""

from __future__ import annotations

import torch

from harness.schema import RewardConfig


class MathReward:
    """reward = correct / incorrect value, plus DAPO's length penalty when configured."""

    def __init__(self, config: RewardConfig, max_new_tokens: int):
        self.config = config
        self.max_new_tokens = max_new_tokens

    def __call__(
        self,
        texts: list[str],
        answers: list[str],
        lengths: torch.Tensor,
        problems: list[str] | None = None,
        truncated: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Rewards [N] (float) and correctness [N] (bool) of N responses of the given lengths [N].

        `problems[i]` is the user message response i answers (None: the grader cannot check for
        restatement); `truncated` [N] (bool) says which responses stopped at max_new_tokens rather
        than at EOS (the rollouts know; None: not known, the text alone decides)."""
        from benchmarks.grading.task_grader import grade_answers

        correct = torch.tensor(
            grade_answers(
                texts,
                answers,
                timeout_s=self.config.grading_timeout_s,
                problems=problems,
                truncated=None if truncated is None else truncated.tolist(),
                strict=self.config.strict,
            ),
            dtype=torch.bool,
        )  # [N]
        rewards = torch.where(correct, self.config.correct, self.config.incorrect).float()  # [N]
        if self.config.overlong_buffer is not None:
            from algorithms import overlong_penalty

            rewards = rewards + overlong_penalty(lengths, self.max_new_tokens, self.config.overlong_buffer)
        return rewards, correct
