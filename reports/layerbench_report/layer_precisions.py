"""Which precision each layer of a model sum was measured in, as the results file states it.

TF32 and FP8 are matrix-product modes: frameworks run the memory-bound layers around the
products (normalisation, activations, adds, pooling, softmax) in FP32 and BF16, and layerbench's
sums do the same. Each model record names the precision of every op kind it summed
(`layer_precisions`, reports/results-schema.md), so the report follows the file rather than a
rule of its own; records from before the field summed every layer in their own precision.
"""
from __future__ import annotations

from layerbench_report import results_file
from layerbench_report.markup import P
from layerbench_report.op_kinds import COMPUTE_KINDS


def point_precision(record: dict, kind) -> str:
    """The precision of the record's points of op kind `kind` (None: a point without a kind)."""
    stated = record.get("layer_precisions")
    if isinstance(stated, dict) and isinstance(stated.get(kind), str):
        return stated[kind]
    return record["precision"]


def summed_points(points, record: dict) -> list:
    """The points among `points` (one model, device and batch) that `record` sums: each op
    kind's in the precision the record names for it; a forward sum's of pass fwd only."""
    return [p for p in points if p["precision"] == point_precision(record, p.get("kind")) and
            (record["pass"] != "fwd" or p["pass"] == "fwd")]


def memory_bound_precision(record: dict):
    """The precision the record's memory-bound layers came from when it is not the record's
    own, else None."""
    stated = record.get("layer_precisions")
    if not isinstance(stated, dict):
        return None
    other = {v for k, v in stated.items()
             if k not in COMPUTE_KINDS and v != record["precision"]}
    return min(other, key=results_file.precision_order) if other else None


def substitution_note(records) -> str:
    """"TF32: memory-bound layers in FP32, as frameworks run them." for each precision among
    `records` whose memory-bound layers come from another; "" when none does."""
    pairs = {}
    for r in records:
        other = memory_bound_precision(r)
        if other:
            pairs[r["precision"]] = other
    return " ".join(f"{P(prec)}: memory-bound layers in {P(other)}, as frameworks run them."
                    for prec, other in sorted(pairs.items(),
                                              key=lambda kv: results_file.precision_order(kv[0])))
