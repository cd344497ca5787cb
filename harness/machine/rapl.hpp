#pragma once
// The CPU packages' energy counters of Linux's powercap interface (Intel RAPL, also on AMD since
// Zen): /sys/class/powercap/intel-rapl:N/energy_uj, which wraps at max_energy_range_uj. Often
// readable by root only, and absent in most virtual machines.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/api/telemetry.hpp"

namespace lb {

struct RaplPackage {
  std::string name;  // the domain's "name" file, e.g. "package-0"
  std::filesystem::path energy_file;
  std::uint64_t max_range_uj = 0;  // 0: not given, so a wrap cannot be told from a reset
};

// The package domains (intel-rapl:N, not their sub-domains, which the package already counts)
// whose energy can be read now; `absent` says why there are none.
struct RaplPackages {
  std::vector<RaplPackage> packages;
  std::string absent;
};
RaplPackages find_rapl_packages(const std::filesystem::path& powercap = "/sys/class/powercap");

// The RAPL packages whose energy a point on `device` records: the machine's on the CPU (found
// once), none on a GPU.
const RaplPackages& cpu_rapl_packages(const std::string& device);

// Every package's counter now, in `packages` order; empty when any cannot be read.
std::optional<std::vector<std::uint64_t>> read_rapl_uj(const RaplPackages& rapl);

// Joules between two readings of one counter that wraps at `max_range_uj`; empty when it went
// backwards without a known range.
std::optional<double> rapl_delta_j(std::uint64_t before_uj, std::uint64_t after_uj,
                                   std::uint64_t max_range_uj);
// The sum over packages of rapl_delta_j; empty when any is.
std::optional<double> rapl_energy_j(const RaplPackages& rapl,
                                    const std::vector<std::uint64_t>& before_uj,
                                    const std::vector<std::uint64_t>& after_uj);

// The packages' energy over a CPU point's sampling (warm-up included): read when made and at
// finish(), with the wall time between, so that joules_per_run is the mean power times the median.
class RaplWindow {
 public:
  explicit RaplWindow(const RaplPackages& rapl);
  // The point's telemetry (source "rapl", energy only); empty without RAPL or a reading.
  std::optional<DeviceTelemetry> finish(std::int64_t samples) const;

 private:
  const RaplPackages& rapl_;
  std::optional<std::vector<std::uint64_t>> before_uj_;
  double start_s_ = 0;
};

}  // namespace lb
