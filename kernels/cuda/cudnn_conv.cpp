#include "kernels/cuda/cudnn_conv.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>

#include "harness/check/validate.hpp"
#include "harness/model/accounting.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/cudnn_descriptors.hpp"
#include "kernels/cuda/gpu_case.hpp"
#include "kernels/cuda/logic/autotune.hpp"
#include "kernels/cuda/logic/conv_graph.hpp"
#include "kernels/cuda/logic/conv_pool.hpp"
#include "kernels/cuda/logic/engine_policy.hpp"

namespace lb::cuda {

namespace {

// The engine configs the heuristics propose, best first. Empty when the mode has none.
std::vector<Descriptor> heuristic_configs(cudnnBackendDescriptor_t graph,
                                          cudnnBackendHeurMode_t mode) {
  Descriptor heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  LB_CUDNN_SET(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
               &graph);
  LB_CUDNN_SET(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
  const cudnnStatus_t status = cudnnBackendFinalize(heur.get());
  if (cudnn_not_supported(status)) return {};
  LB_CUDNN(status);
  std::int64_t count = 0;
  LB_CUDNN(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                    CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr));
  std::vector<Descriptor> configs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (std::int64_t i = 0; i < count; ++i) {
    configs.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    raw.push_back(configs.back().get());
  }
  std::int64_t returned = 0;
  LB_CUDNN(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                    CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &returned, raw.data()));
  configs.erase(configs.begin() + std::min(returned, count), configs.end());
  return configs;
}

struct EngineFacts {
  std::string tag;  // "engine 12 k3=1 k7=2": the global engine index and its knob choices
  logic::EngineNotes notes;
  bool runtime_compiled = false;
  std::optional<std::int64_t> workspace;  // from the config where the library reports it
};

EngineFacts engine_facts(cudnnBackendDescriptor_t config) {
  EngineFacts facts;
  Descriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  cudnnBackendDescriptor_t engine_raw = engine.get();
  std::int64_t n = 0;
  LB_CUDNN(cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_ENGINE,
                                    CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &engine_raw));
  std::int64_t index = -1;
  LB_CUDNN(cudnnBackendGetAttribute(engine_raw, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1,
                                    &n, &index));
  facts.tag = "engine " + std::to_string(index);

  cudnnBackendNumericalNote_t numerical[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
  LB_CUDNN(cudnnBackendGetAttribute(engine_raw, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
                                    CUDNN_TYPE_NUMERICAL_NOTE, CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &n,
                                    numerical));
  for (std::int64_t i = 0; i < std::min<std::int64_t>(n, CUDNN_NUMERICAL_NOTE_TYPE_COUNT); ++i) {
    facts.notes.tensor_core |= numerical[i] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE;
    facts.notes.down_convert_inputs |= numerical[i] == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS;
    facts.notes.reduced_precision_reduction |=
        numerical[i] == CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION;
    facts.notes.fft_or_winograd |= numerical[i] == CUDNN_NUMERICAL_NOTE_FFT ||
                                   numerical[i] == CUDNN_NUMERICAL_NOTE_WINOGRAD ||
                                   numerical[i] == CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4 ||
                                   numerical[i] == CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_6x6 ||
                                   numerical[i] == CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13;
  }
  // Behaviour notes and knobs only describe the engine: a library that cannot report them does
  // not make the engine unusable, so their failures are not errors.
  cudnnBackendBehaviorNote_t behavior[CUDNN_BEHAVIOR_NOTE_TYPE_COUNT];
  if (cudnnBackendGetAttribute(engine_raw, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE,
                               CUDNN_TYPE_BEHAVIOR_NOTE, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT, &n,
                               behavior) == CUDNN_STATUS_SUCCESS)
    for (std::int64_t i = 0; i < std::min<std::int64_t>(n, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT); ++i)
      facts.runtime_compiled |= behavior[i] == CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION;

  std::vector<Descriptor> knobs;
  std::vector<cudnnBackendDescriptor_t> knobs_raw;
  for (int i = 0; i < CUDNN_KNOB_TYPE_COUNTS; ++i) {
    knobs.emplace_back(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
    knobs_raw.push_back(knobs.back().get());
  }
  if (cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                               CUDNN_TYPE_BACKEND_DESCRIPTOR, CUDNN_KNOB_TYPE_COUNTS, &n,
                               knobs_raw.data()) != CUDNN_STATUS_SUCCESS) {
    facts.tag += " (knobs not reported)";
    n = 0;
  }
  for (std::int64_t i = 0; i < std::min<std::int64_t>(n, CUDNN_KNOB_TYPE_COUNTS); ++i) {
    cudnnBackendKnobType_t type;
    std::int64_t value = 0, count = 0;
    if (cudnnBackendGetAttribute(knobs_raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE,
                                 CUDNN_TYPE_KNOB_TYPE, 1, &count, &type) == CUDNN_STATUS_SUCCESS &&
        cudnnBackendGetAttribute(knobs_raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64,
                                 1, &count, &value) == CUDNN_STATUS_SUCCESS)
      facts.tag += " k" + std::to_string(static_cast<int>(type)) + "=" + std::to_string(value);
  }
  // CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE exists from cuDNN 9.2; an older library answers with an
  // error and the plan's own workspace size is used instead.
  std::int64_t workspace = 0;
  if (cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n,
                               &workspace) == CUDNN_STATUS_SUCCESS)
    facts.workspace = workspace;
  return facts;
}

