// SHA-256 against the test vectors of FIPS 180-2 (appendix B) and NIST's example values, and
// the padding's edge lengths against values computed by Python's hashlib.
#include <gtest/gtest.h>

#include <string>

#include "harness/util/sha256.hpp"

namespace lb {
namespace {

TEST(Sha256, TheStandardsTestVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// 55 bytes: the padding fits the last block; 56: it needs another; 64: a whole block, then
// padding alone.
TEST(Sha256, PaddingAtTheBlockEdges) {
  EXPECT_EQ(sha256_hex(std::string(55, 'x')),
            "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072");
  EXPECT_EQ(sha256_hex(std::string(56, 'x')),
            "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e");
  EXPECT_EQ(sha256_hex(std::string(64, 'x')),
            "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c");
  EXPECT_EQ(sha256_hex(std::string("\xff\x00\x80", 3)),
            "ef192b7af54e943f206ab27075ec1805384c972c9959fc5820f1fa7d5268fcef");
}

}  // namespace
}  // namespace lb
