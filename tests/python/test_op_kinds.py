"""bench/op_kinds.json is the one table of operation kinds: the C++ build generates OpKind and its
rows from it (cmake/LayerbenchOpKinds.cmake), the model reader's messages list its names, and the
Python side reads its groups and memory-bound kinds. docs/contributing.md, "Adding a
memory-bound layer", starts with a row of this table; its example (rms_norm) is made here."""
import ast
import copy
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, write_json

from layerbench_report import framework_file, op_kinds

GENERATOR = ROOT / "cmake" / "LayerbenchOpKinds.cmake"
BINARY = Path(os.environ.get("LAYERBENCH_BINARY") or ROOT / "build" / "layerbench")
# The docs' example: one more memory-bound kind, normalised over the last dimension.
RMS_NORM = {"name": "rms_norm", "group": "normalisation", "memory_bound": True,
            "fields": ["dims"], "algorithms": [],
            "reference": "harness/check/reference_memory_bound.cpp"}


def table():
    return json.loads(op_kinds.TABLE.read_text(encoding="utf-8"))


def generate(table_doc, tmp_path):
    """Runs the build's generator on `table_doc`: (exit status, its messages, the header)."""
    source = write_json(tmp_path / "op_kinds.json", table_doc)
    header = tmp_path / "op_kinds_table.hpp"
    run = subprocess.run(["cmake", f"-DTABLE={source}", f"-DOUTPUT={header}", "-P",
                          str(GENERATOR)], capture_output=True, text=True, timeout=60)
    # CMake wraps its messages' lines.
    return run.returncode, " ".join((run.stdout + run.stderr).split()), header


def test_every_kind_has_a_group_of_the_table_and_a_reference_in_the_tree():
    doc = table()
    groups = doc["groups"]
    for kind in doc["kinds"]:
        assert kind["group"] in groups, kind["name"]
        assert (ROOT / kind["reference"]).is_file(), kind["name"]
        # A memory-bound kind is a tensor B x dims (bench/models/SCHEMA.md); the others are not.
        assert ("dims" in kind["fields"]) == kind["memory_bound"], kind["name"]
    assert {kind["group"] for kind in doc["kinds"]} == set(groups), "a group no kind has"


def test_the_python_side_reads_the_groups_and_memory_bound_kinds_from_the_table():
    doc = table()
    assert op_kinds.KIND_GROUPS == {k["name"]: k["group"] for k in doc["kinds"]}
    assert op_kinds.MEMORY_KINDS == tuple(k["name"] for k in doc["kinds"] if k["memory_bound"])
    assert framework_file.kind_group("layer_norm") == "normalisation"
    assert set(doc["groups"]) <= set(framework_file.GROUPS), "a group the charts cannot stack"


def test_the_binary_names_the_tables_kinds_when_a_model_file_has_another(tmp_path):
    if not BINARY.is_file():
        pytest.skip(f"no layerbench binary at {BINARY}: build it, or set LAYERBENCH_BINARY")
    model = {"schema": "layerbench-model/1", "name": "unknown_kind", "title": "TEST DATA",
             "source": "test data: a made-up op of a kind the table lacks",
             "input": {"channels": 3, "height": 8, "width": 8},
             "ops": [{"id": "norm", "kind": "rms_norm", "dims": [5, 16], "layers": ["norm"]}]}
    path = write_json(tmp_path / "unknown_kind.json", model)
    run = subprocess.run([str(BINARY), "list", "--model-file", str(path)], capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 2, run.stderr
    names = ", ".join(k["name"] for k in table()["kinds"])
    assert f"ops[0].kind: must be one of {names}" in run.stderr
    assert str(path) in run.stderr


@pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("g++") is None,
                    reason="needs cmake and g++, as the build does")
