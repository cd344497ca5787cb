"""`layerbench doctor --python`: the framework probe and the doctor's verdict per framework.

The packages are TEST DATA: small stand-ins for TensorFlow, PyTorch and JAX, written into a fresh
virtual environment by make_package() below, that answer the probe's calls (versions, build info,
devices, warning lines) as the named release does; they are not the frameworks. The CUDA
libraries are real shared objects built here with `gcc -shared` and the sonames the frameworks
load, placed in the environment's nvidia/*/lib folders or left out. The real packages, when
`scripts/setup.sh --frameworks` installed them, are checked at the end.
"""
import json
import os
import subprocess
import sys
import textwrap
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("LAYERBENCH_BINARY") or ROOT / "build" / "layerbench")
FRAMEWORK_VENVS = Path(os.environ.get("LAYERBENCH_FRAMEWORK_VENVS") or ROOT / ".framework-venvs")

pytestmark = pytest.mark.skipif(not BINARY.is_file(),
                                reason=f"no layerbench binary at {BINARY}: build it, or set "
                                       "LAYERBENCH_BINARY")

STANDIN_NOTE = "# TEST DATA: a stand-in answering layerbench's framework probe as {what} does.\n"


def make_env(tmp_path):
    """A virtual environment without pip (fast); returns (python, site-packages)."""
    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=False, symlinks=True)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.check_output(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        text=True).strip())
    return python, site


def make_package(site, distribution, module, version, body):
    """A module plus the dist-info importlib.metadata reads."""
    (site / f"{module}.py").write_text(
        STANDIN_NOTE.format(what=f"{distribution} {version}") + textwrap.dedent(body))
    info = site / f"{distribution.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\n"
                                   f"Version: {version}\n")


def tensorflow(site, version, build_info, gpus=0, warnings=(), package="tensorflow", before=""):
    make_package(site, package, "tensorflow", version, f"""
        import sys
        {before}
        __version__ = {version!r}
        for line in {list(warnings)!r}:
            sys.stderr.write(line + "\\n")
        class sysconfig:
            @staticmethod
            def get_build_info():
                return {build_info!r}
        class config:
            @staticmethod
            def list_physical_devices(kind):
                return ["GPU:%d" % i for i in range({gpus})] if kind == "GPU" else []
        """)


def torch(site, version, cuda, cudnn, gpus=0, before=""):
    make_package(site, "torch", "torch", version, f"""
        import os
        {before}
        __version__ = {version!r}
        class version:
            cuda = {cuda!r}
        class backends:
            class cudnn:
                @staticmethod
                def version():
                    return {cudnn!r}
        class cuda:
            @staticmethod
            def is_available():
                return {gpus} > 0
            @staticmethod
            def device_count():
                return {gpus}
        """)


def shared_object(site, package_folder, soname, real_name, tmp_path):
    """A real shared object with `soname`, as pip's nvidia-* wheels lay them out."""
    folder = site / "nvidia" / package_folder / "lib"
    folder.mkdir(parents=True, exist_ok=True)
    source = tmp_path / "empty.c"
    source.write_text("int layerbench_test_standin_library;\n")
    subprocess.run(["gcc", "-shared", "-fPIC", f"-Wl,-soname,{soname}", "-o",
                    str(folder / real_name), str(source)], check=True)
    (folder / soname).symlink_to(real_name)


def cuda12_libraries(site, tmp_path, cudnn=("libcudnn.so.9", "libcudnn.so.9.10.2")):
    shared_object(site, "cuda_runtime", "libcudart.so.12", "libcudart.so.12.8.90", tmp_path)
    shared_object(site, "cublas", "libcublas.so.12", "libcublas.so.12.8.4.1", tmp_path)
    shared_object(site, "cublas", "libcublasLt.so.12", "libcublasLt.so.12.8.4.1", tmp_path)
    if cudnn:
        shared_object(site, "cudnn", cudnn[0], cudnn[1], tmp_path)


