#include "harness/measure/benchmark_flags.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <regex>

#include "harness/results/point.hpp"
#include "harness/util/input_error.hpp"

namespace lb {
namespace {

enum class FlagType { text, boolean, integer, number };

// Google Benchmark 1.7's flags (benchmark.cc, BM_DEFINE_*), by name after "--benchmark_".
const std::map<std::string, FlagType>& benchmark_flags() {
  static const std::map<std::string, FlagType> flags = {
      {"list_tests", FlagType::boolean},
      {"filter", FlagType::text},
      {"min_time", FlagType::number},
      {"min_warmup_time", FlagType::number},
      {"repetitions", FlagType::integer},
      {"enable_random_interleaving", FlagType::boolean},
      {"report_aggregates_only", FlagType::boolean},
      {"display_aggregates_only", FlagType::boolean},
      {"format", FlagType::text},
      {"out_format", FlagType::text},
      {"out", FlagType::text},
      {"color", FlagType::text},
      {"counters_tabular", FlagType::boolean},
      {"perf_counters", FlagType::text},
      {"context", FlagType::text},
      {"time_unit", FlagType::text},
  };
  return flags;
}

bool reads_as(FlagType type, const std::string& value) {
  const char* first = value.data();
  const char* last = first + value.size();
  if (type == FlagType::integer) {
    std::int32_t n = 0;
    const auto [end, error] = std::from_chars(first, last, n);
    return error == std::errc() && end == last;
  }
  if (type == FlagType::number) {
    char* end = nullptr;
    const double x = std::strtod(first, &end);
    return !value.empty() && end == last && std::isfinite(x);
  }
  return true;
}

}  // namespace

void check_benchmark_flag(const std::string& argument) {
  const std::string prefix = "--benchmark_";
  const std::size_t equals = argument.find('=');
  const std::string name = argument.substr(prefix.size(), equals - prefix.size());
  const auto it = benchmark_flags().find(name);
  if (argument.rfind(prefix, 0) != 0 || it == benchmark_flags().end())
    throw InputError(argument + ": not a flag of Google Benchmark, which `run` passes on");
  if (it->second == FlagType::integer || it->second == FlagType::number) {
    const std::string value = equals == std::string::npos ? "" : argument.substr(equals + 1);
    if (!reads_as(it->second, value))
      throw InputError(prefix + name + ": '" + value + "' is not " +
                       (it->second == FlagType::integer ? "an integer" : "a number"));
  }
}

Plan filter_plan(const std::vector<std::string>& benchmark_args, const Plan& plan) {
  const std::string flag = "--benchmark_filter=";
  const auto last = std::find_if(benchmark_args.rbegin(), benchmark_args.rend(),
                                 [&](const std::string& arg) { return arg.rfind(flag, 0) == 0; });
  if (last == benchmark_args.rend()) return plan;
  const std::string given = last->substr(flag.size());
  const bool negated = !given.empty() && given[0] == '-';
  std::regex re;
  try {
    re = std::regex(negated ? given.substr(1) : given);
  } catch (const std::regex_error& e) {
    throw InputError("--benchmark_filter '" + given + "': not a regular expression (" + e.what() +
                     ")");
  }
  Plan selected = plan;
  selected.points.clear();
  for (const PlannedPoint& pp : plan.points)
    if (std::regex_search(point_key(pp), re) != negated) selected.points.push_back(pp);
  if (selected.points.empty())
    throw InputError("--benchmark_filter '" + given + "': matches none of the " +
                     std::to_string(plan.points.size()) + " planned points, so nothing would " +
                     "be measured (names like " +
                     (plan.points.empty() ? "?" : point_key(plan.points.front())) +
                     "; model/op/bB/precision/pass/device)");
  return selected;
}

}  // namespace lb
