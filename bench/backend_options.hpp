#pragma once
// The `run` options the backends declare (BackendDescriptor::options): listed from the registry,
// checked the same way for flags and for a resumed file's settings, and split per backend.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/api/backend_descriptor.hpp"

namespace lb {

// Every option of this build's backends, in registry order. Two backends declaring one flag or
// settings key is a programming error (std::logic_error), caught by backend_registry_test.
std::vector<const BackendOption*> backend_options();

// Each declared option at its default, by settings key.
BackendOptionValues default_backend_options();

// Throws InputError naming `label` (the flag, or a resumed file's settings field) and the value
// unless `value` is one `option` takes: one of its choices, or a finite number in its range.
void check_backend_option(const BackendOption& option, const nlohmann::json& value,
                          const std::string& label);
inline void check_backend_option(const BackendOption& option, const nlohmann::json& value) {
  check_backend_option(option, value, option.flag);
}

// `value` in [lo, hi] (lo excluded when lo_open), else InputError: "FLAG VALUE: not UNIT in
// [LO, HI]", with the bounds written in full (16777216, not 1.67772e+07).
void check_in_range(const std::string& flag, double value, double lo, bool lo_open, double hi,
                    const std::string& unit);

// The values of the options `backend` declares, from everything the run was given.
BackendOptionValues options_of(const BackendDescriptor& backend, const BackendOptionValues& all);

}  // namespace lb
