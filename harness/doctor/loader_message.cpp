#include "harness/doctor/loader_message.hpp"

namespace lb::doctor {

std::string file_in_loader_message(const std::string& message) {
  const auto end = message.find(": ");
  if (message.empty() || message.front() != '/' || end == std::string::npos) return "";
  return message.substr(0, end);
}

std::string undefined_symbol_in_loader_message(const std::string& message) {
  const std::string marker = "undefined symbol: ";
  const auto at = message.find(marker);
  if (at == std::string::npos) return "";
  const auto begin = at + marker.size();
  const auto end = message.find_first_of(" ,(\t\n", begin);
  return message.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

}  // namespace lb::doctor
