#include "bench/python_probe.hpp"

#include <filesystem>
#include <stdexcept>
#include <vector>

#include "harness/os/platform.hpp"
#include "harness/util/data_paths.hpp"

#ifndef _WIN32
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#endif

namespace lb::cli {
namespace {

namespace fs = std::filesystem;

std::string on_path(const std::string& name) {
  const auto path = platform::getenv_opt("PATH");
  if (!path) return "";
#ifdef _WIN32
  const char separator = ';';
#else
  const char separator = ':';
#endif
  std::size_t start = 0;
  while (start <= path->size()) {
    const std::size_t end = std::min(path->find(separator, start), path->size());
    const fs::path candidate = fs::path(path->substr(start, end - start)) / name;
    std::error_code ec;
    if (end > start && fs::is_regular_file(candidate, ec)) return candidate.string();
    start = end + 1;
  }
  return "";
}

struct Finished {
  int status = -1;  // waitpid's status; -1 when killed for the time limit
  std::string out, err;
};

#ifndef _WIN32
// Runs argv with stdout and stderr captured, killed after `limit_s` seconds.
Finished run_captured(const std::vector<std::string>& argv, double limit_s) {
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]);
    close(err_pipe[0]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    const std::string message = "cannot run " + argv[0] + ": " + std::strerror(errno) + "\n";
    (void)!write(2, message.data(), message.size());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  Finished done;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&done.out, &done.err};
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<long>(limit_s * 1e3));
  int open_pipes = 2;
  bool killed = false;
  while (open_pipes > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      kill(pid, SIGKILL);
      killed = true;
      break;
    }
    if (poll(fds, 2, static_cast<int>(left)) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      char buffer[4096];
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<std::size_t>(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_pipes;
      }
    }
  }
  for (const auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  waitpid(pid, &status, 0);
  done.status = killed ? -1 : status;
  return done;
}

std::string last_line(const std::string& text) {
  std::string trimmed = text.substr(0, text.find_last_not_of(" \n\r\t") + 1);
  return trimmed.substr(trimmed.find_last_of('\n') + 1);
}
#endif

}  // namespace

std::string resolve_python(const std::string& flag_value) {
  if (flag_value == kNoPython) return "";
  if (flag_value.empty()) {
    for (const char* name : {"python3", "python"})
      if (auto found = on_path(name); !found.empty()) return found;
    return "";
  }
  std::error_code ec;
  if (flag_value.find('/') != std::string::npos || flag_value.find('\\') != std::string::npos) {
    if (!fs::is_regular_file(flag_value, ec))
      throw std::invalid_argument("\"" + flag_value +
                                  "\" does not exist (expected a Python "
                                  "interpreter, or none)");
    return flag_value;
  }
  if (auto found = on_path(flag_value); !found.empty()) return found;
  throw std::invalid_argument("\"" + flag_value +
                              "\" is not on PATH (expected a Python "
                              "interpreter, or none)");
}

PythonProbeOutcome run_python_probe(const std::string& python, double import_timeout_s) {
  PythonProbeOutcome outcome;
#ifdef _WIN32
  (void)python;
  (void)import_timeout_s;
  outcome.error = "the Windows build does not run the framework probe yet";
#else
  try {
    const fs::path script = data_dir() / "probe" / "framework_probe.py";
    // Three imports one after the other, plus the interpreter's own start.
    const Finished done = run_captured({python, script.string(), std::to_string(import_timeout_s)},
                                       3 * import_timeout_s + 30);
    if (done.status == -1) {
      outcome.error = python + " did not finish the framework probe in time";
    } else if (!WIFEXITED(done.status) || WEXITSTATUS(done.status) != 0) {
      const std::string said = last_line(done.err);
      outcome.error = python + " could not run the framework probe" +
                      (WIFSIGNALED(done.status)
                           ? " (signal " + std::to_string(WTERMSIG(done.status)) + ")"
                           : " (exit code " + std::to_string(WEXITSTATUS(done.status)) + ")") +
                      (said.empty() ? "" : ": " + said) + "; is it a Python 3.8+ interpreter?";
    } else {
      const auto j = nlohmann::json::parse(last_line(done.out), nullptr, false);
      if (j.is_discarded())
        outcome.error = python +
                        " did not answer the framework probe with JSON; is it a "
                        "Python 3.8+ interpreter?";
      else
        outcome.probe = doctor::parse_python_probe(j);
    }
  } catch (const std::exception& e) {
    outcome.error = e.what();
  }
#endif
  return outcome;
}

}  // namespace lb::cli
