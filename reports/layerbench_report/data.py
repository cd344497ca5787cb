"""The merged data of all results files: devices, points and model-level records."""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from layerbench_report import checked_json, results_file

from layerbench_report.style import CPU_COLOURS, GPU_COLOURS


@dataclass(eq=False)
class Device:
    file: results_file.ResultsFile  # the first file that measured it
    id: str
    kind: str
    name: str
    label: str  # unique within the report
    info: dict  # the context's device object
    colour: str
    files: list = field(default_factory=list)  # every file that measured it, in order

    def peak(self, precision):
        """(TFLOP/s, source) or None."""
        p = (self.info.get("peaks") or {}).get(precision)
        return (float(p["tflops"]), p.get("source", "")) if p and p.get("tflops") else None

    def bandwidth(self):
        """(GB/s, source) or None."""
        b = self.info.get("memory_bandwidth_gbps")
        return (float(b["value"]), b.get("source", "")) if b and b.get("value") else None


def device_identity(f, info) -> str:
    """What makes two files' devices one: the host, the device's kind, name and facts, the
    library stack and the scheduler's placement. A run on another driver or cuDNN is another
    device row, labelled by what differs."""
    context = f.context
    return json.dumps([context.get("host"), context.get("os"), info.get("kind"), info.get("name"),
                       info.get("facts"), context.get("libraries"), placement(context)],
                      sort_keys=True, default=str)


def stack_suffixes(devices) -> list:
    """[" (cudnn 9.20.0)", ...]: the library versions that set each of same-named devices
    apart, empty where their stacks are the same."""
    stacks = [d.file.context.get("libraries") or {} for d in devices]
    differing = sorted({k for st in stacks for k in st if len({str(s.get(k)) for s in stacks}) > 1})
    return [" (" + ", ".join(f"{k} {st.get(k, '-')}" for k in differing) + ")" if differing else ""
            for st in stacks]


def latest(entries) -> tuple:
    """[(device, item)] from (file, device, item), in the files' order, keeping per device and
    item identity the item of the file that started last; and how many were replaced."""
    kept, replaced = {}, 0
    for f, d, item in entries:
        key = (id(d), item.get("model"), item.get("op"), item.get("batch"),
               item.get("precision"), item.get("pass"), item.get("device"), item.get("backend"))
        start = str(f.context.get("start_time") or "")
        if key in kept:
            replaced += 1
            if start < kept[key][0]:
                continue
        kept[key] = (start, d, item)
    return [(d, item) for _, d, item in kept.values()], replaced


