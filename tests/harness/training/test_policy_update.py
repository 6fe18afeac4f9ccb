"""The policy update (harness.training.policy_update) through each off-policy correction: the gradient of a
stale batch's first update against the correction's formula, truncated importance sampling on fresh rows,
the correction's figures once a step, and every registered loss through both stale corrections."""

import pytest
import torch

from algorithms import LOSSES, PolicyBatch, aggregate, batch_counts, get_loss, top_entropy_mask
from harness.models import load_model
from harness.schema import load_train_config
from harness.tasks import build_task
from harness.training.logprobs import response_logprobs
from harness.training.rl_module import RLModule
from harness.training.step_metrics import StepMetrics
from harness.training.update_batch import UpdateBatch
from harness.training.update_rules import objective_for


def stale_setup(correction: str, loss: str, **overrides):
    """A module at staleness 1 (or as `overrides` say) and a batch whose behaviour log-probs are the policy's
    moved by fixed offsets."""
    stale = {"rollout.staleness": 1, "rollout.staleness_correction": correction} if correction else {}
    config = load_train_config(
        "tiny",
        None,
        {**stale, "optim.grad_clip": 1e9, "loss": loss, **overrides},  # no clipping: the gradient is compared as it is
    )
    policy, tokenizer = load_model("tiny")
    policy.eval()
    module = RLModule(config, policy, tokenizer, build_task(config.task))
    module.manual_backward = lambda value: value.backward()  # no trainer: plain backward
    g = torch.Generator().manual_seed(0)
    K, P, T = 6, 5, 4
    input_ids = torch.randint(3, 15, (K, P + T), generator=g)
    attention = torch.ones(K, P + T, dtype=torch.long)
    mask = torch.ones(K, T)
    mask[0, 3:] = 0
    advantages = torch.tensor([1.0, -1.0, 0.5, -0.5, 2.0, -2.0])
    with torch.no_grad():
        prox, _ = response_logprobs(policy, input_ids, attention, P)  # [K, T] the policy now = pi_prox
    offsets = torch.linspace(-0.6, 0.6, K * T).reshape(K, T)  # pi_prox / pi_behav from e^-0.6 to e^0.6
    behav = (prox - offsets) * mask
    batch = UpdateBatch(input_ids, attention, P, mask, advantages, engine_logp=behav)
    return module, policy, batch, prox, behav


def gradients(policy) -> dict[str, torch.Tensor]:
    return {n: p.grad.clone() for n, p in policy.named_parameters() if p.grad is not None}


def expected_gradients(policy, batch, loss_fn, agg, old_logp, weights):
    policy.zero_grad()
    logp, _ = response_logprobs(policy, batch.input_ids, batch.attention_mask, batch.prompt_length)
    out = loss_fn(PolicyBatch(logp=logp, old_logp=old_logp, advantages=batch.advantages, mask=batch.mask))
    n_tokens, n_seqs = batch_counts(batch.mask)
    loss = aggregate(out.per_token * weights, batch.mask, agg, num_tokens=n_tokens, num_seqs=n_seqs, max_len=8)
    loss.backward()
    return gradients(policy)


@pytest.mark.parametrize("correction", ["decoupled", "behaviour"])
def test_first_update_gradient_follows_the_correction(correction):
    module, policy, batch, prox, behav = stale_setup(correction, "grpo")
    update, loss_fn = module.policy_update, module.base_loss
    objective = objective_for(module.config, loss_fn)
    assert update.correction.name == correction
    old = behav if correction == "behaviour" else None  # what the update passes for the first mini-batch
    update.one_update(batch, old, objective, StepMetrics())
    ours = gradients(policy)
    if correction == "decoupled":
        # ratio against pi_prox (1 at the first update), each token weighted by min(pi_prox / pi_behav, C)
        weights = torch.exp(prox - behav).clamp(max=module.config.rollout.behaviour_cap) * batch.mask
        expected = expected_gradients(policy, batch, loss_fn, objective.agg_mode, prox, weights)
    else:
        # ratio against pi_behav: the clip already cuts tokens whose pi_prox / pi_behav left [0.8, 1.2]
        expected = expected_gradients(policy, batch, loss_fn, objective.agg_mode, behav, batch.mask)
    for name in expected:
        torch.testing.assert_close(ours[name], expected[name], rtol=1e-4, atol=1e-7, msg=name)
    plain = expected_gradients(policy, batch, loss_fn, objective.agg_mode, prox, batch.mask)  # fresh-data gradient
    assert max((ours[n] - plain[n]).abs().max().item() for n in plain) > 1e-6  # the correction changed it


def test_truncated_importance_sampling_weights_fresh_rows():
    """staleness 0 with rollout.tis_cap: old = the trainer's own log-probs, weights min(pi_old / pi_engine, C)."""
    module, policy, batch, prox, engine = stale_setup(None, "grpo", **{"rollout.tis_cap": 1.3})
    update = module.policy_update
    assert update.correction.name == "tis" and update.correction.needs_proximal
    objective = objective_for(module.config, module.base_loss)
    update.one_update(batch, None, objective, StepMetrics())
    weights = torch.exp(prox - engine).clamp(max=1.3) * batch.mask
    expected = expected_gradients(policy, batch, module.base_loss, objective.agg_mode, prox, weights)
    ours = gradients(policy)
    for name in expected:
        torch.testing.assert_close(ours[name], expected[name], rtol=1e-4, atol=1e-7, msg=name)


