#include "capture/ebpf/fs_event_decoder.h"

#include <linux/types.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "capture/common/raw_arg.h"
#include "capture/ebpf/fs_events.h"
#include "trace/model/page_fault.h"
#include "trace/syscalls/fcntl_lock.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::capture::ebpf {

namespace {

constexpr int kNrExit = 60;
constexpr int kNrExitGroup = 231;

// "name\0dir\0usr\0" (leaf first, as the kernel walks d_parent) -> "/usr/dir/name".
std::string join_fd_path(std::string_view data) {
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (pos < data.size()) {
    size_t end = data.find('\0', pos);
    if (end == std::string_view::npos) end = data.size();
    parts.push_back(data.substr(pos, end - pos));
    pos = end + 1;
  }
  if (parts.empty()) return "/";
  std::string path;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    path += '/';
    path += *it;
  }
  return path;
}

// The kernel's cache slot for an fd argument (FS_SLOT_CWD for AT_FDCWD).
size_t cache_slot(uint64_t raw_arg) {
  return static_cast<int32_t>(static_cast<uint32_t>(raw_arg)) == FS_AT_FDCWD ? FS_SLOT_CWD : FS_SLOT_FD;
}

std::string_view user_string(std::string_view data) {
  size_t end = data.find('\0');
  return end == std::string_view::npos ? data : data.substr(0, end);
}

}  // namespace

Result<trace::Event> decode_fs_event(std::span<const std::byte> record, trace::StringTable& strings,
                                     DecodeState& state) {
  DecodeCounters& counters = state.counters;
  fs_event raw;
  if (record.size() < sizeof raw)
    return fail(fmt::format("ebpf record of {} bytes is shorter than its {}-byte header", record.size(),
                            sizeof raw));
  std::memcpy(&raw, record.data(), sizeof raw);
  if (sizeof raw + raw.str_bytes > record.size())
    return fail(fmt::format("ebpf record (nr {}): str_bytes {} overruns the {}-byte record", raw.nr,
                            raw.str_bytes, record.size()));
  if (raw.nstrs > FS_MAX_STRS)
    return fail(fmt::format("ebpf record (nr {}): {} strings, at most {}", raw.nr, raw.nstrs, FS_MAX_STRS));
  if (raw.flags & FS_EV_FAULT) return decode_fault_event(record, strings, state);

  trace::Event e;
  e.pid = static_cast<int32_t>(raw.pid);
  e.tid = static_cast<int32_t>(raw.tid);
  e.begin_ns = static_cast<int64_t>(raw.begin_ns);
  e.end_ns = static_cast<int64_t>(raw.end_ns);
  e.nr = raw.nr;
  e.rvalue = raw.ret;
  if (raw.flags & FS_EV_URING) {
    // An asynchronous request: nothing of the submitter's scheduling belongs to it.
    e.flags |= trace::kEventUring;
    e.uring_user_data = raw.uring_user_data;
    e.uring_enter_ns = static_cast<int64_t>(raw.uring_enter_ns);
  } else {
    e.offcpu_ns = static_cast<int64_t>(raw.offcpu_ns);
    e.gap_offcpu_ns = static_cast<int64_t>(raw.gap_offcpu_ns);
    e.vol_switches = raw.vol_switches;
    e.invol_switches = raw.invol_switches;
    e.flags |= trace::kEventOffCpu;
  }

  const trace::SyscallInfo* info = trace::syscall_by_nr(raw.nr);
  if (info == nullptr && (raw.flags & FS_EV_URING)) {  // an opcode with no equivalent syscall
    e.name = strings.intern(fmt::format("io_uring_op_{}", raw.uring_opcode));
    e.nargs = 1;
    e.args[0] = {trace::ArgType::kFd, static_cast<int32_t>(raw.args[0]), trace::kNoStr};
  } else if (info == nullptr) {  // only with -e trace=all: raw registers, like the ptrace backend
    e.name = strings.intern(fmt::format("syscall_{}", raw.nr));
    e.nargs = FS_MAX_ARGS;
    for (size_t i = 0; i < FS_MAX_ARGS; ++i)
      e.args[i] = {trace::ArgType::kInt, static_cast<int64_t>(raw.args[i]), trace::kNoStr};
  } else {
    e.nargs = info->nargs;
    for (size_t i = 0; i < info->nargs; ++i) {
      trace::Arg& a = e.args[i];
      a.type = info->args[i];
      a.value = arg_value_from_register(a.type, raw.args[info->register_of(i)]);
      // The kernel replaced the pointer by the pair it points to (fd0 | fd1 << 32) on success.
      if (a.type == trace::ArgType::kFdPair && raw.ret >= 0) a.value = static_cast<int64_t>(raw.args[i]);
    }
    // The kernel replaced a lock command's struct flock address by the struct's fields.
    if ((raw.flags & FS_EV_LOCK_ARGS) && trace::is_lock_call(e))
      trace::set_lock_fields(e, {arg_value_from_register(trace::ArgType::kLockType, raw.args[2]),
                                 arg_value_from_register(trace::ArgType::kWhence, raw.args[3]),
                                 static_cast<int64_t>(raw.args[4]), static_cast<int64_t>(raw.args[5])});
  }

  const char* data = reinterpret_cast<const char*>(record.data()) + sizeof raw;
  size_t off = 0;
  for (size_t s = 0; s < raw.nstrs; ++s) {
    const fs_str_desc& d = raw.strs[s];
    if (off + d.len > raw.str_bytes)
      return fail(fmt::format("ebpf record (nr {}): string {} ({} bytes at {}) overruns str_bytes {}",
                              raw.nr, s, d.len, off, raw.str_bytes));
    if (d.arg >= e.nargs)
      return fail(fmt::format("ebpf record (nr {}): string {} for argument {} of a {}-argument call",
                              raw.nr, s, d.arg, e.nargs));
    std::string_view text(data + off, d.len);
    off += d.len;
    if (d.kind == FS_STR_PATH)
      e.args[d.arg].str = strings.intern(user_string(text));
    else if (d.kind == FS_STR_FDPATH) {
      e.args[d.arg].str = strings.intern(join_fd_path(text));
      if (raw.fd_cached_mask & (1u << d.arg))
        state.cached_fd_path[raw.tid][cache_slot(raw.args[d.arg])] = e.args[d.arg].str;
    } else
      return fail(fmt::format("ebpf record (nr {}): string {} has unknown kind {}", raw.nr, s, d.kind));
  }

  if (raw.fd_same != 0) {
    auto it = state.cached_fd_path.find(raw.tid);
    for (size_t k = 0; k < e.nargs; ++k) {
      if (!(raw.fd_same & (1u << k))) continue;
      trace::StrId id = it == state.cached_fd_path.end() ? trace::kNoStr : it->second[cache_slot(raw.args[k])];
      if (id == trace::kNoStr)
        ++state.cache_misses;
      else
        e.args[k].str = id;
    }
  }

  if (raw.flags & FS_EV_STR_TRUNCATED) ++counters.truncated_strings;
  if (raw.flags & FS_EV_STR_UNREADABLE) ++counters.unreadable_strings;
  if (raw.flags & FS_EV_FDPATH_TRUNCATED) ++counters.truncated_fd_paths;
  if (raw.flags & FS_EV_FDPATH_UNKNOWN) ++counters.unknown_fd_paths;
  if (raw.flags & FS_EV_UNFINISHED) {
    if (raw.nr == kNrExit || raw.nr == kNrExitGroup) {
      // Never returns by design: complete at entry, as the ptrace backend and strace ("= ?").
      e.end_ns = e.begin_ns;
      e.rvalue = 0;
    } else {
      e.flags |= trace::kEventUnfinished;  // killed inside the call: end/rvalue unknown
      e.rvalue = 0;
      ++counters.unfinished;
    }
  }
  return e;
}

