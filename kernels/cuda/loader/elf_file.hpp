#pragma once
// A shared library file cut short (a half-copied or half-downloaded toolkit) checked before the
// loader opens it: glibc maps the segments the headers promise without checking that the file
// holds them, and the process dies of SIGBUS on the first page past the end.
#include <string>

namespace lb::cuda {

// Why the 64-bit ELF file at `path` is truncated: "<path>: truncated: ...", naming where its
// program headers or a loadable segment end and the file's size. Empty when they fit, and for
// anything else (unreadable, too short for an ELF header, not ELF, 32-bit, another machine's): the
// loader's own message says what is wrong with those without crashing.
std::string elf_truncation(const std::string& path);

}  // namespace lb::cuda
