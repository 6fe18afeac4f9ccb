"""One static HTML page for a table: styles inline, figures embedded as data URIs, no network needed."""

from __future__ import annotations

import base64
import html
from pathlib import Path

from harness.reports.table import STABILITY, TableRow, cell_text, stability_texts

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1400px; color: #222; }
table { border-collapse: collapse; font-size: 0.85em; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: right; }
th { background: #f0f0f0; } td:first-child, th:first-child { text-align: left; }
tr.paper td { color: #777; font-style: italic; }
.holds { color: #1a7f37; font-weight: 600; } .not { color: #c62828; font-weight: 600; }
.noise { color: #9a6700; font-weight: 600; }
figure { display: inline-block; margin: 0.5em; } img { max-width: 640px; border: 1px solid #ddd; }
.note { color: #555; }
.audit { border-left: 4px solid #0969da; padding: 0.2em 0.6em; background: #f3f8ff; }
"""


def _image(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode()
    name = html.escape(path.stem.replace("_", " "))
    return f'<figure><img alt="{name}" src="data:image/png;base64,{data}"><figcaption>{name}</figcaption></figure>'


def table_html(
    rows: list[TableRow], benchmarks: list[str], paper: dict | None = None, extra: dict | None = None
) -> str:
    """The table; `extra` adds columns {header: {row label: text}} after the stability ones."""
    columns = [*benchmarks, "Avg"]
    extra = extra or {}
    head = ["algorithm", "seeds", *columns, *(name for _, name, _ in STABILITY), *extra]
    out = ["<table>", "<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for row in rows:
        cells = [row.label, str(row.seeds), *(cell_text(row, c) for c in columns), *stability_texts(row)]
        cells += [extra[h].get(row.label, "") for h in extra]
        out.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
        reported = (paper or {}).get(row.label)
        if reported:
            values = [f"{row.label} (paper)", "", *(f"{v:g}" for v in reported)]
            out.append('<tr class="paper">' + "".join(f"<td>{html.escape(v)}</td>" for v in values) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def html_page(title, setup, rows, benchmarks, paper, verdicts, figures, missing=(), extra=None, audit=None) -> str:
    """The page; `audit` is the grader audit's line (benchmarks.grader_audit.audit_line), shown under the setup."""
    classes = {"holds": "holds", "does not hold": "not", "inside noise": "noise"}
    claims = []
    for v in verdicts:
        text = html.escape(v.line().removeprefix("- ").replace("**", ""))
        verdict = html.escape(v.verdict)
        if v.verdict in classes:
            text = text.replace(verdict, f'<span class="{classes[v.verdict]}">{verdict}</span>', 1)
        claims.append(f"<li>{text}</li>")
    parts = [
        "<!doctype html>",
        f'<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title><style>{STYLE}</style></head>',
        f"<body><h1>{html.escape(title)}</h1><p class='note'>{html.escape(setup)}</p>",
    ]
    if audit:
        parts.append(f"<p class='audit'>{html.escape(audit)}</p>")
    parts.append(table_html(rows, benchmarks, paper, extra))
    if missing:
        parts.append(f"<p class='note'>Not finished (left out): {html.escape(', '.join(missing))}</p>")
    if verdicts:
        parts += ["<h2>The paper's claims on this profile</h2>", "<ul>", *claims, "</ul>"]
    if figures:
        parts += ["<h2>Figures</h2>", *(_image(p) for p in figures)]
    parts.append("</body></html>")
    return "\n".join(parts)
