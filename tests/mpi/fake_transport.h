// An in-memory TokenTransport for the replay's unit tests: what was "sent to" this rank is what
// the test queues, and what it sends is recorded.
#pragma once

#include <deque>
#include <tuple>
#include <vector>

#include "mpi/replay/token_transport.h"

namespace rastro::mpi::testing {

class FakeTransport final : public TokenTransport {
 public:
  FakeTransport(int rank, int size) : rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void send(int dest, int tag, int64_t value) override { sent.emplace_back(dest, tag, value); }
  bool poll(int tag, int* source, int64_t* value) override {
    if (inbox.empty() || tag != kTagToken) return false;
    *source = inbox.front().first;
    *value = inbox.front().second;
    inbox.pop_front();
    return true;
  }
  int64_t recv(int source, int tag) override {
    received_from.emplace_back(source, tag);
    return reply;
  }
  void barrier() override {}

  std::deque<std::pair<int, int64_t>> inbox;       // (source, value) of tokens to deliver
  std::vector<std::tuple<int, int, int64_t>> sent;  // (dest, tag, value)
  std::vector<std::pair<int, int>> received_from;   // (source, tag) of blocking receives
  int64_t reply = 0;                                // what every blocking receive returns

 private:
  int rank_, size_;
};

}  // namespace rastro::mpi::testing
