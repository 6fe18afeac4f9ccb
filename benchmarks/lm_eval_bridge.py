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
"""

import contextlib
import difflib
import logging
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
        described = "; ".join(
            f"{task!r} (did you mean {', '.join(h) or 'nothing close'}?)" for task, h in hints.items()
        )
        raise ValueError(f"unknown lm-eval task(s): {described}; `lm-eval ls tasks` lists them all")
    return manager


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
