#include "harness/plan/suites.hpp"

#include <algorithm>

namespace lb {

namespace {

std::vector<int> powers_of_two_up_to(int max) {
  std::vector<int> batches;
  for (int b = 1; b <= max; b *= 2) batches.push_back(b);
  return batches;
}

}  // namespace

// Why these models, batches and sampling times: docs/measuring.md, "Suites". `full` stops at
// batch 4096, where every shipped model has a tensor past 32-bit indexing (plan_test).
const std::vector<Suite>& suites() {
  static const std::vector<Suite> all = {
      {.name = "quick",
       .models = {"resnet50", "vit_b_16"},
       .pass_sets = {PassSet::fwd},
       .cpu_batches = {1, 8},
       .gpu_batches = {1, 8},
       .sweep_until_oom = false,
       .sampling = {.rounds = 2, .max_time_s = 0.05, .min_time_s = 0.02, .warmup_min_s = 0.02}},
      {.name = "standard",
       .models = {},
       .pass_sets = {PassSet::fwd, PassSet::train},
       .cpu_batches = powers_of_two_up_to(8),
       .gpu_batches = powers_of_two_up_to(64),
       .sweep_until_oom = false,
       .sampling = {.rounds = 2, .max_time_s = 1.0, .min_time_s = 0.1, .warmup_min_s = 0.05}},
      {.name = "full",
       .models = {},
       .pass_sets = {PassSet::fwd, PassSet::train},
       .cpu_batches = powers_of_two_up_to(8),
       .gpu_batches = powers_of_two_up_to(4096),
       .sweep_until_oom = true,
       .sampling = {.rounds = 2, .max_time_s = 1.0, .min_time_s = 0.1, .warmup_min_s = 0.05}},
  };
  return all;
}

const Suite& default_suite() { return suites().front(); }

const Suite* find_suite(std::string_view name) {
  const auto& all = suites();
  const auto it =
      std::find_if(all.begin(), all.end(), [&](const Suite& s) { return s.name == name; });
  return it == all.end() ? nullptr : &*it;
}

const Suite& suite_named(std::string_view name) {
  if (const Suite* suite = find_suite(name)) return *suite;
  throw std::invalid_argument("--suite: unknown suite '" + std::string(name) +
                              "'; known: " + suite_names_text());
}

std::vector<std::string> suite_names() {
  std::vector<std::string> names;
  for (const Suite& s : suites()) names.push_back(s.name);
  return names;
}

std::string suite_names_text() {
  std::string text;
  for (const Suite& s : suites()) text += (text.empty() ? "" : ", ") + s.name;
  return text;
}

}  // namespace lb
