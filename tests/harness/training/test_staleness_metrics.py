"""How the loss sees stale rollouts (harness.training.staleness_metrics): golden values of the weights and metrics, the
gradient of each correction against its formula, and every registered loss through both corrections."""

import pytest
import torch

from algorithms import LOSSES, PolicyBatch, aggregate, batch_counts, get_loss
from harness.models import load_model
from harness.rollout.engine import mismatch_weights
from harness.schema import load_train_config
from harness.tasks import build_task
from harness.training.logprobs import response_logprobs
from harness.training.rl_module import RLModule
from harness.training.staleness_metrics import behaviour_ratio_metrics, lag_metrics
from harness.training.step_metrics import StepMetrics
from harness.training.update_batch import UpdateBatch


def test_decoupled_weights_golden():
    prox = torch.tensor([[0.0, -1.0, -2.0]])
    behav = torch.tensor([[-1.0, -1.0, 5.0]])  # the last token is padding: its huge ratio never shows
    mask = torch.tensor([[1.0, 1.0, 0.0]])
    w, _ = mismatch_weights(prox, behav, mask, cap=2.0)  # decoupled PPO's weight (harness.training.staleness_metrics)
    # e^(0 - -1) = 2.718 truncated at 2; e^0 = 1; padding 0
    torch.testing.assert_close(w, torch.tensor([[2.0, 1.0, 0.0]]))


def test_lag_and_behaviour_ratio_metrics_golden():
    metrics = StepMetrics()
    lag_metrics(metrics, torch.tensor([0, 1, 1, 2]), bound=2)
    prox = torch.log(torch.tensor([[0.5, 0.3], [0.2, 0.9]]))
    behav = torch.log(torch.tensor([[0.25, 0.3], [0.4, 0.9]]))  # ratios 2, 1 / 0.5, 1
    mask = torch.tensor([[1.0, 1.0], [1.0, 0.0]])
    advantages = torch.tensor([1.0, -1.0])
    behaviour_ratio_metrics(metrics, prox, behav, mask, advantages, cap=1.5, clip_bounds=(0.2, 0.28))
    out = metrics.reduce(lambda t, op: t)
    assert out["staleness_mean"] == pytest.approx(1.0) and out["staleness_max"] == 2
    assert [out[f"staleness_lag{k}"] for k in range(3)] == [0.25, 0.5, 0.25]
    assert out["behaviour_ratio_mean"] == pytest.approx((2 + 1 + 0.5) / 3)
    assert out["behaviour_ratio_max"] == pytest.approx(2.0)
    assert out["behaviour_cap_frac"] == pytest.approx(1 / 3)  # the ratio 2 > 1.5
    assert out["behaviour_out_high"] == pytest.approx(1 / 3)  # A > 0 and 2 > 1.28
    assert out["behaviour_out_low"] == pytest.approx(1 / 3)  # A < 0 and 0.5 < 0.8


def stale_setup(correction: str, loss: str):
    """A module at staleness 1 and a batch whose behaviour log-probs are the policy's moved by fixed offsets."""
    config = load_train_config(
        "tiny",
        None,
        {
            "rollout.staleness": 1,
            "rollout.staleness_correction": correction,
            "optim.grad_clip": 1e9,  # no clipping: the gradient is compared as it is
            "loss": loss,
        },
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
    loss_fn = module.base_loss
    metrics = StepMetrics()
    old = behav if correction == "behaviour" else None  # what update_policy passes for the first mini-batch
    module.one_update(batch, old, loss_fn, metrics)
    ours = gradients(policy)
    if correction == "decoupled":
        # ratio against pi_prox (1 at the first update), each token weighted by min(pi_prox / pi_behav, C)
        weights = torch.exp(prox - behav).clamp(max=module.config.rollout.behaviour_cap) * batch.mask
        expected = expected_gradients(policy, batch, loss_fn, module.agg_mode, prox, weights)
    else:
        # ratio against pi_behav: the clip already cuts tokens whose pi_prox / pi_behav left [0.8, 1.2]
        expected = expected_gradients(policy, batch, loss_fn, module.agg_mode, behav, batch.mask)
    for name in expected:
        torch.testing.assert_close(ours[name], expected[name], rtol=1e-4, atol=1e-7, msg=name)
    plain = expected_gradients(policy, batch, loss_fn, module.agg_mode, prox, batch.mask)  # fresh-data gradient
    assert max((ours[n] - plain[n]).abs().max().item() for n in plain) > 1e-6  # the correction changed it


@pytest.mark.parametrize("correction", ["decoupled", "behaviour"])
@pytest.mark.parametrize("loss", LOSSES)
def test_every_loss_trains_on_stale_rows(loss, correction):
    module, policy, batch, prox, behav = stale_setup(correction, loss)
    metrics = StepMetrics()
    old = behav if correction == "behaviour" else None
    value, grad_norm, fresh = module.one_update(batch, old, module.base_loss, metrics)
    assert torch.isfinite(torch.tensor(value)) and grad_norm > 0
    torch.testing.assert_close(fresh * batch.mask, prox * batch.mask)  # the forward before the update: pi_prox
    assert get_loss(loss).default_agg  # every loss names its reduction
