"""Registry, defaults, validation of hyper-parameters, and properties every loss shares."""

import dataclasses
import math

import pytest
import torch

from algorithms import LOSSES, LossOutput, PolicyBatch, aggregate, get_loss, loss_params

CLIP_METRICS = {"clip_frac", "clip_frac_high", "clip_frac_low", "ppo_kl", "ratio_mean", "ratio_max"}


def test_registered_names():
    assert set(LOSSES) == {
        *("grpo", "dapo", "cispo", "gspo", "gppo", "ce_gppo", "entropy_reg"),
        *("clip_cov", "kl_cov", "geo_mean", "sapo", "grpo_erc", "gppo_erc"),
    }
    assert all(get_loss(name).name == name for name in LOSSES)


def test_the_names_help_lists_without_torch_are_the_owners_own():
    """algorithms.names states them so that `--help` imports no torch; each list must be its owner's."""
    import subprocess
    import sys

    from algorithms import AGG_MODES, KL_ESTIMATORS, registered_losses
    from algorithms.names import AGG_MODES as STATED_AGG_MODES
    from algorithms.names import KL_ESTIMATOR_NAMES, LOSS_NAMES

    assert LOSS_NAMES == LOSSES and set(LOSS_NAMES) <= set(registered_losses())
    assert STATED_AGG_MODES == AGG_MODES and KL_ESTIMATOR_NAMES == tuple(KL_ESTIMATORS)
    probe = "import sys, algorithms, algorithms.names; print('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout == "False\n"


def test_unknown_loss_lists_valid_names():
    with pytest.raises(ValueError, match="unknown loss 'ppo'") as err:
        get_loss("ppo")
    assert all(name in str(err.value) for name in LOSSES)


def test_unknown_parameter_lists_valid_ones():
    with pytest.raises(ValueError, match="beta1") as err:
        get_loss("grpo", beta1=0.5)
    assert "eps_low, eps_high, clip_ratio_c" in str(err.value)


def test_loss_params_reports_defaults():
    assert loss_params("ce_gppo") == {
        "eps_low": 0.2,
        "eps_high": 0.2,
        "beta1": 0.5,
        "beta2": 1.0,
        "clip_ratio_c": 10.0,
    }
    assert loss_params("grpo") == {"eps_low": 0.2, "eps_high": 0.2, "clip_ratio_c": None}


def test_losses_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        get_loss("ce_gppo").beta1 = 2.0


@pytest.mark.parametrize(
    "name, param, value, allowed",
    [
        ("grpo", "eps_low", 0.0, "(0, 1)"),
        ("grpo", "eps_low", 1.0, "(0, 1)"),
        ("grpo", "eps_high", -0.1, "(0, 1)"),
        ("grpo", "eps_low", "0.2", "a number"),
        ("grpo", "clip_ratio_c", 1.0, "(1, inf)"),
        ("grpo", "clip_ratio_c", 0.5, "(1, inf)"),
        ("dapo", "eps_high", 1.5, "(0, 1)"),
        ("dapo", "clip_ratio_c", math.inf, "(1, inf)"),
        ("gspo", "eps_low", 0, "(0, 1)"),
        ("cispo", "eps_high", 0.0, "(0, inf)"),
        ("cispo", "eps_low", -1.0, "(0, inf)"),
        ("ce_gppo", "beta1", -0.1, "[0, inf)"),
        ("ce_gppo", "beta2", math.nan, "[0, inf)"),
        ("ce_gppo", "beta1", True, "a number"),
        ("ce_gppo", "clip_ratio_c", 1.0, "(1, inf)"),
        ("gppo", "eps_high", 1.0, "(0, 1)"),
        ("entropy_reg", "coef", -1e-3, "[0, inf)"),
    ],
)
def test_bad_hyper_parameters_raise(name, param, value, allowed):
    with pytest.raises(ValueError) as err:
        get_loss(name, **{param: value})
    assert param in str(err.value) and allowed in str(err.value)


def test_cispo_accepts_large_eps():
    loss_fn = get_loss("cispo", eps_low=5.0, eps_high=4.0)
    assert (loss_fn.eps_low, loss_fn.eps_high) == (5.0, 4.0)


def test_policy_batch_shape_checks():
    x = torch.zeros(2, 3)
    with pytest.raises(ValueError, match="advantages"):
        PolicyBatch(x, x, torch.zeros(3), x)
    with pytest.raises(ValueError, match="old_logp"):
        PolicyBatch(x, torch.zeros(2, 4), torch.zeros(2), x)
    assert PolicyBatch(x, x, torch.tensor([1.0, 2.0]), x).token_advantages.tolist() == [[1.0] * 3, [2.0] * 3]


