#include "workloads/macro/fileserver_bench.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "common/clock.h"
#include "common/error.h"
#include "workloads/common/file_fill.h"
#include "workloads/common/target_dir.h"
#include "workloads/common/record_run.h"
#include "workloads/common/trace_emit.h"
#include "workloads/macro/fileset_state.h"

namespace rastro::workloads {

namespace {
constexpr int kCreateFlags = O_RDWR | O_CREAT | O_TRUNC;
constexpr int kAppendFlags = O_WRONLY | O_APPEND;
constexpr int kReadFlags = O_RDONLY;
constexpr mode_t kFileMode = 0666;
constexpr mode_t kDirMode = 0755;
}  // namespace

FilesetPlan prepare_fileserver(const FileserverOptions& o, const StopSignal& stop, bool* stopped) {
  validate(o);
  *stopped = false;
  const std::string dir = prepare_target_dir(o.dir);
  FilesetPlan plan = plan_fileset(o, dir);
  // Room for every file at its planned size, plus appends: 50% headroom and 64 MiB.
  const uint64_t need = planned_bytes(plan) + planned_bytes(plan) / 2 + (64ull << 20);
  require_free_space(dir, need, fmt::format("a file set of {} files (mean {} bytes)", o.files, o.mean_size));
  std::error_code ec;
  std::filesystem::remove_all(plan.root, ec);
  if (ec) throw Error(fmt::format("{}: cannot remove the previous file set: {}", plan.root, ec.message()));
  if (::mkdir(plan.root.c_str(), kDirMode) != 0) {
    throw Error(fmt::format("{}: mkdir: {}", plan.root, std::strerror(errno)));
  }
  std::vector<bool> made(plan.dirs.size(), false);
  for (const FileEntry& f : plan.files) {
    if (!f.prealloc) continue;
    if (!made[f.dir]) {
      if (::mkdir(plan.dirs[f.dir].c_str(), kDirMode) != 0 && errno != EEXIST) {
        throw Error(fmt::format("{}: mkdir: {}", plan.dirs[f.dir], std::strerror(errno)));
      }
      made[f.dir] = true;
    }
    if (prepare_file(f.path, f.size, stop) == FillOutcome::kStopped) {
      *stopped = true;
      break;
    }
  }
  return plan;
}

namespace {

class FileserverThread {
 public:
  FileserverThread(const FileserverOptions& o, const FilesetPlan& plan, FilesetState& state, int index,
                   ThreadCalls& out)
      : o_(o), plan_(plan), state_(state), log_(out.log),
        rng_(o.seed + 0x9E3779B97F4A7C15ull * (static_cast<uint64_t>(index) + 1)),
        append_(o.gamma, o.append_mean / o.gamma),
        buf_(patterned_io_buffer(o.iosize, rng_())) {
    out.pid = static_cast<int32_t>(getpid());
    out.tid = static_cast<int32_t>(gettid());
  }

  // Runs the flow until `done()` says stop; checked between flowops.
  template <typename Done>
  void run(Done done) {
    while (!done()) {
      createfile_write_close();
      if (done()) break;
      open_append_close();
      if (done()) break;
      open_readwhole_close();
      if (done()) break;
      deletefile();
      if (done()) break;
      statfile();
    }
  }

  size_t calls() const { return log_.size(); }

 private:
  uint32_t path_id(uint32_t file) const { return file; }  // paths: files first, then dirs

  int open_file(uint32_t file, int flags, mode_t mode) {
    const char* p = plan_.files[file].path.c_str();
    CallRecord& r = timed_call(log_, CallKind::kOpenat, [&] { return ::openat(AT_FDCWD, p, flags, mode); });
    r.count = flags;
    r.offset = mode;
    r.path = path_id(file);
    r.fd = static_cast<int32_t>(r.rvalue);
    return static_cast<int>(r.rvalue);
  }

  void close_file(uint32_t file, int fd) {
    CallRecord& r = timed_call(log_, CallKind::kClose, [&] { return ::close(fd); });
    r.fd = fd;
    r.path = path_id(file);
  }

  // Writes `total` bytes in I/Os of at most iosize; returns the bytes written.
  uint64_t write_all(uint32_t file, int fd, uint64_t total) {
    uint64_t done = 0;
    while (done < total) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(o_.iosize, total - done));
      void* b = buf_.get();
      CallRecord& r = timed_call(log_, CallKind::kWrite, [&] { return ::write(fd, b, n); });
      r.fd = fd;
      r.count = static_cast<int64_t>(n);
      r.path = path_id(file);
      if (r.rvalue <= 0) break;
      done += static_cast<uint64_t>(r.rvalue);
    }
    return done;
  }

  void createfile_write_close() {
    auto pick = state_.pick_absent(rng_);
    if (!pick) return;
    const FileEntry& f = plan_.files[pick->file];
    bool dir_ok = true;
    if (pick->make_dir) {
      const char* d = plan_.dirs[f.dir].c_str();
      CallRecord& r = timed_call(log_, CallKind::kMkdir, [&] { return ::mkdir(d, kDirMode); });
      r.count = kDirMode;
      r.path = static_cast<uint32_t>(plan_.files.size()) + f.dir;
      dir_ok = r.rvalue == 0 || r.rvalue == -EEXIST;
    }
    const int fd = dir_ok ? open_file(pick->file, kCreateFlags, kFileMode) : -1;
    if (fd < 0) {
      state_.release(pick->file, false, 0, dir_ok);
      return;
    }
    const uint64_t written = write_all(pick->file, fd, f.size);
    close_file(pick->file, fd);
    state_.release(pick->file, true, written, dir_ok);
  }

