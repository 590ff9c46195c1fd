#include "characterize/workload_characterizer.h"

#include <gtest/gtest.h>

#include "tests/characterize/two_class_trace.h"

namespace rastro::characterize {
namespace {

size_t at(OpCategory c) { return static_cast<size_t>(c); }

TEST(WorkloadCharacterizer, TwoClassesWithTheirParameters) {
  Characterization c = characterize(testing::two_class_trace(6, 3), "two.rastro");
  const WorkloadModel& m = c.model;
  EXPECT_EQ(m.threads, 9u);
  ASSERT_EQ(m.classes.size(), 2u);
  EXPECT_EQ(m.clustering.method, "kmeans");
  EXPECT_GE(m.clustering.score, kMinSilhouette);
  const ClassModel& readers = m.classes[0];  // the larger class first
  EXPECT_EQ(readers.threads, 6u);
  EXPECT_NEAR(readers.share, 6.0 / 9, 1e-12);
  // Per reader: 5 x (open + 20 reads + close) = 110 calls.
  EXPECT_NEAR(readers.mix[at(OpCategory::kRead)], 100.0 / 110, 1e-12);
  EXPECT_EQ(readers.read_size.atoms, (std::vector<double>{65536}));
  EXPECT_TRUE(readers.write_size.empty());
  EXPECT_DOUBLE_EQ(readers.sequential_fraction, 1.0);
  EXPECT_DOUBLE_EQ(readers.eof_session_fraction, 1.0);  // every session reads its file to the end
  EXPECT_DOUBLE_EQ(readers.reopen_probability, 1.0);     // re-opens are all of the same file
  EXPECT_DOUBLE_EQ(readers.transfers_per_open, 20.0);
  EXPECT_DOUBLE_EQ(readers.read_bytes_per_thread, 100.0 * 65536);
  EXPECT_EQ(readers.files, 6u);
  EXPECT_EQ(readers.file_size.atoms, (std::vector<double>{20.0 * 65536}));
  const ClassModel& writers = m.classes[1];
  EXPECT_EQ(writers.threads, 3u);
  EXPECT_DOUBLE_EQ(writers.syncs_per_write, 1.0);
  EXPECT_DOUBLE_EQ(writers.transfers_per_open, 10.0);
  EXPECT_DOUBLE_EQ(writers.eof_session_fraction, 0.0);
  EXPECT_DOUBLE_EQ(writers.partial_read_fraction, 0.0);
  EXPECT_EQ(writers.partial_session_length.atoms, (std::vector<double>{10}));
  EXPECT_EQ(writers.write_size.atoms, (std::vector<double>{4096}));
  EXPECT_GE(writers.think_ns.quantiles.front(), 200000);
  // Readers are 6 x 100 x 64 KiB, writers 3 x 50 x 4 KiB.
  EXPECT_NEAR(m.read_write_ratio, (6.0 * 100 * 65536) / (3.0 * 50 * 4096), 1e-9);
  EXPECT_EQ(c.thread_class.size(), 9u);
  EXPECT_FALSE(c.file_classes.empty());
}

TEST(WorkloadCharacterizer, RequestedKAndGmm) {
  CharacterizeOptions o;
  o.method = ClusterMethod::kGmm;
  Characterization g = characterize(testing::two_class_trace(6, 3), "t", o);
  EXPECT_EQ(g.model.clustering.method, "gmm");
  EXPECT_EQ(g.model.clustering.k, 2u);
  o.method = ClusterMethod::kKmeans;
  o.k = 1;
  Characterization one = characterize(testing::two_class_trace(6, 3), "t", o);
  ASSERT_EQ(one.model.classes.size(), 1u);
  EXPECT_FALSE(one.model.clustering.automatic);
  EXPECT_EQ(one.model.classes[0].threads, 9u);
}

}  // namespace
}  // namespace rastro::characterize
