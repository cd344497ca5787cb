#include "harness/machine/machine_state.hpp"

#include <algorithm>
#include <chrono>
#include <sstream>
#include <thread>

#include "harness/os/platform.hpp"
#include "harness/util/units.hpp"

namespace lb {

bool cpu_busy(const CpuLoad& load) {
  return load.other_runnable > std::max(0, load.processors - load.threads);
}

std::vector<GpuProcess> other_gpu_processes(const std::vector<GpuProcess>& on_device,
                                            unsigned own_pid) {
  std::vector<GpuProcess> others;
  for (const auto& p : on_device)
    if (p.pid != own_pid) others.push_back(p);
  return others;
}

nlohmann::json to_json(const MachineReading& r, int processors, int threads) {
  nlohmann::json j = {
      {"other_runnable", nullptr}, {"load_average_1m", nullptr}, {"cpu_busy", nullptr}};
  if (r.other_runnable) {
    j["other_runnable"] = *r.other_runnable;
    j["cpu_busy"] = cpu_busy({*r.other_runnable, processors, threads});
  }
  if (r.load_average_1m) j["load_average_1m"] = *r.load_average_1m;
  if (!r.gpu_others.empty() || !r.gpu_errors.empty()) {
    nlohmann::json gpus = nlohmann::json::object();
    for (const auto& [id, others] : r.gpu_others) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& p : others)
        list.push_back({{"pid", p.pid},
                        {"used_bytes", p.used_bytes ? nlohmann::json(*p.used_bytes) : nullptr}});
      gpus[id] = {{"other_processes", list}};
    }
    for (const auto& [id, error] : r.gpu_errors) gpus[id] = {{"error", error}};
    j["gpus"] = gpus;
  }
  return j;
}

namespace {
// "3 other runnable tasks at the start" style clauses for the busy readings.
void describe(const MachineReading& r, const char* when, int processors, int threads,
              std::vector<std::string>& clauses) {
  if (r.other_runnable && cpu_busy({*r.other_runnable, processors, threads}))
    clauses.push_back(std::to_string(*r.other_runnable) + " other runnable task(s) " + when);
  for (const auto& [id, others] : r.gpu_others) {
    if (others.empty()) continue;
    std::uint64_t bytes = 0;
    for (const auto& p : others) bytes += p.used_bytes.value_or(0);
    clauses.push_back(std::to_string(others.size()) + " other compute process(es) on " + id +
                      " holding " + gib_text(bytes) + " " + when);
  }
}
}  // namespace

std::optional<std::string> busy_warning(const std::optional<MachineReading>& start,
                                        const MachineReading& end, int processors, int threads,
                                        int contended_points) {
  std::vector<std::string> clauses;
  if (start) describe(*start, "at the start", processors, threads, clauses);
  describe(end, "at the end", processors, threads, clauses);
  if (contended_points > 0)
    clauses.push_back(std::to_string(contended_points) +
                      " CPU point(s) could not be measured clean (flagged contended)");
  if (clauses.empty()) return std::nullopt;
  std::string text = "warning: the machine was busy during this run: ";
  for (std::size_t i = 0; i < clauses.size(); ++i) text += (i ? "; " : "") + clauses[i];
  text +=
      ". Its timings may be slower than this machine can do: close other programs (and other "
      "GPU jobs), or give the run fewer --threads than the " +
      std::to_string(processors) + " processors (" + std::to_string(threads) +
      " used), then measure again.\n";
  return text;
}

MachineReading read_machine(const std::vector<GpuProcessQuery>& gpus) {
  MachineReading r;
  for (int i = 0; i < 5; ++i) {
    if (i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const auto queue = platform::run_queue();
    const auto ours = platform::own_running_threads();
    if (!queue || !ours) break;
    const int others = std::max(0, queue->runnable - *ours);
    r.other_runnable = std::min(r.other_runnable.value_or(others), others);
    r.load_average_1m = queue->load_average_1m;
  }
  for (const auto& gpu : gpus) {
    std::string error;
    if (auto on_device = gpu.read(error))
      r.gpu_others.emplace_back(gpu.id, other_gpu_processes(*on_device, platform::process_id()));
    else
      r.gpu_errors.emplace_back(gpu.id, error);
  }
  return r;
}

}  // namespace lb