# ---- every loss ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", LOSSES)
def test_every_loss_contract(make_random, name):
    batch = make_random(spread=0.5, entropy=True)
    # junk at masked positions must not reach values or gradients
    m = batch.mask.bool()
    batch = dataclasses.replace(
        batch,
        old_logp=batch.old_logp.masked_fill(~m, -math.inf),
        advantages=batch.advantages.masked_fill(~m, math.nan),
    )
    loss_fn = get_loss(name)
    out = loss_fn(batch)
    assert isinstance(out, LossOutput) and out.per_token.shape == batch.logp.shape
    assert torch.all(out.per_token[~m] == 0) and torch.isfinite(out.per_token).all()
    loss = aggregate(out.per_token, batch.mask, mode=loss_fn.default_agg)
    (grad,) = torch.autograd.grad(loss, batch.logp)
    assert torch.all(grad[~m] == 0) and torch.isfinite(grad).all()
    assert CLIP_METRICS <= out.metrics.keys()
    for key, value in out.metrics.items():
        assert value.dim() == 0 and not value.requires_grad and torch.isfinite(value), key


@pytest.mark.parametrize("name", LOSSES)
def test_on_policy_every_loss_is_the_policy_gradient(make_random, grad_of, name):
    # first pass: old_logp = logp, every ratio is 1, and every loss's token gradient is -A
    # (GMPO weighs every token by its response's mean advantage: given per-response advantages, as
    # the trainer gives, that is A; Clip-Cov takes its selected tokens out even on-policy)
    batch = make_random(entropy=True, per_seq_adv=name == "geo_mean")
    batch = dataclasses.replace(batch, old_logp=batch.logp.detach())
    out = get_loss(name)(batch)
    m = batch.mask.bool()
    grad, expected = grad_of(out.per_token, batch), -batch.token_advantages
    if name == "clip_cov":
        taken_out = m & (grad == 0) & (expected != 0)
        assert taken_out.sum() == round(out.metrics["cov_clip_frac"].item() * m.sum().item()) == 1
        m = m & ~taken_out
    torch.testing.assert_close(grad[m], expected[m])
    assert out.metrics["clip_frac"].item() == 0.0 and out.metrics["ppo_kl"].item() == 0.0


# ---- capabilities declared on the interface (no hasattr probing outside algorithms/) ----------


@pytest.mark.parametrize("name", ["grpo", "dapo", "cispo", "gppo", "ce_gppo", "clip_cov"])
def test_token_clip_losses_declare_their_bounds(name):
    loss = get_loss(name, eps_low=0.15, eps_high=0.3)
    assert loss.clip_bounds == (0.15, 0.3)


def test_losses_without_a_token_ratio_clip_declare_no_bounds():
    # GSPO clips whole sequences; KL-Cov penalises instead of clipping; SAPO's gate is smooth
    for name in ("gspo", "kl_cov", "sapo"):
        assert get_loss(name).clip_bounds is None, name


def test_only_ce_gppo_declares_schedulable_betas():
    for name in LOSSES:
        loss = get_loss(name)
        expected = ("beta1", "beta2") if name == "ce_gppo" else ()
        assert loss.schedulable == expected, name
    ce = get_loss("ce_gppo", beta1=0.25)
    assert ce.coefficients() == {"beta1": 0.25, "beta2": 1.0}
    moved = ce.with_coefficients(beta1=0.75)
    assert (moved.beta1, moved.beta2, moved.eps_low) == (0.75, 1.0, 0.2) and ce.beta1 == 0.25
    with pytest.raises(ValueError, match="beta1"):
        ce.with_coefficients(beta1=-1.0)  # the range checks run again
    with pytest.raises(ValueError, match="cannot schedule eps_low; schedulable: beta1, beta2"):
        ce.with_coefficients(eps_low=0.1)
    with pytest.raises(ValueError, match="cannot schedule beta1; schedulable: none"):
        get_loss("grpo").with_coefficients(beta1=0.5)


def test_a_wrapped_loss_keeps_clip_bounds_and_schedule_of_its_base():
    wrapped = get_loss("entropy_reg", base="ce_gppo", coef=0.003, eps_high=0.28, beta1=0.5)
    assert wrapped.clip_bounds == (0.2, 0.28)
    assert wrapped.schedulable == ("beta1", "beta2")
    assert wrapped.coefficients() == {"beta1": 0.5, "beta2": 1.0}
    moved = wrapped.with_coefficients(beta1=0.0)
    assert moved.name == "entropy_reg" and moved.coef == 0.003 and moved.base.beta1 == 0.0
    assert get_loss("entropy_reg", base="gspo").clip_bounds is None


def test_the_mismatch_variants_the_config_offers_are_the_corrections_own():
    from algorithms.corrections.mismatch import MISMATCH_VARIANTS as OWN
    from algorithms.names import MISMATCH_VARIANTS

    assert MISMATCH_VARIANTS == OWN
