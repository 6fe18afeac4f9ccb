"""How `harness table1` starts its jobs: the `harness` command line with the tracking URI taken from
the environment instead of the argument list, and a training followed by its evaluation in one process.

    HARNESS_TABLE1_TRACKING_URI=postgresql://u:PASSWORD@db/x \
        python -m harness.reports.table1.child_command train --config job.yaml --then eval --model=...

A password in the tracking URI must not show in `ps`, which every user of the machine can read; a
process's environment can be read only by its owner (and root). table1 puts the URI in
HARNESS_TABLE1_TRACKING_URI; this takes it out of the environment (the job's own children do not
inherit it) and hands it to `harness train` / `harness eval` as --tracking-uri, in this process.

`--then` separates commands run one after the other in this process, each to its end, stopping at the
first that fails (its exit status is this process's). A trained job evaluates its policy this way:
one Python start-up, with torch, transformers, Lightning and MLflow imported once, instead of two
(about 7 s of a job's 3 minutes on the countdown profile, docs/countdown-testbed.md r23).
"""

from __future__ import annotations

import json
import os
import sys

from harness.common.uris import HANDED_URI_ENV

THEN = "--then"  # between two commands of one child


def commands(argv: list[str]) -> list[list[str]]:
    """The commands of a child's argv: the parts between THEN markers (none empty)."""
    parts, current = [], []
    for word in argv:
        if word == THEN:
            parts.append(current)
            current = []
        else:
            current.append(word)
    parts.append(current)
    if any(not part for part in parts):
        raise SystemExit(f"child_command: an empty command in {argv!r}")
    return parts


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    uri = os.environ.pop(HANDED_URI_ENV, None)
    from harness.cli import main as harness

    for command in commands(argv):
        if uri is not None:
            # `harness eval` reads each flag's value as YAML (a '#' would start a comment): a JSON string is
            # a YAML string that reads back exactly; `harness train --tracking-uri` takes the text as it is
            command.append(f"--tracking-uri={json.dumps(uri) if command[:1] == ['eval'] else uri}")
        code = harness(command)
        if code:
            return code
    return 0


if __name__ == "__main__":
    sys.exit(main())
