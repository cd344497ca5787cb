#include "harness/results/results_file.hpp"

#include <cerrno>
#include <cstring>
#include <map>
#include <new>
#include <sstream>
#include <system_error>

#ifndef _WIN32
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "harness/os/platform.hpp"
#include "harness/util/json_limits.hpp"

namespace lb {

namespace fs = std::filesystem;

fs::path journal_path(const fs::path& file) { return fs::path(file.string() + ".journal"); }

namespace {

// Limits of a results file, checked before its DOM is built (harness/util/json_limits.hpp).
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

// Reads the journal's complete lines; a line cut short by a kill is ignored. A link or FIFO
// planted at the journal's path is refused like one planted beside a new output.
std::vector<nlohmann::json> journal_points(const fs::path& journal) {
  std::vector<nlohmann::json> out;
  std::string text;
  try {
    text = platform::read_regular_file(journal, results_file_limits.max_bytes,
                                       /*follow_links=*/false);
  } catch (const platform::NotRegularFile& e) {
    throw ResultsError(e.what());
  } catch (const std::system_error& e) {
    throw ResultsError(journal.string() + ": cannot be read (" + e.code().message() + ")");
  }
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("point")) out.push_back(j["point"]);
  }
  return out;
}

constexpr const char* iso8601_utc = "%Y-%m-%dT%H:%M:%SZ";

// The JSON text written: a string that is not UTF-8 (a library's message, an environment value
// the doctor quotes) is written with U+FFFD for its bad bytes rather than ending the run with
// nlohmann's type_error and the file unwritten.
std::string json_text(const nlohmann::json& value, int indent = -1) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

LoadedResults load_results(const fs::path& file) {
  LoadedResults r;
  const fs::path journal = journal_path(file);
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    if (fs::is_symlink(fs::symlink_status(file, ec)))
      throw ResultsError(file.string() + ": a symbolic link to " +
                         fs::read_symlink(file, ec).string() + ", which does not exist");
    throw ResultsError(file.string() + ": no such file");
  }
  if (!fs::is_regular_file(file, ec))
    throw ResultsError(file.string() + ": not a regular file (a results file is a .json file)");
  r.document = parse_file(file);
  check_schema(file, r.document);
  for (const char* part : {"context", "settings"})
    if (!r.document.contains(part) || !r.document[part].is_object())
      throw ResultsError(file.string() + ": \"" + part + "\" is missing or not an object");
  const nlohmann::json& points =
      r.document.contains("points") ? r.document["points"] : nlohmann::json::array();
  if (!points.is_array()) throw ResultsError(file.string() + ": \"points\" is not an array");
  std::map<std::string, std::size_t> seen;  // key -> index in r.points
  const std::string name = file.string(), journal_name = journal.string();
  for (std::size_t i = 0; i < points.size(); ++i) {
    try {
      r.points.push_back(point_from_json({points[i], name, "points[" + std::to_string(i) + "]"}));
    } catch (const FieldError& e) {
      throw ResultsError(e.what());
    }
    if (!seen.emplace(r.points.back().key(), i).second)
      throw ResultsError(file.string() + ": points[" + std::to_string(i) + "]: point " +
                         r.points.back().key() + " appears twice");
  }
  try {
    if (fs::exists(fs::symlink_status(journal))) {
      const auto journaled = journal_points(journal);
      for (std::size_t i = 0; i < journaled.size(); ++i) {
        // The journal's i-th point, counted as the lines that hold one.
        Point p =
            point_from_json({journaled[i], journal_name, "points[" + std::to_string(i) + "]"});
        // A later record of a point (its next round's better figure) replaces the earlier one:
        // the journal is never older than the file it goes with.
        if (const auto [at, added] = seen.emplace(p.key(), r.points.size()); added) {
          r.points.push_back(std::move(p));
          ++r.recovered_from_journal;
        } else {
          r.points[at->second] = std::move(p);
        }
      }
    }
  } catch (const ResultsError&) {
    throw;  // names the journal already
  } catch (const FieldError& e) {
    throw ResultsError(e.what());
  } catch (const std::runtime_error& e) {  // the journal's folder unreadable
    throw ResultsError(journal_name + ": " + e.what());
  }
  nlohmann::json merged = nlohmann::json::array();
  for (const auto& p : r.points) merged.push_back(to_json(p));
  r.document["points"] = std::move(merged);
  return r;
}

