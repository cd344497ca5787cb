#pragma once
// The order of calls autotuning makes on a GPU case, apart from the hardware so that a test double
// can check it: the output is poisoned again once the winner is chosen, and each candidate starts
// with a fresh launch hold (docs/measuring.md, "Clocks", says why). Pure logic.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/api/backend.hpp"

namespace lb::cuda::logic {

// How many timed runs give one candidate's time (their median), after one untimed launch.
inline constexpr int autotune_runs = 3;

struct AutotuneSteps {
  std::function<void(std::size_t)> select;        // make candidate i the one launch() runs
  std::function<void()> reset_timing;             // a fresh launch hold
  std::function<void()> launch;                   // untimed warm-up launch
  std::function<double()> time_once;              // one timed launch, seconds
  std::function<void()> poison_output;            // fill the output with NaN again
  std::function<std::string(std::size_t)> label;  // "engine 12 k3=1"
  // Where set: runs candidate i once on the poisoned output and says why that output fails
  // validation, or nothing when it passes. Unset: every candidate that ran is acceptable.
  std::function<std::optional<std::string>(std::size_t)> rejects_output;
};

// Times `count` candidates (a candidate whose launch throws LibraryError is recorded as failed),
// selects the fastest whose output rejects_output accepts (checked fastest first, so a faster
// candidate outside tolerance gives way to the next), resets the timing state and poisons the
// output. Returns the winner's index; `summary` gets "label time; ..." with failures and
// rejected outputs named. Throws LibraryError when no candidate ran and passed.
std::size_t autotune(std::size_t count, const AutotuneSteps& steps, std::string& summary);

// The "algo_choice" note of a case: named (a later round's), autotune or heuristic.
std::string choice_note(AlgoChoice algo, const std::string& named);

// The candidate that a later round names (CaseOptions::implementation, the first round's
// Case::implementation() text), among the candidates' implementation texts; nothing when no name
// is given, so that the case chooses as its AlgoChoice says. A name no candidate has throws
// Unsupported naming `library` and what it offers: the point must not time another choice.
std::optional<std::size_t> named_candidate(const std::vector<std::string>& implementations,
                                           const std::string& named, const std::string& library);

}  // namespace lb::cuda::logic
