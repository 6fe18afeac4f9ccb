"""The entropy-control rivals on one toy batch whose outputs were worked out by hand from the papers'
formulas (as verl's clip_cov, kl_cov, geo_mean and sapo compute them), independently of this code.

Batch: 2 responses, 7 counted tokens (the second response's last position is padding), A = +2 on
the first response and -1 on the second; the log-ratios put one token of each response outside
PPO's [0.8, 1.2]. Covariance terms (A - 5/7)(logp + 1.55) = [1.7357, 0.0643, 1.9286, -1.8643 |
0.7714, -2.4857, 4.2000]."""

import pytest
import torch

from algorithms import PolicyBatch, aggregate, get_loss

OLD = [[-0.30, -1.40, -0.50, -3.10], [-2.20, -0.30, -3.50, 0.0]]
NEW = [[-0.20, -1.50, -0.05, -3.00], [-2.00, -0.10, -4.00, 0.0]]
ADV = [[2.0] * 4, [-1.0, -1.0, -1.0, 0.0]]
MASK = [[1.0] * 4, [1.0, 1.0, 1.0, 0.0]]

# (loss, parameters, the hand-worked value of the aggregated loss)
WORKED = [
    # the only candidate (1 < cov < 5, not cut by the clip) is token (0, 0): zeroed
    ("clip_cov", {"eps_low": 0.2, "eps_high": 0.2}, -0.453887),
    # the top covariance, token (1, 2) (cov 4.2, |log r| 0.5), is penalised: -0.902551 + 0.5 / 7
    ("kl_cov", {}, -0.831092),
    ("kl_cov", {"coef": 0.1}, -0.895378),  # verl's config default coefficient
    # sequence ratios e^0.125 and e^0 -> (-2 e^0.125 + 1) / 2
    ("geo_mean", {}, -0.633148),
    ("geo_mean", {"eps_low": 0.2, "eps_high": 0.2}, -0.543415),  # verl's default clip
    # per-sequence token means of -f(r) A, then the mean over the two responses
    ("sapo", {}, -1.205948),
]


@pytest.mark.parametrize(("name", "params", "expected"), WORKED)
def test_worked_example(name, params, expected):
    logp = torch.tensor(NEW, dtype=torch.float64)
    batch = PolicyBatch(
        logp,
        torch.tensor(OLD, dtype=torch.float64),
        torch.tensor(ADV, dtype=torch.float64),
        torch.tensor(MASK, dtype=torch.float64),
    )
    loss_fn = get_loss(name, **params)
    value = aggregate(loss_fn(batch).per_token, batch.mask, loss_fn.default_agg)
    assert value.item() == pytest.approx(expected, abs=1e-6)
