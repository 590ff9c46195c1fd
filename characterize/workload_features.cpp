#include "characterize/workload_features.h"

#include <algorithm>
#include <list>
#include <map>
#include <set>
#include <unordered_map>

#include "trace/analysis/concurrency.h"
#include "trace/analysis/file_access.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::characterize {
namespace {

constexpr int kCloseNr = 3;

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
// returned 0, or when its reads reached the largest extent the trace shows for the file (a
// program that knows the size, as tar, stops there without the 0-byte read).
struct Session {
  uint32_t file = 0;
  bool zero_read = false;
  uint64_t reads = 0, writes = 0, transfers = 0, sequential = 0, read_end = 0;
};

void commit_session(ThreadFeatures& t, const Session& s, const std::vector<FileFeatures>& files) {
  uint64_t extent = files[s.file].extent;
  bool to_the_end = s.zero_read || (s.read_end > 0 && s.read_end >= extent);
  if (!to_the_end) {
    t.partial_session_transfers.push_back(static_cast<double>(s.reads + s.writes));
    return;
  }
  ++t.eof_sessions;
  t.zero_read_sessions += s.zero_read;
  t.eof_session_reads += s.reads;
  t.eof_session_transfers += s.transfers;
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

OpMix normalised(const OpMix& counts) {
  double total = 0;
  for (double c : counts) total += c;
  OpMix f{};
  if (total <= 0) return f;
  for (size_t i = 0; i < kOpCategories; ++i) f[i] = counts[i] / total;
  return f;
}

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
  for (const trace::Event& e : trace.events) {
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
  for (size_t i = 0; i < files.size(); ++i) files[i].name = log.files[i];
  struct ThreadFileState {
    std::unordered_map<uint32_t, uint64_t> end;  // file -> end of the thread's last transfer
    std::unordered_map<uint32_t, Session> open;  // file -> the session in progress
    std::set<uint32_t> files;
    ReuseStack stack;
    std::map<uint32_t, uint64_t> references;
  };
  std::map<std::pair<int32_t, int32_t>, ThreadFileState> state;
  std::vector<std::pair<ThreadFeatures*, Session>> finished;  // judged once every extent is known
  for (const trace::FileAccess& a : log.accesses) {
    auto key = std::make_pair(a.pid, a.tid);
    ThreadFeatures& t = threads[key];
    ThreadFileState& st = state[key];
    FileFeatures& f = files[a.file];
    touched[a.file].insert(key);
    st.files.insert(a.file);
    if (a.kind == trace::AccessKind::kClose) {
      auto it = st.open.find(a.file);
      if (it != st.open.end()) {
        finished.push_back({&t, it->second});
        st.open.erase(it);
      }
      continue;
    }
    // A reference is an open: re-opening a file is the reuse a synthesizer can reproduce.
    if (a.kind == trace::AccessKind::kOpen) {
      ++t.references;
      ++st.references[a.file];
      int64_t d = st.stack.reference(a.file);
      if (d >= 0) {
        ++t.rereferences;
        t.reuse_distances.push_back(static_cast<double>(d));
      }
    }
    if (a.kind == trace::AccessKind::kOpen) {
      ++f.opens;
      ++t.sessions;
      auto [it, added] = st.open.try_emplace(a.file);
      if (!added) finished.push_back({&t, it->second});
      it->second = Session{};
      it->second.file = a.file;
      st.end[a.file] = 0;
      continue;
    }
    if (a.kind != trace::AccessKind::kRead && a.kind != trace::AccessKind::kWrite) continue;
    auto session = st.open.find(a.file);
    Session* s = session == st.open.end() ? nullptr : &session->second;
    if (s && a.kind == trace::AccessKind::kRead) ++s->reads;
    if (s && a.kind == trace::AccessKind::kWrite) ++s->writes;
    if (a.bytes == 0) {  // a read at end of file
      if (s) s->zero_read = true;
      continue;
    }
    if (s && a.kind == trace::AccessKind::kRead) s->read_end = a.offset + a.bytes;
    auto prev = st.end.find(a.file);
    uint64_t expected = prev == st.end.end() ? 0 : prev->second;
    bool sequential = a.offset == expected;
    ++t.transfers;
    t.sequential += sequential;
    if (s) {
      ++s->transfers;
      s->sequential += sequential;
    }
    st.end[a.file] = a.offset + a.bytes;
    f.extent = std::max(f.extent, a.offset + a.bytes);
    if (a.kind == trace::AccessKind::kRead) {
      ++f.reads;
      f.read_bytes += a.bytes;
      t.read_bytes += a.bytes;
      t.read_sizes.push_back(static_cast<double>(a.bytes));
      t.read_requests.push_back(static_cast<double>(a.requested));
    } else {
      ++f.writes;
      f.write_bytes += a.bytes;
      t.write_bytes += a.bytes;
      t.write_sizes.push_back(static_cast<double>(a.bytes));
      t.write_requests.push_back(static_cast<double>(a.requested));
    }
  }
  for (size_t i = 0; i < files.size(); ++i) files[i].threads = touched[i].size();
  for (auto& [key, t] : threads)
    for (const auto& [file, s] : state[key].open) finished.push_back({&t, s});  // never closed
  for (const auto& [t, s] : finished) commit_session(*t, s, files);
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
