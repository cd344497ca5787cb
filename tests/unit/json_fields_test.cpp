#include "harness/util/json_fields.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace lb {
namespace {

using nlohmann::json;

// The message `read` fails with, or "(no error)".
template <class Read>
std::string error_of(Read&& read) {
  try {
    read();
  } catch (const FieldError& e) {
    return e.what();
  }
  return "(no error)";
}

const json doc = json::parse(R"({
  "name": "m", "empty": "", "flag": true, "size": 8, "zero": 0, "negative": -1,
  "fraction": 4.5, "quoted": "16", "huge": 1e30, "big": 3000000000, "nothing": null,
  "ops": [{"k": 3}, {"c": 1}]
})");
const JsonField top(doc, "models/m.json");

TEST(JsonFields, MissingNamesFileAndPath) {
  EXPECT_EQ(error_of([] { top["title"]; }), "models/m.json: title: missing");
  EXPECT_EQ(error_of([] { top["ops"][1]["k"]; }), "models/m.json: ops[1].k: missing");
  EXPECT_FALSE(top.optional("title"));
  EXPECT_EQ(top.optional("size")->integer<int>(), 8);
  // A path with no file (a document built in memory) and a field of the document itself.
  EXPECT_EQ(error_of([] { JsonField(doc, "")["title"]; }), "title: missing");
  EXPECT_EQ(error_of([] { top.require_object("a list"); }), "(no error)");
  EXPECT_EQ(error_of([] { JsonField(doc["ops"], "m.json").require_object("a model"); }),
            "m.json: must be a model, is [{\"k\":3},{\"c\":1}]");
}

TEST(JsonFields, WrongTypeSaysWhatItMustBeAndWhatItIs) {
  EXPECT_EQ(error_of([] { top["flag"].string(); }),
            "models/m.json: flag: must be a string, is true");
  EXPECT_EQ(error_of([] { top["empty"].text(); }),
            "models/m.json: empty: must be a non-empty string, is \"\"");
  EXPECT_EQ(error_of([] { top["size"].boolean(); }),
            "models/m.json: size: must be true or false, is 8");
  EXPECT_EQ(error_of([] { top["quoted"].integer<int>(1); }),
            "models/m.json: quoted: must be a positive integer, is \"16\"");
  EXPECT_EQ(error_of([] { top["fraction"].integer<std::int64_t>(0); }),
            "models/m.json: fraction: must be a non-negative integer, is 4.5");
  EXPECT_EQ(error_of([] { top["nothing"].number(); }),
            "models/m.json: nothing: must be a finite number, is null");
  EXPECT_EQ(error_of([] { top["name"]["x"]; }), "models/m.json: name: must be an object, is \"m\"");
  EXPECT_EQ(error_of([] { top["name"].array("an array of operations"); }),
            "models/m.json: name: must be an array of operations, is \"m\"");
  EXPECT_EQ(top["name"].string(), "m");
  EXPECT_TRUE(top["flag"].boolean());
  EXPECT_DOUBLE_EQ(top["fraction"].positive_number(), 4.5);
}

TEST(JsonFields, OutOfRangeIsRefusedBeforeConversion) {
  EXPECT_EQ(error_of([] { top["zero"].integer<int>(1); }),
            "models/m.json: zero: must be a positive integer, is 0");
  EXPECT_EQ(error_of([] { top["negative"].integer<std::uint64_t>(); }),
            "models/m.json: negative: must be a non-negative integer, is -1");
  EXPECT_EQ(error_of([] { top["big"].integer<int>(); }),
            "models/m.json: big: must be at most 2147483647, is 3000000000");
  EXPECT_EQ(error_of([] { top["size"].integer<std::int64_t>(1, 4); }),
            "models/m.json: size: must be at most 4, is 8");
  EXPECT_EQ(error_of([] { top["size"].integer<int>(9); }),
            "models/m.json: size: must be an integer of at least 9, is 8");
  // 1e30 is a double in JSON: no integer type gets it (nlohmann's cast would be undefined).
  EXPECT_EQ(error_of([] { top["huge"].integer<std::uint64_t>(); }),
            "models/m.json: huge: must be a non-negative integer, is 1e+30");
  EXPECT_EQ(error_of([] { top["negative"].positive_number(); }),
            "models/m.json: negative: must be a positive number, is -1");
  EXPECT_EQ(top["big"].integer<std::int64_t>(), 3000000000);
  EXPECT_EQ(top["negative"].integer<int>(), -1);
}

