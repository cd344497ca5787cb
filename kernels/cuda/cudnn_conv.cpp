#include "kernels/cuda/cudnn_conv.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>

#include "harness/model/accounting.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/cudnn_descriptors.hpp"
#include "kernels/cuda/gpu_case.hpp"
#include "kernels/cuda/logic/autotune.hpp"
#include "kernels/cuda/logic/conv_graph.hpp"
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
};

// Of the heuristics' configs, those the precision's rule and the workspace limit allow, with
// their facts, in the heuristics' order; each other goes to `reject` with why.
void keep_configs(std::vector<Descriptor> configs, Precision precision, std::int64_t limit,
                  const std::function<void(const std::string&, const std::string&)>& reject,
                  std::vector<Descriptor>& accepted, std::vector<EngineFacts>& accepted_facts) {
  for (Descriptor& config : configs) {
    EngineFacts facts;
    try {
      facts = engine_facts(config.get());
    } catch (const LibraryError& e) {
      reject("an engine config", std::string("not inspectable: ") + e.what());
      continue;
    }
    if (const auto why = logic::engine_rejection(precision, facts.notes)) {
      reject(facts.tag, *why);
      continue;
    }
    if (facts.workspace && *facts.workspace > limit) {
      reject(facts.tag, "needs " + std::to_string(*facts.workspace) + " bytes of workspace");
      continue;
    }
    accepted.push_back(std::move(config));
    accepted_facts.push_back(std::move(facts));
  }
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
  void choose(const CudaCaseOptions& options);

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

  choose(options);
}

void CudnnConvCase::find_candidates(Precision precision, std::uint64_t tensor_bytes,
                                    const CudaCaseOptions& options) {
  const std::size_t wanted = options.algo == AlgoChoice::autotune ? autotune_candidates : 1;
  const auto limit = static_cast<std::int64_t>(
      std::min<std::uint64_t>(conv_workspace_limit(context(), options, tensor_bytes),
                              std::numeric_limits<std::int64_t>::max()));
  notes_.emplace_back("workspace_limit_mib", std::to_string(limit >> 20));
  int rejected = 0;
  std::string first_rejection;
  auto reject = [&](const std::string& tag, const std::string& why) {
    if (rejected++ == 0) first_rejection = tag + ": " + why;
  };
  // Mode A is cuDNN's fast heuristic; the fallback list is asked only when mode A offers nothing
  // this precision may run. Plans are built (which may compile at run time) only for the
  // configurations the precision's rule keeps, in its order, until `wanted` are built.
  for (const auto mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    std::vector<Descriptor> accepted;
    std::vector<EngineFacts> accepted_facts;
    keep_configs(heuristic_configs(graph_.get(), mode), precision, limit, reject, accepted,
                 accepted_facts);
    std::vector<logic::EngineNotes> notes;
    for (const EngineFacts& f : accepted_facts) notes.push_back(f.notes);
    std::vector<std::size_t> order = logic::preferred_engines(precision, notes);
    if (!options.implementation.empty()) {
      // A later round: the first round's engine alone, from whichever mode offers it.
      std::vector<std::string> names;
      for (const std::size_t i : order) names.push_back("cudnn " + accepted_facts[i].tag);
      try {
        order = {order[*logic::named_candidate(names, options.implementation, "cuDNN")]};
      } catch (const Unsupported&) {
        if (mode == CUDNN_HEUR_MODE_FALLBACK) throw;
        continue;
      }
    }
    for (const std::size_t i : order) {
      if (candidates_.size() == wanted) break;
      Descriptor plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
      const cudnnBackendDescriptor_t config_raw = accepted[i].get();
      LB_CUDNN_SET(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle_);
      LB_CUDNN_SET(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                   &config_raw);
      if (const cudnnStatus_t status = cudnnBackendFinalize(plan.get());
          status != CUDNN_STATUS_SUCCESS) {
        reject(accepted_facts[i].tag, "plan not built: " + cudnn_message(status));
        continue;
      }
      std::int64_t workspace = 0, n = 0;
      LB_CUDNN(cudnnBackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                        CUDNN_TYPE_INT64, 1, &n, &workspace));
      if (workspace > limit) {
        reject(accepted_facts[i].tag, "needs " + std::to_string(workspace) + " bytes of workspace");
        continue;
      }
      candidates_.push_back(Candidate{std::move(accepted[i]), std::move(plan),
                                      std::move(accepted_facts[i]), workspace});
    }
    if (!candidates_.empty()) {
      notes_.emplace_back("cudnn_heuristic_mode", mode == CUDNN_HEUR_MODE_A ? "A" : "fallback");
      break;
    }
  }
  notes_.emplace_back("cudnn_engines_rejected", std::to_string(rejected));
  if (rejected) notes_.emplace_back("cudnn_first_rejection", first_rejection);
  if (candidates_.empty())
    throw Unsupported("cuDNN offers no engine for this convolution in " +
                      std::string(name(precision)) +
                      (rejected ? " (first rejected: " + first_rejection + ")" : ""));
  notes_.emplace_back("cudnn_heuristic_choice", candidates_.front().facts.tag);
}

void CudnnConvCase::choose(const CudaCaseOptions& options) {
  if (options.algo == AlgoChoice::autotune && candidates_.size() > 1) {
    std::string timings;
    const std::size_t best = autotune(
        candidates_.size(), [this](std::size_t i) { chosen_ = i; },
        [this](std::size_t i) { return candidates_[i].facts.tag; }, timings, output_buffer_);
    // Keep only the chosen plan; the others hold host memory only, but nothing should linger.
    Candidate keep = std::move(candidates_[best]);
    candidates_.clear();
    candidates_.push_back(std::move(keep));
    chosen_ = 0;
    notes_.emplace_back("cudnn_autotune", timings);
  }
  const Candidate& c = chosen();
  notes_.emplace_back("cudnn_engine", c.facts.tag);
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
