#include "replay/passes/resolve_paths.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "replay/passes/fd_keys.h"
#include "replay/passes/initial_cwd.h"
#include "replay/passes/initial_state.h"
#include "replay/passes/process_table.h"
#include "replay/passes/syscall_semantics.h"

namespace rastro::replay {

std::string normalize_path(std::string_view base, std::string_view p) {
  // Components as views into base/p; joined once (also sidesteps a bogus GCC 12 -Wrestrict on
  // repeated appends).
  std::vector<std::string_view> comps;
  auto walk = [&comps](std::string_view s) {
    size_t i = 0;
    while (i <= s.size()) {
      size_t j = s.find('/', i);
      if (j == std::string_view::npos) j = s.size();
      std::string_view comp = s.substr(i, j - i);
      if (comp == "..") {
        if (!comps.empty()) comps.pop_back();
      } else if (!comp.empty() && comp != ".") {
        comps.push_back(comp);
      }
      i = j + 1;
    }
  };
  if (p.empty() || p[0] != '/') walk(base);
  walk(p);
  if (comps.empty()) return "/";
  size_t len = 0;
  for (auto c : comps) len += c.size() + 1;
  std::string out(len, '/');
  size_t at = 0;
  for (auto c : comps) {
    c.copy(out.data() + at + 1, c.size());
    at += c.size() + 1;
  }
  return out;
}

namespace {

struct PathSlot {
  trace::StrId path = trace::kNoStr;
  bool cloexec = false;
};

constexpr int64_t kAtEmptyPath = 0x1000;

trace::StrId header_cwd(PlanTrace& t) {
  const std::string cwd = initial_cwd(t.header);
  return cwd.empty() ? trace::kNoStr : t.strings.intern(cwd);
}

class Resolver {
 public:
  explicit Resolver(InferContext& c) : c_(c), read_(c.trace.events), table_(header_cwd(c.trace)) {
    root_ = c.trace.strings.intern("/");
    table_.learn_births(c.trace, c.nr, c.order, [](int nr) { return semantics(nr) == Sem::kClone; });
  }

  void run() {
    const auto n = c_.order.size();
    c_.paths.assign(static_cast<uint32_t>(n));
    for (uint32_t r = 0; r < n; ++r) visit(r);
  }

 private:
  // `base` may be kNoStr (unknown directory).
  trace::StrId resolve(trace::StrId base, trace::StrId path) {
    std::string_view p = c_.trace.str(path);
    const bool relative = p.empty() || p[0] != '/';
    if (relative && base == trace::kNoStr) {
      ++c_.unresolved_paths;
      base = root_;
    }
    if (!relative) base = root_;
    const uint64_t key = (static_cast<uint64_t>(base) << 32) | path;
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    std::string s = normalize_path(c_.trace.str(base), p);
    trace::StrId id = c_.trace.strings.intern(s);
    cache_.emplace(key, id);
    return id;
  }

  trace::StrId fd_path(TracedProcessTable<PathSlot>::Process& proc, const trace::Arg& a) {
    if (a.str != trace::kNoStr) return resolve(root_, a.str);  // recorded like strace -y
    auto it = proc.files->fds.find(static_cast<int>(a.value));
    return it == proc.files->fds.end() ? trace::kNoStr : it->second.path;
  }

