"""Shared builders for the algorithms tests: small float64 batches whose ratios are exact.

Exposed as fixtures (`make_golden`, `make_random`, `grad_of`) so that test files need no import
path tricks.
"""

from __future__ import annotations

import math

import pytest
import torch

from algorithms import PolicyBatch

# One row of hand-picked tokens (r = pi/pi_old, A) covering every branch for eps = 0.2 / 0.2 and
# dual clip c = 10. Index 9 is masked and holds junk (logp = old_logp = -inf, A = NaN).
GOLDEN_TOKENS = [
    (1.1, 1.0),  # 0  A > 0, inside the range
    (1.5, 1.0),  # 1  A > 0, above 1 + eps_high: clipped high (PA&LP side)
    (0.5, 1.0),  # 2  A > 0, below the range: PPO does not clip this side
    (0.5, -1.0),  # 3  A < 0, below 1 - eps_low: clipped low (NA&LP side)
    (1.5, -1.0),  # 4  A < 0, above the range: PPO does not clip this side
    (12.0, -1.0),  # 5  A < 0, above the dual-clip bound c = 10
    (1.5, 0.0),  # 6  A = 0
    (1.2, 2.0),  # 7  A > 0, exactly on 1 + eps_high: counts as inside
    (0.8, -2.0),  # 8  A < 0, exactly on 1 - eps_low: counts as inside
]
NUM_COUNTED = len(GOLDEN_TOKENS)


def _golden_batch(entropy: bool = False) -> PolicyBatch:
    """[1, 10] batch: the GOLDEN_TOKENS then one masked junk token; logp is a leaf with grad."""
    ratios = [r for r, _ in GOLDEN_TOKENS]
    logp = torch.tensor([[*map(math.log, ratios), -math.inf]], dtype=torch.float64, requires_grad=True)
    old_logp = torch.tensor([[0.0] * NUM_COUNTED + [-math.inf]], dtype=torch.float64)
    adv = torch.tensor([[a for _, a in GOLDEN_TOKENS] + [math.nan]], dtype=torch.float64)
    mask = torch.tensor([[1.0] * NUM_COUNTED + [0.0]], dtype=torch.float64)
    # the ratios must be exact for the on-the-bound cases to mean anything
    assert torch.exp(logp.detach()[0, :NUM_COUNTED]).tolist() == ratios
    ent = torch.full((1, NUM_COUNTED + 1), 0.7, dtype=torch.float64, requires_grad=True) if entropy else None
    return PolicyBatch(logp=logp, old_logp=old_logp, advantages=adv, mask=mask, entropy=ent)


def _logp_grad(per_token: torch.Tensor, batch: PolicyBatch) -> torch.Tensor:
    """d sum(per_token) / d logp, i.e. each token's own gradient coefficient."""
    (grad,) = torch.autograd.grad(per_token.sum(), batch.logp, retain_graph=True)
    return grad


def _random_batch(
    B: int = 6,
    T: int = 9,
    seed: int = 0,
    spread: float = 0.4,
    per_seq_adv: bool = False,
    entropy: bool = False,
) -> PolicyBatch:
    """A random off-policy batch with ragged masks; `spread` sets how far ratios leave 1."""
    gen = torch.Generator().manual_seed(seed)
    old_logp = -torch.rand(B, T, generator=gen, dtype=torch.float64) * 3  # [B, T]
    logp = (old_logp + spread * torch.randn(B, T, generator=gen, dtype=torch.float64)).requires_grad_()
    lengths = torch.randint(1, T + 1, (B,), generator=gen)  # [B]
    mask = (torch.arange(T) < lengths.unsqueeze(-1)).double()  # [B, T]
    shape = (B,) if per_seq_adv else (B, T)
    adv = torch.randn(shape, generator=gen, dtype=torch.float64)
    ent = torch.rand(B, T, generator=gen, dtype=torch.float64).requires_grad_() if entropy else None
    old_ent = ent.detach().clone() if entropy else None  # the policy's entropy has not moved yet (ERC)
    return PolicyBatch(logp=logp, old_logp=old_logp, advantages=adv, mask=mask, entropy=ent, old_entropy=old_ent)


@pytest.fixture(autouse=True)
def _one_thread():
    # tiny tensors: threads only add overhead on a shared machine
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def make_golden():
    return _golden_batch


@pytest.fixture
def make_random():
    return _random_batch


@pytest.fixture
def grad_of():
    return _logp_grad
