// The campaign's results store (SQLite). Every run's outcome is committed as soon as it ends, so
// an interrupted campaign resumes where it stopped and nothing measured is lost.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign/run_matrix.h"

struct sqlite3;

namespace rastro::campaign {

// One measured value of a run (a macro run yields one per operation class).
struct Measurement {
  std::string type;         // the workload type / operation class measured
  double measured = 0;      // mean response time by the instrument or replayer, ns
  // The reference method in this run: capture, the application's own timing of the same requests
  // (same-run, perturbed by the instrument); replay, the original trace's. The catalogue's
  // reference is the cell's (campaign/report/cell_reference.h), not this.
  double reference = 0;
  double reference_u = 0;   // within-run standard error of `reference` (diagnosis only), ns
  // issue error, concurrency ECDF, counts; capture: recording_ns (paired per-call difference)
  nlohmann::json extra = nlohmann::json::object();
};

struct RunOutcome {
  bool ok = false;
  std::string error;
  std::vector<Measurement> measurements;
  nlohmann::json environment = nlohmann::json::object();
  nlohmann::json background = nlohmann::json::object();
  double wall_s = 0;
};

struct StoredRun {
  RunSpec spec;
  std::string status;  // "ok" or "failed"
  int attempts = 0;
  std::string error;
  std::vector<Measurement> measurements;
  nlohmann::json environment;
};

class ResultsStore {
 public:
  // Opens or creates DIR/results.sqlite. A store made by a different campaign definition is
  // refused (resuming must not mix campaigns).
  ResultsStore(const std::string& path, const nlohmann::json& config);
  ~ResultsStore();
  ResultsStore(const ResultsStore&) = delete;
  ResultsStore& operator=(const ResultsStore&) = delete;

  // Keys of runs already finished (ok or finally failed).
  std::map<std::string, std::string> finished() const;
  void record(const RunSpec& spec, const RunOutcome& outcome, int attempts);
  std::vector<StoredRun> runs() const;
  void set_meta(const std::string& key, const std::string& value);
  std::string meta(const std::string& key) const;

 private:
  void exec(const std::string& sql) const;
  sqlite3* db_ = nullptr;
  std::string path_;
};

}  // namespace rastro::campaign
