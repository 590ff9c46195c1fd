#include "calibration/trace_correction.h"

#include <gtest/gtest.h>

namespace rastro::calibration {
namespace {

trace::Trace make_trace() {
  trace::Trace t;
  t.header.kernel = "6.1.0";
  t.header.environment = {{"cpu", {{"model", "Xeon"}}}};
  t.header.background_load = {{"level", 0}};
  for (int i = 0; i < 4; ++i) {
    trace::Event e;
    e.seq = static_cast<uint64_t>(i);
    e.nr = i < 3 ? 0 : 1;  // read, read, read, write
    e.begin_ns = 1000000 * i;
    e.end_ns = e.begin_ns + 12000 + 1000 * i;  // 12, 13, 14, 15 µs
    t.events.push_back(e);
  }
  trace::Event unfinished;
  unfinished.seq = 4;
  unfinished.flags = trace::kEventUnfinished;
  t.events.push_back(unfinished);
  return t;
}

CalibrationCurve curve() {
  CalibrationCurve c;
  c.kind = CurveKind::kLinear;
  c.b0 = 2;    // µs
  c.b1 = 1.0;  // measured = reference + 2 µs
  c.n = 10;
  c.df = 8;
  c.s_yx = 0.1;
  c.sxx = 100;
  c.domain.x_min = 9;
  c.domain.x_max = 20;
  c.domain.environment = {{"kernel", "6.1.0"}, {"cpu", {{"model", "Xeon"}}}};
  c.domain.background = 0;
  return c;
}

TEST(TraceCorrection, CorrectsKeepsRawAndRecords) {
  auto t = make_trace();
  auto rep = apply_curve(t, curve(), {"curve.json", std::nullopt, {}}).value();
  EXPECT_EQ(rep.corrected, 4u);
  EXPECT_EQ(rep.skipped_unfinished, 1u);
  EXPECT_TRUE(rep.warnings.empty()) << rep.warnings.front();
  for (int i = 0; i < 4; ++i) {
    const auto& e = t.events[static_cast<size_t>(i)];
    EXPECT_TRUE(e.flags & trace::kEventCalibrated);
    EXPECT_EQ(e.duration_ns(), 10000 + 1000 * i);
    EXPECT_EQ(e.raw_end_ns - e.begin_ns, 12000 + 1000 * i);
  }
  EXPECT_FALSE(t.events[4].flags & trace::kEventCalibrated);
  const auto& rec = t.header.extra["calibration"];
  EXPECT_EQ(rec["curve_source"], "curve.json");
  EXPECT_EQ(rec["curve"]["b0"], 2.0);
  EXPECT_EQ(rec["events_corrected"], 4);
  // Applying twice is refused: corrections would compound.
  EXPECT_FALSE(apply_curve(t, curve(), {}).ok());
}

TEST(TraceCorrection, FilterOutOfRangeAndOtherEnvironmentWarn) {
  auto t = make_trace();
  t.header.kernel = "2.6.32";
  t.header.background_load = {{"level", 1}};
  auto c = curve();
  c.b0 = 13;  // corrected times become -1, 0, 1 µs: below the range and clamped
  auto rep = apply_curve(t, c, {"c.json", std::nullopt, {0}}).value();
  EXPECT_EQ(rep.corrected, 3u);
  EXPECT_EQ(rep.skipped_filtered, 1u);
  EXPECT_EQ(rep.clamped_to_zero, 1u);
  EXPECT_EQ(t.events[0].duration_ns(), 0);
  EXPECT_EQ(t.events[3].duration_ns(), 15000);  // write untouched
  EXPECT_FALSE(t.events[3].flags & trace::kEventCalibrated);
  std::string all;
  for (auto& w : rep.warnings) all += w + "\n";
  EXPECT_NE(all.find("'kernel' differs"), std::string::npos) << all;
  EXPECT_NE(all.find("background load level differs"), std::string::npos) << all;
  EXPECT_NE(all.find("3 values below"), std::string::npos) << all;
  EXPECT_NE(all.find("negative corrected time"), std::string::npos) << all;
  EXPECT_EQ(t.header.extra["calibration"]["warnings"].size(), rep.warnings.size());
}

TEST(TraceCorrection, UnitsAndBadCurves) {
  EXPECT_EQ(ns_per_unit("ms").value(), 1e6);
  EXPECT_FALSE(ns_per_unit("fortnight").ok());
  auto t = make_trace();
  auto c = curve();
  c.unit = "ns";
  c.b0 = 0;
  c.b1 = 2;  // halve every duration
  apply_curve(t, c, {}).value();
  EXPECT_EQ(t.events[0].duration_ns(), 6000);
  auto t2 = make_trace();
  c.b1 = 0;
  EXPECT_FALSE(apply_curve(t2, c, {}).ok());
  EXPECT_FALSE(t2.events[0].flags & trace::kEventCalibrated);
}

}  // namespace
}  // namespace rastro::calibration
