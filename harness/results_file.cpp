#include "harness/results_file.hpp"

#include <set>

#include "harness/json_limits.hpp"
#include "harness/platform.hpp"

namespace lb {

namespace fs = std::filesystem;

fs::path journal_path(const fs::path& file) { return fs::path(file.string() + ".journal"); }

namespace {

// Limits of a results file, checked before its DOM is built (harness/json_limits.hpp).
// Size: the largest plan of the shipped models, `--suite full` on eight GPUs and the CPU, is
// 61776 points (117 passes x 13 batches x 5 precisions x 8 GPUs, + 117 x 4 x 2 on the CPU) of at
// most 1575 bytes each, header included (real runs' files, tests/python/fixtures/real), 97 MB;
// 256 MiB leaves a margin of 2.7. Depth: the writer's deepest value is 6 levels down (the same
// files); 16 is a chosen margin.
constexpr JsonLimits results_file_limits{std::size_t{256} << 20, 16};

nlohmann::json parse_file(const fs::path& file) {
  try {
    return read_bounded_json(file, results_file_limits);
  } catch (const JsonFileError& e) {
    throw ResultsError(e.what());
  }
}

void check_schema(const fs::path& file, const nlohmann::json& doc) {
  if (!doc.is_object() || !doc.contains("schema"))
    throw ResultsError(file.string() + ": not a layerbench results file (no \"schema\" field)");
  if (doc["schema"] != results_schema)
    throw ResultsError(file.string() + ": unknown schema " + doc["schema"].dump() + " (this " +
                       "layerbench reads " + results_schema + ")");
}

// Reads the journal's complete lines; a line cut short by a kill is ignored.
std::vector<nlohmann::json> journal_points(const fs::path& journal) {
  std::vector<nlohmann::json> out;
  std::ifstream in(journal);
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("point")) out.push_back(j["point"]);
  }
  return out;
}

constexpr const char* iso8601_utc = "%Y-%m-%dT%H:%M:%SZ";

}  // namespace

LoadedResults load_results(const fs::path& file) {
  LoadedResults r;
  const fs::path journal = journal_path(file);
  if (!fs::exists(file)) throw ResultsError(file.string() + ": no such file");
  r.document = parse_file(file);
  check_schema(file, r.document);
  std::set<std::string> seen;
  try {
    for (const auto& pj : r.document.value("points", nlohmann::json::array())) {
      r.points.push_back(point_from_json(pj));
      seen.insert(r.points.back().key());
    }
    if (fs::exists(journal)) {
      for (const auto& pj : journal_points(journal)) {
        Point p = point_from_json(pj);
        if (seen.insert(p.key()).second) {
          r.points.push_back(std::move(p));
          ++r.recovered_from_journal;
        }
      }
    }
  } catch (const std::runtime_error& e) {
    throw ResultsError(file.string() + ": " + e.what());
  }
  nlohmann::json merged = nlohmann::json::array();
  for (const auto& p : r.points) merged.push_back(to_json(p));
  r.document["points"] = std::move(merged);
  return r;
}

ResultsWriter::ResultsWriter(fs::path file, nlohmann::json context, nlohmann::json settings,
                             bool force)
    : file_(std::move(file)), journal_(journal_path(file_)), context_(std::move(context)),
      settings_(std::move(settings)) {
  if (fs::exists(file_) && !force)
    throw ResultsError(file_.string() + ": already exists; pass --force to overwrite it or " +
                       "--resume to continue it");
  if (file_.has_parent_path()) fs::create_directories(file_.parent_path());
  context_["start_time"] = platform::utc_now(iso8601_utc);
  context_["end_time"] = nullptr;
  open_journal(/*fresh=*/true);
  rewrite("incomplete", nlohmann::json::array(), nlohmann::json::array());
}

ResultsWriter::ResultsWriter(fs::path file, LoadedResults previous)
    : file_(std::move(file)), journal_(journal_path(file_)),
      context_(previous.document.at("context")), settings_(previous.document.at("settings")),
      points_(std::move(previous.points)) {
  open_journal(/*fresh=*/false);
  rewrite("incomplete", nlohmann::json::array(), nlohmann::json::array());
}

void ResultsWriter::open_journal(bool fresh) {
  journal_out_.open(journal_, fresh ? std::ios::trunc : std::ios::app);
  if (!journal_out_) throw ResultsError(journal_.string() + ": cannot be written");
  if (fresh) {
    journal_out_ << nlohmann::json{{"journal", results_schema}}.dump() << "\n";
    journal_out_.flush();
  }
}

void ResultsWriter::append(const Point& point) {
  journal_out_ << nlohmann::json{{"point", to_json(point)}}.dump() << "\n";
  journal_out_.flush();
  if (!journal_out_) throw ResultsError(journal_.string() + ": write failed");
  points_.push_back(point);
  if (std::chrono::steady_clock::now() - last_rewrite_ > std::chrono::seconds(1))
    rewrite("incomplete", nlohmann::json::array(), nlohmann::json::array());
}

void ResultsWriter::finish(const std::string& status, nlohmann::json models,
                           nlohmann::json boundaries) {
  context_["end_time"] = platform::utc_now(iso8601_utc);
  rewrite(status, models, boundaries);
  journal_out_.close();
  std::error_code ec;
  fs::remove(journal_, ec);  // the file now holds every point
}

void ResultsWriter::rewrite(const std::string& status, const nlohmann::json& models,
                            const nlohmann::json& boundaries) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : points_) points.push_back(to_json(p));
  const nlohmann::json doc = {{"schema", results_schema}, {"status", status},
                              {"context", context_},      {"settings", settings_},
                              {"points", points},         {"models", models},
                              {"boundaries", boundaries}};
  const fs::path tmp = file_.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << doc.dump(1) << "\n";
    out.flush();
    if (!out) throw ResultsError(tmp.string() + ": write failed");
  }
  fs::rename(tmp, file_);  // atomic: readers see the old or the new file, never half of one
  last_rewrite_ = std::chrono::steady_clock::now();
}

}  // namespace lb
