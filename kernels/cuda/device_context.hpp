#pragma once
// One GPU's resources, shared by its backend and the cases it prepares: the stream, the library
// handles, the memory ledger and the NVML reader. Every resource has an RAII owner.
#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/cuda/logic/device_rules.hpp"
#include "kernels/cuda/nvml/nvml_telemetry.hpp"

namespace lb::cuda {

// Bytes this backend holds on its GPU, for --memory-limit ("behave as if the card had that much").
struct MemoryLedger {
  std::atomic<std::uint64_t> used{0};
};

// A device allocation. cudaErrorMemoryAllocation becomes lb::OutOfMemory.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::uint64_t bytes, std::shared_ptr<MemoryLedger> ledger);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  void release() noexcept;
  void* ptr_ = nullptr;
  std::uint64_t bytes_ = 0;
  std::shared_ptr<MemoryLedger> ledger_;
};

class Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

class DeviceContext {
 public:
  explicit DeviceContext(int device);
  ~DeviceContext();
  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;

  int device() const { return device_; }
  const cudaDeviceProp& properties() const { return props_; }
  cudaStream_t stream() const { return stream_; }
  // Library handles are created on first use (creating a cuDNN handle loads its sub-libraries)
  // and bound to the stream.
  cudnnHandle_t cudnn();
  cublasLtHandle_t cublaslt();
  const std::shared_ptr<MemoryLedger>& ledger() const { return ledger_; }
  NvmlTelemetry& nvml() { return nvml_; }
  // The board's power when the context was made, before layerbench ran anything on the GPU:
  // the floor a load's power must exceed to be a reading of that load (logic::load_power).
  std::optional<double> idle_power_w() const { return idle_power_w_; }

  // Make this GPU current for the calling thread.
  void make_current() const;
  // Throws lb::OutOfMemory when `needed_bytes` exceeds what this GPU may still give: its free
  // memory, capped by `limit_bytes` (0 = none) minus what this backend already holds.
  void ensure_fits(std::uint64_t needed_bytes, std::uint64_t limit_bytes,
                   const std::string& what) const;
  // What this GPU may still give, as ensure_fits counts it.
  std::uint64_t available_bytes(std::uint64_t limit_bytes) const;

  // Copies on the context's stream, waiting for completion (set-up and read-back, never timed).
  void upload(const DeviceBuffer& dst, const void* src, std::uint64_t bytes) const;
  void download(void* dst, const DeviceBuffer& src, std::uint64_t bytes) const;

 private:
  int device_;
  cudaDeviceProp props_{};
  cudaStream_t stream_ = nullptr;
  cudnnHandle_t cudnn_ = nullptr;
  cublasLtHandle_t cublaslt_ = nullptr;
  std::shared_ptr<MemoryLedger> ledger_ = std::make_shared<MemoryLedger>();
  NvmlTelemetry nvml_;
  std::optional<double> idle_power_w_;
};

// Host-side conversion between float and the device storage types. Values the harness has already
// rounded to the precision convert exactly.
std::vector<unsigned char> encode(const std::vector<float>& values, logic::ElementType type);
std::vector<float> decode(const std::vector<unsigned char>& bytes, logic::ElementType type);

}  // namespace lb::cuda
