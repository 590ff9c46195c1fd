#include "trace/analysis/replay_pairing.h"

#include <algorithm>
#include <deque>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "trace/model/trace.h"

namespace rastro::trace {
namespace {

struct Numbered {
  uint64_t index;  // position in its file, for messages
  Event event;
};

// A thread's calls read on one side and not yet paired with the other's.
struct ThreadQueue {
  std::deque<Numbered> side[2];  // kOriginal, kReplayed
};

enum Side { kOriginal = 0, kReplayed = 1 };

uint64_t thread_key(const Event& e) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(e.pid)) << 32) | static_cast<uint32_t>(e.tid);
}

// Why `r` is not the replay of `o`; empty when it is.
std::string difference(const Event& o, const StringTable& os, const Event& r, const StringTable& rs) {
  if (o.nr != r.nr || function_name(o, os) != function_name(r, rs)) return "another call";
  if (o.nargs != r.nargs) return fmt::format("{} arguments instead of {}", r.nargs, o.nargs);
  for (int i = 0; i < o.nargs; ++i) {
    const Arg &a = o.arg(i), &b = r.arg(i);
    if (a.type != b.type || a.value != b.value || os.get(a.str) != rs.get(b.str))
      return fmt::format("argument {} differs", i + 1);
  }
  if (r.expected_rvalue != o.rvalue)
    return fmt::format("its traced result is {}, the original's {}", r.expected_rvalue, o.rvalue);
  return {};
}

class Pairing {
 public:
  Pairing(PairingSide original, PairingSide replayed, const PairFn& fn) : fn_(fn) {
    sides_[kOriginal] = std::move(original);
    sides_[kReplayed] = std::move(replayed);
  }

  uint64_t run() {
    std::vector<Event> block;
    bool done[2] = {false, false};
    while (!done[kOriginal] || !done[kReplayed]) {
      const Side s = !done[kOriginal] && (done[kReplayed] || pending_[kOriginal] <= pending_[kReplayed]) ? kOriginal
                                                                                                          : kReplayed;
      block.clear();
      const uint64_t first = reader(s).events_read();
      if (!reader(s).next_block(&block)) {
        done[s] = true;
        continue;
      }
      for (size_t i = 0; i < block.size(); ++i) take(s, {first + i, block[i]});
      check_some_pair_made();
    }
    check_nothing_left();
    return pairs_;
  }

 private:
  TraceReader& reader(Side s) const { return *sides_[s].reader; }
  const std::string& path(Side s) const { return sides_[s].path; }

  void take(Side s, Numbered n) {
    if (s == kOriginal && n.index == 0) original_is_replay_ = n.event.flags & kEventReplayed;
    if (s == kReplayed && !(n.event.flags & kEventReplayed))
      throw Error(fmt::format(
          "{}: event {} ({}) has no replayed flag: not the output of `rastro replay` or a compiled replayer{}",
          path(kReplayed), n.index, function_name(n.event, reader(kReplayed).strings()),
          original_is_replay_ ? fmt::format(" ({} is one: are the arguments swapped? rastro compare ORIGINAL REPLAYED)",
                                            path(kOriginal))
                              : std::string()));
    ThreadQueue& q = threads_[thread_key(n.event)];
    const Side other = s == kOriginal ? kReplayed : kOriginal;
    auto& waiting = q.side[other];
    const size_t window = std::min(waiting.size(), kPairingWindow);
    for (size_t k = 0; k < window; ++k) {
      const Numbered& w = waiting[k];
      const Numbered& o = s == kOriginal ? n : w;
      const Numbered& r = s == kOriginal ? w : n;
      if (!difference(o.event, reader(kOriginal).strings(), r.event, reader(kReplayed).strings()).empty()) continue;
      fn_(o.event, reader(kOriginal).strings(), r.event);
      ++pairs_;
      waiting.erase(waiting.begin() + static_cast<std::ptrdiff_t>(k));
      --pending_[other];
      return;
    }
    q.side[s].push_back(std::move(n));
    ++pending_[s];
    // Both sides hold calls of this thread that pair with nothing near them: not the same calls.
    if (!waiting.empty() && q.side[s].size() > kPairingWindow) refuse(q);
  }

