#pragma once
// SHA-256 (FIPS 180-4) of a byte string, as lowercase hex: the content hash a results file
// records of each model file it measures, so that --resume can tell a changed file. Small and
// self-contained so that every build (the MinGW cross build included) has it without a crypto
// library; tests/unit/sha256_test.cpp checks it against the standard's test vectors.
#include <string>
#include <string_view>

namespace lb {

std::string sha256_hex(std::string_view bytes);

}  // namespace lb