class FakeOptimizer:
    """Counts steps; the weights stay put, so every update sees the starting policy (pi_prox)."""

    param_groups = [{"lr": 0.0}]

    def __init__(self):
        self.steps = 0

    def step(self):
        self.steps += 1

    def zero_grad(self, set_to_none=True):
        pass


@pytest.mark.parametrize(
    ("correction", "overrides", "names"),
    [
        ("decoupled", {}, {"behaviour_ratio_mean", "behaviour_ratio_max", "behaviour_cap_frac", "behaviour_out_low"}),
        ("behaviour", {}, {"behaviour_ratio_mean", "behaviour_ratio_max", "behaviour_out_high"}),
        (None, {"rollout.tis_cap": 1.3}, {"mismatch_ratio_mean", "mismatch_ratio_max", "mismatch_clip_frac"}),
    ],
)
def test_the_corrections_figures_are_taken_once_a_step(correction, overrides, names):
    """2 epochs x 3 mini-batches: the figures of pi_prox / pi_behav cover the rows whose pi_prox is known
    before the first update (all of them, or the first mini-batch's when nothing else is scored)."""
    module, policy, batch, prox, behav = stale_setup(
        correction, "grpo", **{"algo.mini_batches": 3, "algo.ppo_epochs": 2, **overrides}
    )
    optimizer = FakeOptimizer()
    module.optimizers = lambda: optimizer
    module.lr_schedulers = lambda: None
    metrics = StepMetrics()
    module.policy_update(batch, module.base_loss, metrics)
    assert optimizer.steps == 6
    out = metrics.reduce(lambda t, op: t)
    assert names <= set(out)
    seen = 2 if correction == "behaviour" else len(batch)  # rows of the first mini-batch, or every row
    ratio = torch.exp(prox[:seen] - behav[:seen])
    mask = batch.mask[:seen].bool()
    prefix = "mismatch_ratio" if correction is None else "behaviour_ratio"
    assert out[f"{prefix}_mean"] == pytest.approx(float(ratio[mask].mean()), rel=1e-5)
    assert out[f"{prefix}_max"] == pytest.approx(float(ratio[mask].max()), rel=1e-5)


@pytest.mark.parametrize("correction", ["decoupled", "behaviour"])
@pytest.mark.parametrize("loss", LOSSES)
def test_every_loss_trains_on_stale_rows(loss, correction):
    module, policy, batch, prox, behav = stale_setup(correction, loss)
    objective = objective_for(module.config, module.base_loss)
    old = behav if correction == "behaviour" else None
    value, grad_norm, fresh = module.policy_update.one_update(batch, old, objective, StepMetrics())
    assert torch.isfinite(torch.tensor(value)) and grad_norm > 0
    torch.testing.assert_close(fresh * batch.mask, prox * batch.mask)  # the forward before the update: pi_prox
    assert get_loss(loss).default_agg  # every loss names its reduction


def test_top_entropy_rule_gates_the_gradient_with_the_step_start_entropy():
    """algo.top_entropy_quantile 0.5: one no-grad pass at the step's start gives the entropies; only the top half
    of the response tokens keep a gradient, the rest stay in the token-mean denominator."""
    module, policy, batch, prox, _ = stale_setup(
        None, "dapo", **{"algo.top_entropy_quantile": 0.5, "algo.mini_batches": 1}
    )
    optimizer = FakeOptimizer()  # leaves the accumulated gradient in place
    module.optimizers = lambda: optimizer
    module.lr_schedulers = lambda: None
    metrics = StepMetrics()
    module.policy_update(batch, module.base_loss, metrics)
    ours = gradients(policy)
    with torch.no_grad():
        _, entropy = response_logprobs(
            policy, batch.input_ids, batch.attention_mask, batch.prompt_length, with_entropy=True
        )
    gate = top_entropy_mask(entropy, batch.mask, 0.5).float()  # [K, T]
    assert 0 < gate.sum() < batch.mask.sum()
    objective = objective_for(module.config, module.base_loss)
    expected = expected_gradients(policy, batch, module.base_loss, objective.agg_mode, prox, gate)
    for name in expected:
        torch.testing.assert_close(ours[name], expected[name], rtol=1e-4, atol=1e-7, msg=name)
    out = metrics.reduce(lambda t, op: t)
    assert out["top_entropy_masked_frac"] == pytest.approx(1 - float(gate.sum() / batch.mask.sum()))


def test_erc_reads_the_old_entropy_of_the_step_start():
    """gppo_erc through the update with 2 epochs and a real optimizer: the first update sees every entropy ratio
    at 1 (nothing masked); later updates compare the moved policy's entropy with the step start's."""
    module, policy, batch, _, _ = stale_setup(None, "gppo_erc", **{"algo.mini_batches": 1, "algo.ppo_epochs": 2})
    seen = []
    loss_fn = module.base_loss

    def spy(policy_batch):
        seen.append((policy_batch.entropy.detach().clone(), policy_batch.old_entropy.clone()))
        return loss_fn(policy_batch)

    spy.needs_old_entropy, spy.clip_bounds, spy.default_agg = True, loss_fn.clip_bounds, loss_fn.default_agg
    optimizer = torch.optim.SGD(policy.parameters(), lr=5.0)
    module.optimizers = lambda: optimizer
    module.lr_schedulers = lambda: None
    module.policy_update(batch, spy, StepMetrics())
    (first, first_old), (second, second_old) = seen
    torch.testing.assert_close(first_old, first)  # nothing moved before the first update
    torch.testing.assert_close(second_old, first_old)  # the old entropy is the step start's, once per step
    assert (second - second_old).abs().max() > 1e-4  # the policy moved, so the band can cut tokens
