// Placeholder: the doctor subcommand is being written.
#include "bench/commands.hpp"

namespace lb::cli {
void add_doctor(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("doctor", "doctor (not written yet)");
  sub->callback([&action] { action = [] { return exit_failed; }; });
}
}  // namespace lb::cli