TEST(JsonFields, IntegerLimitsOfEachTypeHold) {
  const json limits = json::parse(
      R"({"u64": 18446744073709551615, "over_u64": 18446744073709551616,
          "i64_min": -9223372036854775808, "i64_max": 9223372036854775807})");
  const JsonField f(limits, "limits.json");
  EXPECT_EQ(f["u64"].integer<std::uint64_t>(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(error_of([&] { f["u64"].integer<std::int64_t>(); }),
            "limits.json: u64: must be at most 9223372036854775807, is 18446744073709551615");
  EXPECT_EQ(error_of([&] { f["over_u64"].integer<std::uint64_t>(); }),
            "limits.json: over_u64: must be a non-negative integer, is 1.8446744073709552e+19");
  EXPECT_EQ(f["i64_min"].integer<std::int64_t>(), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(error_of([&] { f["i64_min"].integer<int>(); }),
            "limits.json: i64_min: must be an integer, is -9223372036854775808");
  EXPECT_EQ(error_of([&] { f["i64_max"].integer<std::uint32_t>(); }),
            "limits.json: i64_max: must be at most 4294967295, is 9223372036854775807");
}

TEST(JsonFields, NonFiniteNumbersAreRefusedWhereNumbersMustBeFinite) {
  // JSON text holds no NaN or infinity; a document built in memory can.
  const json values = {{"nan", std::nan("")},
                       {"inf", std::numeric_limits<double>::infinity()},
                       {"minus_inf", -std::numeric_limits<double>::infinity()}};
  const JsonField f(values, "points.json", "points[2]");
  EXPECT_EQ(error_of([&] { f["nan"].number(); }),
            "points.json: points[2].nan: must be a finite number, is NaN");
  EXPECT_EQ(error_of([&] { f["inf"].positive_number(); }),
            "points.json: points[2].inf: must be a positive number, is inf");
  EXPECT_EQ(error_of([&] { f["minus_inf"].number(); }),
            "points.json: points[2].minus_inf: must be a finite number, is -inf");
  EXPECT_EQ(error_of([&] { f["inf"].integer<int>(); }),
            "points.json: points[2].inf: must be an integer, is inf");
}

TEST(JsonFields, ArraysAndNestedPaths) {
  const JsonField ops = top["ops"];
  EXPECT_EQ(ops.array("a non-empty array", 1), 2u);
  EXPECT_EQ(error_of([&] { ops.array("at most one op", 0, 1); }),
            "models/m.json: ops: must be at most one op, is [{\"k\":3},{\"c\":1}]");
  EXPECT_EQ(ops[0]["k"].integer<int>(), 3);
  EXPECT_EQ(ops[1]["c"].path(), "ops[1].c");
  EXPECT_EQ(error_of([&] { ops[1]["c"].text(); }),
            "models/m.json: ops[1].c: must be a non-empty string, is 1");
  EXPECT_EQ(error_of([&] { ops[0].fail("output height is not positive"); }),
            "models/m.json: ops[0]: output height is not positive");
}

TEST(JsonFields, UnknownFieldsAreNamed) {
  EXPECT_EQ(error_of([] { top["ops"][1].allow_only({"c"}); }), "(no error)");
  EXPECT_EQ(error_of([] { top["ops"][1].allow_only({"k"}); }),
            "models/m.json: ops[1].c: unknown field");
}

TEST(JsonFields, LongValuesAreCutShort) {
  const json long_text = {{"s", std::string(100, 'x')}};
  EXPECT_EQ(error_of([&] { JsonField(long_text, "f.json")["s"].boolean(); }),
            "f.json: s: must be true or false, is \"" + std::string(39, 'x') + "...");
}

}  // namespace
}  // namespace lb
