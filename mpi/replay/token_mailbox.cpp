#include "mpi/replay/token_mailbox.h"

#include <thread>

namespace rastro::mpi {

void TokenMailbox::send(int dest, int64_t value) {
  std::lock_guard lock(mu_);
  transport_.send(dest, kTagToken, value);
  ++sent_;
}

bool TokenMailbox::take(int source, int64_t value) {
  auto it = arrived_.find({source, value});
  if (it == arrived_.end()) return false;
  arrived_.erase(it);
  ++received_;
  return true;
}

bool TokenMailbox::wait(int source, int64_t value) {
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  for (uint32_t round = 0;; ++round) {
    {
      std::lock_guard lock(mu_);
      int src = 0;
      int64_t v = 0;
      while (transport_.poll(kTagToken, &src, &v)) arrived_.emplace(src, v);
      if (take(source, value)) return round > 0;
      if (std::chrono::steady_clock::now() >= deadline) {
        ++timed_out_;
        return true;
      }
    }
    // Tokens take microseconds between the ranks of one host: spin briefly, then give the core
    // away (ranks usually share cores with other ranks' replay threads).
    if (round < 64) std::this_thread::yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(round < 1024 ? 2 : 50));
  }
}

uint64_t TokenMailbox::sent() const {
  std::lock_guard lock(mu_);
  return sent_;
}
uint64_t TokenMailbox::received() const {
  std::lock_guard lock(mu_);
  return received_;
}
uint64_t TokenMailbox::timed_out() const {
  std::lock_guard lock(mu_);
  return timed_out_;
}

}  // namespace rastro::mpi
