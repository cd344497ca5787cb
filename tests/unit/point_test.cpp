#include "harness/results/results_file.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>

#include "harness/api/telemetry.hpp"
#include "harness/plan/backend_roles.hpp"
#include "tests/unit/address_space_support.hpp"

namespace lb {
namespace {

namespace fs = std::filesystem;

// Test data: a made-up point, not a measurement.
Point sample_point(const std::string& op, Status status = Status::ok) {
  Point p;
  p.model = "tiny", p.op = op, p.kind = OpKind::conv, p.layers = {op + ".a", op + ".b"},
  p.count = 2;
  p.batch = 4, p.precision = Precision::fp32, p.pass = Pass::fwd, p.device = "cpu";
  p.shape = {{"n", 4}}, p.shape_text = "N4";
  p.gflop = 1.5, p.bytes = 1000, p.intensity = 1.5e6, p.memory_bytes = 1000;
  p.backend = "onednn", p.implementation = "jit:avx2", p.notes = {{"k", "v"}};
  p.status = status;
  if (status == Status::ok) {
    p.cache = "cold";
    SampleStats t;
    t.samples = 7, t.median_s = 2e-3, t.min_s = 1e-3, t.max_s = 3e-3, t.mean_s = 2e-3;
    t.stddev_s = 1e-4, t.noise = 0.01, t.stopped_by = "noise";
    p.timing = t;
    p.tflops = 0.75, p.gbps = 0.5;
    p.validation = Validation{1e-6, 1e-5, 1e-4, 4096, 100000, true};
  } else {
    p.reason = "because";
  }
  return p;
}

class ResultsFileTest : public ::testing::Test {
 protected:
  fs::path dir =
      fs::temp_directory_path() /
      ("lb_results_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
       ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::path file = dir / "r.json";
  void SetUp() override { fs::remove_all(dir); }
  void TearDown() override { fs::remove_all(dir); }
};

// A point as the results file's points[0] holds it.
Point read_point(const nlohmann::json& j) { return point_from_json({j, "r.json", "points[0]"}); }

TEST(Results, PointRoundTripsThroughJson) {
  for (Status s : {Status::ok, Status::unsupported}) {
    const Point p = sample_point("c1", s);
    const Point q = read_point(to_json(p));
    EXPECT_EQ(to_json(q), to_json(p));
  }
  EXPECT_TRUE(to_json(sample_point("c1", Status::oom))["timing"].is_null());
}

TEST(Results, RoundsRoundTripAndAreOptional) {
  Point p = sample_point("c1");
  p.timing->round_medians_s = {2.5e-3, 2e-3};
  p.timing->round_contended = {true, false};
  p.timing->best_round = 1;
  p.timing->round_spread = 0.25;
  p.timing->unstable = true;
  p.timing->uncertainty = 0.25;
  const auto j = to_json(p);
  EXPECT_EQ(j.at("timing").at("rounds"), 2);
  EXPECT_EQ(j.at("timing").at("unstable"), true);
  EXPECT_EQ(j.at("timing").at("best_round"), 2);  // 1-based in the file
  EXPECT_EQ(to_json(read_point(j)), j);
  auto old = to_json(sample_point("c1"));  // a file from before rounds
  EXPECT_FALSE(old.at("timing").contains("rounds"));
  EXPECT_TRUE(read_point(old).timing->round_medians_s.empty());
  auto before_judged = j;  // a file from before extra rounds: not unstable, the larger figure
  before_judged["timing"].erase("unstable");
  before_judged["timing"].erase("uncertainty");
  before_judged["timing"]["noise"] = 0.5;
  EXPECT_FALSE(read_point(before_judged).timing->unstable);
  EXPECT_DOUBLE_EQ(read_point(before_judged).timing->uncertainty, 0.5);
  auto bad = j;
  bad["timing"]["round_medians_ms"] = {2.5};
  EXPECT_THROW(read_point(bad), FieldError);
}

TEST(Results, EachRoundsCanaryUnitsRoundTripAndTheMemoryOneIsOptional) {
  Point p = sample_point("c1");
  p.timing->round_medians_s = {2.5e-3, 2e-3};
  p.timing->round_contended = {false, false};
  p.timing->round_canary_slowdowns = {1.0, 1.5};
  p.timing->round_canary_memory_slowdowns = {1.1, 2.0};
  const auto j = to_json(p);
  EXPECT_EQ(j.at("timing").at("round_canary_memory_slowdowns"), nlohmann::json({1.1, 2.0}));
  EXPECT_EQ(to_json(read_point(j)), j);
  auto before_memory = j;  // a file from before each round's memory unit was written
  before_memory["timing"].erase("round_canary_memory_slowdowns");
  const Point old = read_point(before_memory);
  EXPECT_EQ(old.timing->round_canary_slowdowns, (std::vector<double>{1.0, 1.5}));
  EXPECT_TRUE(old.timing->round_canary_memory_slowdowns.empty());
  auto short_list = j;
  short_list["timing"]["round_canary_memory_slowdowns"] = {1.1};
  EXPECT_THROW(read_point(short_list), FieldError);
}

TEST(Results, TelemetryRoundTripsWithItsPerJouleFigures) {
  Point p = sample_point("c1");
  p.device = "gpu:0", p.backend = "cudnn";
  DeviceTelemetry t;  // test data: made-up readings
  t.source = "nvml", t.samples = 7;
  t.sm_clock_min_mhz = 1410, t.sm_clock_median_mhz = 1755, t.power_median_w = 500;
  t.energy_j = 4, t.energy_method = "energy_counter", t.window_s = 0.02;
  t.clock_event_reasons = {"sw_power_cap"}, t.throttled_samples = 3;
  t.absent = {{"memory_clock", "nvmlDeviceGetClockInfo(NVML_CLOCK_MEM): Not Supported"}};
  p.telemetry = t;
  const auto j = to_json(p);
  const auto& tj = j.at("telemetry");
  // 4 J over 0.02 s of windows is 200 W; one 2 ms run is 0.4 J; 1.5 GFLOP / 0.4 J.
  EXPECT_DOUBLE_EQ(tj.at("joules_per_run").get<double>(), 0.4);
  EXPECT_DOUBLE_EQ(tj.at("gflop_per_joule").get<double>(), 3.75);
  EXPECT_TRUE(tj.at("gb_per_joule").is_null());  // a convolution is not memory bound
  EXPECT_TRUE(tj.at("memory_clock_median_mhz").is_null());
  EXPECT_EQ(to_json(read_point(j)), j);
  p.kind = OpKind::eltwise;
  EXPECT_DOUBLE_EQ(to_json(p).at("telemetry").at("gb_per_joule").get<double>(), 1000 / 1e9 / 0.4);
  EXPECT_FALSE(to_json(sample_point("c1")).contains("telemetry"));  // CPU points have none
  auto bad = j;
  bad["telemetry"]["throttled"] = "yes";
  EXPECT_THROW(read_point(bad), FieldError);
}

// A point is throttled when any sample it kept was, not only when --discard-throttled gave up.
TEST(Results, ThrottledWheneverKeptSamplesWere) {
  DeviceTelemetry t;  // test data
  t.throttled_samples = 5;
  record_retakes(t, 0, false);  // without --discard-throttled: all 5 kept
  EXPECT_TRUE(t.throttled);
  record_retakes(t, 5, false);  // all re-taken
  EXPECT_FALSE(t.throttled);
  EXPECT_EQ(t.retaken_samples, 5);
  record_retakes(t, 4, false);
  EXPECT_TRUE(t.throttled);
  t.throttled_samples = 0;
  record_retakes(t, 0, true);  // the sampler gave up
  EXPECT_TRUE(t.throttled);
  record_retakes(t, 0, false);
  EXPECT_FALSE(t.throttled);
}

TEST_F(ResultsFileTest, ALaterRecordOfAPointReplacesTheEarlierOne) {
  Point second = sample_point("a");
  second.timing->median_s = 1e-3;
  {
    ResultsWriter w(file, {{"host", "h"}}, {{"suite", "quick"}}, false);
    w.append(sample_point("a"));
    w.append(sample_point("b"));
    w.append(second);  // a's next round: journaled, the file not rewritten yet (within a second)
    ASSERT_EQ(w.points().size(), 2u);
    EXPECT_EQ(w.points()[0].timing->median_s, 1e-3);
    // Destroyed without finish(): as if killed.
  }
  const LoadedResults r = load_results(file);
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_EQ(r.points[0].op, "a");
  EXPECT_EQ(r.points[0].timing->median_s, 1e-3);
}

// The roles come from the backends' descriptors, not from names: "testdev" is TEST DATA, a
// backend that exists only here, declared primary with two libraries of its own.
TEST(Results, KeyAndMeasuredByFollowTheInstalledBackendRoles) {
  const std::vector<BackendRole> before = backend_roles();
  set_backend_roles({{"testdev", true, {"testlib_a", "testlib_b"}}, {"onednn", false, {"onednn"}}});
  EXPECT_EQ(keyed_device("tst:0", "testlib_b"), "tst:0");
  EXPECT_EQ(keyed_device("tst:0", "testdev"), "tst:0");
  EXPECT_EQ(keyed_device("cpu", "onednn"), "cpu@onednn");
  EXPECT_EQ(keyed_device("cpu", ""), "cpu");
  EXPECT_TRUE(measured_by("testlib_a", "testdev"));
  EXPECT_FALSE(measured_by("testdev", "testdev"));
  EXPECT_FALSE(measured_by("cudnn", "cuda"));  // no role: its own name only
  EXPECT_TRUE(measured_by("cuda", "cuda"));
  set_backend_roles(before);
  EXPECT_EQ(keyed_device("cpu", "onednn"), "cpu");
}

TEST(Results, KeyNamesTheBackendOnlyWhenItIsNotTheDevicesOriginalOne) {
  for (const char* original : {"", "onednn", "cuda", "cudnn", "cublaslt"})
    EXPECT_EQ(keyed_device("gpu:1", original), "gpu:1") << original;
  EXPECT_EQ(keyed_device("cpu", "openblas"), "cpu@openblas");
  Point p = sample_point("c1");
  p.device = "cpu";
  p.backend = "onednn";
  const std::string original_key = p.key();
  EXPECT_EQ(original_key.substr(original_key.size() - 4), "/cpu");  // as older files have it
  p.backend = "openblas";
  EXPECT_EQ(p.key(), original_key + "@openblas");
  EXPECT_EQ(read_point(to_json(p)).key(), p.key());
}

TEST(Results, KindPrecisionAndPassAreWrittenByTheirNames) {
  Point p = sample_point("c1");
  p.kind = OpKind::layer_norm, p.precision = Precision::bf16, p.pass = Pass::bwd_data;
  const auto j = to_json(p);
  EXPECT_EQ(j.at("kind"), "layer_norm");
  EXPECT_EQ(j.at("precision"), "bf16");
  EXPECT_EQ(j.at("pass"), "bwd_data");
  const Point back = read_point(j);
  EXPECT_EQ(back.kind, OpKind::layer_norm);
  EXPECT_EQ(back.precision, Precision::bf16);
  EXPECT_EQ(back.pass, Pass::bwd_data);
}

TEST(Results, MissingFieldIsNamed) {
  auto j = to_json(sample_point("c1"));
  j.erase("batch");
  try {
    read_point(j);
    FAIL();
  } catch (const FieldError& e) {
    EXPECT_STREQ(e.what(), "r.json: points[0].batch: missing");
  }
}

TEST_F(ResultsFileTest, KilledRunLeavesLoadableIncompleteFileWithEveryJournaledPoint) {
  {
    ResultsWriter w(file, {{"host", "h"}}, {{"suite", "quick"}}, false);
    w.append(sample_point("a"));
    w.append(sample_point("b"));  // within a second: only journaled, file not yet rewritten
    // Destroyed without finish(): as if killed.
  }
  // A kill in the middle of a journal line leaves half a line: it must be ignored.
  std::ofstream(journal_path(file), std::ios::app) << "{\"point\": {\"model\": \"tin";
  const LoadedResults r = load_results(file);
  EXPECT_EQ(r.document["status"], "incomplete");
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_EQ(r.points[1].op, "b");
  EXPECT_GE(r.recovered_from_journal, 1);
}

TEST_F(ResultsFileTest, FinishWritesCompleteFileAndRemovesJournal) {
  ResultsWriter w(file, {{"host", "h"}}, {{"suite", "quick"}}, false);
  w.append(sample_point("a"));
  w.finish("complete", nlohmann::json::array({{{"model", "tiny"}}}), nlohmann::json::array());
  EXPECT_FALSE(fs::exists(journal_path(file)));
  const LoadedResults r = load_results(file);
  EXPECT_EQ(r.document["status"], "complete");
  EXPECT_EQ(r.document["models"][0]["model"], "tiny");
  EXPECT_FALSE(r.document["context"]["end_time"].is_null());
}

#ifdef LB_CAN_LIMIT_ADDRESS_SPACE
// In a child: a writer holds a point whose reason is 64 MiB, then only 32 MiB of address space is
// left, too little for the file's text. Exits 0 when finish() throws OutputError naming the file
// and the cause, and leaves no .tmp beside it.
[[noreturn]] void finish_without_room_for_the_text(const fs::path& file) {
  ResultsWriter w(file, {{"host", "h"}}, {{"suite", "quick"}}, false);
  Point p = sample_point("a", Status::failed);
  p.reason = std::string(std::size_t{64} << 20, 'x');
  w.append(p);
  if (!limit_address_space_to_in_use_plus(std::size_t{32} << 20)) std::_Exit(2);
  try {
    w.finish("complete", nlohmann::json::array(), nlohmann::json::array());
  } catch (const OutputError& e) {
    const std::string expected = file.string() + ": not written: the host's memory ran out";
    if (std::string(e.what()).rfind(expected, 0) != 0) std::_Exit(3);
    std::_Exit(fs::exists(file.string() + ".tmp") ? 4 : 0);
  }
  std::_Exit(1);
}
#endif

TEST_F(ResultsFileTest, AHostOutOfMemoryForTheTextIsAWriteErrorAndLeavesNoTmp) {
#ifndef LB_CAN_LIMIT_ADDRESS_SPACE
  GTEST_SKIP() << "needs Linux's RLIMIT_AS, which sanitizer builds cannot run under";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(finish_without_room_for_the_text(file), testing::ExitedWithCode(0), "");
#endif
}

TEST_F(ResultsFileTest, RefusesToOverwriteUnlessForced) {
  { ResultsWriter w(file, {}, {}, false); }
  EXPECT_THROW(ResultsWriter(file, {}, {}, false), ResultsError);
  EXPECT_NO_THROW(ResultsWriter(file, {}, {}, true));
}

TEST_F(ResultsFileTest, ResumeKeepsPointsAndAppends) {
  {
    ResultsWriter w(file, {{"host", "h"}}, {{"suite", "quick"}}, false);
    w.append(sample_point("a"));
  }
  {
    ResultsWriter w(file, load_results(file));
    EXPECT_EQ(w.points().size(), 1u);
    w.append(sample_point("b"));
    w.finish("complete", nlohmann::json::array(), nlohmann::json::array());
  }
  const LoadedResults r = load_results(file);
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_EQ(r.document["settings"]["suite"], "quick");
}

TEST_F(ResultsFileTest, BadFilesAreNamed) {
  fs::create_directories(dir);
  const auto expect_error = [&](const std::string& content, const std::string& needle) {
    std::ofstream(file, std::ios::trunc) << content;
    try {
      load_results(file);
      FAIL() << content;
    } catch (const ResultsError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(file.string()), std::string::npos) << what;
      EXPECT_NE(what.find(needle), std::string::npos) << what;
    }
  };
  expect_error("{\"schema\": \"layerbench-results/1\", \"poi", "not valid JSON");
  expect_error("{\"points\": []}", "no \"schema\"");
  expect_error("{\"schema\": \"layerbench-results/9\"}", "unknown schema");
  EXPECT_THROW(load_results(dir / "missing.json"), ResultsError);
}

TEST_F(ResultsFileTest, DamagedPointsAreRefusedNamingTheirIndexAndField) {
  const auto expect_refused = [&](const std::function<void(nlohmann::json&)>& damage,
                                  const std::string& needle) {
    nlohmann::json doc = {{"schema", results_schema},
                          {"status", "incomplete"},
                          {"context", nlohmann::json::object()},
                          {"settings", nlohmann::json::object()},
                          {"points", {to_json(sample_point("a")), to_json(sample_point("b"))}}};
    damage(doc);
    fs::create_directories(dir);
    std::ofstream(file, std::ios::trunc) << doc.dump();
    try {
      load_results(file);
      FAIL() << needle;
    } catch (const ResultsError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_refused([](auto& d) { d["points"][1] = d["points"][0]; }, "points[1]: point tiny/a");
  expect_refused([](auto& d) { d["points"][1]["timing"]["median_ms"] = -1.0; },
                 "r.json: points[1].timing.median_ms: must be a positive number, is -1.0");
  expect_refused([](auto& d) { d["points"][0]["timing"]["median_ms"] = nullptr; },
                 "r.json: points[0].timing.median_ms: must be a positive number, is null");
  expect_refused([](auto& d) { d["points"][0]["batch"] = 0; },
                 "r.json: points[0].batch: must be a positive integer, is 0");
  expect_refused(
      [](auto& d) { d["points"][0]["kind"] = "dropout"; },
      "r.json: points[0].kind: must be one of conv, linear, bmm, batch_norm, layer_norm, "
      "eltwise, binary, pool, softmax, is \"dropout\"");
  expect_refused([](auto& d) { d["points"][0]["kind"] = ""; },
                 "r.json: points[0].kind: must be one of conv, linear, bmm, batch_norm, "
                 "layer_norm, eltwise, binary, pool, softmax, is \"\"");
  expect_refused(
      [](auto& d) { d["points"][1]["precision"] = "fp64"; },
      "r.json: points[1].precision: must be one of fp32, tf32, fp16, bf16, fp8, is \"fp64\"");
  expect_refused([](auto& d) { d["points"][0]["pass"] = "backward"; },
                 "r.json: points[0].pass: must be one of fwd, fwd_training, bwd_data, bwd_weights, "
                 "is \"backward\"");
  expect_refused([](auto& d) { d["points"][0]["validation"] = nullptr; },
                 "r.json: points[0].status: \"ok\" without timing and validation");
  expect_refused([](auto& d) { d.erase("settings"); }, "\"settings\" is missing");
}

TEST_F(ResultsFileTest, SecondWriterOfOneFileIsRefusedWithTheFirstOnesPid) {
  auto first = std::make_unique<ResultsWriter>(file, nlohmann::json{{"host", "h"}},
                                               nlohmann::json::object(), false);
  try {
    ResultsWriter second(file, {}, {}, /*force=*/true);
    FAIL() << "a second writer of one file was allowed";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find("pid " + std::to_string(::getpid())), std::string::npos)
        << e.what();
  }
  first.reset();  // the lock ends with its writer
  EXPECT_NO_THROW(ResultsWriter(file, {}, {}, true));
}

TEST_F(ResultsFileTest, OnlyARegularFileIsReplaced) {
  EXPECT_THROW(ResultsWriter("/dev/null", {}, {}, /*force=*/true), ResultsError);
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  fs::create_directories(dir / "folder");
  EXPECT_THROW(ResultsWriter(dir / "folder", {}, {}, true), ResultsError);
  EXPECT_THROW(load_results(dir), ResultsError);
}

}  // namespace
}  // namespace lb
