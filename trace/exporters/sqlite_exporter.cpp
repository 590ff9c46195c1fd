// SQLite export: an `events` table with one row per event (decoded arguments in columns) and a
// `header` table of key/value pairs, for ad-hoc SQL:
//
//   SELECT function, count(*), avg(duration_ns) FROM events GROUP BY function;
//
// Strings that are valid UTF-8 are stored as TEXT, others (raw path bytes) as BLOB, so nothing
// is altered. Written with prepared statements inside one transaction, into a temporary file
// renamed into place at the end.
#include <sqlite3.h>

#include <cstdio>
#include <span>

#include <fmt/format.h>

#include "common/error.h"
#include "trace/analysis/condenser.h"
#include "common/atomic_write.h"
#include "trace/exporters/export_util.h"
#include "trace/exporters/exporter.h"

namespace rastro::trace {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE header (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE events (
  seq INTEGER NOT NULL, pid INTEGER, tid INTEGER,
  begin_ns INTEGER, end_ns INTEGER, duration_ns INTEGER,
  function TEXT, nr INTEGER, rvalue INTEGER, errno INTEGER, error TEXT,
  flags INTEGER, unfinished INTEGER, file TEXT, bytes INTEGER, nargs INTEGER,
  arg0_type TEXT, arg0_value INTEGER, arg0_str TEXT,
  arg1_type TEXT, arg1_value INTEGER, arg1_str TEXT,
  arg2_type TEXT, arg2_value INTEGER, arg2_str TEXT,
  arg3_type TEXT, arg3_value INTEGER, arg3_str TEXT,
  arg4_type TEXT, arg4_value INTEGER, arg4_str TEXT,
  arg5_type TEXT, arg5_value INTEGER, arg5_str TEXT,
  planned_ns INTEGER, expected_rvalue INTEGER, raw_end_ns INTEGER,
  offcpu_ns INTEGER, vol_switches INTEGER, invol_switches INTEGER,
  uring_user_data INTEGER, uring_enter_ns INTEGER, gap_offcpu_ns INTEGER);
)sql";
constexpr int kEventColumns = 16 + 3 * kMaxArgs + 3 + 3 + 2 + 1;

class Db {
 public:
  Db(const std::string& path, const std::string& shown) : shown_(shown) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
        SQLITE_OK) {
      // sqlite allocates a handle even when open fails; the destructor will not run, close it here.
      std::string msg = fmt::format("{}: cannot create the database: {}", shown_,
                                    db_ ? sqlite3_errmsg(db_) : "out of memory");
      sqlite3_close(db_);
      throw Error(msg);
    }
  }
  ~Db() {
    sqlite3_finalize(header_);
    sqlite3_finalize(events_);
    sqlite3_close(db_);
  }
  [[noreturn]] void fail(std::string_view what) const {
    throw Error(fmt::format("{}: {}: {}", shown_, what, db_ ? sqlite3_errmsg(db_) : "out of memory"));
  }
  void exec(const char* sql) {
    if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(sql);
  }
  sqlite3_stmt* prepare(const char* sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK) fail(sql);
    return s;
  }
  void step(sqlite3_stmt* s) {
    if (sqlite3_step(s) != SQLITE_DONE) fail("insert failed");
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
  }
  sqlite3* db_ = nullptr;
  sqlite3_stmt* header_ = nullptr;
  sqlite3_stmt* events_ = nullptr;
  std::string shown_;
};