def doctor(python, *args, env=None):
    """Runs doctor --json --python PYTHON; returns (exit code, report, stderr)."""
    run_env = {k: v for k, v in os.environ.items()
               if k not in ("CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "PYTORCH_CUDA_ALLOC_CONF",
                            "TF_FORCE_GPU_ALLOW_GROWTH")}
    run_env.update(env or {})
    proc = subprocess.run([BINARY, "doctor", "--json", "--python", str(python), *args],
                          capture_output=True, text=True, env=run_env, timeout=300)
    report = json.loads(proc.stdout) if proc.stdout.strip() else None
    return proc.returncode, report, proc.stderr


def framework(report, name):
    found = [f for f in report["frameworks"] if f["name"] == name]
    assert len(found) == 1, report["frameworks"]
    return found[0]


def test_tensorflow_cpu_package_is_named(tmp_path):
    python, site = make_env(tmp_path)
    tensorflow(site, "2.21.0", {"is_cuda_build": False}, package="tensorflow-cpu")
    code, report, _ = doctor(python)
    tf = framework(report, "tensorflow")
    assert code == 1
    assert tf["package"] == "tensorflow-cpu" and not tf["gpu_usable"]
    assert tf["verdict"] == ("TensorFlow 2.21.0 is the CPU-only package `tensorflow-cpu`: it "
                             "never uses a GPU")
    assert any("tensorflow[and-cuda]==2.21.0" in fix for fix in tf["fixes"]), tf["fixes"]
    # --for a release that is installed is answered by the package, not the table.
    proc = subprocess.run([BINARY, "doctor", "--python", python, "--for", "tensorflow==2.21"],
                          capture_output=True, text=True, timeout=300)
    assert ("--for tensorflow==2.21: answered from the installed package tensorflow-cpu 2.21.0"
            in proc.stdout), proc.stdout[-2000:]
    assert "was tested with" not in proc.stdout


def test_tensorflow_without_cuda_extra_names_missing_libraries(tmp_path):
    python, site = make_env(tmp_path)
    tensorflow(site, "2.21.0",
               {"is_cuda_build": True, "cuda_version": "12.5.1", "cudnn_version": "9"},
               warnings=["W0000 cuda_executor.cc: Could not find cuda drivers on your machine, "
                         "GPU will not be used.",
                         "W0000 gpu_device.cc: Cannot dlopen some GPU libraries. Please make sure "
                         "the missing libraries mentioned above are installed properly",
                         "unrelated chatter"])
    code, report, _ = doctor(python)
    tf = framework(report, "tensorflow")
    assert code == 1 and not tf["gpu_usable"]
    missing = [lib["soname"] for lib in tf["libraries"] if lib["path"] is None]
    assert {"libcudart.so.12", "libcublas.so.12", "libcublasLt.so.12"} <= set(missing)
    assert "cannot load libcudart.so.12" in tf["verdict"], tf["verdict"]
    assert any("'tensorflow[and-cuda]==2.21.0'" in fix for fix in tf["fixes"]), tf["fixes"]
    assert any("Cannot dlopen some GPU libraries" in w for w in tf["warnings"]), tf["warnings"]
    assert not any("unrelated" in w for w in tf["warnings"])
    assert any("TF_FORCE_GPU_ALLOW_GROWTH is not set" in a for a in tf["advice"]), tf["advice"]


