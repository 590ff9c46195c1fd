// `rastro validate mpi`: a small campaign (2 ranks, 2 replicates, 2 ring rounds) run end to end with
// each MPI built here — the job captured by `capture --mpi`, merged, replayed by `mpirun … rastro
// replay --mpi`, merged again. Every number of results.csv is recomputed here from the job traces
// the campaign keeps (work/jobs/, work/originals/), reading their headers and events directly:
// a row per rank, measurand and replicate; the measured and reference values; clock_u = the rank's
// widest offset bound in the merged header / √3 for spans that end on rank 1, 0 otherwise; and the
// catalogue's u_clock from those.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/mpi/mpi_job_util.h"
#include "trace/io/trace_io.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::mpi {
namespace {

using namespace testing;

constexpr int kCampaignRanks = 2;
constexpr int kReplicates = 2;

// The measurands of one merged job, computed here from its events (µs, as results.csv has them):
// "MPI.WRITE.R<r>(warm)" mean write/pwrite64 time on *.dat files, "MPI.SPAN.R<r>(warm)" rank r's
// last *.dat call's end minus rank 0's first one's begin (the catalogue's type labels: the MPI,
// the measurand, the cache state); and the clock_u each should carry.
struct Expected {
  std::map<std::string, double> value_us, clock_u_us;
};

Expected expected_from(const std::string& path, const std::string& prefix) {
  Expected out;
  const auto t = trace::read_trace(path);
  if (!t.header.extra.contains("mpi_job")) {
    ADD_FAILURE() << path << " has no mpi_job header";
    return out;
  }
  std::map<int32_t, int> rank_of;
  std::map<int, int64_t> widest;  // per rank: the wider of its init and finalize bounds
  for (const auto& r : t.header.extra["mpi_job"]["ranks"]) {
    const int rank = r["rank"];
    for (const auto& p : r["pids"]) rank_of[p.get<int32_t>()] = rank;
    for (const char* phase : {"init", "finalize"})
      if (r.contains(phase)) widest[rank] = std::max(widest[rank], r[phase]["half_width_ns"].get<int64_t>());
  }
  std::map<int, std::vector<double>> writes;
  std::map<int, int64_t> first, last;
  for (const auto& e : t.events) {
    if (e.flags & (trace::kEventSkipped | trace::kEventUnfinished) || e.failed()) continue;
    bool dat = false;
    for (int a = 0; a < e.nargs; ++a)
      dat |= (e.arg(a).type == trace::ArgType::kFd || e.arg(a).type == trace::ArgType::kPath) &&
             t.str(e.arg(a).str).ends_with(".dat");
    if (!dat) continue;
    const int rank = rank_of.at(e.pid);
    first[rank] = first.count(rank) ? std::min(first[rank], e.begin_ns) : e.begin_ns;
    last[rank] = last.count(rank) ? std::max(last[rank], e.end_ns) : e.end_ns;
    const auto fn = trace::function_name(e, t.strings);
    if (fn == "write" || fn == "pwrite64") writes[rank].push_back(static_cast<double>(e.duration_ns()));
  }
  for (int r = 0; r < kCampaignRanks; ++r) {
    const std::string w = prefix + ".WRITE.R" + std::to_string(r) + "(warm)",
                      s = prefix + ".SPAN.R" + std::to_string(r) + "(warm)";
    double sum = 0;
    for (double d : writes[r]) sum += d;
    EXPECT_FALSE(writes[r].empty()) << path << " rank " << r;
    out.value_us[w] = writes[r].empty() ? 0 : sum / static_cast<double>(writes[r].size()) / 1000;
    out.value_us[s] = static_cast<double>(last[r] - first[0]) / 1000;
    out.clock_u_us[w] = 0;
    out.clock_u_us[s] = r == 0 ? 0 : static_cast<double>(widest[r]) / std::sqrt(3.0) / 1000;
  }
  return out;
}

std::vector<std::map<std::string, std::string>> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  auto split = [](const std::string& s) {
    std::vector<std::string> f;
    std::stringstream ss(s);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (!s.empty() && s.back() == ',') f.emplace_back();
    return f;
  };
  if (std::getline(in, line)) header = split(line);
  while (std::getline(in, line)) {
    auto f = split(line);
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size() && i < f.size(); ++i) row[header[i]] = f[i];
    rows.push_back(row);
  }
  return rows;
}

