"""What a config field declares beyond its type, and the questions asked of a config tree through it.

    steps: int = param(300, ge=1, resumable=True)          # --resume may change it
    staleness: int = param(0, ge=0, since="abb714f")       # added after runs and stores existed
    behaviour_cap: float = param(2.0, ge=1, since="abb714f", applies=Applies("rollout.staleness", ">=", 1))

A field says, once, where it sits:
- `ge` / `gt` / `le` / `lt`: numeric bounds, checked when a config is built (`harness.dataclass_config`);
- `resumable`: a `--resume` may change it (the run's length, or a knob that changes nothing computed:
  memory chunking, threads, bookkeeping); every other key must match the checkpoint's run;
- `since`: the commit that added it to the config, after runs, sweep studies and Table 1 stores existed.
  Its default is what those ran with, so identities (a resume's comparison, Table 1's job hash, a
  study's fingerprint) leave it out while it holds its default (`without_added_defaults`);
- `applies`: "this option only applies when X": set away from its default while X does not hold, it
  is refused with one line (`check_applies`).

The queries walk any tree of config dataclasses, whatever the section.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from functools import reduce
from typing import Any, Literal

from harness.common.errors import ConfigError


@dataclass(frozen=True)
class Applies:
    """The condition under which a field means something: the dotted `key` of the same config compared
    with `value`; `why` is added to the refusal."""

    key: str
    op: Literal["=", ">="]
    value: Any
    why: str = ""

    def holds(self, root: Any) -> bool:
        actual = reduce(getattr, self.key.split("."), root)
        return actual == self.value if self.op == "=" else actual >= self.value

    def text(self) -> str:
        shown = str(self.value).lower() if isinstance(self.value, bool) else self.value  # as YAML writes it
        return f"{self.key}={shown}" if self.op == "=" else f"{self.key} {self.op} {shown}"


def param(
    default: Any = dataclasses.MISSING,
    *,
    ge=None,
    gt=None,
    le=None,
    lt=None,
    default_factory=None,
    resumable: bool = False,
    since: str | None = None,
    applies: Applies | None = None,
):
    """A dataclass field with its bounds and its place in the config's life (see the module docstring)."""
    bounds = {k: v for k, v in dict(ge=ge, gt=gt, le=le, lt=lt).items() if v is not None}
    metadata = {"bounds": bounds, "resumable": resumable, "since": since, "applies": applies}
    if default_factory is not None:
        return dataclasses.field(default_factory=default_factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def default_of(fld: dataclasses.Field) -> Any:
    """A field's default value (a fresh one from its factory); MISSING for a required field."""
    if fld.default_factory is not dataclasses.MISSING:
        return fld.default_factory()
    return fld.default


def leaf_fields(cls: type, prefix: str = "") -> Iterator[tuple[str, dataclasses.Field]]:
    """(dotted key, field) of every leaf of a config tree, sections entered in declaration order."""
    hints = typing.get_type_hints(cls)
    for fld in dataclasses.fields(cls):
        if dataclasses.is_dataclass(hints[fld.name]):
            yield from leaf_fields(hints[fld.name], f"{prefix}{fld.name}.")
        else:
            yield f"{prefix}{fld.name}", fld


def resumable_keys(cls: type) -> tuple[str, ...]:
    """The dotted keys a `--resume` may change."""
    return tuple(key for key, fld in leaf_fields(cls) if fld.metadata.get("resumable"))


def added_keys(cls: type) -> dict[str, Any]:
    """{dotted key: default} of the keys added after records existed (`since`)."""
    return {key: default_of(fld) for key, fld in leaf_fields(cls) if fld.metadata.get("since")}


def without_added_defaults(cls: type, flat: dict[str, Any]) -> dict[str, Any]:
    """A flattened config of `cls` without the added keys that hold their default (a record written
    before a key existed ran with that default; one that sets it to another value counts)."""
    at_default = {key for key, default in added_keys(cls).items() if flat.get(key, None) == default}
    return {key: value for key, value in flat.items() if key not in at_default}


def check_applies(config: Any) -> None:
    """Refuse a field set away from its default where its `applies` condition does not hold."""
    for key, fld in leaf_fields(type(config)):
        condition = fld.metadata.get("applies")
        if condition is None:
            continue
        value = reduce(getattr, key.split("."), config)
        if value != default_of(fld) and not condition.holds(config):
            why = f"; {condition.why}" if condition.why else ""
            raise ConfigError(f"{key}={value!r} applies to {condition.text()}{why}")
