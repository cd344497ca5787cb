// Placeholder: the run subcommand is being written.
#include "bench/commands.hpp"

namespace lb::cli {
void add_run(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("run", "run (not written yet)");
  sub->callback([&action] { action = [] { return exit_failed; }; });
}
}  // namespace lb::cli
