"""What the Python frameworks installed in this interpreter report about themselves.

Run by `layerbench doctor` in the interpreter the user runs (`--python`): for TensorFlow, PyTorch
and JAX, each imported in its own subprocess under a time limit (an import can hang or crash),
it prints one JSON object: version and package, the CUDA and cuDNN the build was made for, the
GPUs the framework sees, its own warning lines, and where each CUDA library it loads resolves
from its point of view. It judges nothing: the doctor does (harness/doctor/frameworks.cpp).
Standard library only, Python 3.8+.
"""

import glob
import json
import os
import re
import subprocess
import sys

RESULT_MARK = "LAYERBENCH_PROBE_RESULT "

# import name -> (display name, distributions that provide it, in the order they are reported)
FRAMEWORKS = {
    "tensorflow": ("TensorFlow", ["tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly",
                                  "tensorflow-intel", "tensorflow-macos"]),
    "torch": ("PyTorch", ["torch"]),
    "jax": ("JAX", ["jax"]),
}

# Lines of a framework's own output worth showing: why it did not find a GPU.
WARNING_PATTERN = re.compile(
    r"cuda|cudnn|cublas|gpu|driver|dlopen|could not|cannot|unable|skipping", re.IGNORECASE)


def child_tensorflow():
    import tensorflow as tf

    info = dict(tf.sysconfig.get_build_info())
    return {
        "version": tf.__version__,
        "cuda_build": bool(info.get("is_cuda_build", False)),
        "cuda_version": str(info.get("cuda_version", "") or ""),
        "cudnn_version": str(info.get("cudnn_version", "") or ""),
        "gpus_seen": len(tf.config.list_physical_devices("GPU")),
    }


def child_torch():
    import torch

    cudnn = None
    try:
        cudnn = torch.backends.cudnn.version()
    except Exception:  # a CPU build or a cuDNN that does not load: reported as unknown
        cudnn = None
    return {
        "version": torch.__version__,
        "cuda_build": torch.version.cuda is not None,
        "cuda_version": torch.version.cuda or "",
        "cudnn_version": torch_cudnn_text(cudnn),
        "gpus_seen": torch.cuda.device_count() if torch.cuda.is_available() else 0,
    }


