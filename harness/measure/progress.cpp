#include "harness/measure/progress.hpp"

#include <cmath>

namespace lb {

Progress::Progress(Mode mode, int total_points, double total_gflop, std::FILE* out)
    : mode_(mode), total_(total_points), total_gflop_(total_gflop), out_(out) {}

std::string Progress::format_duration(double s) {
  if (!(s >= 0) || !std::isfinite(s)) return "?";
  const long total = std::lround(s);
  char buf[32];
  if (total >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", total / 3600, total % 3600 / 60);
  else if (total >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", total / 60, total % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", total);
  return buf;
}

double Progress::eta_seconds(double done, double total, double elapsed) {
  if (done <= 0 || elapsed <= 0) return -1;
  return (total - done) / (done / elapsed);
}

void Progress::point_done(const std::string& name, const std::string& status, double gflop) {
  ++done_;
  // Points refused without running (unsupported, out of memory) took no time: leave their work
  // out of the rate and of what remains, or the ETA would swing.
  if (status == "ok" || status == "failed")
    done_gflop_ += gflop;
  else
    total_gflop_ -= gflop;
  if (mode_ == Mode::quiet) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::string eta = format_duration(eta_seconds(done_gflop_, total_gflop_, elapsed));
  if (mode_ == Mode::terminal) {
    std::fprintf(out_, "\r\033[K[%d/%d] %s %s  elapsed %s  ETA %s", done_, total_, name.c_str(),
                 status.c_str(), format_duration(elapsed).c_str(), eta.c_str());
  } else {
    std::fprintf(out_, "[%d/%d] %s %s (elapsed %s, ETA %s)\n", done_, total_, name.c_str(),
                 status.c_str(), format_duration(elapsed).c_str(), eta.c_str());
  }
  std::fflush(out_);
}

void Progress::extra_point_done(const std::string& name, const std::string& status) {
  ++extra_done_;
  if (mode_ == Mode::quiet) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::fprintf(out_,
               mode_ == Mode::terminal ? "\r\033[K[extra %d] %s %s  elapsed %s"
                                       : "[extra %d] %s %s (elapsed %s)\n",
               extra_done_, name.c_str(), status.c_str(), format_duration(elapsed).c_str());
  std::fflush(out_);
}

void Progress::finish() {
  if (mode_ == Mode::terminal) std::fputc('\n', out_);
}

}  // namespace lb
