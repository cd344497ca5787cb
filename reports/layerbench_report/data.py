"""The merged data of all results files: devices, points and model-level records."""
from __future__ import annotations

from dataclasses import dataclass

from layerbench_report import checked_json, results_file

from layerbench_report.style import CPU_COLOURS, GPU_COLOURS


@dataclass(eq=False)
class Device:
    file: results_file.ResultsFile
    id: str
    kind: str
    name: str
    label: str  # unique within the report
    info: dict  # the context's device object
    colour: str

    def peak(self, precision):
        """(TFLOP/s, source) or None."""
        p = (self.info.get("peaks") or {}).get(precision)
        return (float(p["tflops"]), p.get("source", "")) if p and p.get("tflops") else None

    def bandwidth(self):
        """(GB/s, source) or None."""
        b = self.info.get("memory_bandwidth_gbps")
        return (float(b["value"]), b.get("source", "")) if b and b.get("value") else None


class Data:
    def __init__(self, files, baseline_index=0, frameworks=()):
        self.files = files
        self.frameworks = list(frameworks)  # framework_file.FrameworkFile, matched by device
        self.devices = []
        by_kind = {}
        for f in files:
            for dev_id, info in f.devices.items():
                palette = CPU_COLOURS if info["kind"] == "cpu" else GPU_COLOURS
                colour = palette[by_kind.get(info["kind"], 0) % len(palette)]
                by_kind[info["kind"]] = by_kind.get(info["kind"], 0) + 1
                label = info["name"] + placement(f.context)
                self.devices.append(Device(f, dev_id, info["kind"], info["name"], label, info,
                                           colour))
        labels = [d.label for d in self.devices]
        for d in self.devices:
            if labels.count(d.label) > 1:
                d.label = f"{d.label} [{d.file.name}]"
        self._device = {(id(d.file), d.id): d for d in self.devices}
        # Every point; the sections of one backend per device read `points` and `records`, those
        # of each device's primary backend (context.backends). The library-vs-library section
        # reads `all_points`.
        self.all_points = [(self.device(f, p["device"]), p) for f in files for p in f.points]
        self.points = [(d, p) for d, p in self.all_points if d.file.is_primary(p)]
        self.records = [(self.device(f, r["device"]), r) for f in files for r in f.models
                        if isinstance(r, dict) and r.get("device") in f.devices and
                        f.is_primary(r)]
        self.boundaries = [(self.device(f, b["device"]), b) for f in files for b in f.boundaries
                           if isinstance(b, dict) and b.get("device") in f.devices]
        self.baseline = files[baseline_index] if files else None
        self.models = []
        for _, p in self.points:
            if p["model"] not in self.models:
                self.models.append(p["model"])
        self.titles = {r["model"]: r.get("title") or r["model"] for _, r in self.records}

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
        return next((d for d in mine if d.file is self.baseline), mine[0] if mine else None)


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