  void visit(uint32_t r) {
    if (semantics(c_.nr[r]) == Sem::kClone && c_.ordered_as_success(r)) table_.clone_returned(read_(c_.order[r]));
    if (!names_paths(c_.nr[r])) return;  // (also: not in the syscall table)
    const trace::Event& e = read_(c_.order[r]);
    const Sem sem = semantics(e.nr);
    const PathArgs pa = path_args(e.nr);
    auto& proc = process(e.pid);
    for (int i = 0; i < pa.n; ++i) {
      const trace::Arg& a = e.arg(pa.path[i]);
      if (a.type != trace::ArgType::kPath) continue;
      trace::StrId base = *proc.cwd;
      bool via_dirfd = false;
      if (pa.dirfd[i] >= 0) {
        const trace::Arg& d = e.arg(pa.dirfd[i]);
        if (d.type == trace::ArgType::kDirFd && d.value != kAtFdCwd) {
          base = fd_path(proc, d);
          via_dirfd = true;
        } else if (d.type == trace::ArgType::kDirFd && d.str != trace::kNoStr &&
                   !c_.trace.str(d.str).empty() && c_.trace.str(d.str)[0] == '/') {
          base = resolve(root_, d.str);  // AT_FDCWD</cwd>: the capture recorded the cwd
          *proc.cwd = base;              // ... which is the process's, also for its calls without a dirfd
        }
      }
      if (c_.trace.str(a.str).empty()) {
        // AT_EMPTY_PATH: the call acts on the dirfd itself; otherwise "" fails with ENOENT.
        bool empty_ok = false;
        for (int k = 0; k < std::min<int>(e.nargs, trace::kMaxArgs); ++k)
          if (e.arg(k).type == trace::ArgType::kAtFlags && (e.arg(k).value & kAtEmptyPath)) empty_ok = true;
        if (via_dirfd && empty_ok) c_.paths.set(r, static_cast<size_t>(i), base);
        continue;
      }
      c_.paths.set(r, static_cast<size_t>(i), resolve(base, a.str));
    }
    if (e.failed() || (e.flags & trace::kEventUnfinished)) return;
    if (sem == Sem::kChdir && c_.paths[r][0] != trace::kNoStr) *proc.cwd = c_.paths[r][0];
    if (sem == Sem::kFchdir && e.nargs > 0) {
      trace::StrId p = fd_path(proc, e.arg(0));
      if (p != trace::kNoStr) *proc.cwd = p;
    }
    const FdEffects fx = fd_effects(e, sem);
    auto& fds = proc.files->fds;
    PathSlot dup_src[2];
    for (int i = 0; i < fx.ncreated; ++i) {
      if (fx.created[i].dup_of < 0) continue;
      auto it = fds.find(fx.created[i].dup_of);
      if (it != fds.end()) dup_src[i] = it->second;
    }
    for (int i = 0; i < fx.ncloses; ++i) fds.erase(fx.closes[i]);
    for (int i = 0; i < fx.ncreated; ++i) {
      const auto& cr = fx.created[i];
      PathSlot slot{trace::kNoStr, cr.cloexec};
      if (cr.dup_of >= 0) slot.path = dup_src[i].path;
      else if (fx.opens_path && i == 0) slot.path = c_.paths[r][0];
      fds[cr.fd] = slot;
    }
    if (fx.setfd >= 0) {
      auto it = fds.find(fx.setfd);
      if (it != fds.end()) it->second.cloexec = fx.setfd_cloexec;
    }
    if (fx.exec) table_.exec(e.pid);
  }

  TracedProcessTable<PathSlot>::Process& process(int32_t pid) {
    if (pid != last_pid_ || last_proc_ == nullptr) {
      last_proc_ = &table_.get(pid);
      last_pid_ = pid;
    }
    return *last_proc_;
  }

  InferContext& c_;
  CompactEvents::Reader read_;  // the event being visited
  TracedProcessTable<PathSlot> table_;
  int32_t last_pid_ = 0;
  TracedProcessTable<PathSlot>::Process* last_proc_ = nullptr;
  trace::StrId root_;
  std::unordered_map<uint64_t, trace::StrId> cache_;
};

Result<Done> run_resolve_paths(InferContext& c) {
  Resolver(c).run();
  // The process seeds (for resolve_fds) from the same walk over the trace.
  SeedCollector seeds;
  c.init = plan_initial_state(c.trace, [&seeds](const trace::Event& e) { seeds.add(e); });
  c.processes = seeds.take(c.trace.header);
  return Done{};
}

}  // namespace

Pass CreateResolvePathsPass() {
  return Pass{"resolve_paths", {"requests"}, {"paths", "initial_state", "processes"}, run_resolve_paths};
}

}  // namespace rastro::replay
