#pragma once
// What the programs that set the harness against a bare loop share: one call timed with the
// steady clock, as a bare loop times it, and their --threads flag.
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace lb::bench {

// Seconds one call of `call` takes on the steady clock.
template <class Call>
double steady_seconds(Call&& call) {
  const auto start = std::chrono::steady_clock::now();
  call();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The value of --threads: a count from 0 (every logical processor) to 4096; anything else ends
// the program with exit 2, naming it, the flag and the text.
inline int threads_value(std::string_view program, std::string_view text) {
  int threads = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), threads);
  if (error != std::errc() || end != text.data() + text.size() || threads < 0 || threads > 4096) {
    std::fprintf(stderr, "%.*s: --threads: '%.*s' is not a thread count (0 to 4096)\n",
                 static_cast<int>(program.size()), program.data(), static_cast<int>(text.size()),
                 text.data());
    std::exit(2);
  }
  return threads;
}

// A program whose only flag is --threads N: N, `default_threads` without it; exit 2 on anything
// else, naming the program and the argument.
inline int threads_flag(int argc, char** argv, std::string_view program, int default_threads) {
  int threads = default_threads;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc) {
      threads = threads_value(program, argv[++i]);
    } else {
      std::fprintf(stderr, "%.*s: unknown argument '%s' (usage: [--threads N])\n",
                   static_cast<int>(program.size()), program.data(), arg.c_str());
      std::exit(2);
    }
  }
  return threads;
}

}  // namespace lb::bench
