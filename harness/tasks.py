"""Training tasks: prompts with reference answers, from the arithmetic or Countdown generators, JSONL or
the Hub.

A task hands out the prompts of RL step `s` as a pure function of (seed, s), so a resumed run
sees exactly the data order of an uninterrupted one, and a fixed held-out set that never
overlaps the training prompts (arithmetic, Countdown: by construction of the generator's splits; files
and hub datasets: a seeded split of the rows). A task may also offer `warmstart_batch` (same arguments
as `train_batch`): the problems the supervised warm start learns from, each with its `demonstration`
(Countdown shows only a minority of its training problems' solutions).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from harness.common.errors import ConfigError
from harness.common.files import read_jsonl
from harness.schema import TaskConfig

HELDOUT_SEED = 1234
ARITHMETIC_PROBE = 64  # generated training prompts checked against the prompt budget
PROBE_LIMIT = 10_000  # prompts searched for the shortest in a refusal


@dataclass(frozen=True)
class Problem:
    prompt: str  # the user message, before the chat template
    answer: str  # the reference answer given to the grader
    demonstration: str | None = None  # what the warm start trains on (None: the answer itself)


class Task(Protocol):
    """What training needs from a task (ArithmeticTask, CountdownTask, RowsTask, or your own)."""

    def train_batch(self, step: int, count: int, seed: int) -> list[Problem]:
        """The `count` prompts of RL step `step`: a pure function of (seed, step)."""

    def heldout(self) -> list[Problem]:
        """The fixed held-out problems (never among the training prompts)."""

    def drop_unfit(self, fits: Callable[[str], bool]) -> int:
        """Drop problems whose prompt `fits` refuses; returns how many were dropped."""


def check_generated_prompts(source: str, task: Task, fits: Callable[[str], bool]) -> int:
    """Generated prompts cannot be dropped one by one (a step asks for `count` of them), and those of one
    level and style are about equally long: the held-out set and a sample of training prompts must all
    fit, else the limit is refused (returns 0, nothing dropped)."""
    probe = [p.prompt for p in task.heldout() + task.train_batch(0, ARITHMETIC_PROBE, 0)]
    unfit = sum(not fits(prompt) for prompt in probe)
    if unfit:
        raise ConfigError(f"task.source={source}: {unfit_message(fits, unfit, probe)}")
    return 0


class ArithmeticTask:
    """Seeded synthetic arithmetic (benchmarks.families.arithmetic) with disjoint train / test splits."""

    def __init__(self, config: TaskConfig):
        self.config = config

    def _problems(self, split: str, count: int, seed: int) -> list[Problem]:
        from benchmarks.families.arithmetic import generate_arithmetic

        rows = generate_arithmetic(self.config.level, split, count, seed, style=self.config.style)
        return [Problem(row["problem"] + self.config.suffix, row["answer"]) for row in rows]

    def train_batch(self, step: int, count: int, seed: int) -> list[Problem]:
        return self._problems("train", count, seed * 1_000_003 + step)

    def heldout(self) -> list[Problem]:
        return self._problems("test", self.config.heldout_size, HELDOUT_SEED)

    def drop_unfit(self, fits: Callable[[str], bool]) -> int:
        """Generated prompts: all must fit (check_generated_prompts)."""
        return check_generated_prompts("arithmetic", self, fits)


class CountdownTask:
    """Countdown (benchmarks.families.countdown): `task.level` numbers (3 or 4) to reach a target, in the
    scheme `task.countdown_scheme` (training, warm start and held-out alike); the reference answers are
    the problems' specs, graded by the Countdown checker."""

    def __init__(self, config: TaskConfig):
        from benchmarks.families.countdown import SIZES

        if config.level not in SIZES:
            raise ConfigError(
                f"task.level={config.level} with task.source=countdown: the level is how many numbers a "
                f"problem gives; allowed: {', '.join(map(str, SIZES))}"
            )
        self.config = config

    def _problems(self, split: str, count: int, seed: int, demonstrated: bool = False) -> list[Problem]:
        from benchmarks.families.countdown import generate_countdown

        config = self.config
        rows = generate_countdown(
            split, count, seed, config.level, config.style, demonstrated=demonstrated, scheme=config.countdown_scheme
        )
        return [Problem(row["problem"] + config.suffix, row["answer"], row["solution"]) for row in rows]

    def train_batch(self, step: int, count: int, seed: int) -> list[Problem]:
        return self._problems("train", count, seed * 1_000_003 + step)

    def warmstart_batch(self, step: int, count: int, seed: int) -> list[Problem]:
        """Solved examples from the demonstrated quarter of the training problems only."""
        return self._problems("train", count, seed * 1_000_003 + step, demonstrated=True)

    def heldout(self) -> list[Problem]:
        from benchmarks.families.countdown import DRAW_SEED

        return self._problems("test", self.config.heldout_size, DRAW_SEED)

    def drop_unfit(self, fits: Callable[[str], bool]) -> int:
        """Generated prompts: all must fit, as for arithmetic (check_generated_prompts)."""
        return check_generated_prompts("countdown", self, fits)


