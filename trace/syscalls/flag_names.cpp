#include "trace/syscalls/flag_names.h"

#include <charconv>
#include <cstring>
#include <span>
#include <unordered_map>

#include <fmt/format.h>

namespace rastro::trace {

namespace {

struct Named {
  int64_t value;
  std::string_view name;
};

// Values are x86_64 (asm-generic) ones. Multi-bit entries come before the single bits they
// contain so the greedy printer picks them (O_SYNC = __O_SYNC|O_DSYNC, O_TMPFILE).
// Order otherwise follows what strace 6 prints (O_DIRECTORY last).
constexpr Named kOpenBits[] = {
    {0100, "O_CREAT"},         {0200, "O_EXCL"},          {0400, "O_NOCTTY"},
    {01000, "O_TRUNC"},        {02000, "O_APPEND"},       {04000, "O_NONBLOCK"},
    {04010000, "O_SYNC"},      {010000, "O_DSYNC"},       {020000, "O_ASYNC"},
    {040000, "O_DIRECT"},      {0100000, "O_LARGEFILE"},  {0400000, "O_NOFOLLOW"},
    {01000000, "O_NOATIME"},   {02000000, "O_CLOEXEC"},   {010000000, "O_PATH"},
    {020200000, "O_TMPFILE"},  {0200000, "O_DIRECTORY"},
};
constexpr Named kOpenAccess[] = {{0, "O_RDONLY"}, {1, "O_WRONLY"}, {2, "O_RDWR"}, {3, "O_ACCMODE"}};
constexpr Named kOpenAliases[] = {{020000, "FASYNC"}, {04000, "O_NDELAY"}};

constexpr Named kModeTypes[] = {
    {0140000, "S_IFSOCK"}, {0120000, "S_IFLNK"}, {0100000, "S_IFREG"}, {060000, "S_IFBLK"},
    {040000, "S_IFDIR"},   {020000, "S_IFCHR"},  {010000, "S_IFIFO"},
};

constexpr Named kWhence[] = {
    {0, "SEEK_SET"}, {1, "SEEK_CUR"}, {2, "SEEK_END"}, {3, "SEEK_DATA"}, {4, "SEEK_HOLE"},
};

constexpr Named kAtFlags[] = {
    {0x100, "AT_SYMLINK_NOFOLLOW"}, {0x200, "AT_REMOVEDIR"},        {0x400, "AT_SYMLINK_FOLLOW"},
    {0x800, "AT_NO_AUTOMOUNT"},     {0x1000, "AT_EMPTY_PATH"},      {0x2000, "AT_STATX_FORCE_SYNC"},
    {0x4000, "AT_STATX_DONT_SYNC"}, {0x8000, "AT_RECURSIVE"},
};
// Same bits under other names (faccessat2 prints AT_EACCESS for 0x200).
constexpr Named kAtAliases[] = {{0x200, "AT_EACCESS"}, {0, "AT_STATX_SYNC_AS_STAT"}};

constexpr Named kFcntlCmds[] = {
    {0, "F_DUPFD"},        {1, "F_GETFD"},          {2, "F_SETFD"},         {3, "F_GETFL"},
    {4, "F_SETFL"},        {5, "F_GETLK"},          {6, "F_SETLK"},         {7, "F_SETLKW"},
    {8, "F_SETOWN"},       {9, "F_GETOWN"},         {10, "F_SETSIG"},       {11, "F_GETSIG"},
    {15, "F_SETOWN_EX"},   {16, "F_GETOWN_EX"},     {17, "F_GETOWNER_UIDS"}, {36, "F_OFD_GETLK"},
    {37, "F_OFD_SETLK"},   {38, "F_OFD_SETLKW"},    {1024, "F_SETLEASE"},   {1025, "F_GETLEASE"},
    {1026, "F_NOTIFY"},    {1030, "F_DUPFD_CLOEXEC"}, {1031, "F_SETPIPE_SZ"}, {1032, "F_GETPIPE_SZ"},
    {1033, "F_ADD_SEALS"}, {1034, "F_GET_SEALS"},
};

constexpr Named kLockTypes[] = {{0, "F_RDLCK"}, {1, "F_WRLCK"}, {2, "F_UNLCK"}};

constexpr Named kCloneBits[] = {
    {0x100, "CLONE_VM"},
    {0x200, "CLONE_FS"},
    {0x400, "CLONE_FILES"},
    {0x800, "CLONE_SIGHAND"},
    {0x1000, "CLONE_PIDFD"},
    {0x2000, "CLONE_PTRACE"},
    {0x4000, "CLONE_VFORK"},
    {0x8000, "CLONE_PARENT"},
    {0x10000, "CLONE_THREAD"},
    {0x20000, "CLONE_NEWNS"},
    {0x40000, "CLONE_SYSVSEM"},
    {0x80000, "CLONE_SETTLS"},
    {0x100000, "CLONE_PARENT_SETTID"},
    {0x200000, "CLONE_CHILD_CLEARTID"},
    {0x400000, "CLONE_DETACHED"},
    {0x800000, "CLONE_UNTRACED"},
    {0x1000000, "CLONE_CHILD_SETTID"},
    {0x2000000, "CLONE_NEWCGROUP"},
    {0x4000000, "CLONE_NEWUTS"},
    {0x8000000, "CLONE_NEWIPC"},
    {0x10000000, "CLONE_NEWUSER"},
    {0x20000000, "CLONE_NEWPID"},
    {0x40000000, "CLONE_NEWNET"},
    {0x80000000LL, "CLONE_IO"},
    {0x100000000LL, "CLONE_CLEAR_SIGHAND"},
    {0x200000000LL, "CLONE_INTO_CGROUP"},
};
constexpr int64_t kCloneSignalMask = 0xff;  // CSIGNAL: the exit signal in the low byte

constexpr Named kProtBits[] = {
    {1, "PROT_READ"}, {2, "PROT_WRITE"}, {4, "PROT_EXEC"}, {8, "PROT_SEM"},
    {0x01000000, "PROT_GROWSDOWN"}, {0x02000000, "PROT_GROWSUP"},
};

constexpr Named kMapTypes[] = {{1, "MAP_SHARED"}, {2, "MAP_PRIVATE"}, {3, "MAP_SHARED_VALIDATE"}};
constexpr int64_t kMapTypeMask = 0xf;
constexpr Named kMapBits[] = {
    {0x10, "MAP_FIXED"},        {0x20, "MAP_ANONYMOUS"},   {0x40, "MAP_32BIT"},
    {0x100, "MAP_GROWSDOWN"},   {0x800, "MAP_DENYWRITE"},  {0x1000, "MAP_EXECUTABLE"},
    {0x2000, "MAP_LOCKED"},     {0x4000, "MAP_NORESERVE"}, {0x8000, "MAP_POPULATE"},
    {0x10000, "MAP_NONBLOCK"},  {0x20000, "MAP_STACK"},    {0x40000, "MAP_HUGETLB"},
    {0x80000, "MAP_SYNC"},      {0x100000, "MAP_FIXED_NOREPLACE"}, {0x4000000, "MAP_UNINITIALIZED"},
};
constexpr Named kMapAliases[] = {{0x20, "MAP_ANON"}, {0, "MAP_FILE"}};

constexpr Named kRenameBits[] = {{1, "RENAME_NOREPLACE"}, {2, "RENAME_EXCHANGE"}, {4, "RENAME_WHITEOUT"}};
constexpr Named kXattrBits[] = {{1, "XATTR_CREATE"}, {2, "XATTR_REPLACE"}};
constexpr Named kMsyncBits[] = {{1, "MS_ASYNC"}, {2, "MS_INVALIDATE"}, {4, "MS_SYNC"}};
constexpr Named kFallocBits[] = {
    {1, "FALLOC_FL_KEEP_SIZE"},     {2, "FALLOC_FL_PUNCH_HOLE"},   {4, "FALLOC_FL_NO_HIDE_STALE"},
    {8, "FALLOC_FL_COLLAPSE_RANGE"}, {0x10, "FALLOC_FL_ZERO_RANGE"}, {0x20, "FALLOC_FL_INSERT_RANGE"},
    {0x40, "FALLOC_FL_UNSHARE_RANGE"},
};
constexpr Named kAccessBits[] = {{4, "R_OK"}, {2, "W_OK"}, {1, "X_OK"}};
constexpr Named kAccessZero[] = {{0, "F_OK"}};

constexpr Named kSignals[] = {
    {1, "SIGHUP"},   {2, "SIGINT"},     {3, "SIGQUIT"},  {4, "SIGILL"},    {5, "SIGTRAP"},
    {6, "SIGABRT"},  {7, "SIGBUS"},     {8, "SIGFPE"},   {9, "SIGKILL"},   {10, "SIGUSR1"},
    {11, "SIGSEGV"}, {12, "SIGUSR2"},   {13, "SIGPIPE"}, {14, "SIGALRM"},  {15, "SIGTERM"},
    {16, "SIGSTKFLT"}, {17, "SIGCHLD"}, {18, "SIGCONT"}, {19, "SIGSTOP"},  {20, "SIGTSTP"},
    {21, "SIGTTIN"}, {22, "SIGTTOU"},   {23, "SIGURG"},  {24, "SIGXCPU"},  {25, "SIGXFSZ"},
    {26, "SIGVTALRM"}, {27, "SIGPROF"}, {28, "SIGWINCH"}, {29, "SIGIO"},   {30, "SIGPWR"},
    {31, "SIGSYS"},
};
constexpr Named kSignalAliases[] = {{6, "SIGIOT"}, {29, "SIGPOLL"}, {17, "SIGCLD"}};
constexpr int kSigRtMin = 34;  // the kernel's SIGRTMIN (glibc reserves 32, 33)
constexpr int kSigRtMax = 64;

// Constants strace prints for arguments rastro stores as plain ints.
constexpr Named kMiscConstants[] = {
    {1, "FD_CLOEXEC"},   {1, "LOCK_SH"},  {2, "LOCK_EX"},   {4, "LOCK_NB"},   {8, "LOCK_UN"},
    {0x7ff, "STATX_BASIC_STATS"}, {0xfff, "STATX_ALL"}, {1, "STATX_TYPE"}, {2, "STATX_MODE"},
    {4, "STATX_NLINK"}, {8, "STATX_UID"}, {0x10, "STATX_GID"}, {0x20, "STATX_ATIME"},
    {0x40, "STATX_MTIME"}, {0x80, "STATX_CTIME"}, {0x100, "STATX_INO"}, {0x200, "STATX_SIZE"},
    {0x400, "STATX_BLOCKS"}, {0x800, "STATX_BTIME"}, {0x1000, "STATX_MNT_ID"},
    {0, "POSIX_FADV_NORMAL"}, {1, "POSIX_FADV_RANDOM"}, {2, "POSIX_FADV_SEQUENTIAL"},
    {3, "POSIX_FADV_WILLNEED"}, {4, "POSIX_FADV_DONTNEED"}, {5, "POSIX_FADV_NOREUSE"},
    {1, "SYNC_FILE_RANGE_WAIT_BEFORE"}, {2, "SYNC_FILE_RANGE_WRITE"},
    {4, "SYNC_FILE_RANGE_WAIT_AFTER"}, {0, "SIG_BLOCK"}, {1, "SIG_UNBLOCK"}, {2, "SIG_SETMASK"},
    {1, "AF_UNIX"}, {1, "AF_LOCAL"}, {2, "AF_INET"}, {10, "AF_INET6"}, {16, "AF_NETLINK"},
    {1, "SOCK_STREAM"}, {2, "SOCK_DGRAM"}, {3, "SOCK_RAW"}, {5, "SOCK_SEQPACKET"},
    {02000000, "SOCK_CLOEXEC"}, {04000, "SOCK_NONBLOCK"}, {0, "NULL"},
    // wait4/waitid options, clock ids, epoll_ctl ops, futex ops (the table's process rows).
    {1, "WNOHANG"}, {2, "WUNTRACED"}, {2, "WSTOPPED"}, {4, "WEXITED"}, {8, "WCONTINUED"},
    {0x01000000, "WNOWAIT"}, {0x20000000, "__WNOTHREAD"}, {0x40000000, "__WALL"},
    {static_cast<int64_t>(0x80000000u), "__WCLONE"}, {0, "P_ALL"}, {1, "P_PID"}, {2, "P_PGID"}, {3, "P_PIDFD"},
    {0, "CLOCK_REALTIME"}, {1, "CLOCK_MONOTONIC"}, {2, "CLOCK_PROCESS_CPUTIME_ID"},
    {3, "CLOCK_THREAD_CPUTIME_ID"}, {4, "CLOCK_MONOTONIC_RAW"}, {5, "CLOCK_REALTIME_COARSE"},
    {6, "CLOCK_MONOTONIC_COARSE"}, {7, "CLOCK_BOOTTIME"}, {1, "TIMER_ABSTIME"},
    {1, "EPOLL_CTL_ADD"}, {2, "EPOLL_CTL_DEL"}, {3, "EPOLL_CTL_MOD"},
    {0, "FUTEX_WAIT"}, {1, "FUTEX_WAKE"}, {9, "FUTEX_WAIT_BITSET"}, {10, "FUTEX_WAKE_BITSET"},
    {128, "FUTEX_PRIVATE_FLAG"}, {128, "FUTEX_WAIT_PRIVATE"}, {129, "FUTEX_WAKE_PRIVATE"},
    {137, "FUTEX_WAIT_BITSET_PRIVATE"}, {138, "FUTEX_WAKE_BITSET_PRIVATE"}, {256, "FUTEX_CLOCK_REALTIME"},
    {1, "IORING_ENTER_GETEVENTS"}, {2, "IORING_ENTER_SQ_WAKEUP"}, {4, "IORING_ENTER_SQ_WAIT"},
    {8, "IORING_ENTER_EXT_ARG"}, {16, "IORING_ENTER_REGISTERED_RING"},
    {0x5401, "TCGETS"}, {0x5402, "TCSETS"}, {0x541b, "FIONREAD"}, {0x5421, "FIONBIO"},
    {0x40049409, "FICLONE"}, {0x40049409, "BTRFS_IOC_CLONE"}, {0x4020940d, "FICLONERANGE"},
};

struct ErrnoRow {
  int number;
  std::string_view name;
};
constexpr ErrnoRow kErrnos[] = {
#include "trace/syscalls/errno_rows.inc"
};

// ---- number parsing -------------------------------------------------------------------------

void append_hex(std::string& out, uint64_t v) { fmt::format_to(std::back_inserter(out), "{:#x}", v); }

// Greedy printer: each entry whose bits are all set is printed and removed.
bool append_bits(std::string& out, uint64_t& rest, std::span<const Named> names, bool any) {
  for (const auto& n : names) {
    auto bits = static_cast<uint64_t>(n.value);
    if (bits != 0 && (rest & bits) == bits) {
      if (any) out += '|';
      out += n.name;
      rest &= ~bits;
      any = true;
    }
  }
  return any;
}

void append_rest(std::string& out, uint64_t rest, bool any) {
  if (rest != 0 || !any) {
    if (any) out += '|';
    if (rest == 0)
      out += '0';
    else
      append_hex(out, rest);
  }
}

const Named* find_value(std::span<const Named> names, int64_t v) {
  for (const auto& n : names)
    if (n.value == v) return &n;
  return nullptr;
}

void append_bitset(std::string& out, std::span<const Named> names, int64_t value) {
  uint64_t rest = static_cast<uint64_t>(value);
  bool any = append_bits(out, rest, names, false);
  append_rest(out, rest, any);
}

void append_enum(std::string& out, std::span<const Named> names, int64_t value) {
  if (const Named* n = find_value(names, value))
    out += n->name;
  else
    fmt::format_to(std::back_inserter(out), "{}", value);
}

struct NameIndex {
  std::unordered_map<std::string_view, int64_t> map;
  void add(std::span<const Named> names) {
    for (const auto& n : names) map.emplace(n.name, n.value);
  }
};

const NameIndex& all_names() {
  static const NameIndex* idx = [] {
    auto* i = new NameIndex();
    i->add(kOpenAccess);
    i->add(kOpenBits);
    i->add(kOpenAliases);
    i->add(kModeTypes);
    i->add(kWhence);
    i->add(kAtFlags);
    i->add(kAtAliases);
    i->add(kFcntlCmds);
    i->add(kLockTypes);
    i->add(kCloneBits);
    i->add(kProtBits);
    i->add({{{0, "PROT_NONE"}}});
    i->add(kMapTypes);
    i->add(kMapBits);
    i->add(kMapAliases);
    i->add(kRenameBits);
    i->add(kXattrBits);
    i->add(kMsyncBits);
    i->add(kFallocBits);
    i->add(kAccessBits);
    i->add(kAccessZero);
    i->add(kSignals);
    i->add(kSignalAliases);
    i->add(kMiscConstants);
    return i;
  }();
  return *idx;
}

}  // namespace

// Parses a C integer literal: decimal, 0x-hex, 0-octal (as strace prints modes), optional '-'.
std::optional<int64_t> parse_c_integer(std::string_view s) {
  bool neg = false;
  if (!s.empty() && s.front() == '-') {
    neg = true;
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  } else if (s.size() > 1 && s[0] == '0') {
    base = 8;
    s.remove_prefix(1);
  }
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
}

bool has_flag_names(ArgType type) {
  switch (type) {
    case ArgType::kOpenFlags:
    case ArgType::kMode:
    case ArgType::kWhence:
    case ArgType::kAtFlags:
    case ArgType::kFcntlCmd:
    case ArgType::kCloneFlags:
    case ArgType::kProt:
    case ArgType::kMapFlags:
    case ArgType::kRenameFlags:
    case ArgType::kSignal:
    case ArgType::kXattrFlags:
    case ArgType::kMsyncFlags:
    case ArgType::kFallocMode:
    case ArgType::kAccessMode:
    case ArgType::kLockType:
      return true;
    default:
      return false;
  }
}

void append_flags(std::string& out, ArgType type, int64_t value) {
  if (value < 0 && type != ArgType::kCloneFlags) {
    fmt::format_to(std::back_inserter(out), "{}", value);
    return;
  }
  switch (type) {
    case ArgType::kOpenFlags: {
      out += kOpenAccess[value & 3].name;
      uint64_t rest = static_cast<uint64_t>(value) & ~uint64_t{3};
      append_bits(out, rest, kOpenBits, true);
      if (rest) append_rest(out, rest, true);
      return;
    }
    case ArgType::kMode: {
      uint64_t v = static_cast<uint64_t>(value);
      if (const Named* t = find_value(kModeTypes, static_cast<int64_t>(v & 0170000))) {
        out += t->name;
        out += '|';
        v &= ~uint64_t{0170000};
      }
      // strace's "%#03o": 000, 007, 0644
      std::string oct = fmt::format("0{:o}", v);
      if (oct.size() < 3) oct.insert(0, 3 - oct.size(), '0');
      out += oct;
      return;
    }
    case ArgType::kWhence:
      return append_enum(out, kWhence, value);
    case ArgType::kAtFlags:
      return append_bitset(out, kAtFlags, value);
    case ArgType::kFcntlCmd:
      return append_enum(out, kFcntlCmds, value);
    case ArgType::kLockType:
      return append_enum(out, kLockTypes, value);
    case ArgType::kCloneFlags: {
      uint64_t rest = static_cast<uint64_t>(value);
      int sig = static_cast<int>(rest & kCloneSignalMask);
      rest &= ~static_cast<uint64_t>(kCloneSignalMask);
      bool any = append_bits(out, rest, kCloneBits, false);
      if (rest) {
        if (any) out += '|';
        append_hex(out, rest);
        any = true;
      }
      if (sig != 0) {
        if (any) out += '|';
        out += signal_name(sig);
        any = true;
      }
      if (!any) out += '0';
      return;
    }
    case ArgType::kProt:
      if (value == 0) {
        out += "PROT_NONE";
        return;
      }
      return append_bitset(out, kProtBits, value);
    case ArgType::kMapFlags: {
      uint64_t rest = static_cast<uint64_t>(value);
      bool any = false;
      if (const Named* t = find_value(kMapTypes, static_cast<int64_t>(rest & kMapTypeMask))) {
        out += t->name;
        rest &= ~static_cast<uint64_t>(kMapTypeMask);
        any = true;
      }
      any = append_bits(out, rest, kMapBits, any);
      append_rest(out, rest, any);
      return;
    }
    case ArgType::kRenameFlags:
      return append_bitset(out, kRenameBits, value);
    case ArgType::kSignal:
      if (value > 0 && value <= kSigRtMax)
        out += signal_name(static_cast<int>(value));
      else
        fmt::format_to(std::back_inserter(out), "{}", value);
      return;
    case ArgType::kXattrFlags:
      return append_bitset(out, kXattrBits, value);
    case ArgType::kMsyncFlags:
      return append_bitset(out, kMsyncBits, value);
    case ArgType::kFallocMode:
      return append_bitset(out, kFallocBits, value);
    case ArgType::kAccessMode:
      if (value == 0) {
        out += "F_OK";
        return;
      }
      return append_bitset(out, kAccessBits, value);
    default:
      fmt::format_to(std::back_inserter(out), "{}", value);
  }
}

std::string format_flags(ArgType type, int64_t value) {
  std::string s;
  append_flags(s, type, value);
  return s;
}

std::optional<int64_t> parse_flags(ArgType type, std::string_view text) {
  // Spaces may surround '|' in hand-written input; strace never prints them.
  uint64_t v = 0;
  bool seen = false;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t bar = text.find('|', pos);
    std::string_view tok = text.substr(pos, bar == std::string_view::npos ? std::string_view::npos : bar - pos);
    pos = bar == std::string_view::npos ? text.size() + 1 : bar + 1;
    while (!tok.empty() && tok.front() == ' ') tok.remove_prefix(1);
    while (!tok.empty() && tok.back() == ' ') tok.remove_suffix(1);
    if (tok.empty()) return std::nullopt;
    seen = true;
    if (auto n = parse_c_integer(tok)) {
      v |= static_cast<uint64_t>(*n);
      continue;
    }
    if (type == ArgType::kSignal || type == ArgType::kCloneFlags) {
      if (auto s = signal_number(tok)) {
        v |= static_cast<uint64_t>(*s);
        continue;
      }
    }
    if (auto c = constant_value(tok)) {
      v |= static_cast<uint64_t>(*c);
      continue;
    }
    return std::nullopt;
  }
  if (!seen) return std::nullopt;
  return static_cast<int64_t>(v);
}

