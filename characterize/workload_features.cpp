#include "characterize/workload_features.h"

#include <fcntl.h>

#include <algorithm>
#include <list>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "trace/analysis/concurrency.h"
#include "trace/analysis/file_access.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::characterize {
namespace {

constexpr int kCloseNr = 3, kCreatNr = 85;

// LRU stack of file ids: the distance of a re-reference is the number of distinct files
// referenced since the previous reference to the same file.
class ReuseStack {
 public:
  // Returns -1 for a first reference.
  int64_t reference(uint32_t file) {
    int64_t depth = 0;
    for (auto it = stack_.begin(); it != stack_.end(); ++it, ++depth) {
      if (*it == file) {
        stack_.erase(it);
        stack_.push_front(file);
        return depth;
      }
    }
    stack_.push_front(file);
    return -1;
  }

 private:
  std::list<uint32_t> stack_;
};

// An open -> close session of one thread on one file. It read the file to its end when a read
// returned 0, or when its reads reached the largest extent the trace shows for what the path held
// then (a program that knows the size, as tar, stops there without the 0-byte read).
struct OpenCloseSession {
  uint32_t file = 0;
  uint32_t incarnation = 0;  // of the file, when it was opened
  SessionKind kind = SessionKind::kPlain;
  bool zero_read = false;
  uint64_t reads = 0, writes = 0, transfers = 0, sequential = 0, read_end = 0;
  uint64_t largest_request = 0;  // of its reads
  // For a file made in the trace (created, truncated, renamed onto), its size when the session
  // last read it: the session read to the end when it reached that, whatever came later.
  bool made_in_trace = false;
  uint64_t size_at_read = 0;
  uint64_t bytes_written = 0;
};

// Create and append sessions are kept apart (their writes make the file).
void commit_session(ThreadFeatures& t, const OpenCloseSession& s, const std::vector<uint64_t>& incarnation_extent) {
  if (s.kind != SessionKind::kPlain) {
    bool create = s.kind == SessionKind::kCreate;
    ++(create ? t.create_sessions : t.append_sessions);
    (create ? t.create_session_writes : t.append_session_writes).push_back(static_cast<double>(s.writes));
    t.kind_session_transfers += s.transfers;
    t.kind_session_sequential += s.sequential;
    return;
  }
  uint64_t extent = s.made_in_trace ? s.size_at_read : incarnation_extent[s.incarnation];
  bool to_the_end = s.zero_read || (s.read_end > 0 && s.read_end >= extent);
  if (!to_the_end) {
    t.partial_session_transfers.push_back(static_cast<double>(s.reads + s.writes));
    return;
  }
  const bool whole = s.reads == 1 && s.largest_request >= extent;
  t.whole_read_sessions += whole;
  if (whole) t.whole_reads.emplace_back(s.file, extent);
  ++t.eof_sessions;
  t.zero_read_sessions += s.zero_read;
  t.eof_session_reads += s.reads;
  if (!whole) t.eof_session_read_counts.push_back(static_cast<double>(s.reads));  // a whole read is one
  t.eof_session_transfers += s.transfers;
  t.eof_session_later_transfers += s.transfers > 0 ? s.transfers - 1 : 0;
  t.eof_session_sequential += s.sequential;
}

}  // namespace

OpCategory op_category(const trace::SyscallInfo& s) {
  using namespace trace;
  bool reads = s.classes & kClassRead, writes = s.classes & kClassWrite;
  if (s.ret == ReturnKind::kCount && reads && !writes) return OpCategory::kRead;
  if (s.ret == ReturnKind::kCount && writes && !reads) return OpCategory::kWrite;
  if (s.ret == ReturnKind::kFd && std::find(s.args.begin(), s.args.end(), ArgType::kPath) != s.args.end())
    return OpCategory::kOpen;
  if (s.nr == kCloseNr) return OpCategory::kClose;
  if (s.classes & kClassSync) return OpCategory::kSync;
  if (s.classes & kClassMeta) return OpCategory::kMeta;
  if (s.classes & kClassNamespace) return OpCategory::kNamespace;
  return OpCategory::kOther;
}

