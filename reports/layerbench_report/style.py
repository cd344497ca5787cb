"""Fixed colours, markers and resolution shared by every chart and by the device list."""
from __future__ import annotations

# One fixed colour per precision and per device, in every chart: precision colours where a chart
# compares precisions, device colours where it compares devices; the two sets do not overlap.
PRECISION_COLOURS = {"fp32": "#1f77b4", "tf32": "#17becf", "fp16": "#ff7f0e", "bf16": "#9467bd",
                     "fp8": "#d62728"}
CPU_COLOURS = ["#4d4d4d", "#8c564b", "#a6761d"]
GPU_COLOURS = ["#2ca02c", "#e7298a", "#1b9e77", "#b15928", "#66a61e"]
PASS_MARKERS = {"fwd": "o", "bwd_data": "s", "bwd_weights": "^"}
PASS_LINESTYLES = {"fwd": "-", "train": "--"}
NOT_OK_MARK = {"oom": "X", "unsupported": "s", "failed": "P"}
ACCUMULATION_MARK = "*"
DPI = 100