std::optional<int64_t> constant_value(std::string_view name) {
  const auto& m = all_names().map;
  auto it = m.find(name);
  if (it != m.end()) return it->second;
  if (name.starts_with("SIG")) {
    if (auto s = signal_number(name)) return *s;
  }
  return std::nullopt;
}

std::string signal_name(int sig) {
  if (const Named* n = find_value(kSignals, sig)) return std::string(n->name);
  if (sig == kSigRtMin) return "SIGRTMIN";
  if (sig > kSigRtMin && sig <= kSigRtMax) return fmt::format("SIGRT_{}", sig - kSigRtMin);
  return fmt::format("{}", sig);
}

std::optional<int> signal_number(std::string_view name) {
  for (const auto& n : kSignals)
    if (n.name == name) return static_cast<int>(n.value);
  for (const auto& n : kSignalAliases)
    if (n.name == name) return static_cast<int>(n.value);
  if (name == "SIGRTMIN") return kSigRtMin;
  if (name == "SIGRTMAX") return kSigRtMax;
  if (name.starts_with("SIGRT_")) {
    int k = 0;
    auto sv = name.substr(6);
    auto [p, ec] = std::from_chars(sv.data(), sv.data() + sv.size(), k);
    if (ec == std::errc() && p == sv.data() + sv.size() && k > 0 && kSigRtMin + k <= kSigRtMax)
      return kSigRtMin + k;
  }
  return std::nullopt;
}

