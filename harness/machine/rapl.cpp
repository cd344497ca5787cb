#include "harness/machine/rapl.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <regex>

#include "harness/api/device_id.hpp"

namespace lb {

namespace fs = std::filesystem;

namespace {
double steady_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::optional<std::uint64_t> read_number(const fs::path& file) {
  std::ifstream in(file);
  std::uint64_t value = 0;
  if (in >> value) return value;
  return std::nullopt;
}
}  // namespace

RaplPackages find_rapl_packages(const fs::path& powercap) {
  RaplPackages rapl;
  std::error_code ec;
  const std::regex package_dir(R"(intel-rapl:\d+)");
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(powercap, ec))
    if (std::regex_match(entry.path().filename().string(), package_dir))
      dirs.push_back(entry.path());
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path& dir : dirs) {
    const fs::path energy = dir / "energy_uj";
    if (!read_number(energy)) {
      rapl.packages.clear();
      rapl.absent = energy.string() + " cannot be read (root only on many systems)";
      return rapl;
    }
    std::ifstream name_file(dir / "name");
    std::string name;
    if (!std::getline(name_file, name)) name = dir.filename().string();
    rapl.packages.push_back({name, energy, read_number(dir / "max_energy_range_uj").value_or(0)});
  }
  if (rapl.packages.empty())
    rapl.absent = "no " + (powercap / "intel-rapl:N").string() + " (no RAPL counters here)";
  return rapl;
}

std::optional<std::vector<std::uint64_t>> read_rapl_uj(const RaplPackages& rapl) {
  std::vector<std::uint64_t> values;
  for (const auto& package : rapl.packages) {
    const auto value = read_number(package.energy_file);
    if (!value) return std::nullopt;
    values.push_back(*value);
  }
  return values;
}

std::optional<double> rapl_delta_j(std::uint64_t before_uj, std::uint64_t after_uj,
                                   std::uint64_t max_range_uj) {
  if (after_uj >= before_uj) return static_cast<double>(after_uj - before_uj) / 1e6;
  if (max_range_uj == 0 || before_uj > max_range_uj) return std::nullopt;
  return static_cast<double>(max_range_uj - before_uj + after_uj) / 1e6;
}

std::optional<double> rapl_energy_j(const RaplPackages& rapl,
                                    const std::vector<std::uint64_t>& before_uj,
                                    const std::vector<std::uint64_t>& after_uj) {
  if (before_uj.size() != rapl.packages.size() || after_uj.size() != rapl.packages.size())
    return std::nullopt;
  double joules = 0;
  for (std::size_t i = 0; i < rapl.packages.size(); ++i) {
    const auto delta = rapl_delta_j(before_uj[i], after_uj[i], rapl.packages[i].max_range_uj);
    if (!delta) return std::nullopt;
    joules += *delta;
  }
  return joules;
}

RaplWindow::RaplWindow(const RaplPackages& rapl) : rapl_(rapl), start_s_(steady_s()) {
  if (!rapl.packages.empty()) before_uj_ = read_rapl_uj(rapl);
}

std::optional<DeviceTelemetry> RaplWindow::finish(std::int64_t samples) const {
  if (!before_uj_) return std::nullopt;
  const auto after_uj = read_rapl_uj(rapl_);
  DeviceTelemetry t;
  t.source = "rapl";
  t.samples = samples;
  t.window_s = steady_s() - start_s_;
  if (after_uj) t.energy_j = rapl_energy_j(rapl_, *before_uj_, *after_uj);
  if (t.energy_j) {
    t.energy_method = "rapl_packages";
  } else {
    t.absent["energy"] = "a RAPL counter could not be read or went backwards";
  }
  for (const char* field : {"sm_clock", "memory_clock", "power", "clock_event_reasons"})
    t.absent[field] = "RAPL gives energy only";
  return t;
}

const RaplPackages& cpu_rapl_packages(const std::string& device) {
  static const RaplPackages none;
  static const RaplPackages machine = find_rapl_packages();
  const auto id = parse_device_id(device);
  return id && id->is_cpu() ? machine : none;
}

}  // namespace lb
