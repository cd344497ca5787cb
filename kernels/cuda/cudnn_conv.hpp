#pragma once
// Convolutions (forward, backward-data, backward-weights) through cuDNN's graph API, with the
// backend descriptors of cudnn_graph.h: no extra dependency such as cudnn-frontend.
#include <memory>
#include <vector>

#include "harness/api/backend.hpp"
#include "kernels/cuda/device_context.hpp"
#include "kernels/cuda/logic/cuda_options.hpp"

namespace lb::cuda {

// Builds the graph, asks the heuristics (mode A, then the fallback list) for engine configs,
// drops those the precision forbids or that need more workspace than allowed, builds the plans,
// and with AlgoChoice::autotune times up to 8 of them and keeps the fastest. Throws Unsupported
// when no engine can run the problem. The caller has checked support and memory.
std::unique_ptr<Case> prepare_cudnn_conv(std::shared_ptr<DeviceContext> context,
                                         const Problem& problem,
                                         const std::vector<HostTensor>& inputs,
                                         const CudaCaseOptions& options);

}  // namespace lb::cuda
