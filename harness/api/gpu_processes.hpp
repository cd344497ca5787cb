#pragma once
// A compute process on a GPU, as the GPU's backend reads them (BackendDescriptor::gpu_processes)
// for the results file's context.machine_state.
#include <cstdint>
#include <optional>

namespace lb {

struct GpuProcess {
  unsigned pid = 0;
  std::optional<std::uint64_t> used_bytes;  // empty where the library may not tell (no permission)
};

}  // namespace lb