std::string_view op_category_name(OpCategory c) {
  static constexpr std::array<std::string_view, kOpCategories> names = {
      "read", "write", "open", "close", "meta", "sync", "namespace", "other"};
  return names[static_cast<size_t>(c)];
}

std::string_view namespace_op_name(NamespaceOp op) {
  static constexpr std::array<std::string_view, kNamespaceOps> names = {"unlink", "rename",  "mkdir", "rmdir",
                                                                        "link",   "symlink", "mknod"};
  return names[static_cast<size_t>(op)];
}

NamespaceOp namespace_op(const trace::SyscallInfo& s, const trace::Event& e) {
  using trace::PathEffect;
  switch (s.path) {
    case PathEffect::kRenames: return NamespaceOp::kRename;
    case PathEffect::kCreatesDir: return NamespaceOp::kMkdir;
    case PathEffect::kRemovesDir: return NamespaceOp::kRmdir;
    case PathEffect::kLinks: return NamespaceOp::kLink;
    case PathEffect::kCreatesSymlink: return NamespaceOp::kSymlink;
    case PathEffect::kCreatesNode: return NamespaceOp::kMknod;
    default: break;
  }
  int flags = s.arg_of(trace::ArgType::kAtFlags);
  if (flags >= 0 && (e.arg(flags).value & AT_REMOVEDIR)) return NamespaceOp::kRmdir;
  return NamespaceOp::kUnlink;
}

OpMix normalised(const OpMix& counts) {
  double total = 0;
  for (double c : counts) total += c;
  OpMix f{};
  if (total <= 0) return f;
  for (size_t i = 0; i < kOpCategories; ++i) f[i] = counts[i] / total;
  return f;
}

namespace {

// A name-space change that ends (or moves) what a path held: unlink, rmdir, rename.
struct NameChange {
  size_t event = 0;
  std::string from, to;  // to: rename only
};

// The path a path argument names, made absolute with the directory the trace recorded for its
// dirfd when it has one (as trace/analysis/file_access.cpp names opened files).
std::string named_path(const trace::Trace& trace, const trace::Event& e, const trace::SyscallInfo& s, int n) {
  int pi = s.path_arg(n);
  if (pi < 0) return {};
  std::string name(trace.str(e.arg(pi).str));
  int di = s.dirfd_of(pi);
  if (!name.empty() && name.front() != '/' && di >= 0 && e.arg(di).str != trace::kNoStr)
    name = fmt::format("{}/{}", trace.str(e.arg(di).str), name);
  return name;
}

bool creates(const trace::Event& e) {
  if (e.nr == kCreatNr) return true;
  for (int i = 0; i < e.nargs; ++i)
    if (e.arg(i).type == trace::ArgType::kOpenFlags) return e.arg(i).value & (O_CREAT | O_TRUNC);
  return false;
}

bool appends(const trace::Event& e) {
  for (int i = 0; i < e.nargs; ++i)
    if (e.arg(i).type == trace::ArgType::kOpenFlags) return e.arg(i).value & O_APPEND;
  return false;
}

}  // namespace

