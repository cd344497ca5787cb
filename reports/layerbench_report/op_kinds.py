"""The operation kinds of model files and results points, read from their one table,
bench/op_kinds.json (the C++ build generates its vocabulary from the same file): each kind's
group, and whether it is memory-bound. The package is installed editable from this tree
(scripts/setup.sh), so the table is found beside it."""
from __future__ import annotations

import json
from pathlib import Path

TABLE = Path(__file__).resolve().parents[2] / "bench" / "op_kinds.json"


def read_kinds(path: Path) -> dict:
    """{name: the kind's row} of the table at `path`."""
    table = json.loads(path.read_text(encoding="utf-8"))
    return {kind["name"]: kind for kind in table["kinds"]}


KINDS = read_kinds(TABLE)
# {kind: group}: the groups a model's time is split into (results' kind_ms).
KIND_GROUPS = {name: kind["group"] for name, kind in KINDS.items()}
MEMORY_KINDS = tuple(name for name, kind in KINDS.items() if kind["memory_bound"])
# The kinds that multiply-add: their points' gflop is positive, and they sit on the roofline.
COMPUTE_KINDS = tuple(name for name, kind in KINDS.items() if not kind["memory_bound"])
# The matrix products, which both a BLAS and oneDNN or cuBLASLt compute.
GEMM_KINDS = tuple(name for name, kind in KINDS.items() if kind["group"] == "gemm")
