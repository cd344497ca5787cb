"""HTML and Markdown formatting shared by the sections."""
from __future__ import annotations

import html

from layerbench_report import results_file


def esc(x) -> str:
    return html.escape(str(x))


class Raw(str):
    """A table cell that is already HTML."""


def fmt_rate(x) -> str:
    if x is None:
        return "–"
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def fmt_ratio(x) -> str:
    return f"{x:.0f}×" if x >= 100 else f"{x:.1f}×" if x >= 1.95 else f"{x:.2f}×"


def fmt_ms(x) -> str:
    return "–" if x is None else f"{x:.4g}"


def noise_text(p: dict) -> str:
    """The point's in-round noise and the spread between its rounds, as the tables print them:
    "±0.8%, rounds 2.1%", "±0.8%" for a file from before rounds (or a point of one round), and
    ", contended" when its samples lost CPU to other processes, ", unstable" when its rounds
    disagreed widely."""
    t = p.get("timing")
    if not isinstance(t, dict):
        return "–"
    text = f"±{float(t.get('noise') or 0.0):.1%}"
    if (t.get("rounds") or 1) > 1 and t.get("round_spread") is not None:
        text += f", rounds {float(t['round_spread']):.1%}"
    return (text + (", contended" if t.get("contended") else "") +
            (", unstable" if t.get("unstable") is True else ""))


def P(p) -> str:  # noqa: N802 - reads like the unit it prints
    return results_file.precision_name(p)


def status_pill(status, reason="") -> Raw:
    text = results_file.STATUS_NAMES.get(status, status)
    title = f' title="{esc(reason)}"' if reason else ""
    return Raw(f'<span class="st st-{esc(status)}"{title}>{esc(text)}</span>')


def table(headers, rows, cls="") -> str:
    def cell(c):
        return c if isinstance(c, Raw) else esc("–" if c is None else c)
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    head = f"<thead><tr>{head}</tr></thead>" if any(headers) else ""
    body = "".join("<tr>" + "".join(f"<td>{cell(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f'<table class="{cls}">{head}<tbody>{body}</tbody></table>'


def md_table(headers, rows) -> str:
    def cell(c):
        return str("–" if c is None else c).replace("|", "\\|")
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def note(text) -> str:
    return f'<p class="note">{esc(text)}</p>'


def text_table(headers, rows, right=()) -> str:
    """Plain-text columns; the columns named in `right` are right-aligned (numbers)."""
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
    align = [h in right for h in headers]

    def line(cells):
        return "  ".join(str(c).rjust(w) if r else str(c).ljust(w)
                         for c, w, r in zip(cells, widths, align)).rstrip()
    return "\n".join([line(headers), line("-" * w for w in widths)] + [line(r) for r in rows])
