// The doctor's Windows DLL search (windows_dlls.hpp) and what diagnose() and the TensorFlow
// check make of the DLLs found, on fabricated folder listings and snapshots.
//
// Every folder, DLL, version and driver below is TEST DATA standing in for a Windows machine
// this test does not have; tests/windows/wine_doctor.sh runs the real probe under Wine.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "harness/doctor/diagnose.hpp"
#include "harness/doctor/facts.hpp"
#include "harness/doctor/windows_dlls.hpp"
#include "harness/util/data_paths.hpp"

namespace lb::doctor {
namespace {

const Facts& facts() {
  static const Facts f = load_facts();
  return f;
}

std::string family_of(const std::string& file) {
  const DllFamily* f = dll_family(file);
  return f ? f->name : "";
}

TEST(WindowsDlls, FamiliesByNameIgnoringCase) {
  EXPECT_EQ(family_of("nvcuda.dll"), "driver");
  EXPECT_EQ(family_of("NVCUDA.DLL"), "driver");
  EXPECT_EQ(family_of("cudart64_110.dll"), "cudart");
  EXPECT_EQ(family_of("cudart64_12.dll"), "cudart");
  EXPECT_EQ(family_of("cublas64_11.dll"), "cublas");
  EXPECT_EQ(family_of("cublasLt64_11.dll"), "cublasLt");
  EXPECT_EQ(family_of("CUDNN64_8.DLL"), "cudnn");
  EXPECT_EQ(family_of("cudnn_graph64_9.dll"), "cudnn_sublibrary");
  for (const char* other : {"nvcuda64.dll", "cudart64_.dll", "cudart.dll", "cudart64_110.lib",
                            "cufft64_10.dll", "cudnn_ops_infer64_8.dll", "kernel32.dll"})
    EXPECT_EQ(family_of(other), "") << other;
}

TEST(WindowsDlls, PathFoldersDropEmptyEntriesAndQuotes) {
  EXPECT_EQ(path_folders(R"(C:\a;;"C:\Program Files\b";  ;C:\c;)"),
            (std::vector<std::string>{R"(C:\a)", R"(C:\Program Files\b)", R"(C:\c)"}));
  EXPECT_EQ(path_folders(""), std::vector<std::string>{});
}

TEST(WindowsDlls, FirstFolderInSearchOrderWins) {
  const std::vector<FolderListing> listings = {
      {R"(C:\app)", "application folder", {"layerbench.exe", "CUDART64_110.DLL"}},
      {R"(C:\Windows\System32)", "system folder", {"nvcuda.dll", "kernel32.dll"}},
      {R"(C:\cuda\bin)", "PATH", {"cudart64_110.dll", "cublas64_11.dll", "cufft64_10.dll"}},
      {R"(C:\cudnn\bin)", "PATH", {"cudnn64_8.dll", "cublas64_11.dll"}}};
  const auto found = find_nvidia_dlls(listings);
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[0].name, "CUDART64_110.DLL");  // the application folder's copy
  EXPECT_EQ(found[0].origin, "application folder");
  EXPECT_EQ(found[1].name, "nvcuda.dll");
  EXPECT_EQ(found[1].folder, R"(C:\Windows\System32)");
  EXPECT_EQ(found[2].name, "cublas64_11.dll");
  EXPECT_EQ(found[2].folder, R"(C:\cuda\bin)");  // not the later C:\cudnn\bin copy
  EXPECT_EQ(found[3].name, "cudnn64_8.dll");
  EXPECT_EQ(found[3].origin, "PATH");
}

// A Windows machine as the MinGW build probes it: no CUDA in layerbench itself.
Snapshot windows_machine(int driver_max_cuda) {
  Snapshot s;
  s.os = "windows";
  s.cpu.threads = 8;
  s.nvidia.driver = {true, R"(C:\Windows\System32\nvcuda.dll)", "", "", driver_max_cuda};
  s.nvidia.dll_search = true;
  s.nvidia.dlls = {{"nvcuda.dll", "driver", R"(C:\Windows\System32)", "system folder", "", ""},
                   {"cudart64_110.dll", "cudart", R"(C:\cuda\bin)", "PATH", "11.2", ""},
                   {"cublas64_11.dll", "cublas", R"(C:\cuda\bin)", "PATH", "11.4.1", ""},
                   {"cublasLt64_11.dll", "cublasLt", R"(C:\cuda\bin)", "PATH", "11.4.1", ""}};
  return s;
}

const RequirementCheck& row(const FrameworkCheck& check, const std::string& item) {
  for (const auto& r : check.checks)
    if (r.item == item) return r;
  throw std::runtime_error("no row " + item);
}

TEST(WindowsDlls, TensorflowTenWithoutCudnnNamesTheDllAndTheFix) {
  const auto check =
      check_framework(windows_machine(12020), facts(), parse_framework_target("tensorflow==2.10"));
  EXPECT_FALSE(check.all_ok);
  EXPECT_TRUE(row(check, "CUDA").ok);
  EXPECT_EQ(row(check, "CUDA").found, R"(11.2 (cudart64_110.dll in C:\cuda\bin (PATH)))");
  EXPECT_FALSE(row(check, "cuDNN").ok);
  EXPECT_TRUE(row(check, "cudart64_110.dll").ok);
  EXPECT_TRUE(row(check, "cublasLt64_11.dll").ok);
  const auto& cudnn = row(check, "cudnn64_8.dll");
  EXPECT_FALSE(cudnn.ok);
  EXPECT_EQ(cudnn.note,
            "install cuDNN 8.1 for CUDA 11.x and put the folder holding cudnn64_8.dll on PATH");
}

TEST(WindowsDlls, AnotherVersionOfADllIsNotTheOneTensorflowLoads) {
  Snapshot s = windows_machine(12020);
  s.nvidia.dlls.push_back({"cudnn64_9.dll", "cudnn", R"(C:\cudnn9\bin)", "PATH", "9.1.0", ""});
  const auto check = check_framework(s, facts(), parse_framework_target("tensorflow==2.9"));
  EXPECT_FALSE(row(check, "cudnn64_8.dll").ok);
  EXPECT_EQ(
      row(check, "cudnn64_8.dll").found,
      R"(not found along the DLL search order; cudnn64_9.dll in C:\cudnn9\bin (PATH) is another version)");
  EXPECT_FALSE(row(check, "cuDNN").ok);
  EXPECT_EQ(row(check, "cuDNN").note, "a different major version: TensorFlow 2.9 needs cuDNN 8.x");
}

TEST(WindowsDlls, TensorflowAfterTenNamesNoDllsAndSaysWsl2) {
  const auto check =
      check_framework(windows_machine(12020), facts(), parse_framework_target("tensorflow==2.15"));
  EXPECT_FALSE(row(check, "platform").ok);
  EXPECT_EQ(row(check, "platform").note, "run TensorFlow 2.15 inside WSL2 to use the GPU");
  for (const auto& r : check.checks) EXPECT_EQ(dll_family(r.item), nullptr) << r.item;
}

TEST(WindowsDlls, DriverTooOldForARuntimeDllIsTheReason) {
  const Diagnosis d = diagnose(windows_machine(10020), facts());
  EXPECT_FALSE(d.gpu_usable);
  EXPECT_EQ(
      d.reason,
      R"(NVIDIA driver supports CUDA up to 10.2, too old for the CUDA 11.2 runtime cudart64_110.dll in C:\cuda\bin (PATH))");
  EXPECT_EQ(d.fixes.front(),
            "Update the NVIDIA driver: CUDA 11.2 needs driver >= 452.39, the Windows minimum for "
            "CUDA 11.x.");
}

TEST(WindowsDlls, FindingsListEachDllAndMissingFamilies) {
  const Diagnosis d = diagnose(windows_machine(12020), facts());
  EXPECT_EQ(d.reason, "this layerbench was built without CUDA");
  EXPECT_NE(d.fixes.front().find("build layerbench with CUDA under Linux or WSL2"),
            std::string::npos);
  std::vector<std::string> dll_messages;
  for (const auto& f : d.findings)
    if (f.subject == "dlls") dll_messages.push_back(f.message);
  EXPECT_EQ(dll_messages,
            (std::vector<std::string>{
                "no cuDNN DLL (cudnn64_*.dll) along the DLL search order (application folder, "
                "System32, Windows folder, current folder, PATH)",
                R"(nvcuda.dll in C:\Windows\System32 (system folder))",
                R"(cudart64_110.dll 11.2 in C:\cuda\bin (PATH))",
                R"(cublas64_11.dll 11.4.1 in C:\cuda\bin (PATH))",
                R"(cublasLt64_11.dll 11.4.1 in C:\cuda\bin (PATH))"}));
}

TEST(WindowsDlls, LinuxSnapshotsHaveNoDllFindings) {
  Snapshot s = windows_machine(12020);
  s.os = "linux";
  s.nvidia.dll_search = false;
  s.nvidia.dlls.clear();
  for (const auto& f : diagnose(s, facts()).findings) EXPECT_NE(f.subject, "dlls") << f.message;
}

TEST(WindowsDlls, FactsNameTheDllsPerRelease) {
  ASSERT_NE(tensorflow_windows_dlls(facts(), "2.10.1"), nullptr);
  EXPECT_EQ(tensorflow_windows_dlls(facts(), "2.10.1")->dlls,
            (std::vector<std::string>{"cudart64_110.dll", "cublas64_11.dll", "cublasLt64_11.dll",
                                      "cudnn64_8.dll"}));
  EXPECT_EQ(tensorflow_windows_dlls(facts(), "2.2")->dlls.front(), "cudart64_101.dll");
  EXPECT_EQ(tensorflow_windows_dlls(facts(), "2.11"), nullptr);  // no native Windows GPU
}

TEST(WindowsDlls, FactsRefuseANameTheDoctorDoesNotCheck) {
  const auto dir = std::filesystem::temp_directory_path() / "layerbench_windows_dlls_bad_facts";
  std::filesystem::create_directories(dir);
  for (const char* name : {"cuda_drivers.json", "tensor_cores.json", "tensorflow_builds.json"})
    std::filesystem::copy_file(data_dir() / "facts" / name, dir / name,
                               std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir / "tensorflow_windows_dlls.json")
      << R"({"source": "test", "builds": [{"first": "2.4", "last": "2.10", "dlls": ["cudart64_110.dll", "cufft64_10.dll"]}]})";
  try {
    load_facts(dir);
    ADD_FAILURE() << "cufft64_10.dll, a DLL the doctor does not check, was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "tensorflow_windows_dlls.json: builds[0].dlls[1]: must be the file name of an "
                  "NVIDIA DLL the doctor checks, e.g. cudnn64_8.dll, is "
                  "\"cufft64_10.dll\""),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace lb::doctor
