// libFuzzer target: a results file as `run --resume FILE` loads it, with its journal. The input
// is the file; after a line "--journal--", the rest is FILE.journal (the seed corpus has both).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "harness/results/results_file.hpp"

namespace {
const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                   ("layerbench_fuzz_" + std::to_string(getpid()) + ".json");

void write(const std::filesystem::path& path, std::string_view text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(text.data(), static_cast<std::streamsize>(text.size()));
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  constexpr std::string_view separator = "\n--journal--\n";
  const auto split = input.find(separator);
  write(file, input.substr(0, split));
  const auto journal = lb::journal_path(file);
  std::filesystem::remove(journal);
  if (split != std::string_view::npos) write(journal, input.substr(split + separator.size()));
  try {
    (void)lb::load_results(file);
  } catch (const lb::ResultsError&) {
    // rejected with a message naming the file: what --resume must do with bad input
  }
  return 0;
}
