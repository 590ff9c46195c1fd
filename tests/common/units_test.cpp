#include "common/units.h"

#include <gtest/gtest.h>

namespace rastro {
namespace {

TEST(ParseSize, AcceptsUnits) {
  EXPECT_EQ(parse_size("4096").value(), 4096u);
  EXPECT_EQ(parse_size("4K").value(), 4096u);
  EXPECT_EQ(parse_size("4KiB").value(), 4096u);
  EXPECT_EQ(parse_size("1G").value(), 1ull << 30);
  EXPECT_EQ(parse_size("2m").value(), 2ull << 20);
}

TEST(ParseSize, RejectsBadInput) {
  EXPECT_FALSE(parse_size("-1").ok());
  EXPECT_FALSE(parse_size("").ok());
  EXPECT_FALSE(parse_size("12Q").ok());
  EXPECT_FALSE(parse_size("99999999999999999999").ok());
  EXPECT_FALSE(parse_size("20000000T").ok());
}

TEST(ParseDuration, Units) {
  EXPECT_EQ(parse_duration_ns("10us").value(), 10000);
  EXPECT_EQ(parse_duration_ns("1.5s").value(), 1500000000);
  EXPECT_EQ(parse_duration_ns("2").value(), 2000000000);
  EXPECT_FALSE(parse_duration_ns("-3s").ok());
  EXPECT_FALSE(parse_duration_ns("3 parsecs").ok());
}

}  // namespace
}  // namespace rastro
