#include "trace/importers/strace/strace_import.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <ostream>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "common/at_fdcwd.h"
#include "common/error.h"
#include "trace/common/fd_table.h"
#include "trace/importers/strace/strace_args.h"
#include "trace/importers/strace/strace_parser.h"
#include "trace/importers/strace/strace_tokenizer.h"
#include "trace/io/event_spill.h"
#include "trace/syscalls/arg_format.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::trace {

namespace {

using strace::DecodedArgs;
using strace::StraceLine;
using strace::StraceLineKind;

constexpr int64_t kCloneVm = 0x100, kCloneFs = 0x200, kCloneFiles = 0x400, kCloneVfork = 0x4000,
                  kCloneThread = 0x10000;
constexpr int64_t kOCloexec = 02000000;
constexpr int kPlaceholderTid = 0;  // lines without a pid prefix, until the root task is known
// Events kept in memory before they go to the sink, or (while some wait for their thread's
// process, or with -ff) to a temporary file as one run.
constexpr size_t kFlushEvents = 1 << 16;
constexpr uint64_t kProgressLines = 1 << 16;  // lines between progress updates

std::string excerpt(std::string_view s) {
  std::string out;
  append_c_escaped(out, s.substr(0, 100));
  if (s.size() > 100) out += fmt::format("... ({} bytes)", s.size());
  return out;
}

class Importer {
 public:
  Importer(TraceSink& sink, const StraceImportOptions& o, bool buffer_all)
      : sink_(sink), opt_(o), buffer_all_(buffer_all) {}

  void feed(std::istream& in, const std::string& name, int file_tid) {
    name_ = &name;
    file_tid_ = file_tid;
    strace::StraceTokenizer tok(in);
    std::string_view line;
    uint64_t lineno = 0;
    while (tok.next(&line, &lineno)) {
      handle(line, lineno);
      if (opt_.progress && lineno % kProgressLines == 0) show_progress(tok.bytes_read());
    }
    if (tok.read_error()) throw Error(fmt::format("{}: read error after line {}", name, lineno));
    bytes_before_ += tok.bytes_read();
    // -ff: a call cannot resume in another file.
    if (file_tid_ != 0) flush_pending_at_end();
  }

  ImportReport finish() {
    flush_pending_at_end();
    flush(true);
    if (opt_.progress) opt_.progress->finish();
    report_.stats[kStat_strace_events] = report_.events;
    if (opt_.fill_header) {
      TraceHeader& h = sink_.header();
      if (h.backend.empty()) h.backend = "import-strace";
      if (opt_.clock_offset_ns == 0) h.clock = "CLOCK_REALTIME";
      h.events_captured += report_.events;
      uint64_t lost = report_.stats[kStat_strace_resumed_without_unfinished];
      h.events_lost += lost;
      if (lost) set_lost_reason(h.lost_reasons, kStat_strace_resumed_without_unfinished, lost);
      h.extra["strace_import"] = report_.stats.to_json();
    }
    return std::move(report_);
  }

 private:
  struct Pending {
    std::string name;
    std::string args;
    int64_t begin = 0;
    uint64_t lineno = 0;
  };

  void show_progress(uint64_t bytes_of_this_file) {
    const double fraction = opt_.input_bytes == 0 ? -1.0
                                                  : static_cast<double>(bytes_before_ + bytes_of_this_file) /
                                                        static_cast<double>(opt_.input_bytes);
    opt_.progress->update(report_.stats[kStat_strace_lines], fraction);
  }

  void problem(StatId id, uint64_t lineno, std::string_view what, std::string_view line) {
    ++report_.stats[id];
    ++report_.problems_total;
    if (report_.problems.size() < opt_.max_reported_problems)
      report_.problems.push_back(fmt::format("{}:{}: {}: {}", *name_, lineno, what, excerpt(line)));
  }

  int task_of(const StraceLine& l) {
    if (file_tid_ != 0) return file_tid_;
    if (!l.has_tid) {
      if (opt_.default_tid != 0) return opt_.default_tid;
      if (root_tid_ > 0) return root_tid_;
      saw_unprefixed_ = true;
      return kPlaceholderTid;
    }
    if (!any_task_) {
      any_task_ = true;
      if (!saw_unprefixed_) mark_resolved(l.tid);  // the first task of a -f -o log is the root
    }
    if (saw_unprefixed_ && root_tid_ <= 0 && !children_.count(l.tid)) adopt_root(l.tid);
    return l.tid;
  }

