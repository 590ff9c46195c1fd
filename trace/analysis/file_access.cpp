#include "trace/analysis/file_access.h"

#include <fcntl.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "trace/syscalls/syscall_table.h"

namespace rastro::trace {
namespace {

// Syscall numbers (x86_64) whose meaning the reduction needs beyond their table classes.
constexpr int kClose = 3, kLseek = 8, kDup = 32, kDup2 = 33, kFsync = 74, kFdatasync = 75,
              kSyncFileRange = 277, kDup3 = 292;

bool opens_a_file(const SyscallInfo& s) {
  if (s.ret != ReturnKind::kFd) return false;
  return std::find(s.args.begin(), s.args.end(), ArgType::kPath) != s.args.end();
}

const Arg* find_arg(const Event& e, ArgType type) {
  for (int i = 0; i < e.nargs; ++i)
    if (e.arg(i).type == type) return &e.arg(i);
  return nullptr;
}

}  // namespace

class FileAccessReducer::Impl {
 public:
  void add(size_t i, const Event& e, const StringTable& strings) {
    strings_ = &strings;
    on_event(i, e);
  }
  FileAccessLog& log() { return log_; }

 private:
  std::string_view str(StrId id) const { return strings_->get(id); }

  struct Descriptor {
    uint32_t file = 0;
    uint64_t position = 0;
    bool append = false;
  };
  using Key = std::pair<int32_t, int64_t>;  // (pid, fd): threads share their process's table

  uint32_t file_id(std::string_view name) {
    auto [it, added] = ids_.try_emplace(std::string(name), static_cast<uint32_t>(log_.files.size()));
    if (added) {
      log_.files.emplace_back(name);
      auto size = unopened_sizes_.find(it->first);
      extent_.push_back(size == unopened_sizes_.end() ? 0 : size->second);
      if (size != unopened_sizes_.end()) unopened_sizes_.erase(size);
    }
    return it->second;
  }

  // A name's size as the trace shows it, without making it a file of the log (namespace calls
  // alone do not: only data, opens and closes do).
  uint64_t size_of(const std::string& name) const {
    if (auto id = ids_.find(name); id != ids_.end()) return extent_[id->second];
    auto size = unopened_sizes_.find(name);
    return size == unopened_sizes_.end() ? 0 : size->second;
  }
  void set_size(const std::string& name, uint64_t size) {
    if (name.empty()) return;
    if (auto id = ids_.find(name); id != ids_.end())
      extent_[id->second] = size;
    else if (size > 0)
      unopened_sizes_[name] = size;
    else
      unopened_sizes_.erase(name);
  }

  // The descriptor an fd argument names; created on first sight (opened before the trace).
  Descriptor& descriptor(const Event& e, const Arg& fd) {
    Key key{e.pid, fd.value};
    auto it = fds_.find(key);
    if (it == fds_.end()) {
      std::string name(str(fd.str));
      if (name.empty()) {
        name = fmt::format("pid{}.fd{}", e.pid, fd.value);
        ++log_.unnamed_fds;
      }
      it = fds_.emplace(key, Descriptor{file_id(name), 0, false}).first;
    } else if (fd.str != kNoStr && str(fd.str) != log_.files[it->second.file]) {
      // The recorded fd path is what the kernel reports (symlinks resolved, absolute): it names
      // the file the open named by another path (/lib/x opened, /usr/lib/x reported). The same
      // file, so the file takes the reported name (the open's name stays an alias), unless that
      // name already is another file of this trace.
      std::string reported(str(fd.str));
      auto known = ids_.find(reported);
      if (known == ids_.end()) {
        ids_.emplace(reported, it->second.file);
        log_.files[it->second.file] = reported;
      } else {
        it->second.file = known->second;
      }
    }
    return it->second;
  }

  // The file a path argument names (relative paths joined to their recorded dirfd path); "" when
  // the trace did not record it.
  std::string path_name(const Event& e, const SyscallInfo& s, int n) const {
    const int p = s.path_arg(n);
    if (p < 0 || p >= e.nargs || e.arg(p).str == kNoStr) return {};
    std::string name(str(e.arg(p).str));
    const int d = s.dirfd_of(p);
    if (!name.empty() && name.front() != '/' && d >= 0 && e.arg(d).str != kNoStr)
      name = fmt::format("{}/{}", str(e.arg(d).str), name);
    return name;
  }

  // Sizes follow the namespace: a removed or truncated file ends at its new size, a renamed one
  // takes its size to its new name (so O_APPEND after them lands where the kernel put it).
  void on_namespace(const Event& e, const SyscallInfo& s) {
    switch (s.path) {
      case PathEffect::kRemoves:
      case PathEffect::kCreatesFile:
        return set_size(path_name(e, s, 0), 0);
      case PathEffect::kRenames: {
        const std::string from = path_name(e, s, 0), to = path_name(e, s, 1);
        if (from.empty() || to.empty()) return;
        const uint64_t size = size_of(from);
        set_size(from, 0);
        set_size(to, size);
        return;
      }
      case PathEffect::kTruncates: {
        const Arg* length = find_arg(e, ArgType::kOffset);
        const uint64_t size = length ? static_cast<uint64_t>(std::max<int64_t>(0, length->value)) : 0;
        if (const Arg* fd = find_arg(e, ArgType::kFd)) {
          extent_[descriptor(e, *fd).file] = size;
          return;
        }
        return set_size(path_name(e, s, 0), size);
      }
      default:
        return;
    }
  }

