"""Accuracy on a task's held-out problems: the before / after figure of every run.

    heldout_report(model, tokenizer, task, config.rollout)
    # {"greedy_accuracy": 0.62, "sampled_accuracy": 0.55}

Each problem gets one answer, greedy or sampled at the rollout temperature, graded by the
project's one math grader (Countdown's checker for countdown references) with the same inputs as
the RL reward (the problem text, and whether the answer was cut at max_new_tokens). The held-out
problems never appear among the training prompts (`harness.tasks`).
"""

from __future__ import annotations

from benchmarks.grading.task_grader import grade_answers
from harness.rollout.engine import HFGenerateBackend, SamplingParams, sample_messages
from harness.schema import RolloutConfig
from harness.tasks import Problem, Task


def heldout_accuracy(
    model, tokenizer, problems: list[Problem], max_new_tokens: int, *, greedy: bool, temperature: float = 1.0
) -> float:
    """Fraction of held-out problems answered correctly (one greedy or sampled answer each)."""
    backend = HFGenerateBackend(model, tokenizer)
    params = SamplingParams(max_new_tokens, temperature, greedy=greedy)
    rollouts = sample_messages(backend, tokenizer, [p.prompt for p in problems], 1, params)
    problem_of_row = [problems[i].prompt for i in rollouts.prompt_index.tolist()]
    answer_of_row = [problems[i].answer for i in rollouts.prompt_index.tolist()]
    correct = grade_answers(
        rollouts.texts, answer_of_row, problems=problem_of_row, truncated=rollouts.truncated.tolist()
    )
    return sum(correct) / max(len(correct), 1)


def heldout_report(model, tokenizer, task: Task, rollout: RolloutConfig) -> dict[str, float]:
    """Greedy and sampled (at the rollout temperature) accuracy on the task's held-out problems."""
    problems = task.heldout()
    args = (model, tokenizer, problems, rollout.max_new_tokens)
    return {
        "greedy_accuracy": heldout_accuracy(*args, greedy=True),
        "sampled_accuracy": heldout_accuracy(*args, greedy=False, temperature=rollout.temperature),
    }