  // Lines without a prefix came from the first task; now we know its id.
  void adopt_root(int tid) {
    root_tid_ = tid;
    if (auto it = pending_.find(kPlaceholderTid); it != pending_.end()) {
      pending_[tid] = std::move(it->second);
      pending_.erase(it);
    }
    fds_.rename_task(kPlaceholderTid, tid);
    for (auto& [child, leader] : tgid_)
      if (leader == kPlaceholderTid) leader = tid;
    mark_resolved(tid);
    mark_resolved(kPlaceholderTid);
  }

  void mark_resolved(int tid) {
    if (!resolved_.insert(tid).second) return;
    if (auto it = unresolved_counts_.find(tid); it != unresolved_counts_.end()) {
      unresolved_events_ -= it->second;
      unresolved_counts_.erase(it);
    }
  }

  int real_tid(int tid) const { return tid == kPlaceholderTid && root_tid_ > 0 ? root_tid_ : tid; }
  int tgid_of(int tid) const {
    auto it = tgid_.find(tid);
    return it == tgid_.end() ? tid : it->second;
  }

  void handle(std::string_view line, uint64_t lineno) {
    ++report_.stats[kStat_strace_lines];
    StraceLine l = strace::ParseStraceLine(line);
    switch (l.kind) {
      case StraceLineKind::kBlank:
        ++report_.stats[kStat_strace_blank_lines];
        return;
      case StraceLineKind::kSignal:
        ++report_.stats[kStat_strace_signal_lines];
        return;
      case StraceLineKind::kExit:
        ++report_.stats[kStat_strace_exit_lines];
        return;
      case StraceLineKind::kStraceMessage:
        ++report_.stats[kStat_strace_message_lines];
        if (l.message_pid > 0) children_.insert(l.message_pid);
        return;
      case StraceLineKind::kNotStrace:
        problem(kStat_strace_malformed_lines, lineno, l.problem, line);
        return;
      case StraceLineKind::kUnsupported:
        problem(kStat_strace_unsupported_lines, lineno, l.problem, line);
        return;
      default:
        break;
    }
    int tid = task_of(l);
    switch (l.kind) {
      case StraceLineKind::kUnfinished: {
        if (auto it = pending_.find(tid); it != pending_.end()) emit_unfinished(tid, it->second);
        Pending& p = pending_[tid];
        p.name.assign(l.name);
        p.args.assign(l.args);
        p.begin = l.time_ns;
        p.lineno = lineno;
        return;
      }
      case StraceLineKind::kResumedUnfinished: {
        auto it = pending_.find(tid);
        if (it == pending_.end() || it->second.name != l.name)
          problem(kStat_strace_resumed_without_unfinished, lineno, "resumed call without its <unfinished ...> line", line);
        return;  // still pending
      }
      case StraceLineKind::kResumed: {
        auto it = pending_.find(tid);
        if (it == pending_.end() || it->second.name != l.name) {
          problem(kStat_strace_resumed_without_unfinished, lineno, "resumed call without its <unfinished ...> line", line);
          return;
        }
        Pending p = std::move(it->second);
        pending_.erase(it);
        // strace stops printing the unfinished part after the last complete argument and its
        // ", ", so the two texts join directly.
        p.args.append(l.args);
        ++report_.stats[kStat_strace_unfinished_merged];
        int64_t end = l.has_duration ? p.begin + l.duration_ns : l.time_ns;
        if (!l.has_duration && l.ret != "?") ++report_.stats[kStat_strace_missing_duration];
        complete(tid, p.name, p.args, l.ret, p.begin, end, lineno, false);
        return;
      }
      case StraceLineKind::kComplete: {
        int64_t end = l.time_ns + (l.has_duration ? l.duration_ns : 0);
        if (!l.has_duration && l.ret != "?") ++report_.stats[kStat_strace_missing_duration];
        complete(tid, l.name, l.args, l.ret, l.time_ns, end, lineno, false);
        return;
      }
      default:
        return;
    }
  }

  void emit_unfinished(int tid, const Pending& p) {
    ++report_.stats[kStat_strace_unfinished_at_end];
    complete(tid, p.name, p.args, {}, p.begin, p.begin, p.lineno, true);
  }