std::string errno_name(int err) {
  for (const auto& e : kErrnos)
    if (e.number == err) return std::string(e.name);
  return fmt::format("ERRNO_{}", err);
}

std::optional<int> errno_number(std::string_view name) {
  static const auto* map = [] {
    auto* m = new std::unordered_map<std::string_view, int>();
    for (const auto& e : kErrnos) m->emplace(e.name, e.number);
    m->emplace("EWOULDBLOCK", 11);
    m->emplace("EDEADLOCK", 35);
    m->emplace("ENOTSUP", 95);
    return m;
  }();
  auto it = map->find(name);
  if (it != map->end()) return it->second;
  if (name.starts_with("ERRNO_")) {
    int k = 0;
    auto sv = name.substr(6);
    auto [p, ec] = std::from_chars(sv.data(), sv.data() + sv.size(), k);
    if (ec == std::errc() && p == sv.data() + sv.size() && k > 0) return k;
  }
  return std::nullopt;
}

std::string errno_description(int err) {
  // The kernel-internal codes have no strerror(); these texts are strace's.
  switch (err) {
    case 512: return "To be restarted if SA_RESTART is set";
    case 513: return "To be restarted";
    case 514: return "To be restarted if no handler";
    case 515: return "No ioctl command";
    case 516: return "Interrupted by signal";
    default: break;
  }
  if (err > 0 && err < 512) return strerror(err);
  return fmt::format("Unknown error {}", err);
}

}  // namespace rastro::trace
