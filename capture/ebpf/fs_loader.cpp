#include "capture/ebpf/fs_loader.h"

#include <linux/types.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <fstream>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "capture/ebpf/fs_events.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include "capture/ebpf/fs_events.skel.h"
#pragma GCC diagnostic pop

namespace rastro::capture::ebpf {

namespace {

// libbpf prints through one global callback; keep its warnings for the error message instead
// of letting them interleave with the workload's output.
std::mutex g_log_mu;
std::string g_log;

int libbpf_log(enum libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG) return 0;
  char buf[1024];
  int n = std::vsnprintf(buf, sizeof buf, format, args);
  std::lock_guard<std::mutex> lock(g_log_mu);
  if (g_log.size() < 16384) g_log.append(buf);
  return n;
}

std::string take_log() {
  std::lock_guard<std::mutex> lock(g_log_mu);
  std::string s;
  s.swap(g_log);
  // The verifier log can be long; its tail says what was refused.
  if (s.size() > 2000) s = "...\n" + s.substr(s.size() - 2000);
  return s;
}

std::string libbpf_error(const char* what, int err) {
  char msg[256];
  libbpf_strerror(err, msg, sizeof msg);
  std::string log = take_log();
  return fmt::format("ebpf: {} failed: {}{}{}", what, msg, log.empty() ? "" : "\nlibbpf: ", log);
}

// Whether the task has not exited yet: /proc/TID/stat's state is neither zombie nor dead.
bool task_is_running(pid_t tid) {
  std::ifstream in(fmt::format("/proc/{}/stat", tid));
  std::string stat;
  if (!std::getline(in, stat)) return false;
  auto paren = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (paren == std::string::npos || paren + 2 >= stat.size()) return true;
  char state = stat[paren + 2];
  return state != 'Z' && state != 'X' && state != 'x';
}

}  // namespace

uint64_t ring_size_for(uint64_t requested) {
  uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  uint64_t size = page;
  while (size < requested && size < (1ull << 40)) size <<= 1;
  return size;
}

Result<std::unique_ptr<FsLoader>> FsLoader::open(const FsLoaderConfig& config) {
  libbpf_set_print(libbpf_log);
  take_log();
  std::unique_ptr<FsLoader> self(new FsLoader());
  self->skel_ = fs_events_bpf__open();
  if (self->skel_ == nullptr) return fail(libbpf_error("opening the BPF object", -errno));

  for (size_t i = 0; i < config.roles.size(); ++i) self->skel_->rodata->roles[i] = config.roles[i];
  self->ring_bytes_ = ring_size_for(config.ring_bytes);
  // Wake the consumer when a quarter of the ring is pending; poll() also drains on a timer.
  self->wakeup_bytes_ = self->ring_bytes_ / 4;
  self->skel_->rodata->wakeup_bytes = self->wakeup_bytes_;
  if (int err = bpf_map__set_max_entries(self->skel_->maps.events, static_cast<__u32>(self->ring_bytes_)))
    return fail(libbpf_error("sizing the ring buffer", err));

  // RLIMIT_MEMLOCK cannot be raised here (no CAP_SYS_RESOURCE) and need not be: this kernel
  // charges BPF memory to the memory cgroup (PLATFORM.md), so no setrlimit is attempted.
  if (int err = fs_events_bpf__load(self->skel_)) return fail(libbpf_error("loading the BPF programs", err));
  if (config.attach) {
    if (int err = fs_events_bpf__attach(self->skel_))
      return fail(libbpf_error("attaching to the syscall and sched tracepoints", err));
  }
  self->rb_ = ring_buffer__new(bpf_map__fd(self->skel_->maps.events), &FsLoader::on_record, self.get(), nullptr);
  if (self->rb_ == nullptr) return fail(libbpf_error("mapping the ring buffer", -errno));
  take_log();
  return self;
}

FsLoader::~FsLoader() {
  if (rb_ != nullptr) ring_buffer__free(rb_);
  if (skel_ != nullptr) fs_events_bpf__destroy(skel_);
}

