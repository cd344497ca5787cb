"""context.backends: which backend is its device's primary comes from the file, not from names.

The real file two_backends.json (oneDNN and OpenBLAS on one CPU) predates context.backends; the
roles added below are test data that swap the two, to show the reader follows the file."""
import copy
import json
from pathlib import Path

import pytest

from layerbench_report import results_file
from layerbench_report.checked_json import BadResultsFile

REAL = Path(__file__).parent / "fixtures" / "real" / "two_backends.json"


def load(roles=None):
    data = json.loads(REAL.read_text(encoding="utf-8"))
    if roles is not None:
        data["context"]["backends"] = copy.deepcopy(roles)
        # model records name only a non-primary backend: these were written for the real roles
        data["models"] = []
    return results_file.check(REAL, data)


def role(primary, names):
    return {"device_type": "cpu", "primary": primary, "point_backends": names}


def test_a_file_without_roles_reads_as_before():
    results = load()
    onednn = [p for p in results.points if p["backend"] == "onednn"]
    openblas = [p for p in results.points if p["backend"] == "openblas"]
    assert onednn and openblas
    assert all(results.is_primary(p) and results.point_id(p)[-1] == "cpu" for p in onednn)
    assert all(not results.is_primary(p) and results.point_id(p)[-1] == "cpu@openblas"
               for p in openblas)


def test_the_files_roles_choose_the_primary_backend():
    results = load({"onednn": role(False, ["onednn"]), "openblas": role(True, ["openblas"])})
    for p in results.points:
        primary = p["backend"] == "openblas"
        assert results.is_primary(p) == primary
        assert results.point_id(p)[-1] == ("cpu" if primary else "cpu@onednn")


@pytest.mark.parametrize("bad, field", [
    ({"onednn": {"device_type": "cpu", "point_backends": ["onednn"]}}, "primary"),
    ({"onednn": role(True, [])}, "point_backends"),
    ({"onednn": role(True, [3])}, "point_backends"),
    ({"onednn": "cpu"}, "onednn"),
    ({"onednn": dict(role(True, ["onednn"]), library_names={"onednn": ""})}, "library_names"),
    ({"onednn": dict(role(True, ["onednn"]), library_names=["oneDNN"])}, "library_names"),
])
def test_bad_roles_are_refused_naming_the_field(bad, field):
    with pytest.raises(BadResultsFile, match=field):
        load(bad)
