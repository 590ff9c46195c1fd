#include "calibration/validity_domain.h"

#include <gtest/gtest.h>

namespace rastro::calibration {
namespace {

bool any_contains(const std::vector<std::string>& ws, const std::string& needle) {
  for (const auto& w : ws)
    if (w.find(needle) != std::string::npos) return true;
  return false;
}

ValidityDomain domain() {
  ValidityDomain d;
  d.x_min = 10;
  d.x_max = 100;
  d.environment = {{"kernel", {{"release", "6.1.0-13-amd64"}}},
                   {"cpu", {{"model", "Xeon"}, {"mhz", 2100.5}}},
                   {"timestamp", "2026-11-22"}};
  d.background = 0;
  return d;
}

TEST(ValidityDomain, SameConditionsNoWarnings) {
  ApplicationContext w;
  w.environment = {{"kernel", {{"release", "6.1.0-13-amd64"}}},
                   {"cpu", {{"model", "Xeon"}, {"mhz", 1800.0}}},  // frequency is volatile
                   {"timestamp", "2027-01-01"}};
  w.background = 0;
  w.value_min = 20;
  w.value_max = 90;
  EXPECT_TRUE(validity_warnings(domain(), w).empty());
}

TEST(ValidityDomain, OtherKernelBackgroundAndRangeWarn) {
  ApplicationContext w;
  w.environment = {{"kernel", {{"release", "2.6.32"}}}};
  w.background = 1;
  w.value_min = 2;
  w.value_max = 90;
  w.values_below = 3;
  auto ws = validity_warnings(domain(), w);
  EXPECT_TRUE(any_contains(ws, "'kernel.release' differs: curve fitted with '6.1.0-13-amd64', applied to '2.6.32'"));
  EXPECT_TRUE(any_contains(ws, "'cpu.model' is unknown here"));
  EXPECT_TRUE(any_contains(ws, "background load level differs: curve fitted at 0, applied at 1"));
  EXPECT_TRUE(any_contains(ws, "3 values below"));
}

TEST(ValidityDomain, MissingRecordsWarn) {
  ValidityDomain d;
  d.x_min = 1;
  d.x_max = 2;
  auto ws = validity_warnings(d, ApplicationContext{});
  EXPECT_TRUE(any_contains(ws, "no environment inventory"));
  EXPECT_TRUE(any_contains(ws, "no background load level"));
  ApplicationContext w;
  EXPECT_TRUE(any_contains(validity_warnings(domain(), w), "background load level of the target is unknown"));
}

}  // namespace
}  // namespace rastro::calibration
