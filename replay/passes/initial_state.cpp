#include "replay/passes/initial_state.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <memory>
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
  uint64_t size = 0;
  uint64_t link_len = 0;
  bool executable = false;  // access(X_OK) or execve succeeded on it
};

struct OpenFile {
  std::string path;
  bool pristine = true;  // opened on the original object and not truncated
  uint64_t pos = 0;
  PathInfo* info = nullptr;  // paths_[path] (std::map nodes stay put): no string lookup per read
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
  explicit Planner(const trace::Trace& t) : t_(t), procs_(initial_cwd_or_root(t.header)) {}

  InitPlan run();

 private:
  PathInfo& info(const std::string& p) { return paths_[p]; }
  std::string path_of(Proc& pr, const trace::Event& e, int di, int pi) const;
  void first_use(const std::string& p, Initial how, Shape shape = Shape::kUnknown);
  void ancestors(const std::string& p);
  void needs(OpenFile* f, uint64_t end);
  void faulted(const trace::Event& e);
  void event(const trace::Event& e);

  const trace::Trace& t_;
  std::map<std::string, PathInfo> paths_;
  Processes procs_;
  std::unordered_map<int32_t, int32_t> tid_to_pid_;
  std::unordered_map<int32_t, int32_t> parent_of_;  // child pid -> the pid that forked it
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

void Planner::needs(OpenFile* f, uint64_t end) {
  if (!f || !f->pristine || f->path.empty()) return;
  PathInfo& i = f->info ? *f->info : info(f->path);
  if (!i.pristine) return;
  i.size = std::max(i.size, end);
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
      first_use(p, Initial::kAbsent);
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
  if ((si->path == PathEffect::kOpens && flags_arg >= 0) || si->path == PathEffect::kCreatesFile) {
    std::string p = path(p0);
    int flags = flags_arg < 0 ? (O_CREAT | O_WRONLY | O_TRUNC) : static_cast<int>(a(flags_arg));
    Shape shape = (flags & O_DIRECTORY) ? Shape::kDir : Shape::kUnknown;
    if (!(flags & O_CREAT)) {
      use(p, shape);
    } else if (flags & O_EXCL) {
      create(p, Shape::kFile);
    } else if (ok && !p.empty()) {
      first_use(p, (flags & O_TRUNC) ? Initial::kAbsent : Initial::kMaybe, Shape::kFile);
      ancestors(p);
    }
    if (ok && !p.empty()) {
      if (flags & O_TRUNC) info(p).pristine = false;
      auto f = std::make_shared<OpenFile>();
      f->path = p;
      f->info = &info(p);
      f->pristine = info(p).pristine;
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
      f->pos += static_cast<uint64_t>(e.rvalue);
    }
  } else if (si->data_in >= 0 && si->data_out < 0) {
    if (OpenFile* f = fd(si->data_in); f && ok) needs(f, static_cast<uint64_t>(std::max<int64_t>(a(offset_arg), 0) + e.rvalue));
  } else if (si->data_out >= 0 && si->data_in < 0 && at_position) {
    if (OpenFile* f = fd(si->data_out); f && ok) f->pos += static_cast<uint64_t>(e.rvalue);
  } else if (si->ret == trace::ReturnKind::kOffset) {
    if (OpenFile* f = fd(0); f && ok) {
      if (a(2) == SEEK_END && a(1) == 0) needs(f, static_cast<uint64_t>(e.rvalue));
      f->pos = static_cast<uint64_t>(e.rvalue);
    }
  } else if ((si->classes & trace::kClassMemory) && si->arg_of(trace::ArgType::kFd) >= 0) {
    if (OpenFile* f = fd(si->arg_of(trace::ArgType::kFd)); f && ok)
      needs(f, static_cast<uint64_t>(std::max<int64_t>(a(offset_arg), 0) + a(si->size_arg)));
  } else if (si->data_in >= 0 && si->data_out >= 0) {
    // copy_file_range, sendfile: offsets are pointers the trace does not keep; cp passes NULL,
    // i.e. the fds' positions.
    if (OpenFile* f = fd(si->data_in); f && ok) {
      needs(f, f->pos + static_cast<uint64_t>(e.rvalue));
      f->pos += static_cast<uint64_t>(e.rvalue);
    }
    if (OpenFile* f = fd(si->data_out); f && ok) f->pos += static_cast<uint64_t>(e.rvalue);
  } else if (si->path == PathEffect::kListsDir || si->proc == ProcEffect::kFchdir) {
    if (OpenFile* f = fd(0); f && ok) {
      PathInfo& i = info(f->path);
      if (i.shape == Shape::kUnknown || i.shape == Shape::kFile) i.shape = Shape::kDir;
      if (si->proc == ProcEffect::kFchdir) *pr.cwd = f->path;
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
  } else if (si->path == PathEffect::kRemoves) {
    std::string p = path(p0);
    const int at_flags = si->arg_of(trace::ArgType::kAtFlags);
    use(p, at_flags >= 0 && (a(at_flags) & AT_REMOVEDIR) ? Shape::kDir : Shape::kUnknown);
    gone(p);
  } else if (si->path == PathEffect::kRenames) {
    std::string from = path(p0);
    std::string to = path(p1);
    use(from);
    if (ok && !to.empty()) ancestors(to);
    gone(from);
    gone(to);
  } else if (si->path == PathEffect::kLinks) {
    use(path(p0));
    create(path(p1), Shape::kFile);
  } else if (si->path == PathEffect::kCreatesSymlink) {
    create(path(p0), Shape::kSymlink);
  } else if (si->path == PathEffect::kReadsLink) {
    std::string p = path(p0);
    use(p, Shape::kSymlink);
    if (ok && !p.empty() && info(p).shape == Shape::kSymlink) {
      info(p).link_len = std::max<uint64_t>(info(p).link_len, static_cast<uint64_t>(e.rvalue));
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
      use(p);
      if (executable && !p.empty()) info(p).executable = true;
    }
  }
}

InitPlan Planner::run() {
  // tid -> pid first, so a fork's child pid is known when the parent's clone is seen (one walk
  // over the events, which are large; the clones are resolved after it).
  std::vector<const trace::Event*> forks;
  for (const trace::Event& e : t_.events) {
    tid_to_pid_.try_emplace(e.tid, e.pid);
    const trace::SyscallInfo* si = trace::syscall_by_nr(e.nr);
    if (si && si->ret == trace::ReturnKind::kPid && e.rvalue > 0) forks.push_back(&e);
  }
  for (const trace::Event* e : forks) {
    auto it = tid_to_pid_.find(static_cast<int32_t>(e->rvalue));
    const int32_t child = it == tid_to_pid_.end() ? static_cast<int32_t>(e->rvalue) : it->second;
    if (child != e->pid) parent_of_.try_emplace(child, e->pid);
  }
  for (const trace::Event& e : t_.events) event(e);

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

  InitPlan plan;
  for (auto& [p, i] : paths_) {  // std::map order: parents sort before their children
    if (p == "/") continue;
    bool pre = i.initial == Initial::kPre || (i.initial == Initial::kMaybe && i.size > 0);
    if (!pre) continue;
    InitEntry en;
    en.path = p;
    switch (i.shape) {
      case Shape::kDir: en.kind = InitEntry::Kind::kDir; break;
      case Shape::kSymlink:
        en.kind = InitEntry::Kind::kSymlink;
        en.target = i.link_len > 0 ? std::string(i.link_len, 'x') : std::string("x");
        break;
      default:
        en.kind = InitEntry::Kind::kFile;
        en.size = i.size;
        if (i.executable) en.mode = 0755;
        plan.bytes += i.size;
        break;
    }
    plan.entries.push_back(std::move(en));
  }
  return plan;
}

}  // namespace

InitPlan plan_initial_state(const trace::Trace& trace) { return Planner(trace).run(); }

}  // namespace rastro::replay
