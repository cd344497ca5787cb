#pragma once
// The NVIDIA DLLs a Windows program finds along the DLL search order. Pure functions of folder
// listings: the probe (probe.cpp) lists the real folders, tests pass fabricated ones; what the
// DLLs found mean is diagnose()'s.
#include <string>
#include <vector>

#include "harness/doctor/snapshot.hpp"

namespace lb::doctor {

// A family of DLLs named by version: file names are prefix*suffix, compared without case.
struct DllFamily {
  const char* name;            // "cudart"
  const char* display;         // "CUDA runtime"
  const char* prefix;          // "cudart64_"
  const char* suffix;          // ".dll"
  const char* version_symbol;  // the export that reports its version; nullptr: none read
};
// nvcuda.dll (the driver), cudart64_*.dll, cublas64_*.dll, cublasLt64_*.dll, cudnn64_*.dll and
// cuDNN 9's sub-libraries cudnn_*64_9.dll, in that order.
const std::vector<DllFamily>& nvidia_dll_families();
// The family `file_name` belongs to; nullptr when it is not an NVIDIA DLL the doctor checks.
const DllFamily* dll_family(const std::string& file_name);

// One folder of the DLL search order and the file names in it.
struct FolderListing {
  std::string folder;
  std::string
      origin;  // "application folder", "system folder", "Windows folder", "current folder", "PATH"
  std::vector<std::string> files;
};
// The folders of PATH in order (Windows: separated by ';', quotes removed, empty entries dropped).
std::vector<std::string> path_folders(const std::string& path_value);
// Every NVIDIA DLL in the listings, searched in order: a name (any case) counts once, from the
// first folder that holds it, as LoadLibrary finds it. Versions are left for the probe to read.
std::vector<DllInfo> find_nvidia_dlls(const std::vector<FolderListing>& listings);

}  // namespace lb::doctor
