#include "replay/passes/infer_order.h"

#include <sys/syscall.h>

#include <algorithm>
#include <deque>
#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "replay/passes/address_spaces.h"
#include "replay/passes/syscall_semantics.h"
#include "trace/syscalls/fcntl_lock.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::replay {

namespace {

// The users of one resource (fd lifetime, open file description, file, path incarnation).
struct Users {
  std::vector<std::pair<uint32_t, uint32_t>> by_thread;  // (thread, its last user)
  uint32_t done = kNoIndex;           // the user with the latest end among those known completed
  uint32_t done_but_lock_waits = kNoIndex;  // the same, lock waits left out (Inferrer::lock_waits_)
  std::vector<uint32_t> inflight;  // users not yet known to have completed

  void reset() {
    by_thread.clear();
    inflight.clear();
    done = done_but_lock_waits = kNoIndex;
  }
};

struct PathState {
  bool live = false;
  uint32_t creator = kNoIndex;  // call that made it exist (kNoIndex: it existed before the trace)
  uint32_t remover = kNoIndex;  // call that last removed it
  uint32_t file = kNoIndex;
  Users users;
};

// Collects one request's dependencies, dropping what thread order implies. Per other thread only
// the latest dependency is kept; `slot_` maps a thread to its candidate, so each want() is O(1).
class DepCollector {
 public:
  explicit DepCollector(const ThreadColumn& thread, size_t threads)
      : thread_(thread), slot_(threads, kNoIndex) {}

  void start(uint32_t r) {
    r_ = r;
    cand_.clear();
  }
  void want(uint32_t d, EdgeKind k) {
    if (d == kNoIndex || d >= r_) return;
    const uint32_t t = thread_[d];
    if (t == thread_[r_]) return;  // implied by thread order
    uint32_t& s = slot_[t];
    if (s == kNoIndex) {
      s = static_cast<uint32_t>(cand_.size());
      cand_.push_back(Dep{d, k});
    } else if (d > cand_[s].request) {
      cand_[s] = Dep{d, k};  // the later one implies the earlier via thread order
    }
  }
  // (Program order is no stored edge: replay/plan/thread_order.h.)
  void finish(std::vector<Dep>& out) {
    for (const Dep& c : cand_) slot_[thread_[c.request]] = kNoIndex;
    if (cand_.size() > 1)
      std::sort(cand_.begin(), cand_.end(), [](const Dep& a, const Dep& b) { return a.request < b.request; });
    out.insert(out.end(), cand_.begin(), cand_.end());
  }

 private:
  const ThreadColumn& thread_;
  std::vector<uint32_t> slot_;
  uint32_t r_ = 0;
  std::vector<Dep> cand_;
};

class Inferrer {
 public:
  explicit Inferrer(InferContext& c) : c_(c), read_(c.trace.events), deps_(c.thread, c.threads.size()) {}

  void run() {
    const auto n = static_cast<uint32_t>(c_.order.size());
    c_.deps.clear();
    // Untouched reserved pages cost nothing; growing a vector of millions copies it.
    const size_t per = c_.options.ordering == Ordering::kTemporal ? std::min<size_t>(c_.threads.size(), 8) + 1 : 3;
    c_.deps.reserve(static_cast<size_t>(n) * per);
    c_.deps_at = CsrOffsets{};
    c_.deps_at.reserve(n);
    if (c_.options.ordering == Ordering::kFs) {
      entry_users_.resize(c_.fd_entries.size());
      ofd_users_.resize(c_.ofds.size());
      ofd_file_.assign(c_.ofds.size(), kNoIndex);
    }
    for (uint32_t r = 0; r < n; ++r) {
      c_.deps_at.push_back(static_cast<uint32_t>(c_.deps.size()));
      deps_.start(r);
      if (c_.options.ordering == Ordering::kFs && c_.constrained(r)) fs_rules(r);
      if (c_.options.ordering == Ordering::kFs && c_.saw_absent(r)) absent_rule(r);
      if (c_.options.ordering == Ordering::kFs && c_.fd_refs_at.begin(r) != c_.fd_refs_at.end(r) &&
          semantics(c_.nr[r]) == Sem::kClone)
        fork_rule(r);
      if (c_.options.ordering == Ordering::kFs && c_.status[r] == 0 && semantics(c_.nr[r]) == Sem::kExec)
        spaces_.exec(c_.pid_of(r));
      if (c_.options.ordering == Ordering::kTemporal) temporal_rule(r);
      deps_.finish(c_.deps);
    }
    c_.deps_at.finish(static_cast<uint32_t>(c_.deps.size()));
  }

