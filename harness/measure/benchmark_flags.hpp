#pragma once
// The --benchmark_* flags `run` passes on to Google Benchmark (harness/measure/run_loop.hpp),
// checked before anything is measured: Google Benchmark itself only warns about a value it
// cannot read and ignores a flag it does not know, which would end in a "complete" file
// measured with other settings than the ones asked for.
#include <string>
#include <vector>

#include "harness/plan/plan.hpp"

namespace lb {

// Throws InputError naming the argument unless it is a flag of Google Benchmark 1.7 with a value
// of its type (a number for --benchmark_min_time and the like).
void check_benchmark_flag(const std::string& argument);

// The plan's points the run measures: --benchmark_filter takes a regular expression (a leading
// '-' negates it) and Google Benchmark runs the points whose names it matches, the last such flag
// counting; without one, every point. A pattern that does not compile, or matches none of the
// plan's points, is an InputError. `run` and `run --dry-run` both count what this returns.
Plan filter_plan(const std::vector<std::string>& benchmark_args, const Plan& plan);

}  // namespace lb
