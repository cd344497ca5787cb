"""One device measured in several results files is one device row: its points and model sums
from every file, a point two files both measured from the file that started last; devices of
another host, facts or library stack stay apart, labelled by what differs."""
import copy
import glob

from conftest import GPU_A, ROOT, read_fixture, write_json

from layerbench_report import results_file
from layerbench_report.headline import headline
from layerbench_report.data import Data

# The reference results files (the PyTorch end-to-end file beside them is a framework file).
REFERENCE = sorted(p for p in glob.glob(str(ROOT / "reports/reference/*.json"))
                   if not p.endswith("-torch.json"))


def test_the_reference_h200_is_one_device_with_every_precision():
    data = Data([results_file.load(p) for p in REFERENCE])
    gpus = [d for d in data.devices if d.kind == "gpu"]
    assert [d.label for d in gpus] == ["NVIDIA H200"]
    assert len(gpus[0].files) == 5
    precisions = {p["precision"] for d, p in data.points if d is gpus[0] and
                  p["model"] == "resnet50"}
    assert precisions == {"fp32", "tf32", "fp16", "bf16"}
    assert data.replaced == 0
    assert "NVIDIA H200: one device in 5 files" in data.merge_sentences()[0]
    # Against the CPU, the mixed-precision ratio names both precisions and the FP32 one stands
    # beside it: ResNet-50 2,194 against 31.6 images/s.
    sentence = headline(data, "resnet50").sentences[0]
    assert "GPU FP16 is" in sentence and "faster than CPU FP32" in sentence
    assert "GPU FP32 against CPU FP32: 69.5×" in sentence


def test_a_point_measured_twice_is_the_later_files(tmp_path):
    # TEST DATA: the fixture again, started a day later, every median doubled.
    later = read_fixture(GPU_A)
    later["context"]["start_time"] = "2000-01-02T00:00:00Z"
    for p in later["points"]:
        if p.get("timing"):
            p["timing"]["median_ms"] *= 2
    first = results_file.load(GPU_A)
    second = results_file.load(write_json(tmp_path / "later.json", later))
    for order in ([first, second], [second, first]):
        data = Data(order)
        assert len(data.devices) == len(first.devices)
        assert data.replaced == len(first.points)
        kept = {(p["model"], p["op"], p["precision"], p["pass"], p["batch"], p["device"]): p
                for _, p in data.all_points}
        for p in later["points"]:
            key = (p["model"], p["op"], p["precision"], p["pass"], p["batch"], p["device"])
            assert (kept[key].get("timing") or {}).get("median_ms") == \
                (p.get("timing") or {}).get("median_ms")
        assert len(data.file_points) == 2 * len(first.points)  # the CSV keeps every file's rows


def test_another_library_stack_is_another_device_labelled_by_it(tmp_path):
    other = read_fixture(GPU_A)
    other["context"]["libraries"] = dict(other["context"]["libraries"], cudnn="9.20.0 (fixture)")
    data = Data([results_file.load(GPU_A),
                 results_file.load(write_json(tmp_path / "other.json", other))])
    gpus = [d for d in data.devices if d.kind == "gpu"]
    assert len(gpus) == 2 and data.replaced == 0
    assert {d.label for d in gpus} == {f"{gpus[0].name} (cudnn 9.19.0 (fixture))",
                                       f"{gpus[0].name} (cudnn 9.20.0 (fixture))"}
    assert data.merge_sentences() == []


def test_another_host_is_another_device(tmp_path):
    other = copy.deepcopy(read_fixture(GPU_A))
    other["context"]["host"] = "another-host"
    data = Data([results_file.load(GPU_A),
                 results_file.load(write_json(tmp_path / "host.json", other))])
    gpus = [d for d in data.devices if d.kind == "gpu"]
    assert len(gpus) == 2
    assert gpus[0].label != gpus[1].label  # same stack: told apart by the file's name