static_assert(FS_FAULT_WRITE == trace::kFaultWrite && FS_FAULT_EXEC == trace::kFaultExec &&
              FS_FAULT_PRESENT == trace::kFaultPresent && FS_FAULT_SHARED == trace::kFaultShared &&
              FS_FAULT_AROUND == trace::kFaultAround);

Result<trace::Event> decode_fault_event(std::span<const std::byte> record, trace::StringTable& strings,
                                        DecodeState& state) {
  fs_event raw;
  if (record.size() < sizeof raw)
    return fail(fmt::format("ebpf fault record of {} bytes is shorter than its {}-byte header", record.size(),
                            sizeof raw));
  std::memcpy(&raw, record.data(), sizeof raw);
  if (sizeof raw + raw.str_bytes > record.size())
    return fail(fmt::format("ebpf fault record: str_bytes {} overruns the {}-byte record", raw.str_bytes,
                            record.size()));
  if (raw.nstrs > 1)
    return fail(fmt::format("ebpf fault record: {} strings, at most 1 (the file)", raw.nstrs));
  const bool around = raw.args[3] & FS_FAULT_AROUND;

  trace::Event e;
  e.pid = static_cast<int32_t>(raw.pid);
  e.tid = static_cast<int32_t>(raw.tid);
  e.begin_ns = static_cast<int64_t>(raw.begin_ns);
  e.end_ns = static_cast<int64_t>(raw.end_ns);
  e.nr = -1;
  e.name = strings.intern(around ? trace::kFaultAroundCall : trace::kFaultCall);
  e.rvalue = raw.ret;
  e.flags = trace::kEventPageFault;
  e.nargs = trace::kFaultArgs;
  e.args[trace::kFaultArgFile] = {trace::ArgType::kPath, 0, trace::kNoStr};
  e.args[trace::kFaultArgOffset] = {trace::ArgType::kOffset, static_cast<int64_t>(raw.args[1]), trace::kNoStr};
  e.args[trace::kFaultArgLength] = {trace::ArgType::kCount, static_cast<int64_t>(raw.args[2]), trace::kNoStr};
  e.args[trace::kFaultArgHow] = {trace::ArgType::kInt, static_cast<int64_t>(raw.args[3]), trace::kNoStr};
  e.args[trace::kFaultArgAddress] = {trace::ArgType::kPtr, static_cast<int64_t>(raw.args[0]), trace::kNoStr};

  trace::StrId& remembered = state.fault_path[raw.tid];
  if (raw.nstrs == 1) {
    const fs_str_desc& d = raw.strs[0];
    if (d.kind != FS_STR_FDPATH || d.arg != 0 || d.len > raw.str_bytes)
      return fail(fmt::format("ebpf fault record: string of kind {} for argument {} ({} bytes of {})", d.kind,
                              d.arg, d.len, raw.str_bytes));
    const char* data = reinterpret_cast<const char*>(record.data()) + sizeof raw;
    e.args[trace::kFaultArgFile].str = strings.intern(join_fd_path(std::string_view(data, d.len)));
    remembered = e.args[trace::kFaultArgFile].str;
  } else if (raw.flags & FS_EV_FAULT_SAME_FILE) {
    if (remembered == trace::kNoStr)
      ++state.cache_misses;
    else
      e.args[trace::kFaultArgFile].str = remembered;
  }
  if (raw.flags & FS_EV_FDPATH_TRUNCATED) ++state.counters.truncated_fd_paths;
  if (raw.flags & FS_EV_FDPATH_UNKNOWN) ++state.counters.unknown_fd_paths;
  ++(around ? state.fault_arounds : state.faults);
  return e;
}

}  // namespace rastro::capture::ebpf
