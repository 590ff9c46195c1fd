// Real MPI jobs: mpirun starts `rastro capture --mpi` as each rank, each rank in its own time
// namespace whose clock is shifted by a known number of seconds; `rastro merge` must recover those
// offsets within the bounds it reports and order every message send-before-receive.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "mpi/mpi_ops.h"
#include "tests/cli/cli_test_util.h"
#include "tests/mpi/mpi_job_util.h"
#include "trace/io/trace_io.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::mpi {
namespace {

using cli_test::sh;
using namespace testing;

// What a captured job must show: per-rank traces, a merge that recovers each rank's injected clock
// offset within its bound, matches every message and collective, and orders each message.
// Returns the merge report.
nlohmann::json check_job(const std::string& dir, int ranks, const std::function<int64_t(int)>& injected_ns) {

  // One trace per rank, with the rank's own files and its MPI operations.
  for (int r = 0; r < ranks; ++r) {
    auto t = trace::read_trace(dir + "/traces/rank-" + std::to_string(r) + ".rastro");
    if (!t.header.extra.contains("mpi")) {
      ADD_FAILURE() << "rank " << r << " has no mpi header";
      continue;
    }
    EXPECT_EQ(t.header.extra["mpi"]["rank"], r);
    EXPECT_EQ(t.header.extra["mpi"]["size"], ranks);
    bool sent = false;
    int64_t init_end = 0, finalize_begin = 0;
    std::vector<int64_t> own_file_calls;  // begins of the syscalls on the rank's own file
    for (const auto& e : t.events) {
      const auto name = trace::function_name(e, t.strings);
      for (int a = 0; a < e.nargs; ++a)
        if (t.str(e.arg(a).str).ends_with("/rank-" + std::to_string(r) + ".dat")) own_file_calls.push_back(e.begin_ns);
      if (name == "MPI_Init") init_end = e.end_ns;
      if (name == "MPI_Finalize") finalize_begin = e.begin_ns;
      if (const auto* op = mpi_op_by_name(name); op && op->kind == MpiOpKind::kSend) sent = true;
    }
    EXPECT_FALSE(own_file_calls.empty()) << "rank " << r;
    EXPECT_TRUE(sent) << "rank " << r;
    // Syscalls and MPI operations are on one clock: the file I/O happens between MPI_Init and
    // MPI_Finalize (an eBPF trace left on the kernel's unshifted clock would be 1000·R s off).
    for (int64_t b : own_file_calls) {
      EXPECT_GT(b, init_end) << "rank " << r;
      EXPECT_LT(b, finalize_begin) << "rank " << r;
    }
  }

  auto merge = sh(cli_test::kRastro + " merge " + dir + "/traces -o " + dir + "/job.rastro --json");
  EXPECT_EQ(merge.status, 0) << merge.out;
  if (merge.out.find('{') == std::string::npos) {
    ADD_FAILURE() << "no report: " << merge.out;
    return {};
  }
  auto j = nlohmann::json::parse(merge.out.substr(merge.out.find('{')));
  // Ring: kRounds × ranks hops; shared-file sizes: ranks − 1 messages.
  EXPECT_EQ(j["messages_matched"], kRounds * ranks + ranks - 1) << j.dump(2);
  EXPECT_EQ(j["sends_unmatched"], 0);
  EXPECT_EQ(j["recvs_unmatched"], 0);
  EXPECT_EQ(j["collectives_matched"], 3);  // barrier, allreduce, barrier
  EXPECT_EQ(j["collectives_partial"], 0);
  EXPECT_EQ(j["inversions_beyond_uncertainty"], 0) << j.dump(2);
  for (const auto& r : j["ranks"]) {
    const int rank = r["rank"];
    if (rank == 0) continue;
    const int64_t injected = injected_ns(rank);
    for (const char* phase : {"init", "finalize"}) {
      if (!r.contains(phase)) {
        ADD_FAILURE() << "no " << phase << " estimate: " << r.dump();
        continue;
      }
      const int64_t off = r[phase]["offset_ns"], bound = r[phase]["half_width_ns"];
      EXPECT_LE(std::llabs(off - injected), bound) << "rank " << rank << " " << phase << ": " << r.dump();
      EXPECT_LT(bound, 50'000'000) << "a 50 ms bound would not order anything";
    }
  }

  // The merged trace: every rank's process, on rank 0's clock, with each message's receive ending
  // after its send began.
  auto m = trace::read_trace(dir + "/job.rastro");
  std::set<int32_t> pids;
  std::map<int64_t, std::pair<const trace::Event*, const trace::Event*>> messages;
  for (const auto& e : m.events) {
    pids.insert(e.pid);
    const auto* op = mpi_op_by_name(trace::function_name(e, m.strings));
    if (!op || e.nargs <= kArgMatch) continue;
    if (op->kind == MpiOpKind::kSend) messages[e.arg(kArgMatch).value].first = &e;
    if (op->kind == MpiOpKind::kRecv) messages[e.arg(kArgMatch).value].second = &e;
  }
  EXPECT_GE(pids.size(), static_cast<size_t>(ranks));
  const int64_t slack = j["max_cross_rank_half_width_ns"];
  for (const auto& [id, sr] : messages) {
    EXPECT_TRUE(sr.first && sr.second) << "message " << id;
    if (sr.first && sr.second) {
      EXPECT_GE(sr.second->end_ns + slack, sr.first->begin_ns) << "message " << id;
    }
  }
  return j;
}

void capture_merge_and_check(const Flavor& f, const std::string& backend, int ranks) {
  const std::string dir = scratch(f.name + "-" + backend);
  const std::string cmd = "RASTRO_TEST_CLOCK_STEP_S=" + std::to_string(kStepSeconds) + " timeout 300 " + f.launch +
                          " -n " + std::to_string(ranks) + " " + TIME_OFFSET_WRAPPER + " " + cli_test::kRastro +
                          " capture --mpi -b " + backend + " -q -o " + dir + "/traces -- " + f.app + " " + dir +
                          "/data " + std::to_string(kRounds);
  auto run = sh(cmd);
  ASSERT_EQ(run.status, 0) << cmd << "\n" << run.out;
  EXPECT_NE(run.out.find("ranks " + std::to_string(ranks) + " bytes"), std::string::npos) << run.out;
  check_job(dir, ranks, [](int rank) { return rank * kStepSeconds * 1'000'000'000; });
  std::filesystem::remove_all(dir);
}

TEST(MpiCapture, PtraceRanksInShiftedClocksMergeOntoRankZero) {
  if (!can_unshare_time()) GTEST_SKIP() << "time namespaces are not available (unshare --time failed)";
  for (const auto& f : flavors()) {
    SCOPED_TRACE(f.name);
    capture_merge_and_check(f, "ptrace", kRanks);
  }
}

TEST(MpiCapture, EbpfRanksUseTheirNamespacesClock) {
  if (!can_unshare_time()) GTEST_SKIP() << "time namespaces are not available (unshare --time failed)";
  if (geteuid() != 0) GTEST_SKIP() << "the eBPF backend needs root";
  auto f = flavors();
  ASSERT_FALSE(f.empty());
  capture_merge_and_check(f.front(), "ebpf", 2);
}

bool can_make_network_namespaces() {
  const std::string ns = "rastro-probe-" + std::to_string(getpid());
  const bool ok = sh("ip netns add " + ns).status == 0;
  if (ok) sh("ip netns del " + ns);
  return ok;
}

// Two "hosts" on this machine: network + UTS + time namespaces joined by a veth pair, MPI over TCP
// (tests/mpi/two_hosts.sh); ranks 0-1 on hostA, 2-3 on hostB whose clock is 777 s ahead.
TEST(MpiTwoHosts, RanksOnAnotherHostWithAnotherClockMergeInOrder) {
  if (!can_unshare_time()) GTEST_SKIP() << "time namespaces are not available (unshare --time failed)";
  if (!can_make_network_namespaces()) GTEST_SKIP() << "network namespaces are not available (ip netns add failed)";
  constexpr int64_t kOffsetS = 777;
  for (const auto& f : flavors()) {
    SCOPED_TRACE(f.name);
    const std::string dir = scratch(f.name + "-two-hosts");
    const std::string cmd = std::string("timeout 300 ") + TWO_HOSTS_SCRIPT + " " + f.name + " " + cli_test::kRastro +
                            " " + dir + "/traces " + std::to_string(kOffsetS) + " ptrace -- " + f.app + " " + dir +
                            "/data " + std::to_string(kRounds);
    auto run = sh(cmd);
    ASSERT_EQ(run.status, 0) << cmd << "\n" << run.out;
    auto j = check_job(dir, kRanks, [](int rank) { return rank >= 2 ? kOffsetS * 1'000'000'000 : 0; });
    ASSERT_TRUE(j.contains("ranks"));
    for (const auto& r : j["ranks"]) EXPECT_EQ(r["host"], r["rank"].get<int>() >= 2 ? "hostB" : "hostA") << r.dump();
    std::filesystem::remove_all(dir);
  }
}

TEST(MpiCapture, OutsideAnMpiLauncherItSaysHowToRunIt) {
  auto r = sh("env -u OMPI_COMM_WORLD_RANK -u PMI_RANK -u PMIX_RANK -u SLURM_PROCID " + cli_test::kRastro +
              " capture --mpi -b ptrace -o /tmp/x -- true");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("no MPI launcher"), std::string::npos) << r.out;
}

TEST(MpiMerge, AnEmptyOrForeignDirectoryIsAClearError) {
  const std::string dir = scratch("empty");
  auto r = sh(cli_test::kRastro + " merge " + dir + "/data");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("no rank-R.rastro traces"), std::string::npos) << r.out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rastro::mpi
