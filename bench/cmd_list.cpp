// Placeholder: the list subcommand is being written.
#include "bench/commands.hpp"

namespace lb::cli {
void add_list(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("list", "list (not written yet)");
  sub->callback([&action] { action = [] { return exit_failed; }; });
}
}  // namespace lb::cli
