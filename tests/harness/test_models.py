"""Built-in models: both load, chat-generate, and survive save/load with identical logits."""

import pytest
import torch

from harness.common.errors import ConfigError
from harness.models import BUILTIN_MODELS, build_tiny, load_model, parameter_count
from harness.rollout.engine import chat_prompt


def test_tiny_model(check_model, tmp_path):
    model, tokenizer = check_model("tiny", "07+45=", tmp_path)
    assert 100_000 <= sum(p.numel() for p in model.parameters()) <= 2_000_000
    assert chat_prompt(tokenizer, "07+45=") == "<|user|>07+45=<|assistant|>"
    # character level: one token per character, and decoding gives the text back exactly
    ids = tokenizer("12 + 3\n=15", add_special_tokens=False).input_ids
    assert len(ids) == len("12 + 3\n=15")
    assert tokenizer.decode(ids) == "12 + 3\n=15"


def test_tiny_is_deterministic_from_seed(tmp_path):
    a = load_model(str(build_tiny(tmp_path / "a", seed=3)))[0]
    b = load_model(str(build_tiny(tmp_path / "b", seed=3)))[0]
    c = load_model(str(build_tiny(tmp_path / "c", seed=4)))[0]
    pa, pb, pc = (torch.cat([p.flatten() for p in m.parameters()]) for m in (a, b, c))
    assert torch.equal(pa, pb) and not torch.equal(pa, pc)


@pytest.mark.parametrize("name", list(BUILTIN_MODELS))
def test_each_builtin_states_its_own_parameter_count(name):
    """`harness models` prints the stated counts (counting SmolLM2 from its GGUF took 8-27 s); this is the
    one place that counts them, from the model's own config (meta tensors: no weights are loaded)."""
    assert BUILTIN_MODELS[name].parameters == parameter_count(name)


def test_unknown_model_is_a_clear_error():
    from harness.common.errors import ConfigError

    with pytest.raises(ConfigError, match="neither a built-in"):
        load_model("no-such-org/no-such-model")


@pytest.mark.parametrize(
    "files, message",
    [
        ({"config.json": "{not json"}, "config.json is not valid JSON"),
        ({"config.json": "[1, 2]"}, "config.json has no 'model_type'"),
        ({"config.json": '{"model_type": "llama"}'}, "has no tokenizer (none of tokenizer.json"),
        ({"config.json": '{"model_type": "llama"}', "tokenizer.json": "{}"}, "cannot be loaded"),
    ],
)
def test_broken_model_folders_are_one_line_errors(files, message, tmp_path):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(ConfigError) as error:
        load_model(str(tmp_path))
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_run_directory_resolves_to_its_model(tmp_path):
    model, tokenizer = load_model("tiny")
    model.save_pretrained(tmp_path / "model")
    tokenizer.save_pretrained(tmp_path / "model")
    loaded, _ = load_model(str(tmp_path))
    assert loaded.config.hidden_size == model.config.hidden_size


def save_tiny(config, path, model_class=None):
    """A folder holding `config` (and, with `model_class`, its random weights) beside the tiny
    character tokenizer: no download, a few kilobytes."""
    from harness.models import build_tiny_tokenizer

    tokenizer = build_tiny_tokenizer()
    if model_class is None:
        config.save_pretrained(path)
    else:
        model_class(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return str(path)


@pytest.fixture(scope="module")
def architectures(tmp_path_factory):
    """Tiny folders of an encoder (BERT, RoBERTa), an encoder-decoder (T5) and a GPT-2."""
    from transformers import BertConfig, GPT2Config, GPT2LMHeadModel, RobertaConfig, T5Config

    root = tmp_path_factory.mktemp("arch")
    small = {"vocab_size": 110, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 32}
    return {
        "bert": save_tiny(BertConfig(hidden_size=16, **small, architectures=["BertForMaskedLM"]), root / "bert"),
        "roberta": save_tiny(RobertaConfig(hidden_size=16, **small), root / "roberta"),
        "t5": save_tiny(T5Config(vocab_size=110, d_model=16, d_ff=32, num_layers=1, num_heads=2), root / "t5"),
        "gpt2": save_tiny(GPT2Config(vocab_size=110, n_embd=16, n_layer=1, n_head=2), root / "gpt2", GPT2LMHeadModel),
    }


@pytest.mark.parametrize(
    "name, message",
    [
        ("bert", "is an encoder (bert, bidirectional attention), not a decoder-only causal LM"),
        ("roberta", "is an encoder (roberta, bidirectional attention)"),
        ("t5", "is an encoder-decoder model (t5)"),
    ],
)
def test_encoders_and_encoder_decoders_are_refused(name, message, architectures):
    with pytest.raises(ConfigError) as error:
        load_model(architectures[name])
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_gpt2_folder_loads(architectures):
    model, tokenizer = load_model(architectures["gpt2"])
    assert type(model).__name__ == "GPT2LMHeadModel" and tokenizer.pad_token is not None


def test_tiny_countdown_is_the_tiny_family_at_about_a_million_parameters(check_model, tmp_path):
    from harness.models import parameter_count

    model, tokenizer = check_model("tiny-countdown", "3 5 7>22:", tmp_path)
    count = sum(p.numel() for p in model.parameters())
    assert count == parameter_count("tiny-countdown") == 1_041_920  # the count its description states
    assert (model.config.hidden_size, model.config.num_hidden_layers) == (160, 4)
    assert tokenizer("5*3=15 A:(5*3)+7", add_special_tokens=False).input_ids.__len__() == len("5*3=15 A:(5*3)+7")
