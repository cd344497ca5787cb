#include "kernels/onednn/onednn_backend.hpp"

#include <oneapi/dnnl/dnnl_debug.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <functional>
#include <limits>
#include <new>
#include <oneapi/dnnl/dnnl.hpp>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include "harness/doctor/snapshot.hpp"
#include "harness/measure/host_buffers.hpp"
#include "harness/os/platform.hpp"
#include "harness/util/stats.hpp"
#include "kernels/onednn/onednn_autotune_rule.hpp"
#include "kernels/onednn/onednn_memory_bound_ops.hpp"
#include "kernels/onednn/onednn_operation.hpp"
#include "kernels/onednn/onednn_probe.hpp"

namespace lb::onednn {

using dnnl::memory;

dnnl::primitive_attr make_attr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // so the case owns and reports it
  attr.set_fpmath_mode(dnnl::fpmath_mode::strict);        // no implicit down-conversion
  return attr;
}

dnnl::prop_kind forward_prop(Pass pass) {
  return pass == Pass::fwd ? dnnl::prop_kind::forward_inference : dnnl::prop_kind::forward_training;
}

void select_impl(dnnl::primitive_desc& pd, int impl) {
  for (int i = 0; i < impl && pd; ++i)
    if (!pd.next_impl()) pd = dnnl::primitive_desc();
}

memory::desc argument_desc(const Operation& op, int arg) {
  const auto timed = op.pd.query_md(dnnl::query::exec_arg_md, arg);
  if (!timed.is_zero() || !op.prologue) return timed;
  return op.prologue.query_md(dnnl::query::exec_arg_md, arg);
}

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using Clock = std::chrono::steady_clock;

// The argument's name in oneDNN's own words (DNNL_ARG_DIFF_DST: "diff_dst"), for the notes.
std::string argument_name(int arg) {
  static const std::unordered_map<int, std::string> names = {
      {DNNL_ARG_SRC, "src"},
      {DNNL_ARG_SRC_1, "src_1"},
      {DNNL_ARG_DST, "dst"},
      {DNNL_ARG_WEIGHTS, "weights"},
      {DNNL_ARG_DIFF_SRC, "diff_src"},
      {DNNL_ARG_DIFF_DST, "diff_dst"},
      {DNNL_ARG_DIFF_WEIGHTS, "diff_weights"},
      {DNNL_ARG_MEAN, "mean"},
      {DNNL_ARG_VARIANCE, "variance"},
      {DNNL_ARG_SCALE, "scale"},
      {DNNL_ARG_SHIFT, "shift"},
      {DNNL_ARG_DIFF_SCALE, "diff_scale"},
      {DNNL_ARG_DIFF_SHIFT, "diff_shift"},
      {DNNL_ARG_WORKSPACE, "workspace"}};
  const auto it = names.find(arg);
  return it != names.end() ? it->second : "arg " + std::to_string(arg);
}

// ---------------------------------------------------------------- threads

#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
constexpr const char* threading_runtime = "OpenMP";
#elif DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_TBB
constexpr const char* threading_runtime = "TBB";
#elif DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_SEQ
constexpr const char* threading_runtime = "sequential";
#else
constexpr const char* threading_runtime = "threadpool";
#endif

// oneDNN reads the OpenMP thread count of the calling thread when it creates a primitive (to
// partition the work) and when it runs one, so the count is set before both, on the calling
// thread. Returns the count now in effect, 0 when this build cannot tell.
int apply_threads(int threads) {
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP && defined(_OPENMP)
  omp_set_num_threads(threads > 0 ? threads : omp_get_num_procs());
  return omp_get_max_threads();
#else
  (void)threads;
  return 0;
#endif
}

bool can_set_threads() {
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP && defined(_OPENMP)
  return true;
#else
  return false;
#endif
}

// ---------------------------------------------------------------- errors

std::string version_text() { return "oneDNN " + probe().version; }

std::string isa_text() { return probe().isa; }

// oneDNN's own message, what was being done, and for "unimplemented" the CPU's ISA.
std::string error_text(const dnnl::error& e, const std::string& doing) {
  const std::string text = version_text() + ": " + e.what() + " (" + doing + ")";
  if (e.status == dnnl_unimplemented)
    return text + ": unimplemented on this CPU (" + isa_text() + ")";
  return text + ": status " + dnnl_status2str(e.status);
}

