// Lets several generators of synthetic threads take turns in trace-time order, one at a time:
// a generator arrives with the time of its next call and waits until no other active generator
// has an earlier one (ties: the lower id). Threads of a class that share files are generated
// this way, so each read's result is computed from the file sizes every earlier call (of any
// thread) left — what a replay ordered by the trace then reproduces.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

namespace rastro::characterize {

class TurnScheduler {
 public:
  // Participants 0..n-1 with the times of their first calls; all are active.
  explicit TurnScheduler(std::vector<int64_t> first_times);
  // Blocks until participant `id`, next at `time`, has the turn.
  void arrive(size_t id, int64_t time);
  // `id` has no more calls; the others may go on.
  void leave(size_t id);

 private:
  bool has_turn(size_t id) const;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<int64_t> next_;
  std::vector<bool> active_;
};

}  // namespace rastro::characterize
