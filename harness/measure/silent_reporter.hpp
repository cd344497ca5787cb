#pragma once
// Google Benchmark's console reporter, silenced: its output would interleave with the progress
// line, and the results file is the record. --benchmark_out still gets a file reporter
// (per_sample_cpu_reporter.hpp).
#include <benchmark/benchmark.h>

#include <vector>

namespace lb {

class SilentReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace lb
