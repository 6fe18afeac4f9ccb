"""Static HTML pages of tables: styles inline, figures embedded as data URIs, no network needed.

`html_document` wraps blocks in a page; the blocks come from `table_html`, `plain_table` and the
pieces here (notes, the grader audit's line, the claims, the figures): the leaderboard's page is
`html_page`, Table 1's is composed by its report sections (harness.reports.table1.sections)."""

from __future__ import annotations

import base64
import html
from pathlib import Path

from harness.reports.render.table import STABILITY, TableRow, cell_text, stability_texts

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
td.g1 { background: #e6f4ea; font-weight: 600; } td.g2 { background: #fff8e1; } td.g3 { background: #fdecea; }
td.lead { white-space: nowrap; }
td.above { color: #1a7f37; } td.below { color: #c62828; }
"""


def _image(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode()
    name = html.escape(path.stem.replace("_", " "))
    return f'<figure><img alt="{name}" src="data:image/png;base64,{data}"><figcaption>{name}</figcaption></figure>'


def _group_class(text: str) -> str:
    """ " g1" / " g2" / " g3": the class that shades a group cell ("2 (unpaired)", "held-out · 1 (leader)")."""
    digits = "".join(c for c in text.rsplit("·", 1)[-1].split("(")[0] if c.isdigit())
    return f" g{min(int(digits), 3)}" if digits else ""


def table_html(
    rows: list[TableRow],
    benchmarks: list[str],
    paper: dict | None = None,
    extra: dict | None = None,
    lead: dict | None = None,
) -> str:
    """The table; `lead` adds columns {header: {row label: text}} after "seeds" (a "group" column is
    shaded by group), `extra` after the stability ones."""
    columns = [*benchmarks, "Avg"]
    extra, lead = extra or {}, lead or {}
    head = ["algorithm", "seeds", *lead, *columns, *(name for _, name, _ in STABILITY), *extra]
    out = ["<table>", "<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for row in rows:
        cells = [f"<td>{html.escape(row.label)}</td>", f"<td>{row.seeds}</td>"]
        for h in lead:
            text = lead[h].get(row.label, "–")
            shade = _group_class(text) if h == "group" else ""
            cells.append(f'<td class="lead{shade}">{html.escape(text)}</td>')
        texts = [*(cell_text(row, c) for c in columns), *stability_texts(row)]
        texts += [extra[h].get(row.label, "") for h in extra]
        cells += [f"<td>{html.escape(c)}</td>" for c in texts]
        out.append("<tr>" + "".join(cells) + "</tr>")
        reported = (paper or {}).get(row.label)
        if reported:
            values = [f"{row.label} (paper)", "", *("" for _ in lead), *(f"{v:g}" for v in reported)]
            out.append('<tr class="paper">' + "".join(f"<td>{html.escape(v)}</td>" for v in values) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def plain_table(header: list[str], rows: list[list[str]], signs: bool = False) -> str:
    """A table of texts; `signs` colours a cell whose interval lies wholly above 0 green, below 0 red."""
    out = ["<table>", "<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>"]
    for row in rows:
        cells = []
        for text in row:
            side = _side(text) if signs else ""
            cells.append(f"<td{side}>{html.escape(text)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _side(text: str) -> str:
    """' class="above"' for "+2.5 [+1.0, +4.0]", ' class="below"' for "-2.5 [-4.0, -1.0]", else ''."""
    if "[" not in text or "]" not in text:
        return ""
    try:
        low, high = (float(v) for v in text[text.index("[") + 1 : text.index("]")].split(","))
    except ValueError:
        return ""
    return ' class="above"' if low > 0 else ' class="below"' if high < 0 else ""


def html_document(title: str, setup: str, blocks: list[str]) -> str:
    """The page around `blocks` (HTML, in order): the styles, the title and the setup sentence under it."""
    parts = [
        "<!doctype html>",
        f'<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title><style>{STYLE}</style></head>',
        f"<body><h1>{html.escape(title)}</h1><p class='note'>{html.escape(setup)}</p>",
        *blocks,
        "</body></html>",
    ]
    return "\n".join(parts)


def note_html(text: str) -> str:
    return f"<p class='note'>{html.escape(text)}</p>"


def audit_line_html(line: str) -> str:
    """The grader audit's line (benchmarks.grading.grader_audit.audit_line), shown under the setup."""
    return f"<p class='audit'>{html.escape(line)}</p>"


def missing_html(missing) -> list[str]:
    return [note_html(f"Not finished (left out): {', '.join(missing)}")] if missing else []


def claims_html(verdicts, claims_note: str = "") -> list[str]:
    """The claims as a list, each verdict coloured; `claims_note` a sentence above them."""
    if not verdicts:
        return []
    classes = {"holds": "holds", "does not hold": "not", "inside noise": "noise"}
    claims = []
    for v in verdicts:
        text = html.escape(v.line().removeprefix("- ").replace("**", ""))
        verdict = html.escape(v.verdict)
        if v.verdict in classes:
            text = text.replace(verdict, f'<span class="{classes[v.verdict]}">{verdict}</span>', 1)
        claims.append(f"<li>{text}</li>")
    note = [note_html(claims_note)] if claims_note else []
    return ["<h2>The paper's claims on this profile</h2>", *note, "<ul>", *claims, "</ul>"]


def figures_html(figures) -> list[str]:
    return ["<h2>Figures</h2>", *(_image(p) for p in figures)] if figures else []


def html_page(title, setup, rows, benchmarks, figures, extra=None, audit=None, lead=None, notes=()) -> str:
    """A table's page: the grader audit's line under the setup, the table, `notes` (plain sentences) under it,
    the figures."""
    blocks = [audit_line_html(audit)] if audit else []
    blocks += [table_html(rows, benchmarks, None, extra, lead), *(note_html(n) for n in notes), *figures_html(figures)]
    return html_document(title, setup, blocks)