struct Candidate {
  Descriptor config;
  Descriptor plan;
  EngineFacts facts;
  std::int64_t workspace = 0;
  std::string source;  // the list that offered it: "A" (the heuristic) or "fallback"
};

// The lists the pool is built from, in PyTorch's order: the instant heuristic (mode A), then the
// fallback list.
constexpr std::array<std::pair<cudnnBackendHeurMode_t, const char*>, 2> pool_sources{
    {{CUDNN_HEUR_MODE_A, "A"}, {CUDNN_HEUR_MODE_FALLBACK, "fallback"}}};

// One source's configs with their facts; a config that cannot be inspected goes to `rejected`.
void offered_configs(cudnnBackendDescriptor_t graph, cudnnBackendHeurMode_t mode,
                     std::vector<Descriptor>& configs, std::vector<EngineFacts>& facts,
                     std::vector<std::pair<std::string, std::string>>& rejected) {
  for (Descriptor& config : heuristic_configs(graph, mode)) {
    try {
      facts.push_back(engine_facts(config.get()));
      configs.push_back(std::move(config));
    } catch (const LibraryError& e) {
      rejected.emplace_back("an engine config", std::string("not inspectable: ") + e.what());
    }
  }
}

// The execution plan of `config` and its workspace, or nothing, with `why`, when the library
// cannot build it or it needs more workspace than `limit`.
std::optional<std::pair<Descriptor, std::int64_t>> built_plan(cudnnHandle_t handle,
                                                              cudnnBackendDescriptor_t config,
                                                              std::int64_t limit,
                                                              std::string& why) {
  Descriptor plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  LB_CUDNN_SET(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
  LB_CUDNN_SET(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
               &config);
  if (const cudnnStatus_t status = cudnnBackendFinalize(plan.get());
      status != CUDNN_STATUS_SUCCESS) {
    why = "plan not built: " + cudnn_message(status);
    return std::nullopt;
  }
  std::int64_t workspace = 0, n = 0;
  LB_CUDNN(cudnnBackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                    CUDNN_TYPE_INT64, 1, &n, &workspace));
  if (workspace > limit) {
    why = "needs " + std::to_string(workspace) + " bytes of workspace";
    return std::nullopt;
  }
  return std::make_pair(std::move(plan), workspace);
}

class CudnnConvCase final : public GpuCase {
 public:
  CudnnConvCase(std::shared_ptr<DeviceContext> context, const Problem& problem,
                const std::vector<HostTensor>& inputs, const CudaCaseOptions& options);

  HostTensor output() override {
    return download_tensor(context(), output_buffer_, *tensors_.output, out_type_);
  }
  std::string implementation() const override { return "cudnn " + chosen().facts.tag; }
  std::string library() const override { return "cudnn"; }
  std::uint64_t workspace_bytes() const override {
    return static_cast<std::uint64_t>(chosen().workspace);
  }

 protected:
  void launch() override {
    LB_CUDNN(cudnnBackendExecute(handle_, chosen().plan.get(), variant_pack_->get()));
  }
  std::vector<std::pair<std::string, std::string>> case_notes() const override { return notes_; }

 private:
  const Candidate& chosen() const { return candidates_[chosen_]; }
  void find_candidates(Precision precision, std::uint64_t tensor_bytes,
                       const CudaCaseOptions& options);
  void choose(const Problem& problem, const std::vector<HostTensor>& inputs,
              const CudaCaseOptions& options);

