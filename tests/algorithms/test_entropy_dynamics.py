"""The paper's entropy theory on a tabular softmax policy (a 32-armed bandit).

1. One small gradient step of CE-GPPO changes the entropy by what the first-order estimate
   -Cov_{a~pi}(log pi(a), dz(a)) predicts.
2. Over many steps with several off-policy updates per rollout batch (so that ratios leave the
   clip range), a larger beta1 ends with lower entropy, a larger beta2 with higher entropy, and
   GRPO (which drops both clipped sides) ends below CE-GPPO(beta1 0.5, beta2 1).

The bandit: 96 independent copies (averaged) of a 32-action softmax policy, peaked on one action
at the start, as a language model's next-token distribution usually is. Every action pays
Bernoulli(0.5): no action is better than another, so there is nothing to learn and a run cannot
collapse by finding the optimum; the entropy drift then comes only from how each loss treats the
tokens that leave the clip range, which is the mechanism the paper analyses. (With one clearly
better rare action the end entropy instead measures how fast it was found, and gradient-preserving
losses, which find it faster, collapse sooner.) Everything is seeded and runs in a few seconds.
"""

import pytest
import torch

from algorithms import PolicyBatch, aggregate, entropy_change_first_order, get_loss, group_advantages

ACTIONS, BANDITS, GROUP, STEPS, EPOCHS, LR = 32, 96, 16, 40, 4, 1.0


def _entropy(logits: torch.Tensor) -> torch.Tensor:
    logp = torch.log_softmax(logits, -1)
    return -(logp.exp() * logp).sum(-1)


def _initial_logits(gen: torch.Generator) -> torch.Tensor:
    logits = torch.randn(BANDITS, ACTIONS, generator=gen, dtype=torch.float64)  # [S, V]
    logits[:, 0] += 4.0  # one dominant action (~half the mass), 31 rarer ones
    return logits


def train_bandit(loss_name: str, seed: int = 0, **params) -> float:
    """Mean policy entropy (over the bandits and the last 5 steps) after STEPS rollout batches."""
    loss_fn = get_loss(loss_name, **params)
    gen = torch.Generator().manual_seed(seed)
    logits = _initial_logits(gen).requires_grad_()
    optimizer = torch.optim.SGD([logits], lr=LR)
    mask = torch.ones(BANDITS, GROUP)  # each bandit is one "sequence" of GROUP sampled tokens
    entropies = []
    for _ in range(STEPS):
        with torch.no_grad():
            old_logp_all = torch.log_softmax(logits, -1)  # [S, V]
            actions = torch.multinomial(old_logp_all.exp(), GROUP, replacement=True, generator=gen)  # [S, G]
            old_logp = old_logp_all.gather(1, actions)  # [S, G]
            rewards = torch.bernoulli(torch.full((BANDITS, GROUP), 0.5, dtype=torch.float64), generator=gen)
            adv = group_advantages(rewards, GROUP)  # [S, G]
        for _ in range(EPOCHS):  # several updates on the same samples: ratios leave [1 - eps, 1 + eps]
            logp = torch.log_softmax(logits, -1).gather(1, actions)  # [S, G]
            out = loss_fn(PolicyBatch(logp=logp, old_logp=old_logp, advantages=adv, mask=mask))
            # mean over each bandit's tokens, summed over bandits (they are independent problems)
            loss = aggregate(out.per_token, mask, "seq_mean_token_mean", num_seqs=1)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        entropies.append(_entropy(logits.detach()).mean().item())
    return sum(entropies[-5:]) / 5


def test_one_small_step_matches_first_order_estimate():
    gen = torch.Generator().manual_seed(0)
    logits = _initial_logits(gen)[0]  # [V]
    old_logits = logits + torch.randn(ACTIONS, generator=gen, dtype=torch.float64)  # off-policy data
    actions = torch.multinomial(torch.softmax(old_logits, -1), 64, replacement=True, generator=gen)  # [N]
    old_logp = torch.log_softmax(old_logits, -1)[actions].unsqueeze(0)  # [1, N]
    adv = torch.randn(1, 64, generator=gen, dtype=torch.float64)  # [1, N]
    z = logits.clone().requires_grad_()
    loss_fn = get_loss("ce_gppo")
    out = loss_fn(PolicyBatch(torch.log_softmax(z, -1)[actions].unsqueeze(0), old_logp, adv, torch.ones(1, 64)))
    assert out.metrics["clip_frac_high"] > 0 and out.metrics["clip_frac_low"] > 0  # both beta branches active
    (grad,) = torch.autograd.grad(aggregate(out.per_token, torch.ones(1, 64), loss_fn.default_agg), z)
    dz = -1e-3 * grad  # one SGD step
    measured = (_entropy(logits + dz) - _entropy(logits)).item()
    predicted = entropy_change_first_order(logits, dz).item()
    assert abs(measured) > 1e-6
    assert measured == pytest.approx(predicted, rel=2e-2)


@pytest.fixture(scope="module")
def end_entropy():
    torch.set_num_threads(1)
    runs = {
        "grpo": train_bandit("grpo"),
        (0.0, 1.0): train_bandit("ce_gppo", beta1=0.0, beta2=1.0),
        (0.5, 1.0): train_bandit("ce_gppo", beta1=0.5, beta2=1.0),
        (1.0, 1.0): train_bandit("ce_gppo", beta1=1.0, beta2=1.0),
        (0.5, 0.0): train_bandit("ce_gppo", beta1=0.5, beta2=0.0),
        (0.5, 0.5): train_bandit("ce_gppo", beta1=0.5, beta2=0.5),
    }
    return runs


def test_larger_beta1_ends_with_lower_entropy(end_entropy):
    assert end_entropy[(0.0, 1.0)] > end_entropy[(0.5, 1.0)] > end_entropy[(1.0, 1.0)]


def test_larger_beta2_ends_with_higher_entropy(end_entropy):
    assert end_entropy[(0.5, 0.0)] < end_entropy[(0.5, 0.5)] < end_entropy[(0.5, 1.0)]


def test_grpo_entropy_falls_below_ce_gppo(end_entropy):
    assert end_entropy["grpo"] < end_entropy[(0.5, 1.0)]
