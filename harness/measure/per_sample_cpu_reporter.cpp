#include "harness/measure/per_sample_cpu_reporter.hpp"

namespace lb {

bool PerSampleCpuFileReporter::ReportContext(const Context& context) {
  format_->SetOutputStream(&GetOutputStream());
  format_->SetErrorStream(&GetErrorStream());
  return format_->ReportContext(context);
}

void PerSampleCpuFileReporter::ReportRuns(const std::vector<Run>& runs) {
  std::vector<Run> per_sample = runs;
  for (Run& run : per_sample)
    if (auto it = cpu_s_.find(run.run_name.function_name); it != cpu_s_.end())
      run.cpu_accumulated_time = it->second * static_cast<double>(run.iterations);
  format_->ReportRuns(per_sample);
}

std::unique_ptr<benchmark::BenchmarkReporter> out_file_format(
    const std::vector<std::string>& args) {
  std::string format = "json";
  bool out = false;
  for (const auto& a : args) {
    if (a.rfind("--benchmark_out=", 0) == 0) out = true;
    if (a.rfind("--benchmark_out_format=", 0) == 0) format = a.substr(a.find('=') + 1);
  }
  if (!out) return nullptr;
  if (format == "csv") {
    // Deprecated upstream, yet still the format --benchmark_out_format=csv asks for.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
    return std::make_unique<benchmark::CSVReporter>();
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
  }
  if (format == "console")
    return std::make_unique<benchmark::ConsoleReporter>(benchmark::ConsoleReporter::OO_None);
  return std::make_unique<benchmark::JSONReporter>();
}

}  // namespace lb
