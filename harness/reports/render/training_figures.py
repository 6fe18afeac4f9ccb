"""The paper's figures, from the per-step histories of the runs (PNG).

    figure 2   entropy over steps per algorithm (table1 rows)
    figure 3   entropy over steps across the beta grid (the CE-GPPO rows)
    figure 4   ppo_kl and gradient norm over steps (table1 rows)
    figure 5   entropy regularisation against CE-GPPO
    figure 6   the beta stage switch against constant betas
    accuracy   held-out greedy accuracy over training: before RL, every run.eval_every steps, after RL
    staleness  the staleness rows (--rows staleness): entropy, the loss's clip fractions by side and the
               tokens staleness alone pushes out of the clip range, for GRPO and CE-GPPO(0.5,1) at K = 0, 1, 4

Lines are the mean over seeds of a moving average (window `SMOOTH` steps, said on the axis);
the band spans the lowest to the highest seed. Every algorithm keeps one colour in every figure.
A curve of few points (a sparse metric, a short run) is drawn with a marker on each measured
point, so that one or two measurements never leave empty axes. A figure whose rows did not run is
not drawn; the accuracy figure's absence is explained in the report (`notes`).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from harness.common.files import atomic_file  # noqa: E402
from harness.reports.table1.rows import ROWS  # noqa: E402

SMOOTH = 10
MARKED = 12  # curves of at most this many points get a marker on each point
ACCURACY = "val_heldout_greedy_accuracy"
# One distinct colour per row: tab10 first, then the darker half of tab20 for the ablation rows.
_PALETTE = list(plt.get_cmap("tab10").colors) + list(plt.get_cmap("tab20b").colors[::4]) + ["black", "gold"]
COLOURS = dict(zip((r.label for r in ROWS), _PALETTE))

Histories = dict[str, dict[int, list[dict]]]  # row label -> seed -> per-step history


def colour(label: str):
    """The row's colour; other labels (leaderboard groups) get a stable one from their text."""
    if label in COLOURS:
        return COLOURS[label]
    palette = plt.get_cmap("tab10").colors
    return palette[sum(map(ord, label)) % len(palette)]


def _smooth(values: np.ndarray, window: int) -> np.ndarray:
    if window <= 1 or len(values) < window:
        return values
    kernel = np.ones(window) / window
    head = np.array([values[: i + 1].mean() for i in range(window - 1)])
    return np.concatenate([head, np.convolve(values, kernel, mode="valid")])


