// One replayed process's memory mappings: which replay address range stands for which traced one.
// A traced mmap returns an address the replayer cannot have (its own address space is shared by
// every replayed process), so each traced range [start, start + length) is backed by a mapping the
// replayer made, and munmap, mprotect, msync, madvise, mremap and page-fault touches of traced
// addresses are translated here. Ranges are disjoint, as the kernel's: a traced MAP_FIXED mapping
// over part of an earlier one replaces that part (its replay pages are unmapped), a munmap of part
// of a mapping splits it.
//
// Thread-safe: replay threads of one process share it. Calls that change which ranges exist take
// the lock exclusively; calls that only act on existing pages (msync, mprotect, madvise, touch)
// share it, and run their syscall while holding it, so another thread's munmap cannot leave them
// an address the replayer's own allocator has reused meanwhile.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <shared_mutex>
#include <string>

namespace rastro::replay {

class MappingTable {
 public:
  MappingTable() = default;
  MappingTable(const MappingTable&) = delete;
  MappingTable& operator=(const MappingTable&) = delete;
  ~MappingTable();  // unmaps every replay mapping still held

  // The traced mmap that returned `traced` is backed by the replay mapping [replay, +length).
  void add(uint64_t traced, uint64_t replay, uint64_t length);
  // A traced MAP_FIXED mmap over [traced, +length) that one backed piece holds whole (the dynamic
  // loader maps a library's segments over the range it reserved): `op(replay)` maps over the
  // replay pages standing for it — MAP_FIXED there, so the kernel replaces pages as it did in the
  // trace — with the lock held, so nothing else can map or unmap there meanwhile. The piece is
  // split around the new mapping. Returns false (op not called) when no single piece holds the
  // range; else true, with op's result (the replay address, or -errno) in *result.
  bool map_over(uint64_t traced, uint64_t length, const std::function<int64_t(uint64_t)>& op, int64_t* result);
  // munmap(traced, length): unmaps the replay pages backing it and forgets what of it the process
  // inherited across fork (`inherited`, optional: whether any was); returns the bytes that were
  // backed (0: the range was not mapped by a traced mmap of this process).
  uint64_t remove(uint64_t traced, uint64_t length, bool* inherited = nullptr);
  // Runs `op(replay_address, bytes)` for each backed piece of [traced, +length) in address order
  // and stops at the first negative result. Returns that result, else 0; `covered` gets the bytes
  // backed (0: none, the call is not about a mapping we replay).
  int64_t apply(uint64_t traced, uint64_t length, const std::function<int64_t(uint64_t, uint64_t)>& op,
                uint64_t* covered) const;
  // mremap(traced, old_length, new_length, MREMAP_MAYMOVE) of a whole traced mapping that the
  // kernel moved or resized to `new_traced`: `op(replay, old_length)` does the replay's mremap and
  // returns the new replay address (or -errno). Returns op's result, or -ENOENT when [traced,
  // +old_length) is not exactly one backed piece.
  int64_t remap(uint64_t traced, uint64_t old_length, uint64_t new_traced, uint64_t new_length,
                const std::function<int64_t(uint64_t, uint64_t)>& op);
  // Reads (or writes one pattern byte at) the replay address backing `traced`, through
  // process_vm_readv/writev on this process: the kernel faults the page in as the traced access
  // did, but a page beyond the end of the file gives -EFAULT instead of killing the replayer with
  // SIGBUS. Returns 0 or -errno; -ENOENT when no traced mapping covers the address.
  int64_t touch(uint64_t traced, bool write) const;
  // A fault in a mapping no traced mmap made (the executable and the loader are mapped by the
  // kernel's execve, others before the capture): the same touch, of the page at `offset` of the
  // file `path`, through one private mapping of the whole file per path, which `map_file` makes at
  // the first such fault (it returns the replay address and sets the length, or returns -errno).
  int64_t touch_file(const std::string& path, uint64_t offset, bool write,
                     const std::function<int64_t(uint64_t* length)>& map_file);
  // A traced fork: the child's address space is a copy of the parent's, which the replayer cannot
  // make (its one address space serves every replayed process). The child records the parent's
  // traced ranges (its pieces and what it inherited itself) as inherited; a munmap, mprotect,
  // msync or madvise of one is then emulated, with the traced result: the replay pages behind it
  // are the parent's, which the child's call must not change. (PAM's child of runuser unmaps the
  // modules its parent loaded before the fork.)
  void inherit(const MappingTable& parent);
  // Whether [traced, +length) overlaps a range inherited across fork and not unmapped since.
  bool inherited(uint64_t traced, uint64_t length) const;
  // A successful execve: the process's address space is replaced; every replay mapping goes.
  void clear();
  // Bytes of traced address space currently backed.
  uint64_t mapped_bytes() const;

 private:
  struct Piece {
    uint64_t replay = 0;
    uint64_t length = 0;
  };
  // Unmaps and forgets [start, end) of every piece it overlaps (the lock held exclusively).
  uint64_t cut(uint64_t start, uint64_t end);
  // Whether [start, end) overlaps an inherited range, removing the overlap (lock held).
  bool forget_inherited(uint64_t start, uint64_t end);

  mutable std::shared_mutex mu_;
  std::map<uint64_t, Piece> pieces_;  // traced start -> replay start and length; disjoint
  std::map<std::string, Piece> files_;  // touch_file's whole-file mappings, by traced path
  std::map<uint64_t, uint64_t> inherited_;  // traced start -> end, disjoint, no replay pages
};

}  // namespace rastro::replay