class RowsTask:
    """Problems from JSONL rows or a hub dataset; the held-out rows are split off once."""

    def __init__(self, config: TaskConfig, rows: list[dict]):
        self.config = config
        problems = [self._problem(row, i) for i, row in enumerate(rows)]
        random.Random(HELDOUT_SEED).shuffle(problems)
        n_heldout = min(config.heldout_size, len(problems) // 5)
        self._heldout, self._train = problems[:n_heldout], problems[n_heldout:]
        self._check_sizes(len(rows))

    def _check_sizes(self, n_rows: int) -> None:
        if not self._train or not self._heldout:
            raise ConfigError(
                f"task {self.config.path}: {n_rows} usable rows are too few; a fifth of them (at most "
                f"task.heldout_size={self.config.heldout_size}) is held out and the rest trained on, so at least 5 "
                "are needed"
            )

    def _problem(self, row: dict, index: int) -> Problem:
        for key in (self.config.prompt_key, self.config.answer_key):
            value = row.get(key)
            if value is None or (isinstance(value, str) and not value.strip()):
                raise ConfigError(f"task {self.config.path}: row {index + 1} has no field '{key}' (or it is empty)")
            if not isinstance(value, (str, int, float)) or isinstance(value, bool):
                raise ConfigError(
                    f"task {self.config.path}: row {index + 1} field '{key}' is a {type(value).__name__}, "
                    "not text or a number"
                )
        return Problem(str(row[self.config.prompt_key]) + self.config.suffix, str(row[self.config.answer_key]))

    def drop_unfit(self, fits: Callable[[str], bool]) -> int:
        """Drop problems whose prompt does not fit the model's context; returns how many went. When too few
        are left the refusal names the limit that dropped them, not only the count."""
        everything = [p.prompt for p in self._train + self._heldout]
        train = [p for p in self._train if fits(p.prompt)]
        heldout = [p for p in self._heldout if fits(p.prompt)]
        dropped = len(everything) - len(train) - len(heldout)
        if dropped and (not train or not heldout):
            raise ConfigError(f"task {self.config.path}: {unfit_message(fits, dropped, everything)}")
        self._train, self._heldout = train, heldout
        return dropped

    def train_batch(self, step: int, count: int, seed: int) -> list[Problem]:
        # Walk seeded per-epoch permutations, so every row is seen once per epoch.
        n = len(self._train)
        orders: dict[int, list[int]] = {}
        out = []
        for position in range(step * count, (step + 1) * count):
            epoch, offset = divmod(position, n)
            if epoch not in orders:
                orders[epoch] = list(range(n))
                random.Random(seed * 1_000_003 + epoch).shuffle(orders[epoch])
            out.append(self._train[orders[epoch][offset]])
        return out

    def heldout(self) -> list[Problem]:
        return list(self._heldout)


def unfit_message(fits: Callable[[str], bool], unfit: int, prompts: list[str]) -> str:
    """ "U of N prompts do not fit <the budget>; the shortest is T tokens": what refuses a task's prompts.
    `fits` may say its budget (`describe()`) and count a prompt's tokens (`tokens`, harness.rollout.engine)."""
    text = f"{unfit} of {len(prompts)} prompts do not fit"
    describe, tokens = getattr(fits, "describe", None), getattr(fits, "tokens", None)
    if describe is not None:
        text += f" {describe()}"
    if tokens is not None:
        shortest = min(prompts[:PROBE_LIMIT], key=len)  # the fewest characters: about the fewest tokens
        text += f"; the shortest prompt is {tokens(shortest)} tokens once chat-formatted"
    return text


def read_hub_dataset(dataset_id: str, split: str) -> list[dict]:
    import datasets

    try:
        return list(datasets.load_dataset(dataset_id, split=split))
    except Exception as err:  # offline, unknown id, unknown split: all user-facing
        raise ConfigError(f"task.path={dataset_id!r}: cannot load hub dataset ({type(err).__name__})") from None


def build_task(config: TaskConfig) -> Task:
    if config.source == "arithmetic":
        return ArithmeticTask(config)
    if config.source == "countdown":
        return CountdownTask(config)
    if config.source == "jsonl":
        return RowsTask(config, read_jsonl(config.path, what="task.path"))
    return RowsTask(config, read_hub_dataset(config.path, config.split))
