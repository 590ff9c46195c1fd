#include "replay/passes/address_spaces.h"

#include <algorithm>
#include <iterator>

#include "common/page_size.h"
#include "trace/model/page_fault.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::replay {

namespace {

// [addr, addr + length rounded up to pages), clamped at the top of the address space.
std::pair<uint64_t, uint64_t> range(int64_t addr, int64_t length) {
  const auto start = static_cast<uint64_t>(addr);
  const uint64_t len = page_round_up(static_cast<uint64_t>(std::max<int64_t>(length, 0)));
  return {start, len > UINT64_MAX - start ? UINT64_MAX : start + len};
}

// A memory row acting on a range: (kPtr, kCount) first.
bool on_range(const trace::SyscallInfo& si) {
  return si.family == trace::Family::kMemory && si.nargs >= 2 && si.args[0] == trace::ArgType::kPtr &&
         si.args[1] == trace::ArgType::kCount;
}

}  // namespace

bool AddressSpaces::concerns(int32_t nr) {
  if (nr == -1) return true;
  const trace::SyscallInfo* si = trace::syscall_by_nr(nr);
  return si != nullptr && on_range(*si);
}

template <class V, class F>
void AddressSpaces::cut(std::map<uint64_t, V>& m, uint64_t start, uint64_t end, F each) {
  auto it = m.upper_bound(start);
  if (it != m.begin() && std::prev(it)->second.end > start) --it;
  std::vector<std::pair<uint64_t, V>> kept;
  while (it != m.end() && it->first < end) {
    each(it->second);
    if (it->first < start) {
      V left = it->second;
      left.end = start;
      kept.emplace_back(it->first, std::move(left));
    }
    if (it->second.end > end) kept.emplace_back(end, std::move(it->second));
    it = m.erase(it);
  }
  for (auto& [s, v] : kept) m.emplace(s, std::move(v));
}

void AddressSpaces::use(Space& s, uint64_t start, uint64_t end, uint32_t r, uint32_t t, const Want& want) {
  auto it = s.live.upper_bound(start);
  if (it != s.live.begin() && std::prev(it)->second.end > start) --it;
  for (; it != s.live.end() && it->first < end; ++it) {
    want(it->second.creator);
    auto& users = it->second.users;
    auto mine = std::find_if(users.begin(), users.end(), [t](const auto& tu) { return tu.first == t; });
    if (mine != users.end()) mine->second = r;
    else users.emplace_back(t, r);
  }
}

void AddressSpaces::release(Space& s, uint64_t start, uint64_t end, const Want& want) {
  cut(s.live, start, end, [&](const Mapping& m) {
    want(m.creator);
    for (const auto& tu : m.users) want(tu.second);
  });
}

void AddressSpaces::unmap(Space& s, uint64_t start, uint64_t end, uint32_t r, const Want& want) {
  release(s, start, end, want);
  // The range is free now, also where no traced mmap mapped it (a mapping from before the trace):
  // the next mmap the kernel gives any part of it follows this call.
  cut(s.released, start, end, [](const Released&) {});
  s.released.emplace(start, Released{end, r});
}

void AddressSpaces::map(Space& s, uint64_t start, uint64_t end, uint32_t r, uint32_t t, const Want& want) {
  cut(s.released, start, end, [&](const Released& f) { want(f.releaser); });
  release(s, start, end, want);  // a mapping still live there is replaced (MAP_FIXED, or an uncaptured release)
  s.live.emplace(start, Mapping{end, r, {{t, r}}});
}

void AddressSpaces::visit(const trace::Event& e, uint32_t r, uint32_t t, const Want& want) {
  if (e.flags & trace::kEventPageFault) {
    if (e.nargs != trace::kFaultArgs) return;
    const int64_t how = e.arg(trace::kFaultArgHow).value;
    if (how & trace::kFaultAround) return;  // emulated: the replay's own fault-around
    const auto at = static_cast<uint64_t>(e.arg(trace::kFaultArgAddress).value);
    if (at != UINT64_MAX) use(spaces_[e.pid], at, at + 1, r, t, want);  // the faulting byte's mapping only
    return;
  }
  const trace::SyscallInfo* si = trace::syscall_by_nr(e.nr);
  if (si == nullptr || !on_range(*si)) return;
  Space& s = spaces_[e.pid];
  const auto [start, end] = range(e.arg(0).value, e.arg(1).value);
  switch (si->mem) {
    case trace::MemEffect::kMaps: {
      const auto [at, at_end] = range(e.rvalue, e.arg(1).value);
      map(s, at, at_end, r, t, want);
      return;
    }
    case trace::MemEffect::kUnmaps:
      unmap(s, start, end, r, want);
      return;
    case trace::MemEffect::kRemaps: {
      if (si->nargs < 3 || si->args[2] != trace::ArgType::kCount) return;
      unmap(s, start, end, r, want);
      const auto [at, at_end] = range(e.rvalue, e.arg(2).value);
      map(s, at, at_end, r, t, want);
      return;
    }
    case trace::MemEffect::kNone:
      use(s, start, end, r, t, want);
      return;
  }
}

}  // namespace rastro::replay
