#pragma once
// What oneDNN says about itself: its version and the instruction set it dispatches to. The doctor
// reports them as the oneDNN backend's finding (onednn_descriptor.cpp).
#include <string>

namespace lb::onednn {

struct LibraryInfo {
  std::string version;  // "3.2.0"
  std::string isa;      // what oneDNN dispatches to, e.g. "avx2"
};

// Needs no device.
LibraryInfo probe();

}  // namespace lb::onednn
