// The page-fault events (flag kEventPageFault, docs/format.md): memory-mapped file access, which no
// syscall shows. The eBPF backend records one `mm_fault` per fault of a traced thread on a
// file-backed mapping, and one `mm_fault_around` per range of further pages the kernel mapped
// around it from the page cache (fault-around) without the program touching them. Both are
// pseudo-calls (nr = -1, named) with the same five arguments, at the indices below.
#pragma once

#include <cstdint>
#include <string_view>

namespace rastro::trace {

inline constexpr std::string_view kFaultCall = "mm_fault";
inline constexpr std::string_view kFaultAroundCall = "mm_fault_around";

// Argument indices: the file (kPath, str = its path), the file offset of the first page
// (kOffset, page-aligned), the bytes covered (kCount: one page for mm_fault), how (kInt, the bits
// below), and the virtual address in the traced process (kPtr: the faulting address for
// mm_fault, the first page of the range for mm_fault_around).
inline constexpr int kFaultArgFile = 0;
inline constexpr int kFaultArgOffset = 1;
inline constexpr int kFaultArgLength = 2;
inline constexpr int kFaultArgHow = 3;
inline constexpr int kFaultArgAddress = 4;
inline constexpr int kFaultArgs = 5;

// The `how` argument's bits (from the x86 fault error code and the mapping's flags).
enum FaultHow : int64_t {
  kFaultWrite = 1 << 0,    // a write access (else a read)
  kFaultExec = 1 << 1,     // an instruction fetch
  kFaultPresent = 1 << 2,  // the page was mapped but not for this access (e.g. the first write to a
                           // page an earlier read mapped read-only)
  kFaultShared = 1 << 3,   // a MAP_SHARED mapping: writes reach the file
  kFaultAround = 1 << 4,   // mm_fault_around: pages mapped around a fault, not touched
};

}  // namespace rastro::trace
