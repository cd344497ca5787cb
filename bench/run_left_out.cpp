// `layerbench run` in a build without Google Benchmark and oneDNN (LAYERBENCH_RUN=OFF): the
// subcommand stays in --help with the reason, and using it is refused with that reason.
#include <iostream>

#include "bench/commands.hpp"

namespace lb::cli {

void add_run(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("run", std::string("Measure layers: ") + run_left_out);
  sub->allow_extras();  // any flags get the same answer, not a parse error
  sub->callback([&action] {
    action = [] {
      std::cerr << "layerbench run: " << run_left_out << "\n";
      return exit_usage;
    };
  });
}

}  // namespace lb::cli