 private:
  // ---- temporal -------------------------------------------------------------------------
  // Requests are visited in begin order, so "i completed before r began" is end[i] <= begin[r]
  // for i < r (ties broken by request index, which keeps zero-length calls acyclic).
  void temporal_rule(uint32_t r) {
    // A page fault is no call: it keeps its place in its thread and takes no part in the order
    // between threads, neither waiting nor waited for. Ordered like calls, the faults of processes
    // starting side by side (a pipeline's, a build's: most of their events) made every fault a
    // hand-off between replay threads, and the tar pipeline's replays 13-54 % late.
    if (c_.nr[r] == -1 && (c_.trace.events.fields(c_.order[r]).flags & trace::kEventPageFault)) return;
    while (!running_.empty() && running_.top().first <= c_.times.begin(r)) {
      const uint32_t k = running_.top().second;
      running_.pop();
      // k joins the completed set; calls that ended before k began are now implied through k.
      if (max_begin_ == kNoIndex || c_.times.begin(k) > c_.times.begin(max_begin_) ||
          (c_.times.begin(k) == c_.times.begin(max_begin_) && k > max_begin_))
        max_begin_ = k;
      frontier_.push_back(k);
      while (!frontier_.empty() && ends_before_begin(frontier_.front(), max_begin_)) frontier_.pop_front();
    }
    const bool release = note_lock_call(r);
    const uint32_t stream = stream_of(r);
    for (uint32_t d : frontier_) {
      if (release && lock_waits_.count(d)) continue;
      if (stream != kNoIndex && stream_of(d) == stream) continue;
      deps_.want(d, EdgeKind::kTemporal);
    }
    if (c_.times.end(r) != std::numeric_limits<int64_t>::max()) running_.emplace(c_.times.end(r), r);
  }
  // The two ends of one pipe or socket pair are ordered by the stream, not by their stamps: a read
  // waits for its bytes and a write for room (stream_io.h). By the stamps they may be ordered the
  // wrong way round: strace under load stamped gzip's read from tar's pipe ending 4.6 µs before
  // the write that filled it began, so the write waited for the read that waited for its bytes,
  // and the replay stalled for the stream wait (1 s) and failed the read with EAGAIN
  // (pipe_replay_test.cpp). So no call on a stream waits in the temporal order for another
  // thread's call on the same stream. (The calls that only such a call implied, by ending before
  // it began, are then not waited for either.) The fs order has no edge between a pipe's ends.
  uint32_t stream_of(uint32_t r) const {
    for (uint32_t k = c_.fd_refs_at.begin(r), end = c_.fd_refs_at.end(r); k < end; ++k) {
      const FdRef f = c_.fd_refs[k];
      if (f.role != FdRole::kUse) continue;
      const uint32_t ofd = c_.fd_entries[f.entry].ofd;
      if (ofd == kNoIndex) continue;
      const uint32_t creator = c_.ofds[ofd].creator;
      if (creator == kNoIndex) continue;
      const int32_t nr = c_.nr[creator];
      if (nr == SYS_pipe || nr == SYS_pipe2 || nr == SYS_socketpair) return creator;
    }
    return kNoIndex;
  }

  // end key (end, i) < begin key (begin, m)
  bool ends_before_begin(uint32_t i, uint32_t m) const {
    return c_.times.end(i) < c_.times.begin(m) || (c_.times.end(i) == c_.times.begin(m) && i < m);
  }

