#include "bench/version.hpp"

#include "build_info.hpp"

namespace lb::cli {
void print_version(std::ostream& out) {
  out << "layerbench " << build::version << " (" << build::git_revision << ")\n";
}
}  // namespace lb::cli
