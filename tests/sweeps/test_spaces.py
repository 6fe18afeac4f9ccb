"""sweeps.spaces: every named space, the paper's beta grid, suggestions through Optuna."""

import optuna
import pytest

from algorithms import get_loss
from sweeps.spaces import PAPER_BETA_GRID, SPACES, get_space


def test_the_spaces_the_issue_names():
    assert set(SPACES) == {"ce_gppo", "dapo", "gspo", "cispo", "entropy_reg", "clip_cov", "kl_cov", "gppo_erc"}
    assert set(get_space("ce_gppo").keys) == {"loss.beta1", "loss.beta2", "loss.eps_low", "loss.eps_high", "optim.lr"}
    assert all("optim.lr" in get_space(name).keys for name in SPACES)
    with pytest.raises(ValueError, match="unknown search space 'ppo'; valid: ce_gppo, dapo"):
        get_space("ppo")


def test_paper_grid_is_15_points_and_ce_gppos_default():
    assert PAPER_BETA_GRID == {"loss.beta1": (0.0, 0.25, 0.5, 0.75, 1.0), "loss.beta2": (0.5, 0.75, 1.0)}
    assert get_space("ce_gppo").default_grid() == PAPER_BETA_GRID


@pytest.mark.parametrize("name", ["ce_gppo", "dapo", "gspo", "cispo", "entropy_reg", "clip_cov", "kl_cov", "gppo_erc"])
def test_every_suggestion_builds_its_loss(name):
    space = get_space(name)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    for _ in range(20):
        trial = study.ask()
        values = space.suggest(trial, space.keys)
        params = {k.removeprefix("loss."): v for k, v in values.items() if k.startswith("loss.")}
        get_loss(space.loss, **params)  # every sampled value is a valid hyper-parameter
        assert 1e-6 <= values["optim.lr"] <= 1e-3
        for key, values_grid in space.default_grid().items():
            p = space.param(key)
            assert all(p.low <= v <= p.high for v in values_grid)
        study.tell(trial, 0.0)


def test_gspo_uses_one_eps_for_both_sides():
    trial = optuna.create_study().ask()
    values = get_space("gspo").suggest(trial, ["loss.eps_high"])
    assert values["loss.eps_low"] == values["loss.eps_high"]
