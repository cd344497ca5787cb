"""Framework timing files (schema `layerbench-framework/1`, written by scripts/torch_models.py):
reading them strictly, and the kind groups both they and layerbench's points are split into.

The schema is documented in reports/results-schema.md ("Framework timing files"). A file that
cannot be used raises BadResultsFile naming the file and the field.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from layerbench_report import results_file
from layerbench_report.op_kinds import KIND_GROUPS
from layerbench_report.checked_json import BadResultsFile, Fields, read_document, unique

SCHEMA = "layerbench-framework/1"
SCHEMA_FAMILY = "layerbench-framework/"
PASSES = ("fwd", "train")
STATUSES = ("ok", "unsupported", "oom", "failed")

# The groups a model's time is split into, in the order charts stack them. layerbench's point
# kinds map onto them (op_kinds.KIND_GROUPS, from bench/op_kinds.json); a framework's operators
# too (operator_group).
GROUPS = ("convolution", "gemm", "attention", "normalisation", "elementwise", "pooling",
          "softmax", "layout", "other")
GROUP_NAMES = {"convolution": "convolution", "gemm": "GEMM", "attention": "fused attention",
               "normalisation": "normalisation", "elementwise": "elementwise",
               "pooling": "pooling", "softmax": "softmax",
               "layout": "copies, views and allocation", "other": "other operators"}

# PyTorch operator names (without "aten::") to groups, first match wins. Fused attention comes
# first: it holds a batched product and a softmax in one kernel, so neither group may claim it.
_OPERATOR_RULES = (
    ("attention", r"scaled_dot_product|multi_head_attention|flash_attention|efficient_attention"
                  r"|transformer_encoder"),
    ("convolution", r"conv"),
    ("normalisation", r"batch_norm|layer_norm|group_norm"),
    ("softmax", r"softmax"),
    ("pooling", r"pool|^mean$"),
    ("gemm", r"^(_?addmm(_activation)?|mm|bmm|baddbmm|addbmm|matmul|linear)$"),
    ("elementwise", r"relu|gelu|threshold|clamp|dropout|sigmoid|tanh"
                    r"|^(add|sub|mul|div|sum|fill|zero|ones_like)_?$"),
    ("layout", r"copy|contiguous|clone|^cat$|^stack$|^to$|transpose|permute|reshape|view|expand"
               r"|select|slice|^t$|unbind|split|chunk|flatten|as_strided|empty|zeros|squeeze"
               r"|detach|alias|narrow|resize"),
)


def kind_group(kind: str) -> str:
    """The group of a layerbench point kind; a kind this code does not know is its own group."""
    return KIND_GROUPS.get(kind, kind)


def operator_group(name: str) -> str:
    """The group of a PyTorch operator name such as 'aten::mkldnn_convolution'."""
    bare = name.split("::", 1)[-1]
    for group, pattern in _OPERATOR_RULES:
        if re.search(pattern, bare):
            return group
    return "other"


def group_order(group: str) -> int:
    return GROUPS.index(group) if group in GROUPS else len(GROUPS)


def group_name(group: str) -> str:
    return GROUP_NAMES.get(group, group.replace("_", " "))


@dataclass
class FrameworkFile:
    path: Path
    data: dict

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def framework(self) -> str:
        return self.data["framework"]

    @property
    def context(self) -> dict:
        return self.data["context"]

    @property
    def runs(self) -> list:
        return self.data["runs"]

    def device(self, dev_id) -> dict:
        return next(d for d in self.context["devices"] if d["id"] == dev_id)


def looks_like_framework_file(path) -> bool:
    """True when the file's first bytes name this schema (torch_models.py writes it first):
    report.py tells these files from results files without reading the whole file."""
    try:
        if not Path(path).is_file():
            return False  # a FIFO would block the read; results_file.load then names it
        with open(path, "rb") as f:
            head = f.read(256).decode("utf-8", errors="replace")
    except OSError:
        return False
    return re.search(r'"schema"\s*:\s*"' + re.escape(SCHEMA_FAMILY), head) is not None


def _check_run(r, devices):
    r.text("model")
    r.text("pass", PASSES)
    r.text("precision", results_file.PRECISIONS)
    r.count("batch")
    r.device(devices)
    ok = r.text("status", STATUSES) == "ok"
    r.text("reason", optional=True)
    timing = r.object("timing", optional=not ok, nullable=not ok)
    if timing:
        for key in ("median_ms", "min_ms", "max_ms"):
            timing.number(key, positive=True)
        timing.number("noise", optional=True, nullable=True)
        timing.count("runs")
    r.number("images_per_s", positive=True, optional=not ok, nullable=not ok)
    profile = r.object("profile")
    if profile:
        profile.number("wall_ms", positive=True)
        profile.number("outside_ms", optional=True)
        profile.text("time_base", ("cpu", "device"), optional=True)
        ops = profile.object("group_ms", optional=False, nullable=False)
        for group in ops.obj:
            ops.number(group)


def check(path, data) -> FrameworkFile:
    """Checks a parsed document; raises BadResultsFile naming the file and the field."""
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        found = json.dumps(data.get("schema")) if isinstance(data, dict) else "no object"
        raise BadResultsFile(path, f"not a framework timing file: schema is {found}, "
                                   f'expected "{SCHEMA}"')
    top = Fields(path, data, "")
    top.text("framework")
    top.text("status", results_file.FILE_STATUSES)
    context = top.object("context", optional=False, nullable=False)
    devices = {}
    for d in context.objects("devices"):
        devices[d.text("id")] = d.obj
        d.text("kind", ("cpu", "gpu"))
        d.text("name")
    context.object("versions", optional=False, nullable=False)
    context.count("threads")
    runs = top.objects("runs")
    for r in runs:
        _check_run(r, devices)
    unique(path, data["runs"], run_id, "runs")
    return FrameworkFile(Path(path), data)


def run_id(r: dict) -> tuple:
    return (r["model"], r["pass"], r["precision"], r["batch"], r["device"])


def load(path) -> FrameworkFile:
    return check(path, read_document(path, "framework timing file"))