// Turns a oneDNN error into the backend interface's exceptions.
[[noreturn]] void rethrow(const dnnl::error& e, const std::string& doing) {
  if (e.status == dnnl_unimplemented) throw Unsupported(error_text(e, doing));
  if (e.status == dnnl_out_of_memory) throw OutOfMemory(error_text(e, doing), 0, 0);
  throw LibraryError(error_text(e, doing));
}

// ---------------------------------------------------------------- the operation

DataType data_type(Precision p) {
  switch (p) {
    case Precision::fp32:
      return DataType::f32;
    case Precision::bf16:
      return DataType::bf16;
    case Precision::fp16:
      return DataType::f16;
    case Precision::tf32:
    case Precision::fp8:
      break;
  }
  throw std::logic_error("no oneDNN data type for " + std::string(name(p)));
}

// A precision is never run as another: TF32 and FP8 have no CPU meaning here.
std::optional<std::string> precision_refusal(Precision p) {
  if (p == Precision::tf32)
    return "TF32 is a GPU Tensor Core mode; the CPU backend runs FP32 data with FP32 math only";
  if (p == Precision::fp8) return version_text() + " has no FP8 data type on the CPU";
  return std::nullopt;
}

const char* algorithm_name(dnnl::algorithm a) {
  switch (a) {
    case dnnl::algorithm::convolution_auto:
      return "auto";
    case dnnl::algorithm::convolution_direct:
      return "direct";
    case dnnl::algorithm::convolution_winograd:
      return "winograd";
    default:
      return "?";
  }
}

Operation make_conv(const ConvProblem& conv, DataType type, const dnnl::engine& engine,
                    dnnl::algorithm algorithm, int impl, bool allow_empty) {
  const ConvShape& s = conv.shape;
  const memory::dims x{s.n, s.c, s.h, s.w}, y{s.n, s.k, s.p(), s.q()};
  // Canonical weights K x C/g x R x S are oneDNN's goihw (or oihw without groups) as they are.
  const bool grouped = s.groups > 1;
  const memory::dims w = grouped ? memory::dims{s.groups, s.k / s.groups, s.c / s.groups, s.r, s.s}
                                 : memory::dims{s.k, s.c, s.r, s.s};
  const Tag w_tag = grouped ? Tag::goihw : Tag::oihw;
  const memory::dims strides{s.stride_h, s.stride_w}, dilation{s.dil_h - 1, s.dil_w - 1},
      padding{s.pad_h, s.pad_w};
  const memory::desc x_any(x, type, Tag::any), w_any(w, type, Tag::any), y_any(y, type, Tag::any);
  const memory::desc x_plain(x, DataType::f32, Tag::nchw), w_plain(w, DataType::f32, w_tag),
      y_plain(y, DataType::f32, Tag::nchw);

  Operation op;
  op.algorithm = algorithm_name(algorithm);
  const auto attr = make_attr();
  // The forward point is inference's, as a framework in eval mode asks for it (and batch norm's
  // fwd is); the backward passes take a training forward as their hint. Which kernels oneDNN
  // offers depends on it: 3.2.0's brgconv runs FP32 inference on AVX-512, not training.
  const dnnl::convolution_forward::primitive_desc fwd_pd(engine, forward_prop(conv.pass), algorithm,
                                                         x_any, w_any, y_any, strides, dilation,
                                                         padding, padding, attr, allow_empty);
  switch (conv.pass) {
    case Pass::fwd_training:
      throw std::invalid_argument("a convolution has no pass fwd_training");
    case Pass::fwd:
      op.pd = fwd_pd;
      op.input_args = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS}, op.output_arg = DNNL_ARG_DST;
      op.canonical_inputs = {x_plain, w_plain}, op.canonical_output = y_plain;
      break;
    case Pass::bwd_data:
      if (!fwd_pd) return op;  // oneDNN needs the forward pd as a hint
      op.pd = dnnl::convolution_backward_data::primitive_desc(engine, algorithm, x_any, w_any,
                                                              y_any, strides, dilation, padding,
                                                              padding, fwd_pd, attr, allow_empty);
      op.forward_hint = fwd_pd;
      op.input_args = {DNNL_ARG_DIFF_DST, DNNL_ARG_WEIGHTS}, op.output_arg = DNNL_ARG_DIFF_SRC;
      op.canonical_inputs = {y_plain, w_plain}, op.canonical_output = x_plain;
      break;
    case Pass::bwd_weights:
      if (!fwd_pd) return op;
      op.pd = dnnl::convolution_backward_weights::primitive_desc(
          engine, algorithm, x_any, w_any, y_any, strides, dilation, padding, padding, fwd_pd, attr,
          allow_empty);
      op.forward_hint = fwd_pd;
      op.input_args = {DNNL_ARG_SRC, DNNL_ARG_DIFF_DST}, op.output_arg = DNNL_ARG_DIFF_WEIGHTS;
      op.canonical_inputs = {x_plain, y_plain}, op.canonical_output = w_plain;
      break;
  }
  select_impl(op.pd, impl);
  return op;
}