  cudnnHandle_t handle_;
  // Declaration order is destruction order reversed: plans go before the graph they were built
  // from, and the graph before its operation and tensors.
  ConvDescriptors descriptors_;
  logic::PassTensors tensors_;  // points into descriptors_.spec
  logic::ElementType out_type_;
  Descriptor graph_;
  std::vector<Candidate> candidates_;
  std::size_t chosen_ = 0;
  std::vector<DeviceBuffer> input_buffers_;
  DeviceBuffer output_buffer_, workspace_;
  std::optional<Descriptor> variant_pack_;
  std::vector<std::pair<std::string, std::string>> notes_;
};

CudnnConvCase::CudnnConvCase(std::shared_ptr<DeviceContext> context, const Problem& problem,
                             const std::vector<HostTensor>& inputs, const CudaCaseOptions& options)
    : GpuCase(std::move(context), options),
      handle_(this->context().cudnn()),
      descriptors_(conv_descriptors(problem, options.layout)),
      tensors_(logic::pass_tensors(descriptors_.spec, problem.conv().pass)),
      out_type_(logic::output_type(problem.precision)),
      graph_(conv_graph(descriptors_.op, handle_)) {
  find_candidates(problem.precision, memory_bytes(problem), options);

  if (inputs.size() != tensors_.inputs.size())
    throw std::invalid_argument("convolution expects " + std::to_string(tensors_.inputs.size()) +
                                " inputs");
  for (std::size_t i = 0; i < inputs.size(); ++i)
    input_buffers_.push_back(upload_values(this->context(),
                                           logic::to_strided(inputs[i].data, *tensors_.inputs[i]),
                                           logic::input_type(problem.precision)));
  const auto& out = tensors_.output->dims;
  output_buffer_ = poisoned_output(
      this->context(), out[0] * out[1] * out[2] * out[3] * logic::element_bytes(out_type_));
  std::int64_t workspace = 0;
  for (const auto& c : candidates_) workspace = std::max(workspace, c.workspace);
  workspace_ = DeviceBuffer(static_cast<std::uint64_t>(workspace), this->context().ledger());

  // One variant pack serves every candidate plan: same tensors, one workspace big enough for all.
  void* pointers[3] = {input_buffers_[0].get(), input_buffers_[1].get(), output_buffer_.get()};
  const std::int64_t uids[3] = {tensors_.inputs[0]->uid, tensors_.inputs[1]->uid,
                                tensors_.output->uid};
  void* workspace_ptr = workspace_.get();
  Descriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  LB_CUDNN_SET(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, pointers);
  LB_CUDNN_SET(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
  LB_CUDNN_SET(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace_ptr);
  pack.finalize();
  variant_pack_ = std::move(pack);

  choose(problem, inputs, options);
}

void CudnnConvCase::find_candidates(Precision precision, std::uint64_t tensor_bytes,
                                    const CudaCaseOptions& options) {
  const auto limit = static_cast<std::int64_t>(
      std::min<std::uint64_t>(conv_workspace_limit(context(), options, tensor_bytes),
                              std::numeric_limits<std::int64_t>::max()));
  notes_.emplace_back("workspace_limit_mib", std::to_string(limit >> 20));
  std::vector<std::pair<std::string, std::string>> uninspectable;
  std::array<std::vector<Descriptor>, pool_sources.size()> configs;
  std::array<std::vector<EngineFacts>, pool_sources.size()> facts;
  std::vector<std::vector<logic::PoolConfig>> offered;
  for (std::size_t s = 0; s < pool_sources.size(); ++s) {
    offered_configs(graph_.get(), pool_sources[s].first, configs[s], facts[s], uninspectable);
    offered.emplace_back();
    for (const EngineFacts& f : facts[s]) offered.back().push_back({f.tag, f.notes, f.workspace});
  }
  logic::ConvPool pool = logic::build_conv_pool(precision, offered, limit, logic::conv_pool_limit);
  pool.rejected.insert(pool.rejected.end(), uninspectable.begin(), uninspectable.end());
  std::vector<logic::PoolSlot> order = pool.to_time;
  if (!options.implementation.empty()) {
    // A later round: the first round's engine alone, from whichever list offered it.
    std::vector<std::string> names;
    for (const logic::PoolSlot& slot : order)
      names.push_back("cudnn " + facts[slot.source][slot.index].tag);
    order = {order[*logic::named_candidate(names, options.implementation, "cuDNN")]};
  }
  // Plans are built (which may compile at run time) in the pool's order: all of them to autotune,
  // else until the first that builds, the heuristic's choice.
  const std::size_t wanted = options.algo == AlgoChoice::autotune ? order.size() : 1;
  for (const logic::PoolSlot& slot : order) {
    if (candidates_.size() == wanted) break;
    EngineFacts& f = facts[slot.source][slot.index];
    std::string why;
    auto plan = built_plan(handle_, configs[slot.source][slot.index].get(), limit, why);
    if (!plan) {
      pool.rejected.emplace_back(f.tag, why);
      continue;
    }
    candidates_.push_back(Candidate{std::move(configs[slot.source][slot.index]),
                                    std::move(plan->first), std::move(f), plan->second,
                                    pool_sources[slot.source].second});
  }
  notes_.emplace_back("cudnn_pool_offered", std::to_string(pool.offered));
  notes_.emplace_back("cudnn_pool_duplicates", std::to_string(pool.duplicates));
  notes_.emplace_back("cudnn_pool_candidates", std::to_string(candidates_.size()));
  notes_.emplace_back("cudnn_engines_rejected", std::to_string(pool.rejected.size()));
  if (!pool.rejected.empty())
    notes_.emplace_back("cudnn_rejections", logic::rejection_list(pool.rejected));
  if (candidates_.empty())
    throw Unsupported(
        "cuDNN offers no engine for this convolution in " + std::string(name(precision)) +
        (pool.rejected.empty() ? "" : " (rejected: " + logic::rejection_list(pool.rejected) + ")"));
  notes_.emplace_back("cudnn_heuristic_choice", candidates_.front().facts.tag);
}

void CudnnConvCase::choose(const Problem& problem, const std::vector<HostTensor>& inputs,
                           const CudaCaseOptions& options) {
  if (options.algo == AlgoChoice::autotune && candidates_.size() > 1) {
    std::string timings;
    // FFT and Winograd engines round differently: the fastest candidate must also pass the
    // validation the point will pass, else the next fastest is taken.
    const auto rejects_output = [&](std::size_t) -> std::optional<std::string> {
      launch();
      LB_CUDA(cudaStreamSynchronize(context().stream()));
      const Validation v = validate(problem, inputs, output(), problem.precision);
      if (v.passed) return std::nullopt;
      return "rel_l2 " + std::to_string(v.rel_l2) + " (tolerance " + std::to_string(v.tolerance) +
             "), " + std::to_string(v.non_finite_elements) + " non-finite";
    };
    const std::size_t best = autotune(
        candidates_.size(), [this](std::size_t i) { chosen_ = i; },
        [this](std::size_t i) { return candidates_[i].facts.tag; }, timings, output_buffer_,
        rejects_output);
    // Keep only the chosen plan; the others hold host memory only, but nothing should linger.
    Candidate keep = std::move(candidates_[best]);
    candidates_.clear();
    candidates_.push_back(std::move(keep));
    chosen_ = 0;
    notes_.emplace_back("cudnn_autotune", timings);
  }
  const Candidate& c = chosen();
  notes_.emplace_back("cudnn_engine", c.facts.tag);
  notes_.emplace_back("cudnn_engine_source", c.source);
  if (c.facts.notes.fft_or_winograd) notes_.emplace_back("cudnn_fft_or_winograd", "yes");
  notes_.emplace_back("tensor_cores", c.facts.notes.tensor_core ? "yes" : "no");
  if (c.facts.runtime_compiled) notes_.emplace_back("cudnn_runtime_compiled", "yes");
  notes_.emplace_back("algo_choice", logic::choice_note(options.algo, options.implementation));
  notes_.emplace_back("layout", options.layout == Layout::nhwc ? "nhwc" : "nchw");
  notes_.emplace_back("cudnn_api", "graph");
}

}  // namespace

std::unique_ptr<Case> prepare_cudnn_conv(std::shared_ptr<DeviceContext> context,
                                         const Problem& problem,
                                         const std::vector<HostTensor>& inputs,
                                         const CudaCaseOptions& options) {
  return std::make_unique<CudnnConvCase>(std::move(context), problem, inputs, options);
}

}  // namespace lb::cuda
