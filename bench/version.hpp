#pragma once
#include <ostream>

namespace lb::cli {
// layerbench's version and revision, and every library's version (compiled and loaded).
void print_version(std::ostream& out);
}  // namespace lb::cli
