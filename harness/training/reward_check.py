"""The online reward check: each RL step, a seeded sample of the graded completions goes through the
reward-hack detectors, so a policy learning to game the grader shows up while it trains.

    check = RewardCheck(config.reward, seed=config.run.seed, log_file=run_dir / "reward_suspects.jsonl")
    found = check.run(step, rank, texts, problems, answers, rewards, correct)   # a SuspectSample
    metrics.add_reward_check(found.checked, found.flagged, found.credited)  # the two step metrics
    check.warn(step, values, found, print)    # rank 0, after the step's metrics are reduced over ranks

`reward.suspect_sample` completions (default 32; 0 turns the check off) are drawn without
replacement by a generator of their own, seeded by (run seed, step, rank): the same run checks the
same completions, and the training's random streams are never touched. Each goes through the task's
detectors (`detectors_for`): on maths answers
`benchmarks.grading.reward_hacks.suspect_reasons(completion, problem, reference)` (restatement of the
prompt, approximation, hedge, side-by-side numbers, hidden box, retraction, manipulation, several
answers, an uncommitted box, the wrong kind of answer; pure and under a millisecond each); on
Countdown `benchmarks.grading.countdown_check.countdown_suspects` (unpaid_steps: the expression is
right, the steps written for it are not; paid by design under the lenient reward, so not an escape
there). These step metrics come out of it:

    reward_suspect_frac            flagged / checked
    reward_suspect_credited_frac   flagged AND rewarded as correct / checked: a grader escape (maths)
    reward_suspect_frac_<reason>   flagged for that reason / checked (one per kind of the task's detectors)

Up to three flagged completions per step (the credited ones first) are appended to
`reward_suspects.jsonl` in the run folder ({step, reasons, problem, answer, reference, reward,
credited}), logged as an MLflow artifact when the run ends. The terminal gets one warning line when
reward_suspect_frac passes `reward.suspect_warn` (default 0.25), at most once every 10 steps, and
at every step where a grader escape appears.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.schema import RewardConfig, TaskConfig
from harness.training.run_dir import RolloutLog

EXAMPLES_PER_STEP = 3
WARN_EVERY = 10  # steps between two threshold warnings (a credited suspect is always reported)
ANSWER_CHARS = 400  # the tail of a completion kept in an example
PROBLEM_CHARS = 400


@dataclass(frozen=True)
class Detectors:
    """A task's reward-hack detectors: its reason codes, the function that reads one completion, and what a
    flagged completion the reward still paid is: a grader escape, or a completion the reward pays by design."""

    kinds: tuple[str, ...]
    reasons: Callable[[str, str | None, str], list[str]]  # (completion, problem, reference) -> reason codes
    escapes: bool  # a flagged completion rewarded as correct is a grader escape
    credited_note: str  # the warning's words for those completions


def _math_reasons(text: str, problem: str | None, reference: str) -> list[str]:
    from benchmarks.grading.reward_hacks import suspect_reasons

    return suspect_reasons(text, problem, reference)


def _countdown_reasons(text: str, problem: str | None, reference: str) -> list[str]:
    from benchmarks.grading.countdown_check import countdown_suspects

    return countdown_suspects(text, reference)  # the reference is the spec "countdown:3 5 7>22"


def detectors_for(task: TaskConfig | None, reward: RewardConfig) -> Detectors:
    """The detectors of the task's answers: Countdown's own (its reference is a spec, not a maths answer)
    or the maths ones (every other task)."""
    if task is not None and task.source == "countdown":
        from benchmarks.grading.countdown_check import COUNTDOWN_SUSPECTS

        if reward.strict:  # the strict reward checks the steps, so a credited unpaid_steps is a grader fault
            return Detectors(COUNTDOWN_SUSPECTS, _countdown_reasons, True, "a grader escape")
        note = "the lenient reward pays for the expression only; reward.strict true pays for the steps too"
        return Detectors(COUNTDOWN_SUSPECTS, _countdown_reasons, False, note)
    from benchmarks.grading.reward_hacks import SUSPECT_KINDS

    return Detectors(SUSPECT_KINDS, _math_reasons, True, "a grader escape")


@dataclass
class SuspectSample:
    """What the check found in one step's sample on this rank."""

    checked: int = 0
    flagged: int = 0
    credited: int = 0
    reasons: Counter = field(default_factory=Counter)  # reason code -> flagged completions
    examples: list[dict] = field(default_factory=list)


