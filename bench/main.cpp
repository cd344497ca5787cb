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
#include "harness/measure/interrupt.hpp"
#include "harness/os/platform.hpp"
#include "harness/util/input_error.hpp"

namespace lb::cli {

// A message on one line: a value it quotes (a model name typed as $'x\ny') may hold a line
// break, which would split it for a reader of its last line (the Slurm fleet).
std::string one_line(const std::string& message) {
  std::string out;
  for (const char c : message) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else
      out.push_back(c);
  }
  return out;
}

int report_input_errors(const std::string& command, const Action& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::cerr << "layerbench " << command << ": " << one_line(e.what()) << "\n";
  } catch (const std::invalid_argument& e) {
    std::cerr << "layerbench " << command << ": " << one_line(e.what()) << "\n";
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

// CLI11's "Could not convert: --rounds = abc" as "--rounds: 'abc' is not an integer (Visits of
// every point, 1 to 100)": what the flag takes, from its type and the first clause of its help.
std::string conversion_message(const CLI::App& command, const std::string& message) {
  const std::string prefix = "Could not convert: ";
  const std::size_t equals = message.find(" = ");
  if (message.rfind(prefix, 0) != 0 || equals == std::string::npos) return message;
  const std::string flag = message.substr(prefix.size(), equals - prefix.size());
  const CLI::Option* option = command.get_option_no_throw(flag);
  if (option == nullptr) return message;
  const std::string type = option->get_type_name();
  const std::string wanted = type == "INT" || type == "UINT" ? "an integer"
                             : type == "FLOAT"               ? "a number"
                                                             : "a " + type;
  std::string help = option->get_description();
  help = help.substr(0, help.find_first_of(";("));
  help.erase(help.find_last_not_of(' ') + 1);
  return flag + ": '" + message.substr(equals + 3) + "' is not " + wanted + " (" + help + ")";
}

// A usage error as one line naming the flag, then where the flags are listed: CLI11's whole
// usage after it (about 44 lines) buries the line that says what is wrong.
int usage_error(const CLI::App& app, const CLI::Error& e) {
  const CLI::App* command = &app;
  for (const CLI::App* sub : app.get_subcommands()) command = sub;
  const std::string name = command == &app ? "layerbench" : "layerbench " + command->get_name();
  std::string message = e.what();
  if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr)
    message = conversion_message(*command, message);
  std::cerr << name << ": " << one_line(message) << " (`" << name << " --help` lists the flags)\n";
  return exit_usage;
}

}  // namespace lb::cli

int main(int argc, char** argv) {
  lb::platform::fill_closed_standard_streams();
  lb::platform::raise_open_file_limit(lb::cli::wanted_open_files);  // before any thread starts
  lb::platform::share_one_heap_under_address_limit();               // before threads allocate
  lb::interrupt::install();  // before any thread exists, so every thread inherits the mask
  lb::install_backend_roles();
  CLI::App app{"layerbench: cuDNN, cuBLASLt and oneDNN on the layers of ResNet-50 and ViT"};
  app.require_subcommand(0, 1);
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
    return lb::cli::usage_error(app, e);
  } catch (const CLI::ParseError& e) {
    return lb::cli::usage_error(app, e);
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
