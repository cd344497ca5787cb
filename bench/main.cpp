// layerbench: what your hardware really does on the layers of real models.
#include <cerrno>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "bench/backend_registry.hpp"
#include "bench/commands.hpp"
#include "bench/run_context.hpp"
#include "bench/version.hpp"
#include "harness/input_error.hpp"
#include "harness/measure/interrupt.hpp"
#include "harness/platform.hpp"

namespace lb::cli {

int report_input_errors(const std::string& command, const Action& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::cerr << "layerbench " << command << ": " << e.what() << "\n";
  } catch (const std::invalid_argument& e) {
    std::cerr << "layerbench " << command << ": " << e.what() << "\n";
  }
  return exit_usage;
}

// A failed write to standard output (a full disk, a closed stream) is a failure, not exit 0. A
// reader that has gone (`layerbench --version | head -1`) took what it wanted: not a failure, and
// nothing to say (`run` has already stopped for it, saying so).
int check_stdout(int code) {
  errno = 0;
  std::cout.flush();
  if (std::cout || platform::stdout_reader_gone()) return code;
  std::cerr << "layerbench: standard output could not be written ("
            << (errno ? std::strerror(errno) : "write failed") << ")\n";
  return code == exit_ok ? exit_failed : code;
}

// An option given more times than it takes values (`--device cpu --device gpu`), with the values,
// in place of CLI11's "ArgumentMismatch: --device: At Most 1 required but received 2".
std::optional<std::string> repeated_option(const CLI::App& app) {
  std::vector<const CLI::App*> commands{&app};
  for (const CLI::App* sub : app.get_subcommands()) commands.push_back(sub);
  for (const CLI::App* command : commands)
    for (const CLI::Option* option : command->get_options()) {
      const int most = option->get_items_expected_max();
      if (most < 1 || option->results().size() <= static_cast<std::size_t>(most)) continue;
      std::string values;
      for (const std::string& value : option->results())
        values += (values.empty() ? "" : ", ") + value;
      const std::string name = command == &app ? "layerbench" : "layerbench " + command->get_name();
      return name + ": " + option->get_name() + " given " + std::to_string(option->count()) +
             " times (" + values + "); give it once";
    }
  return std::nullopt;
}

}  // namespace lb::cli

int main(int argc, char** argv) {
  lb::platform::fill_closed_standard_streams();
  lb::platform::raise_open_file_limit(lb::cli::wanted_open_files);  // before any thread starts
  lb::interrupt::install();  // before any thread exists, so every thread inherits the mask
  lb::install_backend_roles();
  CLI::App app{"layerbench: cuDNN, cuBLASLt and oneDNN on the layers of ResNet-50 and ViT"};
  app.require_subcommand(0, 1);
  app.failure_message(CLI::FailureMessage::help);  // a usage error shows the usage
  bool show_version = false;
  app.add_flag("--version", show_version, "Print layerbench's version and every library's");

  lb::cli::set_command_line(argc, argv);
  lb::cli::Action action;
  lb::cli::add_doctor(app, action);
  lb::cli::add_list(app, action);
  lb::cli::add_run(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ArgumentMismatch& e) {
    if (const auto repeated = lb::cli::repeated_option(app)) {
      std::cerr << *repeated << "\n";
      return lb::cli::exit_usage;
    }
    app.exit(e);
    return lb::cli::exit_usage;
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the error and usage on stderr
    return lb::cli::exit_usage;
  }
  if (show_version) {
    lb::cli::print_version(std::cout);
    return lb::cli::check_stdout(lb::cli::exit_ok);
  }
  if (!action) {
    std::cerr << app.help();
    return lb::cli::exit_usage;
  }
  try {
    return lb::cli::check_stdout(action());
  } catch (const std::exception& e) {
    std::cerr << "layerbench: " << e.what() << "\n";
    return lb::cli::exit_failed;
  }
}
