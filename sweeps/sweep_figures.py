"""A finished sweep's figures, saved as PNG in the output folder and as artifacts of the parent run.

Optuna's own matplotlib plots (optimisation history, parameter importances, contour of the two
most important parameters or a slice plot, the Pareto front of a two-objective study), plus, for
a two-parameter grid, heat maps of end entropy and of the held-out accuracy gain over that grid:
the picture behind the paper's claim that larger beta1 lowers entropy and larger beta2 raises it.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import optuna  # noqa: E402
from optuna.trial import TrialState  # noqa: E402

from harness.reports.render.training_figures import save_png  # noqa: E402
from sweeps.config import SweepConfig  # noqa: E402
from sweeps.sweep_report import short  # noqa: E402


def _layout(figure: plt.Figure) -> None:
    """Fit the figure to 8 x 5.5 inches. tight_layout moves every axes but a colorbar that was
    placed beside several panels (Optuna's slice plot), so it would land on the last panel: such a
    figure keeps the layout Optuna gave it."""
    figure.set_size_inches(8, 5.5)
    colorbars = [a for a in figure.axes if a.get_label() == "<colorbar>"]
    if colorbars and len(figure.axes) - len(colorbars) > 1:
        return
    figure.tight_layout()


def _save(axes_or_figure, path: Path) -> Path:
    figure = axes_or_figure if isinstance(axes_or_figure, plt.Figure) else axes_or_figure.figure
    _layout(figure)
    return save_png(figure, path)


def optuna_figures(study: optuna.Study, config: SweepConfig, folder: Path) -> list[Path]:
    from optuna.visualization import matplotlib as vis

    complete = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
    if not complete:
        return []
    names = ["accuracy gain", "end entropy"] if config.objective != "accuracy_gain" else ["accuracy gain"]
    paths = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Optuna marks its matplotlib plots experimental
        params = sorted({k for t in complete for k in t.params})
        if len(names) == 1:
            paths.append(_save(vis.plot_optimization_history(study, target_name=names[0]), folder / "history.png"))
            if len(complete) >= 3 and len(params) >= 2:
                paths.append(_save(vis.plot_param_importances(study), folder / "importances.png"))
            varied = [k for k in params if len({t.params.get(k) for t in complete}) >= 2]
            if len(varied) >= 2:
                contour = vis.plot_contour(study, params=varied[:2], target_name=names[0])
                paths.append(
                    _save(contour.flat[0].figure if hasattr(contour, "flat") else contour, folder / "contour.png")
                )
            paths.append(_save(_first(vis.plot_slice(study, target_name=names[0])), folder / "slice.png"))
        else:
            paths.append(_save(vis.plot_pareto_front(study, target_names=names), folder / "pareto_front.png"))
    return paths


def _first(axes):
    return axes.flat[0] if hasattr(axes, "flat") else axes


def grid_heatmaps(study: optuna.Study, config: SweepConfig, folder: Path) -> list[Path]:
    """End entropy and accuracy gain over a two-key grid (mean over trials at the same point)."""
    grid = config.search_grid() if config.mode == "grid" else {}
    if len(grid) != 2:
        return []
    (x_key, xs), (y_key, ys) = sorted(grid.items())
    trials = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
    paths = []
    for figure_key, label, cmap in (
        ("end_entropy", "end entropy (nats/token)", "viridis"),
        ("accuracy_gain", "held-out accuracy gain", "RdBu"),
    ):
        cells = [[[] for _ in xs] for _ in ys]
        for t in trials:
            if figure_key in t.user_attrs and t.params.get(x_key) in xs and t.params.get(y_key) in ys:
                cells[ys.index(t.params[y_key])][xs.index(t.params[x_key])].append(t.user_attrs[figure_key])
        values = [[sum(c) / len(c) if c else float("nan") for c in row] for row in cells]
        with plt.style.context("default"):  # Optuna's plots switch matplotlib to its ggplot style
            paths.append(_heatmap(values, xs, ys, x_key, y_key, figure_key, label, cmap, config, folder))
    return paths


def _heatmap(values, xs, ys, x_key, y_key, figure_key, label, cmap, config, folder: Path) -> Path:
    fig, ax = plt.subplots()
    norm = matplotlib.colors.CenteredNorm() if figure_key == "accuracy_gain" else None  # white at no change
    image = ax.imshow(values, origin="lower", cmap=cmap, aspect="auto", norm=norm)
    ax.set_xticks(range(len(xs)), [f"{x:g}" for x in xs])
    ax.set_yticks(range(len(ys)), [f"{y:g}" for y in ys])
    ax.set_xlabel(short(x_key))
    ax.set_ylabel(short(y_key))
    for i, row in enumerate(values):
        for j, value in enumerate(row):
            text = "" if value != value else (f"{value:+.3f}" if figure_key == "accuracy_gain" else f"{value:.4f}")
            ax.text(
                j,
                i,
                text,
                ha="center",
                va="center",
                color="k",
                fontsize=10,
                bbox={"boxstyle": "round", "facecolor": "white", "alpha": 0.7, "linewidth": 0},
            )
    fig.colorbar(image, ax=ax, label=label)
    ax.set_title(
        f"{label}\nover {short(x_key)} x {short(y_key)}, {config.seeds_per_trial} seed(s) per point", fontsize=11
    )
    return _save(fig, folder / f"grid_{figure_key}.png")


def save_figures(study: optuna.Study, config: SweepConfig, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    return optuna_figures(study, config, folder) + grid_heatmaps(study, config, folder)
