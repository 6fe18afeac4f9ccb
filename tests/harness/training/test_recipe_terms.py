"""The official CE-GPPO recipe's two extra terms on the tiny profile: the NLL on rewarded responses
(algo.positive_nll_coef) changes the update exactly as its formula says, and dynamic sampling keeps
the first groups whose answers are not all equally correct, over up to algo.max_gen_batches
generation batches (harness.training.step_batch)."""

import json
import math

import lightning as L
import pytest
import torch

from harness.common.errors import ConfigError
from harness.common.files import finite_or_null, null_as_nan
from harness.models import load_model
from harness.rollout.engine import Rollouts, chat_prompt, response_mask_from_ids
from harness.schema import load_train_config
from harness.tasks import build_task
from harness.training.logprobs import response_logprobs
from harness.training.policy_update import PolicyUpdate
from harness.training.rl_module import RLModule
from harness.training.rollout_source import SyncSource
from harness.training.step_batch import StepRollouts, concat_rollouts, first_groups, mixed_groups
from harness.training.summary import stability_figures
from harness.training.update_batch import UpdateBatch
from harness.training.update_rules import positive_rows

G = 4


class ScriptedSource(SyncSource):
    """Rollouts whose correctness is scripted: `pattern(position, prompt)` gives how many of a
    group's G completions are right (the rest are wrong); `positions` the data positions asked for."""

    def __init__(self, config, policy, tokenizer, task, pattern):
        super().__init__(config, policy, tokenizer, task)
        self.pattern = pattern
        self.positions = []

    def collect(self, position):
        self.positions.append(position)
        count = self.config.rollout.gen_batch_prompts or self.config.rollout.prompts_per_step
        problems = self.task.train_batch(position, count, 0)
        tok = self.tokenizer
        prompts, responses, answers = [], [], []
        for i, p in enumerate(problems):
            right = self.pattern(position, i)
            for g in range(G):
                text = p.answer if g < right else str(int(p.answer) + g + 1)
                prompts.append(chat_prompt(tok, p.prompt))
                responses.append(tok(text, add_special_tokens=False).input_ids + [tok.eos_token_id])
                answers.append(p.answer)
        enc = tok(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
        width = max(map(len, responses))
        ids = torch.tensor([r + [tok.pad_token_id] * (width - len(r)) for r in responses])  # [N, T]
        mask, truncated = response_mask_from_ids(ids, {tok.eos_token_id})
        index = torch.arange(len(problems)).repeat_interleave(G)
        rollouts = Rollouts(
            enc.input_ids,
            enc.attention_mask,
            ids,
            mask,
            truncated,
            tok.batch_decode(ids, skip_special_tokens=True),
            index,
        )
        return StepRollouts(rollouts, answers, [problems[i].prompt for i in index.tolist()])


class RecordingUpdate(PolicyUpdate):
    """Keeps the batch the update trains on."""

    def __call__(self, batch, loss_fn, metrics):
        self.trained = batch
        return super().__call__(batch, loss_fn, metrics)


class ScriptedRollouts(RLModule):
    """The RL step on ScriptedSource's rollouts (`pattern` below), with plain SGD, so updates are linear
    in the gradient; `positions` and `trained` are what the source and the update saw."""

    pattern = staticmethod(lambda position, prompt: G // 2)

    def __init__(self, config, policy, tokenizer, task):
        source = ScriptedSource(config, policy, tokenizer, task, self.pattern)
        super().__init__(config, policy, tokenizer, task, rollouts=source)
        self.policy_update = RecordingUpdate(self, config)

    def configure_optimizers(self):
        return torch.optim.SGD(self.policy.parameters(), lr=self.config.optim.lr)

    @property
    def positions(self):
        return self.rollouts.positions

    @property
    def trained(self):
        return self.policy_update.trained


def _run(tmp_path, module_class=ScriptedRollouts, **overrides):
    config = load_train_config(
        "tiny",
        None,
        {
            "run.output_dir": str(tmp_path / "run"),
            "warmstart.steps": 0,
            "rollout.prompts_per_step": 4,
            "rollout.group_size": G,
            "rollout.temperature": 0.8,
            "algo.mini_batches": 1,
            "optim.lr": 0.5,
            "optim.grad_clip": 1e9,  # no clipping: the update stays linear in the gradient
            "reward.suspect_sample": 0,
            **overrides,
        },
    )
    policy, tokenizer = load_model("tiny")
    module = module_class(config, policy, tokenizer, build_task(config.task))
    start = {k: v.clone() for k, v in policy.state_dict().items()}
    trainer = L.Trainer(
        max_epochs=1,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        accelerator="cpu",
    )
    trainer.fit(module)
    return module, start


def test_positive_nll_changes_the_update_by_exactly_its_gradient(tmp_path):
    plain, start = _run(tmp_path / "a")
    coef = 0.3
    with_nll, _ = _run(tmp_path / "b", **{"algo.positive_nll_coef": coef})
    # split into micro-batches of 3 the term must not change: it is reduced over the mini-batch
    split, _ = _run(tmp_path / "c", **{"algo.positive_nll_coef": coef, "algo.micro_batch_size": 3})
    batch: UpdateBatch = with_nll.trained
    assert batch.positive.tolist() == [g < G // 2 for _ in range(4) for g in range(G)]  # reward == 1.0
    assert plain.trained.positive is None

    # the term's gradient on the starting policy: d/dtheta of mean over rewarded tokens of -log pi
    policy, _ = load_model("tiny")
    policy.load_state_dict(start)
    policy.eval()
    logp, _ = response_logprobs(
        policy, batch.input_ids, batch.attention_mask, batch.prompt_length, temperature=0.8
    )  # [K, T]
    positive = batch.positive_mask  # [K, T]
    nll = -(logp * positive).sum() / positive.sum()  # ce_gppo reduces token_mean
    grads = dict(zip([n for n, _ in policy.named_parameters()], torch.autograd.grad(nll, list(policy.parameters()))))
    lr = 0.5
    moved = 0.0
    for name, grad in grads.items():
        delta = with_nll.policy.state_dict()[name] - plain.policy.state_dict()[name]
        torch.testing.assert_close(delta, -lr * coef * grad, rtol=1e-3, atol=2e-6, msg=name)
        torch.testing.assert_close(
            split.policy.state_dict()[name], with_nll.policy.state_dict()[name], atol=2e-6, rtol=1e-4
        )
        moved = max(moved, float(delta.abs().max()))
    assert moved > 1e-4  # the term did move the weights
    assert with_nll.history[0]["positive_nll"] == pytest.approx(float(nll), rel=1e-4)


def test_the_nll_term_trains_on_correct_answers_only_even_when_every_reward_is_equal(tmp_path):
    # reward.correct == reward.incorrect: the reward cannot tell a right answer from a wrong one; the
    # grader's verdict can (this trained on every wrong answer before)
    module, _ = _run(tmp_path, **{"algo.positive_nll_coef": 0.1, "reward.correct": 0.0, "reward.incorrect": 0.0})
    assert module.trained.positive.tolist() == [g < G // 2 for _ in range(4) for g in range(G)]


def test_positive_rows_need_the_verdict_and_the_full_reward():
    config = load_train_config("tiny", None, {"algo.positive_nll_coef": 0.1})
    rewards = torch.tensor([1.0, 0.0, 0.7, 1.0])  # 0.7: a correct answer shaped down by the overlong penalty
    correct = torch.tensor([True, False, True, False])
    assert positive_rows(config, rewards, correct).tolist() == [True, False, False, False]
    assert positive_rows(load_train_config("tiny", None, {}), rewards, correct) is None


def test_dynamic_sampling_keeps_the_first_mixed_groups(tmp_path):
    class Patterned(ScriptedRollouts):
        # generation batch at position 0: groups 0, 2, 4 all-right / all-wrong, 1, 3, 5, 6 mixed
        pattern = staticmethod(lambda position, prompt: [G, 1, 0, 3, G, 2, 1, 0][prompt])

    module, _ = _run(tmp_path, Patterned, **{"algo.dynamic_sampling": True, "rollout.gen_batch_prompts": 8})
    assert module.positions == [0]  # one generation batch filled the step
    # trained on groups 1, 3, 5, 6 (the first 4 mixed), their G rows each, in generation order
    rows = module.trained
    assert len(rows) == 4 * G
    right_per_group = [int(module.trained.advantages[i * G : (i + 1) * G].gt(0).sum()) for i in range(4)]
    assert right_per_group == [1, 3, 2, 1]
    history = module.history[0]
    assert history["gen_batches"] == 1 and history["kept_prompts"] == 4
    assert history["kept_frac"] == pytest.approx(0.5)  # 16 of the 32 generated rows


def test_dynamic_sampling_rolls_out_more_batches_until_the_step_is_full(tmp_path):
    class Sparse(ScriptedRollouts):
        # position 0 (step 0, batch 0): 1 mixed group of 4; position 1 (batch 1): groups 0 and 2 mixed
        pattern = staticmethod(
            lambda position, prompt: {0: [G, 2, 0, 0], 1: [1, 0, 3, G], 2: [2] * 4}[position][prompt]
        )

    module, _ = _run(tmp_path, Sparse, **{"algo.dynamic_sampling": True, "algo.max_gen_batches": 3})
    # step 0 reads positions 0, 1 (of its 0..2); 1 + 2 = 3 mixed groups < 4, so position 2 too
    assert module.positions == [0, 1, 2]
    assert len(module.trained) == 4 * G and module.history[0]["gen_batches"] == 3
    right = [int(module.trained.advantages[i * G : (i + 1) * G].gt(0).sum()) for i in range(4)]
    assert right == [2, 1, 3, 2]  # batch 0's group 1, batch 1's groups 0 and 2, batch 2's group 0


def test_dynamic_sampling_trains_on_fewer_when_the_batches_run_out(tmp_path):
    class Hard(ScriptedRollouts):
        pattern = staticmethod(lambda position, prompt: [0, 0, 1, 0][prompt])  # one mixed group

    module, _ = _run(tmp_path, Hard, **{"algo.dynamic_sampling": True, "algo.max_gen_batches": 2})
    assert module.positions == [0, 1]  # as the official code with max_num_gen_batches 2
    assert len(module.trained) == 2 * G  # one group from each batch
    assert module.history[0]["kept_prompts"] == 2


def test_mixed_and_first_groups():
    correct = torch.tensor([1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 1, 1]).bool()  # groups of 2
    mixed = mixed_groups(correct, 2)
    assert mixed.tolist() == [False, False, False, True, True, False]  # all right / all wrong dropped
    assert first_groups(mixed, 2, 2).tolist() == [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0]
    assert first_groups(mixed, 1, 2).tolist() == [0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0]


def test_concat_rollouts_pads_prompts_left_and_responses_right():
    a = Rollouts(
        torch.tensor([[5, 6]]),
        torch.tensor([[1, 1]]),
        torch.tensor([[7]]),
        torch.tensor([[1]]),
        torch.tensor([False]),
        ["x"],
        torch.tensor([0]),
        torch.tensor([[-0.5]]),
    )
    b = Rollouts(
        torch.tensor([[8]]),
        torch.tensor([[1]]),
        torch.tensor([[9, 3]]),
        torch.tensor([[1, 1]]),
        torch.tensor([True]),
        ["y"],
        torch.tensor([0]),
        torch.tensor([[-1.0, -2.0]]),
    )
    both = concat_rollouts([a, b], pad_id=0)
    assert both.prompt_ids.tolist() == [[5, 6], [0, 8]] and both.prompt_mask.tolist() == [[1, 1], [0, 1]]
    assert both.response_ids.tolist() == [[7, 0], [9, 3]] and both.response_mask.tolist() == [[1, 0], [1, 1]]
    assert both.prompt_index.tolist() == [0, 1] and both.texts == ["x", "y"]
    assert both.logprobs.tolist() == [[-0.5, 0.0], [-1.0, -2.0]]


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        ({"rollout.gen_batch_prompts": 16}, "applies to algo.dynamic_sampling=true"),
        ({"algo.max_gen_batches": 2}, "applies to algo.dynamic_sampling=true"),
        ({"algo.dynamic_sampling": True, "rollout.gen_batch_prompts": 2}, "below rollout.prompts_per_step"),
        ({"algo.positive_nll_coef": -0.1}, "positive_nll_coef"),
    ],
)
def test_recipe_keys_refuse_inconsistent_values(overrides, match):
    from harness.common.errors import ConfigError

    with pytest.raises(ConfigError, match=match):
        load_train_config("tiny", None, {"rollout.prompts_per_step": 4, "algo.mini_batches": 2, **overrides})


def test_a_step_that_keeps_no_group_says_so_and_a_run_without_updates_is_stopped(tmp_path, capsys):
    class Hopeless(ScriptedRollouts):
        pattern = staticmethod(lambda position, prompt: 0)  # every group all wrong: none is mixed

    overrides = {"algo.dynamic_sampling": True, "algo.max_gen_batches": 3, "run.steps": 1}
    module, start = _run(tmp_path, Hopeless, **overrides)
    assert module.positions == [0, 1, 2]
    assert module.history[0]["without_update"] == 1.0 and module.history[0]["kept_prompts"] == 0
    assert "step 0: dynamic sampling kept no group in 3 generation batch(es)" in capsys.readouterr().err
    assert module.stop_reason.startswith("no step updated the policy: dynamic sampling kept no group in any of")
    assert all(torch.equal(start[k], v) for k, v in module.policy.state_dict().items())  # nothing moved
    assert stability_figures(module.history)["steps_without_update"] == 1.0


def test_a_long_search_for_mixed_groups_prints_progress(tmp_path, capsys):
    class Hopeless(ScriptedRollouts):
        pattern = staticmethod(lambda position, prompt: 0)

    _run(tmp_path, Hopeless, **{"algo.dynamic_sampling": True, "algo.max_gen_batches": 8, "run.steps": 1})
    err = capsys.readouterr().err
    assert "step 0: 4 of up to 8 generation batches, 0 of" in err and "step 0: 8 of up to 8 generation batches" in err
    assert "3 of up to 8" not in err  # only at 4, 8, 16, ... batches


def test_summary_json_is_valid_json_when_a_figure_has_no_data():
    # a run that never updated has no entropy or KL: NaN used to be written, which JSON does not allow
    summary = {"stability": {"end_entropy": float("nan"), "max_grad_norm": float("inf"), "steps": 2}, "history": []}
    text = json.dumps(finite_or_null(summary))
    read = json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in summary.json"))
    assert read["stability"] == {"end_entropy": None, "max_grad_norm": None, "steps": 2}
    assert math.isnan(null_as_nan(read["stability"])["end_entropy"])  # Table 1 reads it back as a missing figure


def test_a_step_that_trains_counts_as_updated(tmp_path):
    module, _ = _run(tmp_path, **{"run.steps": 1})
    assert module.history[0]["without_update"] == 0.0 and module.stop_reason is None


def test_generation_batches_are_bounded():
    with pytest.raises(ConfigError, match=r"algo.max_gen_batches=1000000 is out of range; allowed: >= 1 and <= 64"):
        load_train_config("tiny", None, {"algo.dynamic_sampling": True, "algo.max_gen_batches": 1_000_000})
