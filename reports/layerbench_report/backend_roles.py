"""Each backend's role as a results file records it (context.backends): which device type it
serves, whether it is that device's primary library, and the `backend` its points record; from
that, a point's identity ("Point identity" in reports/results-schema.md)."""
from __future__ import annotations

from layerbench_report.checked_json import Fields

# What files without context.backends meant: the primary backends were oneDNN on the CPU and the
# CUDA backend (points saying cuda, cudnn or cublaslt) on GPUs; "" is a point naming no backend.
PRIMARY_BEFORE_CONTEXT_BACKENDS = frozenset(("", "onednn", "cuda", "cudnn", "cublaslt"))


def primary_point_backends(context: dict) -> frozenset:
    """The `backend` values of the points of each device's primary backend, from the file's
    context.backends (each backend's descriptor: "Point identity" in results-schema.md)."""
    roles = context.get("backends")
    if not isinstance(roles, dict):
        return PRIMARY_BEFORE_CONTEXT_BACKENDS
    return frozenset([""] + [name for role in roles.values() if role["primary"]
                             for name in role["point_backends"]])


def device_kinds(context: dict) -> tuple:
    """The device kinds a file may record: "cpu", "gpu" and each backend's device type
    (context.backends), so a backend on a device of its own reads like any other."""
    roles = context.get("backends")
    declared = [role["device_type"] for role in roles.values()] if isinstance(roles, dict) else []
    return tuple(dict.fromkeys(["cpu", "gpu", *declared]))


def keyed_device(device: str, backend, primary=PRIMARY_BEFORE_CONTEXT_BACKENDS) -> str:
    """"cpu" for the device's primary backend, "cpu@openblas" for another."""
    return device if (backend or "") in primary else f"{device}@{backend}"


def is_primary_backend(item: dict, primary=PRIMARY_BEFORE_CONTEXT_BACKENDS) -> bool:
    """Whether a point or model record is of its device's primary backend."""
    return (item.get("backend") or "") in primary


def point_id(p: dict, primary=PRIMARY_BEFORE_CONTEXT_BACKENDS) -> tuple:
    """A point's identity (the runner's Point::key): unique within a file, matched across files."""
    return (p["model"], p["op"], p["batch"], p["precision"], p["pass"],
            keyed_device(p["device"], p.get("backend"), primary))


def check_backend_roles(context: Fields):
    """context.backends: each backend's device type, whether it is primary, its points' names."""
    roles = context.object("backends")
    for name in roles.obj if roles else ():
        role = roles.object(name, optional=False, nullable=False)
        role.text("device_type")
        role.get("primary", bool)
        names = role.get("point_backends", list)
        if not names or not all(isinstance(n, str) and n for n in names):
            role.fail("point_backends", "expected a non-empty list of backend names")
        shown = role.get("library_names", dict, optional=True)
        if shown is not None and not all(isinstance(n, str) and n for n in shown.values()):
            role.fail("library_names", "expected an object of library names (text)")


def library_name(context: dict, backend) -> str:
    """How a point's library is named to people ("oneDNN"), as its backend's descriptor says in
    context.backends; files without the name show the `backend` value itself."""
    roles = context.get("backends")
    for role in roles.values() if isinstance(roles, dict) else ():
        shown = role.get("library_names") or {}
        if backend in shown:
            return shown[backend]
    return backend or "?"