// Row-major [batch][rows][cols] storage, or its transpose [batch][cols][rows] read as
// [batch][rows][cols] through strides: how a GEMM's canonical operands are described.
memory::desc matrix_desc(std::int64_t batch, std::int64_t rows, std::int64_t cols, bool transposed,
                         DataType type) {
  const memory::dims strides =
      transposed ? memory::dims{rows * cols, 1, rows} : memory::dims{rows * cols, cols, 1};
  return memory::desc({batch, rows, cols}, type, strides);
}

Operation make_matmul(const GemmShape& g, DataType type, const dnnl::engine& engine, int impl,
                      bool allow_empty) {
  Operation op;
  op.algorithm = "matmul";
  const auto a = [&](DataType t) { return matrix_desc(g.batch, g.m, g.k, g.trans_a, t); };
  const auto b = [&](DataType t) { return matrix_desc(g.batch, g.k, g.n, g.trans_b, t); };
  const auto c = [&](DataType t) { return matrix_desc(g.batch, g.m, g.n, false, t); };
  op.pd = dnnl::matmul::primitive_desc(engine, a(type), b(type), c(type), make_attr(), allow_empty);
  select_impl(op.pd, impl);
  op.input_args = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS}, op.output_arg = DNNL_ARG_DST;
  op.canonical_inputs = {a(DataType::f32), b(DataType::f32)};
  op.canonical_output = c(DataType::f32);
  return op;
}

// oneDNN's first choice (impl 0) throws oneDNN's error when there is none; later ones
// (autotuning) are empty pds when they do not exist.
Operation make_operation(const Problem& problem, const dnnl::engine& engine,
                         dnnl::algorithm algorithm, int impl = 0) {
  const DataType type = data_type(problem.precision);
  const bool allow_empty = impl > 0 || algorithm != dnnl::algorithm::convolution_auto;
  Operation op =
      problem.is_conv()   ? make_conv(problem.conv(), type, engine, algorithm, impl, allow_empty)
      : problem.is_gemm() ? make_matmul(problem.gemm().shape, type, engine, impl, allow_empty)
                          : make_memory_op(problem.memory(), type, engine, impl, allow_empty);
  if (!op.pd) return op;
  std::vector<int> args = op.typed_args;
  if (args.empty()) {
    args = op.input_args;
    args.push_back(op.output_arg);
  }
  for (int arg : args)
    if (argument_desc(op, arg).get_data_type() != type)
      throw Unsupported(version_text() + " chose another data type than " +
                        std::string(name(problem.precision)) + " for " + describe(problem));
  return op;
}

std::string doing(const Problem& problem) {
  return std::string(name(problem.precision)) + " " +
         (problem.is_conv()     ? "convolution " + std::string(name(problem.conv().pass))
          : problem.is_memory() ? std::string(name(problem.memory().pass))
                                : std::string("matmul")) +
         " " + describe(problem);
}

// ---------------------------------------------------------------- the case

