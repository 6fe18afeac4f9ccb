"""Built-in models: both load, chat-generate, and survive save/load with identical logits."""

import pytest
import torch

from harness.common.errors import ConfigError
from harness.models import build_tiny, load_model
from harness.rollout import chat_prompt


def roundtrip(model, tokenizer, tmp_path):
    model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    return load_model(str(tmp_path))


def check_model(name, text, tmp_path):
    model, tokenizer = load_model(name)
    model.eval()
    prompt = chat_prompt(tokenizer, text)
    enc = tokenizer([prompt], return_tensors="pt", add_special_tokens=False)
    torch.manual_seed(0)
    out = model.generate(**enc, max_new_tokens=6, do_sample=True, pad_token_id=tokenizer.pad_token_id)
    new_tokens = out[0, enc.input_ids.shape[1] :]
    assert 1 <= len(new_tokens) <= 6
    assert isinstance(tokenizer.decode(new_tokens, skip_special_tokens=True), str)

    model2, tokenizer2 = roundtrip(model, tokenizer, tmp_path)
    model2.eval()
    assert chat_prompt(tokenizer2, text) == prompt  # the chat template survives
    with torch.no_grad():
        assert torch.equal(model(**enc).logits, model2(**enc).logits)
    return model, tokenizer


def test_tiny_model(tmp_path):
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


def test_smollm2_from_the_wheel(tmp_path):
    model, tokenizer = check_model("smollm2-135m-instruct", "What is 2 + 3? Answer with just the number.", tmp_path)
    assert "<|im_start|>assistant" in chat_prompt(tokenizer, "hi")
    # the cached folder holds plain float32 weights, not a GGUF quantisation
    assert getattr(model.config, "quantization_config", None) is None
    assert all(p.dtype == torch.float32 for p in model.parameters())


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
