#pragma once
// Where layerbench's shipped data files (bench/models, bench/facts, bench/probe) are found
// without flags: next to the binary in the build tree (<build>/share/layerbench) and under an
// install prefix
// (<prefix>/bin/layerbench -> <prefix>/share/layerbench). LAYERBENCH_DATA_DIR overrides both.
#include <filesystem>

namespace lb {

// The folder holding "models/" and "facts/"; throws std::runtime_error listing where it looked.
std::filesystem::path data_dir();

}  // namespace lb
