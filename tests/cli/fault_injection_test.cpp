// Fault injection through the CLI, as things go wrong for users: rastro killed or interrupted
// mid-capture, the traced workload killed, the trace's file system full, the replay root filling
// up mid-run, a campaign killed and run again.
#include <sys/mount.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "common/error.h"
#include "trace/io/trace_io.h"
#include "trace/model/trace.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using rastro::cli_test::Child;
using rastro::cli_test::kRastro;
using rastro::cli_test::sh;
using rastro::cli_test::slurp;
using rastro::cli_test::TempDir;
using rastro::cli_test::wait_until;

// The dd count that marks this test process's workloads, so that a check for a straggling dd
// finds this test's and never another's: ctest -j2 runs two of these tests at once, and with one
// shared marker a test saw the other's dd still running and failed (CI, 2026-11-28).
std::string dd_marker() { return std::to_string(50000000 + ::getpid() % 1000000); }
std::string paced_marker() { return "rastro-fault-" + std::to_string(::getpid()); }

// A workload making FS calls for far longer than any test waits: 2 syscalls per byte.
std::vector<std::string> endless_workload() {
  return {"/bin/dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=" + dd_marker()};
}

std::vector<std::string> capture_argv(const std::string& backend, const std::string& out,
                                      const std::vector<std::string>& workload) {
  std::vector<std::string> argv{kRastro, "capture", "-b", backend, "-o", out, "--"};
  argv.insert(argv.end(), workload.begin(), workload.end());
  return argv;
}

// Events readable so far from a trace being written (0 while only the header is there).
size_t readable_events(const std::string& path) {
  try {
    return rastro::trace::read_trace(path).events.size();
  } catch (const rastro::Error&) {
    return 0;  // not created yet, or the header block is still being written
  }
}

// Backends this machine can run: ptrace always (own children), strace when installed, eBPF as root.
std::vector<std::string> usable_backends() {
  std::vector<std::string> b{"ptrace"};
  if (sh("command -v strace").status == 0) b.push_back("strace");
  if (geteuid() == 0) b.push_back("ebpf");
  return b;
}

// A workload that runs until interrupted at a pace any consumer keeps up with, even one slowed by
// AddressSanitizer beside another test on 2 cores: ~1,000 calls every 50 ms. (dd at full speed
// overflows an instrumented eBPF consumer, and counting that loss is another test's subject.)
// /bin/sh (dash) dies of the SIGINT it does not handle; the marker (a comment in its script) finds a
// straggling shell.
std::vector<std::string> paced_endless_workload() {
  return {"/bin/sh", "-c",
          "while :; do dd if=/dev/zero of=/dev/null bs=1 count=499 status=none; sleep 0.05; done # " + paced_marker()};
}

// Whether no process's command line holds `text` (a marker above).
bool none_left(const std::string& text) {
  // The bracket keeps pgrep from matching the shell that runs it.
  return sh("pgrep -f '" + text.substr(0, text.size() - 1) + "[" + text.back() + "]'").status != 0;
}
bool no_dd_left(const std::string& count) { return none_left("count=" + count); }

