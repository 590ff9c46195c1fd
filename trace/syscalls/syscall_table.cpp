#include "trace/syscalls/syscall_table.h"

#include <fcntl.h>

#include <algorithm>
#include <array>
#include <unordered_map>

#include <fmt/format.h>

namespace rastro::trace {

namespace {

constexpr SyscallInfo kRows[] = {
#include "trace/syscalls/syscall_rows.inc"
};

// Direct index by number: syscall_by_nr runs for every replayed and inferred call.
constexpr int kNrLimit = 512;
constexpr auto kIndexByNr = [] {
  std::array<int16_t, kNrLimit> idx{};
  idx.fill(-1);
  for (size_t i = 0; i < std::size(kRows); ++i) {
    if (kRows[i].nr < 0 || kRows[i].nr >= kNrLimit) throw "syscall number outside the direct index";
    idx[static_cast<size_t>(kRows[i].nr)] = static_cast<int16_t>(i);
  }
  return idx;
}();

const std::unordered_map<std::string_view, const SyscallInfo*>& by_name() {
  static const auto* map = [] {
    auto* m = new std::unordered_map<std::string_view, const SyscallInfo*>();
    for (const auto& r : kRows) m->emplace(r.name, &r);
    return m;
  }();
  return *map;
}

struct ClassName {
  std::string_view name;
  uint32_t mask;
};
constexpr ClassName kClassNames[] = {
    {"%file", kClassFile},       {"%desc", kClassDesc},   {"%process", kClassProcess},
    {"%memory", kClassMemory},   {"%read", kClassRead},   {"%write", kClassWrite},
    {"%meta", kClassMeta},       {"%namespace", kClassNamespace}, {"%sync", kClassSync},
    {"fs", kClassFs},
};

}  // namespace

std::span<const SyscallInfo> all_syscalls() { return kRows; }

int SyscallInfo::path_arg(int n) const {
  int seen = 0;
  for (int i = 0; i < nargs; ++i) {
    if (args[static_cast<size_t>(i)] != ArgType::kPath) continue;
    if (path == PathEffect::kCreatesSymlink && i == 0) continue;  // the link's content, not a name
    if (seen++ == n) return i;
  }
  return -1;
}

int SyscallInfo::path_slot(int arg_index) const {
  for (int n = 0; n < 2; ++n)
    if (path_arg(n) == arg_index) return n;
  return -1;
}

bool is_dup_fd_command(int64_t fcntl_command) { return fcntl_command == F_DUPFD || fcntl_command == F_DUPFD_CLOEXEC; }

bool SyscallInfo::returns_new_fd(int64_t command) const {
  return ret == ReturnKind::kFd || (fd == FdEffect::kByCommand && is_dup_fd_command(command));
}

const SyscallInfo* syscall_by_nr(int nr) {
  if (nr < 0 || nr >= kNrLimit) return nullptr;
  const int16_t i = kIndexByNr[static_cast<size_t>(nr)];
  return i < 0 ? nullptr : &kRows[i];
}

const SyscallInfo* syscall_by_name(std::string_view name) {
  const auto& m = by_name();
  auto it = m.find(name);
  return it == m.end() ? nullptr : it->second;
}

std::vector<int> SyscallSet::numbers() const {
  std::vector<int> out;
  for (size_t i = 0; i < enabled.size(); ++i)
    if (enabled[i]) out.push_back(static_cast<int>(i));
  return out;
}

bool is_lifecycle(int nr) {
  const SyscallInfo* s = syscall_by_nr(nr);
  return s && (s->classes & kClassProcess);
}

Result<SyscallSet> parse_syscall_set(std::string_view spec) {
  SyscallSet set;
  if (spec.empty()) spec = "fs";
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    std::string_view item = spec.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    pos = comma == std::string_view::npos ? spec.size() + 1 : comma + 1;
    if (item.empty()) continue;
    bool remove = false;
    if (item.front() == '!') {
      remove = true;
      item.remove_prefix(1);
    }
    auto apply = [&](int nr) { set.enabled[static_cast<size_t>(nr)] = !remove; };
    if (item == "all") {
      set.all = !remove;
      for (const auto& r : kRows) apply(r.nr);
      continue;
    }
    bool matched = false;
    for (const auto& c : kClassNames) {
      if (item == c.name) {
        for (const auto& r : kRows)
          if (r.classes & c.mask) apply(r.nr);
        matched = true;
      }
    }
    if (matched) continue;
    if (const SyscallInfo* s = syscall_by_name(item)) {
      apply(s->nr);
      continue;
    }
    return fail(fmt::format("unknown syscall or class '{}' in '{}' (classes: fs, all, %file, %desc, "
                            "%process, %memory, %read, %write, %meta, %namespace, %sync)",
                            item, spec));
  }
  return set;
}

}  // namespace rastro::trace
