#include "replay/passes/initial_state.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "replay/passes/initial_cwd.h"
#include "replay/runtime/sandbox_resolver.h"
#include "trace/common/process_model.h"
#include "trace/model/page_fault.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::replay {
namespace {

enum class Initial : uint8_t { kUnknown, kPre, kMaybe, kAbsent };
enum class Shape : uint8_t { kUnknown, kFile, kDir, kSymlink };

struct PathInfo {
  Initial initial = Initial::kUnknown;
  Shape shape = Shape::kUnknown;
  bool pristine = true;   // still holds its pre-trace content
  // A call below it failed with ENOENT: had it been a file, that call would have said ENOTDIR,
  // so if it existed it was a directory.
  bool dir_if_exists = false;
  uint64_t size = 0;
  // The end of the furthest write so far: a read (or SEEK_END) ending there or before may have
  // read what the trace wrote, and says nothing about the original size.
  uint64_t written_end = 0;
  // The end of the file a read met (it returned fewer bytes than asked) or lseek(SEEK_END) gave
  // while the file held its pre-trace content: its size exactly (0: not seen). A mapping may
  // reach past the end (the loader maps a library's whole segment span), a read may not.
  uint64_t eof = 0;
  uint64_t read_end = 0;  // the furthest end a read or lseek reached (mappings apart)
  uint64_t link_len = 0;
  std::string link_target;  // the target the program's path walk shows (empty: not seen)
  bool executable = false;  // access(X_OK) or execve succeeded on it
  // Directories: the trace created, removed or renamed an entry in it (so far).
  bool entries_changed = false;
  // Directories: the bytes a complete getdents64 listing returned while the directory still held
  // its pre-trace entries (0: none seen).
  uint64_t listing_bytes = 0;
};

// A symlink just read by readlink whose target the thread's next path walk may show (below).
struct PendingLink {
  std::string path;
  uint64_t len = 0;
  int calls_left = 0;
};
// How many of the thread's next calls may still show the target of the link it just read.
constexpr int kLinkWalkCalls = 48;

// "X/." and "X/" name X as a directory (the call fails with ENOTDIR otherwise).
bool names_a_directory(std::string_view raw) {
  return raw.size() > 1 && (raw.back() == '/' || (raw.size() > 2 && raw.substr(raw.size() - 2) == "/."));
}

struct OpenFile {
  std::string path;
  bool pristine = true;  // opened on the original object and not truncated
  uint64_t pos = 0;
  bool append = false;  // O_APPEND: every write lands at the end of the file
  PathInfo* info = nullptr;  // paths_[path] (std::map nodes stay put): no string lookup per read
  bool resolution_seen = false;  // the capture's path of the fd was compared with `path`
  // A getdents64 listing under way on this open directory: the bytes so far, and whether it
  // began from the start of a directory the trace had not changed.
  bool listing = false;
  bool listing_pristine = false;
  uint64_t listed = 0;
};

// An fd: the open file description it refers to (shared by dups and forked copies).
struct FdSlot {
  std::shared_ptr<OpenFile> file;
  bool cloexec = false;  // (the process model's slot contract; the planner does not follow exec)
};
using Processes = trace::ProcessModel<FdSlot, std::string>;
using Proc = Processes::Process;

class Planner {
 public:
  explicit Planner(const PlanTrace& t) : t_(t), procs_(initial_cwd_or_root(t.header)) {}

  InitPlan run(const EventVisitor& also);

 private:
  PathInfo& info(const std::string& p) { return paths_[p]; }
  std::string path_of(Proc& pr, const trace::Event& e, int di, int pi) const;
  void first_use(const std::string& p, Initial how, Shape shape = Shape::kUnknown);
  void ancestors(const std::string& p);
  void needs(OpenFile* f, uint64_t end, bool read = true);
  void wrote(OpenFile* f, uint64_t end);
  void absent_below(const std::string& p);
  void follow_link_walk(Proc& pr, const trace::Event& e, const trace::SyscallInfo* si);
  void note_resolution(OpenFile* f, std::string_view recorded);
  void link_targets_from_resolutions();
  std::string placeholder_target(const std::string& link, uint64_t len) const;
  void rehome_below_links();
  static void merge_into(PathInfo& into, const PathInfo& other);
  void at_end_of_file(OpenFile* f, uint64_t end);
  void executable_through_links();
  bool below_absent(const std::string& p);
  void faulted(const trace::Event& e);
  void entry_changed(const std::string& p);
  void listed(OpenFile* f, int64_t rvalue, uint64_t buffer);
  void fill_listings(InitPlan& plan);
  void follow_recorded_cwd(Proc& pr, const trace::Event& e) const;
  void event(const trace::Event& e);

