"""harness.training.rewards: the math grader's verdict as a reward (each row's problem and truncation passed), plus
DAPO's overlong shaping."""

import pytest
import torch

from harness.schema import RewardConfig
from harness.training.rewards import MathReward


def test_correct_and_incorrect_values():
    reward = MathReward(RewardConfig(correct=1.0, incorrect=-0.5), max_new_tokens=8)
    texts = ["52", "the answer is \\boxed{52}", "53", "", "\\boxed{" * 2000]
    rewards, correct = reward(texts, ["52"] * 5, torch.tensor([2, 6, 2, 0, 8]))
    assert correct.tolist() == [True, True, False, False, False]
    assert rewards.tolist() == [1.0, 1.0, -0.5, -0.5, -0.5]


def test_strict_grading_refuses_undone_work_that_lenient_grading_credits():
    problems = ["What is 3 times 4?"] * 3 + ["What is 9 + 6?"]
    texts = ["So \\boxed{\\frac{24}{2}}.", "So \\boxed{12}.", "So \\boxed{2^{10}}.", "So \\boxed{9\\;6}."]
    answers = ["12", "12", "1024", "15"]
    lengths = torch.tensor([8, 8, 8, 8])
    strict = MathReward(RewardConfig(), max_new_tokens=8)  # strict is the default
    lenient = MathReward(RewardConfig(strict=False), max_new_tokens=8)
    assert strict(texts, answers, lengths, problems=problems)[1].tolist() == [False, True, False, False]
    # lenient credits any equal value, but never a non-answer (two numbers side by side)
    assert lenient(texts, answers, lengths, problems=problems)[1].tolist() == [True, True, True, False]


def test_overlong_shaping_is_added_to_the_reward():
    # max 8 tokens, soft zone of 4: no penalty up to 4 tokens, -0.25 per token after, -1 at 8
    reward = MathReward(RewardConfig(overlong_buffer=4), max_new_tokens=8)
    rewards, correct = reward(["7"] * 4, ["7"] * 4, torch.tensor([4, 5, 7, 8]))
    assert correct.all()
    assert rewards.tolist() == pytest.approx([1.0, 0.75, 0.25, 0.0])


def test_boxing_the_problems_expression_gets_the_incorrect_reward():
    reward = MathReward(RewardConfig(correct=1.0, incorrect=-1.0), max_new_tokens=64)
    problems = ["Simplify $\\sqrt{242}$.", "Simplify $\\sqrt{242}$.", "What is 7 + 45? Answer with just the number."]
    texts = ["So \\boxed{\\sqrt{242}}", "So \\boxed{11\\sqrt{2}}", "\\boxed{7 + 45}"]
    answers = ["11\\sqrt2", "11\\sqrt2", "52"]
    rewards, correct = reward(texts, answers, torch.tensor([10, 10, 6]), problems=problems)
    assert correct.tolist() == [False, True, False]
    assert rewards.tolist() == [-1.0, 1.0, -1.0]
    # Without the problem the restated root equals the reference in value: lenient grading credits it (the
    # problem is what refuses it there); strict grading refuses an unsimplified root anyway.
    lenient = MathReward(RewardConfig(strict=False), max_new_tokens=64)
    assert lenient(texts[:1], answers[:1], torch.tensor([10]))[1].tolist() == [True]
    assert reward(texts[:1], answers[:1], torch.tensor([10]))[1].tolist() == [False]


def test_a_truncated_response_is_graded_by_its_boxes_only():
    reward = MathReward(RewardConfig(), max_new_tokens=8)
    texts = ["The answer is 4", "The answer is 4", "\\boxed{4} and then"]
    truncated = torch.tensor([True, False, True])
    _, correct = reward(texts, ["4"] * 3, torch.tensor([8, 5, 8]), problems=["What is 2 + 2?"] * 3, truncated=truncated)
    assert correct.tolist() == [False, True, True]


def test_the_rl_step_grades_with_each_rows_problem(tmp_path):
    import lightning as L

    from harness.models import load_model
    from harness.schema import load_train_config
    from harness.tasks import build_task
    from harness.training.rl_module import RLModule

    overrides = {"run.output_dir": str(tmp_path / "run"), "run.tracking_uri": f"sqlite:///{tmp_path}/m.db"}
    overrides |= {"run.steps": 1, "rollout.prompts_per_step": 4, "algo.mini_batches": 1, "warmstart.steps": 0}
    config = load_train_config("tiny", None, overrides)
    policy, tokenizer = load_model("tiny")
    module = RLModule(config, policy, tokenizer, build_task(config.task))
    calls = []
    grade = module.rollouts.reward_fn  # the synchronous source grades on the trainer

    def recording_reward(texts, answers, lengths, **kw):
        calls.append((list(answers), kw))
        return grade(texts, answers, lengths, **kw)

    module.rollouts.reward_fn = recording_reward
    trainer_flags = {"logger": False, "enable_checkpointing": False, "enable_progress_bar": False}
    L.Trainer(max_epochs=1, enable_model_summary=False, accelerator="cpu", **trainer_flags).fit(module)
    (answers, kw), *_ = calls
    step_problems = module.task.train_batch(0, 4, config.run.seed)
    pairs = {(p.answer, p.prompt) for p in step_problems}
    assert all(pair in pairs for pair in zip(answers, kw["problems"]))  # each row's own problem
    assert set(kw["problems"]) == {p.prompt for p in step_problems}
    assert kw["truncated"].dtype == torch.bool and len(kw["truncated"]) == len(answers)


def test_countdown_references_are_rewarded_by_the_countdown_checker_beside_math_ones():
    reward = MathReward(RewardConfig(), max_new_tokens=32)
    texts = [
        "5*3=15,15+7=22 A:(5*3)+7",  # right, with its steps
        "A:(5*3)+7",  # right expression, no reasoning: strict refuses
        "5*3=15,15+6=21 A:(5*3)+6",  # wrong target
        "7+45=52",  # a math answer beside them
    ]
    answers = ["countdown:3 5 7>22"] * 3 + ["52"]
    rewards, correct = reward(texts, answers, torch.tensor([24, 9, 24, 7]))
    assert correct.tolist() == [True, False, False, True]
    assert rewards.tolist() == [1.0, 0.0, 0.0, 1.0]
    lenient = MathReward(RewardConfig(strict=False), max_new_tokens=32)
    assert lenient(texts, answers, torch.tensor([24, 9, 24, 7]))[1].tolist() == [True, True, False, True]
