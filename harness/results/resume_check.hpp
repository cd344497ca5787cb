#pragma once
// --resume continues a results file exactly or refuses: what the file records of the run it
// began (each model file's content hash, and every point) against the plan its settings make
// now. A changed or missing model file, or a point the plan would not measure or would measure
// otherwise, is refused naming the file, the point's key and the field, since measuring on
// would put two experiments in one file. Pure logic: the plan is built by the caller.
#include <string>

#include <nlohmann/json.hpp>

#include "harness/plan/plan.hpp"
#include "harness/results/results_file.hpp"

namespace lb {

// What a refusal tells the user to do, after its reason.
inline constexpr const char* resume_refused_advice =
    "start a new results file (-o) rather than resume this one";

// settings.model_files: { "<model>": { "file": path, "sha256": hex } } for each model of the plan
// (reports/results-schema.md).
nlohmann::json model_files_json(const Plan& plan);

// What check_resumable found the file to record.
enum class ResumeRecord {
  exact,     // model files and points, all as the plan makes them
  no_hashes  // a file written before settings.model_files: its points match the plan
};

// Checks `previous` (the file `file`) against `plan`, made from the file's own settings;
// `cache` is the settings' "cold" or "warm". Throws ResultsError "<file>: <field>: <problem>;
// <what to do>", the field being settings.model_files.<model> or points[i] (<key>) and its part.
ResumeRecord check_resumable(const LoadedResults& previous, const std::string& file,
                             const Plan& plan, const std::string& cache);

}  // namespace lb