class OnednnCase : public Case {
 public:
  OnednnCase(const Operation& op, const dnnl::engine& engine, const std::vector<HostTensor>& inputs,
             std::vector<std::int64_t> output_dims, CacheMode cache, std::uint64_t memory_limit,
             int threads)
      : op_(op),
        engine_(engine),
        stream_(engine),
        primitive_(op.pd),
        output_dims_(std::move(output_dims)),
        threads_(threads),
        eviction_(cache) {
    // The inputs, the output (unless it is the first input's memory), then the other
    // arguments (operation.hpp), one after another in one arena, then the scratchpad; each at
    // its own offset within a page (operand_layout.hpp).
    std::vector<int> set_args = op.input_args;
    if (!op.in_place) set_args.push_back(op.output_arg);
    set_args.insert(set_args.end(), op.other_args.begin(), op.other_args.end());
    std::vector<memory::desc> descs;
    std::vector<std::size_t> sizes;
    for (int arg : set_args) {
      descs.push_back(argument_desc(op, arg));
      sizes.push_back(descs.back().get_size());
    }
    const auto scratch_desc = op.pd.scratchpad_desc();
    scratchpad_bytes_ = scratch_desc.get_size();
    if (scratchpad_bytes_ > 0) sizes.push_back(scratchpad_bytes_);
    const OperandLayout layout = lay_out_operands(sizes);
    arena_ = allocate_case_arena("oneDNN case", layout.bytes, memory_limit);

    std::unordered_map<int, memory> all;
    for (std::size_t i = 0; i < set_args.size(); ++i) {
      memory m(descs[i], engine_, arena_->at(layout.offsets[i]));
      if (i < op.input_args.size()) {
        // The canonical FP32 host data, reordered into oneDNN's chosen format and data type.
        memory host(op.canonical_inputs[i], engine_, const_cast<float*>(inputs[i].data.data()));
        dnnl::reorder(host, m).execute(stream_, host, m);
        stream_.wait();
      }
      all.emplace(set_args[i], m);
    }
    if (op.in_place) {
      all.emplace(op.output_arg, all.at(op.input_args.front()));
      // Each run overwrites the first input: kept to restore it before the output is read.
      first_input_ = inputs.front().data;
    }
    run_prologue(all);
    std::vector<std::pair<std::string, const void*>> placed;
    for (std::size_t i = 0; i < set_args.size(); ++i) {
      const memory& m = all.at(set_args[i]);
      if (!timed(set_args[i])) continue;  // an input only the prologue reads
      args_.emplace(set_args[i], m);
      eviction_.add(m.get_data_handle(), m.get_desc().get_size());
      placed.emplace_back(argument_name(set_args[i]), m.get_data_handle());
    }
    if (op.in_place) args_.emplace(op.output_arg, all.at(op.output_arg));  // the first input's
    if (scratchpad_bytes_ > 0) {  // the library's temporary, not an operand: never evicted
      memory scratchpad(scratch_desc, engine_, arena_->at(layout.offsets.back()));
      args_.emplace(DNNL_ARG_SCRATCHPAD, scratchpad);
      placed.emplace_back("scratchpad", scratchpad.get_data_handle());
    }
    page_offsets_ = page_offsets_note(placed);
    stream_.wait();
  }

  // Whether the timed primitive takes the argument.
  bool timed(int arg) const { return !op_.pd.query_md(dnnl::query::exec_arg_md, arg).is_zero(); }

  // The untimed forward that derives the other arguments of set `all` from its inputs; its own
  // outputs nobody reads (a normalisation's y) go to zeroed temporaries.
  void run_prologue(const std::unordered_map<int, memory>& all) {
    if (!op_.prologue) return;
    std::unordered_map<int, memory> args;
    const auto temporary = [&](const memory::desc& d) {
      memory m(d, engine_);
      std::memset(m.get_data_handle(), 0, d.get_size());
      return m;
    };
    for (int arg : op_.prologue_args) {
      const auto it = all.find(arg);
      args.emplace(arg, it != all.end()
                            ? it->second
                            : temporary(op_.prologue.query_md(dnnl::query::exec_arg_md, arg)));
    }
    if (op_.prologue.scratchpad_desc().get_size() > 0)
      args.emplace(DNNL_ARG_SCRATCHPAD, temporary(op_.prologue.scratchpad_desc()));
    dnnl::primitive(op_.prologue).execute(stream_, args);
    stream_.wait();
  }