Result<bool> FsLoader::add_task(pid_t tid, bool active) {
  // Task storage is keyed by a pidfd from user space. A non-leader thread needs PIDFD_THREAD
  // (Linux 6.9; O_EXCL's value), tried second so process leaders work on older kernels too.
  // Without it a thread is refused with EINVAL, or ENOENT on newer kernels (6.18 here).
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, tid, 0));
  if (pidfd < 0 && (errno == EINVAL || errno == ENOENT))
    pidfd = static_cast<int>(::syscall(SYS_pidfd_open, tid, 0x80));
  if (pidfd < 0) {
    const int saved = errno;
    // A thread that exited between being listed (/proc/PID/task) and now makes no more calls:
    // not traced, like a zombie below, rather than an error (the kernel says ESRCH or ENOENT).
    if (!task_is_running(tid)) return false;
    return fail(fmt::format("ebpf: pidfd_open({}): {}", tid, std::strerror(saved)));
  }
  std::vector<char> value(bpf_map__value_size(skel_->maps.tasks), 0);
  __u32 state = active ? FS_TASK_ACTIVE : FS_TASK_PENDING;
  std::memcpy(value.data(), &state, sizeof state);
  const int map = bpf_map__fd(skel_->maps.tasks);
  int err = bpf_map_update_elem(map, &pidfd, value.data(), BPF_NOEXIST);
  int saved = errno;
  if (err != 0) {
    ::close(pidfd);
    if (saved == EEXIST) return true;  // already traced (a thread seen through its parent's fork)
    return fail(fmt::format("ebpf: registering task {}: {}", tid, std::strerror(saved)));
  }
  __atomic_fetch_add(&skel_->bss->live_tasks, 1, __ATOMIC_SEQ_CST);
  // A task that had already exited (a zombie: sched_process_exit has run) still takes the
  // storage, but no exit hook will ever count it out, and an attached capture would wait for it
  // forever. If the exit hook ran after our insert, it deleted the storage itself: whoever
  // deletes it counts the task out, exactly once.
  bool gone = !task_is_running(tid);
  if (gone && bpf_map_delete_elem(map, &pidfd) == 0) __atomic_fetch_sub(&skel_->bss->live_tasks, 1, __ATOMIC_SEQ_CST);
  ::close(pidfd);
  return !gone;
}

int FsLoader::on_record(void* ctx, void* data, size_t size) {
  auto* self = static_cast<FsLoader*>(ctx);
  (*self->fn_)(std::span<const std::byte>(static_cast<const std::byte*>(data), size));
  return 0;
}

Result<int> FsLoader::poll(int timeout_ms, const RecordFn& fn) {
  fn_ = &fn;
  int n = ring_buffer__poll(rb_, timeout_ms);
  if (n == -EINTR) n = 0;  // a stop signal: the caller looks at stop_requested()
  // Records below the wake-up threshold raised no wake-up: drain them too.
  int m = n < 0 ? n : ring_buffer__consume(rb_);
  fn_ = nullptr;
  if (n < 0) return fail(fmt::format("ebpf: polling the ring buffer: {}", std::strerror(-n)));
  if (m < 0) return fail(fmt::format("ebpf: consuming the ring buffer: {}", std::strerror(-m)));
  return n + m;
}

int64_t FsLoader::live_tasks() const { return __atomic_load_n(&skel_->bss->live_tasks, __ATOMIC_SEQ_CST); }

FsDrops FsLoader::drops() const {
  FsDrops d;
  int ncpu = libbpf_num_possible_cpus();
  if (ncpu <= 0) return d;
  std::vector<__u64> values(static_cast<size_t>(ncpu));
  int fd = bpf_map__fd(skel_->maps.drops);
  for (__u32 key = 0; key < FS_DROP_NR_REASONS; ++key) {
    if (bpf_map_lookup_elem(fd, &key, values.data()) != 0) continue;
    uint64_t sum = 0;
    for (__u64 v : values) sum += v;
    if (key == FS_DROP_RINGBUF_FULL) d.ringbuf_full = sum;
    if (key == FS_DROP_UNTRACKED_TASK) d.untracked_tasks = sum;
    if (key == FS_DROP_URING_UNTRACKED) d.uring_untracked = sum;
    if (key == FS_DROP_FAULT_UNRESOLVED) d.fault_unresolved = sum;
    if (key == FS_COUNT_FAULT_DEFERRED) d.faults_deferred = sum;
    if (key == FS_COUNT_URING_PATHLESS) d.uring_pathless = sum;
  }
  return d;
}

}  // namespace rastro::capture::ebpf
