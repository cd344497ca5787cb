#include "harness/measure/interrupt.hpp"

#include "harness/os/platform.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifdef _WIN32
#include <windows.h>
#else
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <thread>
#endif

namespace lb::interrupt {
namespace {

std::atomic<bool> stop{false};
std::atomic<int> armed_exit_code{0};  // 0: not armed, a signal ends the process at once
std::atomic<bool> results_file_exists{false};

void say(const char* text) {
#ifdef _WIN32
  std::fputs(text, stderr);
#else
  (void)!write(STDERR_FILENO, text,
               std::strlen(text));  // no stdio lock: another thread may hold it
#endif
}

// What one signal does; `unarmed_exit_code` is what the process would have ended with.
void on_signal(int unarmed_exit_code) {
  const int code = armed_exit_code.load();
  if (code == 0) std::_Exit(unarmed_exit_code);
  if (!stop.exchange(true)) {
    say("\nlayerbench: stopping after the current point (the results file keeps every point "
        "measured so far); press Ctrl-C again to stop at once\n");
    return;
  }
  say(results_file_exists.load()
          ? "\nlayerbench: stopped at once; the results file holds the points written so far\n"
          : "\nlayerbench: stopped at once, before the results file was written\n");
  std::_Exit(code);
}

#ifdef _WIN32
BOOL WINAPI on_console_event(DWORD event) {
  if (event != CTRL_C_EVENT && event != CTRL_BREAK_EVENT && event != CTRL_CLOSE_EVENT) return FALSE;
  on_signal(128 + 2);  // as SIGINT
  return TRUE;
}
#else
// Ctrl-C, kill, a closed terminal (SIGHUP), Ctrl-\\ and the signals whose default is to end
// the process (SIGUSR1, SIGALRM from a stray `timeout -s`): each stops after the current point.
constexpr int stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM};

void wait_for_signals(sigset_t set) {
  for (;;) {
    int sig = 0;
    if (sigwait(&set, &sig) == 0) on_signal(128 + sig);
  }
}
#endif

}  // namespace

void install() {
#ifdef _WIN32
  SetConsoleCtrlHandler(on_console_event, TRUE);
#else
  sigset_t set;
  sigemptyset(&set);
  for (int sig : stop_signals) sigaddset(&set, sig);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  // An ignored signal is dropped before sigwait() can see it, and a shell starts a background
  // job (`layerbench run ... &` in a script) with SIGINT ignored: `kill -INT` must still stop it.
  for (int sig : stop_signals) signal(sig, SIG_DFL);
  // A reader gone (`run | head -1`) or a file-size limit (ulimit -f) is a failed write that the
  // writer reports (EPIPE, EFBIG) with the way out, not a death that leaves the file half done.
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN);
  std::thread(wait_for_signals, set).detach();
#endif
}

void arm(int exit_code) { armed_exit_code.store(exit_code); }

void note_results_file_exists() { results_file_exists.store(true); }

void request_stop(const char* why) {
  if (!stop.exchange(true)) say(why);
}

const std::atomic<bool>& stop_requested() { return stop; }

bool poll_stop() {
  if (platform::stdout_reader_gone())
    request_stop(
        "\nlayerbench: standard output's reader has gone; stopping after the current "
        "point (the results file keeps every point measured so far)\n");
  return stop.load();
}

}  // namespace lb::interrupt