def test_torch_cuda_build_resolves_pip_libraries_and_names_missing_driver(tmp_path):
    python, site = make_env(tmp_path)
    torch(site, "2.9.0+cu128", "12.8", 91002)
    cuda12_libraries(site, tmp_path)
    code, report, _ = doctor(python)
    if report["driver"]["loaded"]:
        pytest.skip("this machine has an NVIDIA driver: the no-driver verdict cannot be shown")
    pt = framework(report, "torch")
    assert code == 1
    assert pt["cuda_version"] == "12.8" and pt["cudnn_version"] == "9.10.2"
    libs = {lib["soname"]: lib for lib in pt["libraries"]}
    assert libs["libcudnn.so.9"]["origin"] == "pip cudnn"
    assert libs["libcudnn.so.9"]["version"] == "9.10.2"
    assert libs["libcudart.so.12"]["path"].startswith(str(site)), libs
    assert pt["verdict"] == ("PyTorch 2.9.0+cu128 (CUDA 12.8 build) will run on the CPU: NVIDIA "
                             "driver not found (libcuda.so.1 cannot be loaded)")
    assert pt["fixes"][0].startswith("Install the NVIDIA driver for your GPU: CUDA 12.8 needs "
                                     "driver >= ")
    assert any("PYTORCH_CUDA_ALLOC_CONF is not set" in a for a in pt["advice"])
    _, report, _ = doctor(python, env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"})
    assert framework(report, "torch")["advice"] == [
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True configures PyTorch's caching allocator"]


def test_empty_cuda_visible_devices_hides_every_gpu(tmp_path):
    python, site = make_env(tmp_path)
    torch(site, "2.9.0+cu128", "12.8", 91002)
    cuda12_libraries(site, tmp_path)
    _, report, _ = doctor(python, env={"CUDA_VISIBLE_DEVICES": ""})
    pt = framework(report, "torch")
    assert "CUDA_VISIBLE_DEVICES is empty: every GPU is hidden" in pt["verdict"], pt["verdict"]
    assert any("unset CUDA_VISIBLE_DEVICES" in fix for fix in pt["fixes"]), pt["fixes"]


def test_cudnn_major_mismatch_names_both_versions_and_the_pip_pin(tmp_path):
    python, site = make_env(tmp_path)
    # TensorFlow 2.16 reports only cuDNN's major; the minor comes from the facts' tested builds.
    tensorflow(site, "2.16.1",
               {"is_cuda_build": True, "cuda_version": "12.3", "cudnn_version": "8"})
    cuda12_libraries(site, tmp_path, cudnn=("libcudnn.so.9", "libcudnn.so.9.1.0"))
    _, report, _ = doctor(python)
    tf = framework(report, "tensorflow")
    assert ("TensorFlow 2.16.1 (CUDA 12.3 build) will run on the CPU: it cannot load "
            "libcudnn.so.8: it was built for cuDNN 8.9 and this environment has cuDNN ") \
        in tf["verdict"], tf["verdict"]
    assert "9.1.0" in tf["verdict"]
    assert f"`{python} -m pip install 'nvidia-cudnn-cu12==8.9.*'`" in tf["fixes"], tf["fixes"]


def test_jax_without_cuda_plugin(tmp_path):
    python, site = make_env(tmp_path)
    make_package(site, "jax", "jax", "0.7.2", """
        __version__ = "0.7.2"
        class _Cpu:
            platform = "cpu"
        def devices():
            return [_Cpu()]
        """)
    _, report, _ = doctor(python)
    jax = framework(report, "jax")
    assert jax["verdict"] == "JAX 0.7.2 has no CUDA plugin installed: it runs on the CPU"
    assert any("jax[cuda" in fix for fix in jax["fixes"])


def test_hanging_import_is_a_finding_within_the_time_limit(tmp_path):
    python, site = make_env(tmp_path)
    tensorflow(site, "2.21.0", {"is_cuda_build": False}, before="import time; time.sleep(600)")
    code, report, _ = doctor(python, "--import-timeout", "2")
    tf = framework(report, "tensorflow")
    assert code == 1 and tf["status"] == "timeout"
    assert tf["verdict"] == ("TensorFlow 2.21.0: import tensorflow did not finish within 2 s "
                             "(the import hangs)")


def test_crashing_import_is_a_finding(tmp_path):
    python, site = make_env(tmp_path)
    torch(site, "2.9.0+cu128", "12.8", 91002, before="os.abort()")
    code, report, _ = doctor(python)
    pt = framework(report, "torch")
    assert code == 1 and pt["status"] == "crashed"
    assert pt["verdict"] == ("PyTorch 2.9.0+cu128 cannot be imported: import torch ended the "
                             "interpreter with signal 6")


def test_interpreter_that_is_not_python(tmp_path):
    code, report, _ = doctor("/bin/sh")
    assert code == 1 and report["frameworks"] == []
    assert "is it a Python 3.8+ interpreter?" in report["python_probe_error"]


def test_python_that_does_not_exist_is_a_usage_error(tmp_path):
    code, report, err = doctor(tmp_path / "no-such-python")
    assert code == 2 and report is None
    assert err.startswith("layerbench doctor: --python: ") and "does not exist" in err


def test_python_none_skips_the_frameworks():
    proc = subprocess.run([BINARY, "doctor", "--python", "none"], capture_output=True, text=True,
                          timeout=300)
    assert "Python frameworks: not checked (--python none)" in proc.stdout


# --- the real packages, where scripts/setup.sh --frameworks installed them ---

def real_python(name):
    python = FRAMEWORK_VENVS / name / "bin" / "python"
    if not python.is_file():
        pytest.skip(f"no {python}: the real {name} package is installed by "
                    "scripts/setup.sh --frameworks (large download)")
    return python


def real_doctor(env_name, name):
    """doctor on the real package; skips when its environment lacks it (an unfinished set-up)."""
    code, report, _ = doctor(real_python(env_name))
    if not any(f["name"] == name for f in report["frameworks"]):
        pytest.skip(f"{name} is not installed in {FRAMEWORK_VENVS / env_name}")
    return code, report, framework(report, name)


def test_real_tensorflow_cpu():
    code, report, tf = real_doctor("tensorflow-cpu", "tensorflow")
    assert code == 1 and tf["status"] == "ok" and tf["package"] == "tensorflow-cpu"
    assert tf["verdict"].endswith("is the CPU-only package `tensorflow-cpu`: it never uses a GPU")


def test_real_tensorflow_without_cuda_extra():
    code, report, tf = real_doctor("tensorflow", "tensorflow")
    assert code == 1 and tf["status"] == "ok" and tf["cuda_build"]
    if any(name.startswith("nvidia-cudnn") for name in report.get("nvidia_packages", {})):
        pytest.skip("this environment has the [and-cuda] libraries")
    assert "cannot load libcudart.so." in tf["verdict"], tf["verdict"]


def test_real_torch():
    code, report, pt = real_doctor("torch", "torch")
    assert code == 1 and pt["status"] == "ok"
    if not pt["cuda_build"]:
        assert "is a CPU-only build" in pt["verdict"]
    elif not report["driver"]["loaded"]:
        assert f"(CUDA {pt['cuda_version']} build) will run on the CPU" in pt["verdict"]
        assert "NVIDIA driver not found" in pt["verdict"]


def test_run_records_the_frameworks_and_the_report_shows_them(tmp_path):
    python, site = make_env(tmp_path)
    tensorflow(site, "2.21.0", {"is_cuda_build": False}, package="tensorflow-cpu")
    out = tmp_path / "run.json"
    proc = subprocess.run(
        [BINARY, "run", "--device", "cpu", "--backend", "onednn", "--model-file",
         ROOT / "tests" / "data" / "models" / "tiny.json", "--model", "tiny", "--batch", "1",
         "--precision", "fp32", "--pass", "fwd", "--max-time-per-point", "0.05", "--quiet",
         "--cpu-roofs", "skip", "--python", python, "-o", out],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    doctor_block = json.loads(out.read_text())["context"]["doctor"]
    assert doctor_block["python"] == str(python)
    tf = framework(doctor_block, "tensorflow")
    assert tf["verdict"] == ("TensorFlow 2.21.0 is the CPU-only package `tensorflow-cpu`: it "
                             "never uses a GPU")
    report = subprocess.run([sys.executable, ROOT / "scripts" / "report.py", out, "-o",
                             tmp_path / "report"], capture_output=True, text=True, timeout=300)
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "report" / "index.html").read_text()
    assert "TensorFlow 2.21.0, package tensorflow-cpu: CPU only" in page


def test_run_with_a_python_that_does_not_exist_is_a_usage_error(tmp_path):
    proc = subprocess.run([BINARY, "run", "--device", "cpu", "--model-file",
                           ROOT / "tests" / "data" / "models" / "tiny.json", "--model", "tiny",
                           "--python", tmp_path / "nope", "-o", tmp_path / "run.json"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "--python" in proc.stderr, proc.stderr
