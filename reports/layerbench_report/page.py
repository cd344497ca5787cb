"""The HTML page: banners, navigation, the sections in order."""
from __future__ import annotations

from datetime import datetime, timezone

from layerbench_report import run_context
from layerbench_report.charts import Charts
from layerbench_report.markup import esc, table
from layerbench_report.sections import MODEL_SECTIONS
from layerbench_report.sections.environment import section_environment
from layerbench_report.sections.validation import section_validation

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#222;
  background:#f6f7f9;line-height:1.45}
main{max-width:1320px;margin:0 auto;padding:0 24px 48px}
header{background:#1d2b3a;color:#fff;padding:18px 24px}
header h1{margin:0 0 4px;font-size:24px} header p{margin:0;color:#c8d3de;font-size:14px}
h2{border-bottom:2px solid #1d2b3a;padding-bottom:4px;margin-top:40px}
h3{margin-top:28px;color:#1d2b3a} h4{margin:18px 0 6px}
section.model{background:#fff;border-radius:8px;padding:4px 24px 20px;margin-top:28px;
  box-shadow:0 1px 3px rgba(0,0,0,.12)}
.banner{background:#fff3cd;border:1px solid #e0b100;border-left:6px solid #e0b100;
  padding:10px 16px;margin:16px 0;border-radius:4px;font-weight:600}
.banner.bad{background:#fde2e1;border-color:#c62828}
.glance{background:#fff;border-radius:8px;padding:8px 24px 16px;margin-top:20px;
  box-shadow:0 1px 3px rgba(0,0,0,.12)}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:10px 0}
.card{background:#eef4fb;border-radius:8px;padding:10px 16px;min-width:180px;max-width:300px}
.card b{display:block;font-size:30px;color:#0d47a1}
.card span{font-size:13px;color:#333}
.headline{font-size:16px;margin:6px 0}
figure{margin:12px 0} img.chart{max-width:100%;height:auto;display:block}
figcaption{font-size:13px;color:#555;margin-top:4px}
table{border-collapse:collapse;margin:8px 0 16px;font-size:13px;background:#fff}
th,td{border:1px solid #d5dae0;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#e9edf2} tbody tr:nth-child(even){background:#f8f9fb}
table.small{font-size:12px} table.kv td:first-child{font-weight:600;white-space:nowrap}
.st{display:inline-block;padding:1px 7px;border-radius:9px;font-size:12px;font-weight:600}
.st-ok{background:#d7f2dc;color:#1b5e20} .st-unsupported{background:#e4e4e4;color:#444}
.st-oom{background:#ffe0b2;color:#8a4b00} .st-failed{background:#ffcdd2;color:#b71c1c}
.st-incomplete{background:#fff3cd;color:#6b5200}
.note{color:#555;font-style:italic} ul.unknown{color:#8a1c1c;font-size:13px}
nav{font-size:14px;margin:12px 0} nav a{margin-right:14px}
details{margin:8px 0} summary{cursor:pointer;color:#0d47a1}
code{background:#eef0f3;padding:1px 4px;border-radius:3px}
"""

# Sets data-charts-rendered / data-charts-total on <body> once the page has loaded, and logs a
# console error naming any chart the browser could not decode (checked by the tests).
RENDER_CHECK = """<script>
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var bad = imgs.filter(function (im) { return !(im.complete && im.naturalWidth > 0); });
  document.body.setAttribute('data-charts-total', String(imgs.length));
  document.body.setAttribute('data-charts-rendered', String(imgs.length - bad.length));
  if (bad.length) {
    console.error('layerbench report: charts not rendered: ' +
                  bad.map(function (im) { return im.alt; }).join('; '));
  }
});
</script>"""


NOTHING_MEASURED = "holds no points: nothing in it was measured"


def banners(data) -> str:
    out = []
    for f in data.files:
        if f.status != "complete":
            why = {"incomplete": "the run was still going or was killed",
                   "interrupted": "the run was stopped (Ctrl-C or SIGTERM)"}[f.status]
            n = f.recovered_from_journal
            extra = f"; {n} point{'' if n == 1 else 's'} recovered from its journal" \
                if n else ""
            out.append(f'<div class="banner">{esc(f.name)} is {esc(f.status.upper())}: {esc(why)}'
                       f"{esc(extra)}. Its results are partial: points and model totals that "
                       "were not reached are missing, not zero.</div>")
        if not f.points:
            out.append(f'<div class="banner">{esc(f.name)} {NOTHING_MEASURED}.</div>')
        slow = slow_machine(f)
        if slow:
            out.append(f'<div class="banner">{esc(f.name)}: the machine\'s own speed moved during '
                       f"the run: {esc(slow)}. Times measured in its slow periods may not come "
                       "again on a rerun (docs/measuring.md, \"Memory-bound layers on a VM\")."
                       "</div>")
        busy = busy_machine(f)
        if busy:
            out.append(f'<div class="banner">{esc(f.name)} was measured on a busy machine: '
                       f"{esc(busy)}. Its times may be slower than the machine can do; measure "
                       "again with other programs closed or fewer --threads than cores.</div>")
    return "".join(out)


# The share of canary readings over its level from which the report warns: a policy, chosen so
# that a tenth of the run is worth a banner.
SLOW_SHARE_WARNED = 0.10


def slow_machine(f) -> str:
    """How much of the run the canary read slow (context.machine_state.canary), when either of
    its units did in at least SLOW_SHARE_WARNED of its readings; "" otherwise or for a file from
    before the canary."""
    canary = run_context.canary(f.context)
    readings = canary.get("readings") or 0
    if not readings:
        return ""
    units = (("memory", canary.get("memory_slow_readings") or 0, canary.get("memory_slowest")),
             ("compute", canary.get("slow_readings") or 0, canary.get("slowest")))
    if all(n / readings < SLOW_SHARE_WARNED for _, n, _ in units):
        return ""
    level = canary.get("slow_above")
    return "; ".join(
        f"its canary's {unit} unit read over {level}x its quiet time in {n / readings:.1%} of "
        f"{readings} readings" + (f" (at worst {slowest:.2f}x)" if n and slowest else "")
        for unit, n, slowest in units)


def busy_machine(f) -> str:
    """What made the run's machine busy (context.machine_state, points flagged contended), or
    "" for a quiet run or a file from before these were recorded."""
    state = f.context.get("machine_state") or {}
    clauses = []
    for when in ("start", "end"):
        reading = state.get(when) or {}
        if reading.get("cpu_busy"):
            clauses.append(f"{reading['other_runnable']} other runnable task(s) at the {when} "
                           f"({state.get('threads')} threads on {state.get('processors')} "
                           "processors)")
        for gpu, record in (reading.get("gpus") or {}).items():
            if record.get("other_processes"):
                clauses.append(f"{len(record['other_processes'])} other compute process(es) on "
                               f"{gpu} at the {when}")
    contended = [f"{p['model']} {p['op']} b{p['batch']} {p['precision']} {p['pass']}"
                 for p in f.points if (p.get("timing") or {}).get("contended")]
    if contended:
        shown = ", ".join(contended[:8]) + (f" and {len(contended) - 8} more"
                                            if len(contended) > 8 else "")
        clauses.append(f"{len(contended)} CPU point(s) contended, their samples not clean of "
                       f"other processes ({shown})")
    return "; ".join(clauses)


def section_not_measured(not_measured) -> str:
    rows = [[r["target"], r.get("job_id"), r.get("node") or "—", r.get("partition") or "—",
             r["reason"]] for r in not_measured]
    return (f'<section id="not-measured"><h2>Not measured</h2>'
            f"{table(['target', 'job', 'node', 'partition', 'reason'], rows)}</section>")


def anchor(model) -> str:
    return "m-" + "".join(ch if ch.isalnum() else "-" for ch in model)


def section_headings():
    """The model sections' headings, numbered from 2 (1 is the at-a-glance section), and the
    number of the environment section after them."""
    headings, number = [], 1
    for s in MODEL_SECTIONS:
        if s.numbered:
            number += 1
        headings.append(f"{number}. {s.title}" if s.numbered else s.title)
    return headings, number + 1


def render_html(data, heads, skipped, not_measured=()) -> tuple:
    charts = Charts()
    body = []
    for msg in skipped:
        body.append(f'<div class="banner bad">Left out: {esc(msg)}</div>')
    body.append(banners(data))
    if not_measured:
        body.append(section_not_measured(not_measured))
    nav = "".join(f'<a href="#{anchor(m)}">{esc(data.title(m))}</a>' for m in data.models)
    body.append(f'<nav>Models: {nav}<a href="#environment">Environment and validation</a></nav>')
    glance = ['<section class="glance"><h2>1. At a glance</h2>']
    for m in data.models:
        h = heads[m]
        cards = "".join(f"<div class=card><b>{esc(big)}</b><span>{esc(cap)}</span></div>"
                        for big, cap in h.cards)
        sentences = "".join(f'<p class="headline">{esc(s)}</p>' for s in h.sentences)
        glance.append(f"<h3>{esc(data.title(m))}</h3><div class=cards>{cards}</div>{sentences}")
    glance.append('<p class="note">Model figures: ' + esc("; ".join(data.model_sum_labels())) +
                  ". Each operation is timed on its own, so they are upper bounds on what a "
                  "framework reaches.</p></section>")
    body.append("".join(glance))
    headings, environment_number = section_headings()
    for m in data.models:
        parts = "".join(f"<h3>{heading}</h3>{s.render(data, m, charts)}"
                        for heading, s in zip(headings, MODEL_SECTIONS))
        body.append(f'<section class="model" id="{anchor(m)}"><h2>{esc(data.title(m))}</h2>'
                    f"{parts}</section>")
    body.append(f'<section id="environment"><h2>{environment_number}. Environment and validation'
                f"</h2><h3>Validation against the double-precision reference</h3>"
                f"{section_validation(data)}<h3>Files</h3>{section_environment(data)}</section>")
    files = ", ".join(f.name for f in data.files)
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    page = (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>layerbench report</title><style>{CSS}</style></head><body>"
            f"<header><h1>layerbench report</h1><p>{esc(files)} — generated {generated}</p>"
            f"</header><main>{''.join(body)}</main>{RENDER_CHECK}</body></html>")
    return page, charts.count
