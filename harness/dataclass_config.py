"""The machinery of typed configs: frozen dataclasses built from YAML layers and dotted flags, checked.

The configs themselves (training, evaluation) are declared in `harness.schema`; the sweep file
in `sweeps.config`. This module knows nothing of what they hold. A config is a tree of frozen
dataclasses. Each field may carry bounds and more (`harness.config_fields.param`) or choices (a
`Literal`) and an attribute docstring (a string literal right below the field) that becomes its `--help` text.
`build_config(cls, layers)` merges plain dicts (a profile, a YAML file, command-line overrides)
in order, then checks every key, type and range before any work starts. Every problem raises
`ConfigError` with a one-line message naming the key, the value and what is allowed; the CLI
turns it into exit status 2 with no traceback.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import math
import re
import textwrap
import types
import typing
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import yaml

from harness.common.errors import ConfigError
from harness.config_fields import default_of


@cache
def field_docs(cls: type) -> dict[str, str]:
    """Attribute docstrings of a dataclass: the string literal that follows each field."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError):
            continue
        body = tree.body[0].body  # type: ignore[attr-defined]
        for node, nxt in zip(body, body[1:]):
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant)
                and isinstance(nxt.value.value, str)
            ):
                docs[node.target.id] = " ".join(nxt.value.value.split())
    return docs


class _YAMLLoader(yaml.SafeLoader):
    """PyYAML's safe loader (YAML 1.1) plus every float YAML 1.2 reads: `1e-5`, `3E4`, `.5e3`, `-.5`.

    YAML 1.1 reads `1e-5` as the string "1e-5", which would turn the most common way of writing
    a learning rate into a type error."""


_YAMLLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    # 1e-5, 1.5E3 (any exponent); .5, -.5, .5e3 (a leading dot, with any sign or exponent)
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+|\.[0-9][0-9_]*(?:[eE][-+]?[0-9]+)?)$"),
    list("-+.0123456789"),
)


