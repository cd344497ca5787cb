// The run command's pure pieces: the comma-list splitter, the settings table (written, adopted on
// --resume, compared with flags given again), their typed parse naming a flag or a file's
// field, and the check of the flags passed on to Google Benchmark.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "bench/run_settings.hpp"
#include "harness/measure/benchmark_flags.hpp"
#include "harness/util/comma_list.hpp"
#include "harness/util/input_error.hpp"

namespace lb::cli {
namespace {

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "<no error>";
}

bool never_given(const std::string&) { return false; }

TEST(CommaList, SplitsTrimsAndRefusesEmptyItemsNamingTheLabel) {
  EXPECT_EQ(split_comma_list(" a , b,c", "--x"), (std::vector<std::string_view>{"a", "b", "c"}));
  EXPECT_EQ(error_of([] { split_comma_list("a,,b", "--x"); }), "--x: empty item in 'a,,b'");
  EXPECT_EQ(error_of([] { split_comma_list("a,", "settings.y"); }),
            "settings.y: empty item in 'a,'");
  EXPECT_EQ(error_of([] { split_comma_list("", "--x"); }), "--x: empty item in ''");
}

TEST(RunSettings, ParsedOnceIntoTypedValues) {
  RunOptions o = default_run_options();
  o.batches = "8,1,8";
  o.precisions = "fp32,bf16";
  o.pass = "train";
  o.device = "cpu";
  o.algo = "heuristic";
  o.warm = true;
  o.memory_limit_gb = 2;
  o.seed = 7;
  const RunSetup setup = parse_settings(o, SettingsSource::flags);
  EXPECT_EQ(setup.request.batches, (std::vector<int>{8, 1}));
  EXPECT_EQ(setup.request.precisions, (std::vector<Precision>{Precision::fp32, Precision::bf16}));
  EXPECT_EQ(setup.request.pass, PassSet::train);
  EXPECT_TRUE(setup.devices.cpu);
  EXPECT_FALSE(setup.devices.named);
  EXPECT_FALSE(setup.devices.every_accelerator);
  EXPECT_EQ(setup.measuring.case_options.algo, AlgoChoice::heuristic);
  EXPECT_EQ(setup.measuring.case_options.cache, CacheMode::warm);
  EXPECT_EQ(setup.measuring.case_options.memory_limit_bytes, 2ull << 30);
  EXPECT_EQ(setup.measuring.seed, 7u);
}

TEST(RunSettings, ABadValueNamesTheFlagOrTheFilesField) {
  RunOptions o = default_run_options();
  o.batches = "1,abc";
  EXPECT_EQ(error_of([&] { parse_settings(o, SettingsSource::flags); }),
            "--batch: 'abc' is not a positive integer");
  EXPECT_EQ(error_of([&] { parse_settings(o, SettingsSource::resumed_file); }),
            "settings.batches (--batch): 'abc' is not a positive integer");
  o = default_run_options();
  o.pass = "backward";
  EXPECT_EQ(error_of([&] { parse_settings(o, SettingsSource::resumed_file); }),
            "settings.pass (--pass): 'backward' is not fwd or train");
  o = default_run_options();
  o.noise_target = 2;
  EXPECT_NE(error_of([&] { parse_settings(o, SettingsSource::flags); }).find("--noise-target 2"),
            std::string::npos);
  o = default_run_options();
  o.device = "tpu";
  EXPECT_EQ(error_of([&] { parse_settings(o, SettingsSource::resumed_file); }),
            "settings.device (--device): 'tpu' is not cpu, gpu, gpu:N, all or auto");
}

TEST(RunSettings, BackendsThatServeNoDeviceAskedForAreNamedWithTheDevice) {
  RunOptions o = default_run_options();
  o.device = "gpu";
  o.backends = "onednn";
  const std::string flags = error_of([&] { parse_settings(o, SettingsSource::flags); });
  EXPECT_EQ(flags.rfind("--backend onednn: runs on the CPU only, and --device gpu asks for a GPU "
                        "alone, so there is nothing to measure; ",
                        0),
            0u)
      << flags;
  const std::string file = error_of([&] { parse_settings(o, SettingsSource::resumed_file); });
  EXPECT_EQ(file.rfind("settings.backends (--backend) onednn: runs on the CPU only, and "
                       "settings.device (--device) gpu asks for a GPU alone",
                       0),
            0u)
      << file;
  o.device = "auto";
  EXPECT_EQ(error_of([&] { parse_settings(o, SettingsSource::flags); }), "<no error>");
}

TEST(RunSettings, AResumedFilesSettingsAreTheRunsAndFlagsGivenAgainMustAgree) {
  RunOptions recorded = default_run_options();
  recorded.batches = "2";
  recorded.seed = 9;
  const nlohmann::json file = settings_json(recorded);
  EXPECT_EQ(file.at("batches"), "2");
  EXPECT_EQ(file.at("seed"), 9);
  EXPECT_EQ(file.at("cache"), "cold");

  const RunOptions adopted = adopt_settings(file, default_run_options(), never_given);
  EXPECT_EQ(settings_json(adopted), file);

  RunOptions asked = default_run_options();
  asked.batches = "8";
  EXPECT_EQ(error_of([&] {
              adopt_settings(file, asked, [](const std::string& f) { return f == "--batch"; });
            }),
            "--batch \"8\" differs from the run being resumed (\"2\")");
  nlohmann::json missing = file;
  missing.erase("seed");
  EXPECT_EQ(error_of([&] { adopt_settings(missing, asked, never_given); }),
            "settings.seed: missing");
  nlohmann::json mistyped = file;
  mistyped["threads"] = "many";
  EXPECT_EQ(error_of([&] { adopt_settings(mistyped, asked, never_given); }),
            "settings.threads: must be an integer, is \"many\"");
}

// Every number is range-checked on the JSON value, before any conversion: nlohmann's own is a
// plain cast, which wraps -1 into 2^64-1 and is undefined for 1e30.
TEST(RunSettings, AResumedFilesValuesAreCheckedBeforeConversion) {
  const nlohmann::json file = settings_json(default_run_options());
  const auto adopted_with = [&](const char* key, nlohmann::json value) {
    nlohmann::json edited = file;
    edited[key] = std::move(value);
    return error_of([&] { adopt_settings(edited, default_run_options(), never_given); });
  };
  EXPECT_EQ(adopted_with("seed", -1), "settings.seed: must be a non-negative integer, is -1");
  EXPECT_EQ(adopted_with("seed", 1e30), "settings.seed: must be a non-negative integer, is 1e+30");
  EXPECT_EQ(adopted_with("seed", 4.0), "settings.seed: must be a non-negative integer, is 4.0");
  EXPECT_EQ(adopted_with("threads", 1e30), "settings.threads: must be an integer, is 1e+30");
  EXPECT_EQ(adopted_with("threads", 3000000000u),
            "settings.threads: must be at most 2147483647, is 3000000000");
  EXPECT_EQ(adopted_with("noise_target", "0.01"),
            "settings.noise_target: must be a finite number, is \"0.01\"");
  EXPECT_EQ(adopted_with("cache", "bogus"),
            "settings.cache: must be \"cold\" or \"warm\", is \"bogus\"");
  EXPECT_EQ(adopted_with("models", nlohmann::json::array({"tiny", 3})),
            "settings.models[1]: must be a string, is 3");
  EXPECT_EQ(adopted_with("seed", nlohmann::json(18446744073709551615ull)), "<no error>");
  EXPECT_EQ(error_of([&] {
              adopt_settings(nlohmann::json::array(), default_run_options(), never_given);
            }),
            "settings: must be an object, is []");
}

TEST(RunSettings, AResumedFilesSettingsInRangeAndAmongTheirChoices) {
  RunOptions o = default_run_options();
  o.suite = "bogus";
  EXPECT_EQ(error_of([&] { parse_settings(o, SettingsSource::resumed_file); }),
            "settings.suite (--suite) \"bogus\": not one of quick, standard, full");
  o = default_run_options();
  o.min_time_per_point = 1e30;
  EXPECT_EQ(error_of([&] { parse_settings(o, SettingsSource::resumed_file); }),
            "settings.min_time_per_point_s 1e+30: not a number of seconds in [0, 3600]");
  o = default_run_options();
  o.models = {"tiny", "nosuch"};
  Model tiny;
  tiny.name = "tiny";
  EXPECT_EQ(error_of([&] { check_resumed_models(o, {tiny}); }),
            "settings.models (--model): no model \"nosuch\" in the model files there are now "
            "(tiny)");
}

// A file from before --cpu-roofs measured its roofs; a value other than measure or skip is
// refused naming the field.
TEST(RunSettings, CpuRoofsAreMeasuredOrSkippedAndAnOldFileMeasuredThem) {
  RunOptions skipping = default_run_options();
  skipping.cpu_roofs = "skip";
  const nlohmann::json file = settings_json(skipping);
  EXPECT_EQ(file.at("cpu_roofs"), "skip");
  EXPECT_EQ(adopt_settings(file, default_run_options(), never_given).cpu_roofs, "skip");
  nlohmann::json old_file = file;
  old_file.erase("cpu_roofs");
  EXPECT_EQ(adopt_settings(old_file, default_run_options(), never_given).cpu_roofs, "measure");
  RunOptions o = default_run_options();
  o.cpu_roofs = "maybe";
  EXPECT_EQ(error_of([&] { parse_settings(o, SettingsSource::resumed_file); }),
            "settings.cpu_roofs (--cpu-roofs) \"maybe\": not one of measure, skip");
}

// --timing is the CUDA backend's option: recorded in the file's settings, a file from before it
// was timed by events, and a resumed run must not change it.
TEST(RunSettings, GpuTimingIsRecordedAndAResumedRunKeepsIt) {
  if (!LAYERBENCH_HAVE_CUDA) GTEST_SKIP() << "a build without the CUDA backend has no --timing";
  RunOptions graph = default_run_options();
  EXPECT_EQ(graph.backend_options.at("timing"), "events");  // the default
  graph.backend_options["timing"] = "graph";
  const nlohmann::json file = settings_json(graph);
  EXPECT_EQ(file.at("timing"), "graph");
  EXPECT_EQ(adopt_settings(file, default_run_options(), never_given).backend_options.at("timing"),
            "graph");
  nlohmann::json old_file = file;
  old_file.erase("timing");
  EXPECT_EQ(
      adopt_settings(old_file, default_run_options(), never_given).backend_options.at("timing"),
      "events");
  EXPECT_EQ(error_of([&] {
              adopt_settings(file, default_run_options(),
                             [](const std::string& f) { return f == "--timing"; });
            }),
            "--timing \"events\" differs from the run being resumed (\"graph\")");
  RunOptions bad = default_run_options();
  bad.backend_options["timing"] = "nvbench";
  EXPECT_EQ(error_of([&] { parse_settings(bad, SettingsSource::resumed_file); }),
            "settings.timing (--timing) \"nvbench\": not one of events, graph");
}

TEST(BenchmarkFlags, KnownFlagsWithValuesOfTheirType) {
  EXPECT_EQ(error_of([] { check_benchmark_flag("--benchmark_min_time=0.5"); }), "<no error>");
  EXPECT_EQ(error_of([] { check_benchmark_flag("--benchmark_repetitions=3"); }), "<no error>");
  EXPECT_EQ(error_of([] { check_benchmark_flag("--benchmark_out=x.json"); }), "<no error>");
  EXPECT_EQ(error_of([] { check_benchmark_flag("--benchmark_min_time=abc"); }),
            "--benchmark_min_time: 'abc' is not a number");
  EXPECT_EQ(error_of([] { check_benchmark_flag("--benchmark_repetitions=1.5"); }),
            "--benchmark_repetitions: '1.5' is not an integer");
  EXPECT_EQ(error_of([] { check_benchmark_flag("--benchmark_frob=1"); }),
            "--benchmark_frob=1: not a flag of Google Benchmark, which `run` passes on");
}

}  // namespace
}  // namespace lb::cli
