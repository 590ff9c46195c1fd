#include "calibration/calibration_data.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace rastro::calibration {
namespace {

TEST(CalibrationData, Parses) {
  auto p = parse_calibration_csv("measured,reference\n12.5,10\n# c\n\n13,10\n", "d.csv");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].reference, 10);
  EXPECT_EQ(p[0].measured, 12.5);
}

TEST(CalibrationData, BadInput) {
  auto err = [](const std::string& text) {
    try {
      parse_calibration_csv(text, "d.csv");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(err("reference,value\n1,2\n").find("d.csv:1: header lacks column 'measured'"), std::string::npos);
  EXPECT_NE(err("reference,measured\n1,x\n").find("d.csv:2: column 'measured' is not a number"), std::string::npos);
  EXPECT_NE(err("reference,measured\ninf,1\n").find("d.csv:2: column 'reference' is not finite"), std::string::npos);
  EXPECT_NE(err("reference,measured\n").find("no data rows"), std::string::npos);
  EXPECT_NE(err("reference,measured\n1\n").find("only 1 fields"), std::string::npos);
}

}  // namespace
}  // namespace rastro::calibration