TEST(FaultInjection, CaptureKilledWithSigkillLeavesAReadablePrefixMarkedIncomplete) {
  for (const std::string backend : {"ptrace", "ebpf"}) {
    if (backend == "ebpf" && geteuid() != 0) {
      std::printf("eBPF part skipped: needs root (CAP_BPF), running as uid %d\n", geteuid());
      continue;
    }
    SCOPED_TRACE(backend);
    TempDir d("rastro-fault");
    const std::string out = d.path + "/t.rastro";
    Child rastro(capture_argv(backend, out, endless_workload()), d.path + "/log");
    // Mid-run: once at least one block of events is on disk (blocks go out every second).
    ASSERT_TRUE(wait_until([&] { return readable_events(out) > 0; }, 60s)) << slurp(d.path + "/log");
    rastro.signal(SIGKILL);
    EXPECT_EQ(rastro.wait(30s), 128 + SIGKILL);

    rastro::trace::ReadReport report;
    const rastro::trace::Trace t = rastro::trace::read_trace(out, &report);
    EXPECT_FALSE(report.intact) << "a killed writer cannot have written the trailer";
    EXPECT_NE(report.problem, "");
    EXPECT_FALSE(t.header.complete);
    EXPECT_GT(t.events.size(), 0u);
    EXPECT_EQ(t.header.backend, backend);
    // `rastro stats` reads the prefix, says the trace is incomplete and exits 2 (damaged file).
    const auto stats = sh(kRastro + " stats " + out);
    EXPECT_EQ(stats.status, 2) << stats.out;
    EXPECT_NE(stats.out.find("INCOMPLETE"), std::string::npos) << stats.out;
    // The workload does not outlive its tracer (ptrace: PTRACE_O_EXITKILL; eBPF: its own group).
    EXPECT_TRUE(wait_until([] { return no_dd_left(dd_marker()); }, 10s)) << "the traced dd kept running";
  }
}

TEST(FaultInjection, CaptureInterruptedWithSigintFinalisesTheTrace) {
  for (const std::string& backend : usable_backends()) {
    SCOPED_TRACE(backend);
    TempDir d("rastro-fault");
    const std::string out = d.path + "/t.rastro";
    Child rastro(capture_argv(backend, out, paced_endless_workload()), d.path + "/log");
    // strace writes the trace at the end; for the others wait for the first block.
    if (backend == "strace")
      std::this_thread::sleep_for(2s);
    else
      ASSERT_TRUE(wait_until([&] { return readable_events(out) > 0; }, 60s)) << slurp(d.path + "/log");
    rastro.signal(SIGINT);
    // The workload got the SIGINT and died of it: that is rastro's exit status too.
    EXPECT_EQ(rastro.wait(60s), 128 + SIGINT) << slurp(d.path + "/log");

    rastro::trace::ReadReport report;
    const rastro::trace::Trace t = rastro::trace::read_trace(out, &report);
    EXPECT_TRUE(report.intact) << report.problem;
    EXPECT_TRUE(t.header.complete);
    EXPECT_GT(t.events.size(), 0u);
    EXPECT_EQ(t.header.extra.value("stopped_by_signal", 0), SIGINT) << t.header.extra.dump();
    EXPECT_EQ(t.header.extra.value("workload_exit_status", 0), 128 + SIGINT) << t.header.extra.dump();
    EXPECT_EQ(t.header.events_lost, 0u);
    EXPECT_TRUE(wait_until([] { return none_left(paced_marker()); }, 10s));
  }
}

TEST(FaultInjection, WorkloadKilledBySignalIsRecordedAndBecomesTheExitStatus) {
  for (const std::string& backend : usable_backends()) {
    SCOPED_TRACE(backend);
    TempDir d("rastro-fault");
    const std::string out = d.path + "/t.rastro";
    const std::string marker = d.path + "/before-kill";
    Child rastro(capture_argv(backend, out, {"/bin/sh", "-c", "echo x > " + marker + "; kill -KILL $$"}),
                 d.path + "/log");
    EXPECT_EQ(rastro.wait(60s), 128 + SIGKILL) << slurp(d.path + "/log");
    const rastro::trace::Trace t = rastro::trace::read_trace(out);
    EXPECT_TRUE(t.header.complete);
    EXPECT_EQ(t.header.extra.value("workload_exit_status", 0), 128 + SIGKILL) << t.header.extra.dump();
    // The calls before the kill are there: the shell's open of the marker file.
    bool opened_marker = false;
    for (const auto& e : t.events)
      for (const auto& a : e.args)
        if (a.str != rastro::trace::kNoStr && t.strings.get(a.str) == marker) opened_marker = true;
    EXPECT_TRUE(opened_marker);
  }
}

