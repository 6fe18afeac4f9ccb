"""The `Benchmark` record every evaluation suite is described by, and its row loader.

A benchmark knows where its rows come from (a JSONL file in a local data directory, else a
Hugging Face dataset id when online, or a generator), how to turn a row into a user message,
how to score a completion, and which metrics it reports. Families live in their own modules
(math_competitions, humaneval, livecodebench, ifeval, arithmetic); `registry` lists them.

Local data: `load(data_dir)` reads ``<data_dir>/<file_name>``; without `data_dir` it reads the
directory named by the environment variable HARNESS_BENCHMARK_DIR (see shared/benchmarks/
SOURCES.md for the files and their provenance). The Hub is asked only when that file does not
exist: a local file that is empty, malformed or not UTF-8 is an error, never a reason to
download something else.

Rows are checked when loaded, and a bad one is a `DataError` naming the file and line (or the
Hub dataset and row): a missing or null required field, a blank `nonempty_fields` value (a
math row with ``"answer": null`` or ``""`` would otherwise be graded against the text "None"),
a prompt that cannot be built, or a prompt longer than MAX_PROMPT_CHARS. That cap is a sanity
bound against corrupt files (a 10 MB "problem"), far above any model's context; whether a
prompt fits the model being evaluated is decided later, per model, by the runner's
`prompt_fits` (those rows are skipped and counted, not refused).
"""

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from harness.common.errors import DataError
from harness.common.files import read_jsonl

DATA_DIR_ENV = "HARNESS_BENCHMARK_DIR"
MAX_PROMPT_CHARS = 1_000_000
"""Longest user-message prompt a benchmark row may produce (characters, about 250 K tokens)."""


@dataclass(frozen=True)
class Metric:
    """One per-sample score a benchmark reports (averaged over samples, then problems)."""

    name: str
    higher_is_better: bool = True
    weight: Callable[[dict], float] | None = None
    """Optional per-row weight for the mean over problems (e.g. IFEval's instruction count,
    which turns the mean of per-prompt fractions into the instruction-level micro average)."""


