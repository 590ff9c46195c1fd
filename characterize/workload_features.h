// The features that define an I/O workload, measured per thread, per file and for the whole
// trace: operation mix, request sizes, think and inter-arrival times, sequentiality, file reuse,
// read/write ratio, sync frequency, file sizes and popularity, metadata share, concurrency.
// Raw samples are kept here (clustering and class models reduce them later).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/model/trace.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::characterize {

// Operation categories, from the syscall table's classes. Process lifecycle calls (clone, exit,
// exec) are structure, not I/O, and are left out of the mix.
enum class OpCategory : uint8_t { kRead, kWrite, kOpen, kClose, kMeta, kSync, kNamespace, kOther };
inline constexpr size_t kOpCategories = 8;
std::string_view op_category_name(OpCategory c);
// The category of a syscall, from the table's classes and return kind.
OpCategory op_category(const trace::SyscallInfo& s);
using OpMix = std::array<double, kOpCategories>;  // counts, or fractions once normalised

struct ThreadFeatures {
  int32_t pid = 0;
  int32_t tid = 0;
  uint64_t calls = 0;  // in the mix (lifecycle calls excluded)
  OpMix counts{};
  std::vector<double> read_sizes, write_sizes;  // bytes moved per successful call
  std::vector<double> read_requests, write_requests;  // bytes asked for by those calls
  std::vector<double> think_ns;        // end of a call -> begin of the thread's next call
  std::vector<double> interarrival_ns; // begin -> next begin
  std::vector<double> duration_ns;     // per call
  std::vector<double> reuse_distances; // LRU stack distance of each re-open of a file
  // Transfers (reads + writes that moved data) and the sequential ones: at the end of the
  // thread's previous transfer on the file, or at 0 after opening it.
  uint64_t transfers = 0, sequential = 0;
  // Open -> close sessions, those that read the file to its end (a read returned 0, or reads
  // reached the file's largest extent) and those ending in a 0-byte read,
  // with the read calls (end-of-file reads included), transfers and sequential transfers in them.
  uint64_t sessions = 0, eof_sessions = 0, zero_read_sessions = 0;
  uint64_t eof_session_reads = 0, eof_session_transfers = 0, eof_session_sequential = 0;
  std::vector<double> partial_session_transfers;  // reads + writes of each other session
  uint64_t references = 0, rereferences = 0;  // opens, and opens of a file opened before
  uint64_t read_bytes = 0, write_bytes = 0;
  uint64_t distinct_files = 0;
  std::vector<std::pair<uint32_t, uint64_t>> file_references;  // (file index, references)
  int64_t first_ns = 0, last_ns = 0;   // relative to the trace's first event
};

struct FileFeatures {
  std::string name;
  uint64_t extent = 0;  // largest offset + bytes touched: the file size the trace shows
  uint64_t opens = 0, reads = 0, writes = 0;
  uint64_t read_bytes = 0, write_bytes = 0;
  uint64_t threads = 0;  // distinct threads that touched it
};

struct WorkloadFeatures {
  std::vector<ThreadFeatures> threads;  // ordered by (pid, tid)
  std::vector<FileFeatures> files;      // indexed as trace::FileAccessLog::files
  OpMix counts{};
  int64_t span_ns = 0;                  // first begin -> last end
  double mean_concurrency = 0.0;        // requests in flight at each request's start
  uint64_t unnamed_fds = 0;
};

WorkloadFeatures measure_features(const trace::Trace& trace);

// Fractions of a count mix (all zero when empty).
OpMix normalised(const OpMix& counts);

}  // namespace rastro::characterize
