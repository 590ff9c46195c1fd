// Traced fds -> replay fds, for one traced process (one fd table). The key is the traced fd number,
// or — when the engines pass fd keys from plan_fd_keys() — one key per traced fd *lifetime*, so a
// number the trace reused (thread A closes 3, thread B opens a new 3) never confuses two lifetimes
// that the replay runs in a different order.
//
// Lookups are on the hot path of every read/write and happen concurrently from the replay threads
// of one traced process, so the common range (traced fds below kDirect) is an array of atomic
// slots: a lookup is one relaxed load. Bigger traced fds and the per-fd traced path (needed by
// fchdir and dirfd-relative *at calls) live behind a mutex; they are off the hot path.
//
// The replay plan orders every use of an fd after the call that created it (fs ordering), and the
// completion flag publishes the slot, so relaxed slot accesses are enough within a dependency chain.
//
// Each slot also says what kind of replay fd it holds, so the executor needs no second lookup:
// `emulated` (a stand-in for a special file or socket, special_file.h: decided from the traced
// path) and `stream` (a pipe or socket pair the replayer created: reads and writes on it wait,
// bounded, for their traced byte counts, stream_io.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace rastro::replay {

enum class FdState : uint8_t {
  kNone = 0,  // never created in this replay: a use is "use before open"
  kOpen,      // mapped to a replay fd
  kClosed,    // closed: a use is "use after close"
  kFailed,    // the call that created it succeeded in the trace but failed in the replay
  kRefused,   // its path was refused by the sandbox (device, /proc, corrupt path)
};

struct FdLookup {
  int fd = -1;  // replay fd when state == kOpen
  FdState state = FdState::kNone;
  bool cloexec = false;
  bool emulated = false;  // a stand-in: calls on it return the traced values (emulated_call.h)
  bool stream = false;    // a replayer pipe or socket pair (stream_io.h)
};

// Where the replay fds of the traced processes live in the kernel. The engines use kPerProcess
// (replay/engines/replay_threads.h).
enum class KernelFdTables : uint8_t {
  // One table, the caller's, for every traced process (the runtime driven from one thread: its
  // tests, tools): a traced fork's copy is made of duplicates, and a table closes its replay fds
  // when it is destroyed.
  kShared,
  // One per traced process, each its replay threads' own (unshare(CLONE_FILES) at the traced
  // fork): a fork's copy keeps the parent's numbers, which the kernel copied into the child's
  // table, and the kernel closes a process's fds when its last replay thread exits. The table
  // is then only read and written by that process's replay threads.
  kPerProcess,
};

class FdTable {
 public:
  static constexpr int kDirect = 4096;

  // `direct`: how many keys get lock-free slots (engines size it to the plan's fd-lifetime count).
  explicit FdTable(int direct = kDirect, KernelFdTables kernel = KernelFdTables::kShared);
  ~FdTable();  // kShared: closes every replay fd still open
  FdTable(const FdTable&) = delete;
  FdTable& operator=(const FdTable&) = delete;

  FdLookup get(int traced) const;
  // Maps `traced` to `replay_fd` (taking ownership); an fd previously mapped there is closed,
  // as dup2 onto an open fd does. The slot is `emulated` when `traced_path` is an emulated path
  // (special_file.h), a `stream` when the path is unknown ("") and the fd is a pipe or socket.
  // `fifo`: the path is a named FIFO the sandbox opened (SandboxResolver::open), also a stream.
  void set_open(int traced, int replay_fd, bool cloexec, std::string traced_path, bool fifo = false);
  // Records that `traced` could not be created (kFailed / kRefused); closes a previous mapping.
  void set_state(int traced, FdState state);
  // Unmaps `traced` (close): returns what it was; the caller closes the replay fd it gets back.
  FdLookup take(int traced);
  void set_cloexec(int traced, bool cloexec);
  // The traced absolute path `traced` was opened with ("" when unknown).
  std::string path(int traced) const;
  // execve: closes every close-on-exec fd.
  void close_cloexec();
  // exit_group: closes every stream fd (pipe, socket pair), so a reader sees end-of-file and a
  // writer EPIPE once the last traced holder is gone, as the kernel did at the traced exit.
  void close_streams();
  // fork without CLONE_FILES: a copy whose replay fds are duplicates (kShared) or the same
  // numbers, in the child's kernel table (kPerProcess).
  std::unique_ptr<FdTable> copy() const;
  // kPerProcess, after a copy(): replaces each open slot's replay fd with `to(fd)` (the same
  // open file in another kernel table; -1: the slot becomes kFailed), closing nothing.
  template <class To>
  void renumber(To to) {
    for_each_open([&](int traced, FdLookup l) {
      l.fd = to(l.fd);
      if (l.fd < 0) l.state = FdState::kFailed;
      exchange(traced, pack(l));
    });
  }
  // Number of fds currently mapped (tests, leak checks).
  size_t open_count() const;

 private:
  static uint64_t pack(const FdLookup& l) {
    return static_cast<uint32_t>(l.fd) | (static_cast<uint64_t>(l.state) << 32) | (uint64_t{l.cloexec} << 40) |
           (uint64_t{l.emulated} << 41) | (uint64_t{l.stream} << 42);
  }
  static uint64_t pack(int fd, FdState s, bool cloexec) {
    FdLookup l;
    l.fd = fd;
    l.state = s;
    l.cloexec = cloexec;
    return pack(l);
  }
  static FdLookup unpack(uint64_t v) {
    return {static_cast<int32_t>(static_cast<uint32_t>(v)), static_cast<FdState>((v >> 32) & 0xff),
            ((v >> 40) & 1) != 0, ((v >> 41) & 1) != 0, ((v >> 42) & 1) != 0};
  }
  // f(traced, lookup) for every slot that is not kNone (direct ones, then the others, these from
  // a snapshot taken under the lock, so f may call back into the table).
  template <class F>
  void for_each_slot(F f) const {
    for (int i = 0; i < direct_n_; ++i) {
      FdLookup l = get(i);
      if (l.state != FdState::kNone) f(i, l);
    }
    std::vector<std::pair<int, uint64_t>> big;
    {
      std::lock_guard lock(mu_);
      big.assign(overflow_.begin(), overflow_.end());
    }
    for (auto& [k, v] : big)
      if (unpack(v).state != FdState::kNone) f(k, unpack(v));
  }
  // f(traced, lookup) for every open slot.
  template <class F>
  void for_each_open(F f) const {
    for_each_slot([&](int traced, FdLookup l) {
      if (l.state == FdState::kOpen) f(traced, l);
    });
  }
  // Closes (and marks closed) every open slot for which `doomed` is true.
  template <class Pred>
  void close_if(Pred doomed);
  uint64_t exchange(int traced, uint64_t v);

  int direct_n_;
  KernelFdTables kernel_;
  std::unique_ptr<std::atomic<uint64_t>[]> direct_;
  mutable std::mutex mu_;
  std::unordered_map<int, uint64_t> overflow_;     // traced fds >= kDirect (or negative)
  std::unordered_map<int, std::string> paths_;
};

}  // namespace rastro::replay