  void emit(size_t i, const Event& e, AccessKind kind, uint32_t file, uint64_t offset = 0,
            uint64_t bytes = 0, uint64_t requested = 0) {
    log_.accesses.push_back({i, e.begin_ns, e.pid, e.tid, kind, file, offset, bytes, requested});
    if (kind == AccessKind::kRead || kind == AccessKind::kWrite)
      extent_[file] = std::max(extent_[file], offset + bytes);
  }

  void on_open(size_t i, const Event& e) {
    const Arg* path = find_arg(e, ArgType::kPath);
    const Arg* flags = find_arg(e, ArgType::kOpenFlags);
    const Arg* dirfd = find_arg(e, ArgType::kDirFd);
    std::string name(path ? str(path->str) : "");
    if (!name.empty() && name.front() != '/' && dirfd && dirfd->str != kNoStr)
      name = fmt::format("{}/{}", str(dirfd->str), name);
    if (name.empty()) return;
    uint32_t file = file_id(name);
    if (flags && (flags->value & O_TRUNC)) extent_[file] = 0;  // the file starts over empty
    bool append = flags && (flags->value & O_APPEND);
    fds_[Key{e.pid, e.rvalue}] = Descriptor{file, append ? extent_[file] : 0, append};
    emit(i, e, AccessKind::kOpen, file);
  }

  void on_transfer(size_t i, const Event& e, AccessKind kind) {
    const Arg* fd = find_arg(e, ArgType::kFd);
    if (!fd || e.rvalue < 0 || (e.rvalue == 0 && kind == AccessKind::kWrite)) return;
    Descriptor& d = descriptor(e, *fd);
    const Arg* explicit_offset = find_arg(e, ArgType::kOffset);
    uint64_t bytes = static_cast<uint64_t>(e.rvalue);
    uint64_t offset;
    if (explicit_offset) {
      offset = static_cast<uint64_t>(std::max<int64_t>(0, explicit_offset->value));
    } else {
      if (d.append && kind == AccessKind::kWrite) d.position = extent_[d.file];
      offset = d.position;
      d.position += bytes;
    }
    const Arg* count = find_arg(e, ArgType::kCount);
    uint64_t requested = count && count->value > 0 ? static_cast<uint64_t>(count->value) : bytes;
    emit(i, e, kind, d.file, offset, bytes, requested);
  }

  void on_event(size_t i, const Event& e) {
    if (e.flags & kEventUnfinished || e.failed()) return;
    const SyscallInfo* s = syscall_by_nr(e.nr);
    if (!s) return;
    bool reads = s->classes & kClassRead, writes = s->classes & kClassWrite;
    if (opens_a_file(*s)) {
      if (s->path == PathEffect::kCreatesFile) on_namespace(e, *s);  // creat truncates
      return on_open(i, e);
    }
    if (s->path == PathEffect::kRemoves || s->path == PathEffect::kRenames || s->path == PathEffect::kTruncates)
      return on_namespace(e, *s);
    if (s->ret == ReturnKind::kCount && reads && writes) {
      ++log_.skipped_transfers;
      return;
    }
    if (s->ret == ReturnKind::kCount && reads) return on_transfer(i, e, AccessKind::kRead);
    if (s->ret == ReturnKind::kCount && writes) return on_transfer(i, e, AccessKind::kWrite);
    const Arg* fd = find_arg(e, ArgType::kFd);
    if (!fd) return;
    switch (e.nr) {
      case kFsync:
        return emit(i, e, AccessKind::kSync, descriptor(e, *fd).file);
      case kFdatasync:
      case kSyncFileRange:
        return emit(i, e, AccessKind::kDataSync, descriptor(e, *fd).file);
      case kLseek:
        descriptor(e, *fd).position = static_cast<uint64_t>(e.rvalue);
        return;
      case kDup:
      case kDup2:
      case kDup3:
        if (e.rvalue != fd->value) fds_[Key{e.pid, e.rvalue}] = descriptor(e, *fd);
        return;
      case kClose: {
        auto it = fds_.find(Key{e.pid, fd->value});
        // A close of a descriptor never used for file data (socket, pipe) is not a file close.
        if (it == fds_.end()) return;
        emit(i, e, AccessKind::kClose, it->second.file);
        fds_.erase(it);
        return;
      }
      default:
        return;
    }
  }

  const StringTable* strings_ = nullptr;
  FileAccessLog log_;
  std::unordered_map<std::string, uint32_t> ids_;
  std::unordered_map<std::string, uint64_t> unopened_sizes_;  // renamed to names not yet files
  std::vector<uint64_t> extent_;  // per file: its size as the trace shows it (largest offset + bytes
                                  // written or read, reset by O_TRUNC/unlink/truncate, moved by rename)
  std::map<Key, Descriptor> fds_;
};

FileAccessReducer::FileAccessReducer() : impl_(std::make_unique<Impl>()) {}
FileAccessReducer::~FileAccessReducer() = default;

void FileAccessReducer::add(size_t index, const Event& e, const StringTable& strings) {
  impl_->add(index, e, strings);
}

FileAccessLog& FileAccessReducer::log() { return impl_->log(); }

FileAccessLog file_accesses(const Trace& trace) {
  FileAccessReducer r;
  for (size_t i = 0; i < trace.events.size(); ++i) r.add(i, trace.events[i], trace.strings);
  return std::move(r.log());
}

}  // namespace rastro::trace