class RewardCheck:
    """Runs the detectors on a sample of each step's completions (see the module docstring)."""

    def __init__(self, config: RewardConfig, seed: int, log_file: Path | None = None, task: TaskConfig | None = None):
        self.detectors = detectors_for(task, config)
        self.sample_size = config.suspect_sample
        self.threshold = config.suspect_warn
        self.seed = seed
        self.log_file = log_file  # rank 0 only; None elsewhere
        # the file keeps each step once across resumes, as rollouts.jsonl does (RolloutLog.restart_at)
        self.examples_log = RolloutLog(log_file) if log_file is not None else None
        self.last_warning: int | None = None

    @property
    def enabled(self) -> bool:
        return self.sample_size > 0

    def sample(self, step: int, rank: int, count: int) -> list[int]:
        """Indices of the `count` completions checked at `step` on `rank`: a seeded draw without
        replacement, sorted."""
        if not self.enabled or count == 0:
            return []
        draw = random.Random(f"reward-check-{self.seed}-{step}-{rank}")
        return sorted(draw.sample(range(count), min(self.sample_size, count)))

    def run(
        self,
        step: int,
        rank: int,
        texts: Sequence[str],
        problems: Sequence[str | None],
        answers: Sequence[str],
        rewards: Sequence[float],
        correct: Sequence[bool],
    ) -> SuspectSample:
        """Check this step's sample; append its examples to the log file (if any)."""
        found = SuspectSample()
        examples = []
        for i in self.sample(step, rank, len(texts)):
            found.checked += 1
            reasons = self.detectors.reasons(texts[i], problems[i], answers[i])
            if not reasons:
                continue
            credited = bool(correct[i])
            found.flagged += 1
            found.credited += credited
            found.reasons.update(reasons)
            examples.append(
                {
                    "reasons": list(reasons),
                    "problem": _head(problems[i], PROBLEM_CHARS),
                    "answer": _tail(texts[i], ANSWER_CHARS),
                    "reference": answers[i],
                    "reward": float(rewards[i]),
                    "credited": credited,
                }
            )
        examples.sort(key=lambda example: not example["credited"])  # credited (grader escapes) first (stable)
        found.examples = examples[:EXAMPLES_PER_STEP]
        if self.examples_log is not None and found.examples:
            self.examples_log.write(step, found.examples)  # each line {"step": step, **example}
        return found

    def check(self, step: int, rank: int, sampled, rewards, correct, metrics) -> SuspectSample:
        """`run` on a step's rollouts (a StepRollouts, rewards [N], correct [N]); its shares go into the
        step's metrics (harness.training.step_metrics) when the check is on."""
        texts, problems, answers = sampled.rollouts.texts, sampled.problems, sampled.answers
        found = self.run(step, rank, texts, problems, answers, rewards.tolist(), correct.tolist())
        if self.enabled:
            by_reason = {kind: found.reasons[kind] for kind in self.detectors.kinds}  # every kind: ranks reduce alike
            metrics.add_reward_check(found.checked, found.flagged, found.credited, by_reason)
        return found

    def warn(self, step: int, values: dict[str, float], found: SuspectSample, log: Callable[[str], None]) -> None:
        """One terminal line when the step's (rank-reduced) suspect share passes the threshold, at most
        every WARN_EVERY steps, or whenever a grader escape (a suspect rewarded as correct) appeared."""
        share = values.get("reward_suspect_frac", 0.0)
        credited = values.get("reward_suspect_credited_frac", 0.0)
        due = self.last_warning is None or step - self.last_warning >= WARN_EVERY
        if not ((credited > 0 and self.detectors.escapes) or (share > self.threshold and due)):
            return
        self.last_warning = step
        kinds = ", ".join(f"{name} {count}" for name, count in found.reasons.most_common()) or "none on rank 0"
        line = (
            f"reward check: step {step}: {100 * share:.0f}% of the checked completions look like reward hacks ({kinds})"
        )
        if credited > 0:
            line += f"; {100 * credited:.0f}% were rewarded as correct ({self.detectors.credited_note})"
        if self.log_file is not None:
            line += f"; examples in {self.log_file}"
        log(line)


def _head(text: str | None, limit: int) -> str | None:
    return text if text is None or len(text) <= limit else text[:limit] + "…"


def _tail(text: str, limit: int) -> str:
    return text if len(text) <= limit else "…" + text[-limit:]