// A tmpfs of `size` mounted on `dir` for the life of the object (root only).
class SmallTmpfs {
 public:
  SmallTmpfs(const std::string& dir, const std::string& size) : dir_(dir) {
    fs::create_directories(dir);
    ok_ = ::mount("tmpfs", dir.c_str(), "tmpfs", 0, ("size=" + size).c_str()) == 0;
  }
  ~SmallTmpfs() {
    if (ok_) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  SmallTmpfs(const SmallTmpfs&) = delete;
  SmallTmpfs& operator=(const SmallTmpfs&) = delete;
  bool ok() const { return ok_; }

 private:
  std::string dir_;
  bool ok_ = false;
};

TEST(FaultInjection, CaptureOntoAFullFileSystemFailsClearlyAndKeepsAReadablePrefix) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root; running as uid " << geteuid();
  TempDir d("rastro-fault");
  SmallTmpfs tiny(d.path + "/tiny", "256k");
  ASSERT_TRUE(tiny.ok()) << "mount tmpfs: " << strerror(errno);
  const std::string out = d.path + "/tiny/t.rastro";
  Child rastro(capture_argv("ptrace", out, endless_workload()), d.path + "/log");
  const int status = rastro.wait(300s);
  const std::string log = slurp(d.path + "/log");
  EXPECT_NE(status, 0) << log;
  EXPECT_NE(status, -1) << "rastro did not stop when its trace could not be written";
  EXPECT_NE(log.find("No space left on device"), std::string::npos) << log;
  EXPECT_NE(log.find(out), std::string::npos) << "the error must name the file: " << log;
  rastro::trace::ReadReport report;
  const rastro::trace::Trace t = rastro::trace::read_trace(out, &report);
  EXPECT_FALSE(report.intact);
  EXPECT_GT(t.events.size(), 0u) << "the blocks written before the disk filled are readable";
  EXPECT_TRUE(wait_until([] { return no_dd_left(dd_marker()); }, 10s)) << "the workload outlived the failed capture";
}

TEST(FaultInjection, ImportOntoAFullFileSystemLeavesNoFilePretendingToBeComplete) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root; running as uid " << geteuid();
  TempDir d("rastro-fault");
  SmallTmpfs tiny(d.path + "/tiny", "4k");  // one page: less than the header and first block
  ASSERT_TRUE(tiny.ok()) << "mount tmpfs: " << strerror(errno);
  const std::string log = std::string(RASTRO_SOURCE_DIR) + "/tests/fixtures/strace/tar.log";
  const std::string out = d.path + "/tiny/t.rastro";
  const auto r = sh(kRastro + " import strace " + log + " -o " + out);
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("No space left on device"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(out), std::string::npos) << "the error must name the file: " << r.out;
  if (fs::exists(out)) {
    rastro::trace::ReadReport report;
    const rastro::trace::Trace t = rastro::trace::read_trace(out, &report);
    EXPECT_FALSE(report.intact && t.header.complete) << "a failed import must not look complete";
  }
}

