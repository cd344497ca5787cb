#include "tests/backends/test_accelerator/test_accelerator.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "harness/api/device_id.hpp"
#include "harness/check/reference.hpp"
#include "harness/os/platform.hpp"

namespace lb::test_accelerator {
namespace {

constexpr const char* kind = "test_accelerator";
constexpr int devices = 2;
// Its "board power": a stated constant, so that energy and work per joule have a value to show.
constexpr double stated_power_w = 1.0;
// Its "datasheet": stated constants, so that fractions of peak have a roof to be taken against.
constexpr double stated_peak_tflops = 100.0;
constexpr double stated_memory_gbps = 10000.0;

std::optional<std::string> refusal(const Problem& problem) {
  if (problem.precision == Precision::fp8) return "the test accelerator (test data) stores no FP8";
  return std::nullopt;
}

class ReferenceCase : public Case {
 public:
  ReferenceCase(const Problem& problem, std::vector<HostTensor> inputs)
      : problem_(problem), inputs_(std::move(inputs)) {
    output_.dims = tensor_dims(problem_).output;
  }

  double run_timed() override {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<double> values = reference_all(problem_, inputs_);
    output_.data.resize(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
      output_.data[i] = round_to_storage(problem_.precision, static_cast<float>(values[i]));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (sampling_) ++samples_, sampled_s_ += seconds;
    return seconds;
  }
  void begin_samples(const std::string&) override {
    sampling_ = true, samples_ = 0, sampled_s_ = 0;
  }
  void end_samples() override { sampling_ = false; }
  std::optional<DeviceTelemetry> telemetry() const override {
    if (samples_ == 0) return std::nullopt;
    DeviceTelemetry t;
    t.source = "test_data";
    t.samples = samples_;
    t.power_median_w = stated_power_w;
    t.window_s = sampled_s_;
    t.energy_j = stated_power_w * sampled_s_;
    t.energy_method = "power_readings";
    for (const char* clock : {"sm_clock_mhz", "memory_clock_mhz"})
      t.absent[clock] = "test data: the test accelerator has no clock";
    return t;
  }
  HostTensor output() override { return output_; }
  std::string implementation() const override { return "reference loops (test data)"; }
  std::string library() const override { return "test_library"; }
  std::uint64_t workspace_bytes() const override { return 0; }

 private:
  Problem problem_;
  std::vector<HostTensor> inputs_;
  HostTensor output_;
  bool sampling_ = false;
  std::int64_t samples_ = 0;
  double sampled_s_ = 0;
};

class TestAcceleratorBackend : public Backend {
 public:
  explicit TestAcceleratorBackend(int index) : index_(index) {}
  std::string name() const override { return "test_library"; }
  std::string device() const override { return to_string(DeviceId{kind, index_}); }
  std::optional<std::string> unsupported_reason(const Problem& problem) const override {
    return refusal(problem);
  }
  std::unique_ptr<Case> prepare(const Problem& problem, const std::vector<HostTensor>& inputs,
                                const CaseOptions&) override {
    if (auto why = refusal(problem)) throw Unsupported(*why);
    return std::make_unique<ReferenceCase>(problem, inputs);
  }
  std::vector<std::pair<std::string, std::string>> context() const override {
    return {{"name", "Test accelerator " + std::to_string(index_) + " (test data)"}};
  }

 private:
  int index_;
};

}  // namespace

const BackendDescriptor& descriptor() {
  static const BackendDescriptor test_library{
      .name = "test_library",
      .device_kind = kind,
      .primary = true,
      .point_backends = {"test_library"},
      .library_names = {{"test_library", "Test Library (test data)"}},
      .probe = [](doctor::Snapshot&) {},
      .usability =
          [](const doctor::Snapshot&, const doctor::Facts&) {
            return DeviceUsability{
                {0, 1}, "test_accelerator ready: 2 devices (test data: the host's reference)", {}};
          },
      .version_rows =
          [] {
            return std::vector<VersionRow>{{"Test Library", "test data"}};
          },
      .libraries =
          [](const doctor::Snapshot&) {
            return std::vector<std::pair<std::string, std::string>>{
                {"test_library", "0 (test data)"}};
          },
      // Its one compute process is the run itself, which the machine's reading leaves out.
      .gpu_processes =
          [](const nlohmann::json&, std::string&) {
            return std::optional<std::vector<GpuProcess>>({{platform::process_id(), std::nullopt}});
          },
      .describe =
          [](const nlohmann::json& facts) {
            DeviceDescription d;
            d.name = facts.value("name", "");
            for (Precision p : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16})
              d.peak_tflops[p] = stated_peak_tflops;
            d.memory_gbps = stated_memory_gbps;
            d.source = "test data: a stated constant, no device's figure";
            return d;
          },
      .options = {},
      .make = [](int index, int, const BackendOptionValues&) -> std::unique_ptr<Backend> {
        if (index < 0 || index >= devices)
          throw std::runtime_error("no test_accelerator:" + std::to_string(index));
        return std::make_unique<TestAcceleratorBackend>(index);
      }};
  return test_library;
}

}  // namespace lb::test_accelerator
