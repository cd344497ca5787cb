#pragma once
// Ctrl-C (SIGINT) and SIGTERM, taken on a thread of their own instead of by an asynchronous
// handler. An asynchronous handler runs on whichever thread the kernel picks, and the kernel
// writes the handler's frame below that thread's stack pointer. oneDNN's JIT GEMM kernels point
// the stack pointer into a heap buffer while they run, so a signal taken there writes the frame
// into the heap: "corrupted size vs. prev_size", "double free", SIGSEGV in
// dnnl_primitive_execute (oneDNN issue #4845, "Heap corruption caused by signal handling").
// Blocking the signals in every thread and waiting for them with sigwait() on one thread that
// runs no compute means no signal frame is ever pushed onto a thread that runs library code.
// On Windows the console control handler already runs on a thread of its own.
#include <atomic>

namespace lb::interrupt {

// Blocks SIGINT and SIGTERM in the calling thread, and so in every thread started after it
// (OpenMP's workers included), and starts the thread that waits for them. Call it first thing
// in main, before any other thread exists. Until arm() is called a signal ends the process at
// once with 128 + the signal number, as an unhandled one would.
void install();

// From now on the first SIGINT/SIGTERM asks to stop (stop_requested() turns true; the caller
// stops at its next safe point) and a second one ends the process at once with `exit_code`.
void arm(int exit_code);

// Set by the first signal after arm().
const std::atomic<bool>& stop_requested();

}  // namespace lb::interrupt
