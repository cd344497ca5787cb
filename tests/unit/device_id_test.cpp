// Device ids (harness/device_id.hpp): what --device and results files spell, and nothing else.
#include <gtest/gtest.h>

#include "harness/device_id.hpp"

namespace lb {
namespace {

TEST(DeviceId, ParsesTheCpuAndNumberedGpus) {
  for (const char* text : {"cpu", "gpu", "gpu:0", "gpu:7", "gpu:2147483647"}) {
    SCOPED_TRACE(text);
    const auto id = parse_device_id(text);
    ASSERT_TRUE(id);
    EXPECT_EQ(to_string(*id), std::string(text) == "gpu" ? "gpu:0" : text);
  }
  EXPECT_EQ(parse_device_id("gpu:3")->kind, DeviceKind::gpu);
  EXPECT_EQ(parse_device_id("gpu:3")->index, 3);
  EXPECT_EQ(parse_device_id("cpu")->kind, DeviceKind::cpu);
}

TEST(DeviceId, RefusesAnythingElse) {
  // An index past int (once std::stoi's out_of_range, an exit 1 instead of a usage error),
  // signs, spaces, other kinds and an indexed CPU.
  for (const char* text : {"", "gpu:", "gpu:-1", "gpu:+1", "gpu:1x", "gpu: 1", "gpu:2147483648",
                           "gpu:99999999999999999999", "gpu1", "GPU", "cpu:0", "tpu:0", "all"})
    EXPECT_FALSE(parse_device_id(text)) << "'" << text << "'";
}

}  // namespace
}  // namespace lb
