// --resume's check of a results file against the plan its settings make: the model files'
// hashes, and every point's identity, device, backend and shape; each refusal names the file,
// the field (with the point's key) and what to do.
#include <gtest/gtest.h>

#include <string>

#include "harness/measure/point_measurement.hpp"
#include "harness/model/model_file.hpp"
#include "harness/results/resume_check.hpp"

namespace lb {
namespace {

const std::string tiny_text = R"({"schema": "layerbench-model/1", "name": "tiny", "title": "t",
  "source": "test", "input": {"channels": 3, "height": 8, "width": 8},
  "ops": [{"id": "body", "kind": "conv", "c": 4, "h": 8, "w": 8, "k": K, "r": 3, "s": 3,
           "stride_h": 2, "stride_w": 2, "pad_h": 1, "pad_w": 1, "layers": ["body.0", "body.1"]},
          {"id": "proj", "kind": "linear", "tokens": 16, "in_features": 8, "out_features": 6,
           "layers": ["proj"]}]})";

Model tiny(int k = 8) {
  std::string text = tiny_text;
  text.replace(text.find("K"), 1, std::to_string(k));
  return load_model_text(text, "/models/tiny.json");
}

RunRequest request() {
  RunRequest r;
  r.models = {"tiny"};
  r.batches = {1, 2};
  r.precisions = {Precision::fp32};
  r.pass = PassSet::fwd;
  return r;
}

const std::vector<DeviceTarget> cpu_onednn = {{"cpu", false, "onednn"}};

// A file as a run of `plan` would have begun it: its model files and its first `n` points.
LoadedResults begun(const Plan& plan, std::size_t n) {
  LoadedResults file;
  file.document = {{"settings", {{"model_files", model_files_json(plan)}}}};
  for (std::size_t i = 0; i < n; ++i) {
    const PlannedPoint& pp = plan.points[i];
    Point p = describe_point(pp, problem_for(*pp.op, pp.batch, pp.pass, pp.precision));
    p.status = Status::unsupported;
    file.points.push_back(p);
  }
  return file;
}

std::string refusal(const LoadedResults& file, const Plan& plan) {
  try {
    check_resumable(file, "r.json", plan, "cold");
  } catch (const ResultsError& e) {
    return e.what();
  }
  return "<resumed>";
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ResumeCheck, AFileOfThePlanResumes) {
  const std::vector<Model> models = {tiny()};
  const Plan plan = expand_plan(request(), models, cpu_onednn);
  ASSERT_EQ(plan.points.size(), 4u);
  EXPECT_EQ(check_resumable(begun(plan, 2), "r.json", plan, "cold"), ResumeRecord::exact);
  const nlohmann::json files = model_files_json(plan);
  EXPECT_EQ(files.at("tiny").at("file"), "/models/tiny.json");
  EXPECT_EQ(files.at("tiny").at("sha256").get<std::string>().size(), 64u);
}

TEST(ResumeCheck, AChangedModelFileIsRefusedByItsHashAndByItsPointsShape) {
  const std::vector<Model> was = {tiny(8)}, now = {tiny(16)};
  const Plan before = expand_plan(request(), was, cpu_onednn);
  const Plan after = expand_plan(request(), now, cpu_onednn);
  LoadedResults file = begun(before, 2);
  const std::string hash = refusal(file, after);
  EXPECT_TRUE(has(hash, "r.json: settings.model_files.tiny.sha256: /models/tiny.json has changed"))
      << hash;
  EXPECT_TRUE(has(hash, "start a new results file")) << hash;
  // A file from before the hashes: its points' shapes tell the change.
  file.document["settings"].erase("model_files");
  const std::string shape = refusal(file, after);
  EXPECT_TRUE(has(shape, "r.json: points[0] (tiny/body/b1/fp32/fwd/cpu).shape: ")) << shape;
  EXPECT_TRUE(has(shape, "\"k\":8")) << shape;
  LoadedResults old = begun(before, 2);
  old.document["settings"].erase("model_files");
  EXPECT_EQ(check_resumable(old, "r.json", before, "cold"), ResumeRecord::no_hashes);
}

TEST(ResumeCheck, AModelTheFileRecordsButThePlanLacksOrTheReverse) {
  const std::vector<Model> models = {tiny()};
  const Plan plan = expand_plan(request(), models, cpu_onednn);
  LoadedResults file = begun(plan, 0);
  file.document["settings"]["model_files"]["other"] = {{"file", "/o.json"}, {"sha256", "00"}};
  EXPECT_TRUE(has(refusal(file, plan),
                  "settings.model_files.other: the plan its settings make (settings.suite, "
                  "settings.models) has no model \"other\" now"));
  file.document["settings"]["model_files"] = nlohmann::json::object();
  EXPECT_TRUE(has(refusal(file, plan), "settings.model_files: no record of model \"tiny\""));
  file.document["settings"]["model_files"] = {{"tiny", {{"file", "/models/tiny.json"}}}};
  EXPECT_TRUE(has(refusal(file, plan), "settings.model_files.tiny.sha256: missing"));
}

