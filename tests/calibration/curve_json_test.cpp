#include "calibration/curve_json.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "common/error.h"
#include "tests/metrology/r_oracle.h"

namespace rastro::calibration {
namespace {

TEST(CurveJson, RoundTrip) {
  auto c = fit_curve(std::vector<CalibrationPoint>{{10, 13}, {10, 12.6}, {50, 63}, {50, 64.1}, {90, 113}},
                     CurveKind::kLinear).value();
  c.domain.environment = {{"kernel", "6.1"}};
  c.domain.background = 1;
  const auto path = rastro::testing::temp_path("curve");
  write_curve(path, c);
  auto back = read_curve(path);
  std::filesystem::remove(path);
  EXPECT_EQ(back.kind, c.kind);
  EXPECT_EQ(back.b0, c.b0);
  EXPECT_EQ(back.b1, c.b1);
  EXPECT_EQ(*back.s_yx, *c.s_yx);
  EXPECT_EQ(*back.r2, *c.r2);
  EXPECT_EQ(back.n, c.n);
  EXPECT_EQ(back.sxx, c.sxx);
  EXPECT_EQ(back.domain.x_min, 10);
  EXPECT_EQ(back.domain.x_max, 90);
  EXPECT_EQ(back.domain.environment, c.domain.environment);
  EXPECT_EQ(*back.domain.background, 1);
}

TEST(CurveJson, UndefinedIsNullWithReasonNeverNaN) {
  auto c = fit_curve(std::vector<CalibrationPoint>{{10, 22}, {100, 202}}, CurveKind::kTwoPoint).value();
  auto j = to_json(c);
  EXPECT_TRUE(j["s_yx"].is_null());
  EXPECT_TRUE(j["undefined"]["s_yx"].is_string());
  EXPECT_EQ(j.dump().find("NaN"), std::string::npos);
  EXPECT_EQ(j.dump().find("nan"), std::string::npos);
  auto back = curve_from_json(j, "x.json");
  EXPECT_FALSE(back.s_yx.has_value());
}

TEST(CurveJson, BadJsonNamesTheKey) {
  auto base = to_json(fit_curve(std::vector<CalibrationPoint>{{1, 2}, {2, 4}, {3, 6.1}}, CurveKind::kLinear).value());
  auto expect_error = [](nlohmann::json j, const std::string& needle) {
    try {
      curve_from_json(j, "c.json");
      ADD_FAILURE() << "accepted " << j.dump();
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  auto j = base;
  j.erase("b1");
  expect_error(j, "c.json: calibration curve lacks key 'b1'");
  j = base;
  j["b1"] = 0;
  expect_error(j, "slope b1 is 0");
  j = base;
  j["format"] = "other";
  expect_error(j, "not a rastro calibration curve");
  j = base;
  j["kind"] = "cubic";
  expect_error(j, "unknown curve kind");
  j = base;
  j["x_min"] = 1000;
  expect_error(j, "x_min > x_max");
  expect_error(nlohmann::json::array(), "must be a JSON object");
  EXPECT_THROW(read_curve("/nonexistent/curve.json"), Error);
}

// Fuzzer finding F2 (docs/reliability.md): wrong JSON types are rastro::Errors, never escaping
// nlohmann exceptions.
TEST(CurveJson, WrongTypesAreRastroErrors) {
  for (const char* text : {R"({"format":5713.808})", R"({"format":"rastro-calibration-curve","version":"x"})",
                           R"({"format":"rastro-calibration-curve","version":1,"kind":"linear","b0":"a"})"}) {
    try {
      curve_from_json(nlohmann::json::parse(text), "fuzz.json");
      ADD_FAILURE() << "accepted " << text;
    } catch (const Error&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << text << " threw a non-rastro exception: " << e.what();
    }
  }
}

// Fuzzer finding F3 (docs/reliability.md): a huge sample size was cast to size_t (undefined
// behaviour); now it is refused naming the key.
TEST(CurveJson, HugeSampleSizeIsRefused) {
  auto j = nlohmann::json::parse(R"({"format": "rastro-calibration-curve", "version": 1, "kind": "linear",
    "unit": "us", "b0": 1.9, "b1": 0.12, "n": 30008198552921648689698.0, "x_min": 10, "x_max": 100})");
  try {
    curve_from_json(j, "fuzz.json");
    ADD_FAILURE() << "accepted n = 3e22";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'n'"), std::string::npos) << e.what();
  }
}

// Fuzzer finding F5 (docs/reliability.md): a huge "version" was read with j.value("version", 0),
// a float-to-int conversion (undefined behaviour); now it is an error naming the version.
TEST(CurveJson, HugeOrFractionalVersionIsRefused) {
  for (const char* v : {"18888888888888888888888888888888888888888888", "1.5", "-1", "\"1\""}) {
    auto j = nlohmann::json::parse(std::string(R"({"format": "rastro-calibration-curve", "version": )") + v +
                                   R"(, "kind": "linear", "unit": "us", "b0": 1.9, "b1": 1.12, "n": 30, "x_min": 1, "x_max": 2})");
    try {
      curve_from_json(j, "fuzz.json");
      ADD_FAILURE() << "accepted version " << v;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("version"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace rastro::calibration
