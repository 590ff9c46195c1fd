#include "workloads/micro/micro_bench.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <barrier>
#include <cstdlib>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "common/error.h"
#include "workloads/common/file_fill.h"
#include "workloads/common/precise_pause.h"
#include "workloads/common/target_dir.h"
#include "workloads/common/record_run.h"
#include "workloads/common/trace_emit.h"

namespace rastro::workloads {

std::string prepare_micro(const MicroOptions& o, const StopSignal& stop, bool* stopped) {
  validate(o);
  *stopped = false;
  const std::string dir = prepare_target_dir(o.dir);
  uint64_t needed = 0;
  for (int i = 0; i < o.threads; ++i) needed += bytes_to_fill(micro_file_path(dir, i), o.file_size);
  require_free_space(dir, needed, fmt::format("{} file(s) of {} bytes", o.threads, o.file_size));
  for (int i = 0; i < o.threads; ++i) {
    if (prepare_file(micro_file_path(dir, i), o.file_size, stop) == FillOutcome::kStopped) {
      *stopped = true;
      break;
    }
  }
  return dir;
}

namespace {

void micro_thread(const MicroOptions& o, int index, const std::string& path, uint32_t path_id,
                  const StopSignal& stop, std::barrier<>& start, bool& arrived, ThreadCalls& out) {
  // Everything a request needs is ready before the start barrier: offsets, buffer, log space.
  const std::vector<uint64_t> offsets = micro_offsets(o, index);
  const IoBuffer buf = patterned_io_buffer(o.block, micro_thread_seed(o.seed, index));
  out.pid = static_cast<int32_t>(getpid());
  out.tid = static_cast<int32_t>(gettid());
  CallLog& log = out.log;
  const bool write = is_write(o.type);
  const int flags = write ? O_WRONLY : O_RDONLY;
  const char* cpath = path.c_str();
  arrived = true;
  start.arrive_and_wait();

  CallRecord& op = timed_call(log, CallKind::kOpenat, [&] { return ::openat(AT_FDCWD, cpath, flags, 0); });
  op.count = flags;
  op.offset = 0;
  op.path = path_id;
  const int fd = static_cast<int>(op.rvalue);
  op.fd = fd;
  if (fd < 0) return;  // recorded as a failed openat; the summary shows it

  void* b = buf.get();
  const size_t n = o.block;
  int64_t last_end = op.end_ns;
  for (uint64_t k = 0; k < o.ops; ++k) {
    if (stop.load(std::memory_order_relaxed) != 0) break;
    if (o.pause_ns > 0 && k > 0) wait_until_ns(last_end + o.pause_ns);
    const auto off = static_cast<off_t>(offsets[k]);
    CallRecord* r = nullptr;
    switch (o.type) {
      case MicroType::kRandomRead:
        r = &timed_call(log, CallKind::kPread, [&] { return ::pread(fd, b, n, off); });
        break;
      case MicroType::kRandomWrite:
        r = &timed_call(log, CallKind::kPwrite, [&] { return ::pwrite(fd, b, n, off); });
        break;
      case MicroType::kSequentialRead:
        r = &timed_call(log, CallKind::kRead, [&] { return ::read(fd, b, n); });
        break;
      case MicroType::kSequentialWrite:
        r = &timed_call(log, CallKind::kWrite, [&] { return ::write(fd, b, n); });
        break;
    }
    r->fd = fd;
    r->count = static_cast<int64_t>(n);
    r->offset = off;  // for read/write: the implicit file position, not a syscall argument
    r->path = path_id;
    last_end = r->end_ns;
  }
  CallRecord& cl = timed_call(log, CallKind::kClose, [&] { return ::close(fd); });
  cl.fd = fd;
  cl.path = path_id;
}

}  // namespace

WorkloadRun run_micro(const MicroOptions& o, const std::string& abs_dir, const StopSignal& stop) {
  validate(o);
  WorkloadRun run;
  run.threads.reserve(static_cast<size_t>(o.threads));
  for (int i = 0; i < o.threads; ++i) {
    run.paths.push_back(micro_file_path(abs_dir, i));
    run.threads.push_back(ThreadCalls{0, 0, CallLog(o.ops + 2)});
  }
  std::barrier<> start(o.threads);
  std::vector<std::exception_ptr> errors(static_cast<size_t>(o.threads));
  std::vector<std::thread> workers;
  for (int i = 0; i < o.threads; ++i) {
    workers.emplace_back([&, i] {
      bool arrived = false;
      try {
        micro_thread(o, i, run.paths[static_cast<size_t>(i)], static_cast<uint32_t>(i), stop, start,
                     arrived, run.threads[static_cast<size_t>(i)]);
      } catch (...) {
        errors[static_cast<size_t>(i)] = std::current_exception();
        if (!arrived) start.arrive_and_drop();  // do not leave the others waiting at the start line
      }
    });
  }
  for (auto& w : workers) w.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  run.stopped_by = stop.load();
  if (run.stopped_by != 0) run.stop_reason = describe_stop(run.stopped_by);
  return run;
}

LatencySummary micro_to_sink(const MicroOptions& o, const std::vector<std::string>& command,
                             const StopSignal& stop, trace::TraceSink& sink) {
  bool stopped = false;
  const std::string dir = prepare_micro(o, stop, &stopped);
  return record_run(stopped, "the files", stop, [&] { return run_micro(o, dir, stop); },
                    make_reference_header("reference-micro", micro_settings(o, dir), command, dir), sink);
}

}  // namespace rastro::workloads
