// Fd numbers reused across the threads of one process (SPEC §4, fd stage).
//
// The kernel returns fd N only once N is free, yet a trace in begin order can show the new
// lifetime first. Thread A's openat begins, thread B's close(3) begins, B's close returns, and
// then A's openat returns 3 (seen in the fileserver workload, calls 15 ns apart):
//
//     614  tid 10372  begin ...648423  end ...651127  openat(..., "f0000013") = 3
//     615  tid 10373  begin ...648438  end ...649349  close(3</f0000085>)    = 0
//
// Walking requests in begin order, the create meets the old lifetime of 3 still open. The call
// that freed it began later but overlaps the create, so it is found by looking ahead in the
// create's window (find_overlapping_release) and applied before the create. Until that release,
// the process's uses of 3 are still the old lifetime's: the new one does not exist yet (a thread
// writes to its 3 and then closes it, while another thread's openat that will return 3 is in
// flight).
//
// The mirror image: the lifetime still holding 3 was created by a call that began first but
// returned 3 *after* this create did (its thread was preempted between its timestamp and the
// syscall), while this create's lifetime was opened, used and closed in between:
//
//     499237  begin ...756715  end ...820329  openat(..., "f0000060") = 3   <- returns last
//     499238  begin ...757275  end ...760180  openat(..., "f0000153") = 3
//     499240  begin ...771647  end ...772588  close(3</f0000153>)
//
// Then the held lifetime is deferred (returns_after): the new one takes fd 3 now, and the held
// one takes it back when the new one is closed.
//
// Both the inference (resolve_fds) and the replayers' fd keys (plan_fd_keys) apply these rules;
// otherwise a close and every later use land on the wrong lifetime (the fileserver workload lost
// about 1 call in 1000 to "use after close" before).
#pragma once

#include <algorithm>
#include <cstdint>

#include "replay/passes/infer_context.h"
#include "replay/passes/syscall_semantics.h"
#include "trace/model/event.h"

namespace rastro::replay {

// `event_of(j)`: the event of request j, requests in begin order, `n` of them. Returns the first
// request j > r (at most kMaxReleaseLookahead later) of r's process that began before r ended,
// succeeded, and ends fd `fd`'s table entry (close, or dup2/dup3 onto it); kNoIndex when there is
// none (the release was not captured).
// Whether the lifetime created by `held_creator` starts after the one `create` opens: it
// returned the same fd later, so it cannot have held the fd when `create` got it.
inline bool returns_after(const trace::Event& held_creator, const trace::Event& create) {
  return held_creator.end_ns > create.end_ns;
}

// How many later-begun requests the search looks at. The releases seen in real traces begin a few
// requests after the create; the cap keeps a hostile trace (every create conflicting, with a huge
// duration) linear. Past it the release counts as not captured.
inline constexpr uint32_t kMaxReleaseLookahead = 4096;

template <class EventOf>
uint32_t find_overlapping_release(uint32_t r, uint32_t n, int fd, EventOf&& event_of) {
  const trace::Event& create = event_of(r);
  const auto end = static_cast<uint32_t>(std::min<uint64_t>(n, uint64_t{r} + 1 + kMaxReleaseLookahead));
  for (uint32_t j = r + 1; j < end; ++j) {
    const trace::Event& e = event_of(j);
    if (e.begin_ns >= create.end_ns) break;
    if (e.pid != create.pid || e.failed() || (e.flags & trace::kEventUnfinished) || !touches_fds(e.nr)) continue;
    const FdEffects fx = fd_effects(e, semantics(e.nr));
    for (int i = 0; i < fx.ncloses; ++i) {
      if (fx.closes[i] == fd) return j;
    }
  }
  return kNoIndex;
}

// What happens to the lifetime still holding fd `fd` when request r creates it again.
struct HeldFdFate {
  enum Kind { kEndsHere, kDeferred, kReleasedEarly } kind = kEndsHere;
  uint32_t release = kNoIndex;  // kReleasedEarly: the request that releases it (r < release)
};

// The one rule both resolve_fds and plan_fd_keys apply. `held_creator`: the request that created
// the held lifetime (kNoIndex = inherited). Deferred when that creator returned the fd after r did;
// released early by an overlapping later-begun release; otherwise its release was not captured
// and it ends here.
template <class EventOf>
HeldFdFate held_fd_fate(uint32_t r, uint32_t n, int fd, uint32_t held_creator, EventOf&& event_of) {
  if (held_creator != kNoIndex && returns_after(event_of(held_creator), event_of(r))) return {HeldFdFate::kDeferred};
  if (uint32_t j = find_overlapping_release(r, n, fd, event_of); j != kNoIndex) return {HeldFdFate::kReleasedEarly, j};
  return {};
}

}  // namespace rastro::replay
