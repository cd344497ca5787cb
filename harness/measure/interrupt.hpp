#pragma once
// Ctrl-C (SIGINT), SIGTERM, SIGHUP and the other signals that would end the process, blocked in
// every thread and taken with sigwait() on one that runs no compute: a handler's frame on a oneDNN
// JIT kernel's thread lands in the heap (docs/results-format.md, "How the file is written").
#include <atomic>

namespace lb::interrupt {

// Blocks those signals in the calling thread, and so in every thread started after it
// (OpenMP's workers included), and starts the thread that waits for them. Call it first thing
// in main, before any other thread exists. Until arm() is called a signal ends the process at
// once with 128 + the signal number, as an unhandled one would. Ignores SIGPIPE and SIGXFSZ: a
// write then fails with EPIPE or EFBIG, which the writer reports.
void install();

// From now on the first such signal asks to stop (stop_requested() turns true; the caller
// stops at its next safe point) and a second one ends the process at once with `exit_code`.
void arm(int exit_code);

// Says that the results file exists from now on, so that a second signal's message says it
// holds the points written so far (before this, no file does).
void note_results_file_exists();

// Asks to stop as a first signal would (standard output gone, say), printing `why` once.
void request_stop(const char* why);

// Set by the first signal after arm(), or by request_stop().
const std::atomic<bool>& stop_requested();

// Whether to stop now: a signal came, or standard output is a pipe whose reader has gone
// (`run | head -1`), which is taken as a first signal.
bool poll_stop();

}  // namespace lb::interrupt
