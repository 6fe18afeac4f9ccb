"""harness.rewards: the math grader's verdict as a reward, plus DAPO's overlong shaping."""

import pytest
import torch

from harness.rewards import MathReward
from harness.schema import RewardConfig


def test_correct_and_incorrect_values():
    reward = MathReward(RewardConfig(correct=1.0, incorrect=-0.5), max_new_tokens=8)
    texts = ["52", "the answer is \\boxed{52}", "53", "", "\\boxed{" * 2000]
    rewards, correct = reward(texts, ["52"] * 5, torch.tensor([2, 6, 2, 0, 8]))
    assert correct.tolist() == [True, True, False, False, False]
    assert rewards.tolist() == [1.0, 1.0, -0.5, -0.5, -0.5]


def test_overlong_shaping_is_added_to_the_reward():
    # max 8 tokens, soft zone of 4: no penalty up to 4 tokens, -0.25 per token after, -1 at 8
    reward = MathReward(RewardConfig(overlong_buffer=4), max_new_tokens=8)
    rewards, correct = reward(["7"] * 4, ["7"] * 4, torch.tensor([4, 5, 7, 8]))
    assert correct.all()
    assert rewards.tolist() == pytest.approx([1.0, 0.75, 0.25, 0.0])
