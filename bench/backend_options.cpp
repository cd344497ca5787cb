#include "bench/backend_options.hpp"

#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>

#include "bench/backend_registry.hpp"
#include "harness/util/input_error.hpp"

namespace lb {

std::vector<const BackendOption*> backend_options() {
  std::vector<const BackendOption*> options;
  std::set<std::string> flags, keys;
  for (const BackendDescriptor* backend : backend_descriptors())
    for (const BackendOption& option : backend->options) {
      if (!flags.insert(option.flag).second || !keys.insert(option.settings_key).second)
        throw std::logic_error(backend->name + " declares " + option.flag + " (settings key " +
                               option.settings_key + ") which another backend declared");
      options.push_back(&option);
    }
  return options;
}

BackendOptionValues default_backend_options() {
  BackendOptionValues values;
  for (const BackendOption* option : backend_options())
    values[option->settings_key] = option->default_value;
  return values;
}

void check_in_range(const std::string& flag, double value, double lo, bool lo_open, double hi,
                    const std::string& unit) {
  if (std::isfinite(value) && (lo_open ? value > lo : value >= lo) && value <= hi) return;
  std::ostringstream why;
  why.precision(12);  // 16777216, not 1.67772e+07
  why << flag << " " << value << ": not " << unit << " in " << (lo_open ? "(" : "[") << lo << ", "
      << hi << "]";
  throw InputError(why.str());
}

void check_backend_option(const BackendOption& option, const nlohmann::json& value,
                          const std::string& label) {
  if (option.choices.empty()) {
    if (!value.is_number()) throw InputError(label + " " + value.dump() + ": not " + option.unit);
    check_in_range(label, value.get<double>(), option.min, false, option.max, option.unit);
    return;
  }
  std::string listed;
  for (const std::string& choice : option.choices) {
    if (value == choice) return;
    listed += (listed.empty() ? "" : ", ") + choice;
  }
  throw InputError(label + " " + value.dump() + ": not one of " + listed);
}

BackendOptionValues options_of(const BackendDescriptor& backend, const BackendOptionValues& all) {
  BackendOptionValues own;
  for (const BackendOption& option : backend.options) {
    const auto it = all.find(option.settings_key);
    own[option.settings_key] = it == all.end() ? option.default_value : it->second;
  }
  return own;
}

}  // namespace lb
