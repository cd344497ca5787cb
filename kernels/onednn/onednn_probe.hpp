#pragma once
// What oneDNN says about itself: its version and the instruction set it dispatches to.
#include "harness/doctor/snapshot.hpp"

namespace lb::onednn {

// Fills cpu.onednn_version ("3.2.0") and cpu.onednn_isa (e.g. "avx2"). Needs no device.
void probe(doctor::CpuInfo& cpu);

}  // namespace lb::onednn
