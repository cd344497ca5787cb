// Bounded JSON parsing (harness/util/json_limits.hpp): each limit exactly at its boundary, and the
// paths the errors name. The model-file limits themselves are tested in model_file_test.
#include "harness/util/json_limits.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace lb {
namespace {

constexpr JsonLimits limits{64, 3};

// Parsing `text` fails with "t.json: " + message.
void expect_error(const std::string& text, const std::string& message) {
  try {
    parse_bounded_json(text, "t.json", limits);
    ADD_FAILURE() << "parsed " << text;
  } catch (const JsonFileError& e) {
    EXPECT_EQ(std::string(e.what()), "t.json: " + message);
  }
}

TEST(JsonLimits, DepthIsCountedInContainersOpenAtOnce) {
  EXPECT_EQ(parse_bounded_json(R"({"a": [{"b": 1}]})", "t.json", limits)["a"][0]["b"], 1);
  expect_error(
      R"({"a": [{"b": []}]})",
      "a[0].b: nested deeper than 3 levels of objects and arrays (the limit for this file)");
  expect_error(
      "[1, [2, [3, [4]]]]",
      "[1][1][1]: nested deeper than 3 levels of objects and arrays (the limit for this file)");
}

TEST(JsonLimits, SizeIsCheckedBeforeParsing) {
  const std::string at_limit = "[" + std::string(62, '1') + "]";
  ASSERT_EQ(at_limit.size(), limits.max_bytes);
  EXPECT_NO_THROW(parse_bounded_json(at_limit, "t.json", limits));
  // One byte more is refused, even though the JSON error would come first otherwise.
  expect_error(at_limit + "]", "larger than 64 bytes (the limit for this file)");
}

TEST(JsonLimits, DuplicateKeysAndOverflowingNumbersNameTheirPath) {
  expect_error(R"({"a": [0, {"b": 1, "b": 2}]})", "a[1]: duplicate key \"b\"");
  expect_error("{\"a\": 1,\n \"b\": [0, 2e400]}",
               "line 2: b[1]: number 2e400 is out of range (beyond a double's)");
  expect_error("{\"a\": 1,\n\n \"b\" 2}",
               "line 3: not valid JSON: syntax error while parsing object separator - unexpected "
               "number literal; expected ':'");
}

TEST(JsonLimits, MissingFileIsNamed) {
  try {
    read_bounded_json("/nonexistent/t.json", limits);
    FAIL() << "read a missing file";
  } catch (const JsonFileError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/t.json: cannot be opened for reading (No such file or directory)");
  }
}

// A FIFO would block the read forever with no writer: refused before a byte is read.
TEST(JsonLimits, FifoIsRefusedNotWaitedOn) {
  const auto fifo =
      std::filesystem::temp_directory_path() / ("json_limits_fifo_" + std::to_string(::getpid()));
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    read_bounded_json(fifo, limits);
    ADD_FAILURE() << "read a FIFO";
  } catch (const JsonFileError& e) {
    EXPECT_EQ(std::string(e.what()), fifo.string() + ": is a FIFO, not a regular file");
  }
  std::filesystem::remove(fifo);
}

}  // namespace
}  // namespace lb
