"""What a sweep prints when it ends: the trial table, the best trial, and where everything is kept.

Store URLs appear with their password masked (the report is also trials.md and a parent-run artifact).

The table's "group" column ranks the completed trials with noise in mind (`harness.reports.stats.groups`):
by their greedy held-out accuracy after RL, per seed, on the task's held-out problems. Every trial
starts from the same warm start on the same seeds, so that ranks them as the accuracy-gain objective
does. The trial with the best accuracy leads group 1, every trial whose 95% interval of the difference
to it covers 0 joins, and so on; "vs best" is that difference in points. The trials keep an accuracy
per seed, not per problem, so the comparisons are unpaired (conservative) and the note says so.
Trials recorded before the per-seed accuracy was kept get no group."""

from __future__ import annotations

import optuna
from optuna.trial import TrialState

from harness.common.uris import redact
from harness.reports.stats.groups import GroupColumns, bernoulli_scores, group_columns, note
from harness.training.summary import mlflow_ui_hint
from sweeps.config import SweepConfig

FIGURES = [
    ("accuracy_gain", "acc gain", "{:+.3f}"),
    ("accuracy_after", "acc after", "{:.3f}"),
    ("end_entropy", "end H", "{:.4f}"),
    ("min_entropy", "min H", "{:.4f}"),
    ("max_ppo_kl", "max kl", "{:.2e}"),
    ("mean_ppo_kl", "mean kl", "{:.2e}"),
    ("max_grad_norm", "max gn", "{:.2f}"),
    ("grad_norm_spikes", "spikes", "{:.0f}"),
    ("skipped_updates", "skipped", "{:.0f}"),
    ("train_seconds", "train s", "{:.0f}"),
]


def short(key: str) -> str:
    return key.split(".")[-1]


HELDOUT = "held-out"


def trial_groups(trials: list) -> GroupColumns:
    """The significance groups of the completed trials on their held-out accuracy after RL (module docstring)."""
    scores = {}
    for t in trials:
        if t.state != TrialState.COMPLETE or "accuracy_after" not in t.user_attrs:
            continue
        if "accuracy_after_per_seed" not in t.user_attrs or "heldout_problems" not in t.user_attrs:
            continue  # recorded before per-seed values and problem counts were kept: not comparable
        accuracy = dict(enumerate(t.user_attrs["accuracy_after_per_seed"]))
        found = bernoulli_scores(f"trial{t.number}", accuracy, int(t.user_attrs["heldout_problems"]))
        if found:
            scores[str(t.number)] = {HELDOUT: found}
    return group_columns(scores, [HELDOUT]) if len(scores) >= 2 else GroupColumns()


def trial_rows(study: optuna.Study, groups: GroupColumns | None = None) -> tuple[list[str], list[list[str]]]:
    """Header and one row per trial (params, state, group, figures, reason), in trial order."""
    trials = study.get_trials(deepcopy=False)
    keys = sorted({k for t in trials for k in t.params})
    groups = trial_groups(trials) if groups is None else groups
    header = ["trial", "state", "group", "vs best", *map(short, keys), *(name for _, name, _ in FIGURES), "note"]
    rows = []
    for t in trials:
        params = [f"{t.params[k]:.4g}" if k in t.params else "" for k in keys]
        figures = [fmt.format(t.user_attrs[key]) if key in t.user_attrs else "" for key, _, fmt in FIGURES]
        note = t.user_attrs.get("environment_failure") or t.user_attrs.get("failure_reason")
        note = note or t.user_attrs.get("pruned_reason") or ""
        history = t.system_attrs.get("retry_history") or [t.system_attrs.get("failed_trial")]
        if history[-1] is not None:
            note = f"retry of trial {history[-1]}" + (f"; {note}" if note else "")
        group = [groups.group.get(str(t.number), ""), groups.versus.get(str(t.number), "")]
        rows.append([str(t.number), t.state.name, *group, *params, *figures, note[:60]])
    return header, rows


def format_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in rows]
    return "\n".join(line.rstrip() for line in lines)


def best_lines(study: optuna.Study, config: SweepConfig) -> list[str]:
    complete = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
    if not complete:
        return ["best trial: none completed"]
    if config.objective == "accuracy_gain":
        best = study.best_trial
        params = ", ".join(f"{short(k)}={v:.4g}" for k, v in best.params.items())
        return [f"best trial: {best.number} ({params}): held-out accuracy gain {best.value:+.3f}"]
    lines = ["Pareto front (accuracy gain, end entropy):"]
    for t in sorted(study.best_trials, key=lambda t: t.number):
        params = ", ".join(f"{short(k)}={v:.4g}" for k, v in t.params.items())
        lines.append(f"  trial {t.number} ({params}): gain {t.values[0]:+.3f}, end entropy {t.values[1]:.4f}")
    return lines


def sweep_report(study: optuna.Study, config: SweepConfig, parent_run_id: str, figures: list[str]) -> str:
    groups = trial_groups(study.get_trials(deepcopy=False))
    header, rows = trial_rows(study, groups)
    grouping = note(groups, versus="vs best")
    states = {}
    for t in study.get_trials(deepcopy=False):
        states[t.state.name] = states.get(t.state.name, 0) + 1
    steps = config.base_train_config({}, config.seed).run.steps
    lines = [
        f"sweep {config.study_name}: space {config.space}, {config.mode} mode, {config.seeds_per_trial} seed(s) "
        f"per trial, {steps} RL steps per run on the {config.profile} profile",
        "  objective: greedy held-out accuracy after RL minus before"
        + (" and the end entropy (mean over the last steps)" if config.objective != "accuracy_gain" else ""),
        format_table(header, rows),
        *([f"  {grouping}"] if grouping else []),
        "trials: " + ", ".join(f"{n} {s.lower()}" for s, n in sorted(states.items())),
        *best_lines(study, config),
        f"Optuna: study {config.study_name!r} in {redact(config.storage_url)}",
        f"  dashboard: optuna-dashboard {redact(config.storage_url)}",
        f"MLflow: parent run {parent_run_id} in experiment {config.experiment!r} at {redact(config.mlflow_uri)}",
        f"  UI: {redact(mlflow_ui_hint(config.mlflow_uri, None, parent_run_id))}",
    ]
    if figures:
        lines.append("figures: " + ", ".join(figures))
    return "\n".join(lines)
