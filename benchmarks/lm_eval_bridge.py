"""`--lm-eval TASK` passthrough: run any lm-eval task on a model the harness already loaded.

    results = run_lm_eval(model, tokenizer, ["gsm8k"], limit=50)
    results["results"]["gsm8k"]  # lm-eval's own metric dict
    check_lm_eval_tasks(["gsm8k"])  # ValueError for an unknown name, before any model is loaded

Wraps the in-memory Hugging Face model and tokenizer in lm-eval's HFLM (no reload, no copy)
and calls ``lm_eval.simple_evaluate``. Task data comes from wherever the task config says
(usually the Hugging Face Hub, so offline machines need the datasets in their HF cache);
`include_path` adds a folder of your own task YAMLs (which may read local files).

Indexing the tasks logs warnings (a task YAML overriding another, duplicate names) that are
noise for an unknown-name error; they are held back (errors still show).

A task whose scoring code cannot be imported here is refused up front, in one line that says why.
The one known case: the `minerva_math*` tasks (and others that score with sympy's ``parse_latex``)
need antlr4-python3-runtime 4.11, while math-verify, the project's grader, pins 4.13.2, so both
cannot live in one environment. Run those tasks from an environment of their own
(``pip install "lm_eval[math]" "antlr4-python3-runtime==4.11.*" torch transformers`` in a fresh
venv, then ``lm-eval run --model hf ...``), or score MATH-500 with ``--suite math500``.
"""

import contextlib
import difflib
import logging
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path


@contextlib.contextmanager
def _lm_eval_logs_errors_only():
    logger = logging.getLogger("lm_eval")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def check_lm_eval_tasks(tasks: list[str], *, include_path: str | Path | None = None, include_defaults: bool = True):
    """lm-eval's TaskManager when every name in `tasks` is a known task, group or tag.

    Raises ValueError (one line) for no names, a blank name, or unknown names (with the closest
    known ones)."""
    from lm_eval.tasks import TaskManager

    if not tasks:
        raise ValueError("no lm-eval task named; `lm-eval ls tasks` lists them all")
    if not all(task.strip() for task in tasks):
        raise ValueError(f"empty lm-eval task name in {tasks!r} (a stray comma?); `lm-eval ls tasks` lists them all")
    with _lm_eval_logs_errors_only():
        manager = TaskManager(
            include_path=str(include_path) if include_path else None, include_defaults=include_defaults
        )
    known = set(manager.all_tasks)
    unknown = [task for task in tasks if task not in known]
    if unknown:
        hints = {task: difflib.get_close_matches(task, known, n=3) for task in unknown}
        hint_text = {
            task: f"did you mean {', '.join(h)}?" if h else "no task has a close name" for task, h in hints.items()
        }
        described = "; ".join(f"{task!r} ({hint_text[task]})" for task in unknown)
        raise ValueError(f"unknown lm-eval task(s): {described}; `lm-eval ls tasks` lists them all")
    for task in tasks:
        reason = _cannot_score(manager, task)
        if reason:
            raise ValueError(reason)
    return manager


def _antlr_version() -> str:
    try:
        return version("antlr4-python3-runtime")
    except PackageNotFoundError:
        return "none"


def _cannot_score(manager, task: str, depth: int = 0, named: str | None = None) -> str | None:
    """Why `task` (or a task of the group) cannot be scored in this environment, else None: its YAML
    is loaded with its functions, as lm-eval does before running it, so that an import failure of
    the task's own code shows now and not after the model is loaded."""
    entry = manager.task_index.get(task)
    if entry is None or entry.yaml_path is None or depth > 8:
        return None  # a tag, or a task defined in Python: lm-eval itself reports its problems
    subtasks = entry.cfg.get("task") if isinstance(entry.cfg, dict) else None
    if isinstance(subtasks, list):  # a group: its tasks
        reasons = (_cannot_score(manager, sub, depth + 1, named or task) for sub in subtasks if isinstance(sub, str))
        return next((reason for reason in reasons if reason), None)
    try:
        from lm_eval.tasks._yaml_loader import load_yaml
    except ImportError:  # another lm-eval layout: nothing to check ahead
        return None
    try:
        load_yaml(entry.yaml_path, resolve_func=True)
    except (ImportError, AssertionError) as error:
        message = " ".join(str(error).split())
        what = f"lm-eval task {task!r}" if named is None else f"lm-eval group {named!r} (its task {task!r})"
        if "antlr4" in message and not _antlr_version().startswith("4.11"):
            return (
                f"{what} cannot run in this environment: it scores with sympy's parse_latex, which needs "
                f"antlr4-python3-runtime 4.11, and this environment has {_antlr_version()}, pinned by math-verify "
                "(the project's grader); run it from an environment of its own (see benchmarks/lm_eval_bridge.py) "
                "or use --suite math500"
            )
        return f"{what} cannot run in this environment: its code does not import ({message})"
    return None


def run_lm_eval(
    model,
    tokenizer,
    tasks: list[str],
    limit: int | float | None = None,
    batch_size: int = 8,
    *,
    include_path: str | Path | None = None,
    include_defaults: bool = True,
    **kw,
) -> dict:
    """lm-eval's results dict for `tasks`; bad task names raise ValueError (see check_lm_eval_tasks).

    Extra keyword arguments go to ``lm_eval.simple_evaluate`` (num_fewshot, gen_kwargs,
    apply_chat_template, random_seed, ...)."""
    manager = check_lm_eval_tasks(tasks, include_path=include_path, include_defaults=include_defaults)
    from lm_eval import simple_evaluate
    from lm_eval.models.huggingface import HFLM

    lm = HFLM(pretrained=model, tokenizer=tokenizer, batch_size=batch_size)
    results = simple_evaluate(model=lm, tasks=list(tasks), limit=limit, task_manager=manager, **kw)
    if results is None:  # lm-eval returns None on non-zero ranks of a distributed run
        return {}
    return dict(results)
