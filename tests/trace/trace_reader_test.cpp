// The streaming reader (trace/io/trace_reader.h) against the whole-trace reader: same events,
// strings, header and damage report, for binary and text traces, in bounded blocks.
#include "trace/io/trace_reader.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "common/error.h"
#include "tests/trace/random_trace.h"
#include "trace/formats/binary/binary_writer.h"
#include "trace/formats/text/text_format.h"
#include "trace/io/trace_io.h"

namespace rastro::trace {
namespace {

namespace fs = std::filesystem;

class TraceReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rastro_reader_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

// Streams `p` and checks it against read_trace, block sizes included.
void expect_streams_like_read_trace(const std::string& p, size_t max_block) {
  ReadReport whole_report;
  Trace whole = read_trace(p, &whole_report);
  auto r = open_trace_reader(p);
  std::vector<Event> block;
  size_t i = 0;
  while (r->next_block(&block)) {
    ASSERT_FALSE(block.empty());
    ASSERT_LE(block.size(), max_block);
    for (const Event& e : block) {
      ASSERT_LT(i, whole.events.size());
      ASSERT_EQ(e, whole.events[i]) << "event " << i;
      for (int a = 0; a < e.nargs; ++a)  // resolvable as soon as returned
        ASSERT_EQ(r->strings().get(e.arg(a).str), whole.strings.get(e.arg(a).str));
      ++i;
    }
    block.clear();
  }
  EXPECT_EQ(i, whole.events.size());
  EXPECT_EQ(r->events_read(), whole.events.size());
  EXPECT_EQ(r->header().to_json(), whole.header.to_json());
  EXPECT_EQ(r->strings().size(), whole.strings.size());
  EXPECT_EQ(r->report().intact, whole_report.intact);
  EXPECT_EQ(r->report().problem, whole_report.problem);
  EXPECT_EQ(r->report().blocks, whole_report.blocks);
}

TEST_F(TraceReaderTest, BinaryBlockByBlock) {
  Trace t = testing::random_trace(5000, 3);
  std::string p = path("t.rastro");
  binary::write_binary_trace(p, t, binary::BinaryWriterOptions{.events_per_block = 700});
  expect_streams_like_read_trace(p, 700);
  EXPECT_EQ(open_trace_reader(p)->remaining_hint(), 5000u);
}

TEST_F(TraceReaderTest, DamagedBinaryReportsLikeReadTrace) {
  Trace t = testing::random_trace(3000, 4);
  std::string p = path("t.rastro");
  binary::write_binary_trace(p, t, binary::BinaryWriterOptions{.events_per_block = 500});
  fs::resize_file(p, fs::file_size(p) * 2 / 3);
  auto r = open_trace_reader(p);
  std::vector<Event> all;
  while (r->next_block(&all)) {
  }
  EXPECT_FALSE(r->report().intact);
  EXPECT_NE(r->report().problem.find("block"), std::string::npos) << r->report().problem;
  EXPECT_NE(r->report().problem.find("byte offset"), std::string::npos) << r->report().problem;
  EXPECT_FALSE(r->header().complete);
  EXPECT_GT(all.size(), 0u);
  EXPECT_LT(all.size(), 3000u);
  expect_streams_like_read_trace(p, 500);
}

TEST_F(TraceReaderTest, TextLineByLineInBoundedBlocks) {
  Trace t = testing::random_trace(kTextBlockEvents + 1234, 5);
  for (const char* name : {"t.tsv", "t.csv"}) {
    std::string p = path(name);
    write_trace(p, t);
    expect_streams_like_read_trace(p, kTextBlockEvents);
    Trace back = read_trace(p);
    ASSERT_EQ(back.events.size(), t.events.size());
  }
}

TEST_F(TraceReaderTest, MalformedTextNamesTheLineWhenItIsReached) {
  std::string p = path("bad.tsv");
  {
    std::ofstream out(p);
    out << "pid\ttid\tbegin\tend\tfunction\targs\trvalue\n"
        << "1\t1\t0\t10\tclose\t3\t0\n"
        << "1\tX\t0\t10\tclose\t3\t0\n";
  }
  auto r = open_trace_reader(p);  // the first lines are fine
  std::vector<Event> block;
  try {
    r->next_block(&block);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.tsv:3"), std::string::npos) << e.what();
  }
}

TEST_F(TraceReaderTest, UnusableFilesAreErrorsNamingThem) {
  std::string empty = path("empty.rastro");
  std::ofstream(empty).close();
  EXPECT_THROW(open_trace_reader(empty), Error);
  EXPECT_THROW(open_trace_reader(path("missing.rastro")), Error);
  std::string junk = path("junk.txt");
  std::ofstream(junk) << "hello\n";
  try {
    open_trace_reader(junk);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("junk.txt"), std::string::npos);
  }
}

}  // namespace
}  // namespace rastro::trace