def _curves(histories: Histories, label: str, key: str, window: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(steps, [seeds, steps] smoothed values) of `key`; sparse keys keep their own steps."""
    runs = [[(h["step"], h[key]) for h in history if key in h] for history in histories.get(label, {}).values()]
    runs = [r for r in runs if r]
    if not runs:
        return None
    length = min(len(r) for r in runs)
    steps = np.array([step for step, _ in runs[0][:length]])
    values = np.array([_smooth(np.asarray([v for _, v in r[:length]], float), window) for r in runs])
    return steps, values


def _plot(ax, histories: Histories, labels: list[str], key: str, window: int = SMOOTH) -> int:
    drawn = 0
    for label in labels:
        curves = _curves(histories, label, key, window)
        if curves is None:
            continue
        steps, values = curves
        marker = "o" if len(steps) <= MARKED else None
        ax.plot(
            steps,
            values.mean(0),
            color=colour(label),
            label=f"{label} ({len(values)} seed{'s' * (len(values) != 1)})",
            linewidth=1.6,
            marker=marker,
            markersize=4,
        )
        ax.fill_between(steps, values.min(0), values.max(0), color=colour(label), alpha=0.15, linewidth=0)
        drawn += 1
    return drawn


def save_png(fig, path: Path) -> Path:
    """Write `fig` as a PNG to a temporary sibling renamed over `path` (a symlink there is replaced, never
    written through; a failed write leaves the old figure), and close it."""
    try:
        with atomic_file(path, "wb") as sink:
            fig.savefig(sink, format="png", dpi=110)
    finally:
        plt.close(fig)
    return path


def _finish(fig, ax, title: str, ylabel: str, path: Path, window: int = SMOOTH, xlabel: str = "RL step") -> Path:
    ax.set_title(title, fontsize=11)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"{ylabel}, {window}-step moving average" if window > 1 else ylabel)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save_png(fig, path)


def line_figure(
    histories: Histories,
    labels: list[str],
    key: str,
    ylabel: str,
    title: str,
    path: Path,
    window: int = SMOOTH,
    xlabel: str = "RL step",
) -> Path | None:
    fig, ax = plt.subplots(figsize=(8, 5))
    if _plot(ax, histories, labels, key, window) < 2:  # a comparison needs two curves
        plt.close(fig)
        return None
    return _finish(fig, ax, title, ylabel, path, window, xlabel)


Heldout = dict[str, dict[int, dict]]  # row label -> seed -> {"before", "after", "steps"} (held-out greedy accuracy)


def accuracy_series(histories: Histories, heldout: Heldout | None) -> Histories:
    """Every measurement of held-out greedy accuracy per run, against the RL steps completed: before RL
    (0), each validation (a validation after step index s has s + 1 steps done) and after RL (the
    steps the run completed). All three are the same measurement (greedy answers to the task's held-out
    problems), so they belong on one curve; a later value at the same step replaces an earlier one."""
    series: Histories = {}
    for label in set(histories) | set(heldout or {}):
        for seed in set(histories.get(label, {})) | set((heldout or {}).get(label, {})):
            points: dict[int, float] = {}
            ends = (heldout or {}).get(label, {}).get(seed, {})
            if ends.get("before") is not None:
                points[0] = ends["before"]
            for entry in histories.get(label, {}).get(seed, []):
                if ACCURACY in entry:
                    points[entry["step"] + 1] = entry[ACCURACY]
            if ends.get("after") is not None and ends.get("steps"):
                points[ends["steps"]] = ends["after"]
            if points:
                series.setdefault(label, {})[seed] = [{"step": s, ACCURACY: v} for s, v in sorted(points.items())]
    return series


def accuracy_figure(histories: Histories, heldout: Heldout | None, labels: list[str], path: Path, notes: list):
    """The accuracy-over-training figure, or None with the reason appended to `notes`."""
    series = accuracy_series(histories, heldout)
    measured = [label for label in labels if label in series]
    if len(measured) < 2:
        notes.append(
            "Accuracy over training is not drawn: held-out accuracy was measured for "
            f"{len(measured)} of the rows ({', '.join(measured) or 'none'}); a comparison needs two"
        )
        return None
    return line_figure(
        series,
        measured,
        ACCURACY,
        "held-out greedy accuracy (fraction correct)",
        "Accuracy over training (each point measured: before RL, every validation, after RL)",
        path,
        window=1,
        xlabel="RL steps completed",
    )


def stability_figure(histories: Histories, labels: list[str], path: Path) -> Path | None:
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    if _plot(axes[0], histories, labels, "ppo_kl") < 2:
        plt.close(fig)
        return None
    _plot(axes[1], histories, labels, "grad_norm_max")
    for ax, ylabel in zip(axes, ("ppo_kl (mean of old - new log-prob, nats)", "largest gradient norm of the step")):
        ax.set_xlabel("RL step")
        ax.set_ylabel(f"{ylabel}, {SMOOTH}-step avg", fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle("Figure 4: KL to the behaviour policy and gradient norm", fontsize=11)
    fig.tight_layout()
    return save_png(fig, path)


STALENESS_STYLES = {0: "-", 1: "--", 4: ":"}
STALENESS_PANELS = (
    ("entropy", "entropy (nats/token)"),
    ("clip_frac_low", "loss clip fraction, A < 0 side"),
    ("clip_frac_high", "loss clip fraction, A > 0 side"),
    ("behaviour_out_low", "pi_prox/pi_behav < 1 - eps_low, A < 0"),
)


def staleness_figure(histories: Histories, path: Path) -> Path | None:
    """GRPO and CE-GPPO(0.5,1) at K = 0, 1, 4: one colour per loss, one line style per K."""
    rows = [
        (f"{loss} K={k}" if k else loss, loss, k)
        for loss in ("GRPO", "CE-GPPO(0.5,1)")
        for k in STALENESS_STYLES
        if (f"{loss} K={k}" if k else loss) in histories
    ]
    if not any(k for _, _, k in rows):
        return None
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    for ax, (key, ylabel) in zip(axes.flat, STALENESS_PANELS):
        for label, loss, k in rows:
            curves = _curves(histories, label, key, SMOOTH)
            if curves is None:
                continue
            steps, values = curves
            ax.plot(steps, values.mean(0), color=colour(loss), linestyle=STALENESS_STYLES[k], linewidth=1.5,
                    label=f"{loss} K={k} ({len(values)} seed{'s' * (len(values) != 1)})")  # fmt: skip
        ax.set_xlabel("RL step")
        ax.set_ylabel(f"{ylabel}, {SMOOTH}-step avg", fontsize=9)
        ax.grid(alpha=0.3)
    axes.flat[0].legend(fontsize=8)
    fig.suptitle("Staleness: K updates between the generating and the updated policy (seed means)", fontsize=11)
    fig.tight_layout()
    return save_png(fig, path)


def paper_figures(
    histories: Histories, folder: Path, heldout: Heldout | None = None, notes: list | None = None
) -> list[Path]:
    """Every figure whose rows ran; returns the files written. `heldout` adds the before / after RL
    accuracy to the accuracy figure; why a figure is left out goes to `notes`."""
    notes = [] if notes is None else notes
    folder.mkdir(parents=True, exist_ok=True)
    ran = [label for label in COLOURS if label in histories]
    main = [r for r in ("GRPO", "DAPO", "CE-GPPO(0.5,1)", "CE-GPPO(0.75,1)", "CISPO", "GSPO", "GPPO") if r in ran]
    betas = [r for r in ran if r.startswith("CE-GPPO(") and "->" not in r]
    entropy = [r for r in ("GRPO", "GRPO+entropy(0.001)", "GRPO+entropy(0.003)", "CE-GPPO(0.5,1)") if r in ran]
    switch = [r for r in ("CE-GPPO(0,1)", "CE-GPPO(0.5,1)", "CE-GPPO(0->0.5)") if r in ran]
    entropy_axis = "entropy (nats/token)"
    made = [
        line_figure(
            histories, main, "entropy", entropy_axis, "Figure 2: entropy over training", folder / "fig2_entropy.png"
        ),
        line_figure(
            histories,
            betas,
            "entropy",
            entropy_axis,
            "Figure 3: entropy across the beta grid",
            folder / "fig3_beta_grid_entropy.png",
        ),
        stability_figure(histories, main, folder / "fig4_kl_grad_norm.png"),
        line_figure(
            histories,
            entropy,
            "entropy",
            entropy_axis,
            "Figure 5: entropy regularisation vs CE-GPPO",
            folder / "fig5_entropy_reg.png",
        )
        if len(entropy) > 2
        else None,
        line_figure(
            histories,
            switch,
            "entropy",
            entropy_axis,
            "Figure 6: beta1 switched 0 -> 0.5 half-way",
            folder / "fig6_beta_switch.png",
        )
        if "CE-GPPO(0->0.5)" in switch
        else None,
        accuracy_figure(histories, heldout, main, folder / "accuracy.png", notes),
        staleness_figure(histories, folder / "staleness.png"),
    ]
    return [p for p in made if p is not None]