def load_yaml(path: str | Path) -> dict:
    """Read a YAML mapping; a missing file or a non-mapping is a ConfigError."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_YAMLLoader) or {}
    except UnicodeDecodeError:
        raise ConfigError(f"config file {path} is not UTF-8 text") from None
    except yaml.YAMLError as err:
        where = getattr(err, "problem_mark", None)
        line = f" line {where.line + 1}" if where else ""
        raise ConfigError(f"config file {path}{line} is not valid YAML") from None
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} must hold a mapping of keys, got {type(data).__name__}")
    inside_itself = _self_containing(data)
    if inside_itself is not None:
        raise ConfigError(
            f"config file {path}: '{inside_itself}' contains itself (a YAML alias to a section around it); "
            "copy the values instead"
        )
    return data


def _self_containing(data: Any) -> str | None:
    """The dotted key of a section that contains itself through an alias (`overrides: &o {loss: *o}`), or None.

    PyYAML builds an alias as the same Python object, so such a file is a cycle: merging or walking it
    recurses for ever. Each node is visited once (a shared, acyclic alias such as a "billion laughs" costs
    no more than its distinct nodes)."""
    done: set[int] = set()
    around: set[int] = set()

    def visit(node: Any, key: str) -> str | None:
        if not isinstance(node, (dict, list)) or id(node) in done:
            return None
        if id(node) in around:
            return key
        around.add(id(node))
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for child_key, child in items:
            found = visit(child, f"{key}.{child_key}" if key else str(child_key))
            if found is not None:
                return found
        around.discard(id(node))
        done.add(id(node))
        return None

    return visit(data, "")


_NULLS = ("null", "Null", "NULL", "~")


def parse_value(text: str) -> Any:
    """Turn a command-line string into a YAML scalar (0.5 -> float, true -> bool, null -> None).

    Text stays exactly as typed unless it is quoted: a command line has no comments, and YAML would
    cut a path at " #" (`run ☃ #1/ml flow.db`), read "#1" as null and trim surrounding spaces."""
    if not text.strip():
        return text  # an empty value typed on the command line stays an empty string, never null
    try:
        value = yaml.load(text, Loader=_YAMLLoader)
    except yaml.YAMLError:
        return text
    if isinstance(value, str) and not text.lstrip().startswith(("'", '"')):
        return text
    if value is None and text.strip() not in _NULLS:
        return text
    return value


def dotted_to_nested(overrides: dict[str, Any]) -> dict:
    """{"optim.lr": 1e-5} -> {"optim": {"lr": 1e-5}}."""
    nested: dict = {}
    for key, value in overrides.items():
        node = nested
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"--{key}: '{part}' is set both as a value and as a section")
        node[leaf] = value
    return nested


def deep_merge(base: dict, update: dict) -> dict:
    """Recursive dict merge; values in `update` win."""
    out = dict(base)
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def check_sections(cls: type, layer: dict, origin: str, prefix: str = "") -> None:
    """Refuse a layer whose section keys are not sections: a bare `run:` line in a YAML file is
    None, and merging it would silently throw away every default of that section."""
    hints = typing.get_type_hints(cls)
    for fld in dataclasses.fields(cls):
        tp = hints[fld.name]
        if fld.name not in layer or not dataclasses.is_dataclass(tp):
            continue
        value = layer[fld.name]
        if not isinstance(value, dict):
            shown = "empty (a bare key with nothing under it)" if value is None else f"{value!r}, not a section"
            raise ConfigError(f"{origin}: '{prefix}{fld.name}' is {shown}; give it keys or remove it")
        check_sections(tp, value, origin, f"{prefix}{fld.name}.")


def build_config(cls: type, *layers: dict, prefix: str = "") -> Any:
    """Merge the layers in order and build a validated instance of the dataclass `cls`."""
    merged: dict = {}
    for layer in layers:
        merged = deep_merge(merged, layer)
    return _build(cls, merged, prefix)


def _build(cls: type, data: dict, prefix: str) -> Any:
    hints = typing.get_type_hints(cls)
    known = {f.name: f for f in dataclasses.fields(cls) if f.init}
    for key in data:
        if key not in known:
            raise ConfigError(f"unknown key '{prefix}{key}'; valid keys here: {', '.join(sorted(known))}")
    kwargs = {}
    for name, fld in known.items():
        if name not in data:
            continue
        kwargs[name] = _coerce(hints[name], data[name], prefix + name)
        _check_bounds(fld, kwargs[name], prefix + name, shown=data[name])
    try:
        return cls(**kwargs)
    except ConfigError:
        raise
    except (TypeError, ValueError) as err:
        raise ConfigError(f"{prefix.rstrip('.') or cls.__name__}: {err}") from None


def _check_bounds(fld: dataclasses.Field, value: Any, key: str, shown: Any) -> None:
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return
    bounds = fld.metadata.get("bounds", {})
    tests = {
        "ge": (lambda v, b: v >= b, ">="),
        "gt": (lambda v, b: v > b, ">"),
        "le": (lambda v, b: v <= b, "<="),
        "lt": (lambda v, b: v < b, "<"),
    }
    for name, bound in bounds.items():
        ok, symbol = tests[name]
        if not ok(value, bound):
            allowed = " and ".join(f"{tests[n][1]} {b}" for n, b in bounds.items())
            raise ConfigError(f"{key}={shown!r} is out of range; allowed: {allowed}")


def _type_name(tp: Any) -> str:
    if get_origin(tp) is Literal:
        return "one of " + ", ".join(repr(a) for a in get_args(tp))
    if _is_union(tp):
        return " or ".join(_type_name(a) for a in get_args(tp))
    if tp is type(None):
        return "null"
    return getattr(tp, "__name__", str(tp))


def _is_union(tp: Any) -> bool:
    return get_origin(tp) in (typing.Union, types.UnionType)


def _coerce(tp: Any, value: Any, key: str) -> Any:
    """Check `value` against the annotation `tp`, converting only where it is lossless."""
    bad = ConfigError(f"{key}={value!r} has the wrong type; allowed: {_type_name(tp)}")
    if _is_union(tp):
        for option in get_args(tp):
            try:
                return _coerce(option, value, key)
            except ConfigError:
                continue
        raise bad
    origin = get_origin(tp)
    if tp is Any:
        return value
    if tp is type(None):
        if value is None:
            return None
        raise bad
    if origin is Literal:
        if value in get_args(tp):
            return value
        raise ConfigError(f"{key}={value!r} is not allowed; allowed: {_type_name(tp)}")
    if dataclasses.is_dataclass(tp):
        if isinstance(value, tp):
            return value
        if not isinstance(value, dict):
            raise ConfigError(f"{key} must be a section of keys, got {value!r}")
        return _build(tp, value, key + ".")
    if origin in (dict,) or tp is dict:
        if not isinstance(value, dict):
            raise bad
        key_tp, item_tp = get_args(tp) or (Any, Any)
        return {
            _coerce_entry(key_tp, name, key, is_key=True): _coerce_entry(item_tp, item, f"{key}.{name}")
            for name, item in value.items()
        }
    if origin in (list, tuple) or tp in (list, tuple):
        if not isinstance(value, (list, tuple)):
            raise bad
        (item_tp, *_) = get_args(tp) or (Any,)
        items = [_coerce(item_tp, v, f"{key}[{i}]") for i, v in enumerate(value)]
        return tuple(items) if (origin is tuple or tp is tuple) else items
    if tp is bool:
        if isinstance(value, bool):
            return value
        raise bad
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise bad
    if tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if not math.isfinite(value):
                raise ConfigError(f"{key}={value!r} is not a finite number")
            return float(value)
        raise bad
    if tp is str:
        if isinstance(value, str):
            return value
        raise bad
    if tp is Path:
        if isinstance(value, (str, Path)):
            return Path(value)
        raise bad
    raise bad


def _coerce_entry(tp: Any, value: Any, key: str, is_key: bool = False) -> Any:
    """A key or value of a mapping (`key` names the mapping for a key, the entry for a value).

    Where the mapping holds text (dict[str, str]: MLflow tags), a number or boolean becomes its
    text, because YAML reads `{seed: 1}` as an int; a nested mapping or list is refused (it would
    end up stored as a Python repr), and so is null."""
    if tp is str and isinstance(value, (bool, int, float)):
        return str(value)
    if tp is str and not isinstance(value, str):
        shown = f"{key}: the key {value!r}" if is_key else f"{key}={value!r}"
        raise ConfigError(f"{shown} has the wrong type; allowed: text, a number or a boolean")
    return _coerce(tp, value, f"{key} key" if is_key else key)


def to_dict(config: Any) -> dict:
    """A plain, YAML-safe dict of a config tree (Paths become strings)."""

    def plain(value):
        if isinstance(value, Path):
            return str(value)
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        return value

    return {k: plain(v) for k, v in dataclasses.asdict(config).items()}


def help_rows(cls: type, prefix: str = "") -> Iterator[tuple[str, str, str]]:
    """(dotted key, default, doc) for every leaf field of a config tree, for `--help`."""
    hints = typing.get_type_hints(cls)
    docs = field_docs(cls)
    for fld in dataclasses.fields(cls):
        tp = hints[fld.name]
        if dataclasses.is_dataclass(tp):
            yield from help_rows(tp, f"{prefix}{fld.name}.")
            continue
        default = default_of(fld)
        yield (
            f"{prefix}{fld.name}",
            "(required)" if default is dataclasses.MISSING else repr(default),
            docs.get(fld.name, ""),
        )