  // ---- fs ------------------------------------------------------------------------------
  void fs_rules(uint32_t r) {
    const Sem sem = semantics(c_.nr[r]);
    touched_.clear();
    const PathColumn::Paths p = c_.paths[r];
    if (p[0] != trace::kNoStr || p[1] != trace::kNoStr) {
      const trace::Event& e = read_(c_.order[r]);  // (the path roles need the arguments)
      if (sem == Sem::kRename && p[0] != trace::kNoStr && p[1] != trace::kNoStr &&
          path_role(e, sem, 0) == PathRole::kRenameFrom) {
        rename(r, p[0], p[1]);
      } else {
        for (int s = 0; s < 2; ++s) {
          if (p[static_cast<size_t>(s)] == trace::kNoStr) continue;
          const trace::StrId link_src = (sem == Sem::kLink && s == 1) ? p[0] : trace::kNoStr;
          path_rule(r, p[static_cast<size_t>(s)], path_role(e, sem, s), link_src);
        }
        if (p[0] != trace::kNoStr && p[1] != trace::kNoStr && path_role(e, sem, 0) == PathRole::kExchange)
          std::swap(path(p[0], true).file, path(p[1], true).file);
      }
    }

    const FdRef* refs = c_.fd_refs.data() + c_.fd_refs_at.begin(r);
    const FdRef* refs_end = c_.fd_refs.data() + c_.fd_refs_at.end(r);
    // close waits for every other user of the fd lifetime in its own process; they all waited
    // for its creator, which is registered as its first user. A forked process's copy of the fd
    // is its own: its close does not wait for the parent's users (a parent blocked reading a
    // pipe until the child's exec closes the write end would wait for the child that waits
    // for it).
    for (const FdRef* f = refs; f != refs_end; ++f) {
      if (f->role != FdRole::kClose) continue;
      const uint32_t en = f->entry;
      const Users& u = entry_users_[en];
      const uint32_t creator = c_.fd_entries[en].creator;
      bool waited = false;
      for (const auto& tu : u.by_thread) {
        if (c_.threads[tu.first].pid != c_.pid_of(r) || tu.second == creator) continue;
        deps_.want(tu.second, EdgeKind::kFdStage);
        waited = true;
      }
      if (!waited) deps_.want(creator, EdgeKind::kFdStage);
    }
    const trace::SyscallInfo* si = trace::syscall_by_nr(c_.nr[r]);
    const bool lists_dir = si != nullptr && si->path == trace::PathEffect::kListsDir;
    for (const FdRef* f = refs; f != refs_end; ++f) {
      if (f->role != FdRole::kUse) continue;
      const uint32_t en = f->entry;
      const FdEntry& fe = c_.fd_entries[en];
      const uint32_t d = last_completed(ofd_users_[fe.ofd], r);
      // A later user of the same fd lifetime waited for the creator already.
      const bool implied = d != kNoIndex && d != fe.creator && uses_entry(d, en);
      if (!implied) deps_.want(fe.creator, EdgeKind::kFdStage);
      deps_.want(d, EdgeKind::kFdSeq);
      touch(ofd_file(fe.ofd));
      if (lists_dir) listing_rule(r, ofd_file(fe.ofd));
    }
    const bool release = note_lock_call(r);
    for (uint32_t file : touched_) deps_.want(last_completed(file_users_[file], r, release), EdgeKind::kFile);

    // r is now a user of everything it touched.
    const uint32_t t = c_.thread[r];
    for (const FdRef* f = refs; f != refs_end; ++f) {
      if (f->role != FdRole::kUse) continue;
      add_user(entry_users_[f->entry], r, t, false);
      add_user(ofd_users_[c_.fd_entries[f->entry].ofd], r, t);
    }
    for (const FdRef* f = refs; f != refs_end; ++f) {
      if (f->role != FdRole::kCreate) continue;
      const FdEntry& fe = c_.fd_entries[f->entry];
      add_user(entry_users_[f->entry], r, t, false);
      if (c_.ofds[fe.ofd].creator == r) {
        add_user(ofd_users_[fe.ofd], r, t);
        // The file is fixed when the fd is opened: later renames/unlinks do not change it.
        if (c_.ofds[fe.ofd].path != trace::kNoStr) {
          ofd_file_[fe.ofd] = path(c_.ofds[fe.ofd].path, true).file;
          touch(ofd_file_[fe.ofd]);
        }
      }
    }
    for (uint32_t file : touched_) add_user(file_users_[file], r, t);

    if (AddressSpaces::concerns(c_.nr[r])) spaces_.visit(read_(c_.order[r]), r, t, want_mapping_);
  }

  // A fork copies the parent's fd table as it is when the clone runs: it waits for the creators
  // of the entries it copies, and becomes their user so that a close in the parent waits for it.
  void fork_rule(uint32_t r) {
    const uint32_t t = c_.thread[r];
    for (uint32_t k = c_.fd_refs_at.begin(r), end = c_.fd_refs_at.end(r); k < end; ++k) {
      const FdRef f = c_.fd_refs[k];
      if (f.role != FdRole::kInherit) continue;
      deps_.want(c_.fd_entries[f.entry].creator, EdgeKind::kFdStage);
      add_user(entry_users_[f.entry], r, t, false);
    }
  }

