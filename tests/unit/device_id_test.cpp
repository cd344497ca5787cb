// Device ids (harness/api/device_id.hpp): what --device and results files spell, and nothing else.
#include <gtest/gtest.h>

#include "harness/api/device_id.hpp"

namespace lb {
namespace {

TEST(DeviceId, ParsesTheCpuAndNumberedDevicesOfAnyKind) {
  for (const char* text :
       {"cpu", "gpu", "gpu:0", "gpu:7", "gpu:2147483647", "test_accelerator:1", "npu2:0"}) {
    SCOPED_TRACE(text);
    const auto id = parse_device_id(text);
    ASSERT_TRUE(id);
    EXPECT_EQ(to_string(*id), std::string(text) == "gpu" ? "gpu:0" : text);
  }
  EXPECT_EQ(parse_device_id("gpu:3")->kind, "gpu");
  EXPECT_EQ(parse_device_id("gpu:3")->index, 3);
  EXPECT_TRUE(parse_device_id("cpu")->is_cpu());
  EXPECT_EQ(parse_device_id("test_accelerator")->kind, "test_accelerator");
  EXPECT_FALSE(parse_device_id("test_accelerator")->is_cpu());
}

TEST(DeviceId, RefusesAnythingElse) {
  // An index past int (once std::stoi's out_of_range, an exit 1 instead of a usage error),
  // signs, spaces, kinds that would make "kind:N" or "device@backend" ambiguous, and an
  // indexed CPU.
  for (const char* text :
       {"", "gpu:", "gpu:-1", "gpu:+1", "gpu:1x", "gpu: 1", "gpu:2147483648",
        "gpu:99999999999999999999", "GPU", "cpu:0", "1gpu", "gpu@x", "a-b:0", "_gpu", ":0"})
    EXPECT_FALSE(parse_device_id(text)) << "'" << text << "'";
}

}  // namespace
}  // namespace lb