void run_campaign_and_check(const Flavor& f) {
  const std::string dir = scratch("campaign-" + f.name), out = dir + "/out";
  {
    std::ofstream cfg(dir + "/mpi.json");
    cfg << nlohmann::json{{"kind", "mpi"},           {"types", {f.name}},          {"levels", {kCampaignRanks}},
                          {"replicates", kReplicates}, {"ops", 2},                 {"replayers", {"workers"}},
                          {"orderings", {"fs"}},       {"timings", {"fullspeed"}}, {"cache", {"warm"}},
                          {"mpi_capture_instrument", "ptrace"}}
               .dump();
  }
  // The replay ranks load the MPI library into rastro: under AddressSanitizer its allocations at
  // exit are not rastro's leaks (as in mpi_replay_test.cpp).
  const std::string cmd = "ASAN_OPTIONS=detect_leaks=0 timeout 900 " + cli_test::kRastro + " validate mpi --config " + dir +
                          "/mpi.json --no-progress -o " + out;
  auto run = sh(cmd);
  ASSERT_EQ(run.status, 0) << cmd << "\n" << run.out;

  std::string upper = f.name;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const Expected original = expected_from(out + "/work/originals/" + f.name + "-L2-B0-P0-warm.rastro", upper);
  const auto rows = read_csv(out + "/results.csv");
  std::map<std::string, std::vector<double>> clock_u_by_cell;  // instrument|type -> clock_u of its rows
  std::map<std::string, int> seen;
  for (const auto& row : rows) {
    const std::string inst = row.at("instrument"), type = row.at("type");
    SCOPED_TRACE(inst + " " + type + " r" + row.at("replicate"));
    EXPECT_EQ(row.at("level"), "2");
    ++seen[inst + "|" + type + "|" + row.at("replicate")];
    std::string dirname = inst;
    std::replace(dirname.begin(), dirname.end(), '/', '-');
    const Expected job =
        expected_from(fmt::format("{}/work/jobs/{}/{}-N2-B0-warm-r{}.rastro", out, dirname, f.name, row.at("replicate")), upper);
    ASSERT_TRUE(job.value_us.count(type)) << "unexpected measurand";
    EXPECT_NEAR(std::stod(row.at("measured")), job.value_us.at(type), 1e-6);
    EXPECT_NEAR(std::stod(row.at("clock_u")), job.clock_u_us.at(type), 1e-9);
    if (type.find("SPAN.R1") != std::string::npos) {
      EXPECT_GT(std::stod(row.at("clock_u")), 0) << "rank 1's bound is never 0";
    }
    // A replay is compared with the job it replayed (SPEC §6.0).
    if (inst != "reference") {
      EXPECT_NEAR(std::stod(row.at("reference")), original.value_us.at(type), 1e-6);
    }
    clock_u_by_cell[inst + "|" + type].push_back(std::stod(row.at("clock_u")));
  }
  // Every rank × measurand × replicate, for the re-captures and the replayer: 2 × 2 × 2 × 2.
  EXPECT_EQ(rows.size(), 16u);
  for (const std::string inst : {"reference", "workers/fs/fullspeed"})
    for (const std::string m : {"WRITE", "SPAN"})
      for (int r = 0; r < kCampaignRanks; ++r)
        for (int rep = 1; rep <= kReplicates; ++rep)
          EXPECT_EQ(seen[fmt::format("{}|{}.{}.R{}(warm)|{}", inst, upper, m, r, rep)], 1) << inst << " " << m << r << " " << rep;

  // The catalogue: per cell, u_clock = sqrt(mean(clock_u²)) of its rows, beside precision and bias.
  std::ifstream cin(out + "/catalogue.json");
  const auto cat = nlohmann::json::parse(cin);
  size_t entries = 0;
  for (const auto& inst : cat["instruments"]) {
    EXPECT_EQ(inst["status"], "measured") << inst.dump();
    for (const auto& e : inst["entries"]) {
      const auto& u = clock_u_by_cell[inst["instrument"].get<std::string>() + "|" + e["type"].get<std::string>()];
      ASSERT_EQ(u.size(), static_cast<size_t>(kReplicates)) << e.dump();
      double sum2 = 0;
      for (double x : u) sum2 += x * x;
      EXPECT_NEAR(e["u_clock"].get<double>(), std::sqrt(sum2 / static_cast<double>(u.size())), 1e-9) << e.dump();
      EXPECT_TRUE(e["precision_rel"].is_number() && e["bias_rel"].is_number()) << e.dump();
      if (e["type"].get<std::string>().find("SPAN.R1") != std::string::npos) {
        EXPECT_GT(e["u_clock_rel"].get<double>(), 0) << e.dump();
      }
      ++entries;
    }
  }
  EXPECT_EQ(entries, 8u);
  std::ifstream md(out + "/catalogue.md");
  std::stringstream text;
  text << md.rdbuf();
  EXPECT_NE(text.str().find("| u(clock) |"), std::string::npos);
  EXPECT_NE(text.str().find(upper + ".SPAN.R1(warm)"), std::string::npos) << text.str().substr(0, 2000);
  std::filesystem::remove_all(dir);
}

TEST(MpiCampaign, TwoRanksCapturedMergedAndReplayedCarryTheClockComponent) {
  if (flavors().empty()) GTEST_SKIP() << "no MPI is installed (rastro was built without Open MPI's or MPICH's mpi.h)";
  for (const auto& f : flavors()) {
    SCOPED_TRACE(f.name);
    run_campaign_and_check(f);
  }
}

}  // namespace
}  // namespace rastro::mpi
