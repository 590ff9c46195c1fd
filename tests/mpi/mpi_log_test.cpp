#include "mpi/mpi_log.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace rastro::mpi {
namespace {

const char* kLog =
    "rastro-mpi 1\n"
    "rank 1 4 node7 10567\n"
    "job node0-10566-4035\n"
    "S init 1000 500 1040\n"
    "S init 2000 1480 2010\n"
    "E MPI_Send 10567 3000 3100 0 2 7 4 0 0\n"
    "E MPI_Barrier 10568 4000 4500 0 -1 -1 0 3 0\n"
    "S finalize 9000 8470 9020\n"
    "end 2\n";

TEST(MpiLog, ParsesEveryRecordKind) {
  RankLog log = parse_rank_log(kLog, "r1.log");
  EXPECT_EQ(log.rank, 1);
  EXPECT_EQ(log.size, 4);
  EXPECT_EQ(log.host, "node7");
  EXPECT_EQ(log.pid, 10567);
  EXPECT_EQ(log.job, "node0-10566-4035");
  ASSERT_EQ(log.init_sync.size(), 2u);
  EXPECT_EQ(log.init_sync[1].reference, 1480);
  ASSERT_EQ(log.finalize_sync.size(), 1u);
  ASSERT_EQ(log.records.size(), 2u);
  EXPECT_EQ(log.records[0].name, "MPI_Send");
  EXPECT_EQ(log.records[0].peer, 2);
  EXPECT_EQ(log.records[0].bytes, 4);
  EXPECT_EQ(log.records[1].tid, 10568);
  EXPECT_EQ(log.records[1].extra, 3);
  EXPECT_TRUE(log.finalized);
  EXPECT_EQ(log.dropped_by_library, 2u);
}

TEST(MpiLog, ALogCutShortKeepsItsCompleteLines) {
  std::string cut(kLog);
  cut = cut.substr(0, cut.find("S finalize"));
  RankLog log = parse_rank_log(cut, "r1.log");
  EXPECT_FALSE(log.finalized);
  EXPECT_EQ(log.records.size(), 2u);
  EXPECT_TRUE(log.finalize_sync.empty());
}

void expect_error(const std::string& text, const std::string& needle) {
  try {
    parse_rank_log(text, "bad.log");
    FAIL() << "accepted: " << text;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(MpiLog, BadInputNamesFileAndLine) {
  expect_error("", "bad.log:1: empty MPI log");
  expect_error("hello\n", "bad.log:1: not a rastro MPI log");
  expect_error("rastro-mpi 2\n", "version 2");
  expect_error("rastro-mpi 1\nrank 5 4 h 1\n", "bad.log:2: malformed 'rank'");
  expect_error("rastro-mpi 1\nrank 0 4 h 1\nE MPI_Send 1 20 10 0 1 1 1 0 0\n", "bad.log:3: malformed operation");
  expect_error("rastro-mpi 1\nrank 0 4 h 1\nS init 10 5 9\n", "bad.log:3: malformed sync");
  expect_error("rastro-mpi 1\nrank 0 4 h 1\nS later 1 5 9\n", "unknown sync phase");
  expect_error("rastro-mpi 1\nrank 0 4 h 1\nZ\n", "bad.log:3: unknown record kind 'Z'");
  expect_error("rastro-mpi 1\njob x\n", "no 'rank' line");
}

}  // namespace
}  // namespace rastro::mpi