  // A lock wait (F_SETLKW, flock without LOCK_NB) ends when another process releases the lock, yet
  // a tracer can stamp its end a few µs before that release began (strace under load takes its
  // timestamps when it gets round to each stop). Ordered by those stamps, the release would wait
  // for the lock wait that waits for it: the replayed wait gives up after kLockWaitLimit (a
  // mismatch) and only then lets the holder go on. So no release (F_UNLCK, LOCK_UN) of another
  // thread waits for a lock wait; everything else still does (an attempt that found the lock held
  // comes after the acquire), and the lock itself orders the replayed waiter after the release.
  // Records r in lock_waits_ when it is a lock wait; returns whether it releases a lock.
  bool note_lock_call(uint32_t r) {
    const int32_t nr = c_.nr[r];
    if (nr != SYS_fcntl && nr != SYS_flock) return false;
    const trace::Event& e = read_(c_.order[r]);
    if (trace::may_wait_for_lock_release(e)) lock_waits_.insert(r);
    return trace::releases_lock(e);
  }

  bool uses_entry(uint32_t q, uint32_t en) const {
    for (uint32_t k = c_.fd_refs_at.begin(q), end = c_.fd_refs_at.end(q); k < end; ++k)
      if (c_.fd_refs[k].entry == en && c_.fd_refs[k].role == FdRole::kUse) return true;
    return false;
  }

  uint32_t ofd_file(uint32_t ofd) {
    if (ofd_file_[ofd] == kNoIndex && c_.ofds[ofd].creator == kNoIndex && c_.ofds[ofd].path != trace::kNoStr)
      ofd_file_[ofd] = path(c_.ofds[ofd].path, true).file;  // inherited fd with a recorded path
    return ofd_file_[ofd];
  }

  void touch(uint32_t file) {
    if (file == kNoIndex) return;
    if (std::find(touched_.begin(), touched_.end(), file) == touched_.end()) touched_.push_back(file);
  }

  uint32_t new_file() {
    file_users_.emplace_back();
    return static_cast<uint32_t>(file_users_.size() - 1);
  }

  // `completion`: whether last_completed() is ever asked of `u` (not of an fd lifetime's users:
  // only their last user per thread is read, by the close rule).
  static void add_user(Users& u, uint32_t r, uint32_t t, bool completion = true) {
    if (completion) u.inflight.push_back(r);
    for (auto& tu : u.by_thread)
      if (tu.first == t) {
        tu.second = r;
        return;
      }
    u.by_thread.emplace_back(t, r);
  }

  // The user of `u` with the latest completion among those completed before r began (lock waits
  // left out when r is a lock release).
  uint32_t last_completed(Users& u, uint32_t r, bool release = false) {
    size_t keep = 0;
    for (uint32_t i : u.inflight) {
      if (c_.times.end(i) <= c_.times.begin(r)) {
        if (ends_later(i, u.done)) u.done = i;
        if (ends_later(i, u.done_but_lock_waits) && (lock_waits_.empty() || !lock_waits_.count(i)))
          u.done_but_lock_waits = i;
      } else {
        u.inflight[keep++] = i;
      }
    }
    u.inflight.resize(keep);
    return release ? u.done_but_lock_waits : u.done;
  }
  bool ends_later(uint32_t i, uint32_t than) const {
    return than == kNoIndex || c_.times.end(i) > c_.times.end(than) || (c_.times.end(i) == c_.times.end(than) && i > than);
  }

  void wait_all_users(const Users& u, EdgeKind k) {
    for (const auto& tu : u.by_thread) deps_.want(tu.second, k);
  }

  // The state of a path, made on first sight: existing before the trace (`exists`) or absent.
  PathState& path(trace::StrId p, bool exists) {
    auto [it, fresh] = paths_.try_emplace(p);
    if (fresh) {
      it->second.live = exists;
      if (exists) {
        it->second.creator = ancestor_creator(c_.trace.str(p));
        it->second.file = new_file();
      }
    }
    return it->second;
  }

