#include "replay/runtime/fd_map.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "replay/runtime/special_file.h"

namespace rastro::replay {
namespace {
constexpr uint64_t kEmpty = (static_cast<uint64_t>(FdState::kNone) << 32) | 0xffffffffu;
}

FdTable::FdTable(int direct, KernelFdTables kernel)
    : direct_n_(std::max(direct, 1)), kernel_(kernel), direct_(new std::atomic<uint64_t>[static_cast<size_t>(direct_n_)]) {
  for (int i = 0; i < direct_n_; ++i) direct_[i].store(kEmpty, std::memory_order_relaxed);
}

FdTable::~FdTable() {
  // kPerProcess: the numbers are those of a replay thread's own table, which the kernel closed
  // when its last thread exited; here they would name the destroying thread's fds.
  if (kernel_ == KernelFdTables::kPerProcess) return;
  for (int i = 0; i < direct_n_; ++i) {
    FdLookup l = unpack(direct_[i].load(std::memory_order_relaxed));
    if (l.state == FdState::kOpen) ::close(l.fd);
  }
  for (auto& [k, v] : overflow_) {
    FdLookup l = unpack(v);
    if (l.state == FdState::kOpen) ::close(l.fd);
  }
}

FdLookup FdTable::get(int traced) const {
  if (traced >= 0 && traced < direct_n_) return unpack(direct_[traced].load(std::memory_order_acquire));
  std::lock_guard lock(mu_);
  auto it = overflow_.find(traced);
  return it == overflow_.end() ? unpack(kEmpty) : unpack(it->second);
}

uint64_t FdTable::exchange(int traced, uint64_t v) {
  if (traced >= 0 && traced < direct_n_) return direct_[traced].exchange(v, std::memory_order_acq_rel);
  std::lock_guard lock(mu_);
  auto [it, inserted] = overflow_.try_emplace(traced, kEmpty);
  uint64_t old = it->second;
  it->second = v;
  return old;
}

namespace {
// Pipes and sockets reach the table without a path (pipe, socketpair, their dups and fork copies).
bool is_stream(int fd) {
  struct stat st;
  return ::fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}
}  // namespace

void FdTable::set_open(int traced, int replay_fd, bool cloexec, std::string traced_path, bool fifo) {
  FdLookup l;
  l.fd = replay_fd;
  l.state = FdState::kOpen;
  l.cloexec = cloexec;
  l.emulated = is_emulated_path(traced_path);
  l.stream = (traced_path.empty() || fifo) && is_stream(replay_fd);
  {
    std::lock_guard lock(mu_);
    paths_[traced] = std::move(traced_path);
  }
  FdLookup old = unpack(exchange(traced, pack(l)));
  if (old.state == FdState::kOpen && old.fd != replay_fd) ::close(old.fd);
}

void FdTable::set_state(int traced, FdState state) {
  FdLookup old = unpack(exchange(traced, pack(-1, state, false)));
  if (old.state == FdState::kOpen) ::close(old.fd);
}

FdLookup FdTable::take(int traced) {
  FdLookup old = unpack(exchange(traced, pack(-1, FdState::kClosed, false)));
  return old;
}

void FdTable::set_cloexec(int traced, bool cloexec) {
  FdLookup l = get(traced);
  if (l.state != FdState::kOpen) return;
  l.cloexec = cloexec;
  exchange(traced, pack(l));
}

std::string FdTable::path(int traced) const {
  std::lock_guard lock(mu_);
  auto it = paths_.find(traced);
  return it == paths_.end() ? std::string() : it->second;
}

template <class Pred>
void FdTable::close_if(Pred doomed) {
  std::vector<int> keys;
  for_each_open([&](int traced, FdLookup l) {
    if (doomed(l)) keys.push_back(traced);
  });
  for (int t : keys) {
    FdLookup l = take(t);
    if (l.state == FdState::kOpen) ::close(l.fd);
  }
}

void FdTable::close_cloexec() {
  close_if([](const FdLookup& l) { return l.cloexec; });
}

void FdTable::close_streams() {
  close_if([](const FdLookup& l) { return l.stream; });
}

std::unique_ptr<FdTable> FdTable::copy() const {
  auto out = std::make_unique<FdTable>(direct_n_, kernel_);
  for_each_slot([&](int traced, FdLookup l) {
    if (l.state != FdState::kOpen) return out->set_state(traced, l.state);
    int d = kernel_ == KernelFdTables::kPerProcess ? l.fd : fcntl(l.fd, F_DUPFD_CLOEXEC, 0);
    if (d >= 0) {
      out->set_open(traced, d, l.cloexec, path(traced), l.stream);  // (a FIFO: a stream with a path)
    } else {
      out->set_state(traced, FdState::kFailed);
    }
  });
  return out;
}

size_t FdTable::open_count() const {
  size_t n = 0;
  for_each_open([&](int, FdLookup) { ++n; });
  return n;
}

}  // namespace rastro::replay
