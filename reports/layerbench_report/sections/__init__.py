"""The sections of each model, in the order the page shows them.

Adding a chart or table is one module here with `render(data, model, charts) -> str` (HTML;
`charts.embed(fig, alt, caption)` turns a matplotlib figure into an embedded PNG) and one line in
MODEL_SECTIONS. Numbered sections take their number from their place in the list: the
at-a-glance section before them is 1, the environment section after them is the next number.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from layerbench_report.sections import (
    bandwidth,
    best,
    cpu_vs_gpu,
    energy,
    explained,
    library,
    memory,
    not_ok,
    precision,
    roofline,
    versus,
    where_time_goes,
)


@dataclass(frozen=True)
class Section:
    title: str
    render: Callable[..., str]  # (data, model, charts) -> HTML
    numbered: bool = True


MODEL_SECTIONS = (
    Section("Best throughput per device and precision", best.render, numbered=False),
    Section("CPU vs GPU", cpu_vs_gpu.render),
    Section("Precision", precision.render),
    Section("Batch scaling and memory", memory.render),
    Section("Roofline", roofline.render),
    Section("Memory-bound layers against the memory bandwidth", bandwidth.render),
    Section("Device vs device", versus.render),
    Section("Clocks, power and work per joule", energy.render),
    Section("Library vs library on the same device", library.render),
    Section("Where the time goes", where_time_goes.render),
    Section("Explained share: the estimate against a framework", explained.render),
    Section("Points not measured ok", not_ok.render, numbered=False),
)
