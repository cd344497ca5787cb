// TEST DATA SOURCE: a stand-in for libnvidia-ml that plays back a script, for the unit tests of
// the NVML readers (cuda_nvml_telemetry_test.cpp, cuda_nvml_processes_test.cpp). Nothing here is
// a measurement of a GPU.
// The script (named by LAYERBENCH_FAKE_NVML_SCRIPT) has one reading per line:
//   sm_mhz memory_mhz power_mw energy_mj event_reasons
// "-" answers NVML_ERROR_NOT_SUPPORTED, "lost" NVML_ERROR_GPU_IS_LOST; '#' starts a comment.
// Each query keeps its own place: its n-th call answers from line n (the last line once past
// the end). Built with FAKE_NVML_LEGACY it has the pre-12.2 name of the clock-event reasons
// query, no energy counter and no compute-process list. The compute processes are
// LAYERBENCH_FAKE_NVML_PROCESSES of them (2 when unset): pid 100 + i, using i + 1 MiB, or not
// telling for every odd i.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int success = 0, uninitialized = 1, not_supported = 3, gpu_is_lost = 15;
enum Column { sm, memory, power, energy, reasons, columns };

std::vector<std::vector<std::string>> script;
std::size_t cursor[columns];

template <class Value>
int answer(Column column, Value* value) {
  if (script.empty()) return uninitialized;
  std::size_t& line = cursor[column];
  const std::string& cell = script[line < script.size() ? line : script.size() - 1][column];
  ++line;
  if (cell == "-") return not_supported;
  if (cell == "lost") return gpu_is_lost;
  *value = static_cast<Value>(std::stoull(cell, nullptr, 0));
  return success;
}

}  // namespace

extern "C" {

int nvmlInit_v2() {
  script.clear();
  for (std::size_t& c : cursor) c = 0;
  const char* path = std::getenv("LAYERBENCH_FAKE_NVML_SCRIPT");
  std::ifstream file(path ? path : "");
  for (std::string line; std::getline(file, line);) {
    std::istringstream cells(line.substr(0, line.find('#')));
    std::vector<std::string> row;
    for (std::string cell; cells >> cell;) row.push_back(cell);
    if (row.size() == columns) script.push_back(row);
  }
  return script.empty() ? uninitialized : success;
}

int nvmlShutdown() { return success; }

const char* nvmlErrorString(int rc) {
  switch (rc) {
    case success:
      return "Success";
    case not_supported:
      return "Not Supported";
    case gpu_is_lost:
      return "GPU is lost";
    default:
      return "Uninitialized";
  }
}

int nvmlDeviceGetHandleByPciBusId_v2(const char*, void** device) {
  static int handle;
  *device = &handle;
  return script.empty() ? uninitialized : success;
}

int nvmlDeviceGetClockInfo(void*, int clock_type, unsigned* mhz) {
  return answer(clock_type == 1 ? sm : memory, mhz);
}

int nvmlDeviceGetPowerUsage(void*, unsigned* milliwatts) { return answer(power, milliwatts); }

#ifdef FAKE_NVML_LEGACY
int nvmlDeviceGetCurrentClocksThrottleReasons(void*, unsigned long long* mask) {
  return answer(reasons, mask);
}
#else
int nvmlDeviceGetTotalEnergyConsumption(void*, unsigned long long* millijoules) {
  return answer(energy, millijoules);
}
int nvmlDeviceGetCurrentClocksEventReasons(void*, unsigned long long* mask) {
  return answer(reasons, mask);
}

struct ProcessInfo {  // nvmlProcessInfo_v3_t
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id, compute_instance_id;
};
int nvmlDeviceGetComputeRunningProcesses_v3(void*, unsigned* count, ProcessInfo* infos) {
  constexpr int insufficient_size = 7;
  const char* wanted = std::getenv("LAYERBENCH_FAKE_NVML_PROCESSES");
  const unsigned n = wanted ? static_cast<unsigned>(std::stoul(wanted)) : 2;
  if (*count < n) {
    *count = n;
    return insufficient_size;
  }
  *count = n;
  for (unsigned i = 0; i < n; ++i) infos[i] = {100 + i, i % 2 ? ~0ull : (i + 1ull) << 20, 0, 0};
  return success;
}
#endif
}
