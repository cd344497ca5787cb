"""Fixed colours, markers and resolution shared by every chart and by the device list."""
from __future__ import annotations

# One fixed colour per precision and per device, in every chart: precision colours where a chart
# compares precisions, device colours where it compares devices; the two sets do not overlap.
PRECISION_COLOURS = {"fp32": "#1f77b4", "tf32": "#17becf", "fp16": "#ff7f0e", "bf16": "#9467bd",
                     "fp8": "#d62728"}
CPU_COLOURS = ["#4d4d4d", "#8c564b", "#a6761d"]
GPU_COLOURS = ["#2ca02c", "#e7298a", "#1b9e77", "#b15928", "#66a61e"]
PASS_MARKERS = {"fwd": "o", "fwd_training": "v", "bwd_data": "s", "bwd_weights": "^"}
PASS_LINESTYLES = {"fwd": "-", "train": "--"}
NOT_OK_MARK = {"oom": "X", "unsupported": "s", "failed": "P"}
ACCUMULATION_MARK = "*"
DPI = 100
# One colour per kind group of a model's time (framework_file.GROUPS), and for the time outside
# any operator and the unexplained remainder.
GROUP_COLOURS = {"convolution": "#1f77b4", "gemm": "#ff7f0e", "attention": "#bcbd22",
                 "normalisation": "#2ca02c", "elementwise": "#9467bd", "pooling": "#8c564b",
                 "softmax": "#e377c2", "layout": "#17becf", "other": "#7f7f7f"}
OUTSIDE_COLOUR = "#555555"
UNEXPLAINED_COLOUR = "#c62828"
