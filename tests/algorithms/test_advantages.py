"""Group-relative advantages, DAPO's dynamic-sampling filter and overlong reward shaping."""

import pytest
import torch

from algorithms import dynamic_sampling_filter, group_advantages, overlong_penalty

# two groups of G = 4: one correct answer out of four, then four failures
REWARDS = torch.tensor([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])


def test_group_advantages_std_normalised():
    # group 1: mean 0.25, unbiased std sqrt((0.75^2 + 3 * 0.25^2) / 3) = 0.5
    adv = group_advantages(REWARDS, 4)
    expected = torch.tensor([0.75, -0.25, -0.25, -0.25, 0, 0, 0, 0]) / (0.5 + 1e-6)
    expected[4:] = 0.0  # flat group: 0 / (0 + eps)
    torch.testing.assert_close(adv, expected)


def test_group_advantages_mean_only_for_dr_grpo():
    adv = group_advantages(REWARDS, 4, std_normalize=False)
    torch.testing.assert_close(adv, torch.tensor([0.75, -0.25, -0.25, -0.25, 0, 0, 0, 0]))


def test_group_advantages_shapes_and_dtypes():
    grouped = REWARDS.view(2, 4)
    torch.testing.assert_close(group_advantages(grouped, 4), group_advantages(REWARDS, 4).view(2, 4))
    ints = group_advantages(torch.tensor([1, 0, 1, 1]), 2)  # integer rewards become float
    assert ints.dtype == torch.float32 and ints[2:].abs().sum() == 0
    assert group_advantages(REWARDS.double(), 4).dtype == torch.float64
    assert torch.all(group_advantages(REWARDS, 1) == 0)  # one rollout: no baseline, no signal
    with pytest.raises(ValueError, match="group_size"):
        group_advantages(REWARDS, 3)
    with pytest.raises(ValueError, match="group_size"):
        group_advantages(REWARDS, 0)


def test_dynamic_sampling_keeps_groups_with_reward_variance():
    rewards = torch.tensor([1.0, 0, 0, 0, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0, 0, 0, 0.2])
    keep = dynamic_sampling_filter(rewards, 4)
    assert keep.tolist() == [True, False, False, True]
    assert keep.repeat_interleave(4).sum() == 8


@pytest.mark.parametrize(
    "length, penalty",
    [(50, 0.0), (80, 0.0), (85, -0.25), (90, -0.5), (100, -1.0), (101, -1.0), (500, -1.0)],
)
def test_overlong_penalty(length, penalty):
    # L_max = 100, L_cache = 20: free up to 80 tokens, then (80 - len) / 20, -1 beyond 100
    assert overlong_penalty(torch.tensor([length]), max_len=100, cache_len=20).item() == pytest.approx(penalty)


def test_overlong_penalty_validation():
    with pytest.raises(ValueError, match="cache_len"):
        overlong_penalty(torch.tensor([1]), max_len=100, cache_len=0)
    with pytest.raises(ValueError, match="cache_len"):
        overlong_penalty(torch.tensor([1]), max_len=10, cache_len=20)
