// Import/capture statistics: one X-macro table, one row per counter, for every importer and
// backend (like perfetto's storage/stats.h). Every counter is printed, zeros included, after an
// import; a tool exits non-zero when any error-severity counter is above zero. A capture backend's
// loss counters are rows too: the trace header's `lost_reasons` keys are row names
// (set_lost_reason), so every reason a trace can carry has a severity and a what-to-do here.
//
// Severity by cause: lines strace is expected to print besides syscalls (signals, exits) are
// info; a record we had to drop or could only partly decode is data-loss; input we cannot read
// at all is error.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <string_view>

#include <nlohmann/json.hpp>

namespace rastro::trace {

enum class StatSeverity { kInfo, kDataLoss, kError };

// F(name, severity, description: what it means and what to do)
#define RASTRO_STATS(F)                                                                                    \
  F(strace_lines, kInfo, "Lines read from the strace log.")                                                \
  F(strace_events, kInfo, "Syscall events written to the trace.")                                          \
  F(strace_unknown_syscalls, kInfo,                                                                        \
    "Events of syscalls not in rastro's syscall table; kept as generic events (name + int/str args).")    \
  F(strace_unfinished_merged, kInfo, "<unfinished ...> / <... resumed> pairs merged into one event.")      \
  F(strace_signal_lines, kInfo, "'--- SIGxxx ... ---' signal lines (skipped).")                            \
  F(strace_exit_lines, kInfo, "'+++ exited with N +++' / '+++ killed by SIG +++' lines (skipped).")       \
  F(strace_message_lines, kInfo, "strace's own messages ('strace: Process N attached', ...) (skipped).")   \
  F(strace_blank_lines, kInfo, "Empty lines (skipped).")                                                   \
  F(strace_no_return, kInfo, "Calls printed with '= ?' (exit, exit_group, a task killed mid-call).")       \
  F(strace_missing_duration, kInfo,                                                                        \
    "Calls without a -T duration: end = begin (or the resumed line's time). Re-run strace with -T.")      \
  F(strace_missing_pid, kInfo,                                                                             \
    "Lines without a pid prefix whose pid could not be inferred (tid 0). Re-run strace with -f -o FILE.") \
  F(strace_symbolic_int_args, kInfo,                                                                       \
    "Integer arguments printed symbolically with a name rastro does not know (stored as 0).")              \
  F(strace_unfinished_at_end, kDataLoss,                                                                   \
    "Calls still <unfinished ...> at the end of the log: kept with the 'unfinished' flag, end = begin.")  \
  F(strace_resumed_without_unfinished, kDataLoss,                                                          \
    "'<... X resumed>' lines with no matching '<unfinished ...>' line (dropped). Was the log cut?")       \
  F(strace_bad_args, kDataLoss,                                                                            \
    "Arguments of known syscalls that could not be decoded (stored as 0 / empty).")                        \
  F(strace_malformed_lines, kError, "Lines that are not strace output at all (see the reported lines).")  \
  F(strace_unsupported_lines, kError,                                                                      \
    "Syscall lines in an unsupported format, e.g. -t/-tt times without a date or no timestamp. "          \
    "Re-run strace with -ttt (or --absolute-timestamps=format:unix).")                                    \
  F(ringbuf_full, kDataLoss,                                                                               \
    "eBPF capture: records dropped because the ring buffer was full. Raise --buffer or narrow -e.")       \
  F(malformed_record, kDataLoss,                                                                           \
    "eBPF capture: ring-buffer records the decoder could not read (dropped). A rastro bug: report it.")   \
  F(untracked_tasks, kDataLoss,                                                                            \
    "eBPF capture: child tasks that got no kernel state (allocation failure); their calls are missing.")  \
  F(uring_untracked, kDataLoss,                                                                            \
    "eBPF capture: io_uring requests not recorded because more than 65536 were in flight at once.")       \
  F(fault_unresolved, kDataLoss,                                                                           \
    "eBPF capture: page faults of traced threads not recorded because their mapping could not be looked " \
    "up (the address space was locked by a concurrent mmap/munmap, or no memory for the thread's state).") \
  F(stap_malformed_lines, kDataLoss,                                                                       \
    "SystemTap capture: output lines that could not be parsed (dropped); settings.stap.first_malformed "  \
    "shows the first.")                                                                                     \
  F(mpi_records_dropped_by_library, kDataLoss,                                                             \
    "MPI capture: operations the interposition library could not record (log write failed, or over 4096 " \
    "nonblocking receives pending at once); cross-rank matches involving them are missing.")

enum StatId : int {
#define RASTRO_STAT_ENUM(name, sev, desc) kStat_##name,
  RASTRO_STATS(RASTRO_STAT_ENUM)
#undef RASTRO_STAT_ENUM
      kNumStats
};

struct StatInfo {
  std::string_view name;
  StatSeverity severity;
  std::string_view description;
};
const StatInfo& stat_info(StatId id);
// The row named `name` (e.g. a lost_reasons key), or nullptr.
const StatInfo* stat_by_name(std::string_view name);

// lost_reasons[<row name>] = n: a capture's loss counters are keyed by table rows only.
void set_lost_reason(nlohmann::json& lost_reasons, StatId id, uint64_t n);
std::string_view severity_name(StatSeverity s);

struct Stats {
  std::array<uint64_t, kNumStats> values{};
  uint64_t& operator[](StatId id) { return values[static_cast<size_t>(id)]; }
  uint64_t operator[](StatId id) const { return values[static_cast<size_t>(id)]; }
  bool has_errors() const;
  // A table of every counter (zeros included): name, severity, value, description.
  void print(std::ostream& out) const;
  nlohmann::json to_json() const;
};

}  // namespace rastro::trace