  double run_timed() override {
    eviction_.evict();  // cold: the operands come from memory, evicted before the clock starts
    apply_threads(threads_);
    const auto start = Clock::now();
    primitive_.execute(stream_, args_);
    stream_.wait();
    return std::chrono::duration<double>(Clock::now() - start).count();
  }

  void execute_untimed() {
    primitive_.execute(stream_, args_);
    stream_.wait();
  }

  // In place, the last run's output is many runs' (a + b added again and again): what is read
  // is instead one run's on the first input as it was.
  HostTensor output() override {
    HostTensor out{output_dims_, std::vector<float>(element_count(output_dims_))};
    require_library_headroom("oneDNN output");
    try {
      memory& result = args_.at(op_.output_arg);
      if (op_.in_place) {
        memory original(op_.canonical_inputs.front(), engine_, first_input_.data());
        dnnl::reorder(original, result).execute(stream_, original, result);
        execute_untimed();
      }
      memory host(op_.canonical_output, engine_, out.data.data());
      dnnl::reorder(result, host).execute(stream_, result, host);
      stream_.wait();
    } catch (const dnnl::error& e) {  // the reorder's creation can run out of memory
      rethrow(e, "reading the output back");
    }
    return out;
  }

  std::string implementation() const override { return op_.pd.impl_info_str(); }
  std::string library() const override { return "onednn"; }
  std::uint64_t workspace_bytes() const override { return scratchpad_bytes_; }
  std::vector<std::pair<std::string, std::string>> notes() const override {
    auto n = notes_;
    n.emplace_back("algorithm", op_.algorithm);
    // Where the data runs: the first input's layout (the host's FP32 row-major data is
    // reordered into it, and the output back, outside the timed region).
    n.emplace_back("layout", layout_name(argument_desc(op_, op_.input_args.front())));
    n.emplace_back("evicted_bytes", std::to_string(eviction_.bytes()));
    n.emplace_back("page_offsets", page_offsets_);
    n.emplace_back("pages", pages_note(arena_->bytes(), arena_->bytes_on_huge_pages()));
    return n;
  }
  void add_note(std::string key, std::string value) {
    notes_.emplace_back(std::move(key), std::move(value));
  }

 private:
  Operation op_;
  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::primitive primitive_;
  std::vector<std::int64_t> output_dims_;
  int threads_;
  OperandEviction eviction_;
  std::unique_ptr<HostArena> arena_;
  std::unordered_map<int, memory> args_;  // the timed primitive's own arguments
  std::vector<float> first_input_;        // in place: the first input's canonical values
  std::uint64_t scratchpad_bytes_ = 0;
  std::string page_offsets_;  // where each timed operand starts within its page
  std::vector<std::pair<std::string, std::string>> notes_;
};

// ---------------------------------------------------------------- autotuning

// Every implementation oneDNN offers for the problem, over the convolution algorithms, in
// oneDNN's own order of preference (the first is its heuristic choice), each once.
std::vector<Operation> implementations(const Problem& problem, const dnnl::engine& engine) {
  std::vector<Operation> all;
  std::unordered_set<std::string> seen;
  const std::vector<dnnl::algorithm> algorithms =
      problem.is_conv() ? std::vector<dnnl::algorithm>{dnnl::algorithm::convolution_auto,
                                                       dnnl::algorithm::convolution_direct,
                                                       dnnl::algorithm::convolution_winograd}
                        : std::vector<dnnl::algorithm>{dnnl::algorithm::undef};
  for (auto algorithm : algorithms)
    for (int impl = 0;; ++impl) {
      Operation op = make_operation(problem, engine, algorithm, impl);
      if (!op.pd) break;
      if (seen.insert(op.pd.impl_info_str()).second) all.push_back(op);
    }
  return all;
}

// The implementations autotuning times: reference ("ref") ones are left out unless nothing else
// exists, as they are never the fastest and can take minutes on a large layer.
std::vector<Operation> candidates(const Problem& problem, const dnnl::engine& engine) {
  const auto all = implementations(problem, engine);
  std::vector<Operation> fast;
  for (const auto& op : all)
    if (std::string(op.pd.impl_info_str()).rfind("ref", 0) != 0) fast.push_back(op);
  return fast.empty() ? all : fast;
}

