#include "harness/util/data_paths.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "harness/os/platform.hpp"

namespace lb {

std::filesystem::path data_dir() {
  std::vector<std::filesystem::path> candidates;
  if (auto env = platform::getenv_opt("LAYERBENCH_DATA_DIR"); env && !env->empty())
    candidates.emplace_back(*env);
  const auto exe_dir = platform::executable_path().parent_path();
  candidates.push_back(exe_dir / "share" / "layerbench");                // build tree
  candidates.push_back(exe_dir.parent_path() / "share" / "layerbench");  // install prefix, tests/
  std::string looked;
  for (const auto& c : candidates) {
    std::error_code ec;
    if (std::filesystem::is_directory(c / "models", ec)) return c;
    looked += (looked.empty() ? "" : ", ") + c.string();
  }
  throw std::runtime_error("layerbench's data files (models/, facts/) were not found; looked in " +
                           looked + " (set LAYERBENCH_DATA_DIR to override)");
}

}  // namespace lb
