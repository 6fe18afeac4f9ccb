"""Fixtures of the training tests."""

import pytest
import torch


@pytest.fixture()
def one_thread():
    """The trainer on one torch thread, as the rollout worker: the same sampling arithmetic on both sides."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
