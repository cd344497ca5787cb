#pragma once
// The CUDA backend as the binary links it: no CUDA library. cuDNN and cuBLASLt are loaded at run
// time by their sonames, as the plugin would find them (LD_LIBRARY_PATH, then the run path), each
// with the version it reports and the file it came from; then the plugin (plugin_api.hpp), from
// lib/layerbench in the binary's folder or its parent (the build tree; an install prefix, tests/).
// Whatever fails is recorded with the loader's message, once per process, and the binary runs on.
#include "harness/api/backend_descriptor.hpp"
#include "harness/doctor/snapshot.hpp"
#include "kernels/cuda/plugin_api.hpp"

namespace lb::cuda {

// cuDNN and cuBLAS (compiled and loaded versions, file, error), the plugin and the CUDA runtime
// version the plugin carries, into `snapshot`. Touches no device.
void probe_libraries(doctor::Snapshot& snapshot);

// The loaded plugin; throws LibraryError saying why the CUDA backend is unavailable.
const PluginApi& plugin();

// cuDNN and cuBLASLt as bench/backend_registry.cpp lists them: the GPUs, their probe, --version
// rows, their `run` options (logic/cuda_options.hpp) and one backend per GPU, made by the plugin.
const BackendDescriptor& descriptor();

}  // namespace lb::cuda
