#include "kernels/cuda/loader/elf_file.hpp"

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <fstream>

namespace lb::cuda {
namespace {

// The loader passes over a library built for another machine and searches on.
#if defined(__x86_64__)
constexpr std::uint16_t native_machine = EM_X86_64;
#elif defined(__aarch64__)
constexpr std::uint16_t native_machine = EM_AARCH64;
#else
constexpr std::uint16_t native_machine = EM_NONE;
#endif

}  // namespace

std::string elf_truncation(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const auto size = static_cast<std::uint64_t>(in.tellg());
  Elf64_Ehdr header{};
  if (size < sizeof header || !in.seekg(0).read(reinterpret_cast<char*>(&header), sizeof header))
    return "";
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_machine != native_machine || header.e_phentsize != sizeof(Elf64_Phdr))
    return "";
  const auto tell = [&](const std::string& what, std::uint64_t end) {
    return path + ": truncated: " + what + " end at byte " + std::to_string(end) +
           ", the file has " + std::to_string(size) + " bytes";
  };
  const std::uint64_t headers_end =
      header.e_phoff + std::uint64_t{header.e_phnum} * sizeof(Elf64_Phdr);
  if (headers_end > size) return tell("its program headers", headers_end);
  in.seekg(static_cast<std::streamoff>(header.e_phoff));
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    if (!in.read(reinterpret_cast<char*>(&segment), sizeof segment)) return "";
    if (segment.p_type != PT_LOAD) continue;
    const std::uint64_t end = segment.p_offset + segment.p_filesz;
    if (end > size) return tell("its loadable segment " + std::to_string(i) + " would", end);
  }
  return "";
}

}  // namespace lb::cuda
