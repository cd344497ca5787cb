#pragma once
// One doctor check: a pure function of the snapshot and the facts that appends its findings to
// the diagnosis. `doctor_checks()` (table.cpp) lists them in the order they run; diagnose.cpp
// turns their findings into the verdict. A new check is one file here and one table line.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/doctor/diagnose.hpp"
#include "harness/doctor/versions.hpp"

namespace lb::doctor {

struct CheckContext {
  const Snapshot& s;
  const Facts& facts;
  bool windows() const { return s.os == "windows"; }
  const char* library_path_variable() const { return windows() ? "PATH" : "LD_LIBRARY_PATH"; }
  // The minimum driver for this build's runtime on this OS, or empty when the facts lack it.
  std::string minimum_driver_for(int cuda_version) const;
  std::string driver_requirement(int cuda_version) const;
  // The variable as the snapshot recorded it; nullopt when unset or not recorded.
  std::optional<std::string> env(const std::string& key) const;
};

using DoctorCheckFunction = void (*)(const CheckContext&, Diagnosis&);

struct DoctorCheck {
  const char* name;  // what it checks, for people reading the table
  DoctorCheckFunction run;
};

// Every check, in the order it runs: a problem found earlier is the one the verdict names.
const std::vector<DoctorCheck>& doctor_checks();

// Shared wording of the checks.
std::string gib(std::uint64_t bytes);
std::string cc_text(const GpuInfo& g);
std::string gpu_label(const GpuInfo& g);
std::string where(const DllInfo& dll);
bool lower_equal(const std::string& a, const std::string& b);
std::string windows_dll_note();
// "cuDNN 9 for CUDA 13.x": the release this build needs of a library.
std::string needed_release(const CheckContext& c, const char* display, const LibraryInfo& lib,
                           LibraryVersion (*decode)(int));
// What to do about a file the loader found first but cannot use.
std::string broken_file_fix(const CheckContext& c, const std::string& file,
                            const std::string& release);

}  // namespace lb::doctor
