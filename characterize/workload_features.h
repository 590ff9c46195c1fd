// The features that define an I/O workload, measured per thread, per file and for the whole
// trace: operation mix, request sizes, think and inter-arrival times, sequentiality, file reuse,
// read/write ratio, sync frequency, file sizes and popularity, metadata share, concurrency.
// Raw samples are kept here (clustering and class models reduce them later).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "trace/model/trace.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::characterize {

// Operation categories, from the syscall table's classes. Process lifecycle calls (clone, exit,
// exec) are structure, not I/O, and are left out of the mix.
enum class OpCategory : uint8_t { kRead, kWrite, kOpen, kClose, kMeta, kSync, kNamespace, kOther };
inline constexpr size_t kOpCategories = 8;
// A category's index in per-category arrays (the mix, the counts).
constexpr size_t category_index(OpCategory c) { return static_cast<size_t>(c); }
std::string_view op_category_name(OpCategory c);
// The category of a syscall, from the table's classes and return kind.
OpCategory op_category(const trace::SyscallInfo& s);
using OpMix = std::array<double, kOpCategories>;  // counts, or fractions once normalised

// The kinds of name-space changes (the namespace category, split by what the call does to names).
enum class NamespaceOp : uint8_t { kUnlink, kRename, kMkdir, kRmdir, kLink, kSymlink, kMknod };
inline constexpr size_t kNamespaceOps = 7;
std::string_view namespace_op_name(NamespaceOp op);
using NamespaceMix = std::array<double, kNamespaceOps>;  // counts, or fractions
// The kind of a namespace-category call (unlinkat with AT_REMOVEDIR is an rmdir).
NamespaceOp namespace_op(const trace::SyscallInfo& s, const trace::Event& e);

// How a session (open -> close) began: creating or truncating the file (O_CREAT, creat),
// appending to it (O_APPEND), or opening it as it is.
enum class SessionKind : uint8_t { kPlain, kCreate, kAppend };

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
  uint64_t eof_session_later_transfers = 0;  // their transfers after each one's first
  std::vector<double> eof_session_read_counts;  // read calls of each such session
  std::vector<double> partial_session_transfers;  // reads + writes of each other plain session
  // Plain sessions that read the file to its end with one read asking for all of it.
  uint64_t whole_read_sessions = 0;
  std::vector<std::pair<uint32_t, uint64_t>> whole_reads;  // (file index, its size) of each
  // Sessions that created or appended, with the writes each made and the sizes those asked for.
  uint64_t create_sessions = 0, append_sessions = 0;
  // Create sessions on a file an earlier (closed) create session made, and those writing as many
  // bytes as it did.
  uint64_t recreations = 0, same_size_recreations = 0;
  std::vector<double> create_session_writes, append_session_writes;
  uint64_t kind_session_transfers = 0, kind_session_sequential = 0;  // of those sessions
  std::vector<double> create_write_requests, append_write_requests, plain_write_requests;
  NamespaceMix namespace_counts{};  // namespace-category calls by kind
  uint64_t namespace_failed = 0;    // those that failed
  uint64_t references = 0, rereferences = 0;  // opens, and opens of a file opened before
  // Each open: how many distinct files the thread had opened before it, and whether its file
  // was a new one (the growth of the thread's working set).
  std::vector<std::pair<uint32_t, bool>> open_novelty;
  uint64_t read_bytes = 0, write_bytes = 0;
  uint64_t distinct_files = 0;
  std::vector<std::pair<uint32_t, uint64_t>> file_references;  // (file index, references)
  int64_t first_ns = 0, last_ns = 0;   // relative to the trace's first event
};

struct FileFeatures {
  std::string name;
  // The file size the trace shows: the largest offset + bytes touched in one incarnation of the
  // path (an O_TRUNC open, unlink or rename starts a new one; an append writes at the end of the
  // current incarnation).
  uint64_t extent = 0;
  std::vector<uint64_t> incarnation_extents;  // of each incarnation that moved data
  // Of those, what each held before its first append (its extent when never appended), where the
  // trace shows it: an append to a file that existed before the trace and was not read first
  // does not tell how large it was.
  std::vector<uint64_t> incarnation_bases;
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
