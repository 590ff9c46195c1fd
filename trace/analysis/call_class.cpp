#include "trace/analysis/call_class.h"

#include <algorithm>
#include <array>

#include "trace/syscalls/syscall_table.h"

namespace rastro::trace {
namespace {

constexpr std::array<std::string_view, 9> kNames = {"data",   "sync",    "metadata", "namespace", "open/close",
                                                    "fd",     "memory",  "process",  "other"};
// cached_work_class, per name above: not sync (the device), process or other.
constexpr std::array<bool, 9> kCachedWork = {true, false, true, true, true, true, true, false, false};

}  // namespace

std::span<const std::string_view> call_class_names() { return kNames; }

size_t call_class_rank(std::string_view cls) {
  return static_cast<size_t>(std::find(kNames.begin(), kNames.end(), cls) - kNames.begin());
}

bool cached_work_class(std::string_view cls) {
  const size_t rank = call_class_rank(cls);
  return rank < kNames.size() && kCachedWork[rank];
}

std::string_view call_class(const Event& e) {
  const SyscallInfo* s = syscall_by_nr(e.nr);
  if (s == nullptr) return "other";
  // The sync calls sit in the data family (they act on an fd's data) but are a class of their own
  // in every report: their latency is the device's, not the page cache's.
  if (s->classes & kClassSync) return "sync";
  switch (s->family) {
    case Family::kDataIo: return "data";
    case Family::kStat: return "metadata";
    case Family::kNamespace: return "namespace";
    case Family::kOpenClose: return "open/close";
    case Family::kFdOps: return "fd";
    case Family::kMemory: return "memory";
    case Family::kProcess: return "process";
  }
  return "other";
}

}  // namespace rastro::trace
