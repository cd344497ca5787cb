#pragma once
// Bad input: a flag, a model file, a results file to resume. what() names the flag, file or
// field; the CLI prints it on one line and exits 2 (bench/commands.hpp, report_input_errors).
#include <stdexcept>

namespace lb {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace lb