OutputLock::OutputLock(const fs::path& file) : path_(file.string() + ".lock") {
#ifndef _WIN32
  // Not through a link planted at the path, and never a FIFO or device (O_NONBLOCK: opening
  // a FIFO does not wait for a reader).
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd_ < 0 && errno == ELOOP)
    throw ResultsError(path_.string() + ": is a symbolic link, not a regular file; remove it or " +
                       "choose another -o");
  if (fd_ < 0)
    throw ResultsError(path_.string() + ": cannot be created (" + std::strerror(errno) +
                       "); choose an output in a folder you can write with -o");
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw ResultsError(path_.string() + ": is not a regular file; remove it or choose another -o");
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char pid[32] = {};
    const ssize_t n = ::read(fd_, pid, sizeof pid - 1);
    ::close(fd_);
    fd_ = -1;
    throw ResultsError(file.string() + ": another layerbench run (pid " +
                       (n > 0 ? std::string(pid, static_cast<std::size_t>(n)) : "unknown") +
                       ") is writing it; wait for it to end or choose another -o");
  }
  const std::string pid = std::to_string(::getpid());
  if (::ftruncate(fd_, 0) != 0 || ::write(fd_, pid.data(), pid.size()) < 0) {
    // The pid is only for the message of a refused run; the lock itself holds.
  }
#endif
}

OutputLock::~OutputLock() {
#ifndef _WIN32
  if (fd_ >= 0) {
    std::error_code ec;
    fs::remove(path_, ec);  // while still held: a run waiting on it then makes a fresh one
    ::close(fd_);
  }
#endif
}

namespace {
// A results file may replace only a regular file: -o /dev/null --force must not turn a device
// into a file, a folder is never a results file, and a symbolic link (/dev/stdout is one) is
// not replaced by a file either.
void check_not_link(const fs::path& file) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(file, ec)))
    throw ResultsError(file.string() + ": is a symbolic link; a results file replaces only a " +
                       "regular file (give the file it points to, or choose another -o)");
}

void check_new_output(const fs::path& file, bool force) {
  check_not_link(file);
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(file, ec);
  if (!fs::exists(st)) return;
  if (!fs::is_regular_file(st))
    throw ResultsError(file.string() + ": exists and is not a regular file; a results file " +
                       "replaces only a file (choose another -o)");
  if (!force)
    throw ResultsError(file.string() + ": already exists; pass --force to overwrite it or " +
                       "--resume to continue it");
}

void create_parent(const fs::path& file) {
  if (!file.has_parent_path()) return;
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  if (ec)
    throw ResultsError(file.parent_path().string() + ": cannot be created (" + ec.message() +
                       "); choose an output in a folder you can write with -o");
}

// Removes a regular file left at `path` by a killed run, so that it can be made afresh with
// O_EXCL; anything else there is refused, naming it.
void clear_stale(const fs::path& path) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  if (!fs::exists(st)) return;
  if (!fs::is_regular_file(st))
    throw ResultsError(path.string() + ": " +
                       (fs::is_symlink(st) ? "is a symbolic link" : "exists") +
                       " and is not a regular file; remove it or choose another -o");
  fs::remove(path, ec);
}

// A file beside the output opened for writing; what stands at its path is refused, not used.
std::unique_ptr<platform::WriteFile> open_beside(const fs::path& path,
                                                 platform::WriteFile::Mode mode) {
  try {
    return std::make_unique<platform::WriteFile>(path, mode);
  } catch (const platform::NotRegularFile& e) {
    throw ResultsError(std::string(e.what()) + "; remove it or choose another -o");
  } catch (const std::system_error& e) {
    throw ResultsError(path.string() + ": cannot be written (" + e.code().message() +
                       "); choose an output in a folder you can write with -o");
  }
}
}  // namespace