TEST(FaultInjection, ReplayWhoseRootFillsUpMidRunFinishesAndCountsTheFailures) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root; running as uid " << geteuid();
  TempDir d("rastro-fault");
  // 600 writes of 4 KiB, 2 ms apart: a replay at the trace's own pace lasts over a second.
  const std::string ref = d.path + "/ref.rastro";
  const auto bench = sh(kRastro + " bench micro --type sw --threads 1 --ops 600 --pause-us 2000 --file-size 4M --dir " +
                        d.path + "/data -o " + ref);
  ASSERT_EQ(bench.status, 0) << bench.out;
  // Without its declared initial files, --init leaves the file empty and every replayed write
  // needs new space (with them, the writes overwrite blocks --init already allocated).
  rastro::trace::Trace traced = rastro::trace::read_trace(ref);
  traced.header.settings.erase("initial_files");
  rastro::trace::write_trace(ref, traced);
  SmallTmpfs root(d.path + "/root", "8M");
  ASSERT_TRUE(root.ok()) << "mount tmpfs: " << strerror(errno);
  const std::string out = d.path + "/out.rastro", summary = d.path + "/summary.json";
  Child replay({kRastro, "replay", "-O", "fs", "-T", "timestamp", "--root", d.path + "/root", "--init", ref, "-o", out,
                "--summary-json", summary},
               d.path + "/log");
  // Mid-run, something else takes every free byte of the root's file system.
  std::this_thread::sleep_for(400ms);
  const auto fill = sh("dd if=/dev/zero of=" + d.path + "/root/filler bs=64k 2>/dev/null; sync");
  const int status = replay.wait(120s);
  const std::string log = slurp(d.path + "/log");
  ASSERT_EQ(status, 0) << log;

  const auto s = nlohmann::json::parse(slurp(summary));
  const rastro::trace::Trace replayed = rastro::trace::read_trace(out);
  size_t writes = 0, enospc = 0;
  for (const auto& e : replayed.events) {
    if (rastro::trace::function_name(e, replayed.strings) != "write") continue;
    ++writes;
    if (e.error_number() == ENOSPC) ++enospc;
  }
  EXPECT_EQ(writes, 600u) << "every write is replayed and recorded, failed or not";
  EXPECT_GT(enospc, 0u) << "writes after the disk filled fail with ENOSPC";
  EXPECT_LT(enospc, 600u) << "writes before the disk filled succeed";
  EXPECT_GE(s["mismatched"].get<uint64_t>(), enospc) << s.dump();
}

TEST(FaultInjection, CampaignKilledMidRunResumesToTheSameRunsOnce) {
  TempDir d("rastro-fault");
  std::ofstream(d.path + "/c.json")
      << R"({"kind":"capture","types":["sr"],"levels":[1],"backgrounds":[0],"replicates":8,)"
      << R"("ops":400,"file_size":4194304,"drop_caches":false,"instruments":["reference","ptrace"]})";
  const std::string dir = d.path + "/out";
  const std::string count_runs = "sqlite3 " + dir + "/results.sqlite 'select count(*) from runs' 2>/dev/null";
  if (sh("command -v sqlite3").status != 0) GTEST_SKIP() << "the sqlite3 shell is not installed (scripts/setup.sh installs it)";
  {
    Child campaign({kRastro, "validate", "capture", "--no-progress", "--config", d.path + "/c.json", "-o", dir},
                   d.path + "/log1");
    ASSERT_TRUE(wait_until([&] { return std::atoi(sh(count_runs).out.c_str()) >= 3; }, 120s)) << slurp(d.path + "/log1");
    campaign.signal(SIGKILL);
    EXPECT_EQ(campaign.wait(30s), 128 + SIGKILL);
  }
  const int before = std::atoi(sh(count_runs).out.c_str());
  ASSERT_LT(before, 16) << "the campaign finished before it could be killed";
  // No LeakSanitizer (sanitizer builds): the campaign traces rastro's own bench with ptrace.
  const auto resumed =
      sh("ASAN_OPTIONS=detect_leaks=0 " + kRastro + " validate capture --no-progress --config " + d.path + "/c.json -o " + dir);
  ASSERT_EQ(resumed.status, 0) << resumed.out;
  EXPECT_NE(resumed.out.find("resumed: " + std::to_string(before) + " of 16 runs"), std::string::npos) << resumed.out;
  // Every run of the matrix exactly once, all measured.
  std::ofstream(d.path + "/q.sql") << "select count(*), count(distinct key), sum(status = 'ok') from runs;\n";
  const auto keys = sh("sqlite3 " + dir + "/results.sqlite < " + d.path + "/q.sql");
  EXPECT_EQ(keys.out, "16|16|16\n");
  const auto cat = nlohmann::json::parse(slurp(dir + "/catalogue.json"));
  EXPECT_EQ(cat["instruments"].size(), 2u);
}

}  // namespace
