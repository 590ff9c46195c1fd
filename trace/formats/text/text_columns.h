// The column set shared by the text writer and reader (one place, so they cannot drift).
#pragma once

#include <array>
#include <string_view>

namespace rastro::trace::text {

inline constexpr std::string_view kMagic = "# rastro-trace text 1 ";
inline constexpr std::string_view kStringsLine = "# strings ";

enum Column {
  kPid, kTid, kBegin, kEnd, kFunction, kArgs, kRvalue, kFlags, kPlanned, kExpected, kRawEnd, kSeq,
  kOffCpu, kVolSwitches, kInvolSwitches, kUringUserData, kUringEnter, kGapOffCpu, kNumColumns
};

// The first seven are the thesis columns (required when reading); the rest are optional.
inline constexpr std::array<std::string_view, kNumColumns> kColumnNames = {
    "pid", "tid", "begin", "end", "function", "args", "rvalue",
    "flags", "planned_ns", "expected_rvalue", "raw_end_ns", "seq",
    "offcpu_ns", "vol_switches", "invol_switches", "uring_user_data", "uring_enter_ns", "gap_offcpu_ns"};
inline constexpr int kRequiredColumns = 7;
// The scheduling columns are written only by traces that measured them (Event::offcpu_ns ...),
// the io_uring ones only by traces with io_uring requests, the gap's off-CPU time only by traces
// that measured one (Event::gap_offcpu_ns).
inline constexpr int kFirstSchedColumn = kOffCpu;
inline constexpr int kFirstUringColumn = kUringUserData;
inline constexpr int kFirstGapColumn = kGapOffCpu;

}  // namespace rastro::trace::text