  void open_append_close() {
    auto pick = state_.pick_existing(rng_);
    if (!pick) return;
    const int fd = open_file(pick->file, kAppendFlags, 0);
    if (fd < 0) {
      state_.release(pick->file, true, pick->size);
      return;
    }
    const auto amount = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(append_(rng_))));
    const uint64_t written = write_all(pick->file, fd, amount);
    close_file(pick->file, fd);
    state_.release(pick->file, true, pick->size + written);
  }

  void open_readwhole_close() {
    auto pick = state_.pick_existing(rng_);
    if (!pick) return;
    const int fd = open_file(pick->file, kReadFlags, 0);
    if (fd < 0) {
      state_.release(pick->file, true, pick->size);
      return;
    }
    uint64_t done = 0;
    while (done < pick->size) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(o_.iosize, pick->size - done));
      void* b = buf_.get();
      CallRecord& r = timed_call(log_, CallKind::kRead, [&] { return ::read(fd, b, n); });
      r.fd = fd;
      r.count = static_cast<int64_t>(n);
      r.path = path_id(pick->file);
      if (r.rvalue <= 0) break;
      done += static_cast<uint64_t>(r.rvalue);
    }
    close_file(pick->file, fd);
    state_.release(pick->file, true, pick->size);
  }

  void deletefile() {
    auto pick = state_.pick_existing(rng_);
    if (!pick) return;
    const char* p = plan_.files[pick->file].path.c_str();
    CallRecord& r = timed_call(log_, CallKind::kUnlinkat, [&] { return ::unlinkat(AT_FDCWD, p, 0); });
    r.path = path_id(pick->file);
    state_.release(pick->file, r.rvalue != 0, pick->size);
  }

  void statfile() {
    auto pick = state_.pick_existing(rng_);
    if (!pick) return;
    const char* p = plan_.files[pick->file].path.c_str();
    struct stat st;
    CallRecord& r = timed_call(log_, CallKind::kNewfstatat, [&] { return ::fstatat(AT_FDCWD, p, &st, 0); });
    r.path = path_id(pick->file);
    state_.release(pick->file, true, pick->size);
  }

  const FileserverOptions& o_;
  const FilesetPlan& plan_;
  FilesetState& state_;
  CallLog& log_;
  std::mt19937_64 rng_;
  std::gamma_distribution<double> append_;
  IoBuffer buf_;
};

}  // namespace

WorkloadRun run_fileserver(const FileserverOptions& o, const FilesetPlan& plan, const StopSignal& stop) {
  validate(o);
  WorkloadRun run;
  for (const auto& f : plan.files) run.paths.push_back(f.path);
  for (const auto& d : plan.dirs) run.paths.push_back(d);
  const size_t per_thread_cap = std::max<size_t>(1, o.max_events / static_cast<size_t>(o.threads));
  for (int i = 0; i < o.threads; ++i) {
    run.threads.push_back(ThreadCalls{0, 0, CallLog(std::min<size_t>(per_thread_cap, CallLog::kChunk))});
  }
  FilesetState state(plan);
  std::atomic<bool> capped{false};
  std::atomic<int64_t> deadline{0};
  // The duration starts when the last thread is ready, not when the first one was created.
  auto on_start = [&]() noexcept { deadline.store(monotonic_ns() + o.duration_ns); };
  std::barrier start(o.threads, on_start);
  std::vector<std::exception_ptr> errors(static_cast<size_t>(o.threads));
  std::vector<std::thread> workers;
  for (int i = 0; i < o.threads; ++i) {
    workers.emplace_back([&, i] {
      bool arrived = false;
      try {
        FileserverThread t(o, plan, state, i, run.threads[static_cast<size_t>(i)]);
        arrived = true;
        start.arrive_and_wait();
        const int64_t end = deadline.load();
        t.run([&] {
          if (stop.load(std::memory_order_relaxed) != 0) return true;
          if (t.calls() >= per_thread_cap) {
            capped.store(true);
            return true;
          }
          return monotonic_ns() >= end;
        });
      } catch (...) {
        errors[static_cast<size_t>(i)] = std::current_exception();
        if (!arrived) start.arrive_and_drop();
      }
    });
  }
  for (auto& w : workers) w.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  run.stopped_by = stop.load();
  if (run.stopped_by != 0) {
    run.stop_reason = describe_stop(run.stopped_by);
  } else if (capped.load()) {
    run.stopped_by = kStopRequested;
    run.stop_reason = fmt::format("event limit reached (--max-events {}) before --duration elapsed", o.max_events);
  }
  return run;
}

LatencySummary fileserver_to_sink(const FileserverOptions& o, const std::vector<std::string>& command,
                                  const StopSignal& stop, trace::TraceSink& sink) {
  bool stopped = false;
  const FilesetPlan plan = prepare_fileserver(o, stop, &stopped);
  const std::string abs_dir = std::filesystem::path(plan.root).parent_path().string();
  nlohmann::json settings = fileserver_settings(o, abs_dir);
  settings["root"] = plan.root;
  // The initial state a replayer's --init must recreate: directories, then files with sizes.
  settings["dirs"] = nlohmann::json::array();
  settings["dirs"].push_back(plan.root);
  std::vector<bool> dir_used(plan.dirs.size(), false);
  settings["initial_files"] = nlohmann::json::array();
  for (const auto& f : plan.files) {
    if (!f.prealloc) continue;
    dir_used[f.dir] = true;
    settings["initial_files"].push_back({{"path", f.path}, {"size", f.size}});
  }
  for (size_t d = 0; d < plan.dirs.size(); ++d) {
    if (dir_used[d]) settings["dirs"].push_back(plan.dirs[d]);
  }
  return record_run(stopped, "the file set", stop, [&] { return run_fileserver(o, plan, stop); },
                    make_reference_header("reference-fileserver", std::move(settings), command, plan.root), sink);
}

}  // namespace rastro::workloads