  const PlanTrace& t_;
  std::map<std::string, PathInfo> paths_;
  Processes procs_;
  std::unordered_map<int32_t, int32_t> tid_to_pid_;
  std::unordered_map<int32_t, int32_t> parent_of_;  // child pid -> the pid that forked it
  std::unordered_map<int32_t, PendingLink> link_walk_;  // tid -> the link it read last
  // A name a program opened -> the kernel's resolution of it (the capture's path of the fd), for
  // the leading components where they differ: a symlink was followed there.
  std::map<std::string, std::string> resolves_to_;
};

std::string Planner::path_of(Proc& pr, const trace::Event& e, int di, int pi) const {
  std::string_view p = t_.str(e.arg(pi).str);
  if (p.empty() || p.find('\0') != std::string_view::npos) return {};
  std::string base = *pr.cwd;
  const std::string_view recorded = di >= 0 ? t_.str(e.arg(di).str) : std::string_view();
  if (!(p.front() == '/') && di >= 0 && e.arg(di).value != AT_FDCWD) {
    auto it = pr.files->fds.find(static_cast<int>(e.arg(di).value));
    if (it != pr.files->fds.end() && !it->second.file->path.empty()) {
      base = it->second.file->path;
    } else if (!recorded.empty() && recorded.front() == '/') {
      base = std::string(recorded);
    }
  } else if (!(p.front() == '/') && di >= 0 && !recorded.empty() && recorded.front() == '/') {
    base = std::string(recorded);  // AT_FDCWD</cwd>: the capture recorded the cwd (as resolve_paths reads it)
  }
  std::string abs = SandboxResolver::normalise(SandboxResolver::absolute(base, p));
  if (SandboxResolver::check(abs) != PathVerdict::kOk) return {};
  return abs;
}

void Planner::first_use(const std::string& p, Initial how, Shape shape) {
  if (p.empty()) return;
  PathInfo& i = info(p);
  if (i.initial == Initial::kUnknown || (i.initial == Initial::kMaybe && how == Initial::kPre)) i.initial = how;
  // The first call that reveals the shape of the pre-trace object decides it, even when an
  // earlier call (a stat) only said it existed.
  if (shape != Shape::kUnknown && i.shape == Shape::kUnknown && i.pristine) i.shape = shape;
}

void Planner::ancestors(const std::string& p) {
  if (p.empty()) return;
  for (size_t slash = p.find('/', 1); slash != std::string::npos; slash = p.find('/', slash + 1)) {
    std::string dir = p.substr(0, slash);
    PathInfo& i = info(dir);
    if (i.initial == Initial::kUnknown || i.initial == Initial::kMaybe) i.initial = Initial::kPre;
    if (i.initial == Initial::kPre && i.shape == Shape::kUnknown) i.shape = Shape::kDir;
  }
}

void Planner::needs(OpenFile* f, uint64_t end, bool read) {
  if (!f || !f->pristine || f->path.empty()) return;
  PathInfo& i = f->info ? *f->info : info(f->path);
  if (!i.pristine || end <= i.written_end) return;
  i.size = std::max(i.size, end);
  if (read) i.read_end = std::max(i.read_end, end);
}

void Planner::at_end_of_file(OpenFile* f, uint64_t end) {
  if (!f || !f->pristine || f->path.empty()) return;
  PathInfo& i = f->info ? *f->info : info(f->path);
  if (!i.pristine || end <= i.written_end) return;  // (an end the trace's writes made)
  i.eof = std::max(i.eof, end);
}

void Planner::wrote(OpenFile* f, uint64_t end) {
  if (!f || f->path.empty()) return;
  PathInfo& i = f->info ? *f->info : info(f->path);
  i.written_end = std::max(i.written_end, end);
}

// p did not exist (ENOENT): nothing below it existed, and each existing ancestor was a directory.
void Planner::absent_below(const std::string& p) {
  if (p.empty()) return;
  first_use(p, Initial::kAbsent);
  for (size_t slash = p.find('/', 1); slash != std::string::npos; slash = p.find('/', slash + 1))
    info(p.substr(0, slash)).dir_if_exists = true;
}

// The target of a symlink is not recorded, only its length (readlink's result). A program that
// resolves the link itself (realpath: gcc finding its own directory, make, python) goes on with a
// readlink of each component of the target: the first path the thread's next readlinks name that
// has the link's length, absolute or relative to the link's directory, is taken as its target.
// None within kLinkWalkCalls calls: a placeholder of that length (which a call following the link
// would not find).
void Planner::follow_link_walk(Proc& pr, const trace::Event& e, const trace::SyscallInfo* si) {
  auto it = link_walk_.find(e.tid);
  if (it == link_walk_.end()) return;
  PendingLink& pl = it->second;
  const std::string dir = pl.path.substr(0, std::max<size_t>(pl.path.rfind('/'), 1));
  const std::string prefix = dir == "/" ? dir : dir + "/";
  if (si->path == trace::PathEffect::kReadsLink) {
    const std::string q = path_of(pr, e, si->dirfd_of(0), si->path_arg(0));
    std::string target;
    if (q.empty() || q == pl.path) {
      target.clear();  // the link itself again: not a step along its target
    } else if (q.size() == pl.len) {
      target = q;
    } else if (q.size() == prefix.size() + pl.len && q.compare(0, prefix.size(), prefix) == 0) {
      target = q.substr(prefix.size());
    }
    if (!target.empty()) {
      PathInfo& i = info(pl.path);
      if (i.shape == Shape::kSymlink && i.link_target.empty()) i.link_target = target;
      link_walk_.erase(it);
      return;
    }
  }
  if (--pl.calls_left <= 0) link_walk_.erase(it);
}

// The capture's path of an fd (eBPF, strace -y) is the kernel's resolution of the name the program
// opened: where their leading components differ ("/lib/x86_64-linux-gnu/libc.so.6" opened,
// "/usr/lib/x86_64-linux-gnu/libc.so.6" recorded), a symlink was followed there.
void Planner::note_resolution(OpenFile* f, std::string_view recorded) {
  f->resolution_seen = true;
  if (f->path.empty() || recorded.empty() || recorded.front() != '/' || recorded.find('\0') != std::string_view::npos) return;
  const std::string to = SandboxResolver::normalise(recorded);
  std::string_view a = f->path, b = to;
  if (a == b) return;
  // Drop the common trailing components.
  while (true) {
    const size_t sa = a.rfind('/'), sb = b.rfind('/');
    if (sa == 0 || sb == 0 || sa == std::string_view::npos || sb == std::string_view::npos) break;
    if (a.substr(sa) != b.substr(sb)) break;
    a = a.substr(0, sa);
    b = b.substr(0, sb);
  }
  if (a != b) resolves_to_.try_emplace(std::string(a), std::string(b));
}

// A link read with readlink whose target its thread's walk did not show: a resolution the capture
// recorded through it gives the target when the lengths agree (absolute, or relative to the link's
// directory: "/lib" -> "usr/lib", 7 bytes as traced).
void Planner::link_targets_from_resolutions() {
  for (auto& [p, i] : paths_) {
    if (i.shape != Shape::kSymlink || !i.link_target.empty() || i.link_len == 0) continue;
    auto it = resolves_to_.find(p);
    if (it == resolves_to_.end()) continue;
    const std::string& to = it->second;
    const std::string dir = p.substr(0, std::max<size_t>(p.rfind('/'), 1));
    const std::string prefix = dir == "/" ? dir : dir + "/";
    if (to.size() == i.link_len) {
      i.link_target = to;
    } else if (to.size() == prefix.size() + i.link_len && to.compare(0, prefix.size(), prefix) == 0) {
      i.link_target = to.substr(prefix.size());
    }
  }
}

// A relative target of `len` bytes next to `link` that no path of the trace uses (the directory a
// link with an unknown target stands for, when the trace uses paths below it).
std::string Planner::placeholder_target(const std::string& link, uint64_t len) const {
  const std::string dir = link.substr(0, std::max<size_t>(link.rfind('/'), 1));
  const std::string prefix = dir == "/" ? dir : dir + "/";
  for (int n = 0; n < 1000; ++n) {
    std::string t = "~rastro-link-" + std::to_string(n);
    if (t.size() > len) t = std::string(1, static_cast<char>('a' + n % 26)) + std::to_string(n / 26);
    if (t.size() > len) t = std::string(1, static_cast<char>('a' + n % 26));
    t.resize(static_cast<size_t>(len), '~');
    auto it = paths_.lower_bound(prefix + t);
    if (it == paths_.end() || (it->first != prefix + t && it->first.compare(0, prefix.size() + t.size() + 1, prefix + t + "/") != 0))
      return t;
  }
  return std::string(static_cast<size_t>(len), '~');
}

// The trace used paths below a link (through it): they are created where the link leads, so the
// link can be made a link (readlink gives the traced length) and the paths are still there.
void Planner::rehome_below_links() {
  std::vector<std::string> links;
  for (const auto& [p, i] : paths_)
    if (i.shape == Shape::kSymlink && i.initial == Initial::kPre) links.push_back(p);
  // Rounds until nothing moves: a link's paths may land below another link (a chain of them).
  for (int round = 0; round < 40; ++round) {
    bool moved = false;
    for (const std::string& link : links) {
      const std::string below = link + "/";
      auto first = paths_.lower_bound(below);
      if (first == paths_.end() || first->first.compare(0, below.size(), below) != 0 || below_absent(link)) continue;
      PathInfo& li = paths_.at(link);
      if (li.link_target.empty()) li.link_target = placeholder_target(link, li.link_len > 0 ? li.link_len : 1);
      const std::string dir = link.substr(0, std::max<size_t>(link.rfind('/'), 1));
      const std::string to = SandboxResolver::normalise(SandboxResolver::absolute(dir, li.link_target));
      if (to == link || SandboxResolver::under(to, link) || SandboxResolver::under(link, to)) continue;  // a loop
      std::vector<std::pair<std::string, PathInfo>> moving;
      for (auto it = first; it != paths_.end() && it->first.compare(0, below.size(), below) == 0;) {
        moving.emplace_back(to + it->first.substr(link.size()), it->second);
        it = paths_.erase(it);
      }
      for (auto& [q, qi] : moving) merge_into(info(q), qi);
      for (auto& [q, qi] : moving)
        if (paths_.at(q).initial == Initial::kPre) ancestors(q);
      moved = true;
    }
    if (!moved) break;
  }
}

// What the trace showed of one object under two names (a path and the same path through a link).
void Planner::merge_into(PathInfo& m, const PathInfo& qi) {
  if (m.initial == Initial::kUnknown || (m.initial == Initial::kMaybe && qi.initial == Initial::kPre)) m.initial = qi.initial;
  if (m.shape == Shape::kUnknown) m.shape = qi.shape;
  m.pristine = m.pristine && qi.pristine;
  m.dir_if_exists = m.dir_if_exists || qi.dir_if_exists;
  m.size = std::max(m.size, qi.size);
  m.written_end = std::max(m.written_end, qi.written_end);
  m.eof = std::max(m.eof, qi.eof);
  m.read_end = std::max(m.read_end, qi.read_end);
  m.link_len = std::max(m.link_len, qi.link_len);
  if (m.link_target.empty()) m.link_target = qi.link_target;
  m.executable = m.executable || qi.executable;
  m.entries_changed = m.entries_changed || qi.entries_changed;
  m.listing_bytes = std::max(m.listing_bytes, qi.listing_bytes);
}

// access(X_OK) or exec through a symlink found its final target executable.
void Planner::executable_through_links() {
  for (auto& [p, i] : paths_) {
    if (!i.executable || i.shape != Shape::kSymlink) continue;
    std::string at = p;
    for (int hop = 0; hop < 40; ++hop) {
      auto it = paths_.find(at);
      if (it == paths_.end() || it->second.shape != Shape::kSymlink) break;
      const std::string& t = it->second.link_target;
      if (t.empty()) break;
      at = SandboxResolver::normalise(SandboxResolver::absolute(at.substr(0, std::max<size_t>(at.rfind('/'), 1)), t));
    }
    auto last = paths_.find(at);
    if (last != paths_.end() && last->second.shape != Shape::kSymlink) last->second.executable = true;
  }
}

// Whether an ancestor of p did not exist when the trace began (then neither did p).
bool Planner::below_absent(const std::string& p) {
  for (size_t slash = p.find('/', 1); slash != std::string::npos; slash = p.find('/', slash + 1)) {
    auto it = paths_.find(p.substr(0, slash));
    if (it != paths_.end() && it->second.initial == Initial::kAbsent) return true;
  }
  return false;
}

// AT_FDCWD</cwd>: the capture recorded the process's cwd at this call, which its calls without a
// dirfd (stat, access, readlink of relative names) resolve against too (as resolve_paths does).
void Planner::follow_recorded_cwd(Proc& pr, const trace::Event& e) const {
  for (int i = 0; i < std::min<int>(e.nargs, trace::kMaxArgs); ++i) {
    const trace::Arg& d = e.arg(i);
    if (d.type != trace::ArgType::kDirFd || d.value != AT_FDCWD || d.str == trace::kNoStr) continue;
    const std::string_view recorded = t_.str(d.str);
    if (recorded.empty() || recorded.front() != '/') continue;
    *pr.cwd = SandboxResolver::normalise(recorded);
    return;
  }
}

// p was created, removed or renamed: its directory's listing no longer shows the pre-trace entries.
void Planner::entry_changed(const std::string& p) {
  if (p.size() < 2) return;
  info(p.substr(0, std::max<size_t>(p.rfind('/'), 1))).entries_changed = true;
}

// getdents64 records only the bytes a listing returned, not the names, and a program names only
// the entries it goes on to use (python lists every directory of sys.path and opens a few): the
// replay's listing of a directory with the named entries alone returns fewer bytes. A directory
// whose complete listing the trace shows, made before the trace changed its entries, gets empty
// placeholder files ("~rastro-dirent-N", padded) whose records make up the difference: the
// replayed listing then returns the traced bytes (per call too when the traced listing took one
// call; longer listings split where the kernel's hash order puts the unknown names).
// linux_dirent64: 19 bytes of header, the name and its NUL, padded to 8.
constexpr uint64_t dirent64_size(size_t name_len) { return (19 + name_len + 1 + 7) & ~uint64_t{7}; }
constexpr uint64_t kDirentMin = dirent64_size(1);    // 24
constexpr uint64_t kDirentMax = dirent64_size(255);  // 280

// One getdents64 on the open directory f (`buffer`: its count argument): a listing runs from the
// first call to the one returning 0 — or to one that left room in the buffer for the longest
// record, as the kernel fills it while entries remain (PostgreSQL's directory scan stops at the
// name it wanted, before the call that would return 0). Complete, from the start of a directory
// holding its pre-trace entries, its total is the size of those entries' records (fill_listings).
void Planner::listed(OpenFile* f, int64_t rvalue, uint64_t buffer) {
  PathInfo& dir = f->info ? *f->info : info(f->path);
  if (!f->listing) {
    f->listing = true;
    f->listing_pristine = !dir.entries_changed && f->pos == 0;
    f->listed = 0;
  }
  if (rvalue > 0) {
    f->listed += static_cast<uint64_t>(rvalue);
    if (buffer < static_cast<uint64_t>(rvalue) + kDirentMax) return;
  }
  if (f->listing_pristine && !dir.entries_changed && f->listed > 0) dir.listing_bytes = std::max(dir.listing_bytes, f->listed);
  f->listing = false;
}

void Planner::fill_listings(InitPlan& plan) {
  std::map<std::string, uint64_t> known;  // directory -> the records of its "." / ".." and entries
  for (const auto& [p, i] : paths_) {
    if (i.listing_bytes > 0 && p != "/") known[p] = 2 * dirent64_size(1);  // "." and ".." (both 24)
  }
  if (known.empty()) return;
  std::set<std::string> created_dirs;
  for (const InitEntry& en : plan.entries) {
    const size_t slash = en.path.rfind('/');
    auto it = known.find(en.path.substr(0, std::max<size_t>(slash, 1)));
    if (it != known.end()) it->second += dirent64_size(en.path.size() - slash - 1);
    if (en.kind == InitEntry::Kind::kDir && known.count(en.path)) created_dirs.insert(en.path);
  }
  size_t n = 0;
  for (const auto& [dir, bytes] : known) {
    const PathInfo& d = paths_.at(dir);
    if (!created_dirs.count(dir) || d.listing_bytes <= bytes || (d.listing_bytes - bytes) % 8 != 0) continue;
    uint64_t missing = d.listing_bytes - bytes;
    while (missing >= kDirentMin) {
      // Records of the largest size, leaving a remainder that is one record itself.
      uint64_t rec = missing;
      if (rec > kDirentMax) rec = missing - kDirentMax >= kDirentMin ? kDirentMax : missing - kDirentMin;
      const size_t len = std::min<size_t>(rec - 20, 255);  // the longest name with a `rec`-byte record
      std::string name = "~rastro-dirent-" + std::to_string(n);
      if (name.size() > len) name = "~" + std::to_string(n % 1000);  // a 24- or 32-byte record
      ++n;
      name.resize(len, '~');
      if (paths_.count(dir + "/" + name)) continue;  // a name the trace uses: take the next one
      InitEntry en;
      en.path = dir + "/" + name;
      en.kind = InitEntry::Kind::kFile;
      plan.entries.push_back(std::move(en));
      missing -= rec;
    }
  }
}

// A page fault (trace/model/page_fault.h): the mapped file existed and reached the faulted page
// (a page wholly past the end is SIGBUS, not a fault event). Fault-around ranges are rounded up to
// whole pages past the end of the file: they say nothing about its size.
void Planner::faulted(const trace::Event& e) {
  if (e.nargs != trace::kFaultArgs || (e.arg(trace::kFaultArgHow).value & trace::kFaultAround)) return;
  std::string_view p = t_.str(e.arg(trace::kFaultArgFile).str);
  if (p.empty() || p.front() != '/' || p.find('\0') != std::string_view::npos) return;
  const std::string abs = SandboxResolver::normalise(p);
  if (SandboxResolver::check(abs) != PathVerdict::kOk) return;
  first_use(abs, Initial::kPre, Shape::kFile);
  ancestors(abs);
  PathInfo& i = info(abs);
  const auto offset = static_cast<uint64_t>(std::max<int64_t>(e.arg(trace::kFaultArgOffset).value, 0));
  if (i.pristine) i.size = std::max(i.size, offset + 1);
}

void Planner::event(const trace::Event& e) {
  if (!procs_.find(e.pid)) {
    // A child's first calls often complete before its parent's fork/clone returns (the trace is
    // in completion order): it starts from its parent's state, not from scratch.
    auto parent = parent_of_.find(e.pid);
    if (parent != parent_of_.end() && procs_.find(parent->second)) {
      procs_.clone(parent->second, e.pid, false, false);
    } else {
      procs_.get(e.pid);
    }
  }
  Proc& pr = procs_.get(e.pid);
  if (e.flags & trace::kEventPageFault) return faulted(e);
  follow_recorded_cwd(pr, e);
  const trace::SyscallInfo* si = trace::syscall_by_nr(e.nr);
  if (!si || (e.flags & trace::kEventUnfinished)) return;
  bool ok = !e.failed();
  int err = e.error_number();
  auto fd = [&](int i) -> OpenFile* {
    auto it = pr.files->fds.find(static_cast<int>(e.arg(i).value));
    return it == pr.files->fds.end() ? nullptr : it->second.file.get();
  };
  auto a = [&](int i) { return e.arg(i).value; };
  // A use of path p that says nothing about creation: it existed if the call succeeded.
  auto use = [&](const std::string& p, Shape shape = Shape::kUnknown) {
    if (p.empty()) return;
    if (ok) {
      first_use(p, Initial::kPre, shape);
      ancestors(p);
    } else if (err == ENOENT) {
      absent_below(p);
    }
  };
  auto create = [&](const std::string& p, Shape shape) {
    if (p.empty()) return;
    if (ok) {
      first_use(p, Initial::kAbsent);
      ancestors(p);
      PathInfo& i = info(p);
      i.pristine = false;
      i.shape = shape;
      entry_changed(p);
    } else if (err == EEXIST) {
      first_use(p, Initial::kPre, shape);
      ancestors(p);
    }
  };
  auto gone = [&](const std::string& p) {
    if (!p.empty() && ok) info(p).pristine = false;
  };

  using trace::FdEffect;
  using trace::PathEffect;
  using trace::ProcEffect;
  const int p0 = si->path_arg(0);
  const int p1 = si->path_arg(1);
  const int flags_arg = si->arg_of(trace::ArgType::kOpenFlags);
  const int offset_arg = si->arg_of(trace::ArgType::kOffset);
  auto path = [&](int pi) { return path_of(pr, e, si->dirfd_of(pi), pi); };
  // Calls that transfer at the fd's position (read, write), not at an explicit offset (pread).
  const bool at_position = offset_arg < 0;
  // A read of a regular file returns fewer bytes than asked only at its end. (Only the calls whose
  // count is a byte count: readv's is a vector length. A pipe is no file the init creates.)
  const bool short_read = ok && si->size_arg >= 0 && si->args[static_cast<size_t>(si->size_arg)] == trace::ArgType::kCount &&
                          si->data_in >= 0 && si->data_out < 0 && e.rvalue >= 0 && e.rvalue < a(si->size_arg);
  for (int i = 0; i < std::min<int>(e.nargs, trace::kMaxArgs); ++i) {
    const trace::Arg& d = e.arg(i);
    if ((d.type == trace::ArgType::kFd || d.type == trace::ArgType::kDirFd) && d.str != trace::kNoStr && d.value >= 0)
      if (OpenFile* f = fd(i); f && !f->resolution_seen) note_resolution(f, t_.str(d.str));
  }
  if (si->path_arg(0) >= 0) follow_link_walk(pr, e, si);
  if ((si->path == PathEffect::kOpens && flags_arg >= 0) || si->path == PathEffect::kCreatesFile) {
    std::string p = path(p0);
    int flags = flags_arg < 0 ? (O_CREAT | O_WRONLY | O_TRUNC) : static_cast<int>(a(flags_arg));
    const bool dir = (flags & O_DIRECTORY) || (p0 >= 0 && names_a_directory(t_.str(e.arg(p0).str)));
    Shape shape = dir ? Shape::kDir : Shape::kUnknown;
    if (!(flags & O_CREAT)) {
      use(p, shape);
    } else if (flags & O_EXCL) {
      create(p, Shape::kFile);
    } else if (ok && !p.empty()) {
      first_use(p, (flags & O_TRUNC) ? Initial::kAbsent : Initial::kMaybe, Shape::kFile);
      ancestors(p);
      if (info(p).initial != Initial::kPre) entry_changed(p);  // it may have been created here
    } else if (err == ENOENT) {
      absent_below(p);  // O_CREAT without a parent directory
    }
    if (ok && !p.empty()) {
      if (flags & O_TRUNC) info(p).pristine = false;
      auto f = std::make_shared<OpenFile>();
      f->path = p;
      f->info = &info(p);
      f->pristine = info(p).pristine;
      f->append = (flags & O_APPEND) != 0;
      pr.files->fds[static_cast<int>(e.rvalue)] = FdSlot{f};
    }
  } else if (si->fd == FdEffect::kReleases) {
    if (ok) pr.files->fds.erase(static_cast<int>(a(0)));
  } else if (si->fd == FdEffect::kDuplicates ||
             (si->fd == FdEffect::kByCommand && trace::is_dup_fd_command(a(1)))) {
    auto it = pr.files->fds.find(static_cast<int>(a(0)));
    if (ok && it != pr.files->fds.end()) pr.files->fds[static_cast<int>(e.rvalue)] = it->second;
  } else if (si->fd == FdEffect::kDuplicatesOnto) {
    auto it = pr.files->fds.find(static_cast<int>(a(0)));
    if (ok && it != pr.files->fds.end()) pr.files->fds[static_cast<int>(a(1))] = it->second;
  } else if (si->data_in >= 0 && si->data_out < 0 && at_position) {
    if (OpenFile* f = fd(si->data_in); f && ok) {
      needs(f, f->pos + static_cast<uint64_t>(e.rvalue));
      if (short_read) at_end_of_file(f, f->pos + static_cast<uint64_t>(e.rvalue));
      f->pos += static_cast<uint64_t>(e.rvalue);
    }
  } else if (si->data_in >= 0 && si->data_out < 0) {
    if (OpenFile* f = fd(si->data_in); f && ok) {
      const auto end = static_cast<uint64_t>(std::max<int64_t>(a(offset_arg), 0) + e.rvalue);
      needs(f, end);
      if (short_read) at_end_of_file(f, end);
    }
  } else if (si->data_out >= 0 && si->data_in < 0 && at_position) {
    if (OpenFile* f = fd(si->data_out); f && ok) {
      // An appending write starts at the end: at least the largest extent known so far.
      if (f->append && f->info) f->pos = std::max({f->pos, f->info->size, f->info->written_end});
      f->pos += static_cast<uint64_t>(e.rvalue);
      wrote(f, f->pos);
    }
  } else if (si->data_out >= 0 && si->data_in < 0) {
    if (OpenFile* f = fd(si->data_out); f && ok) wrote(f, static_cast<uint64_t>(std::max<int64_t>(a(offset_arg), 0) + e.rvalue));
  } else if (si->ret == trace::ReturnKind::kOffset) {
    if (OpenFile* f = fd(0); f && ok) {
      if (a(2) == SEEK_END && a(1) == 0) {
        needs(f, static_cast<uint64_t>(e.rvalue));
        at_end_of_file(f, static_cast<uint64_t>(e.rvalue));
      }
      f->pos = static_cast<uint64_t>(e.rvalue);
    }
  } else if ((si->classes & trace::kClassMemory) && si->arg_of(trace::ArgType::kFd) >= 0) {
    if (OpenFile* f = fd(si->arg_of(trace::ArgType::kFd)); f && ok)
      needs(f, static_cast<uint64_t>(std::max<int64_t>(a(offset_arg), 0) + a(si->size_arg)), false);
  } else if (si->data_in >= 0 && si->data_out >= 0) {
    // copy_file_range, sendfile: offsets are pointers the trace does not keep; cp passes NULL,
    // i.e. the fds' positions.
    if (OpenFile* f = fd(si->data_in); f && ok) {
      needs(f, f->pos + static_cast<uint64_t>(e.rvalue));
      f->pos += static_cast<uint64_t>(e.rvalue);
    }
    if (OpenFile* f = fd(si->data_out); f && ok) {
      f->pos += static_cast<uint64_t>(e.rvalue);
      wrote(f, f->pos);
    }
  } else if (si->path == PathEffect::kListsDir || si->proc == ProcEffect::kFchdir) {
    if (OpenFile* f = fd(0); f && ok) {
      PathInfo& i = info(f->path);
      if (i.shape == Shape::kUnknown || i.shape == Shape::kFile) i.shape = Shape::kDir;
      if (si->proc == ProcEffect::kFchdir) *pr.cwd = f->path;
      if (e.nr == SYS_getdents64) listed(f, e.rvalue, static_cast<uint64_t>(e.arg(2).value));
    }
  } else if (si->path == PathEffect::kTruncates && p0 < 0) {
    if (OpenFile* f = fd(0); f && ok) {
      info(f->path).pristine = false;
      f->pristine = false;
    }
  } else if (si->proc == ProcEffect::kChdir) {
    std::string p = path(p0);
    use(p, Shape::kDir);
    if (ok && !p.empty()) *pr.cwd = p;
  } else if (si->path == PathEffect::kCreatesDir) {
    create(path(p0), Shape::kDir);
  } else if (si->path == PathEffect::kCreatesNode) {
    create(path(p0), Shape::kFile);
  } else if (si->path == PathEffect::kRemovesDir) {
    std::string p = path(p0);
    use(p, Shape::kDir);
    gone(p);
    if (ok) entry_changed(p);
  } else if (si->path == PathEffect::kRemoves) {
    std::string p = path(p0);
    const int at_flags = si->arg_of(trace::ArgType::kAtFlags);
    use(p, at_flags >= 0 && (a(at_flags) & AT_REMOVEDIR) ? Shape::kDir : Shape::kUnknown);
    gone(p);
    if (ok) entry_changed(p);
  } else if (si->path == PathEffect::kRenames) {
    std::string from = path(p0);
    std::string to = path(p1);
    use(from);
    if (ok && !to.empty()) ancestors(to);
    gone(from);
    gone(to);
    if (ok) {
      entry_changed(from);
      entry_changed(to);
    }
  } else if (si->path == PathEffect::kLinks) {
    use(path(p0));
    create(path(p1), Shape::kFile);
  } else if (si->path == PathEffect::kCreatesSymlink) {
    create(path(p0), Shape::kSymlink);
  } else if (si->path == PathEffect::kReadsLink) {
    std::string p = path(p0);
    if (!ok && err == EINVAL && !p.empty()) {  // it exists and is no symlink
      first_use(p, Initial::kPre);
      ancestors(p);
    }
    use(p, Shape::kSymlink);
    // A path used as an ancestor before (the loader opening /lib/x86_64-linux-gnu/libc.so.6) was
    // taken for a directory; a readlink that succeeds on it unchanged says it is a link to one.
    if (ok && e.rvalue > 0 && !p.empty() && info(p).pristine && info(p).initial == Initial::kPre &&
        info(p).shape == Shape::kDir)
      info(p).shape = Shape::kSymlink;
    if (ok && !p.empty() && info(p).shape == Shape::kSymlink) {
      info(p).link_len = std::max<uint64_t>(info(p).link_len, static_cast<uint64_t>(e.rvalue));
      if (info(p).link_target.empty() && e.rvalue > 0)
        link_walk_[e.tid] = PendingLink{p, static_cast<uint64_t>(e.rvalue), kLinkWalkCalls};
    }
  } else if (si->path == PathEffect::kTruncates) {
    std::string p = path(p0);
    use(p, Shape::kFile);
    gone(p);
  } else if (si->ret == trace::ReturnKind::kPid && ok && e.rvalue > 0) {
    // fork/clone: the child starts with a copy of the parent's fds and cwd.
    int32_t child = static_cast<int32_t>(e.rvalue);
    auto it = tid_to_pid_.find(child);
    int32_t child_pid = it == tid_to_pid_.end() ? child : it->second;
    if (child_pid != e.pid && !procs_.find(child_pid)) procs_.clone(e.pid, child_pid, false, false);
  } else {
    // Any other path-taking call (stat family, access, chmod, chown, utime, xattrs, statfs, exec):
    // a success says the path existed.
    // A successful access(X_OK) or exec also says it was executable.
    bool executable = ok && si->proc == ProcEffect::kExec;
    for (int i = 0; i < std::min<int>(e.nargs, trace::kMaxArgs); ++i)
      if (ok && e.arg(i).type == trace::ArgType::kAccessMode && (e.arg(i).value & X_OK)) executable = true;
    for (int i = 0; i < std::min<int>(e.nargs, trace::kMaxArgs); ++i) {
      if (e.arg(i).type != trace::ArgType::kPath) continue;
      int di = (i > 0 && e.arg(i - 1).type == trace::ArgType::kDirFd) ? i - 1 : -1;
      std::string p = path_of(pr, e, di, i);
      use(p, names_a_directory(t_.str(e.arg(i).str)) ? Shape::kDir : Shape::kUnknown);
      if (executable && !p.empty()) info(p).executable = true;
    }
  }
}

InitPlan Planner::run(const EventVisitor& also) {
  // tid -> pid first, so a fork's child pid is known when the parent's clone is seen (one walk
  // over the events, which are large; the clones are resolved after it).
  // Only the fixed fields are read here (no arguments); the forks are kept by value, since the
  // packed trace hands out decoded copies, not references into it.
  std::vector<CompactEvents::Fields> forks;
  for (size_t i = 0; i < t_.events.size(); ++i) {
    const CompactEvents::Fields e = t_.events.fields(i);
    tid_to_pid_.try_emplace(e.tid, e.pid);
    const trace::SyscallInfo* si = trace::syscall_by_nr(e.nr);
    if (si && si->ret == trace::ReturnKind::kPid && e.rvalue > 0) forks.push_back(e);
  }
  for (const CompactEvents::Fields& e : forks) {
    auto it = tid_to_pid_.find(static_cast<int32_t>(e.rvalue));
    const int32_t child = it == tid_to_pid_.end() ? static_cast<int32_t>(e.rvalue) : it->second;
    if (child != e.pid) parent_of_.try_emplace(child, e.pid);
  }
  CompactEvents::Reader read(t_.events);
  for (size_t i = 0; i < t_.events.size(); ++i) {
    const trace::Event& e = read(i);
    event(e);
    if (also) also(e);
  }

  // Sizes the trace producer knew (e.g. a workload that created its files before tracing).
  const nlohmann::json& s = t_.header.settings;
  if (s.is_object() && s.contains("initial_files")) {
    auto add = [&](const std::string& p, uint64_t size) {
      std::string abs = SandboxResolver::normalise(SandboxResolver::absolute("/", p));
      if (SandboxResolver::check(abs) != PathVerdict::kOk) return;
      PathInfo& i = info(abs);
      if (i.initial == Initial::kAbsent) return;
      i.initial = Initial::kPre;
      i.shape = Shape::kFile;
      i.size = size;  // the producer knew the size; the reads only bound it (and may follow writes)
      i.eof = 0;
      ancestors(abs);
    };
    const nlohmann::json& f = s["initial_files"];
    if (f.is_object()) {
      for (auto& [k, v] : f.items()) {
        if (v.is_number_integer() && v.get<int64_t>() >= 0) add(k, v.get<uint64_t>());
      }
    } else if (f.is_array()) {
      for (const auto& item : f) {
        if (item.is_object() && item.contains("path") && item["path"].is_string() && item.contains("size") &&
            item["size"].is_number_integer() && item["size"].get<int64_t>() >= 0) {
          add(item["path"].get<std::string>(), item["size"].get<uint64_t>());
        }
      }
    }
  }

  link_targets_from_resolutions();
  rehome_below_links();
  executable_through_links();
  InitPlan plan;
  for (auto& [p, i] : paths_) {  // std::map order: parents sort before their children
    if (p == "/") continue;
    bool pre = i.initial == Initial::kPre || (i.initial == Initial::kMaybe && i.size > 0);
    if (!pre || below_absent(p)) continue;
    InitEntry en;
    en.path = p;
    if (i.shape == Shape::kUnknown && i.dir_if_exists) i.shape = Shape::kDir;
    switch (i.shape) {
      case Shape::kDir: en.kind = InitEntry::Kind::kDir; break;
      case Shape::kSymlink:
        en.kind = InitEntry::Kind::kSymlink;
        if (!i.link_target.empty()) en.target = i.link_target;
        else en.target = i.link_len > 0 ? std::string(i.link_len, 'x') : std::string("x");
        break;
      default:
        en.kind = InitEntry::Kind::kFile;
        // The end a read met, unless a later read went past it (then the file was growing).
        en.size = i.eof > 0 && i.eof >= i.read_end ? i.eof : i.size;
        if (i.executable) en.mode = 0755;
        plan.bytes += en.size;
        break;
    }
    plan.entries.push_back(std::move(en));
  }
  fill_listings(plan);
  return plan;
}

}  // namespace

InitPlan plan_initial_state(const PlanTrace& trace, const EventVisitor& also) { return Planner(trace).run(also); }

}  // namespace rastro::replay