// One autotuning round of a candidate: the median of 3 to 7 timed runs, 0.01 to 0.1 s of them,
// or its first clean run alone when that is over `hopeless_above` seconds (the round then cannot
// keep it). With `checked_run` a pre-empted run counts only when no run of the round was clean,
// re-taken up to 7 times (docs/measuring.md says why).
double round_time(OnednnCase& c, const CaseOptions& options, int& preempted_runs,
                  double hopeless_above) {
  const std::function<double()> run = [&c] { return c.run_timed(); };
  std::vector<double> clean, preempted;
  double spent = 0;
  while (clean.size() < 7 && spent < 0.1 && (clean.size() < 3 || spent < 0.01)) {
    const CheckedRun r = options.checked_run ? options.checked_run(run) : CheckedRun{run()};
    spent += r.seconds;
    if (!r.preempted) {
      clean.push_back(r.seconds);
      if (r.seconds > hopeless_above) break;
    } else {
      ++preempted_runs;
      preempted.push_back(r.seconds);
      if (preempted.size() > 7) break;
    }
  }
  // The median, as the measurement reports: the fastest run would favour a candidate whose runs
  // vary widely, which then measures slower than the one it beat. Of 3 at least, so that the
  // first run after the other candidates', slower for some, is not half the figure.
  return median(clean.empty() ? preempted : clean);
}

// ---------------------------------------------------------------- the backend

class OnednnBackend : public Backend {
 public:
  explicit OnednnBackend(int threads) : engine_(dnnl::engine::kind::cpu, 0), threads_(threads) {
    if (threads > 0 && !can_set_threads())
      throw std::runtime_error(
          std::string("--threads: this build cannot set oneDNN's thread count (") +
          threading_runtime + " runtime, built without OpenMP)");
    effective_threads_ = apply_threads(threads);
  }

  std::string name() const override { return "onednn"; }
  std::string device() const override { return "cpu"; }

  std::optional<std::string> unsupported_reason(const Problem& problem) const override {
    if (auto refusal = precision_refusal(problem.precision)) return refusal;
    require_library_headroom("oneDNN's support check");  // it creates a primitive descriptor
    apply_threads(threads_);
    try {
      make_operation(problem, engine_, dnnl::algorithm::convolution_auto);
    } catch (const dnnl::error& e) {
      return error_text(e, doing(problem));
    } catch (const Unsupported& e) {
      return std::string(e.what());
    }
    return std::nullopt;
  }

  std::unique_ptr<Case> prepare(const Problem& problem, const std::vector<HostTensor>& inputs,
                                const CaseOptions& options) override {
    if (auto refusal = precision_refusal(problem.precision)) throw Unsupported(*refusal);
    const auto dims = tensor_dims(problem);
    if (inputs.size() != dims.inputs.size())
      throw std::invalid_argument("oneDNN prepare: wrong number of inputs for " +
                                  describe(problem));
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (static_cast<std::int64_t>(inputs[i].data.size()) != element_count(dims.inputs[i]))
        throw std::invalid_argument("oneDNN prepare: input " + std::to_string(i) +
                                    " has the wrong size for " + describe(problem));
    apply_threads(threads_);
    try {
      if (!options.implementation.empty()) {
        for (const auto& op : implementations(problem, engine_))
          if (op.pd.impl_info_str() == options.implementation) {
            auto c = make_case(problem, op, inputs, options.cache, options.memory_limit_bytes);
            c->add_note("choice", "named");
            return c;
          }
        throw Unsupported(version_text() + " no longer offers " + options.implementation + " for " +
                          describe(problem));
      }
      if (options.algo == AlgoChoice::heuristic) {
        auto c =
            make_case(problem, make_operation(problem, engine_, dnnl::algorithm::convolution_auto),
                      inputs, options.cache, options.memory_limit_bytes);
        c->add_note("choice", "heuristic");
        return c;
      }
      return autotune(problem, inputs, options);
    } catch (const dnnl::error& e) {
      rethrow(e, doing(problem));
    }
  }

