#pragma once
// The one backend interface. A Backend turns a Problem and its host inputs into a prepared
// Case; the harness then times Case::run_timed() and validates Case::output(). The harness
// knows no library: oneDNN (kernels/onednn), cuDNN and cuBLASLt (kernels/cuda) implement this.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/api/checked_run.hpp"
#include "harness/api/problem.hpp"
#include "harness/api/telemetry.hpp"

namespace lb {

// A host tensor in the canonical layout of harness/api/problem.hpp, values as float.
struct HostTensor {
  std::vector<std::int64_t> dims;
  std::vector<float> data;
};

enum class CacheMode { cold, warm };
// --algo: the library's first choice (heuristic), or time its candidates and keep the fastest
// (autotune). Every library with more than one candidate has both (oneDNN's implementations,
// cuDNN's engines, cuBLASLt's algorithms), so the choice is the harness's, shared by backends;
// a backend with a single candidate runs it either way.
enum class AlgoChoice { heuristic, autotune };

// What every backend's cases share. A backend's own options (the CUDA backend's layout, cuDNN
// API and workspace limit) are given to it when it is made (BackendDescriptor::make).
struct CaseOptions {
  CacheMode cache = CacheMode::cold;
  AlgoChoice algo = AlgoChoice::autotune;
  // Memory the point may use; 0 = what the device has (GPU: free memory, --memory-limit caps it).
  std::uint64_t memory_limit_bytes = 0;
  // Not empty: run the implementation of this name (Case::implementation()'s text) instead of
  // choosing one, so that a later round repeats its first round's choice without timing the
  // candidates again. A backend that cannot pick by name chooses as `algo` says; the runner
  // checks the name either way.
  std::string implementation;
  // Times one run with the runner's pre-emption check (PreemptionCheck::run); empty: runs are
  // not checked. Autotuning keeps the runs no other program interrupted where it can, so that
  // a busy spell falling on one candidate does not pick another.
  std::function<CheckedRun(const std::function<double()>&)> checked_run;
  // The point's wall-time bound in seconds (--point-timeout), set-up included; 0: none. A case
  // that runs long on its own before its samples (the GPU's sustained mode) keeps within it.
  double time_bound_s = 0;
};

// A prepared benchmark case. Everything expensive (allocation, fill, algorithm choice, layout
// reorders, plan building) happened in Backend::prepare; run_timed() only launches.
class Case {
 public:
  virtual ~Case() = default;
  // Run the operation once and return its duration in seconds, measured by the device's own
  // clock (CUDA events on a GPU, the steady clock on the CPU). In cold mode the backend makes
  // caches cold (evicting the operands, or flushing L2) before starting the clock.
  virtual double run_timed() = 0;
  // The output of the last run, copied back, in canonical layout; for a problem that runs in
  // place (runs_in_place), of one run on the inputs as prepare got them.
  virtual HostTensor output() = 0;
  // What actually ran, e.g. "jit:avx2" or "engine 12 (knobs ...)"; recorded per point.
  virtual std::string implementation() const = 0;
  // The library's name for what ran this case: "onednn", "cudnn", "cublaslt", or "cuda"
  // for its own kernels.
  virtual std::string library() const = 0;
  virtual std::uint64_t workspace_bytes() const = 0;
  // Extra facts worth recording (e.g. the heuristic's own first choice), as "key=value" pairs.
  virtual std::vector<std::pair<std::string, std::string>> notes() const { return {}; }
  // The warm-up is over and the timed samples of the point `point_name` (its key) start: a case
  // that reads the device's counters around its samples (a GPU's clocks and power) keeps them
  // from here on; a GPU case also opens an NVTX range of that name for profilers.
  virtual void begin_samples(const std::string& point_name) { (void)point_name; }
  virtual void end_samples() {}
  // Whether a power or thermal cap held the device's clock down during the last run.
  virtual bool last_run_throttled() const { return false; }
  // The device's counters over the timed samples; empty where the backend reads none.
  virtual std::optional<DeviceTelemetry> telemetry() const { return std::nullopt; }
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;    // "onednn", "cuda"
  virtual std::string device() const = 0;  // "cpu", "gpu:0"
  // Empty when this backend can run the problem; otherwise the reason, e.g. oneDNN's own
  // "unimplemented" for bf16 on an AVX2 CPU. A precision is never silently run as another. May
  // throw OutOfMemory when the check itself cannot get memory.
  virtual std::optional<std::string> unsupported_reason(const Problem& problem) const = 0;
  // Allocate, upload the inputs, choose the algorithm. Throws OutOfMemory, Unsupported or
  // LibraryError; nothing leaks when it throws.
  virtual std::unique_ptr<Case> prepare(const Problem& problem,
                                        const std::vector<HostTensor>& inputs,
                                        const CaseOptions& options) = 0;
  // Facts about the device for its record in the results file's context (threads, ISA, compute
  // capability, memory, clocks). Library versions are not repeated here: the descriptor's
  // `libraries` gives them once, for context.libraries.
  virtual std::vector<std::pair<std::string, std::string>> context() const = 0;
  // The host threads its cases compute with, which the pre-emption check judges a CPU sample
  // by; 0 where the backend cannot tell (a library's own default) or computes on a device.
  virtual int compute_threads() const { return 0; }
};

struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct OutOfMemory : std::runtime_error {
  OutOfMemory(const std::string& what, std::uint64_t needed, std::uint64_t available)
      : std::runtime_error(what), needed_bytes(needed), available_bytes(available) {}
  std::uint64_t needed_bytes;
  std::uint64_t available_bytes;
};

// A failing library call: names the call, file:line and the library's message.
struct LibraryError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace lb
