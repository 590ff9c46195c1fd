// The cell reference: uninstrumented runs' mean with u = s/√n for capture instruments, the
// original's timing with u = s (one run) for replayers, nothing for a cell without two runs.
#include "campaign/report/cell_reference.h"

#include <cmath>

#include <gtest/gtest.h>

namespace rastro::campaign {
namespace {

StoredRun run(const std::string& instrument, int replicate, double measured, double same_run_reference,
              const std::string& ordering = "", int level = 1) {
  StoredRun r;
  r.spec = RunSpec{.instrument = instrument, .type = "sr", .level = level, .ordering = ordering,
                   .timing = ordering.empty() ? "" : "fullspeed", .replicate = replicate};
  assign_keys(r.spec);
  r.status = "ok";
  r.measurements.push_back({"sr", measured, same_run_reference, 1.0, {}});
  return r;
}

TEST(CellReference, MeanAndRunToRunSpreadOfTheUninstrumentedRuns) {
  // 100, 110, 120: mean 110, sd 10 (computed by hand).
  std::vector<StoredRun> runs = {run("reference", 0, 100, 100), run("reference", 1, 110, 110),
                                 run("reference", 2, 120, 120), run("strace", 0, 900, 4000)};
  auto cells = cell_references(runs);
  ASSERT_EQ(cells.size(), 1u);
  const CellReference& c = cells.at(cell_key("reference", runs[0].spec, "sr"));
  EXPECT_EQ(c.n, 3u);
  EXPECT_DOUBLE_EQ(*c.mean, 110);
  EXPECT_DOUBLE_EQ(*c.sd, 10);
  // A capture instrument is compared with the uninstrumented mean, not its own run's timing (4000).
  RowReference strace = row_reference(runs[3].spec, runs[3].measurements[0], c);
  EXPECT_DOUBLE_EQ(*strace.value, 110);
  EXPECT_DOUBLE_EQ(strace.u, 10 / std::sqrt(3.0));
  // A replayer is compared with its original (stored as the run's reference), u of one run.
  StoredRun replay = run("workers", 0, 130, 125, "fs");
  RowReference r = row_reference(replay.spec, replay.measurements[0], c);
  EXPECT_DOUBLE_EQ(*r.value, 125);
  EXPECT_DOUBLE_EQ(r.u, 10);
}

TEST(CellReference, ACellWithFewerThanTwoReferenceRunsHasNone) {
  std::vector<StoredRun> runs = {run("reference", 0, 100, 100), run("reference", 0, 100, 100, "", 2),
                                 run("reference", 1, 120, 120, "", 2)};
  runs[2].status = "failed";
  auto cells = cell_references(runs);
  ASSERT_EQ(cells.size(), 2u);
  for (const auto& [key, c] : cells) {
    EXPECT_EQ(c.n, 1u) << key;
    EXPECT_FALSE(c.mean.has_value());
    EXPECT_FALSE(row_reference(runs[0].spec, runs[0].measurements[0], c).value.has_value());
  }
}

TEST(CellReference, CellsSeparateTypePauseLevelAndBackground) {
  RunSpec a{.instrument = "reference", .type = "sr", .level = 1, .background = 0, .pause_us = 10};
  RunSpec b = a;
  b.background = 1;
  EXPECT_EQ(type_label(a, "sr"), "SR+10us");
  EXPECT_NE(cell_key("reference", a, "sr"), cell_key("reference", b, "sr"));
  EXPECT_NE(cell_key("reference", a, "read"), cell_key("reference", a, "write"));
  EXPECT_NE(cell_key("reference", a, "sr"), cell_key("fio", a, "sr"));
  // fio under an instrument is compared with fio alone; everything else with the benchmark alone.
  EXPECT_EQ(reference_source("fio+strace"), "fio");
  EXPECT_EQ(reference_source("fio"), "reference");
  EXPECT_EQ(reference_source("strace"), "reference");
}

}  // namespace
}  // namespace rastro::campaign

namespace rastro::campaign {
namespace {

TEST(CellReference, AWarmCellIsNotTheColdCell) {
  RunSpec cold{.instrument = "reference", .type = "sr", .level = 1};
  RunSpec warm = cold;
  warm.cache = "warm";
  EXPECT_EQ(type_label(cold, "sr"), "SR");
  EXPECT_EQ(type_label(warm, "sr"), "SR(warm)");
  EXPECT_NE(cell_key("reference", cold, "sr"), cell_key("reference", warm, "sr"));
}

TEST(CellReference, SeveralOriginalsShrinkTheReplayReferenceUncertainty) {
  std::vector<StoredRun> runs = {run("reference", 0, 100, 100), run("reference", 1, 110, 110),
                                 run("reference", 2, 120, 120)};
  const CellReference c = cell_references(runs).at(cell_key("reference", runs[0].spec, "sr"));
  StoredRun replay = run("workers", 0, 130, 125, "fs");
  replay.measurements[0].extra["originals"] = 4;
  RowReference r = row_reference(replay.spec, replay.measurements[0], c);
  EXPECT_DOUBLE_EQ(*r.value, 125);
  EXPECT_DOUBLE_EQ(r.u, 10 / 2.0);  // s / √4
}

}  // namespace
}  // namespace rastro::campaign
