// Root-only: io_uring requests captured by the eBPF backend, checked against fio's own record of
// what it issued (`--write_iolog`, which we did not write): fio's io_uring engine at queue depth
// 8 does 2000 random 4 KiB reads; the trace must hold exactly 2000 io_uring read requests with
// the same file, offsets and lengths, each linked to the io_uring_enter that submitted it.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "capture/ebpf/ebpf_backend.h"
#include "tests/capture/root/ebpf_root_util.h"
#include "tests/capture/root/fio_uring_job.h"
#include "trace/io/trace_sink.h"
#include "trace/syscalls/syscall_table.h"

namespace {

using rastro::testing::FioUringJob;

TEST(EbpfUring, FioReadsThroughIoUringAreTheRequestsFioLogged) {
  if (std::string why = rastro::capture::ebpf::testing::ebpf_missing(); !why.empty())
    GTEST_SKIP() << "eBPF unavailable: " << why;
  rastro::capture::ebpf::EbpfBackend backend;
  if (!rastro::testing::fio_installed()) GTEST_SKIP() << "fio is not installed";
  const FioUringJob job = FioUringJob::make(/*direct=*/false);
  ASSERT_FALSE(job.dir.empty());
  const int kReads = FioUringJob::kReads;
  const std::string& data = job.data;
  rastro::capture::CaptureOptions o;
  o.command = job.command();
  o.syscalls_spec = "fs";
  o.syscalls = rastro::trace::parse_syscall_set("fs").take();
  o.quiet = true;
  rastro::trace::MemorySink sink;
  ASSERT_EQ(backend.run(o, sink), 0);
  const auto& trace = sink.trace();
  EXPECT_EQ(trace.header.events_lost, 0u);

  const auto logged = job.logged_reads();
  ASSERT_EQ(logged.size(), static_cast<size_t>(kReads)) << "fio's log does not hold the reads";

  // The fd fio opened the file on, from its own openat in the trace.
  std::set<long long> data_fds;
  std::set<std::pair<int, int64_t>> enters;  // (tid, begin) of every io_uring_enter
  for (const auto& e : trace.events) {
    if (e.nr == rastro::trace::syscall_by_name("openat")->nr && trace.str(e.arg(1).str) == data && e.rvalue >= 0)
      data_fds.insert(e.rvalue);
    if (e.nr == rastro::trace::syscall_by_name("io_uring_enter")->nr) enters.emplace(e.tid, e.begin_ns);
  }
  ASSERT_FALSE(data_fds.empty()) << "fio's openat of the data file is not in the trace";
  EXPECT_FALSE(enters.empty()) << "the submitting io_uring_enter calls are not in the trace";

  std::multiset<std::tuple<std::string, long long, long long>> captured;
  int linked = 0;
  for (const auto& e : trace.events) {
    if (!(e.flags & rastro::trace::kEventUring)) continue;
    ASSERT_EQ(e.nr, rastro::trace::syscall_by_name("pread64")->nr) << "fio issued only reads";
    EXPECT_TRUE(data_fds.count(e.arg(0).value)) << "fd " << e.arg(0).value;
    EXPECT_EQ(e.rvalue, 4096);
    EXPECT_LE(e.begin_ns, e.end_ns);
    captured.emplace(trace.str(e.arg(0).str), e.arg(3).value, e.arg(2).value);
    if (enters.count({e.tid, e.uring_enter_ns})) ++linked;
  }
  EXPECT_EQ(captured.size(), static_cast<size_t>(kReads));
  EXPECT_TRUE(captured == logged) << "the captured (file, offset, length) differ from fio's log";
  EXPECT_EQ(linked, kReads) << "every request names the io_uring_enter that submitted it";
  job.remove();
}

}  // namespace