ResultsWriter::ResultsWriter(fs::path file, nlohmann::json context, nlohmann::json settings,
                             bool force)
    : file_(std::move(file)),
      journal_(journal_path(file_)),
      context_(std::move(context)),
      settings_(std::move(settings)) {
  check_new_output(file_, force);
  create_parent(file_);
  lock_ = std::make_unique<OutputLock>(file_);
  check_new_output(file_, force);  // again, now that no other run can be making it
  context_["start_time"] = platform::utc_now(iso8601_utc);
  context_["end_time"] = nullptr;
  open_journal(/*fresh=*/true);
  try {
    rewrite("incomplete", nlohmann::json::array(), nlohmann::json::array());
  } catch (const OutputError& e) {
    journal_out_.reset();
    std::error_code ec;
    fs::remove(journal_, ec);  // it holds no point yet
    throw OutputError(std::string(e.what()) + "; nothing was measured: make room, then run " +
                      "again");
  }
}

ResultsWriter::ResultsWriter(fs::path file, LoadedResults previous)
    : file_(std::move(file)),
      journal_(journal_path(file_)),
      context_(previous.document.at("context")),
      settings_(previous.document.at("settings")),
      points_(std::move(previous.points)) {
  for (std::size_t i = 0; i < points_.size(); ++i) index_.emplace(points_[i].key(), i);
  check_not_link(file_);
  lock_ = std::make_unique<OutputLock>(file_);
  open_journal(/*fresh=*/false);
  rewrite("incomplete", nlohmann::json::array(), nlohmann::json::array());
}

ResultsWriter::~ResultsWriter() = default;

void ResultsWriter::open_journal(bool fresh) {
  using Mode = platform::WriteFile::Mode;
  if (fresh) clear_stale(journal_);
  journal_out_ = open_beside(journal_, fresh ? Mode::create_new : Mode::append);
  if (fresh) write_journal(json_text(nlohmann::json{{"journal", results_schema}}) + "\n");
}

namespace {
// The text a write needs; a host out of memory making it is the file's write failing, before
// anything of it (a .tmp) is created.
template <class MakeText>
std::string text_or_output_error(const fs::path& file, const MakeText& make) {
  try {
    return make();
  } catch (const std::bad_alloc&) {
    throw OutputError(file.string() + ": not written: the host's memory ran out making its text");
  }
}
}  // namespace

void ResultsWriter::write_journal(const std::string& line) {
  try {
    journal_out_->write(line);
  } catch (const std::system_error& e) {
    throw OutputError(journal_.string() + ": write failed (" + e.code().message() + ")");
  }
}

void ResultsWriter::append(const Point& point) {
  write_journal(text_or_output_error(journal_, [&] {
    return json_text(nlohmann::json{{"point", to_json(point)}}) + "\n";
  }));
  if (const auto [at, added] = index_.emplace(point.key(), points_.size()); added)
    points_.push_back(point);
  else
    points_[at->second] = point;
  if (std::chrono::steady_clock::now() - last_rewrite_ > std::chrono::seconds(1))
    rewrite("incomplete", nlohmann::json::array(), nlohmann::json::array());
}

void ResultsWriter::finish(const std::string& status, nlohmann::json models,
                           nlohmann::json boundaries) {
  context_["end_time"] = platform::utc_now(iso8601_utc);
  rewrite(status, models, boundaries);
  journal_out_.reset();
  std::error_code ec;
  fs::remove(journal_, ec);  // the file now holds every point
}

void ResultsWriter::rewrite(const std::string& status, const nlohmann::json& models,
                            const nlohmann::json& boundaries) {
  const std::string text = text_or_output_error(file_, [&] {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : points_) points.push_back(to_json(p));
    const nlohmann::json doc = {{"schema", results_schema}, {"status", status},
                                {"context", context_},      {"settings", settings_},
                                {"points", points},         {"models", models},
                                {"boundaries", boundaries}};
    return json_text(doc, 1) + "\n";
  });
  const fs::path tmp = file_.string() + ".tmp";
  std::error_code ec;
  clear_stale(tmp);
  {
    auto out = open_beside(tmp, platform::WriteFile::Mode::create_new);
    try {
      out->write(text);
      out->close();
    } catch (const std::system_error& e) {
      out.reset();
      fs::remove(tmp, ec);
      throw OutputError(file_.string() + ": write failed (" + e.code().message() + ")");
    }
  }
  fs::rename(tmp, file_, ec);  // atomic: readers see the old or the new file, never half of one
  if (ec) {
    fs::remove(tmp, ec);
    throw OutputError(file_.string() + ": cannot be replaced (" + ec.message() + ")");
  }
  last_rewrite_ = std::chrono::steady_clock::now();
}

}  // namespace lb
