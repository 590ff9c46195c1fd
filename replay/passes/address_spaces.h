// The fs ordering's mapping resource (docs/replay-plan.md): the traced mappings of each process.
// Threads of a process share its address space, and the kernel hands a range that one thread
// unmapped to the next mmap of any thread (git's threads map and unmap object files at the same
// address one after the other). The replay keeps a table from traced addresses to its own
// mappings (replay/runtime/mapping_table.h), so it must meet those calls in the traced order: an
// mmap waits for the call that released its range, a call on a range (munmap, mprotect, msync,
// madvise, a page fault) for the mmap that made the mapping, and a release for every other
// thread's users of what it releases. Without it, a replay at full speed let one thread's mmap
// replace another's mapping in the table, and the other's munmap found nothing
// (`mapping_not_in_trace`).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "trace/model/event.h"

namespace rastro::replay {

class AddressSpaces {
 public:
  using Want = std::function<void(uint32_t request)>;

  // Request r (thread t) of process `pid`, a replayed call that succeeded in the trace: applies
  // its effect on the address space and calls `want` with each request it must wait for. Calls
  // that are neither memory calls on a range nor page faults are ignored.
  void visit(const trace::Event& e, uint32_t r, uint32_t t, const Want& want);
  // A successful exec: the process's address space is replaced.
  void exec(int32_t pid) { spaces_.erase(pid); }

  // Whether a call of number `nr` can concern an address space (memory calls on a range, and
  // nr -1: page faults, or calls not in the table, which visit() tells apart by the event's
  // flags): the requests visit() must see, decoded. The rest need not be.
  static bool concerns(int32_t nr);

 private:
  struct Mapping {
    uint64_t end = 0;
    uint32_t creator = 0;
    std::vector<std::pair<uint32_t, uint32_t>> users;  // (thread, its last user)
  };
  struct Released {
    uint64_t end = 0;
    uint32_t releaser = 0;
  };
  struct Space {
    std::map<uint64_t, Mapping> live;      // start -> mapping; disjoint
    std::map<uint64_t, Released> released;  // start -> the call that last freed the range; disjoint
  };

  void map(Space& s, uint64_t start, uint64_t end, uint32_t r, uint32_t t, const Want& want);
  void unmap(Space& s, uint64_t start, uint64_t end, uint32_t r, const Want& want);
  void use(Space& s, uint64_t start, uint64_t end, uint32_t r, uint32_t t, const Want& want);
  // Ends the live mappings' parts in [start, end), after their creators and users.
  void release(Space& s, uint64_t start, uint64_t end, const Want& want);
  // Cuts [start, end) out of `m`'s ranges, keeping the parts outside with their values; calls
  // `each` with every value that overlapped.
  template <class V, class F>
  static void cut(std::map<uint64_t, V>& m, uint64_t start, uint64_t end, F each);

  std::unordered_map<int32_t, Space> spaces_;
};

}  // namespace rastro::replay
