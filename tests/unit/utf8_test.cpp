// UTF-8 validation against the boundaries of Unicode's table of well-formed sequences, and the
// replacement of what is not UTF-8 (a host name, a command line) before it goes into JSON.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "harness/util/utf8.hpp"

namespace lb {
namespace {

TEST(Utf8, WellFormedSequencesAtTheTablesBoundaries) {
  for (const std::string valid :
       {std::string(""), std::string("plain ascii"), std::string("\x7f"), std::string("\xc2\x80"),
        std::string("\xdf\xbf"), std::string("\xe0\xa0\x80"), std::string("\xed\x9f\xbf"),
        std::string("\xee\x80\x80"), std::string("\xf0\x90\x80\x80"),
        std::string("\xf4\x8f\xbf\xbf"), std::string("h\xc3\xb6st-\xe2\x82\xac")})
    EXPECT_TRUE(is_utf8(valid)) << valid;
}

TEST(Utf8, IllFormedSequences) {
  for (const std::string invalid : {
           std::string("\xff"),              // never in UTF-8
           std::string("\x80"),              // a continuation byte alone
           std::string("\xc0\xaf"),          // overlong '/'
           std::string("\xc1\xbf"),          // overlong
           std::string("\xe0\x9f\xbf"),      // overlong three-byte form
           std::string("\xed\xa0\x80"),      // a surrogate, U+D800
           std::string("\xf0\x8f\xbf\xbf"),  // overlong four-byte form
           std::string("\xf4\x90\x80\x80"),  // beyond U+10FFFF
           std::string("\xf5\x80\x80\x80"),  // lead byte past F4
           std::string("\xe2\x82"),          // cut short at the end
           std::string("\xc3("),             // a lead byte without its continuation
       })
    EXPECT_FALSE(is_utf8(invalid)) << nlohmann::json(utf8_or_replaced(invalid)).dump();
}

TEST(Utf8, ReplacementKeepsValidTextAndMakesJsonWritable) {
  EXPECT_EQ(utf8_or_replaced("h\xc3\xb6st"), "h\xc3\xb6st");
  EXPECT_EQ(utf8_or_replaced("h\xffx"), "h\xef\xbf\xbdx");
  EXPECT_EQ(utf8_or_replaced("\xe2\x82"), "\xef\xbf\xbd\xef\xbf\xbd");
  // What a raw non-UTF-8 host name does to nlohmann's dump, and what the replacement avoids.
  EXPECT_THROW(nlohmann::json("h\xffx").dump(), nlohmann::json::type_error);
  EXPECT_EQ(nlohmann::json(utf8_or_replaced("h\xffx")).dump(), "\"h\xef\xbf\xbdx\"");
}

}  // namespace
}  // namespace lb