class Data:
    def __init__(self, files, baseline_index=0, frameworks=()):
        self.files = files
        self.frameworks = list(frameworks)  # framework_file.FrameworkFile, matched by device
        self.devices = []
        self._device = {}
        by_identity, by_kind = {}, {}
        for f in files:
            for dev_id, info in f.devices.items():
                identity = device_identity(f, info)
                d = by_identity.get(identity)
                if d is None:
                    palette = CPU_COLOURS if info["kind"] == "cpu" else GPU_COLOURS
                    colour = palette[by_kind.get(info["kind"], 0) % len(palette)]
                    by_kind[info["kind"]] = by_kind.get(info["kind"], 0) + 1
                    d = Device(f, dev_id, info["kind"], info["name"],
                               info["name"] + placement(f.context), info, colour)
                    by_identity[identity] = d
                    self.devices.append(d)
                d.files.append(f)
                self._device[(id(f), dev_id)] = d
        self._unique_labels()
        # Every point; the sections of one backend per device read `points` and `records`, those
        # of each device's primary backend (context.backends). The library-vs-library section
        # reads `all_points`. A point two files of one device both measured is the later
        # file's (by start time), and `replaced` counts them.
        # Every file's points as written, duplicates included: the CSV export's rows.
        self.file_points = [(f, self.device(f, p["device"]), p) for f in files for p in f.points]
        self.point_files = {id(p): f for f, _, p in self.file_points}
        self.all_points, self.replaced = latest(self.file_points)
        self.points = [(d, p) for d, p in self.all_points if self.point_files[id(p)].is_primary(p)]
        self.records, _ = latest(
            (f, self.device(f, r["device"]), r) for f in files for r in f.models
            if isinstance(r, dict) and r.get("device") in f.devices and f.is_primary(r))
        self.boundaries = [(self.device(f, b["device"]), b) for f in files for b in f.boundaries
                           if isinstance(b, dict) and b.get("device") in f.devices]
        self.baseline = files[baseline_index] if files else None
        self.models = []
        for _, p in self.points:
            if p["model"] not in self.models:
                self.models.append(p["model"])
        self.titles = {r["model"]: r.get("title") or r["model"] for _, r in self.records}

    def _unique_labels(self):
        """Same-named devices are told apart by the library versions that differ, else by the
        first file's name."""
        for label in {d.label for d in self.devices}:
            same = [d for d in self.devices if d.label == label]
            if len(same) < 2:
                continue
            for d, suffix in zip(same, stack_suffixes(same)):
                d.label += suffix
        labels = [d.label for d in self.devices]
        for d in self.devices:
            if labels.count(d.label) > 1:
                d.label = f"{d.label} [{d.file.name}]"

    def merge_sentences(self):
        """Which devices several files measured, shown as one row each, and how many points two
        of those files both measured (the later file's kept)."""
        out = [f"{d.label}: one device in {len(d.files)} files "
               f"({', '.join(f.name for f in d.files)}), same host, facts and libraries."
               for d in self.devices if len(d.files) > 1]
        if self.replaced:
            out.append(f"{self.replaced} points were measured in more than one of a device's "
                       "files: the file that started last gives each.")
        return out

    def model_sum_labels(self):
        """What the model figures sum, as each results file's model records say (older files:
        convolutions and GEMMs only; newer: every operation, the eager estimate)."""
        labels = []
        for _, r in self.records:
            label = r.get("label")
            if isinstance(label, str) and label and label not in labels:
                labels.append(label)
        return labels or ["layer sums: convolutions and GEMMs only"]

    def device(self, f, dev_id) -> Device:
        return self._device[(id(f), dev_id)]

    def title(self, model):
        return self.titles.get(model, model)

    def devices_for(self, model):
        present = {id(d) for d, p in self.points if p["model"] == model}
        return [d for d in self.devices if id(d) in present]

    def points_of(self, model, device=None, precision=None, pass_=None, batch=None):
        return [p for d, p in self.points if p["model"] == model and
                (device is None or d is device) and (precision is None or p["precision"] ==
                precision) and (pass_ is None or p["pass"] == pass_) and
                (batch is None or p["batch"] == batch)]

    def records_of(self, model, device, pass_, ok_only=True):
        """{(precision, batch): record} of the model-level records."""
        out = {}
        for d, r in self.records:
            if d is device and r["model"] == model and r["pass"] == pass_ and \
                    (not ok_only or (r["status"] == "ok" and r.get("images_per_s"))):
                out[(r["precision"], r["batch"])] = r
        return out

    def record_passes(self, model):
        have = {r["pass"] for _, r in self.records if r["model"] == model}
        return [p for p in results_file.MODEL_PASSES if p in have]

    def ops(self, model):
        """[(op, count)] in the order the file lists them."""
        out = {}
        for _, p in self.points:
            if p["model"] == model and p["op"] not in out:
                out[p["op"]] = p.get("count", 1)
        return list(out.items())

    def baseline_device(self, kind, devices):
        """The reference among `devices` of this kind: the baseline file's, else the first."""
        mine = [d for d in devices if d.kind == kind]
        return next((d for d in mine if self.baseline in d.files), mine[0] if mine else None)


def placement(context) -> str:
    """" (partition h100, node gpu017)" for a file measured under a scheduler, else ""."""
    s = context.get("scheduler")
    if not isinstance(s, dict):
        return ""
    where = [f"{k} {s[k]}" for k in ("partition", "node") if s.get(k)]
    return f" ({', '.join(where)})" if where else ""


NOT_MEASURED_SCHEMA = "layerbench-not-measured/1"


def load_not_measured(path):
    """The records of a fleet's not-measured file: [{target, job_id, node, partition, reason}].
    Raises results_file.BadResultsFile naming the file and the problem."""
    doc = checked_json.read_document(path, "not-measured file")
    if not isinstance(doc, dict) or doc.get("schema") != NOT_MEASURED_SCHEMA:
        raise results_file.BadResultsFile(
            path, f'not a not-measured file: schema is not "{NOT_MEASURED_SCHEMA}"')
    records = doc.get("targets")
    if not isinstance(records, list) or not all(
            isinstance(r, dict) and isinstance(r.get("target"), str) and
            isinstance(r.get("reason"), str) for r in records):
        raise results_file.BadResultsFile(
            path, "targets: expected an array of objects with target and reason")
    return records


def device_batch(data, model, device, pass_="fwd"):
    """The batch a device's per-layer charts use: the largest with ok FP32 points, else the
    largest with any ok point."""
    ok = [p for p in data.points_of(model, device, pass_=pass_) if p["status"] == "ok"]
    fp32 = [p["batch"] for p in ok if p["precision"] == "fp32"]
    return max(fp32) if fp32 else max((p["batch"] for p in ok), default=None)


def precisions_of(data, model, device):
    have = {p["precision"] for p in data.points_of(model, device)}
    return [p for p in results_file.PRECISIONS if p in have]