  [[noreturn]] void refuse(const ThreadQueue& q) const {
    const Numbered &o = q.side[kOriginal].front(), &r = q.side[kReplayed].front();
    const StringTable &os = reader(kOriginal).strings(), &rs = reader(kReplayed).strings();
    throw Error(fmt::format("{}: event {} (pid {} tid {}, {}) is not the replay of {} event {} ({}), that thread's "
                            "next call: {}. The replayed trace is not a replay of this original",
                            path(kReplayed), r.index, r.event.pid, r.event.tid, function_name(r.event, rs),
                            path(kOriginal), o.index, function_name(o.event, os),
                            difference(o.event, os, r.event, rs)));
  }

  // Two traces of different runs share no thread: say so after the first blocks rather than hold
  // both whole.
  void check_some_pair_made() const {
    if (pairs_ > 0 || reader(kOriginal).events_read() == 0 || reader(kReplayed).events_read() == 0) return;
    const Numbered* first[2] = {nullptr, nullptr};
    for (const auto& entry : threads_)
      for (int s : {kOriginal, kReplayed})
        if (!entry.second.side[s].empty() && (!first[s] || entry.second.side[s].front().index < first[s]->index))
          first[s] = &entry.second.side[s].front();
    throw Error(fmt::format("no call of the first {} events of {} pairs with the first {} of {} (their first: pid {} "
                            "tid {} {}, and pid {} tid {} {}): not a replay of this original",
                            reader(kReplayed).events_read(), path(kReplayed), reader(kOriginal).events_read(),
                            path(kOriginal), first[kReplayed]->event.pid, first[kReplayed]->event.tid,
                            function_name(first[kReplayed]->event, reader(kReplayed).strings()),
                            first[kOriginal]->event.pid, first[kOriginal]->event.tid,
                            function_name(first[kOriginal]->event, reader(kOriginal).strings())));
  }

  void check_nothing_left() const {
    for (const auto& entry : threads_) {
      const ThreadQueue& q = entry.second;
      if (!q.side[kOriginal].empty() && !q.side[kReplayed].empty()) refuse(q);
    }
    for (const auto& entry : threads_) {
      const ThreadQueue& q = entry.second;
      const Side s = q.side[kOriginal].empty() ? kReplayed : kOriginal;
      if (q.side[s].empty()) continue;
      const Side other = s == kOriginal ? kReplayed : kOriginal;
      const Numbered& first = q.side[s].front();
      std::string damage;
      for (Side d : {kOriginal, kReplayed})
        if (!reader(d).report().intact) damage += fmt::format(" ({} is damaged: {})", path(d), reader(d).report().problem);
      throw Error(fmt::format("{} has {} calls of pid {} tid {} that {} does not have (the first: event {}, {}); {} has "
                              "{} events, {} {}: not a replay of this original, or one cut short{}",
                              path(s), q.side[s].size(), first.event.pid, first.event.tid, path(other), first.index,
                              function_name(first.event, reader(s).strings()), path(kOriginal),
                              reader(kOriginal).events_read(), path(kReplayed), reader(kReplayed).events_read(), damage));
    }
  }

  PairingSide sides_[2];
  const PairFn& fn_;
  std::unordered_map<uint64_t, ThreadQueue> threads_;
  uint64_t pending_[2] = {0, 0};
  uint64_t pairs_ = 0;
  bool original_is_replay_ = false;
};

}  // namespace

uint64_t pair_replay(PairingSide original, PairingSide replayed, const PairFn& fn) {
  return Pairing(std::move(original), std::move(replayed), fn).run();
}

}  // namespace rastro::trace
