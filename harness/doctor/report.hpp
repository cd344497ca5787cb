#pragma once
// The doctor's output: the same content as text for people and as one JSON object.
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "harness/doctor/diagnose.hpp"
#include "harness/doctor/snapshot.hpp"

namespace lb::doctor {

nlohmann::json to_json(const Snapshot& snapshot, const Diagnosis& diagnosis,
                       const std::optional<FrameworkCheck>& framework = std::nullopt);

void print_text(std::ostream& out, const Snapshot& snapshot, const Diagnosis& diagnosis,
                const std::optional<FrameworkCheck>& framework = std::nullopt);

}  // namespace lb::doctor
