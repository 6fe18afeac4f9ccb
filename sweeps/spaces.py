"""Search spaces: what a sweep may vary for each loss, as small named functions.

    space = get_space("ce_gppo")          # a SearchSpace: the loss it trains and its parameters
    space.suggest(trial, ["loss.beta1"])  # {"loss.beta1": 0.43}, through Optuna's trial.suggest_float
    space.default_grid()                  # the paper's beta grid, for grid mode

A parameter is a dotted key of the training config (`loss.beta1`, `optim.lr`), so a sampled value
is applied exactly as the same `--loss.beta1 0.43` flag would be. Every space also offers the
learning rate. Ranges are the ones where the papers' settings sit with room on both sides; the
default grid of a space is what its grid mode runs when the sweep file gives none.

PAPER_BETA_GRID is CE-GPPO's ablation (arXiv 2509.20712, section 4.3): beta1 in {0, 0.25, 0.5,
0.75, 1} x beta2 in {0.5, 0.75, 1}.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

PAPER_BETA_GRID: dict[str, tuple[float, ...]] = {
    "loss.beta1": (0.0, 0.25, 0.5, 0.75, 1.0),
    "loss.beta2": (0.5, 0.75, 1.0),
}


@dataclass(frozen=True)
class Param:
    key: str
    """Dotted training-config key the value is written to."""
    low: float
    high: float
    log: bool = False
    """Sample on a log scale (learning rates)."""
    doc: str = ""
    also: tuple[str, ...] = ()
    """Further keys that get the same value (GSPO's one eps for both sides)."""


@dataclass(frozen=True)
class SearchSpace:
    name: str
    loss: str
    """The loss every trial of this space trains (its `loss.name`)."""
    params: tuple[Param, ...]
    grid: dict[str, tuple[float, ...]] = field(default_factory=dict)
    """The default grid for grid mode (dotted key -> values)."""
    doc: str = ""

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(p.key for p in self.params)

    def param(self, key: str) -> Param:
        for p in self.params:
            if p.key == key:
                return p
        raise KeyError(key)

    def suggest(self, trial, keys: list[str] | tuple[str, ...]) -> dict[str, float]:
        """Training-config overrides: a value for each key from Optuna (the grid sampler answers
        from its grid), copied to the keys that share it."""
        values = {}
        for key in keys:
            p = self.param(key)
            values[key] = trial.suggest_float(key, p.low, p.high, log=p.log)
            values.update(dict.fromkeys(p.also, values[key]))
        return values

    def default_grid(self) -> dict[str, tuple[float, ...]]:
        return dict(self.grid)


LEARNING_RATE = Param("optim.lr", 1e-6, 1e-3, log=True, doc="peak AdamW learning rate")
_SPACES: dict[str, Callable[[], SearchSpace]] = {}


def register_space(function: Callable[[], SearchSpace]) -> Callable[[], SearchSpace]:
    _SPACES[function.__name__] = function
    return function


@register_space
def ce_gppo() -> SearchSpace:
    """CE-GPPO: the gradient scales of the two clipped sides and the clip range.

    beta1 scales the NA&LP gradient (pushes entropy down), beta2 the PA&LP gradient (keeps it up);
    eps_low / eps_high are PPO's clip widths. Default grid: the paper's beta grid."""
    return SearchSpace(
        "ce_gppo",
        "ce_gppo",
        (
            Param("loss.beta1", 0.0, 1.0, doc="NA&LP gradient scale"),
            Param("loss.beta2", 0.0, 1.5, doc="PA&LP gradient scale"),
            Param("loss.eps_low", 0.1, 0.3, doc="lower clip width"),
            Param("loss.eps_high", 0.1, 0.4, doc="upper clip width"),
            LEARNING_RATE,
        ),
        grid=PAPER_BETA_GRID,
        doc=ce_gppo.__doc__,
    )


@register_space
def dapo() -> SearchSpace:
    """DAPO: the clip-higher width eps_high (the paper's 0.28 in the middle)."""
    return SearchSpace(
        "dapo",
        "dapo",
        (Param("loss.eps_high", 0.2, 0.4, doc="upper clip width"), LEARNING_RATE),
        grid={"loss.eps_high": (0.2, 0.24, 0.28, 0.32)},
        doc=dapo.__doc__,
    )


@register_space
def gspo() -> SearchSpace:
    """GSPO: the sequence-ratio clip width, one eps for both sides (the paper's 3e-4 / 4e-4)."""
    return SearchSpace(
        "gspo",
        "gspo",
        (
            Param("loss.eps_high", 1e-4, 1e-3, log=True, doc="sequence-ratio clip width", also=("loss.eps_low",)),
            LEARNING_RATE,
        ),
        grid={"loss.eps_high": (2e-4, 4e-4, 8e-4)},
        doc=gspo.__doc__,
    )


@register_space
def cispo() -> SearchSpace:
    """CISPO: the upper truncation width of the importance weight (weights capped at 1 + eps_high)."""
    return SearchSpace(
        "cispo",
        "cispo",
        (Param("loss.eps_high", 0.1, 5.0, log=True, doc="upper truncation width"), LEARNING_RATE),
        grid={"loss.eps_high": (0.2, 1.0, 4.0)},
        doc=cispo.__doc__,
    )


@register_space
def entropy_reg() -> SearchSpace:
    """Entropy regularisation (around GRPO): the entropy coefficient (the paper's 0.001 / 0.003)."""
    return SearchSpace(
        "entropy_reg",
        "entropy_reg",
        (Param("loss.coef", 1e-4, 1e-2, log=True, doc="entropy coefficient"), LEARNING_RATE),
        grid={"loss.coef": (0.001, 0.003, 0.01)},
        doc=entropy_reg.__doc__,
    )


@register_space
def clip_cov() -> SearchSpace:
    """Clip-Cov: the share of tokens taken out of the gradient and the covariance window they are drawn
    from (the paper's 2e-4 and (1, 5))."""
    return SearchSpace(
        "clip_cov",
        "clip_cov",
        (
            Param("loss.clip_cov_ratio", 5e-5, 5e-2, log=True, doc="share of tokens detached"),
            Param("loss.clip_cov_lb", 0.25, 2.0, doc="lower covariance bound"),
            Param("loss.clip_cov_ub", 2.5, 10.0, doc="upper covariance bound"),
            LEARNING_RATE,
        ),
        grid={"loss.clip_cov_ratio": (2e-4, 2e-3, 2e-2)},
        doc=clip_cov.__doc__,
    )


@register_space
def kl_cov() -> SearchSpace:
    """KL-Cov: the KL coefficient and the top-k share of tokens it applies to (the paper's 1 and 2e-3 / 2e-4)."""
    return SearchSpace(
        "kl_cov",
        "kl_cov",
        (
            Param("loss.coef", 0.05, 5.0, log=True, doc="KL penalty weight"),
            Param("loss.kl_cov_ratio", 5e-5, 5e-2, log=True, doc="top-k share of tokens penalised"),
            LEARNING_RATE,
        ),
        grid={"loss.kl_cov_ratio": (2e-4, 2e-3, 2e-2)},
        doc=kl_cov.__doc__,
    )


@register_space
def gppo_erc() -> SearchSpace:
    """ERC (gppo_erc): the entropy-ratio band (entropy_mask_low, entropy_mask_high) outside which a token gets no
    gradient. The released recipes use 0.95 / 1.05, the code's config 0.8 / 1.2; the grid spans both."""
    return SearchSpace(
        "gppo_erc",
        "gppo_erc",
        (
            Param("loss.entropy_mask_low", 0.7, 0.99, doc="lower bound of the entropy ratio H / H_old"),
            Param("loss.entropy_mask_high", 1.01, 1.3, doc="upper bound of the entropy ratio H / H_old"),
            LEARNING_RATE,
        ),
        grid={"loss.entropy_mask_low": (0.8, 0.9, 0.95), "loss.entropy_mask_high": (1.05, 1.1, 1.2)},
        doc=gppo_erc.__doc__,
    )


SPACES: tuple[str, ...] = tuple(_SPACES)


def get_space(name: str) -> SearchSpace:
    if name not in _SPACES:
        raise ValueError(f"unknown search space {name!r}; valid: {', '.join(_SPACES)}")
    return _SPACES[name]()
