#pragma once
// Crash-safe results files. Every point goes first to an append-only journal (FILE.journal,
// JSON lines, flushed per point), then the results file itself is rewritten atomically
// (temp file + rename) at most once a second and at the end. A run killed at any moment
// leaves a valid file marked "incomplete"; loading it merges whatever the journal holds beyond.
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/os/platform.hpp"
#include "harness/results/point.hpp"
#include "harness/util/input_error.hpp"

namespace lb {

// A file that is not a readable layerbench results file; what() names the file and the problem.
struct ResultsError : InputError {
  using InputError::InputError;
};

// The results file could not be written during a run (disk full, folder removed): not bad
// input. What() names the file and the system's reason.
struct OutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An exclusive lock on FILE.lock (flock, so a killed run's lock ends with its process) that
// keeps two runs from writing one results file. Refuses with the holder's pid.
class OutputLock {
 public:
  explicit OutputLock(const std::filesystem::path& file);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

struct LoadedResults {
  nlohmann::json document;  // the file as written, with "points" replaced by the merged list
  std::vector<Point> points;
  int recovered_from_journal = 0;  // points found only in the journal
};

// Loads a results file and merges its journal, if any. Throws ResultsError.
LoadedResults load_results(const std::filesystem::path& file);

class ResultsWriter {
 public:
  // Starts a new file. Refuses (ResultsError) when `file` exists, unless `force`.
  ResultsWriter(std::filesystem::path file, nlohmann::json context, nlohmann::json settings,
                bool force);
  // Continues an incomplete file: keeps its points, context and settings.
  ResultsWriter(std::filesystem::path file, LoadedResults previous);
  ~ResultsWriter();

  const std::vector<Point>& points() const { return points_; }
  bool has_point(const std::string& key) const { return index_.count(key) > 0; }
  const nlohmann::json& context() const { return context_; }
  // Sets a context field, written with the next rewrite: what is known only at the end of the
  // run (context.machine_state's end reading).
  void set_context(const std::string& key, nlohmann::json value) {
    context_[key] = std::move(value);
  }
  const std::filesystem::path& file() const { return file_; }

  // Journal the point (flushed before returning), then rewrite the file if a second has passed.
  // A point already held (same key: its next round) is replaced, in the journal by a later line.
  // Throws OutputError when the disk refuses; the file and journal keep what they held.
  void append(const Point& point);
  // Final rewrite with the model-level records; status "complete" or "interrupted".
  // Removes the journal once the file holds everything.
  void finish(const std::string& status, nlohmann::json models, nlohmann::json boundaries);

 private:
  void open_journal(bool fresh);
  void write_journal(const std::string& line);
  void rewrite(const std::string& status, const nlohmann::json& models,
               const nlohmann::json& boundaries);

  std::filesystem::path file_, journal_;
  std::unique_ptr<OutputLock> lock_;
  nlohmann::json context_, settings_;
  std::vector<Point> points_;
  std::map<std::string, std::size_t> index_;  // key -> index in points_
  std::unique_ptr<platform::WriteFile> journal_out_;
  std::chrono::steady_clock::time_point last_rewrite_{};
};

std::filesystem::path journal_path(const std::filesystem::path& file);

}  // namespace lb