  void flush_pending_at_end() {
    std::vector<std::pair<int, Pending>> rest(pending_.begin(), pending_.end());
    pending_.clear();
    std::sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return a.second.lineno < b.second.lineno; });
    for (auto& [tid, p] : rest) emit_unfinished(tid, p);
  }

  void complete(int tid, std::string_view name, std::string_view args, std::string_view ret, int64_t begin,
                int64_t end, uint64_t lineno, bool unfinished) {
    StringTable& strings = sink_.strings();
    Event e;
    e.tid = tid;
    e.begin_ns = begin + opt_.clock_offset_ns;
    e.end_ns = end + opt_.clock_offset_ns;
    const SyscallInfo* info = syscall_by_name(name);
    if (info) {
      e.nr = info->nr;
    } else {
      e.nr = -1;
      e.name = strings.intern(name);
      ++report_.stats[kStat_strace_unknown_syscalls];
    }
    DecodedArgs d;
    strace::DecodeStraceArgs(info, args, e, strings, d);
    if (d.bad) problem(kStat_strace_bad_args, lineno, fmt::format("{} argument(s) of {} not understood", d.bad, name), args);
    report_.stats[kStat_strace_symbolic_int_args] += static_cast<uint64_t>(d.symbolic);
    // Return value.
    std::string ret_note;
    bool has_ret_note = false;
    if (unfinished) {
      e.flags |= kEventUnfinished;
    } else if (ret == "?") {
      ++report_.stats[kStat_strace_no_return];
      bool no_return = info && info->ret == ReturnKind::kNoReturn;
      if (!no_return) e.flags |= kEventUnfinished;  // the task died inside the call
    } else {
      auto rv = parse_rvalue(ret);
      if (!rv.ok()) {
        problem(kStat_strace_bad_args, lineno, rv.error(), ret);
      } else {
        e.rvalue = *rv;
        if (!ret.starts_with("-1 ") && ret.find('<') != std::string_view::npos) {
          int64_t v = 0;
          strace::DecodeAnnotatedInt(ret.substr(0, ret.find(" (") == std::string_view::npos ? ret.size() : ret.find(" (")),
                                     &v, &ret_note, &has_ret_note);
        }
      }
    }
    fd_paths(tid, e);
    if (!(e.flags & kEventUnfinished) && !e.failed()) update_tasks(tid, e, d, has_ret_note ? &ret_note : nullptr);
    append(e);
  }

  // -y annotations teach the fd table; missing ones are filled from it.
  void fd_paths(int tid, Event& e) {
    StringTable& strings = sink_.strings();
    for (int i = 0; i < e.nargs; ++i) {
      Arg& a = e.args[static_cast<size_t>(i)];
      if (a.type != ArgType::kFd && a.type != ArgType::kDirFd) continue;
      int fd = static_cast<int>(a.value);
      if (a.str != kNoStr) {
        std::string_view p = strings.get(a.str);
        if (fd == kAtFdCwd)
          fds_.set_cwd(tid, p);
        else
          fds_.set(tid, fd, p);
        continue;
      }
      const std::string* p = fd == kAtFdCwd ? fds_.cwd(tid) : fds_.path(tid, fd);
      if (p && !p->empty()) a.str = strings.intern(*p);
    }
  }

  std::string_view path_arg(const Event& e, int i) const {
    return i < e.nargs ? sink_.strings().get(e.args[static_cast<size_t>(i)].str) : std::string_view();
  }

  void update_tasks(int tid, const Event& e, const DecodedArgs& d, const std::string* ret_note) {
    const SyscallInfo* info = syscall_by_nr(e.nr);
    if (!info) return;
    int rv = static_cast<int>(e.rvalue);
    auto arg = [&](int i) { return static_cast<int>(e.args[static_cast<size_t>(i)].value); };
    const int flags_arg = info->arg_of(ArgType::kOpenFlags);
    if (info->ret == ReturnKind::kFd) {
      if (info->fd == FdEffect::kDuplicates || info->fd == FdEffect::kDuplicatesOnto || info->fd == FdEffect::kByCommand) {
        bool cloexec = info->fd == FdEffect::kDuplicatesOnto && flags_arg >= 0 && (e.args[static_cast<size_t>(flags_arg)].value & kOCloexec);
        if (info->fd == FdEffect::kByCommand) {
          int64_t cmd = e.args[1].value;
          if (!is_dup_fd_command(cmd)) return;  // only F_DUPFD / F_DUPFD_CLOEXEC return an fd
          cloexec = cmd == 1030;
        }
        fds_.dup(tid, arg(0), rv, cloexec);
      } else if (info->path == PathEffect::kOpens || info->path == PathEffect::kCreatesFile) {
        const int p = info->path_arg(0);
        const int dirfd = info->dirfd_of(p);
        // creat's flags are implied; openat2 keeps them in a struct the trace does not record.
        int64_t flags = flags_arg >= 0 ? e.args[static_cast<size_t>(flags_arg)].value : 0;
        std::string path = fds_.resolve(tid, dirfd >= 0 ? arg(dirfd) : kAtFdCwd, path_arg(e, p));
        fds_.set(tid, rv, path, flags & kOCloexec);
      } else {
        fds_.close(tid, rv);  // socket/accept: no path unless -y tells
      }
      if (ret_note) fds_.set(tid, rv, *ret_note);
      return;
    }
    if (info->fd == FdEffect::kReleases) {
      fds_.close(tid, arg(0));
    } else if (info->fd == FdEffect::kCreatesPair) {
      for (size_t k = 0; k < 2; ++k) {
        if (d.pair_fds[k] < 0) continue;
        if (!d.pair_paths[k].empty())
          fds_.set(tid, d.pair_fds[k], d.pair_paths[k]);
        else
          fds_.close(tid, d.pair_fds[k]);
      }
    } else if (info->proc == ProcEffect::kChdir) {
      fds_.set_cwd(tid, fds_.resolve(tid, kAtFdCwd, path_arg(e, 0)));
    } else if (info->proc == ProcEffect::kFchdir) {
      if (const std::string* p = fds_.path(tid, arg(0))) fds_.set_cwd(tid, std::string(*p));
    } else if (info->proc == ProcEffect::kExec) {
      fds_.on_exec(tid);
    } else if (info->creates_process() && rv > 0) {
      int64_t flags = info->proc == ProcEffect::kVfork ? (kCloneVm | kCloneVfork) : d.has_clone_flags ? d.clone_flags : 0;
      fds_.on_clone(tid, rv, flags & kCloneFiles, flags & kCloneFs);
      if (flags & kCloneThread) tgid_[rv] = tgid_of(tid);
      children_.insert(rv);
      mark_resolved(rv);
    }
  }

  void append(const Event& e) {
    ++report_.events;
    buffer_.push_back(e);
    if (!resolved_.count(e.tid)) {
      ++unresolved_counts_[e.tid];
      ++unresolved_events_;
    }
    if (buffer_all_) {
      // -ff: the events are put in completion order at the end; park them as sorted runs.
      if (buffer_.size() >= kFlushEvents) park(/*sorted=*/true);
      return;
    }
    if (buffer_.size() + parked_.events() < kFlushEvents) return;
    if (unresolved_events_ == 0)
      flush(false);
    else if (buffer_.size() >= kFlushEvents)
      park(/*sorted=*/false);  // still waiting for a thread's process: wait on disk
  }

  void park(bool sorted) {
    if (sorted) std::stable_sort(buffer_.begin(), buffer_.end(), by_end);
    parked_.add_run(buffer_);
    buffer_.clear();
  }

  static bool by_end(const Event& a, const Event& b) { return a.end_ns < b.end_ns; }

  // Threads' process ids are final when events leave: fix them up on the way out.
  void emit(Event e) {
    int leader = tgid_of(e.tid);
    e.tid = real_tid(e.tid);
    e.pid = real_tid(leader);
    sink_.append(e);
  }

  void flush(bool at_end) {
    if (at_end && root_tid_ <= 0 && unresolved_counts_.count(kPlaceholderTid))
      report_.stats[kStat_strace_missing_pid] += unresolved_counts_[kPlaceholderTid];
    if (at_end && buffer_all_) {
      // -ff: files were read one after the other; restore the global completion order.
      emit_by_end();
    } else {
      std::span<const Event> view;
      for (size_t run = 0; run < parked_.runs(); ++run)
        while (parked_.next(run, &view))
          for (const Event& e : view) emit(e);
      for (const Event& e : buffer_) emit(e);
    }
    buffer_.clear();
    parked_.clear();
    unresolved_counts_.clear();
    unresolved_events_ = 0;
  }

  // What std::stable_sort by end would give over everything appended: sorted runs merged, ties
  // to the earlier run (the earlier input) and, within a run, kept in order.
  void emit_by_end() {
    std::stable_sort(buffer_.begin(), buffer_.end(), by_end);
    if (parked_.runs() == 0) {
      for (const Event& e : buffer_) emit(e);
      return;
    }
    if (!buffer_.empty()) park(/*sorted=*/false);
    struct Head {
      std::span<const Event> view;
      size_t pos = 0;
    };
    std::vector<Head> heads(parked_.runs());
    std::vector<std::pair<int64_t, size_t>> heap;  // (end of the run's next event, run), smallest first
    for (size_t run = 0; run < heads.size(); ++run)
      if (parked_.next(run, &heads[run].view)) heap.emplace_back(heads[run].view[0].end_ns, run);
    std::make_heap(heap.begin(), heap.end(), std::greater<>());
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), std::greater<>());
      const size_t run = heap.back().second;
      heap.pop_back();
      Head& h = heads[run];
      emit(h.view[h.pos++]);
      if (h.pos == h.view.size()) {
        h.pos = 0;
        if (!parked_.next(run, &h.view)) continue;
      }
      heap.emplace_back(h.view[h.pos].end_ns, run);
      std::push_heap(heap.begin(), heap.end(), std::greater<>());
    }
  }

  TraceSink& sink_;
  StraceImportOptions opt_;
  bool buffer_all_;
  const std::string* name_ = nullptr;
  int file_tid_ = 0;
  ImportReport report_;
  std::unordered_map<int, Pending> pending_;
  std::vector<Event> buffer_;
  EventSpill parked_;  // events before buffer_'s, waiting on disk
  uint64_t bytes_before_ = 0;  // of the -ff files already read
  std::unordered_map<int, int> tgid_;  // thread -> thread-group leader
  std::unordered_set<int> children_;   // tasks we saw being created
  std::unordered_set<int> resolved_;   // tasks whose thread group is known
  std::unordered_map<int, uint64_t> unresolved_counts_;
  uint64_t unresolved_events_ = 0;
  bool any_task_ = false;
  bool saw_unprefixed_ = false;
  int root_tid_ = 0;
  FdTable fds_;
};

}  // namespace

