#include "harness/doctor/versions.hpp"

#include <algorithm>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace lb::doctor {

int cuda_major(int cuda_version) { return cuda_version / 1000; }

std::string cuda_version_text(int cuda_version) {
  if (cuda_version <= 0) return "unknown";
  return std::to_string(cuda_version / 1000) + "." + std::to_string(cuda_version % 1000 / 10);
}

int parse_cuda_version(const std::string& text) {
  const auto parts = dotted(text);
  // 1000 x major + 10 x minor is unambiguous for minors up to 99 and must fit an int.
  constexpr int max_major = (std::numeric_limits<int>::max() - 990) / 1000;
  if (parts.size() != 2 || parts[0] > max_major || parts[1] > 99)
    throw std::invalid_argument("not a CUDA version (major.minor): " + text);
  return parts[0] * 1000 + parts[1] * 10;
}

LibraryVersion decode_cudnn_version(int version) {
  if (version >= 90000) return {version / 10000, version % 10000 / 100, version % 100};
  return {version / 1000, version % 1000 / 100, version % 100};
}

LibraryVersion decode_cublas_version(int version) {
  if (version >= 120000) return {version / 10000, version % 10000 / 100, version % 100};
  return {version / 1000, version % 1000 / 100, version % 100};
}

std::string text(const LibraryVersion& v) {
  return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch);
}

std::string compiled_and_loaded(const std::string& compiled, const std::string& loaded) {
  return "compiled " + compiled + ", loaded " + loaded;
}

std::vector<int> dotted(const std::string& text) {
  std::vector<int> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = std::min(text.find('.', start), text.size());
    const std::string_view part = std::string_view(text).substr(start, end - start);
    // At most 9 digits: every part fits an int.
    if (part.empty() || part.size() > 9 ||
        !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
      throw std::invalid_argument("not a dotted version number: \"" + text + "\"");
    parts.push_back(std::stoi(std::string(part)));
    if (end == text.size()) return parts;
    start = end + 1;
  }
}

bool is_dotted_version(const std::string& text, std::size_t min_parts, std::size_t max_parts) {
  try {
    const auto parts = dotted(text);
    return parts.size() >= min_parts && parts.size() <= max_parts;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

bool version_at_least(const std::string& have, const std::string& need) {
  return !(dotted(have) < dotted(need));
}

std::string driver_version_from_module_text(const std::string& text) {
  // The first word of the first line that reads MAJOR.MINOR or MAJOR.MINOR.PATCH. Split by hand:
  // libstdc++'s std::regex recurses per character and overflows the stack on a long line.
  const std::string first_line = text.substr(0, text.find('\n'));
  std::istringstream words(first_line);
  std::string word;
  while (words >> word)
    if (is_dotted_version(word, 2, 3)) return word;
  return "";
}

}  // namespace lb::doctor