def test_a_row_added_to_the_table_is_a_kind_in_cpp_and_python(tmp_path):
    doc = table()
    doc["kinds"].append(RMS_NORM)
    status, messages, header = generate(doc, tmp_path)
    assert status == 0, messages
    probe = tmp_path / "probe.cpp"
    probe.write_text('#include "op_kinds_table.hpp"\n'
                     "#include <iterator>\n"
                     f"static_assert(std::size(lb::op_kind_table) == {len(doc['kinds'])});\n"
                     "constexpr const lb::OpKindRow& added = lb::op_kind_table[std::size("
                     "lb::op_kind_table) - 1];\n"
                     "static_assert(added.kind == lb::OpKind::rms_norm && added.memory_bound);\n"
                     'static_assert(added.name == "rms_norm" && added.group == "normalisation");\n'
                     'static_assert(added.fields.size() == 1 && added.fields[0] == "dims");\n'
                     "static_assert(added.algorithms.empty());\n", encoding="utf-8")
    compiled = subprocess.run(["g++", "-std=c++20", "-fsyntax-only", f"-I{tmp_path}", str(probe)],
                              capture_output=True, text=True, timeout=120)
    assert compiled.returncode == 0, compiled.stderr
    kinds = op_kinds.read_kinds(tmp_path / "op_kinds.json")
    assert kinds["rms_norm"]["group"] == "normalisation"


@pytest.mark.parametrize("change, field", [
    (lambda d: d["kinds"][3].update(group="norms"), "kinds[3].group"),
    (lambda d: d["kinds"][0].update(name="Conv 2d"), "kinds[0].name"),
    (lambda d: d["kinds"].append(copy.deepcopy(d["kinds"][1])), "kinds[9].name"),
    (lambda d: d["kinds"][4].update(memory_bound="yes"), "kinds[4].memory_bound"),
    (lambda d: d["kinds"][5]["algorithms"].append(7), "kinds[5].algorithms[2]"),
])
@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake, as the build does")
def test_a_malformed_table_stops_the_build_naming_the_field(tmp_path, change, field):
    doc = table()
    change(doc)
    status, messages, header = generate(doc, tmp_path)
    assert status != 0
    assert f"op_kinds.json: {field}:" in messages
    assert not header.exists()


def table_sets():
    """{what: kinds} of the sets of two or more kinds the table defines: compute-bound,
    memory-bound, and each group's."""
    sets = {"compute-bound": set(op_kinds.COMPUTE_KINDS),
            "memory-bound": set(op_kinds.MEMORY_KINDS)}
    for name, kind in op_kinds.KINDS.items():
        sets.setdefault(f"{kind['group']} group", set()).add(name)
    return {what: kinds for what, kinds in sets.items() if len(kinds) >= 2}


def restated_sets(paths):
    """Each tuple, list or set of string literals in `paths` that spells one of the table's sets."""
    sets = table_sets()
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.Tuple, ast.List, ast.Set)) or not node.elts:
                continue
            if not all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
                continue
            names = {e.value for e in node.elts}
            found += [f"{path.name}:{node.lineno}: the {what} kinds" for what, kinds in sets.items()
                      if names == kinds]
    return found


def test_no_python_module_restates_a_set_of_kinds_the_table_holds():
    """The report and the scripts take such sets from op_kinds (COMPUTE_KINDS, MEMORY_KINDS,
    GEMM_KINDS, KIND_GROUPS), so a kind added to the table reaches them."""
    own = Path(op_kinds.__file__).resolve()
    modules = [p for folder in ("reports", "scripts") for p in (ROOT / folder).rglob("*.py")
               if p.resolve() != own]
    assert len(modules) > 20
    assert restated_sets(modules) == []


def test_a_restated_set_is_found(tmp_path):
    module = tmp_path / "restates.py"
    module.write_text('GEMMS = ("linear", "bmm")\nOK = ("conv", "pool")\n'
                      'COMPUTE = {"bmm", "conv", "linear"}\n', encoding="utf-8")
    assert restated_sets([module]) == ["restates.py:1: the gemm group kinds",
                                       "restates.py:3: the compute-bound kinds"]
