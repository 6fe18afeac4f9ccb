"""sweeps.sweep_figures on a study made here: Optuna's plots are written, and no panel hides another."""

import types
import warnings

import optuna
from optuna.visualization import matplotlib as vis

from sweeps.sweep_figures import _layout, optuna_figures


def grid_study():
    """A finished 3 x 2 grid study whose objective is known: 0.5 - 0.1 beta1 + 0.05 beta2."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    grid = {"loss.beta1": [0.0, 0.5, 1.0], "loss.beta2": [0.5, 1.0]}
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.GridSampler(grid, seed=0))
    study.optimize(
        lambda t: 0.5 - 0.1 * t.suggest_float("loss.beta1", 0, 1) + 0.05 * t.suggest_float("loss.beta2", 0.5, 1),
        n_trials=6,
    )
    return study


def overlaps(a, b) -> bool:
    (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = a.get_position().extents, b.get_position().extents
    return ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1


def test_the_slice_plots_colorbar_stays_beside_its_panels():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        figure = vis.plot_slice(grid_study(), target_name="accuracy gain").flat[0].figure
    _layout(figure)
    axes = figure.axes
    assert len(axes) == 3 and axes[-1].get_label() == "<colorbar>"
    assert not any(overlaps(a, b) for i, a in enumerate(axes) for b in axes[i + 1 :])


def test_a_single_objective_study_gets_history_importances_contour_and_slice(tmp_path):
    paths = optuna_figures(grid_study(), types.SimpleNamespace(objective="accuracy_gain"), tmp_path)
    assert {p.name for p in paths} == {"history.png", "importances.png", "contour.png", "slice.png"}
    assert all(p.stat().st_size > 10_000 for p in paths)  # drawn, not empty canvases