WorkloadFeatures measure_features(const trace::Trace& trace) {
  WorkloadFeatures w;
  if (trace.events.empty()) return w;
  int64_t origin = trace.events.front().begin_ns, end = trace.events.front().end_ns;
  for (const trace::Event& e : trace.events) {
    origin = std::min(origin, e.begin_ns);
    end = std::max(end, e.end_ns);
  }
  w.span_ns = end - origin;

  std::map<std::pair<int32_t, int32_t>, ThreadFeatures> threads;
  struct Last {
    int64_t begin = 0, end = 0;
    bool seen = false;
  };
  std::map<std::pair<int32_t, int32_t>, Last> last;
  std::vector<NameChange> name_changes;  // trace order
  for (size_t i = 0; i < trace.events.size(); ++i) {
    const trace::Event& e = trace.events[i];
    const trace::SyscallInfo* s = trace::syscall_by_nr(e.nr);
    if (s && (s->classes & trace::kClassProcess)) continue;
    OpCategory c = s ? op_category(*s) : OpCategory::kOther;
    auto key = std::make_pair(e.pid, e.tid);
    ThreadFeatures& t = threads[key];
    t.pid = e.pid;
    t.tid = e.tid;
    ++t.calls;
    t.counts[static_cast<size_t>(c)] += 1;
    w.counts[static_cast<size_t>(c)] += 1;
    bool unfinished = e.flags & trace::kEventUnfinished;
    if (c == OpCategory::kNamespace) {
      NamespaceOp op = namespace_op(*s, e);
      t.namespace_counts[static_cast<size_t>(op)] += 1;
      t.namespace_failed += e.failed();
      bool ends_a_name = op == NamespaceOp::kUnlink || op == NamespaceOp::kRmdir || op == NamespaceOp::kRename;
      if (ends_a_name && !e.failed() && !unfinished)
        name_changes.push_back({i, named_path(trace, e, *s, 0), op == NamespaceOp::kRename ? named_path(trace, e, *s, 1) : ""});
    }
    if (!unfinished) t.duration_ns.push_back(static_cast<double>(std::max<int64_t>(0, e.end_ns - e.begin_ns)));
    Last& l = last[key];
    if (!l.seen) {
      t.first_ns = e.begin_ns - origin;
    } else {
      t.interarrival_ns.push_back(static_cast<double>(std::max<int64_t>(0, e.begin_ns - l.begin)));
      t.think_ns.push_back(static_cast<double>(std::max<int64_t>(0, e.begin_ns - l.end)));
    }
    l = {e.begin_ns, unfinished ? e.begin_ns : e.end_ns, true};
    t.last_ns = std::max(t.last_ns, l.end - origin);
  }

  trace::FileAccessLog log = trace::file_accesses(trace);
  w.unnamed_fds = log.unnamed_fds;
  std::vector<FileFeatures> files(log.files.size());
  std::vector<std::set<std::pair<int32_t, int32_t>>> touched(log.files.size());
  std::unordered_map<std::string_view, uint32_t> file_ids;
  for (size_t i = 0; i < files.size(); ++i) {
    files[i].name = log.files[i];
    file_ids.emplace(log.files[i], static_cast<uint32_t>(i));
  }
  // Incarnations: what a path holds from its creation (or truncation) to its removal. The file
  // size the trace shows is the largest extent one incarnation reached.
  std::vector<uint64_t> incarnation_extent;
  std::vector<uint32_t> incarnation_file;
  std::vector<bool> incarnation_moved_data, incarnation_made;  // made: in the trace, from empty
  // What an incarnation held before its first append, when the trace shows it (it was made in
  // the trace, or data moved before): the size appends grow a file from.
  std::vector<uint64_t> incarnation_base;
  std::vector<bool> incarnation_appended, incarnation_base_known;
  std::vector<uint32_t> incarnation_of(files.size());
  auto new_incarnation = [&](uint32_t file) {
    incarnation_of[file] = static_cast<uint32_t>(incarnation_extent.size());
    incarnation_extent.push_back(0);
    incarnation_file.push_back(file);
    incarnation_moved_data.push_back(false);
    incarnation_made.push_back(true);
    incarnation_base.push_back(0);
    incarnation_appended.push_back(false);
    incarnation_base_known.push_back(false);
  };
  for (uint32_t f = 0; f < files.size(); ++f) {
    new_incarnation(f);
    incarnation_made.back() = false;  // what the path held before the trace: its size is unknown
  }
  auto id_of = [&](const std::string& name) -> const uint32_t* {
    auto it = file_ids.find(name);
    return it == file_ids.end() ? nullptr : &it->second;
  };
  size_t next_change = 0;
  auto apply_name_changes_before = [&](size_t event) {
    for (; next_change < name_changes.size() && name_changes[next_change].event < event; ++next_change) {
      const NameChange& n = name_changes[next_change];
      const uint32_t* from = id_of(n.from);
      const uint32_t* to = n.to.empty() ? nullptr : id_of(n.to);
      if (to && from) incarnation_of[*to] = incarnation_of[*from];  // made or not, as the source
      if (to && !from) {
        new_incarnation(*to);
        incarnation_made.back() = false;  // holds what an unseen file held
      }
      if (from) new_incarnation(*from);
    }
  };
  struct ThreadFileState {
    std::unordered_map<uint32_t, uint64_t> end;  // file -> end of the thread's last transfer
    std::unordered_map<uint32_t, OpenCloseSession> open;  // file -> the session in progress
    std::set<uint32_t> files;
    ReuseStack stack;
    std::map<uint32_t, uint64_t> references;
  };
  std::map<std::pair<int32_t, int32_t>, ThreadFileState> state;
  std::vector<std::pair<ThreadFeatures*, OpenCloseSession>> finished;  // judged once every extent is known
  // Bytes the last closed create session of each file wrote: a re-creation writing as many again
  // (a file that keeps its size, as Filebench's fileset entries do) is counted.
  std::unordered_map<uint32_t, uint64_t> created_bytes;
  auto created = [&](ThreadFeatures& t, const OpenCloseSession& s) {
    if (s.kind != SessionKind::kCreate) return;
    auto [it, first] = created_bytes.try_emplace(s.file, s.bytes_written);
    if (first) return;
    ++t.recreations;
    t.same_size_recreations += it->second == s.bytes_written;
    it->second = s.bytes_written;
  };
  for (const trace::FileAccess& a : log.accesses) {
    apply_name_changes_before(a.event);
    auto key = std::make_pair(a.pid, a.tid);
    ThreadFeatures& t = threads[key];
    ThreadFileState& st = state[key];
    FileFeatures& f = files[a.file];
    touched[a.file].insert(key);
    st.files.insert(a.file);
    if (a.kind == trace::AccessKind::kClose) {
      auto it = st.open.find(a.file);
      if (it != st.open.end()) {
        created(t, it->second);
        finished.push_back({&t, it->second});
        st.open.erase(it);
      }
      continue;
    }
    // A reference is an open: re-opening a file is the reuse a synthesizer can reproduce.
    if (a.kind == trace::AccessKind::kOpen) {
      ++t.references;
      uint32_t distinct_before = static_cast<uint32_t>(st.references.size());
      ++st.references[a.file];
      int64_t d = st.stack.reference(a.file);
      t.open_novelty.push_back({distinct_before, d < 0});
      if (d >= 0) {
        ++t.rereferences;
        t.reuse_distances.push_back(static_cast<double>(d));
      }
      const trace::Event& e = trace.events[a.event];
      bool create = creates(e);
      if (create) new_incarnation(a.file);
      ++f.opens;
      ++t.sessions;
      auto [it, added] = st.open.try_emplace(a.file);
      if (!added) finished.push_back({&t, it->second});
      it->second = OpenCloseSession{};
      it->second.file = a.file;
      it->second.incarnation = incarnation_of[a.file];
      it->second.made_in_trace = incarnation_made[incarnation_of[a.file]];
      it->second.kind = appends(e) ? SessionKind::kAppend : create ? SessionKind::kCreate : SessionKind::kPlain;
      st.end[a.file] = 0;
      continue;
    }
    if (a.kind != trace::AccessKind::kRead && a.kind != trace::AccessKind::kWrite) continue;
    auto session = st.open.find(a.file);
    OpenCloseSession* s = session == st.open.end() ? nullptr : &session->second;
    if (s && a.kind == trace::AccessKind::kRead) {
      ++s->reads;
      s->largest_request = std::max(s->largest_request, a.requested);
    }
    if (s && a.kind == trace::AccessKind::kWrite) ++s->writes;
    if (a.bytes == 0) {  // a read at end of file
      if (s) s->zero_read = true;
      continue;
    }
    const uint32_t inc = incarnation_of[a.file];
    uint64_t& live = incarnation_extent[inc];
    // An O_APPEND write lands at the end of what the path holds now (the access log puts it at
    // the largest extent the path ever had, across truncations and removals).
    const bool append = s && s->kind == SessionKind::kAppend && a.kind == trace::AccessKind::kWrite;
    if (append && !incarnation_appended[inc]) {
      incarnation_appended[inc] = true;
      incarnation_base[inc] = live;
      incarnation_base_known[inc] = incarnation_made[inc] || incarnation_moved_data[inc];
    }
    incarnation_moved_data[inc] = true;
    uint64_t offset = append ? live : a.offset;
    if (s && a.kind == trace::AccessKind::kRead) {
      s->read_end = offset + a.bytes;
      s->size_at_read = live;
    }
    auto prev = st.end.find(a.file);
    uint64_t expected = prev == st.end.end() ? 0 : prev->second;
    bool sequential = offset == expected;
    ++t.transfers;
    t.sequential += sequential;
    if (s) {
      ++s->transfers;
      s->sequential += sequential;
    }
    st.end[a.file] = offset + a.bytes;
    live = std::max(live, offset + a.bytes);
    f.extent = std::max(f.extent, live);
    if (a.kind == trace::AccessKind::kRead) {
      ++f.reads;
      f.read_bytes += a.bytes;
      t.read_bytes += a.bytes;
      t.read_sizes.push_back(static_cast<double>(a.bytes));
      t.read_requests.push_back(static_cast<double>(a.requested));
    } else {
      ++f.writes;
      f.write_bytes += a.bytes;
      if (s) s->bytes_written += a.bytes;
      t.write_bytes += a.bytes;
      t.write_sizes.push_back(static_cast<double>(a.bytes));
      t.write_requests.push_back(static_cast<double>(a.requested));
      SessionKind kind = s ? s->kind : SessionKind::kPlain;
      (kind == SessionKind::kCreate   ? t.create_write_requests
       : kind == SessionKind::kAppend ? t.append_write_requests
                                      : t.plain_write_requests)
          .push_back(static_cast<double>(a.requested));
    }
  }
  for (size_t i = 0; i < files.size(); ++i) files[i].threads = touched[i].size();
  for (size_t i = 0; i < incarnation_extent.size(); ++i)
    if (incarnation_moved_data[i]) {
      FileFeatures& f = files[incarnation_file[i]];
      f.incarnation_extents.push_back(incarnation_extent[i]);
      if (!incarnation_appended[i]) f.incarnation_bases.push_back(incarnation_extent[i]);
      else if (incarnation_base_known[i]) f.incarnation_bases.push_back(incarnation_base[i]);
    }
  for (auto& [key, t] : threads)
    for (const auto& [file, s] : state[key].open) finished.push_back({&t, s});  // never closed
  for (const auto& [t, s] : finished) commit_session(*t, s, incarnation_extent);
  w.files = std::move(files);
  for (auto& [key, t] : threads) {
    t.distinct_files = state[key].files.size();
    t.file_references.assign(state[key].references.begin(), state[key].references.end());
    w.threads.push_back(std::move(t));
  }
  auto levels = trace::concurrency_levels(trace);
  if (!levels.empty()) {
    double sum = 0;
    for (uint32_t l : levels) sum += l;
    w.mean_concurrency = sum / static_cast<double>(levels.size());
  }
  return w;
}

}  // namespace rastro::characterize
