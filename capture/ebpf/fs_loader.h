// User side of the eBPF capture (bcc libbpf-tools layout): loads fs_events.bpf.c through its
// generated skeleton, sets the filters, attaches, registers tasks and drains the ring buffer.
// Knows nothing about the trace model: records are handed out raw (see fs_event_decoder.h).
#pragma once

#include <sys/types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "capture/ebpf/fs_roles.h"
#include "common/error.h"

struct fs_events_bpf;
struct ring_buffer;

namespace rastro::capture::ebpf {

struct FsLoaderConfig {
  std::array<uint16_t, kRoleSlots> roles{};
  uint64_t ring_bytes = 16u << 20;  // rounded up to a power of two >= one page
  bool attach = true;               // false: load only (a feasibility probe)
};

struct FsDrops {
  uint64_t ringbuf_full = 0;     // records the kernel could not reserve
  uint64_t untracked_tasks = 0;  // children of traced tasks that got no state
  uint64_t uring_untracked = 0;  // io_uring requests over the in-flight table's capacity
  uint64_t fault_unresolved = 0; // page faults of traced tasks whose mapping could not be looked up
  uint64_t faults_deferred = 0;  // not lost: page faults looked up after the fault (the mm was busy)
  uint64_t uring_pathless = 0;   // io_uring requests recorded without their paths (path table full)
};

class FsLoader {
 public:
  using RecordFn = std::function<void(std::span<const std::byte>)>;

  // Opens, configures, loads and (optionally) attaches. The failure message names what the
  // kernel refused, with libbpf's own diagnostics.
  static Result<std::unique_ptr<FsLoader>> open(const FsLoaderConfig& config);
  ~FsLoader();
  FsLoader(const FsLoader&) = delete;
  FsLoader& operator=(const FsLoader&) = delete;

  // Registers a task: pending (recorded from its next successful exec) or active. false: the
  // task had already exited (nothing registered, nothing to wait for).
  Result<bool> add_task(pid_t tid, bool active);
  // Waits up to timeout_ms for a wake-up, then hands out every record in the ring.
  // Returns the number of records consumed.
  Result<int> poll(int timeout_ms, const RecordFn& fn);
  // Traced tasks alive (kernel counter): 0 once the whole workload tree has exited.
  int64_t live_tasks() const;
  FsDrops drops() const;
  uint64_t ring_bytes() const { return ring_bytes_; }
  uint64_t wakeup_bytes() const { return wakeup_bytes_; }

 private:
  FsLoader() = default;
  static int on_record(void* ctx, void* data, size_t size);
  fs_events_bpf* skel_ = nullptr;
  ring_buffer* rb_ = nullptr;
  const RecordFn* fn_ = nullptr;  // valid during poll()
  uint64_t ring_bytes_ = 0;
  uint64_t wakeup_bytes_ = 0;
};

// The ring size used for a --buffer request: the next power of two, at least one page (the
// kernel's BPF_MAP_TYPE_RINGBUF constraint).
uint64_t ring_size_for(uint64_t requested);

}  // namespace rastro::capture::ebpf
