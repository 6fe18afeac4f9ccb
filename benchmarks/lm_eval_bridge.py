"""`--lm-eval TASK` passthrough: run any lm-eval task on a model the harness already loaded.

    results = run_lm_eval(model, tokenizer, ["gsm8k"], limit=50)
    results["results"]["gsm8k"]  # lm-eval's own metric dict

Wraps the in-memory Hugging Face model and tokenizer in lm-eval's HFLM (no reload, no copy)
and calls ``lm_eval.simple_evaluate``. Task data comes from wherever the task config says
(usually the Hugging Face Hub, so offline machines need the datasets in their HF cache);
`include_path` adds a folder of your own task YAMLs (which may read local files).
"""

import difflib
from pathlib import Path


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
    """lm-eval's results dict for `tasks`; unknown task names raise ValueError with suggestions.

    Extra keyword arguments go to ``lm_eval.simple_evaluate`` (num_fewshot, gen_kwargs,
    apply_chat_template, random_seed, ...)."""
    from lm_eval import simple_evaluate
    from lm_eval.models.huggingface import HFLM
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=str(include_path) if include_path else None, include_defaults=include_defaults)
    known = set(manager.all_tasks)
    unknown = [task for task in tasks if task not in known]
    if unknown:
        hints = {task: difflib.get_close_matches(task, known, n=3) for task in unknown}
        described = "; ".join(
            f"{task!r} (did you mean {', '.join(h) or 'nothing close'}?)" for task, h in hints.items()
        )
        raise ValueError(f"unknown lm-eval task(s): {described}; `lm-eval ls tasks` lists them all")
    lm = HFLM(pretrained=model, tokenizer=tokenizer, batch_size=batch_size)
    results = simple_evaluate(model=lm, tasks=list(tasks), limit=limit, task_manager=manager, **kw)
    if results is None:  # lm-eval returns None on non-zero ranks of a distributed run
        return {}
    return dict(results)
