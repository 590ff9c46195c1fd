// Replays the mmap family (the table's Family::kMemory rows) and page faults (kEventPageFault
// events, trace/model/page_fault.h): one case per call the replayers issue; a row of this family
// with no case here is counted as unsupported.
//
// Every traced mmap is backed by a mapping of the replayer's own (mapping_table.h): a file mapping
// maps the sandboxed file at the traced offset with the traced protection and flags, an anonymous
// one is an anonymous mapping of the same length (not file I/O, but the program's memory use and
// the mapping's lifetime, and the address range later calls name). The replayer never executes
// what it maps, so PROT_EXEC is dropped; the traced address means nothing here, so MAP_FIXED is
// dropped and the table translates addresses instead. brk is emulated: moving the replayer's own
// heap break would corrupt its allocator.
#include "replay/runtime/call_ops.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cerrno>

#include "trace/model/page_fault.h"

namespace rastro::replay {

namespace {

// madvise advice values at or above this one act on the machine, not the mapping (MADV_HWPOISON,
// MADV_SOFT_OFFLINE): never replayed.
constexpr int64_t kFirstMachineAdvice = 100;

uint64_t u(int64_t v) { return static_cast<uint64_t>(v); }

}  // namespace

int64_t CallOps::memory() {
  MappingTable& maps = c.proc.maps;
  // mprotect, msync, madvise: `call(address, length, arg)` on each replay piece of the range.
  // A range no traced mmap of this process backs: emulated when the process inherited it across
  // fork (the pages are the parent's: MappingTable::inherit); else the trace does not say what
  // was there.
  auto not_backed = [&](bool inherited) -> int64_t {
    if (inherited) {
      c.emulated = true;
      return e.rvalue;
    }
    c.skip = SkipReason::kUnknownMapping;
    return e.rvalue;
  };
  auto on_pieces = [&](int (*call)(void*, size_t, int), int arg) -> int64_t {
    uint64_t covered = 0;
    const int64_t r = maps.apply(u(c.a(0)), u(c.a(1)), [&](uint64_t a, uint64_t n) {
      return sysret(call(reinterpret_cast<void*>(a), n, arg));
    }, &covered);
    if (covered > 0) return r;
    return not_backed(maps.inherited(u(c.a(0)), u(c.a(1))));
  };
  switch (e.nr) {
    case SYS_mmap: {
      const int flags = static_cast<int>(c.a(3)) & ~(MAP_FIXED | MAP_FIXED_NOREPLACE);
      int fd = -1;
      if (!(flags & MAP_ANONYMOUS)) {
        fd = fd_arg(4);
        if (fd < 0) return e.rvalue;
      }
      const size_t len = static_cast<size_t>(std::max<int64_t>(c.a(1), 0));
      const int prot = static_cast<int>(c.a(2)) & ~PROT_EXEC;
      // Over part of a mapping the replay backs: at the replay pages standing for it, so the
      // kernel replaces pages there as it did in the trace (make's compilers: 465 of 883 mmaps,
      // the loader mapping segments over the range it reserved; elsewhere, a fresh mapping took
      // half their traced time).
      int64_t over = 0;
      if ((c.a(3) & MAP_FIXED) && c.traced_ok() &&
          maps.map_over(u(e.rvalue), len, [&](uint64_t at) -> int64_t {
            void* p = the_call([&] {
              return ::mmap(reinterpret_cast<void*>(at), len, prot, flags | MAP_FIXED, fd, fd < 0 ? 0 : c.a(5));
            });
            return p == MAP_FAILED ? -static_cast<int64_t>(errno) : reinterpret_cast<int64_t>(p);
          }, &over))
        return over;
      // The call alone: the table's bookkeeping after it allocates, and an allocator may map
      // memory itself (a second mmap in the timed region: `--time-with ebpf` could not choose).
      void* p = the_call([&] {
        return ::mmap(nullptr, len, prot, flags, fd, fd < 0 ? 0 : c.a(5));
      });
      if (p == MAP_FAILED) return -errno;
      if (c.traced_ok())
        maps.add(u(e.rvalue), reinterpret_cast<uint64_t>(p), len);
      else
        ::munmap(p, len);  // the traced call failed: nothing may stay mapped
      return reinterpret_cast<int64_t>(p);
    }
    case SYS_munmap: {
      bool inherited = false;
      if (maps.remove(u(c.a(0)), u(c.a(1)), &inherited) == 0) return not_backed(inherited);
      return 0;
    }
    case SYS_mprotect:
      return on_pieces(::mprotect, static_cast<int>(c.a(2)) & ~PROT_EXEC);
    case SYS_msync:
      return on_pieces(::msync, static_cast<int>(c.a(2)));
    case SYS_madvise:
      if (c.a(2) >= kFirstMachineAdvice) return unsupported();
      return on_pieces(::madvise, static_cast<int>(c.a(2)));
    case SYS_mremap: {
      if (!c.traced_ok() || (c.a(3) & ~int64_t{MREMAP_MAYMOVE}) != 0) return unsupported();
      const uint64_t new_len = u(c.a(2));
      const int64_t r = maps.remap(u(c.a(0)), u(c.a(1)), u(e.rvalue), new_len, [&](uint64_t a, uint64_t n) {
        void* p = ::mremap(reinterpret_cast<void*>(a), n, new_len, MREMAP_MAYMOVE);
        return p == MAP_FAILED ? -static_cast<int64_t>(errno) : reinterpret_cast<int64_t>(p);
      });
      if (r == -ENOENT) break;
      return r;
    }
    case SYS_brk:
      c.emulated = true;
      return e.rvalue;
    default:
      return unsupported();
  }
  c.skip = SkipReason::kUnknownMapping;
  return e.rvalue;
}

int64_t CallOps::page_fault() {
  if (e.nargs != trace::kFaultArgs) return unsupported();
  const int64_t how = c.a(trace::kFaultArgHow);
  // The pages the kernel mapped around a fault: the replay's touch of the faulting page makes
  // the replay kernel do the same, so they are structure only.
  if (how & trace::kFaultAround) {
    c.emulated = true;
    return e.rvalue;
  }
  const bool write = how & trace::kFaultWrite;
  const int64_t r = c.proc.maps.touch(u(c.a(trace::kFaultArgAddress)), write);
  if (r != -ENOENT) return r;
  // No traced mmap of this process made the mapping: the executable and the loader (mapped by
  // execve), or a mapping from before the capture or from the parent across fork. The fault still
  // names the file and the page: touch that page of the sandboxed file through a private mapping
  // of it (writes to such mappings never reach the file: text, relocations, data segments).
  std::string path;
  if (str(trace::kFaultArgFile).empty()) {
    // Anonymous memory inherited across fork: the parent's pages, which the child's write would
    // not copy here.
    if (c.proc.maps.inherited(u(c.a(trace::kFaultArgAddress)), 1)) {
      c.emulated = true;
      return e.rvalue;
    }
    c.skip = SkipReason::kUnknownMapping;
    return e.rvalue;
  }
  if (!path_arg(-1, trace::kFaultArgFile, &path)) return e.rvalue;
  return c.proc.maps.touch_file(path, u(c.a(trace::kFaultArgOffset)), write, [&](uint64_t* length) -> int64_t {
    const UniqueFd fd(sandbox_.open(path, O_RDONLY | O_CLOEXEC, 0));
    struct stat st {};
    if (fd.get() < 0) return fd.get();
    if (::fstat(fd.get(), &st) != 0) return -errno;
    if (!S_ISREG(st.st_mode) || st.st_size <= 0) return -EFAULT;
    *length = static_cast<uint64_t>(st.st_size);
    void* p = ::mmap(nullptr, *length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd.get(), 0);
    return p == MAP_FAILED ? -static_cast<int64_t>(errno) : reinterpret_cast<int64_t>(p);
  });
}

}  // namespace rastro::replay
