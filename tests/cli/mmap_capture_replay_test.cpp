// Memory-mapped file I/O end to end (root, eBPF): this binary, re-executed as the workload, reads
// a file through a mapping at known pages and writes another through a shared mapping + msync,
// and reports which pages it touched and where it mapped them. `rastro capture -b ebpf` must
// record its page faults naming the file with those pages (every mm_fault is a page the program
// touched; every touched page is covered by a fault or the kernel's fault-around range: the kernel
// guarantees no more, since fault-around maps cached neighbours without a fault of their own;
// every written page faults for writing, since a write to a page not yet mapped always faults),
// and `rastro replay` must replay every mmap-family call and fault on those files with the traced
// result.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "replay/passes/replay_passes.h"
#include "trace/io/trace_io.h"
#include "trace/model/page_fault.h"
#include "trace/syscalls/syscall_table.h"

namespace {

using rastro::cli_test::kRastro;
using rastro::cli_test::sh;
using rastro::cli_test::slurp;
using rastro::cli_test::TempDir;

constexpr long kPage = 4096;
constexpr long kReadPages = 64;
constexpr long kWritePages = 16;
const std::vector<long> kReadTouched = {0, 5, 17, 18, 40, 63};
const std::vector<long> kWriteTouched = {1, 3, 8, 15};

// ---- workload mode: this binary re-executed with RASTRO_MMAP_DIR set ----------------------------

int run_mmap_workload_if_asked() {
  const char* dir = std::getenv("RASTRO_MMAP_DIR");
  if (dir == nullptr) return 0;
  const std::string d = dir;
  std::ofstream report(d + "/report");
  report << ::syscall(SYS_gettid) << '\n';
  {
    const int fd = ::open((d + "/read.dat").c_str(), O_RDONLY);
    if (fd < 0) std::_Exit(3);
    auto* p = static_cast<volatile char*>(::mmap(nullptr, kReadPages * kPage, PROT_READ, MAP_PRIVATE, fd, 0));
    if (p == MAP_FAILED) std::_Exit(4);
    ::close(fd);  // the mapping outlives the fd, as in most programs
    long sum = 0;
    for (long page : kReadTouched) sum += p[page * kPage + 123];
    report << "read " << reinterpret_cast<uintptr_t>(p) << ' ' << sum << '\n';
    ::munmap(const_cast<char*>(p), kReadPages * kPage);
  }
  {
    const int fd = ::open((d + "/write.dat").c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::ftruncate(fd, kWritePages * kPage) != 0) std::_Exit(5);
    auto* p = static_cast<char*>(::mmap(nullptr, kWritePages * kPage, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    if (p == MAP_FAILED) std::_Exit(6);
    for (long page : kWriteTouched) p[page * kPage + 9] = 'w';  // written, never read first
    if (::msync(p, kWritePages * kPage, MS_SYNC) != 0) std::_Exit(7);
    report << "write " << reinterpret_cast<uintptr_t>(p) << '\n';
    ::munmap(p, kWritePages * kPage);
    ::close(fd);
  }
  report.close();
  std::_Exit(0);
}

[[maybe_unused]] const int g_mmap_workload = run_mmap_workload_if_asked();

// ---- test side ----------------------------------------------------------------------------------

std::string self_exe() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

using rastro::trace::Event;

bool is_fault(const Event& e) { return e.flags & rastro::trace::kEventPageFault; }
long fault_page(const Event& e) { return e.arg(rastro::trace::kFaultArgOffset).value / kPage; }
long fault_pages(const Event& e) { return e.arg(rastro::trace::kFaultArgLength).value / kPage; }
int64_t how(const Event& e) { return e.arg(rastro::trace::kFaultArgHow).value; }

TEST(MmapCaptureReplay, FaultsNameTheFileAndTouchedPagesAndReplayWithTheTracedResults) {
  const auto probe = sh(kRastro + " capture -b ebpf -q -o /dev/shm/rastro-mmap-probe.rastro -- /bin/true");
  std::remove("/dev/shm/rastro-mmap-probe.rastro");
  if (probe.status != 0) {
    std::printf("eBPF capture unavailable here: %s\n", probe.out.c_str());
    GTEST_SKIP() << "eBPF capture unavailable: " << probe.out;
  }
  TempDir d("rastro-mmap");
  {
    std::ofstream f(d.path + "/read.dat", std::ios::binary);
    for (long i = 0; i < kReadPages * kPage; ++i) f.put(static_cast<char>('A' + i / kPage % 26));
  }
  const std::string trace_path = d.path + "/t.rastro";
  const auto cap = sh(kRastro + " capture -b ebpf -q -o " + trace_path + " -- /usr/bin/env RASTRO_MMAP_DIR=" + d.path +
                      " ASAN_OPTIONS=detect_leaks=0 " + self_exe());
  ASSERT_EQ(cap.status, 0) << cap.out;

  std::ifstream report(d.path + "/report");
  long tid = 0;
  std::string word;
  uintptr_t read_at = 0, write_at = 0;
  long sum = 0;
  ASSERT_TRUE(report >> tid >> word >> read_at >> sum >> word >> write_at) << "the workload wrote no report";

  const rastro::trace::Trace t = rastro::trace::read_trace(trace_path);
  EXPECT_EQ(t.header.events_lost, 0u);
  const std::string read_file = d.path + "/read.dat", write_file = d.path + "/write.dat";
  std::set<long> read_faulted, read_covered;
  std::map<long, int64_t> write_faults;  // page -> how, of the write faults
  size_t read_faults = 0;
  for (const Event& e : t.events) {
    if (!is_fault(e)) continue;
    ASSERT_EQ(e.nargs, rastro::trace::kFaultArgs);
    const std::string file(t.str(e.arg(rastro::trace::kFaultArgFile).str));
    if (file != read_file && file != write_file) continue;
    EXPECT_EQ(e.tid, tid) << "a fault attributed to another thread";
    const bool around = how(e) & rastro::trace::kFaultAround;
    const uintptr_t base = file == read_file ? read_at : write_at;
    const auto addr = static_cast<uintptr_t>(e.arg(rastro::trace::kFaultArgAddress).value);
    EXPECT_EQ(static_cast<long>((addr - base) / kPage), fault_page(e)) << "address and file offset disagree";
    if (file == read_file) {
      for (long p = fault_page(e); p < fault_page(e) + fault_pages(e); ++p) read_covered.insert(p);
      if (around) continue;
      ++read_faults;
      EXPECT_EQ(fault_pages(e), 1);
      EXPECT_FALSE(how(e) & rastro::trace::kFaultWrite);
      read_faulted.insert(fault_page(e));
    } else if (!around && (how(e) & rastro::trace::kFaultWrite)) {
      write_faults[fault_page(e)] = how(e);
    }
  }
  const std::set<long> touched(kReadTouched.begin(), kReadTouched.end());
  EXPECT_TRUE(read_faulted.count(0)) << "the first touch of a fresh mapping always faults";
  for (long p : read_faulted) EXPECT_TRUE(touched.count(p)) << "a fault on page " << p << ", never touched";
  for (long p : kReadTouched) EXPECT_TRUE(read_covered.count(p)) << "touched page " << p << " has no fault";
  for (long p : kWriteTouched) {
    ASSERT_TRUE(write_faults.count(p)) << "written page " << p << " has no write fault";
    EXPECT_TRUE(write_faults[p] & rastro::trace::kFaultShared);
  }
  std::printf("read: %zu faults on pages touched, %zu pages covered with fault-around; write: %zu write faults\n",
              read_faults, read_covered.size(), write_faults.size());

  // Replay: every mmap-family call and fault on the two files replays with the traced result.
  const std::string out = d.path + "/out.rastro", summary = d.path + "/summary.json";
  const auto rep = sh(kRastro + " replay -O fs -T fullspeed -e workers --root " + d.path + "/root --init " +
                      trace_path + " -o " + out + " --summary-json " + summary);
  ASSERT_EQ(rep.status, 0) << rep.out;
  const rastro::trace::Trace replayed = rastro::trace::read_trace(out);
  const rastro::replay::Plan plan = rastro::replay::infer_plan(rastro::trace::read_trace(trace_path),
                                                               rastro::replay::Ordering::kFs).take();
  ASSERT_EQ(plan.requests.size(), replayed.events.size());
  const auto* mmap_row = rastro::trace::syscall_by_name("mmap");
  // A range counts only from the mmap that made it to the munmap that ended it: an allocator (the
  // sanitizers' above all) may map something else at a freed range's address later.
  struct Mapping {
    uintptr_t at;
    long len;
    uint64_t from_seq = 0, to_seq = 0;
  };
  std::vector<Mapping> ranges = {{read_at, kReadPages * kPage}, {write_at, kWritePages * kPage}};
  const auto* munmap_row = rastro::trace::syscall_by_name("munmap");
  uint64_t after_seq = 0;  // the write file may be mapped where the read file was
  for (Mapping& m : ranges) {
    for (const Event& e : plan.trace.events) {
      if (e.tid != tid || e.seq <= after_seq) continue;
      if (m.from_seq == 0 && e.nr == mmap_row->nr && static_cast<uintptr_t>(e.rvalue) == m.at) m.from_seq = e.seq;
      if (m.from_seq != 0 && e.nr == munmap_row->nr && static_cast<uintptr_t>(e.arg(0).value) == m.at) {
        m.to_seq = e.seq;
        break;
      }
    }
    ASSERT_NE(m.from_seq, 0u) << "no traced mmap returned " << m.at;
    ASSERT_NE(m.to_seq, 0u) << "no traced munmap of " << m.at;
    after_seq = m.to_seq;
  }
  auto on_our_files = [&](const Event& e) {
    if (is_fault(e)) {
      const std::string file(plan.trace.str(e.arg(rastro::trace::kFaultArgFile).str));
      return file == read_file || file == write_file;
    }
    const auto* row = rastro::trace::syscall_by_nr(e.nr);
    if (!row || !(row->classes & rastro::trace::kClassMemory) || e.tid != tid) return false;
    const auto addr = static_cast<uintptr_t>(e.nr == mmap_row->nr ? e.rvalue : e.arg(0).value);
    for (const Mapping& m : ranges)
      if (addr >= m.at && addr < m.at + static_cast<uintptr_t>(m.len) && e.seq >= m.from_seq && e.seq <= m.to_seq)
        return true;
    return false;
  };
  size_t checked_calls = 0, checked_faults = 0, memory_mismatches = 0;
  for (size_t r = 0; r < plan.requests.size(); ++r) {
    const Event& traced = plan.trace.events[plan.requests[r].event];
    const Event& rep_e = replayed.events[r];
    const auto* row = rastro::trace::syscall_by_nr(traced.nr);
    if ((row && (row->classes & rastro::trace::kClassMemory)) || is_fault(traced))
      memory_mismatches += (rep_e.flags & rastro::trace::kEventMismatch) ? 1 : 0;
    if (!on_our_files(traced)) continue;
    EXPECT_FALSE(rep_e.flags & rastro::trace::kEventSkipped) << "request " << r << " skipped";
    EXPECT_FALSE(rep_e.flags & rastro::trace::kEventMismatch) << "request " << r << ": " << rep_e.rvalue;
    ++(is_fault(traced) ? checked_faults : checked_calls);
  }
  EXPECT_EQ(checked_calls, 5u) << "mmap, munmap of the read file; mmap, msync, munmap of the written one";
  EXPECT_GE(checked_faults, read_faults + kWriteTouched.size());
  const auto s = nlohmann::json::parse(slurp(summary));
  std::printf("replay: %s replayed, skipped %s; %zu memory calls or faults of the whole process mismatched %s\n",
              s["replayed"].dump().c_str(), s["skipped_by_reason"].dump().c_str(), memory_mismatches,
              s["mismatched_by_call"].dump().c_str());
}

}  // namespace
