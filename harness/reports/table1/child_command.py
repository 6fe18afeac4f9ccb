"""How `harness table1` starts its jobs: the `harness` command line with the tracking URI taken from
the environment instead of the argument list.

    HARNESS_TABLE1_TRACKING_URI=postgresql://u:PASSWORD@db/x \
        python -m harness.reports.table1.child_command train --config job.yaml

A password in the tracking URI must not show in `ps`, which every user of the machine can read; a
process's environment can be read only by its owner (and root). table1 puts the URI in
HARNESS_TABLE1_TRACKING_URI; this takes it out of the environment (the job's own children do not
inherit it) and hands it to `harness train` / `harness eval` as --tracking-uri, in this process.
"""

from __future__ import annotations

import json
import os
import sys

from harness.common.uris import HANDED_URI_ENV


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    uri = os.environ.pop(HANDED_URI_ENV, None)
    if uri is not None:
        # `harness eval` reads each flag's value as YAML (a '#' would start a comment): a JSON string is
        # a YAML string that reads back exactly; `harness train --tracking-uri` takes the text as it is
        argv.append(f"--tracking-uri={json.dumps(uri) if argv[:1] == ['eval'] else uri}")
    from harness.cli import main as harness

    return harness(argv)


if __name__ == "__main__":
    sys.exit(main())
