#pragma once
// The machine's state around a run: the other runnable tasks on the CPU and the other compute
// processes on each GPU, at the start and at the end, recorded in the results file's
// context.machine_state (reports/results-schema.md), and the one warning `run` prints when
// either was busy. The verdicts and the text are pure and unit-tested; the probes are thin.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/api/gpu_processes.hpp"

namespace lb {

// ---------------------------------------------------------------- CPU
struct CpuLoad {
  int other_runnable = 0;  // runnable tasks that are not this process's threads
  int processors = 1;      // logical processors
  int threads = 1;         // compute threads this run uses
};
// Busy when the other runnable tasks outnumber the processors this run's threads leave free:
// then some compute thread has to share its core.
bool cpu_busy(const CpuLoad& load);

// ---------------------------------------------------------------- GPU
// The processes on the device other than `own_pid`: any of them shares the GPU with the run.
std::vector<GpuProcess> other_gpu_processes(const std::vector<GpuProcess>& on_device,
                                            unsigned own_pid);

// ---------------------------------------------------------------- the record and the warning
// One reading, as recorded under "start" and "end".
struct MachineReading {
  std::optional<int> other_runnable;  // empty where the OS cannot tell
  std::optional<double> load_average_1m;
  // Per GPU id ("gpu:0"): the other compute processes, or why its library could not tell.
  std::vector<std::pair<std::string, std::vector<GpuProcess>>> gpu_others;
  std::vector<std::pair<std::string, std::string>> gpu_errors;
};
// With "cpu_busy" (cpu_busy's verdict for these processors and threads; null when unknown) so a
// reader of the file need not repeat the rule.
nlohmann::json to_json(const MachineReading& r, int processors, int threads);

// The warning for a run whose start or end reading was busy, or that has contended CPU points;
// empty when there is nothing to warn about. One paragraph saying what to do.
std::optional<std::string> busy_warning(const std::optional<MachineReading>& start,
                                        const MachineReading& end, int processors, int threads,
                                        int contended_points);

// ---------------------------------------------------------------- probes
// One GPU to ask: its id ("gpu:0") and its backend's reading of the compute processes on it
// (empty optional and `error` set when the library cannot tell).
struct GpuProcessQuery {
  std::string id;
  std::function<std::optional<std::vector<GpuProcess>>(std::string& error)> read;
};
// Runnable tasks not ours, the least of a few readings 10 ms apart (a persistent load, not a
// kernel thread's blip), and the load average; and each GPU's other compute processes.
MachineReading read_machine(const std::vector<GpuProcessQuery>& gpus);

}  // namespace lb
