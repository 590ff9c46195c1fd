#include "workloads/load/load_generator.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/clock.h"
#include "workloads/common/file_fill.h"
#include "workloads/common/target_dir.h"

namespace rastro::workloads {

Result<LoadKind> parse_load_kind(std::string_view text) {
  if (text == "cpu") return LoadKind::kCpu;
  if (text == "io") return LoadKind::kIo;
  return fail(fmt::format("load kind '{}': expected cpu or io", text));
}

std::string_view load_kind_name(LoadKind k) { return k == LoadKind::kCpu ? "cpu" : "io"; }

namespace {

// Child side: only async-signal-safe calls (the parent may be multi-threaded when it forks).
[[noreturn]] void child_prologue_failed() { _exit(127); }

void child_prologue(pid_t parent) {
  // Die with the parent; undo handlers inherited from it (a hog must die on SIGTERM/SIGINT).
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) child_prologue_failed();
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
}

bool expired(int64_t end_ns) { return end_ns > 0 && monotonic_ns() >= end_ns; }

[[noreturn]] void cpu_hog(int64_t end_ns) {
  volatile uint64_t x = 0;
  for (;;) {
    for (int i = 0; i < 1'000'000; ++i) x = x + static_cast<uint64_t>(i);
    if (expired(end_ns)) _exit(0);
  }
}

[[noreturn]] void io_hog(const char* path, const void* buf, size_t block, uint64_t wrap, int64_t end_ns) {
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) _exit(126);
  unlink(path);  // anonymous from now on: its space is freed whenever the hog dies
  uint64_t off = 0;
  uint64_t since_sync = 0;
  for (;;) {
    const ssize_t w = pwrite(fd, buf, block, static_cast<off_t>(off));
    if (w <= 0) _exit(w < 0 && errno == ENOSPC ? 0 : 125);
    off += static_cast<uint64_t>(w);
    since_sync += static_cast<uint64_t>(w);
    if (off >= wrap) off = 0;
    // Push the data to the device regularly, or the hog would only load the page cache.
    if (since_sync >= (32u << 20)) {
      fdatasync(fd);
      since_sync = 0;
    }
    if (expired(end_ns)) _exit(0);
  }
}

}  // namespace

LoadHandle::LoadHandle(LoadOptions o, std::vector<pid_t> pids)
    : o_(std::move(o)), pids_(std::move(pids)), reaped_(pids_.size(), false) {}

LoadHandle::~LoadHandle() { stop(); }

void LoadHandle::stop() {
  for (size_t i = 0; i < pids_.size(); ++i) {
    if (!reaped_[i]) kill(pids_[i], SIGTERM);
  }
  wait();
}

bool LoadHandle::running() {
  bool any = false;
  for (size_t i = 0; i < pids_.size(); ++i) {
    if (reaped_[i]) continue;
    int status = 0;
    const pid_t r = waitpid(pids_[i], &status, WNOHANG);
    if (r == pids_[i] || (r < 0 && errno == ECHILD)) {
      reaped_[i] = true;
    } else {
      any = true;
    }
  }
  return any;
}

void LoadHandle::wait() {
  for (size_t i = 0; i < pids_.size(); ++i) {
    if (reaped_[i]) continue;
    int status = 0;
    while (waitpid(pids_[i], &status, 0) < 0 && errno == EINTR) {
    }
    reaped_[i] = true;
  }
}

nlohmann::json LoadHandle::describe() const {
  nlohmann::json j;
  j["kind"] = std::string(load_kind_name(o_.kind));
  j["level"] = o_.level;
  j["duration_ns"] = o_.duration_ns;
  j["pids"] = pids_;
  if (o_.kind == LoadKind::kIo) {
    j["dir"] = o_.dir;
    j["io_block"] = o_.io_block;
  }
  return j;
}

std::unique_ptr<LoadHandle> start_load(const LoadOptions& o) {
  if (o.level < 0) throw Error(fmt::format("--level {}: cannot be negative", o.level));
  if (o.level > 1024) throw Error(fmt::format("--level {}: at most 1024", o.level));
  if (o.duration_ns < 0) throw Error("--duration cannot be negative");
  LoadOptions opts = o;
  std::vector<std::string> paths;
  std::vector<unsigned char> buf;
  if (o.kind == LoadKind::kIo && o.level > 0) {
    if (o.io_block < 1 || o.io_block > (1u << 30)) throw Error("--block: 1 byte .. 1G");
    if (o.io_file_size < o.io_block) throw Error("--file-size must be at least --block");
    opts.dir = prepare_target_dir(o.dir);
    require_free_space(opts.dir, o.io_file_size * static_cast<uint64_t>(o.level),
                       fmt::format("{} streaming writer(s) of {} bytes", o.level, o.io_file_size));
    for (int i = 0; i < o.level; ++i) paths.push_back(fmt::format("{}/.rastro-load-io-{}-{}", opts.dir, getpid(), i));
    buf.resize(o.io_block);
    fill_pattern(buf.data(), buf.size(), 99);
  }
  // Everything the children need is computed before fork: they must not allocate.
  const int64_t end_ns = o.duration_ns > 0 ? monotonic_ns() + o.duration_ns : 0;
  const pid_t parent = getpid();
  std::vector<pid_t> pids;
  auto handle = std::make_unique<LoadHandle>(opts, std::vector<pid_t>{});
  for (int i = 0; i < o.level; ++i) {
    const pid_t pid = fork();
    if (pid < 0) {
      const int e = errno;
      handle = std::make_unique<LoadHandle>(opts, pids);  // stops the ones already started
      handle.reset();
      throw Error(fmt::format("starting load process {}: fork: {}", i, std::strerror(e)));
    }
    if (pid == 0) {
      child_prologue(parent);
      if (o.kind == LoadKind::kCpu) cpu_hog(end_ns);
      io_hog(paths[static_cast<size_t>(i)].c_str(), buf.data(), buf.size(), o.io_file_size, end_ns);
    }
    pids.push_back(pid);
  }
  return std::make_unique<LoadHandle>(opts, pids);
}

}  // namespace rastro::workloads