void bind_string(sqlite3_stmt* s, int col, std::string_view v) {
  // SQLITE_TRANSIENT: the statement copies the bytes (some of them are temporaries).
  if (exporters::is_valid_utf8(v) && v.find('\0') == std::string_view::npos)
    sqlite3_bind_text(s, col, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  else
    sqlite3_bind_blob(s, col, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

class SqliteExporter final : public Exporter {
 public:
  std::string_view name() const override { return "sqlite"; }
  std::string_view description() const override {
    return "SQLite database: `events` table (one row per event) and `header` key/value table";
  }
  using Exporter::write;
  void write(TracePasses& trace, const std::string& path) const override {
    std::string tmp = temp_path_for(path);
    std::remove(tmp.c_str());
    try {
      fill(trace, tmp, path);
    } catch (...) {
      std::remove(tmp.c_str());
      throw;
    }
    commit_temp_file(tmp, path);
  }

 private:
  static void fill(TracePasses& trace, const std::string& tmp, const std::string& path) {
    Db db(tmp, path);
    // The temporary file is worthless until renamed: no journal, no syncs.
    db.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;");
    db.exec(kSchema);
    db.exec("BEGIN");
    db.header_ = db.prepare("INSERT INTO header (key, value) VALUES (?, ?)");
    nlohmann::json h = trace.header().to_json();
    h["events_in_file"] = trace.size();
    for (const auto& [k, v] : h.items()) {
      bind_string(db.header_, 1, k);
      if (v.is_string())
        bind_string(db.header_, 2, v.get_ref<const std::string&>());
      else
        bind_string(db.header_, 2, v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      db.step(db.header_);
    }
    std::string sql = "INSERT INTO events VALUES (?";
    for (int i = 1; i < kEventColumns; ++i) sql += ",?";
    sql += ")";
    db.events_ = db.prepare(sql.c_str());
    trace.pass([&](std::span<const Event> block, const StringTable& strings) {
      for (const Event& e : block) insert(db, e, strings);
    });
    db.exec("COMMIT");
    db.exec("CREATE INDEX events_seq ON events (seq)");
  }

  static void insert(Db& db, const Event& e, const StringTable& strings) {
    sqlite3_stmt* s = db.events_;
    int c = 1;
    sqlite3_bind_int64(s, c++, static_cast<sqlite3_int64>(e.seq));
    sqlite3_bind_int64(s, c++, e.pid);
    sqlite3_bind_int64(s, c++, e.tid);
    sqlite3_bind_int64(s, c++, e.begin_ns);
    bool unfinished = e.flags & kEventUnfinished;
    if (unfinished) {
      c += 2;  // end and duration are unknown: NULL
    } else {
      sqlite3_bind_int64(s, c++, e.end_ns);
      sqlite3_bind_int64(s, c++, exporters::duration_ns(e));
    }
    bind_string(s, c++, function_name(e, strings));
    sqlite3_bind_int64(s, c++, e.nr);
    if (unfinished) {
      c += 3;
    } else {
      sqlite3_bind_int64(s, c++, e.rvalue);
      sqlite3_bind_int64(s, c++, e.error_number());
      if (e.failed()) bind_string(s, c, exporters::errno_name(e.error_number()));
      ++c;
    }
    sqlite3_bind_int64(s, c++, e.flags);
    sqlite3_bind_int64(s, c++, unfinished ? 1 : 0);
    std::string_view file = event_file(e, strings);
    if (!file.empty()) bind_string(s, c, file);
    ++c;
    sqlite3_bind_int64(s, c++, static_cast<sqlite3_int64>(transferred_bytes(e)));
    sqlite3_bind_int64(s, c++, e.nargs);
    for (int i = 0; i < kMaxArgs; ++i) {
      if (i < e.nargs) {
        const Arg& a = e.arg(i);
        bind_string(s, c, exporters::arg_type_name(a.type));
        sqlite3_bind_int64(s, c + 1, a.value);
        if (a.str != kNoStr) bind_string(s, c + 2, strings.get(a.str));
      }
      c += 3;
    }
    if (e.flags & kEventReplayed) {
      sqlite3_bind_int64(s, c, e.planned_ns);
      sqlite3_bind_int64(s, c + 1, e.expected_rvalue);
    }
    if (e.flags & kEventCalibrated) sqlite3_bind_int64(s, c + 2, e.raw_end_ns);
    c += 3;
    if (e.flags & kEventOffCpu) {  // NULL when not measured (0 would claim "never off-CPU")
      sqlite3_bind_int64(s, c, e.offcpu_ns);
      sqlite3_bind_int64(s, c + 1, e.vol_switches);
      sqlite3_bind_int64(s, c + 2, e.invol_switches);
    }
    c += 3;
    if (e.flags & kEventUring) {  // NULL for syscalls
      sqlite3_bind_int64(s, c, static_cast<sqlite3_int64>(e.uring_user_data));
      if (e.uring_enter_ns != 0) sqlite3_bind_int64(s, c + 1, e.uring_enter_ns);
    }
    c += 2;
    if (e.flags & kEventOffCpu) sqlite3_bind_int64(s, c, e.gap_offcpu_ns);  // off-CPU before the call
    db.step(s);
  }
};

}  // namespace

const Exporter& sqlite_exporter() {
  static const SqliteExporter e;
  return e;
}

}  // namespace rastro::trace