@dataclass(frozen=True)
class Benchmark:
    """A named evaluation set: rows, prompt, grader, metrics. The first metric is the primary
    one: it is the `correct` field of samples.jsonl, gets pass@k, and enters suite averages."""

    name: str
    source: str
    """Hugging Face dataset id (or "generated")."""
    version: str
    """Commit / revision / scheme version of the data."""
    file_name: str | None
    """JSONL file inside the local data directory; None for generated benchmarks."""
    expected_rows: int | None
    """Documented size of the full set (None for generated benchmarks)."""
    required_fields: tuple[str, ...]
    """Fields every row must have, none of them null."""
    make_prompt: Callable[[dict], str]
    """Row -> user-message text (the harness applies the chat template)."""
    grade: Callable[[dict, str], tuple[float | dict, str | None]]
    """(row, completion) -> (score of the primary metric or {metric name: score}, the answer
    the grader extracted from the completion, written to samples.jsonl)."""
    metrics: tuple[Metric, ...]
    reference: Callable[[dict], str | None] = lambda row: None
    nonempty_fields: tuple[str, ...] = ()
    """Required fields that must also hold something: not blank text, not an empty list or
    mapping (e.g. a math problem and its reference answer)."""
    scalar_fields: tuple[str, ...] = ()
    """Required fields read as text: each must be a string or a number, not true / false, a list
    or a mapping (a math answer; JSON's NaN and Infinity never load, see files.read_jsonl)."""
    fetch_online: Callable[[], list[dict]] | None = None
    """Rows from the Hugging Face Hub in this benchmark's schema (used when no local file)."""
    generate: Callable[[int | None, int], list[dict]] | None = None
    """(limit, draw seed) -> rows, for synthetic benchmarks (called with `draw_seed`)."""
    draw_seed: int = 0
    """The fixed seed a synthetic benchmark's problems are drawn with, once: every evaluation seed
    and every Table 1 row sees the same problems (the evaluation seed only drives sampling), so
    paired comparisons run on the whole set. Changing it (or the draw) is a new `version`."""
    same_answer: Callable[[str, str], bool] | None = None
    """(answer a, answer b) -> whether two extracted answers are the same answer, by this benchmark's own
    grader (b graded against a as its reference), for maj@k (`benchmarks.answer_classes`); None: the
    benchmark has no comparable answers (code, instruction following) and reports no maj@k."""
    grade_in_threads: bool = False
    """Grading waits on subprocesses (code): the runner may grade several samples at once."""
    description: str = field(default="", compare=False)

    def load(self, data_dir: str | Path | None = None, limit: int | None = None) -> list[dict]:
        """Rows (the first `limit`), from `data_dir` / $HARNESS_BENCHMARK_DIR, else the Hub; a
        synthetic benchmark's fixed draw (`draw_seed`), the same for every evaluation seed."""
        if self.generate is not None:
            return self.generate(limit, self.draw_seed)
        rows = self._read_local(data_dir)
        if rows is None:
            rows = self._read_online(data_dir)
        return rows[:limit] if limit is not None else rows

    def prompt(self, row: dict) -> str:
        return self.make_prompt(row)

    def judge(self, row: dict, completion: str) -> tuple[dict[str, float], str | None]:
        """({metric name: score}, extracted answer) for one completion."""
        value, extracted = self.grade(row, completion)
        if isinstance(value, dict):
            return {name: float(v) for name, v in value.items()}, extracted
        return {self.metrics[0].name: float(value)}, extracted

    def score(self, row: dict, completion: str) -> dict[str, float]:
        """{metric name: score} for one completion."""
        return self.judge(row, completion)[0]

    @property
    def primary_metric(self) -> Metric:
        return self.metrics[0]

    def _local_path(self, data_dir: str | Path | None) -> Path | None:
        directory = data_dir if data_dir is not None else os.environ.get(DATA_DIR_ENV)
        if not directory or not self.file_name:
            return None
        if not Path(directory).is_dir():  # a mistyped --data-dir must not turn into a download
            origin = "data_dir" if data_dir is not None else f"${DATA_DIR_ENV}"
            raise FileNotFoundError(f"benchmark data directory {directory} ({origin}) is not a folder")
        return Path(directory) / self.file_name

    def _read_local(self, data_dir: str | Path | None) -> list[dict] | None:
        """The local file's rows; None only when there is no local file at all."""
        path = self._local_path(data_dir)
        if path is None or not os.path.lexists(path):
            return None
        what = f"benchmark {self.name}"
        if path.is_dir():
            raise DataError(f"{what} {path}: is a folder, not a JSONL file")
        try:
            rows = read_jsonl(path, required=self.required_fields, what=what)
        except OSError as error:  # unreadable (permissions, I/O): still one line naming the file
            raise DataError(f"{what} {path}: cannot be read ({error.strerror or error})") from None
        problem = self._first_bad_row(rows)
        if problem is not None:
            index, reason = problem
            raise DataError(f"{what} {path}:{_line_number(path, index)}: {reason}")
        repeated = _repeated_id(rows)
        if repeated is not None:
            first, second, name = repeated
            lines = f"{_line_number(path, first)} and {_line_number(path, second)}"
            raise DataError(f"{what} {path}: lines {lines} have the same id {name!r}; every problem needs its own")
        return rows

    def _read_online(self, data_dir: str | Path | None) -> list[dict]:
        path = self._local_path(data_dir)
        local = f"no local file {path}" if path else f"no local directory (pass data_dir or set {DATA_DIR_ENV})"
        if self.fetch_online is None:
            reason = "this benchmark has no online loader"
        elif os.environ.get("HF_HUB_OFFLINE", "0") not in ("0", "", "false", "False"):
            reason = "HF_HUB_OFFLINE is set"
        else:
            try:
                rows = self.fetch_online()
            except Exception as error:  # any Hub / network failure ends in the one-line message below
                reason = f"{type(error).__name__}: {' '.join(str(error).split())}"
            else:
                return self._checked_online_rows(rows)
        raise FileNotFoundError(
            f"cannot load benchmark {self.name!r}: {local}, and the Hugging Face dataset "
            f"{self.source!r} could not be loaded ({reason})"
        )

    def _checked_online_rows(self, rows: list[dict]) -> list[dict]:
        origin = f"benchmark {self.name} {self.source} (Hugging Face)"
        if not rows:
            raise DataError(f"{origin}: the dataset holds no rows")
        for number, row in enumerate(rows, start=1):
            missing = [name for name in self.required_fields if name not in row]
            if missing:
                raise DataError(f"{origin} row {number}: missing field(s) {', '.join(missing)}")
        problem = self._first_bad_row(rows)
        if problem is not None:
            raise DataError(f"{origin} row {problem[0] + 1}: {problem[1]}")
        repeated = _repeated_id(rows)
        if repeated is not None:
            first, second, name = repeated
            raise DataError(f"{origin}: rows {first + 1} and {second + 1} have the same id {name!r}")
        return rows

    def _first_bad_row(self, rows: list[dict]) -> tuple[int, str] | None:
        """(index, what is wrong) of the first row that cannot be evaluated, else None.

        Rows already have every required field (the readers check presence)."""
        for index, row in enumerate(rows):
            nulls = [name for name in self.required_fields if row[name] is None]
            if nulls:
                return index, f"null value in field(s) {', '.join(nulls)}"
            empty = [name for name in self.nonempty_fields if _is_empty(row[name])]
            if empty:
                return index, f"blank value in field(s) {', '.join(empty)}"
            for name in self.scalar_fields:
                value = row[name]
                if isinstance(value, bool) or not isinstance(value, str | int | float):
                    return index, f"field {name} is {json.dumps(value)[:40]}, not text or a number"
            try:
                prompt = self.prompt(row)
            except Exception as error:  # a field of the wrong type: name the row, not a traceback
                return index, f"cannot build the prompt ({type(error).__name__}: {error})"
            if not isinstance(prompt, str):
                return index, f"the prompt is a {type(prompt).__name__}, not text"
            if len(prompt) > MAX_PROMPT_CHARS:
                return index, f"prompt of {len(prompt):,} characters (the limit is {MAX_PROMPT_CHARS:,})"
        return None


