#include "replay/runtime/exec_uring.h"

#include <liburing.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <thread>

#include <fmt/format.h>

#include "common/clock.h"
#include "replay/passes/uring_batches.h"
#include "replay/runtime/completion_flag.h"
#include "replay/runtime/io_buffer.h"
#include "replay/runtime/request_runner.h"
#include "trace/analysis/concurrency.h"

namespace rastro::replay {

Result<UringMode> parse_uring_mode(std::string_view text) {
  if (text == "ring") return UringMode::kRing;
  if (text == "plain") return UringMode::kPlain;
  if (text == "auto" || text.empty()) return UringMode::kAuto;
  return fail("unknown --uring mode '" + std::string(text) + "' (expected ring or plain)");
}

std::string_view uring_mode_name(UringMode m) {
  switch (m) {
    case UringMode::kAuto: return "auto";
    case UringMode::kRing: return "ring";
    case UringMode::kPlain: return "plain";
  }
  return "?";
}

std::string io_uring_missing() {
  io_uring ring{};
  if (int rc = io_uring_queue_init(1, &ring, 0); rc < 0) return std::string("io_uring_queue_init: ") + std::strerror(-rc);
  io_uring_queue_exit(&ring);
  return "";
}

namespace {

constexpr uint64_t kStop = std::numeric_limits<uint64_t>::max();  // user_data of the reaper's stop NOP
constexpr unsigned kMaxEntries = 4096;

// Byte count of a traced read or write as the plain executor takes it (call_ops.h): the length
// argument, or for readv/writev (vectors not recorded) the traced result.
size_t request_bytes(const trace::Event& e) {
  const int64_t v = (e.nr == SYS_preadv || e.nr == SYS_pwritev) ? e.rvalue : e.arg(2).value;
  return v < 0 ? 0 : static_cast<size_t>(std::min<int64_t>(v, int64_t{1} << 30));
}

bool is_read(int nr) { return nr == SYS_pread64 || nr == SYS_preadv; }
bool is_write(int nr) { return nr == SYS_pwrite64 || nr == SYS_pwritev; }

}  // namespace

// Per request: written by the submitter (submit_ns, submitted) and by the reaper (end_ns, res,
// completed) — different fields; read together only in finish(), after both joined.
struct UringReplay::Slot {
  CompletionFlag completed;
  int64_t submit_ns = 0;
  int64_t end_ns = 0;
  int32_t res = 0;
  bool submitted = false;
};

struct UringReplay::Ring {
  io_uring ring{};
  std::vector<uint32_t> requests;  // its ring requests, program order
  std::vector<uint32_t> pending;   // prepared, not yet submitted (owner only)
  IoBuffer read_buf, write_buf;
  std::thread reaper;
  bool live = false;  // io_uring_queue_init succeeded
  ~Ring() {
    if (live) io_uring_queue_exit(&ring);
  }
};

UringReplay::UringReplay(const Plan& plan, UringMode mode) : plan_(plan) {
  const UringPlan& u = plan.uring;
  if (mode == UringMode::kPlain || u.empty()) return;
  const size_t n = plan.requests.size();
  ring_of_thread_.assign(plan.threads.size(), -1);
  for (size_t t = 0; t < plan.threads.size() && t < u.thread_depth.size(); ++t) {
    if (u.thread_depth[t] == 0) continue;
    auto ring = std::make_unique<Ring>();
    const unsigned entries = std::clamp<unsigned>(u.thread_depth[t], 1, kMaxEntries);
    if (int rc = io_uring_queue_init(entries, &ring->ring, 0); rc < 0) {
      const std::string why = fmt::format(
          "io_uring_queue_init({}) failed: {} (is io_uring disabled? /proc/sys/kernel/io_uring_disabled)", entries,
          std::strerror(-rc));
      rings_.clear();
      ring_of_thread_.clear();
      if (mode == UringMode::kRing) throw Error("--uring=ring: " + why);
      warning_ = "io_uring requests replayed as plain calls: " + why;
      return;
    }
    ring->live = true;
    size_t rbytes = 0, wbytes = 0;
    for (uint32_t r : plan.threads[t].requests) {
      if (r >= u.depth.size() || u.depth[r] == 0) continue;
      ring->requests.push_back(r);
      const trace::Event& e = plan.trace.events[plan.requests[r].event];
      if (is_read(e.nr)) rbytes = std::max(rbytes, request_bytes(e));
      if (is_write(e.nr)) wbytes = std::max(wbytes, request_bytes(e));
    }
    ring->read_buf.area(rbytes);
    char* w = ring->write_buf.area(wbytes);
    for (size_t i = 0; i < ring->write_buf.size(); ++i) w[i] = write_pattern_byte(i);
    ring_of_thread_[t] = static_cast<int32_t>(rings_.size());
    traced_depth_ = std::max(traced_depth_, u.thread_depth[t]);
    rings_.push_back(std::move(ring));
  }
  slots_.reset(new Slot[n]);
  // Submit at the end of each batch — and early where the thread's next call could wait for
  // another thread (which could be waiting for a request still unsubmitted here).
  submit_after_.assign(n, 0);
  for (const PlanThread& th : plan.threads) {
    for (size_t i = 0; i < th.requests.size(); ++i) {
      const uint32_t r = th.requests[i];
      if (r >= u.depth.size() || u.depth[r] == 0) continue;
      bool now = u.batch_end[r] || i + 1 == th.requests.size();
      if (!now) {
        for (const Dep& d : deps_of(plan, th.requests[i + 1])) now = now || d.kind != EdgeKind::kThread;
      }
      submit_after_[r] = now ? 1 : 0;
    }
  }
  for (auto& rp : rings_) {
    Ring* ring = rp.get();
    Slot* slots = slots_.get();
    ring->reaper = std::thread([ring, slots] {
      for (;;) {
        io_uring_cqe* cqe = nullptr;
        const int rc = io_uring_wait_cqe(&ring->ring, &cqe);
        if (rc == -EINTR || rc == -EAGAIN) continue;
        if (rc < 0) {
          // Cannot happen with a live ring; never leave a waiter blocked.
          for (uint32_t r : ring->requests) {
            if (slots[r].completed.done()) continue;
            slots[r].res = rc;
            slots[r].end_ns = monotonic_ns();
            slots[r].completed.complete();
          }
          return;
        }
        const int64_t now = monotonic_ns();
        const uint64_t ud = cqe->user_data;
        const int32_t res = cqe->res;
        io_uring_cqe_seen(&ring->ring, cqe);
        if (ud == kStop) return;
        slots[ud].end_ns = now;
        slots[ud].res = res;
        slots[ud].completed.complete();
      }
    });
  }
}

UringReplay::~UringReplay() {
  // finish() stops the reapers; a replay that threw before it must not leave them running.
  for (auto& ring : rings_) {
    if (!ring->reaper.joinable()) continue;
    if (io_uring_sqe* sqe = io_uring_get_sqe(&ring->ring)) {
      io_uring_prep_nop(sqe);
      io_uring_sqe_set_data64(sqe, kStop);
      io_uring_submit(&ring->ring);
    }
    ring->reaper.join();
  }
}

bool UringReplay::ring_request(uint32_t r) const {
  return r < plan_.uring.depth.size() && plan_.uring.depth[r] != 0 && ring_of_request(r) != nullptr;
}

UringReplay::Ring* UringReplay::ring_of_request(uint32_t r) const {
  const uint32_t t = plan_.requests[r].thread;
  return t < ring_of_thread_.size() && ring_of_thread_[t] >= 0 ? rings_[static_cast<size_t>(ring_of_thread_[t])].get()
                                                              : nullptr;
}

void UringReplay::submit_pending(Ring& ring) {
  if (ring.pending.empty()) return;
  const int64_t t0 = monotonic_ns();
  for (uint32_t r : ring.pending) {  // set before the kernel can complete them
    slots_[r].submit_ns = t0;
    slots_[r].submitted = true;
  }
  size_t done = 0;
  while (done < ring.pending.size()) {
    const int rc = io_uring_submit(&ring.ring);
    if (rc == -EINTR || rc == -EAGAIN || rc == -EBUSY) continue;
    if (rc <= 0) {
      // Not submitted: they complete here with the error, as a failed syscall would.
      for (size_t i = done; i < ring.pending.size(); ++i) {
        Slot& s = slots_[ring.pending[i]];
        s.res = rc < 0 ? rc : -EIO;
        s.end_ns = monotonic_ns();
        s.completed.complete();
      }
      break;
    }
    done += static_cast<size_t>(rc);
  }
  ring.pending.clear();
}

bool UringReplay::await(uint32_t r) {
  if (!active()) return false;
  const UringPlan& u = plan_.uring;
  const uint32_t* a = u.awaits.data() + u.awaits_begin[r];
  const uint32_t* a_end = u.awaits.data() + u.awaits_begin[r + 1];
  // Only earlier ring requests (a plan read from a file could say otherwise: never wait forever).
  auto awaited = [&](uint32_t d) { return d < r && ring_request(d); };
  bool any = false;
  for (const uint32_t* x = a; x != a_end && !any; ++x) any = awaited(*x);
  const std::span<const Dep> deps = deps_of(plan_, r);
  for (size_t k = 0; k < deps.size() && !any; ++k) any = deps[k].kind != EdgeKind::kThread && awaited(deps[k].request);
  if (!any) return false;
  // What r waits for may be prepared and not yet submitted in its own ring.
  if (Ring* ring = ring_of_request(r)) submit_pending(*ring);
  bool waited = false;
  for (; a != a_end; ++a)
    if (awaited(*a)) waited |= slots_[*a].completed.wait();
  for (const Dep& d : deps)
    if (d.kind != EdgeKind::kThread && awaited(d.request)) waited |= slots_[d.request].completed.wait();
  return waited;
}

bool UringReplay::issue(uint32_t r, const CallExecutor& exec, const int32_t* fd_keys, ProcessState* proc,
                        ThreadScratch& scratch, RequestRecord* rec) {
  const Request& q = plan_.requests[r];
  const trace::Event& e = plan_.trace.events[q.event];
  Ring* ring = active() ? ring_of_request(r) : nullptr;
  const bool is_ring = ring && r < plan_.uring.depth.size() && plan_.uring.depth[r] != 0;
  if (ring && e.nr == SYS_io_uring_enter && q.action == RequestAction::kReplay) {
    // The ring's own io_uring_enter (liburing's submit) does its work: emulated, traced result.
    rec->begin_ns = rec->end_ns = monotonic_ns();
    rec->rvalue = e.rvalue;
    rec->flags = 0;
    rec->skip = SkipReason::kNone;
    rec->emulated = true;
    ++scratch.stats.emulated;
    return false;
  }
  FdLookup l;
  if (is_ring && proc) l = proc->fds->get(fd_keys ? fd_keys[0] : static_cast<int>(e.arg(0).value));
  if (!is_ring || l.state != FdState::kOpen || l.emulated || l.stream) {
    // A plain call: what is prepared goes first (it came first in the trace).
    if (ring) submit_pending(*ring);
    const PathColumn::Paths paths = plan_.paths[r];
    issue_request(exec, e, q.action, paths.data(), fd_keys, proc, scratch, rec,
                  issue_begins_.size() == 0 ? nullptr : &issue_begins_[r]);
    if (is_ring) slots_[r].completed.complete();  // no CQE will come
    return false;
  }
  io_uring_sqe* sqe = io_uring_get_sqe(&ring->ring);
  if (!sqe) {  // the batch is larger than the ring (a depth beyond kMaxEntries)
    submit_pending(*ring);
    sqe = io_uring_get_sqe(&ring->ring);
  }
  const size_t n = request_bytes(e);
  const int fd = l.fd;
  switch (e.nr) {
    case SYS_pread64:
    case SYS_preadv:
      io_uring_prep_read(sqe, fd, ring->read_buf.data(), static_cast<unsigned>(n), static_cast<uint64_t>(e.arg(3).value));
      break;
    case SYS_pwrite64:
    case SYS_pwritev:
      io_uring_prep_write(sqe, fd, ring->write_buf.data(), static_cast<unsigned>(n), static_cast<uint64_t>(e.arg(3).value));
      break;
    case SYS_fsync:
      io_uring_prep_fsync(sqe, fd, 0);
      break;
    case SYS_sync_file_range:  // (fd, offset, nbytes, flags)
      io_uring_prep_sync_file_range(sqe, fd, static_cast<unsigned>(e.arg(2).value),
                                    static_cast<uint64_t>(e.arg(1).value), static_cast<int>(e.arg(3).value));
      break;
    case SYS_fallocate:  // (fd, mode, offset, len)
      io_uring_prep_fallocate(sqe, fd, static_cast<int>(e.arg(1).value), e.arg(2).value, e.arg(3).value);
      break;
    case SYS_fadvise64:  // (fd, offset, len, advice)
      io_uring_prep_fadvise(sqe, fd, static_cast<uint64_t>(e.arg(1).value), static_cast<off_t>(e.arg(2).value),
                            static_cast<int>(e.arg(3).value));
      break;
    default:
      io_uring_prep_nop(sqe);  // (is_ring_call admits none other)
      break;
  }
  io_uring_sqe_set_data64(sqe, r);
  ring->pending.push_back(r);
  ++scratch.stats.executed;
  // Provisional (the engine reads them now): the completion is written in by finish().
  rec->begin_ns = monotonic_ns();
  if (submit_after_[r]) submit_pending(*ring);
  rec->end_ns = monotonic_ns();
  rec->rvalue = e.rvalue;
  rec->flags = trace::kEventUring;
  rec->skip = SkipReason::kNone;
  rec->emulated = false;
  return true;
}

void UringReplay::keep_issue_begins(bool across_processes) {
  issue_begins_ = SharedArray<int64_t>(plan_.requests.size(), across_processes);
}

void UringReplay::drain(uint32_t thread) {
  if (thread >= ring_of_thread_.size() || ring_of_thread_[thread] < 0) return;
  Ring& ring = *rings_[static_cast<size_t>(ring_of_thread_[thread])];
  submit_pending(ring);
  for (uint32_t r : ring.requests) slots_[r].completed.wait();
}

void UringReplay::drain_all() {
  for (auto& ring : rings_)
    for (uint32_t r : ring->requests) slots_[r].completed.wait();
}

void UringReplay::finish(RecordLog& log, ExecStats& stats) {
  if (!active()) return;
  for (auto& ring : rings_) submit_pending(*ring);
  drain_all();
  for (auto& ring : rings_) {
    if (!ring->reaper.joinable()) continue;
    io_uring_sqe* sqe = io_uring_get_sqe(&ring->ring);
    io_uring_prep_nop(sqe);
    io_uring_sqe_set_data64(sqe, kStop);
    io_uring_submit(&ring->ring);
    ring->reaper.join();
  }
  for (auto& ring : rings_) {
    // In flight at each submission: submitted earlier (or together), CQE not yet reaped.
    std::vector<int64_t> begins, ends;
    for (uint32_t r : ring->requests) {
      const Slot& s = slots_[r];
      if (!s.submitted || r >= log.size()) continue;
      const trace::Event& e = plan_.trace.events[plan_.requests[r].event];
      LateCompletion c{s.submit_ns, std::max(s.end_ns, s.submit_ns), s.res, trace::kEventUring};
      if (rvalue_mismatch(e, s.res)) {
        c.flags |= trace::kEventMismatch;
        ++stats.mismatched;
        ++stats.mismatched_by_call[std::string(trace::function_name(e, plan_.trace.strings))];
      }
      log.complete_late(r, c);
      begins.push_back(c.begin_ns);
      ends.push_back(c.end_ns);
    }
    for (uint32_t level : trace::concurrency_levels(begins, ends)) max_in_flight_ = std::max(max_in_flight_, level);
  }
}

}  // namespace rastro::replay
