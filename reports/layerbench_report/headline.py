"""The at-a-glance cards and sentences of each model."""
from __future__ import annotations

from dataclasses import dataclass

from layerbench_report import results_file
from layerbench_report.layer_precisions import substitution_note
from layerbench_report.markup import P, fmt_ms, fmt_rate, fmt_ratio
from layerbench_report.uncertainty import (UNSTABLE_SUM_UNCERTAINTY, ranged_text,
                                           record_uncertainty, unstable_sum)


@dataclass
class Headline:
    sentences: list  # plain text
    cards: list      # (big figure, caption)


def availability(data, model, device, pass_):
    """{precision: why it has no ok model record} for the precisions without one."""
    missing = {}
    for prec in results_file.PRECISIONS:
        recs = [r for d, r in data.records if d is device and r["model"] == model and
                r["pass"] == pass_ and r["precision"] == prec]
        if any(r["status"] == "ok" for r in recs):
            continue
        bad = recs or [p for p in data.points_of(model, device, prec) if p["status"] != "ok"]
        if bad:
            status, reason = bad[0]["status"], bad[0].get("reason", "")
            # A model record's reason starts with its status ("oom: conv1 fwd (conv1): ...").
            reason = reason.removeprefix(f"{status}: ")
            missing[prec] = results_file.STATUS_NAMES[status] + (f" ({reason})" if reason else "")
        else:
            missing[prec] = "not measured"
    return missing


def missing_sentence(device, missing):
    if not missing:
        return f"All five precisions were measured on {device.label}."
    groups = {}
    for prec, why in missing.items():
        groups.setdefault(why, []).append(P(prec))
    parts = [f"{', '.join(precs)}: {why}" for why, precs in groups.items()]
    return f"Missing on {device.label}: " + "; ".join(parts) + "."


def best(records, precision=None):
    """The record with the highest images/s, optionally of one precision."""
    mine = [r for (p, _), r in records.items() if precision in (None, p)]
    return max(mine, key=lambda r: r["images_per_s"]) if mine else None


def ranged_ratio(data, model, fast, fast_device, slow, slow_device) -> tuple:
    """(ratio of fast's images/s to slow's, "1.75× (1.62–1.89×)"): the range from both sums'
    uncertainties (uncertainty.py)."""
    ratio = fast["images_per_s"] / slow["images_per_s"]
    return ratio, ranged_text(ratio, record_uncertainty(data, model, fast_device, fast),
                              record_uncertainty(data, model, slow_device, slow))


