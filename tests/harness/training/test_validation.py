"""harness.training.validation: every `eval_every` steps the live policy is scored and the figures logged."""

from types import SimpleNamespace

from harness.models import load_model
from harness.schema import load_train_config
from harness.tasks import build_task
from harness.training.validation import ValidationCallback


class Recorder:
    def __init__(self):
        self.logged = []

    def log_metrics(self, metrics, step):
        self.logged.append((step, dict(metrics)))


def test_figures_at_the_configured_steps_only(tmp_path):
    config = load_train_config("tiny", None, {"task.heldout_size": 4, "rollout.max_new_tokens": 3})
    policy, tokenizer = load_model("tiny")
    module = SimpleNamespace(
        config=config, policy=policy, tokenizer=tokenizer, task=build_task(config.task), history=[]
    )
    callback = ValidationCallback(2, tmp_path, "arith_l1_compact", limit=3, max_new_tokens=4)
    logger = Recorder()
    for step in range(4):
        module.history.append({"step": step})
        callback.on_train_epoch_end(SimpleNamespace(current_epoch=step, is_global_zero=True, logger=logger), module)
    assert [step for step, _ in logger.logged] == [1, 3]
    figures = logger.logged[0][1]
    assert set(figures) == {"val_heldout_greedy_accuracy", "val_suite_avg", "val_arith_l1_compact_acc"}
    assert all(0.0 <= v <= 1.0 for v in figures.values())
    assert "val_suite_avg" in module.history[1] and "val_suite_avg" not in module.history[0]
    assert (tmp_path / "evals" / "step3" / "results.json").is_file()
