// From one ring-buffer record of fs_events.bpf.c (struct fs_event + string data, fs_events.h) to
// the uniform trace event: arguments per the syscall table's roles with the same register
// conventions as every other backend (capture/common/raw_arg.h), paths interned, fd paths
// rebuilt from their leaf-first d_name components. Pure: tests feed it hand-made records.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>

#include "common/error.h"
#include "trace/model/event.h"
#include "trace/model/string_table.h"

namespace rastro::capture::ebpf {

// What the decoded records said about their own quality (reported in the trace header).
struct DecodeCounters {
  uint64_t truncated_strings = 0;    // a path longer than PATH_MAX or than the record's area
  uint64_t unreadable_strings = 0;   // a user string unreadable at entry and at exit
  uint64_t truncated_fd_paths = 0;   // more than FS_MAX_COMPONENTS components
  uint64_t unknown_fd_paths = 0;     // fd not open, or a pseudo file (pipe, socket)
  uint64_t unfinished = 0;           // task exited inside the call (not exit/exit_group)
};

// Decoding state across records: the counters, and per tid the paths the kernel caches for it
// (slot 0: the working directory, for AT_FDCWD; slot 1: the last real fd); records with fd_same
// refer to them instead of carrying the string again.
struct DecodeState {
  DecodeCounters counters;
  std::unordered_map<uint32_t, std::array<trace::StrId, 2>> cached_fd_path;
  uint64_t cache_misses = 0;  // fd_same for a tid with no cached path (must stay 0)
  // Per tid, the file of its last page-fault record that carried a path (FS_EV_FAULT_SAME_FILE).
  std::unordered_map<uint32_t, trace::StrId> fault_path;
  uint64_t faults = 0;         // page-fault events (mm_fault) decoded
  uint64_t fault_arounds = 0;  // fault-around ranges (mm_fault_around) decoded
};

// Fails (naming the field) when the record is inconsistent: shorter than its header, string
// lengths that overrun it, an argument index out of range. Records of one tid must be decoded
// in the order the kernel emitted them.
Result<trace::Event> decode_fs_event(std::span<const std::byte> record, trace::StringTable& strings,
                                     DecodeState& state);

// A page-fault record (FS_EV_FAULT): the pseudo-call mm_fault or mm_fault_around with the
// arguments of trace/model/page_fault.h. decode_fs_event hands such records here.
Result<trace::Event> decode_fault_event(std::span<const std::byte> record, trace::StringTable& strings,
                                        DecodeState& state);

}  // namespace rastro::capture::ebpf