  // The state of the nearest ancestor directory of `s` the trace has shown so far (nullptr: none).
  const PathState* known_ancestor(std::string_view s) const {
    while (s.size() > 1) {
      auto slash = s.rfind('/');
      s = s.substr(0, slash == 0 ? 1 : slash);
      trace::StrId id;
      if (!c_.trace.strings.find(s, &id)) continue;
      auto it = paths_.find(id);
      if (it != paths_.end()) return &it->second;
    }
    return nullptr;
  }

  // The call that made the nearest known ancestor directory exist ("the path exists" needs its
  // directories to exist).
  uint32_t ancestor_creator(std::string_view s) const {
    const PathState* a = known_ancestor(s);
    return a == nullptr ? kNoIndex : a->live ? a->creator : a->remover;
  }

  // Creating or removing an entry modifies (uses) the parent directory. A new entry also needs
  // the parent to exist; a removed one existed, so its creator (or the ancestor's creator it
  // inherited) is already waited for.
  void use_parent(uint32_t r, trace::StrId p, bool creates) {
    std::string_view s = c_.trace.str(p);
    if (s.size() <= 1) return;
    auto slash = s.rfind('/');
    std::string_view parent = s.substr(0, slash == 0 ? 1 : slash);
    trace::StrId id = c_.trace.strings.intern(parent);
    PathState& ps = path(id, true);
    if (creates) deps_.want(ps.live ? ps.creator : ps.remover, EdgeKind::kPath);
    add_user(ps.users, r, c_.thread[r]);
    if (ps.file != kNoIndex) {
      Listing& l = listings_[ps.file];
      deps_.want(last_completed(l.listers, r), EdgeKind::kPath);
      add_user(l.changers, r, c_.thread[r]);
    }
  }

  // A call that failed with ENOENT saw its path absent (git's pack-refs unlinks a loose ref, and
  // the next git process's lstat of it fails; with no edge between them, a replay ran the lstat
  // first and found the ref). It waits for the call that removed the path, or the nearest known
  // directory above it, and a later call that makes the path waits for it. (Only the paths it
  // names: the call takes no part in the order of files and fds, as no failed call does.)
  void absent_rule(uint32_t r) {
    const PathColumn::Paths p = c_.paths[r];
    for (trace::StrId id : p) {
      if (id == trace::kNoStr) continue;
      auto it = paths_.find(id);
      const PathState* gone = it != paths_.end() ? &it->second : known_ancestor(c_.trace.str(id));
      if (gone != nullptr && !gone->live) deps_.want(gone->remover, EdgeKind::kPath);
      add_user(seen_absent_[id], r, c_.thread[r]);
    }
  }

  // A call making path `p` comes after the calls that saw it absent before it began.
  void after_absent_sightings(uint32_t r, trace::StrId p) {
    auto it = seen_absent_.find(p);
    if (it != seen_absent_.end()) deps_.want(last_completed(it->second, r), EdgeKind::kPath);
  }

  // A directory listing (getdents64 on the directory's fd) shows the entries made and removed
  // before it, and not those after it: it waits for the last change of the directory's entries
  // that completed before it began, and such a change for the last listing (a shell's glob after
  // a child process made a file there: no fd or path ties the two calls together).
  void listing_rule(uint32_t r, uint32_t dir_file) {
    if (dir_file == kNoIndex) return;
    Listing& l = listings_[dir_file];
    deps_.want(last_completed(l.changers, r), EdgeKind::kPath);
    add_user(l.listers, r, c_.thread[r]);
  }

  void create(uint32_t r, PathState& ps, uint32_t file) {
    ps.live = true;
    ps.creator = r;
    ps.remover = kNoIndex;
    ps.file = file;
    ps.users.reset();
    add_user(ps.users, r, c_.thread[r]);
    touch(file);
  }

  void remove(uint32_t r, PathState& ps) {
    deps_.want(ps.live ? ps.creator : ps.remover, EdgeKind::kPath);
    wait_all_users(ps.users, EdgeKind::kPath);
    touch(ps.file);
    ps.live = false;
    ps.remover = r;
    ps.users.reset();
  }

