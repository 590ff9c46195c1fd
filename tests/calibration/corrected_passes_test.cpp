// CorrectedPasses (streaming `calibrate apply`) against apply_curve on the whole trace: the same
// corrected events, counts, warnings and header record, from a binary file read in passes, with
// non-dense seq numbers kept.
#include "calibration/corrected_passes.h"

#include <unistd.h>

#include <filesystem>
#include <random>

#include <gtest/gtest.h>

#include "trace/formats/binary/binary_writer.h"
#include "trace/io/trace_io.h"

namespace rastro::calibration {
namespace {

namespace fs = std::filesystem;

TEST(CorrectedPasses, StreamsWhatApplyCurveComputes) {
  trace::Trace t;
  t.header.kernel = "6.1.0";
  t.header.background_load = {{"level", 0}};
  std::mt19937_64 rng(4);
  for (int i = 0; i < 3000; ++i) {
    trace::Event e;
    e.seq = static_cast<uint64_t>(i * 2);  // a filtered trace: seq kept as is
    e.nr = i % 3 == 0 ? 1 : 0;
    e.begin_ns = int64_t{1000000} * i;
    e.end_ns = e.begin_ns + 3000 + static_cast<int64_t>(rng() % 20000);
    if (i % 100 == 7) e.flags = trace::kEventUnfinished;
    t.events.push_back(e);
  }
  CalibrationCurve c;
  c.kind = CurveKind::kLinear;
  c.unit = "us";
  c.b0 = 2;
  c.b1 = 1.1;
  c.n = 10;
  c.df = 8;
  c.s_yx = 0.1;
  c.sxx = 100;
  c.domain.x_min = 5;  // some values fall below: warnings
  c.domain.x_max = 20;
  CorrectionOptions opt{"c.json", std::nullopt, {0}};

  const std::string dir = (fs::temp_directory_path() / ("rastro_corrected_" + std::to_string(::getpid()))).string();
  fs::create_directories(dir);
  trace::binary::write_binary_trace(dir + "/raw.rastro", t, trace::binary::BinaryWriterOptions{.events_per_block = 256});
  auto raw = trace::passes_over_file(dir + "/raw.rastro");
  auto corrected = CorrectedPasses::make(*raw, c, opt);
  ASSERT_TRUE(corrected.ok()) << corrected.error();
  trace::write_trace(dir + "/out.rastro", **corrected, trace::TraceFormat::kBinary);

  trace::Trace expected = t;
  CorrectionReport rep = apply_curve(expected, c, opt).value();
  EXPECT_EQ((*corrected)->correction().corrected, rep.corrected);
  EXPECT_EQ((*corrected)->correction().skipped_filtered, rep.skipped_filtered);
  EXPECT_EQ((*corrected)->correction().skipped_unfinished, rep.skipped_unfinished);
  EXPECT_EQ((*corrected)->correction().warnings, rep.warnings);
  EXPECT_FALSE(rep.warnings.empty());
  trace::Trace back = trace::read_trace(dir + "/out.rastro");
  EXPECT_EQ(back.events, expected.events);
  EXPECT_EQ(back.header.extra["calibration"], expected.header.extra["calibration"]);
  // The corrected file is calibrated: a second application is refused.
  auto again_raw = trace::passes_over_file(dir + "/out.rastro");
  EXPECT_FALSE(CorrectedPasses::make(*again_raw, c, opt).ok());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rastro::calibration
