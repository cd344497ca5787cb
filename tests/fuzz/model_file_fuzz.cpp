// libFuzzer target: a model file as `--model-file FILE` reads it, then the accounting `list` and
// `run` do with every op it accepts (the indexing check at the batch, then problems, FLOPs,
// bytes, memory and model totals), so UBSan sees the arithmetic the limits are meant to bound.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

#include "harness/api/shape_json.hpp"
#include "harness/model/accounting.hpp"
#include "harness/model/model_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lb;
  Model model;
  try {
    model =
        load_model_text(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
  } catch (const ModelFileError&) {
    return 0;  // rejected with a message: what the loader must do with bad input
  }
  // Batch 1, a suite batch, the `full` suite's largest and the largest --batch accepts.
  for (const int batch : {1, 8, 4096, std::numeric_limits<int>::max()}) {
    bool fits = true;
    for (const Op& op : model.ops) fits = fits && !indexing_overflow(op, batch);
    if (!fits) continue;  // `list` and `run` stop here with the overflow's message
    for (const Op& op : model.ops)
      for (const Pass pass : passes_for(op, PassSet::train))
        for (const Precision precision : all_precisions) {
          const Problem problem = problem_for(op, batch, pass, precision);
          (void)flop_count(problem);
          (void)memory_bytes(problem);
          (void)describe(problem);
          (void)shape_json(problem);
        }
    (void)totals(model, batch, PassSet::train);
  }
  return 0;
}
