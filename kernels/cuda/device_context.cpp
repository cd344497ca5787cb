#include "kernels/cuda/device_context.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstring>
#include <sstream>

#include "harness/api/backend.hpp"
#include "harness/util/units.hpp"
#include "kernels/cuda/cuda_check.hpp"

namespace lb::cuda {

namespace {
std::string pci_bus_id(int device) {
  char id[32] = {};
  LB_CUDA(cudaDeviceGetPCIBusId(id, sizeof id, device));
  return id;
}
}  // namespace

DeviceBuffer::DeviceBuffer(std::uint64_t bytes, std::shared_ptr<MemoryLedger> ledger)
    : bytes_(bytes), ledger_(std::move(ledger)) {
  if (bytes == 0) return;
  const cudaError_t rc = cudaMalloc(&ptr_, bytes);
  if (rc == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    std::size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    ptr_ = nullptr;
    throw OutOfMemory(
        "cudaMalloc of " + gib_text(bytes) + " failed: the GPU has " + gib_text(free) + " free",
        bytes, free);
  }
  LB_CUDA(rc);
  ledger_->used += bytes;
}

void DeviceBuffer::release() noexcept {
  if (ptr_) {
    cudaFree(ptr_);
    ledger_->used -= bytes_;
  }
  ptr_ = nullptr;
  bytes_ = 0;
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : ptr_(o.ptr_), bytes_(o.bytes_), ledger_(std::move(o.ledger_)) {
  o.ptr_ = nullptr;
  o.bytes_ = 0;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    release();
    ptr_ = o.ptr_, bytes_ = o.bytes_, ledger_ = std::move(o.ledger_);
    o.ptr_ = nullptr, o.bytes_ = 0;
  }
  return *this;
}

Event::Event() { LB_CUDA(cudaEventCreate(&event_)); }
Event::~Event() { cudaEventDestroy(event_); }

DeviceContext::DeviceContext(int device) : device_(device), nvml_(pci_bus_id(device)) {
  if (const auto mw = nvml_.read().power_mw) idle_power_w_ = *mw / 1e3;
  LB_CUDA(cudaGetDeviceProperties(&props_, device));
  make_current();
  LB_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

DeviceContext::~DeviceContext() {
  cudaSetDevice(device_);
  if (cudnn_) cudnnDestroy(cudnn_);
  if (cublaslt_) cublasLtDestroy(cublaslt_);
  if (stream_) cudaStreamDestroy(stream_);
}

void DeviceContext::make_current() const { LB_CUDA(cudaSetDevice(device_)); }

cudnnHandle_t DeviceContext::cudnn() {
  if (!cudnn_) {
    make_current();
    cudnnHandle_t handle = nullptr;
    LB_CUDNN(cudnnCreate(&handle));
    cudnn_ = handle;
    LB_CUDNN(cudnnSetStream(cudnn_, stream_));
  }
  return cudnn_;
}

cublasLtHandle_t DeviceContext::cublaslt() {
  if (!cublaslt_) {
    make_current();
    LB_CUBLAS(cublasLtCreate(&cublaslt_));
  }
  return cublaslt_;
}

std::uint64_t DeviceContext::available_bytes(std::uint64_t limit) const {
  make_current();
  std::size_t free = 0, total = 0;
  LB_CUDA(cudaMemGetInfo(&free, &total));
  return logic::available_bytes(free, ledger_->used, limit);
}

void DeviceContext::ensure_fits(std::uint64_t needed, std::uint64_t limit,
                                const std::string& what) const {
  const std::uint64_t available = available_bytes(limit);
  if (needed > available) {
    std::string message = what + " needs " + gib_text(needed) + " of GPU memory but " +
                          gib_text(available) + " is available";
    if (limit) message += " (--memory-limit " + gib_text(limit) + ")";
    throw OutOfMemory(message, needed, available);
  }
}

void DeviceContext::upload(const DeviceBuffer& dst, const void* src, std::uint64_t bytes) const {
  LB_CUDA(cudaMemcpyAsync(dst.get(), src, bytes, cudaMemcpyHostToDevice, stream_));
  LB_CUDA(cudaStreamSynchronize(stream_));
}

void DeviceContext::download(void* dst, const DeviceBuffer& src, std::uint64_t bytes) const {
  LB_CUDA(cudaMemcpyAsync(dst, src.get(), bytes, cudaMemcpyDeviceToHost, stream_));
  LB_CUDA(cudaStreamSynchronize(stream_));
}

std::vector<unsigned char> encode(const std::vector<float>& values, logic::ElementType type) {
  const std::size_t size = logic::element_bytes(type);
  std::vector<unsigned char> out(values.size() * size);
  for (std::size_t i = 0; i < values.size(); ++i) {
    unsigned char* dst = out.data() + i * size;
    switch (type) {
      case logic::ElementType::f32:
        std::memcpy(dst, &values[i], 4);
        break;
      case logic::ElementType::f16: {
        const __half h = __float2half_rn(values[i]);
        std::memcpy(dst, &h, 2);
        break;
      }
      case logic::ElementType::bf16: {
        const __nv_bfloat16 b = __float2bfloat16_rn(values[i]);
        std::memcpy(dst, &b, 2);
        break;
      }
      case logic::ElementType::e4m3:
        *dst = __nv_cvt_float_to_fp8(values[i], __NV_SATFINITE, __NV_E4M3);
        break;
    }
  }
  return out;
}

std::vector<float> decode(const std::vector<unsigned char>& bytes, logic::ElementType type) {
  const std::size_t size = logic::element_bytes(type);
  std::vector<float> out(bytes.size() / size);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const unsigned char* src = bytes.data() + i * size;
    switch (type) {
      case logic::ElementType::f32:
        std::memcpy(&out[i], src, 4);
        break;
      case logic::ElementType::f16: {
        __half h;
        std::memcpy(&h, src, 2);
        out[i] = __half2float(h);
        break;
      }
      case logic::ElementType::bf16: {
        __nv_bfloat16 b;
        std::memcpy(&b, src, 2);
        out[i] = __bfloat162float(b);
        break;
      }
      case logic::ElementType::e4m3:
        out[i] = __half2float(__half(__nv_cvt_fp8_to_halfraw(*src, __NV_E4M3)));
        break;
    }
  }
  return out;
}

}  // namespace lb::cuda
