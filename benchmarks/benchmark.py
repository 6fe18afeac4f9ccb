"""The `Benchmark` record every evaluation suite is described by, and its row loader.

A benchmark knows where its rows come from (a JSONL file in a local data directory, else a
Hugging Face dataset id when online, or a generator), how to turn a row into a user message,
how to score a completion, and which metrics it reports. Families live in their own modules
(math_competitions, humaneval, livecodebench, ifeval, arithmetic); `registry` lists them.

Local data: `load(data_dir)` reads ``<data_dir>/<file_name>``; without `data_dir` it reads the
directory named by the environment variable HARNESS_BENCHMARK_DIR (see shared/benchmarks/
SOURCES.md for the files and their provenance).
"""

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

DATA_DIR_ENV = "HARNESS_BENCHMARK_DIR"


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
    make_prompt: Callable[[dict], str]
    """Row -> user-message text (the harness applies the chat template)."""
    grade: Callable[[dict, str], tuple[float | dict, str | None]]
    """(row, completion) -> (score of the primary metric or {metric name: score}, the answer
    the grader extracted from the completion, written to samples.jsonl)."""
    metrics: tuple[Metric, ...]
    reference: Callable[[dict], str | None] = lambda row: None
    fetch_online: Callable[[], list[dict]] | None = None
    """Rows from the Hugging Face Hub in this benchmark's schema (used when no local file)."""
    generate: Callable[[int | None, int], list[dict]] | None = None
    """(limit, seed) -> rows, for synthetic benchmarks."""
    grade_in_threads: bool = False
    """Grading waits on subprocesses (code): the runner may grade several samples at once."""
    description: str = field(default="", compare=False)

    def load(self, data_dir: str | Path | None = None, limit: int | None = None, seed: int = 0) -> list[dict]:
        """Rows (the first `limit`), from `data_dir` / $HARNESS_BENCHMARK_DIR, else the Hub."""
        if self.generate is not None:
            return self.generate(limit, seed)
        rows = self._read_local(data_dir) or self._read_online(data_dir)
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
        return Path(directory) / self.file_name if directory and self.file_name else None

    def _read_local(self, data_dir: str | Path | None) -> list[dict] | None:
        path = self._local_path(data_dir)
        if path is None or not path.is_file():
            return None
        return read_jsonl(path, self.required_fields)

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
            except Exception as error:  # any Hub / network failure ends in the message below
                reason = f"{type(error).__name__}: {error}"
            else:
                return check_rows(rows, self.required_fields, f"{self.source} (Hugging Face)")
        raise FileNotFoundError(
            f"cannot load benchmark {self.name!r}: {local}, and the Hugging Face dataset "
            f"{self.source!r} could not be loaded ({reason})"
        )


def hf_dataset_rows(dataset_id: str, adapt: Callable[[dict, int], dict], config: str | None = None) -> list[dict]:
    """Rows of a Hub dataset (its "test" split, else its only / first split), adapted."""
    from datasets import load_dataset

    splits = load_dataset(dataset_id, config)
    split = "test" if "test" in splits else next(iter(splits))
    return [adapt(dict(row), index) for index, row in enumerate(splits[split])]


def check_rows(rows: list[dict], required_fields: tuple[str, ...], origin: str) -> list[dict]:
    for number, row in enumerate(rows, start=1):
        missing = [name for name in required_fields if name not in row]
        if missing:
            raise ValueError(f"{origin}: row {number} lacks field(s) {', '.join(missing)}")
    return rows


def read_jsonl(path: Path, required_fields: tuple[str, ...]) -> list[dict]:
    """One JSON object per line; a malformed line names the file, the line and the problem."""
    rows = []
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number}: not valid JSON ({error.msg})") from None
            if not isinstance(row, dict):
                raise ValueError(f"{path}:{number}: expected a JSON object, got {type(row).__name__}")
            missing = [name for name in required_fields if name not in row]
            if missing:
                raise ValueError(f"{path}:{number}: missing field(s) {', '.join(missing)}")
            rows.append(row)
    return rows
