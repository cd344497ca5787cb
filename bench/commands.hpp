#pragma once
// Subcommands of the layerbench CLI. Each registers its options on the app; when it is the
// chosen subcommand, `action` is set to the function that runs it and returns the exit code.
#include <cstdint>
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace lb::cli {

using Action = std::function<int()>;

void add_doctor(CLI::App& app, Action& action);
void add_list(CLI::App& app, Action& action);
// `run` measures through Google Benchmark and oneDNN. A build without them (LAYERBENCH_RUN=OFF,
// the Windows cross build) registers a `run` that says why it is missing (bench/run_left_out.cpp).
void add_run(CLI::App& app, Action& action);
inline constexpr const char* run_left_out =
    "not in this build: run needs Google Benchmark and oneDNN, which have no MinGW-w64 (Windows) "
    "packages in Debian or PyPI; use a Linux or WSL2 build to measure";

// Exit codes shared by every subcommand.
inline constexpr int exit_ok = 0;
inline constexpr int exit_failed = 1;  // failed points, or only the CPU usable (doctor)
inline constexpr int exit_usage = 2;   // bad flags or bad input files
inline constexpr int exit_interrupted = 130;
// `run`: a point stuck past its time bound (--point-timeout) and a grace stopped the run; 124 as
// timeout(1) says a command ran out of time.
inline constexpr int exit_point_stuck = 124;

// Open files: Google Benchmark reads /sys files as it starts and, when no descriptor is left,
// dies with only "Failed to read from file"; a CPU run of the tiny test model needed 7 descriptors
// here, GPU libraries open more. main raises the soft limit to `wanted_open_files` before any
// thread starts (UBSan's checks need a pipe, 2 descriptors: under `ulimit -Sn 6` one of them
// failed on the signal thread while the main thread held the others); `run` refuses a hard limit
// below `least_open_files`.
inline constexpr std::uint64_t wanted_open_files = 1024, least_open_files = 32;

// Runs a subcommand's body; bad input (lb::InputError, or std::invalid_argument from the flag
// parsers, which name the flag) becomes one line "layerbench <command>: <what>" and exit_usage.
int report_input_errors(const std::string& command, const Action& body);

}  // namespace lb::cli