void ImportReport::print(std::ostream& out) const {
  stats.print(out);
  for (const auto& p : problems) out << p << '\n';
  if (problems_total > problems.size())
    out << fmt::format("... and {} more problem line(s) not shown\n", problems_total - problems.size());
}

ImportReport import_strace(std::istream& in, const std::string& name_for_errors, TraceSink& sink,
                           const StraceImportOptions& options) {
  Importer imp(sink, options, false);
  imp.feed(in, name_for_errors, 0);
  return imp.finish();
}

std::vector<std::string> find_strace_ff_files(const std::string& prefix) {
  namespace fs = std::filesystem;
  std::vector<std::pair<long, std::string>> found;
  fs::path p(prefix);
  fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::string base = p.filename().string() + ".";
  std::error_code ec;
  for (const auto& ent : fs::directory_iterator(dir, ec)) {
    std::string fn = ent.path().filename().string();
    if (!fn.starts_with(base)) continue;
    std::string_view suffix = std::string_view(fn).substr(base.size());
    long pid = 0;
    auto [ptr, err] = std::from_chars(suffix.data(), suffix.data() + suffix.size(), pid);
    if (err != std::errc() || ptr != suffix.data() + suffix.size() || pid <= 0) continue;
    found.emplace_back(pid, (dir / fn).string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

ImportReport import_strace_ff(const std::vector<std::string>& paths, TraceSink& sink,
                              const StraceImportOptions& options) {
  Importer imp(sink, options, true);
  for (const auto& path : paths) {
    size_t dot = path.rfind('.');
    long pid = 0;
    std::string_view suffix = dot == std::string::npos ? std::string_view() : std::string_view(path).substr(dot + 1);
    auto [ptr, err] = std::from_chars(suffix.data(), suffix.data() + suffix.size(), pid);
    if (suffix.empty() || err != std::errc() || ptr != suffix.data() + suffix.size() || pid <= 0 || pid > 0x7fffffff)
      throw Error(fmt::format("{}: an strace -ff file name must end in .<pid>", path));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
    imp.feed(in, path, static_cast<int>(pid));
  }
  return imp.finish();
}

}  // namespace rastro::trace
