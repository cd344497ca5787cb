#pragma once
// --resume continues a results file exactly or refuses: what the file records of the run it
// began (each model file's content hash, and every point) against the plan its settings make
// now. A changed or missing model file, or a point the plan would not measure or would measure
// otherwise, is refused naming the file, the point's key and the field, since measuring on
// would put two experiments in one file. Pure logic: the plan is built by the caller.
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/plan/plan.hpp"
#include "harness/results/results_file.hpp"

namespace lb {

// What a refusal tells the user to do, after its reason.
inline constexpr const char* resume_refused_advice =
    "start a new results file (-o) rather than resume this one";

// Throws ResultsError unless the file's top-level status is one a run leaves unfinished
// ("incomplete", "interrupted"): a complete file has nothing to resume, and any other status
// (missing, edited) is not one layerbench writes.
void check_resumable_status(const nlohmann::json& document, const std::string& file);

// settings.model_files: { "<model>": { "file": path, "sha256": hex } } for each model of the plan
// (reports/results-schema.md).
nlohmann::json model_files_json(const Plan& plan);

// What check_resumable found the file to record.
enum class ResumeRecord {
  exact,     // model files and points, all as the plan makes them
  no_hashes  // a file written before settings.model_files: its points match the plan
};

// Why the backend that the plan gives a point would refuse it (as `run` records it
// unsupported), or nothing when it can run it.
using PointRefusal = std::function<std::optional<std::string>(const PlannedPoint&)>;

// Checks `previous` (the file `file`) against `plan`, made from the file's own settings;
// `cache` is the settings' "cold" or "warm". A point recorded other than unsupported where
// `refusal` says its backend cannot run it is refused too. Throws ResultsError "<file>: <field>:
// <problem>; <what to do>", the field being settings.model_files.<model> or points[i] (<key>)
// and its part.
ResumeRecord check_resumable(const LoadedResults& previous, const std::string& file,
                             const Plan& plan, const std::string& cache,
                             const PointRefusal& refusal = {});

}  // namespace lb
