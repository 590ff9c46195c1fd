#include "capture/ebpf/self_call_timer.h"

#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/types.h>

#include <fmt/format.h>

#include "capture/ebpf/ebpf_backend.h"
#include "capture/ebpf/fs_event_decoder.h"
#include "capture/ebpf/fs_events.h"
#include "capture/ebpf/fs_loader.h"
#include "trace/model/event.h"

namespace rastro::capture::ebpf {

namespace {

constexpr int kPollMs = 50;

std::vector<pid_t> own_threads() {
  std::vector<pid_t> tids;
  if (DIR* d = ::opendir("/proc/self/task")) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9') tids.push_back(static_cast<pid_t>(std::stol(e->d_name)));
    ::closedir(d);
  }
  return tids;
}

}  // namespace

Result<std::unique_ptr<SelfCallTimer>> SelfCallTimer::start(uint64_t ring_bytes) {
  FsLoaderConfig config;
  config.roles.fill(FS_ROLE_WANTED);  // every call, no argument strings or fd paths
  config.ring_bytes = ring_bytes;
  auto opened = FsLoader::open(config);
  if (!opened.ok()) {
    std::string msg = opened.error();
    for (const std::string& m : EbpfBackend().missing_requirements()) msg += "\nmissing: " + m;
    return fail(msg);
  }
  std::unique_ptr<SelfCallTimer> self(new SelfCallTimer());
  self->loader_ = std::move(opened.value());
  // The drainer starts untraced (nothing is registered yet) and stays so: its own polling must not
  // feed the ring it drains.
  self->drainer_ = std::thread([t = self.get()] { t->drain_loop(); });
  while (self->drainer_tid_.load() == 0) std::this_thread::yield();
  for (pid_t tid : own_threads()) {
    if (tid == self->drainer_tid_.load()) continue;
    auto added = self->loader_->add_task(tid, /*active=*/true);
    if (!added.ok()) {
      self->stop();
      return fail(added.error());
    }
  }
  return self;
}

void SelfCallTimer::drain_loop() {
  drainer_tid_ = static_cast<pid_t>(::syscall(SYS_gettid));
  trace::StringTable strings;
  DecodeState state;
  uint64_t malformed = 0;
  const std::function<void(std::span<const std::byte>)> on_record = [&](std::span<const std::byte> rec) {
    auto ev = decode_fs_event(rec, strings, state);
    if (!ev.ok()) {
      ++malformed;
      return;
    }
    const trace::Event& e = ev.value();
    if (e.flags & (trace::kEventPageFault | trace::kEventUring)) return;  // not a syscall of the thread
    if (e.flags & trace::kEventUnfinished) {
      ++times_.unfinished;
      return;
    }
    times_.calls.push_back({e.tid, e.nr, e.begin_ns, e.end_ns});
  };
  auto drain = [&](int timeout_ms) -> int {
    auto n = loader_->poll(timeout_ms, on_record);
    if (!n.ok()) {
      times_.error = n.error();
      return -1;
    }
    return n.value();
  };
  while (!stopping_.load())
    if (drain(kPollMs) < 0) break;
  while (times_.error.empty() && drain(0) > 0) {
  }
  FsDrops drops = loader_->drops();
  times_.lost = drops.ringbuf_full + malformed;
  times_.untracked_tasks = drops.untracked_tasks;
}

SelfCallTimes SelfCallTimer::stop() {
  stopping_ = true;
  if (drainer_.joinable()) drainer_.join();
  return std::move(times_);
}

SelfCallTimer::~SelfCallTimer() { stop(); }

}  // namespace rastro::capture::ebpf
