"""layerbench's model estimate split by kind group, matched with a framework's measured run of
the same model, pass, precision, batch and device (the framework timing files of
scripts/torch_models.py), and what the difference between them is made of."""
from __future__ import annotations

import re
from dataclasses import dataclass

from layerbench_report import framework_file
from layerbench_report import results_file


def in_record(point, pass_) -> bool:
    """Whether a model record of pass set `pass_` sums the point (reports/results-schema.md,
    models[].pass): a training step runs batch norm's fwd_training, not its inference fwd."""
    if pass_ == "fwd":
        return point["pass"] == "fwd"
    return point["pass"] != "fwd" or point.get("kind") != "batch_norm"


OUTSIDE = "outside operators"


@dataclass
class Estimate:
    device: object  # data.Device
    model: str
    pass_: str
    precision: str
    batch: int
    split: dict  # kind group -> ms: count x median summed over the record's points
    run: dict | None = None  # the framework's run of the same configuration, measured ok
    framework: framework_file.FrameworkFile | None = None

    @property
    def total_ms(self) -> float:
        return sum(self.split.values())

    @property
    def measured_ms(self):
        return self.run["timing"]["median_ms"] if self.run else None

    @property
    def explained(self):
        """layerbench's estimate over the framework's measured time."""
        return self.total_ms / self.measured_ms if self.run else None

    @property
    def profile(self):
        return (self.run or {}).get("profile")


def split_of(data, model, device, pass_, precision, batch) -> dict:
    """{kind group: ms} of a model record's points (ok points only: the record is ok)."""
    split = {}
    for p in data.points_of(model, device, precision, batch=batch):
        if in_record(p, pass_) and p["status"] == "ok":
            group = framework_file.kind_group(p.get("kind") or "other")
            split[group] = split.get(group, 0.0) + p.get("count", 1) * results_file.median_ms(p)
    return split


def same_device(device, framework_device) -> bool:
    """The same kind and, whitespace and case aside, the same name: a framework's time on other
    hardware explains nothing about this estimate."""
    def norm(name):
        return re.sub(r"\s+", " ", str(name)).strip().lower()
    return device.kind == framework_device["kind"] and \
        norm(device.name) == norm(framework_device["name"])


def matching_run(frameworks, e: Estimate):
    """(run, file) of the first framework file with an ok run of this configuration."""
    for f in frameworks:
        for r in f.runs:
            if r["status"] == "ok" and (r["model"], r["pass"], r["precision"], r["batch"]) == \
                    (e.model, e.pass_, e.precision, e.batch) and \
                    same_device(e.device, f.device(r["device"])):
                return r, f
    return None, None


def estimates(data, model) -> list:
    """An Estimate for each ok model record of the model that has points measured ok (an edited
    file may have none), with its framework run where one matches, in the order device, pass,
    precision, batch."""
    out = []
    for d in data.devices_for(model):
        for pass_ in data.record_passes(model):
            for (prec, batch) in sorted(data.records_of(model, d, pass_),
                                        key=lambda k: (results_file.precision_order(k[0]), k[1])):
                split = split_of(data, model, d, pass_, prec, batch)
                if not split:
                    continue
                e = Estimate(d, model, pass_, prec, batch, split)
                e.run, e.framework = matching_run(data.frameworks, e)
                out.append(e)
    return out


def groups_in(split) -> list:
    return sorted(split, key=framework_file.group_order)


def attribution(e: Estimate) -> list:
    """[(group, layerbench ms or None, framework's profiled ms or None)] for every group either
    side has, then the profiled run's time outside the operators; [] without a profile."""
    profile = e.profile
    if not profile:
        return []
    framework = profile["group_ms"]
    rows = [(g, e.split.get(g), framework.get(g))
            for g in groups_in(set(e.split) | set(framework))]
    return rows + [(OUTSIDE, None, profile.get("outside_ms"))]


def remainder_causes(e: Estimate, top=3) -> str:
    """The largest contributions to the unexplained remainder, as the profiled run shows them:
    groups layerbench has no points of, time outside the operators, and groups where the
    framework's operators took longer than layerbench's. An estimate above the measured time
    has no remainder: then the groups where layerbench's points took longer are named."""
    rows = attribution(e)
    if not rows:
        return "no profile of the framework's run (torch_models.py --no-profile)"
    if e.explained > 1:
        over = sorted(((mine - (theirs or 0), g) for g, mine, theirs in rows
                       if mine is not None and mine > (theirs or 0)), reverse=True)
        return "the estimate exceeds the measured time: " + ("; ".join(
            f"{framework_file.group_name(g)} slower in layerbench +{d:.3g} ms"
            for d, g in over[:top])
            or "no group is slower in layerbench's points than in the profile")
    causes = []
    for group, mine, theirs in rows:
        if theirs is None or theirs <= 0:
            continue
        if group == OUTSIDE:
            causes.append((theirs, f"outside operators (Python, dispatch) {theirs:.3g} ms"))
        elif mine is None:
            causes.append((theirs, f"{framework_file.group_name(group)} not in the estimate "
                                   f"{theirs:.3g} ms"))
        elif theirs > mine:
            causes.append((theirs - mine, f"{framework_file.group_name(group)} slower in the "
                                          f"framework +{theirs - mine:.3g} ms"))
    causes.sort(key=lambda c: -c[0])
    return "; ".join(text for _, text in causes[:top]) or "none: every group is at or below " \
        "layerbench's estimate"