def headline(data, model) -> Headline:
    title = data.title(model)
    passes = data.record_passes(model)
    if not passes:
        return Headline([f"{title}: no model-level records in these files (an unfinished run "
                         "writes them only at the end), so there is no headline; the per-layer "
                         "charts below use the points."], [])
    pass_ = passes[0]
    what = f"{title} {results_file.pass_name(pass_)}"
    devices = data.devices_for(model)
    gpus = [d for d in devices if d.kind == "gpu" and data.records_of(model, d, pass_)]
    cpus = [d for d in devices if d.kind == "cpu" and data.records_of(model, d, pass_)]
    out = Headline([], [])
    for g in gpus:
        recs = data.records_of(model, g, pass_)
        shared = [b for (p, b) in recs if p == "fp32" and
                  any(q != "fp32" and bb == b for (q, bb) in recs)]
        if shared:
            batch = max(shared)
            lead = max((r for (p, b), r in recs.items() if p != "fp32" and b == batch),
                       key=lambda r: r["images_per_s"])
            fp32 = recs[("fp32", batch)]
            ratio, ranged = ranged_ratio(data, model, lead, g, fp32, g)
            text = (f"{what}, batch {batch}, on {g.label}: GPU {P(lead['precision'])} is "
                    f"{ranged} faster than GPU FP32 ({fmt_rate(lead['images_per_s'])} vs "
                    f"{fmt_rate(fp32['images_per_s'])} images/s)")
            out.cards.append((fmt_ratio(ratio), f"GPU {P(lead['precision'])} vs GPU FP32 — "
                              f"{g.label}, batch {batch}, range {ranged.split(' ', 1)[1]}"))
        else:
            lead = best(recs)
            batch = lead["batch"]
            text = (f"{what} on {g.label}: {fmt_rate(lead['images_per_s'])} images/s in "
                    f"{P(lead['precision'])} at batch {batch}")
            out.cards.append((fmt_rate(lead["images_per_s"]),
                              f"images/s, GPU {P(lead['precision'])} — {g.label}, batch {batch}"))
        # The CPU to compare with: one measured with this GPU (in one of its files), else the
        # first.
        c = next((c for c in cpus if any(f in g.files for f in c.files)), cpus[0] if cpus else None)
        if c is not None:
            crecs = data.records_of(model, c, pass_)
            ref = crecs.get(("fp32", batch)) or best(crecs, "fp32") or best(crecs)
            ratio, ranged = ranged_ratio(data, model, lead, g, ref, c)
            same = ref["batch"] == batch
            text += (f"; {ranged} {'faster than' if same else 'the throughput of'} CPU "
                     f"{P(ref['precision'])} on {c.label} ({fmt_rate(ref['images_per_s'])} images/s"
                     f"{'' if same else ' at batch ' + str(ref['batch'])})")
            out.cards.append((fmt_ratio(ratio), f"GPU {P(lead['precision'])} vs CPU "
                              f"{P(ref['precision'])} — {g.label} vs {c.label}, range "
                              f"{ranged.split(' ', 1)[1]}"))
            # The same precision on both sides beside the mixed one, where both measured it.
            same_precision = recs.get((ref["precision"], ref["batch"]))
            if same_precision is not None and same_precision is not lead:
                _, ranged = ranged_ratio(data, model, same_precision, g, ref, c)
                text += (f"; GPU {P(ref['precision'])} against CPU {P(ref['precision'])}: "
                         f"{ranged}")
        if not cpus:
            text += "; no CPU results in these files to compare with"
        out.sentences.append(text + ".")
        out.sentences.append(missing_sentence(g, availability(data, model, g, pass_)))
    if not gpus:
        cpu_only(data, model, what, cpus, pass_, out)
    if not gpus and not cpus:
        out.sentences.append(f"{what}: no model-level record was measured ok on any device; "
                             "see the tables below for why.")
    # A TF32 or FP8 sum's memory-bound layers come from another precision's points.
    substituted = substitution_note(r for d in gpus + cpus
                                    for r in data.records_of(model, d, pass_).values())
    if substituted:
        out.sentences.append(substituted)
    out.sentences += flagged(data, model, gpus + cpus, pass_)
    return out


def cpu_only(data, model, what, cpus, pass_, out):
    """Each CPU's best throughput where no GPU was measured, and what a GPU run would add."""
    for c in cpus:
        crecs = data.records_of(model, c, pass_)
        ref = best(crecs, "fp32") or best(crecs)
        batches = sorted({b for (_, b) in crecs})
        out.sentences.append(
            f"{what} on {c.label} (CPU): {fmt_rate(ref['images_per_s'])} images/s in "
            f"{P(ref['precision'])} at batch {ref['batch']} (best of batches "
            f"{', '.join(map(str, batches))}; {fmt_ms(ref['time_ms'])} ms per batch).")
        out.cards.append((fmt_rate(ref["images_per_s"]),
                          f"images/s, CPU {P(ref['precision'])} — {c.label}, batch "
                          f"{ref['batch']}"))
        out.sentences.append(missing_sentence(c, availability(data, model, c, pass_)))
    out.sentences.append(
        "No GPU results are present in these files, so there is no GPU speed-up to show: run "
        "`layerbench run --device gpu` on a machine with an NVIDIA GPU and pass both files "
        "to report.py.")


def flagged(data, model, devices, pass_) -> list:
    """Sentences counting the model sums over contended points and the unstable sums."""
    records = [(d, r) for d in devices for r in data.records_of(model, d, pass_).values()]
    sentences = []
    contended = [r for _, r in records if r.get("contended_points")]
    if contended:
        sentences.append(
            f"{len(contended)} of these model sums add up contended points (their samples lost "
            "CPU to other processes): their images/s may be slower than this machine can do, and "
            "the tables mark them \"contended\".")
    unstable = [r for d, r in records if unstable_sum(data, model, d, r)]
    if unstable:
        sentences.append(
            f"{len(unstable)} of these model sums are unstable (their uncertainty, the summed "
            f"points' weighted by their time, is {UNSTABLE_SUM_UNCERTAINTY:.0%} or more): a rerun "
            "may not give their images/s.")
    return sentences