def torch_cudnn_text(version):
    """torch.backends.cudnn.version(): 90100 = 9.1.0 (cuDNN 9+), 8907 = 8.9.7 (cuDNN 8)."""
    if not version:
        return ""
    if version >= 90000:
        return "%d.%d.%d" % (version // 10000, version // 100 % 100, version % 100)
    return "%d.%d.%d" % (version // 1000, version // 100 % 10, version % 100)


def child_jax():
    import jax

    devices = jax.devices()
    cuda = ""
    for major in ("13", "12", "11"):
        if distribution_version("jax-cuda%s-plugin" % major) or distribution_version(
                "jax_cuda%s_plugin" % major):
            cuda = major
            break
    return {
        "version": jax.__version__,
        "cuda_build": bool(cuda),
        "cuda_version": cuda,
        "cudnn_version": distribution_version("nvidia-cudnn-cu%s" % cuda) if cuda else "",
        "gpus_seen": sum(1 for d in devices if d.platform == "gpu"),
    }


CHILDREN = {"tensorflow": child_tensorflow, "torch": child_torch, "jax": child_jax}


def distribution_version(name):
    try:
        from importlib import metadata
    except ImportError:
        return ""
    try:
        return metadata.version(name)
    except Exception:
        return ""


def nvidia_distributions():
    """The NVIDIA pip packages of this environment (nvidia-cudnn-cu12 ...), name -> version."""
    try:
        from importlib import metadata
    except ImportError:
        return {}
    found = {}
    for dist in metadata.distributions():
        name = (dist.metadata.get("Name") or "").lower().replace("_", "-")
        if name.startswith("nvidia-"):
            found[name] = dist.version
    return found


def site_folders():
    import site

    folders = list(getattr(site, "getsitepackages", lambda: [])())
    user = getattr(site, "getusersitepackages", lambda: "")()
    if user:
        folders.append(user)
    return [f for f in folders if os.path.isdir(f)]


def pip_library_folders():
    """The nvidia/*/lib folders of this environment's pip packages, where TensorFlow 2.14+ and
    PyTorch's CUDA wheels load their CUDA libraries from before the system's."""
    folders = []
    for site_dir in site_folders():
        folders += sorted(glob.glob(os.path.join(site_dir, "nvidia", "*", "lib")))
    return folders


def system_library_files():
    """soname -> path as the dynamic loader's cache lists them (ldconfig -p)."""
    for ldconfig in ("/sbin/ldconfig", "/usr/sbin/ldconfig", "ldconfig"):
        try:
            out = subprocess.run([ldconfig, "-p"], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, universal_newlines=True,
                                 timeout=10).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        files = {}
        for line in out.splitlines():
            match = re.match(r"\s*(\S+) \(.*\) => (\S+)", line)
            if match and match.group(1) not in files:
                files[match.group(1)] = match.group(2)
        return files
    return {}


def file_version(path):
    """The version in the file name the soname link points to: libcudnn.so.9.1.0 -> 9.1.0."""
    real = os.path.basename(os.path.realpath(path))
    match = re.search(r"\.so\.(\d+(?:\.\d+)*)$", real)
    return match.group(1) if match else ""


def wanted_libraries(cuda_version, cudnn_version):
    """The sonames a CUDA build of a framework loads: CUDA runtime, cuBLAS and cuBLASLt carry
    the CUDA major in their soname, cuDNN its own major."""
    cuda_major = cuda_version.split(".")[0]
    cudnn_major = cudnn_version.split(".")[0]
    wanted = []
    if cuda_major.isdigit():
        wanted += [("cudart", "libcudart.so." + cuda_major),
                   ("cublas", "libcublas.so." + cuda_major),
                   ("cublasLt", "libcublasLt.so." + cuda_major)]
    if cudnn_major.isdigit():
        wanted.append(("cudnn", "libcudnn.so." + cudnn_major))
    return wanted


def resolve_libraries(wanted, environ, system_files):
    """Where each soname resolves from the framework's point of view, in the order it looks:
    its pip nvidia folders, LD_LIBRARY_PATH, the loader's cache. A missing soname lists the other
    versions of the same library found, the usual reason it is missing."""
    places = [(folder, "pip " + os.path.basename(os.path.dirname(folder)))
              for folder in pip_library_folders()]
    places += [(folder, "LD_LIBRARY_PATH")
               for folder in environ.get("LD_LIBRARY_PATH", "").split(":") if folder]
    libraries = []
    for family, soname in wanted:
        row = {"family": family, "soname": soname, "path": "", "origin": "", "version": "",
               "other_versions": []}
        for folder, origin in places:
            candidate = os.path.join(folder, soname)
            if os.path.exists(candidate):
                row.update(path=candidate, origin=origin, version=file_version(candidate))
                break
        else:
            if soname in system_files:
                row.update(path=system_files[soname], origin="system",
                           version=file_version(system_files[soname]))
        if not row["path"]:
            stem = soname.split(".so.")[0] + ".so."
            others = [os.path.join(folder, name) for folder, _ in places
                      if os.path.isdir(folder) for name in sorted(os.listdir(folder))
                      if name.startswith(stem)]
            others += [path for name, path in sorted(system_files.items())
                       if name.startswith(stem)]
            row["other_versions"] = sorted({file_version(p) or os.path.basename(p)
                                            for p in others})
        libraries.append(row)
    return libraries


def probe_child(name):
    result = CHILDREN[name]()
    sys.stdout.write("\n" + RESULT_MARK + json.dumps(result) + "\n")
    sys.stdout.flush()


def probe_framework(name, timeout, system_files):
    display, packages = FRAMEWORKS[name]
    row = {"name": name, "display": display, "status": "not_installed", "error": "",
           "package": "", "version": "", "cuda_build": False, "cuda_version": "",
           "cudnn_version": "", "gpus_seen": 0, "warnings": [], "libraries": []}
    installed = [(p, distribution_version(p)) for p in packages if distribution_version(p)]
    if not installed:
        return row
    row["package"], row["version"] = installed[0]
    if name == "jax":
        plugins = [p for p in ("jax-cuda13-plugin", "jax-cuda12-plugin", "jax-cuda11-plugin")
                   if distribution_version(p)]
        if plugins:
            row["package"] = "jax[cuda%s]" % plugins[0].split("cuda")[1].split("-")[0]
    try:
        done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", name],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        row.update(status="timeout",
                   error="import %s did not finish within %g s" % (name, timeout))
        return row
    stdout, stderr = done.stdout, done.stderr
    row["warnings"] = [line.strip() for line in stderr.splitlines()
                       if WARNING_PATTERN.search(line) and not line.startswith(" ")][:20]
    results = [line[len(RESULT_MARK):] for line in stdout.splitlines()
               if line.startswith(RESULT_MARK)]
    if done.returncode < 0 or (done.returncode != 0 and not stderr.strip()):
        row.update(status="crashed",
                   error="import %s ended the interpreter with %s" % (
                       name, "signal %d" % -done.returncode if done.returncode < 0
                       else "exit code %d" % done.returncode))
        return row
    if not results:
        lines = [line for line in stderr.strip().splitlines() if line.strip()]
        row.update(status="import_error",
                   error=lines[-1] if lines else "exit code %d" % done.returncode)
        return row
    row.update(json.loads(results[-1]))
    row["status"] = "ok"
    if row["cuda_build"]:
        row["libraries"] = resolve_libraries(
            wanted_libraries(row["cuda_version"], row["cudnn_version"]), os.environ,
            system_files)
    return row


def main(argv):
    if len(argv) == 3 and argv[1] == "--child":
        probe_child(argv[2])
        return 0
    timeout = float(argv[1]) if len(argv) > 1 else 60.0
    system_files = system_library_files()
    frameworks = [probe_framework(name, timeout, system_files) for name in FRAMEWORKS]
    env = {key: os.environ.get(key) for key in (
        "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "TF_FORCE_GPU_ALLOW_GROWTH",
        "PYTORCH_CUDA_ALLOC_CONF", "XLA_PYTHON_CLIENT_PREALLOCATE")}
    json.dump({"probe": 1, "python": sys.executable,
               "python_version": "%d.%d.%d" % sys.version_info[:3],
               "platform": sys.platform, "frameworks": frameworks,
               "nvidia_packages": nvidia_distributions(), "env": env}, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
