#include "harness/doctor/versions.hpp"

#include <algorithm>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace lb::doctor {

int cuda_major(int cuda_version) { return cuda_version / 1000; }

std::string cuda_version_text(int cuda_version) {
  if (cuda_version <= 0) return "unknown";
  return std::to_string(cuda_version / 1000) + "." + std::to_string(cuda_version % 1000 / 10);
}

int parse_cuda_version(const std::string& text) {
  const auto parts = dotted(text);
  if (parts.size() != 2) throw std::invalid_argument("not a CUDA version (major.minor): " + text);
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

std::vector<int> dotted(const std::string& text) {
  std::vector<int> parts;
  std::istringstream in(text);
  std::string part;
  while (std::getline(in, part, '.')) {
    if (part.empty() || part.size() > 9 ||
        !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
      throw std::invalid_argument("not a dotted version number: \"" + text + "\"");
    parts.push_back(std::stoi(part));
  }
  if (parts.empty()) throw std::invalid_argument("not a dotted version number: \"" + text + "\"");
  return parts;
}

bool version_at_least(const std::string& have, const std::string& need) {
  return !(dotted(have) < dotted(need));
}

std::string driver_version_from_module_text(const std::string& text) {
  const std::string first_line = text.substr(0, text.find('\n'));
  static const std::regex number(R"((^|\s)(\d+\.\d+(\.\d+)?)(\s|$))");
  std::smatch m;
  return std::regex_search(first_line, m, number) ? m[2].str() : "";
}

}  // namespace lb::doctor