  void path_rule(uint32_t r, trace::StrId p, PathRole role, trace::StrId link_src) {
    switch (role) {
      case PathRole::kNoRole:
        return;
      case PathRole::kUse:
      case PathRole::kExchange:
      case PathRole::kRenameFrom:  // (a rename without its target: its source is just used)
      case PathRole::kRenameTo: {
        PathState& ps = path(p, true);
        if (ps.live) {
          deps_.want(ps.creator, EdgeKind::kPath);
        } else {  // the trace says it exists: a creation was not captured
          deps_.want(ps.remover, EdgeKind::kPath);
          ps.live = true;
          ps.creator = kNoIndex;
          ps.file = new_file();
        }
        touch(ps.file);
        add_user(ps.users, r, c_.thread[r]);
        return;
      }
      case PathRole::kCreateMaybe: {
        auto it = paths_.find(p);
        if (it != paths_.end() && it->second.live) return path_rule(r, p, PathRole::kUse, link_src);
        [[fallthrough]];
      }
      case PathRole::kCreate: {
        PathState& ps = path(p, false);
        if (ps.live) wait_all_users(ps.users, EdgeKind::kPath);  // a removal was not captured
        else deps_.want(ps.remover, EdgeKind::kPath);
        after_absent_sightings(r, p);
        use_parent(r, p, true);
        uint32_t file = kNoIndex;
        if (link_src != trace::kNoStr) file = path(link_src, true).file;
        PathState& ps2 = path(p, false);  // (use_parent may have rehashed the map)
        create(r, ps2, file == kNoIndex ? new_file() : file);
        return;
      }
      case PathRole::kRemove: {
        use_parent(r, p, false);
        remove(r, path(p, true));
        return;
      }
    }
  }

  void rename(uint32_t r, trace::StrId from, trace::StrId to) {
    use_parent(r, from, false);
    use_parent(r, to, true);
    PathState& src = path(from, true);
    const uint32_t file = src.file;
    remove(r, src);
    PathState& dst = path(to, false);
    if (dst.live) remove(r, dst);  // replaced
    else deps_.want(dst.remover, EdgeKind::kPath);
    after_absent_sightings(r, to);
    create(r, path(to, false), file);

    // Renaming a directory renames every path below it.
    const std::string prefix = std::string(c_.trace.str(from)) + "/";
    std::vector<std::pair<trace::StrId, uint32_t>> moved;
    for (auto& [id, ps] : paths_) {
      if (!ps.live || id == to) continue;
      std::string_view s = c_.trace.str(id);
      if (s.size() > prefix.size() && s.compare(0, prefix.size(), prefix) == 0) moved.emplace_back(id, ps.file);
    }
    const std::string to_str(c_.trace.str(to));
    for (const auto& [id, f] : moved) {
      remove(r, paths_[id]);
      const std::string below = to_str + std::string(c_.trace.str(id).substr(prefix.size() - 1));
      PathState& q = path(c_.trace.strings.intern(below), false);
      if (q.live) remove(r, q);
      create(r, path(c_.trace.strings.intern(below), false), f);
    }
  }

  InferContext& c_;
  CompactEvents::Reader read_;  // the request in fs_rules
  DepCollector deps_;
  // temporal
  std::priority_queue<std::pair<int64_t, uint32_t>, std::vector<std::pair<int64_t, uint32_t>>, std::greater<>> running_;
  std::deque<uint32_t> frontier_;
  uint32_t max_begin_ = kNoIndex;
  // fs
  std::vector<Users> entry_users_, ofd_users_, file_users_;
  std::unordered_set<uint32_t> lock_waits_;  // requests that may have waited for a lock's release
  std::vector<uint32_t> ofd_file_;
  std::unordered_map<trace::StrId, PathState> paths_;
  struct Listing {
    Users listers, changers;  // of one directory (a file): its listings, the calls that add or remove its entries
  };
  std::unordered_map<uint32_t, Listing> listings_;  // by the directory's file
  std::unordered_map<trace::StrId, Users> seen_absent_;  // by path: the calls that found it absent
  std::vector<uint32_t> touched_;
  AddressSpaces spaces_;
  const AddressSpaces::Want want_mapping_ = [this](uint32_t d) { deps_.want(d, EdgeKind::kMapping); };
};

Result<Done> run_infer_order(InferContext& c) {
  Inferrer(c).run();
  return Done{};
}

}  // namespace

Pass CreateInferOrderPass() {
  return Pass{"infer_order", {"requests", "paths", "fds"}, {"deps"}, run_infer_order};
}

}  // namespace rastro::replay