TEST(ResumeCheck, APointOutsideThePlanNamesTheFieldThatPutsItThere) {
  const std::vector<Model> models = {tiny()};
  const Plan plan = expand_plan(request(), models, cpu_onednn);
  const auto edited = [&](auto edit) {
    LoadedResults file = begun(plan, 2);
    edit(file.points[1]);
    return refusal(file, plan);
  };
  const std::string batch = edited([](Point& p) { p.batch = 16; });
  EXPECT_TRUE(has(batch,
                  "r.json: points[1] (tiny/proj/b16/fp32/fwd/cpu): batch: 16 is not in "
                  "the plan its settings make (for this op it has 1, 2)"))
      << batch;
  EXPECT_TRUE(has(edited([](Point& p) { p.precision = Precision::bf16; }), "precision: \"bf16\""));
  EXPECT_TRUE(has(edited([](Point& p) { p.op = "gone"; }), "op: \"gone\""));
  // A renamed backend: another key (ONEDNN), or the same key with a backend the CPU has not.
  const std::string upper = edited([](Point& p) { p.backend = "ONEDNN"; });
  EXPECT_TRUE(has(upper, "backend: device \"cpu\" with backend \"ONEDNN\" (cpu@ONEDNN)")) << upper;
  for (const char* gpu_library : {"cuda", "cudnn", "cublaslt"}) {
    const std::string renamed = edited([&](Point& p) { p.backend = gpu_library; });
    EXPECT_TRUE(has(renamed, "(tiny/proj/b1/fp32/fwd/cpu).backend: \"" + std::string(gpu_library) +
                                 "\" is not what the plan its settings make measures "
                                 "(\"onednn\")"))
        << renamed;
  }
  for (const char* device : {"", "gpu:0"})
    EXPECT_TRUE(has(edited([&](Point& p) { p.device = device; }),
                    "device: device \"" + std::string(device) + "\""));
  // The device spelled as a keyed device: the key of an OpenBLAS point, not its device.
  const std::vector<DeviceTarget> two = {{"cpu", false, "onednn"}, {"cpu", false, "openblas"}};
  const Plan both = expand_plan(request(), models, two);
  LoadedResults file = begun(both, 2);
  file.points[0].device = "cpu@openblas";
  const std::string keyed = refusal(file, both);
  EXPECT_TRUE(has(keyed,
                  "(tiny/body/b1/fp32/fwd/cpu@openblas).device: \"cpu@openblas\" is not "
                  "what the plan its settings make measures (\"cpu\")"))
      << keyed;
}

TEST(ResumeCheck, AMeasuredPointsCacheMustBeTheSettings) {
  const std::vector<Model> models = {tiny()};
  const Plan plan = expand_plan(request(), models, cpu_onednn);
  LoadedResults file = begun(plan, 1);
  file.points[0].timing = SampleStats{};
  file.points[0].cache = "warm";
  EXPECT_TRUE(has(refusal(file, plan),
                  "points[0] (tiny/body/b1/fp32/fwd/cpu).timing.cache: "
                  "\"warm\" is not what the plan its settings make measures "
                  "(\"cold\")"));
}

TEST(ResumeCheck, APointItsBackendRefusesResumesOnlyAsUnsupported) {
  const std::vector<Model> models = {tiny()};
  const Plan plan = expand_plan(request(), models, cpu_onednn);
  const PointRefusal no_conv = [](const PlannedPoint& pp) -> std::optional<std::string> {
    if (pp.op->kind == OpKind::conv) return "no convolution here";
    return std::nullopt;
  };
  LoadedResults file = begun(plan, 2);  // both unsupported
  EXPECT_EQ(check_resumable(file, "r.json", plan, "cold", no_conv), ResumeRecord::exact);
  file.points[0].status = Status::ok;
  std::string message;
  try {
    check_resumable(file, "r.json", plan, "cold", no_conv);
  } catch (const ResultsError& e) {
    message = e.what();
  }
  EXPECT_TRUE(has(message,
                  "r.json: points[0] (tiny/body/b1/fp32/fwd/cpu).status: \"ok\" where backend "
                  "\"onednn\" records \"unsupported\": no convolution here; start a new"))
      << message;
}

std::string status_refusal(const nlohmann::json& document) {
  try {
    check_resumable_status(document, "r.json");
  } catch (const ResultsError& e) {
    return e.what();
  }
  return "<resumable>";
}

TEST(ResumeCheck, OnlyAnUnfinishedStatusResumes) {
  EXPECT_EQ(status_refusal({{"status", "incomplete"}}), "<resumable>");
  EXPECT_EQ(status_refusal({{"status", "interrupted"}}), "<resumable>");
  EXPECT_EQ(status_refusal({{"status", "complete"}}),
            "r.json is already complete; nothing to resume");
  EXPECT_TRUE(has(status_refusal({{"status", "done"}}),
                  "r.json: status: \"done\" is not a status layerbench writes"));
  EXPECT_TRUE(has(status_refusal({{"status", 1}}), "r.json: status: 1 is not a status"));
  EXPECT_TRUE(has(status_refusal(nlohmann::json::object()), "r.json: status: missing"));
}

TEST(ResumeCheck, TheCudaBackendsPointsNameTheLibraryThatRanThem) {
  EXPECT_TRUE(measured_by("onednn", "onednn"));
  EXPECT_TRUE(measured_by("openblas", "openblas"));
  for (const char* library : {"cuda", "cudnn", "cublaslt"})
    EXPECT_TRUE(measured_by(library, "cuda"));
  EXPECT_FALSE(measured_by("cudnn", "onednn"));
  EXPECT_FALSE(measured_by("ONEDNN", "onednn"));
  EXPECT_FALSE(measured_by("", "onednn"));
  EXPECT_FALSE(measured_by("onednn", "cuda"));
}

}  // namespace
}  // namespace lb
