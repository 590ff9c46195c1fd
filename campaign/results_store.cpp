#include "campaign/results_store.h"

#include <sqlite3.h>

#include <fmt/format.h>

#include "common/error.h"
#include "common/json_integer.h"

namespace rastro::campaign {

namespace {

class Statement {
 public:
  Statement(sqlite3* db, const char* sql, const std::string& path) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK)
      throw Error(fmt::format("{}: SQLite: {}", path, sqlite3_errmsg(db)));
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  sqlite3_stmt* get() { return stmt_; }
  void text(int i, const std::string& s) { sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT); }
  void integer(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void real(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
  std::string column_text(int i) {
    auto* p = sqlite3_column_text(stmt_, i);
    return p ? reinterpret_cast<const char*>(p) : "";
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace

ResultsStore::ResultsStore(const std::string& path, const nlohmann::json& config) : path_(path) {
  if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(fmt::format("{}: cannot open results store: {}", path, msg));
  }
  try {
    sqlite3_busy_timeout(db_, 5000);
    exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
         "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);"
         "CREATE TABLE IF NOT EXISTS runs(key TEXT PRIMARY KEY, spec TEXT, status TEXT, attempts INTEGER,"
         " error TEXT, wall_s REAL, environment TEXT, background TEXT, finished_at TEXT);"
         "CREATE TABLE IF NOT EXISTS results(run_key TEXT, type TEXT, measured REAL, reference REAL,"
         " reference_u REAL, extra TEXT);");
    std::string stored = meta("config");
    std::string wanted = config.dump();
    if (stored.empty()) {
      set_meta("config", wanted);
    } else if (stored != wanted) {
      throw Error(fmt::format("{}: this results store belongs to a different campaign definition; "
                              "use another output directory or the same definition to resume", path));
    }
  } catch (...) {
    sqlite3_close(db_);  // the destructor does not run when the constructor throws
    db_ = nullptr;
    throw;
  }
}

ResultsStore::~ResultsStore() { sqlite3_close(db_); }

void ResultsStore::exec(const std::string& sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw Error(fmt::format("{}: SQLite: {}", path_, msg));
  }
}

void ResultsStore::set_meta(const std::string& key, const std::string& value) {
  Statement st(db_, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", path_);
  st.text(1, key);
  st.text(2, value);
  if (sqlite3_step(st.get()) != SQLITE_DONE) throw Error(fmt::format("{}: SQLite: {}", path_, sqlite3_errmsg(db_)));
}

std::string ResultsStore::meta(const std::string& key) const {
  Statement st(db_, "SELECT value FROM meta WHERE key = ?", path_);
  st.text(1, key);
  return sqlite3_step(st.get()) == SQLITE_ROW ? st.column_text(0) : "";
}

std::map<std::string, std::string> ResultsStore::finished() const {
  std::map<std::string, std::string> out;
  Statement st(db_, "SELECT key, status FROM runs", path_);
  while (sqlite3_step(st.get()) == SQLITE_ROW) out[st.column_text(0)] = st.column_text(1);
  return out;
}

void ResultsStore::record(const RunSpec& spec, const RunOutcome& outcome, int attempts) {
  exec("BEGIN IMMEDIATE");
  try {
    {
      Statement st(db_,
                   "INSERT OR REPLACE INTO runs(key, spec, status, attempts, error, wall_s, environment,"
                   " background, finished_at) VALUES(?,?,?,?,?,?,?,?,datetime('now'))",
                   path_);
      st.text(1, spec.key);
      st.text(2, spec.to_json().dump());
      st.text(3, outcome.ok ? "ok" : "failed");
      st.integer(4, attempts);
      st.text(5, outcome.error);
      st.real(6, outcome.wall_s);
      st.text(7, outcome.environment.dump());
      st.text(8, outcome.background.dump());
      if (sqlite3_step(st.get()) != SQLITE_DONE) throw Error(fmt::format("{}: SQLite: {}", path_, sqlite3_errmsg(db_)));
    }
    {
      Statement del(db_, "DELETE FROM results WHERE run_key = ?", path_);
      del.text(1, spec.key);
      sqlite3_step(del.get());
    }
    for (const auto& m : outcome.measurements) {
      Statement st(db_, "INSERT INTO results(run_key, type, measured, reference, reference_u, extra) VALUES(?,?,?,?,?,?)", path_);
      st.text(1, spec.key);
      st.text(2, m.type);
      st.real(3, m.measured);
      st.real(4, m.reference);
      st.real(5, m.reference_u);
      st.text(6, m.extra.dump());
      if (sqlite3_step(st.get()) != SQLITE_DONE) throw Error(fmt::format("{}: SQLite: {}", path_, sqlite3_errmsg(db_)));
    }
    exec("COMMIT");
  } catch (...) {
    exec("ROLLBACK");
    throw;
  }
}

std::vector<StoredRun> ResultsStore::runs() const {
  std::vector<StoredRun> out;
  std::map<std::string, size_t> index;
  {
    Statement st(db_, "SELECT key, spec, status, attempts, error, environment FROM runs ORDER BY key", path_);
    while (sqlite3_step(st.get()) == SQLITE_ROW) {
      StoredRun r;
      auto j = nlohmann::json::parse(st.column_text(1));
      r.spec.instrument = j.value("instrument", "");
      r.spec.type = j.value("type", "");
      // The store is a file on disk: its integers are range-checked like any JSON input's.
      auto integer = [&](const char* key, auto* field) {
        if (!j.contains(key)) *field = 0;
        else if (!json_to_integer(j[key], field))
          throw Error(fmt::format("{}: run {}: key '{}' is not a whole number in range", path_, st.column_text(0), key));
      };
      integer("level", &r.spec.level);
      integer("background", &r.spec.background);
      integer("pause_us", &r.spec.pause_us);
      r.spec.ordering = j.value("ordering", "");
      r.spec.timing = j.value("timing", "");
      r.spec.cache = j.value("cache", "cold");  // stores from before the cache factor were cold
      integer("replicate", &r.spec.replicate);
      assign_keys(r.spec);
      r.status = st.column_text(2);
      r.attempts = sqlite3_column_int(st.get(), 3);
      r.error = st.column_text(4);
      std::string env = st.column_text(5);
      r.environment = env.empty() ? nlohmann::json::object() : nlohmann::json::parse(env);
      index[r.spec.key] = out.size();
      out.push_back(std::move(r));
    }
  }
  Statement st(db_, "SELECT run_key, type, measured, reference, reference_u, extra FROM results ORDER BY rowid", path_);
  while (sqlite3_step(st.get()) == SQLITE_ROW) {
    auto it = index.find(st.column_text(0));
    if (it == index.end()) continue;
    Measurement m;
    m.type = st.column_text(1);
    m.measured = sqlite3_column_double(st.get(), 2);
    m.reference = sqlite3_column_double(st.get(), 3);
    m.reference_u = sqlite3_column_double(st.get(), 4);
    std::string extra = st.column_text(5);
    m.extra = extra.empty() ? nlohmann::json::object() : nlohmann::json::parse(extra);
    out[it->second].measurements.push_back(std::move(m));
  }
  return out;
}

}  // namespace rastro::campaign
