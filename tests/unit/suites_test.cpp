// The suite table (harness/plan/suites.hpp): its rows are usable as they stand, names are found
// or refused naming the suites there are, and the run's settings take each suite's sampling.
#include "harness/plan/suites.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "bench/run_settings.hpp"
#include "harness/model/model_file.hpp"

namespace lb {
namespace {

TEST(Suites, NamesAreUniqueAndTheFirstIsTheDefault) {
  std::set<std::string> names;
  for (const Suite& suite : suites()) EXPECT_TRUE(names.insert(suite.name).second) << suite.name;
  EXPECT_EQ(&default_suite(), &suites().front());
  EXPECT_EQ(suite_names().size(), suites().size());
  EXPECT_EQ(cli::RunOptions{}.suite, default_suite().name);
  EXPECT_EQ(RunRequest{}.suite, default_suite().name);
}

TEST(Suites, EveryRowPlansSomethingAndSamplesWithinTheRunsRanges) {
  const std::vector<Model> shipped = load_builtin_models();
  for (const Suite& suite : suites()) {
    SCOPED_TRACE(suite.name);
    for (const std::string& model : suite.models) EXPECT_NE(find_model(shipped, model), nullptr);
    EXPECT_FALSE(suite.pass_sets.empty());
    // A sweep until out of memory must meet its batches in ascending order.
    for (const auto* batches : {&suite.cpu_batches, &suite.gpu_batches}) {
      EXPECT_FALSE(batches->empty());
      EXPECT_TRUE(std::is_sorted(batches->begin(), batches->end()));
      EXPECT_GE(batches->front(), 1);
    }
    cli::RunOptions options = cli::default_run_options();
    options.suite = suite.name;
    options.max_time_per_point = suite.sampling.max_time_s;
    options.min_time_per_point = suite.sampling.min_time_s;
    const cli::RunSetup setup = cli::parse_settings(options, cli::SettingsSource::flags);
    EXPECT_EQ(setup.measuring.rounds, suite.sampling.rounds);
    EXPECT_EQ(setup.measuring.sampler.warmup_min_s, suite.sampling.warmup_min_s);
    EXPECT_LE(suite.sampling.min_time_s, suite.sampling.max_time_s);
  }
}

TEST(Suites, AnUnknownNameIsRefusedWithTheSuitesThereAre) {
  EXPECT_EQ(find_suite("huge"), nullptr);
  EXPECT_EQ(find_suite(default_suite().name), &default_suite());
  try {
    suite_named("huge");
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "--suite: unknown suite 'huge'; known: " + suite_names_text());
  }
}

}  // namespace
}  // namespace lb
