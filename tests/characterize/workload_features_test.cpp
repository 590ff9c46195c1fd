#include "characterize/workload_features.h"

#include <gtest/gtest.h>

#include "tests/characterize/namespace_cycle_trace.h"
#include "tests/characterize/two_class_trace.h"
#include "tests/trace/sample_trace.h"

namespace rastro::characterize {
namespace {

// Counted by hand from the table in sample_trace.h.
TEST(WorkloadFeatures, SampleTrace) {
  WorkloadFeatures w = measure_features(trace::testing::sample_trace());
  ASSERT_EQ(w.threads.size(), 2u);
  const ThreadFeatures& t10 = w.threads[0];
  EXPECT_EQ(t10.tid, 10);
  EXPECT_EQ(t10.calls, 3u);
  EXPECT_EQ(t10.counts[category_index(OpCategory::kOpen)], 1);
  EXPECT_EQ(t10.counts[category_index(OpCategory::kRead)], 1);
  EXPECT_EQ(t10.counts[category_index(OpCategory::kClose)], 1);
  EXPECT_EQ(t10.read_sizes, (std::vector<double>{4096}));
  EXPECT_EQ(t10.interarrival_ns, (std::vector<double>{200, 400}));
  EXPECT_EQ(t10.think_ns, (std::vector<double>{100, 100}));
  EXPECT_EQ(t10.transfers, 1u);
  EXPECT_EQ(t10.sequential, 1u);  // first transfer at offset 0
  const ThreadFeatures& t11 = w.threads[1];
  EXPECT_EQ(t11.calls, 3u);
  EXPECT_EQ(t11.counts[category_index(OpCategory::kRead)], 2);  // the failed and the unfinished read count in the mix
  EXPECT_EQ(t11.write_sizes, (std::vector<double>{10}));
  EXPECT_EQ(t11.duration_ns, (std::vector<double>{50, 1000}));  // the unfinished read has none
  ASSERT_EQ(w.files.size(), 2u);
  EXPECT_EQ(w.files[0].extent, 4096u);
  EXPECT_EQ(w.files[1].write_bytes, 10u);
  EXPECT_EQ(w.span_ns, 1500);
}

TEST(WorkloadFeatures, SequentialityAndReuse) {
  WorkloadFeatures w = measure_features(testing::two_class_trace(1, 1));
  ASSERT_EQ(w.threads.size(), 2u);
  const ThreadFeatures& reader = w.threads[0];
  EXPECT_EQ(reader.transfers, 100u);
  // Each session re-opens the file and reads from 0: sequential after an open.
  EXPECT_EQ(reader.sequential, 100u);
  EXPECT_EQ(reader.sessions, 5u);
  // Each session's reads reach the file's largest extent: read to the end (no 0-byte read).
  EXPECT_EQ(reader.eof_sessions, 5u);
  EXPECT_EQ(reader.zero_read_sessions, 0u);
  EXPECT_EQ(reader.eof_session_reads, 100u);

  // One file opened 5 times: 5 references, 4 re-references at LRU distance 0.
  EXPECT_EQ(reader.references, 5u);
  EXPECT_EQ(reader.rereferences, 4u);
  EXPECT_EQ(reader.reuse_distances, (std::vector<double>(4, 0.0)));
  const ThreadFeatures& writer = w.threads[1];
  EXPECT_EQ(writer.counts[category_index(OpCategory::kSync)], 50);
  EXPECT_EQ(writer.counts[category_index(OpCategory::kWrite)], 50);
  EXPECT_LT(writer.sequential, 10u);
  EXPECT_EQ(writer.eof_sessions, 0u);
  EXPECT_EQ(writer.partial_session_transfers, (std::vector<double>(5, 10.0)));
}

}  // namespace
}  // namespace rastro::characterize

namespace rastro::characterize {
namespace {

// Counted by hand from cycle_trace() (namespace_cycle_trace.h).
TEST(WorkloadFeatures, NamespaceCallsAndSessionKinds) {
  WorkloadFeatures w = measure_features(testing::cycle_trace());
  ASSERT_EQ(w.threads.size(), 1u);
  const ThreadFeatures& t = w.threads[0];
  auto ns = [&](NamespaceOp op) { return t.namespace_counts[static_cast<size_t>(op)]; };
  EXPECT_EQ(ns(NamespaceOp::kUnlink), 2);  // /ns/a, and the failed one
  EXPECT_EQ(ns(NamespaceOp::kRename), 1);
  EXPECT_EQ(ns(NamespaceOp::kMkdir), 1);
  EXPECT_EQ(ns(NamespaceOp::kRmdir), 1);  // unlinkat(AT_REMOVEDIR)
  EXPECT_EQ(ns(NamespaceOp::kLink), 0);
  EXPECT_EQ(t.namespace_failed, 1u);
  EXPECT_EQ(t.counts[category_index(OpCategory::kNamespace)], 5);
  EXPECT_EQ(t.create_sessions, 2u);
  EXPECT_EQ(t.append_sessions, 2u);
  EXPECT_EQ(t.create_session_writes, (std::vector<double>{1, 1}));
  EXPECT_EQ(t.create_write_requests, (std::vector<double>{1000, 500}));
  EXPECT_EQ(t.append_write_requests, (std::vector<double>{100, 50}));
  EXPECT_TRUE(t.plain_write_requests.empty());
  // The read session read the whole 1100 bytes with one read asking 4096: to the end, whole.
  EXPECT_EQ(t.eof_sessions, 1u);
  EXPECT_EQ(t.whole_read_sessions, 1u);
  EXPECT_TRUE(t.partial_session_transfers.empty());
  // Re-creating /ns/a opened it again: 5 opens of one file, 4 re-references.
  EXPECT_EQ(t.references, 5u);
  EXPECT_EQ(t.rereferences, 4u);
  // The size the trace shows is the largest incarnation's: 1000 + 100. The second incarnation
  // (500 + an append of 50) is 550 — its append lands at its own end, not at 1100.
  ASSERT_EQ(w.files.size(), 1u);
  EXPECT_EQ(w.files[0].name, "/ns/a");
  EXPECT_EQ(w.files[0].extent, 1100u);
  EXPECT_EQ(w.files[0].incarnation_extents, (std::vector<uint64_t>{1100, 550}));
  // Sequential: the creates' writes and the read, at 0 after their opens; not the appends.
  EXPECT_EQ(t.transfers, 5u);
  EXPECT_EQ(t.sequential, 3u);
}

}  // namespace
}  // namespace rastro::characterize
