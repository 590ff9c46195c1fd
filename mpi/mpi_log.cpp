#include "mpi/mpi_log.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/error.h"

namespace rastro::mpi {

namespace {

[[noreturn]] void bad(const std::string& file, int line, const std::string& what) {
  throw Error(fmt::format("{}:{}: {}", file, line, what));
}

}  // namespace

RankLog parse_rank_log(const std::string& text, const std::string& file) {
  RankLog log;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  bool magic = false;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    std::istringstream f(line);
    std::string kind;
    f >> kind;
    if (!magic) {
      int version = 0;
      if (kind != "rastro-mpi" || !(f >> version)) bad(file, n, "not a rastro MPI log (no 'rastro-mpi' first line)");
      if (version != 1) bad(file, n, fmt::format("MPI log version {} is not supported (this rastro reads 1)", version));
      magic = true;
      continue;
    }
    if (kind == "rank") {
      if (!(f >> log.rank >> log.size >> log.host >> log.pid) || log.rank < 0 || log.size <= log.rank)
        bad(file, n, "malformed 'rank' line (expected: rank RANK SIZE HOST PID)");
    } else if (kind == "job") {
      if (!(f >> log.job)) bad(file, n, "malformed 'job' line");
    } else if (kind == "S") {
      std::string phase;
      SyncRound r;
      if (!(f >> phase >> r.sent >> r.reference >> r.received) || r.received < r.sent)
        bad(file, n, "malformed sync round (expected: S init|finalize T1 T_REF T2 with T2 >= T1)");
      if (phase == "init")
        log.init_sync.push_back(r);
      else if (phase == "finalize")
        log.finalize_sync.push_back(r);
      else
        bad(file, n, fmt::format("unknown sync phase '{}'", phase));
    } else if (kind == "E") {
      MpiRecord r;
      r.line = n;
      if (!(f >> r.name >> r.tid >> r.begin >> r.end >> r.comm >> r.peer >> r.tag >> r.bytes >> r.extra >> r.rc) ||
          r.end < r.begin)
        bad(file, n, "malformed operation record (expected: E NAME TID BEGIN END COMM PEER TAG BYTES EXTRA RC)");
      log.records.push_back(std::move(r));
    } else if (kind == "end") {
      if (!(f >> log.dropped_by_library)) bad(file, n, "malformed 'end' line");
      log.finalized = true;
    } else {
      bad(file, n, fmt::format("unknown record kind '{}'", kind));
    }
  }
  if (!magic) bad(file, 1, "empty MPI log (did the program call MPI_Init?)");
  if (log.rank < 0) bad(file, n, "no 'rank' line");
  return log;
}

RankLog read_rank_log(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot read the MPI log", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_rank_log(ss.str(), path);
}

nlohmann::json sync_rounds_json(const std::vector<SyncRound>& rounds) {
  auto a = nlohmann::json::array();
  for (const auto& r : rounds) a.push_back({r.sent, r.reference, r.received});
  return a;
}

}  // namespace rastro::mpi