  std::vector<std::pair<std::string, std::string>> context() const override {
    return {{"threads", effective_threads_ > 0 ? std::to_string(effective_threads_)
                                               : std::string("library default")},
            {"threading", threading_runtime},
            {"isa", probe().isa}};
  }

  int compute_threads() const override { return effective_threads_; }

 private:
  std::unique_ptr<OnednnCase> make_case(const Problem& problem, const Operation& op,
                                        const std::vector<HostTensor>& inputs, CacheMode cache,
                                        std::uint64_t memory_limit) const {
    return std::make_unique<OnednnCase>(op, engine_, inputs, tensor_dims(problem).output, cache,
                                        memory_limit, threads_);
  }

  // Times every candidate implementation in interleaved rounds, on the caches the point is
  // measured with (the fastest warm is not always the fastest cold), and keeps
  // oneDNN's first choice unless another wins clearly (onednn_autotune_rule.hpp); the notes
  // record the first choice, every candidate's best time and spread, and what autotuning cost.
  std::unique_ptr<Case> autotune(const Problem& problem, const std::vector<HostTensor>& inputs,
                                 const CaseOptions& options) const {
    const auto began = Clock::now();
    // oneDNN's first choice first: it throws oneDNN's own reason when there is none.
    make_operation(problem, engine_, dnnl::algorithm::convolution_auto);
    const auto all = candidates(problem, engine_);
    std::vector<std::vector<double>> seconds(all.size());
    std::vector<std::unique_ptr<OnednnCase>> trials;
    int preempted_runs = 0;
    if (all.size() > 1) {
      for (const auto& op : all) {
        trials.push_back(make_case(problem, op, inputs, options.cache, options.memory_limit_bytes));
        trials.back()->run_timed();  // untimed first run: page faults and lazy set-up
      }
      std::vector<bool> contending(trials.size(), true);
      for (int round = 0; contending.front(); ++round) {
        // In the first round a candidate slower than the contender factor times the fastest so
        // far is dropped after it anyway: one clean run of it is enough.
        double fastest = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < trials.size(); ++i) {
          if (!contending[i]) continue;
          const double hopeless = round == 0 && i > 0 ? autotune_contender_factor * fastest
                                                      : std::numeric_limits<double>::infinity();
          seconds[i].push_back(round_time(*trials[i], options, preempted_runs, hopeless));
          fastest = std::min(fastest, seconds[i].back());
        }
        contending = autotune_next_round(seconds);
      }
    }
    const std::size_t pick = all.size() > 1 ? autotune_pick(seconds, autotune_margin) : 0;
    // The winner's trial is the case: making it again would only repeat its set-up.
    std::unique_ptr<OnednnCase> c =
        all.size() > 1
            ? std::move(trials[pick])
            : make_case(problem, all[pick], inputs, options.cache, options.memory_limit_bytes);
    trials.clear();
    c->add_note("choice", "autotune");
    c->add_note("heuristic_choice", all.front().pd.impl_info_str());
    if (all.size() > 1) {
      std::ostringstream timings;
      for (std::size_t i = 0; i < all.size(); ++i)
        timings << (i ? "; " : "")
                << candidate_text(
                       std::string(all[i].pd.impl_info_str()) + " (" + all[i].algorithm + ")",
                       seconds[i]);
      c->add_note("autotune_candidates", timings.str());
      std::ostringstream rule;
      rule << "oneDNN's first choice unless another's best of " << autotune_rounds
           << " interleaved rounds is over " << autotune_margin * 100
           << "% faster and it was faster in most rounds";
      c->add_note("autotune_rule", rule.str());
    }
    if (options.checked_run) c->add_note("autotune_preempted_runs", std::to_string(preempted_runs));
    c->add_note("autotune_s",
                std::to_string(std::chrono::duration<double>(Clock::now() - began).count()));
    return c;
  }

  dnnl::engine engine_;
  int threads_;
  int effective_threads_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_backend(int threads) {
  return std::make_unique<OnednnBackend>(threads);
}

void execute_untimed(Case& onednn_case) {
  auto* c = dynamic_cast<OnednnCase*>(&onednn_case);
  if (!c) throw std::invalid_argument("execute_untimed: not a oneDNN case");
  c->execute_untimed();
}

}  // namespace lb::onednn
