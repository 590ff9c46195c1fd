#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "tests/trace/random_trace.h"
#include "tests/trace/sample_trace.h"
#include "trace/exporters/exporter.h"

namespace rastro::trace {
namespace {

namespace fs = std::filesystem;

class SqliteExportTest : public ::testing::Test {
 protected:
  void export_trace(const Trace& t) {
    path_ = (fs::temp_directory_path() / ("rastro_sqlite_" + std::to_string(::getpid()) + ".db"))
                .string();
    find_exporter("sqlite")->write(t, path_);
    ASSERT_EQ(sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  }
  void TearDown() override {
    sqlite3_close(db_);
    fs::remove(path_);
  }
  // The first row of a query, each column as text ("NULL" for NULL).
  std::vector<std::string> row(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sql;
    std::vector<std::string> r;
    if (s && sqlite3_step(s) == SQLITE_ROW) {
      for (int i = 0; i < sqlite3_column_count(s); ++i) {
        auto* txt = sqlite3_column_text(s, i);
        r.emplace_back(txt ? reinterpret_cast<const char*>(txt) : "NULL");
      }
    }
    sqlite3_finalize(s);
    return r;
  }
  std::string one(const std::string& sql) {
    auto r = row(sql);
    return r.empty() ? "<no row>" : r[0];
  }
  std::string path_;
  sqlite3* db_ = nullptr;
};

TEST_F(SqliteExportTest, SampleTraceRowsAndHeader) {
  export_trace(testing::sample_trace());
  EXPECT_EQ(one("SELECT count(*) FROM events"), "6");
  EXPECT_EQ(one("SELECT sum(bytes) FROM events"), "4106");
  EXPECT_EQ(one("SELECT count(*) FROM events WHERE function = 'read'"), "3");
  EXPECT_EQ(row("SELECT pid, tid, begin_ns, end_ns, duration_ns, function, nr, rvalue, errno, "
                "file, nargs, arg0_type, arg0_value, arg0_str, arg2_type, arg2_value FROM events "
                "WHERE seq = 1"),
            (std::vector<std::string>{"1", "10", "200", "500", "300", "read", "0", "4096", "0",
                                      "/a", "3", "fd", "3", "/a", "count", "4096"}));
  EXPECT_EQ(row("SELECT rvalue, errno, error FROM events WHERE seq = 2"),
            (std::vector<std::string>{"-11", "11", "EAGAIN"}));
  EXPECT_EQ(row("SELECT unfinished, end_ns, rvalue, arg3_type FROM events WHERE seq = 5"),
            (std::vector<std::string>{"1", "NULL", "NULL", "NULL"}));
  EXPECT_EQ(row("SELECT arg1_type, arg1_str FROM events WHERE seq = 0"),
            (std::vector<std::string>{"path", "/a"}));
  EXPECT_EQ(one("SELECT value FROM header WHERE key = 'backend'"), "sample");
  EXPECT_EQ(one("SELECT value FROM header WHERE key = 'events_lost'"), "2");
  EXPECT_EQ(one("SELECT value FROM header WHERE key = 'complete'"), "true");
  EXPECT_EQ(one("SELECT value FROM header WHERE key = 'lost_reasons'"), "{\"ringbuf_full\":2}");
}

// Every event of a random trace lands in a row with its values; raw bytes survive as BLOBs.
TEST_F(SqliteExportTest, RandomTraceValuesAndRawStrings) {
  Trace t = testing::random_trace(3000, 4);
  export_trace(t);
  EXPECT_EQ(one("SELECT count(*) FROM events"), std::to_string(t.events.size()));
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db_,
                               "SELECT seq, pid, tid, begin_ns, nr, nargs, arg0_value, arg0_str, "
                               "flags FROM events ORDER BY rowid",
                               -1, &s, nullptr),
            SQLITE_OK);
  size_t i = 0;
  while (sqlite3_step(s) == SQLITE_ROW) {
    ASSERT_LT(i, t.events.size());
    const Event& e = t.events[i++];
    ASSERT_EQ(static_cast<uint64_t>(sqlite3_column_int64(s, 0)), e.seq);
    ASSERT_EQ(sqlite3_column_int64(s, 1), e.pid);
    ASSERT_EQ(sqlite3_column_int64(s, 2), e.tid);
    ASSERT_EQ(sqlite3_column_int64(s, 3), e.begin_ns);
    ASSERT_EQ(sqlite3_column_int64(s, 4), e.nr);
    ASSERT_EQ(sqlite3_column_int64(s, 5), e.nargs);
    ASSERT_EQ(sqlite3_column_int64(s, 8), e.flags);
    if (e.nargs > 0) {
      ASSERT_EQ(sqlite3_column_int64(s, 6), e.arg(0).value);
      std::string_view want = t.str(e.arg(0).str);
      if (e.arg(0).str == kNoStr) {
        ASSERT_EQ(sqlite3_column_type(s, 7), SQLITE_NULL);
      } else {
        auto* p = static_cast<const char*>(sqlite3_column_blob(s, 7));
        ASSERT_EQ(std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(s, 7))), want);
      }
    }
  }
  sqlite3_finalize(s);
  EXPECT_EQ(i, t.events.size());
  EXPECT_GT(std::stoi(one("SELECT count(*) FROM events WHERE typeof(arg0_str) = 'blob'")), 0);
}

}  // namespace
}  // namespace rastro::trace
