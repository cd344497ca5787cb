#pragma once
// The --benchmark_out file in Google Benchmark's own format (json, csv or console), each point's
// cpu_time made the median CPU time of one sample: Google Benchmark's own figure would be the whole
// benchmark body's, which varies with the sample count rather than with the code.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace lb {

class PerSampleCpuFileReporter : public benchmark::BenchmarkReporter {
 public:
  // `cpu_s`: the median CPU time of a sample per point name, kept by reference.
  PerSampleCpuFileReporter(std::unique_ptr<benchmark::BenchmarkReporter> format,
                           const std::map<std::string, double>& cpu_s)
      : format_(std::move(format)), cpu_s_(cpu_s) {}
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override { format_->Finalize(); }

 private:
  std::unique_ptr<benchmark::BenchmarkReporter> format_;
  const std::map<std::string, double>& cpu_s_;
};

// Google Benchmark's reporter for --benchmark_out_format's value among `benchmark_args` (json when
// not given); null without --benchmark_out (no file). Google Benchmark has already rejected any
// other format.
std::unique_ptr<benchmark::BenchmarkReporter> out_file_format(
    const std::vector<std::string>& benchmark_args);

}  // namespace lb