def row_id(row: dict):
    """A row's problem id as samples.jsonl records it (`id`, else the code sets' `task_id`, IFEval's `key`,
    LiveCodeBench's `question_id`); None for a row without one."""
    return row.get("id", row.get("task_id", row.get("key", row.get("question_id"))))


def _repeated_id(rows: list[dict]) -> tuple[int, int, str] | None:
    """(first index, second index, id) of the first id two rows share, else None. Scores are keyed by id
    (Table 1's paired differences, the leaderboard's groups, `harness plan`): two problems under one id
    would silently merge into one."""
    seen: dict[str, int] = {}
    for index, row in enumerate(rows):
        name = row_id(row)
        if name is None:
            continue
        key = str(name)  # as the reports key them: 1 and "1" are the same problem there
        if key in seen:
            return seen[key], index, key
        seen[key] = index
    return None


def _is_empty(value) -> bool:
    if isinstance(value, str):
        return not value.strip()
    return isinstance(value, list | dict) and not value


def _line_number(path: Path, row_index: int) -> int:
    """The file line of row `row_index` of read_jsonl(path), which skips blank lines.

    Only called to word an error, so the happy path reads the file once."""
    with open(path, "rb") as lines:
        numbers = [number for number, raw in enumerate(lines, start=1) if raw.decode("utf-8").strip()]
    return numbers[row_index]


def hf_dataset_rows(dataset_id: str, adapt: Callable[[dict, int], dict], config: str | None = None) -> list[dict]:
    """Rows of a Hub dataset (its "test" split, else its only / first split), adapted."""
    from datasets import load_dataset

    splits = load_dataset(dataset_id, config)
    split = "test" if "test" in splits else next(iter(splits))
    return [adapt(dict(row), index) for index, row in enumerate(splits[split])]
