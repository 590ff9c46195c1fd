// Test helper (not a test): a deterministic file-system workload in 2 processes x 2 threads that
// reports every call it made, so capture tests can check a trace against what really happened.
//
//   deterministic_workload DIR REPORT [--die]
//
// Each thread works on its own subdirectory of DIR with raw syscall(2) calls (so the function
// names are fixed: no libc wrapper choosing openat vs open), one thread at a time (fd numbers are
// deterministic). Each process writes REPORT.<process> with lines
//   THREAD <role> <pid> <tid>
//   CALL <tid> <function> <rvalue> <path or "-">
// With --die the parent kills itself with SIGTERM after its calls (expected status 143).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

// A pid or tid at a fixed width: the report's own writes are traced and compared across the
// backends' runs, so their length must not depend on how many digits the kernel's next pid has
// (a fresh machine crosses 1000 during the suite: 2248 bytes under one backend, 2288 under another).
std::string id(long v) {
  char s[24];
  std::snprintf(s, sizeof s, "%010ld", v);
  return s;
}

struct Log {
  std::vector<std::string> lines;
  void call(const char* fn, long rv, const std::string& path) {
    long tid = syscall(SYS_gettid);
    lines.push_back("CALL " + id(tid) + " " + fn + " " + std::to_string(rv < 0 ? -errno : rv) + " " +
                    (path.empty() ? "-" : path));
  }
};

void thread_ops(const std::string& dir, const std::string& role, Log* log) {
  long tid = syscall(SYS_gettid);
  log->lines.push_back("THREAD " + role + " " + id(getpid()) + " " + id(tid));
  std::string d = dir + "/" + role;
  std::string f = d + "/data", g = d + "/renamed", missing = d + "/missing";
  char buf[8192];
  for (size_t i = 0; i < sizeof buf; ++i) buf[i] = static_cast<char>('a' + i % 26);
  log->call("mkdir", syscall(SYS_mkdir, d.c_str(), 0755), d);
  long fd = syscall(SYS_openat, AT_FDCWD, f.c_str(), O_CREAT | O_RDWR | O_TRUNC | O_CLOEXEC, 0644);
  log->call("openat", fd, f);
  log->call("pwrite64", syscall(SYS_pwrite64, fd, buf, 4096, 0), f);
  log->call("pwrite64", syscall(SYS_pwrite64, fd, buf, 100, 8192), f);
  log->call("pread64", syscall(SYS_pread64, fd, buf, 4096, 0), f);
  log->call("write", syscall(SYS_write, fd, buf, 512), f);
  log->call("fsync", syscall(SYS_fsync, fd), f);
  log->call("fdatasync", syscall(SYS_fdatasync, fd), f);
  log->call("ftruncate", syscall(SYS_ftruncate, fd, 1000), f);
  log->call("lseek", syscall(SYS_lseek, fd, 0, SEEK_END), f);
  log->call("read", syscall(SYS_read, fd, buf, 10), f);
  log->call("close", syscall(SYS_close, fd), f);
  log->call("rename", syscall(SYS_rename, f.c_str(), g.c_str()), f);
  struct stat st;
  log->call("newfstatat", syscall(SYS_newfstatat, AT_FDCWD, g.c_str(), &st, 0), g);
  log->call("access", syscall(SYS_access, missing.c_str(), F_OK), missing);
  log->call("unlink", syscall(SYS_unlink, g.c_str()), g);
  log->call("unlink", syscall(SYS_unlink, g.c_str()), g);
  log->call("rmdir", syscall(SYS_rmdir, d.c_str()), d);
}

void write_report(const std::string& path, const Log& log) {
  FILE* out = std::fopen(path.c_str(), "w");
  if (!out) {
    std::perror(path.c_str());
    _exit(2);
  }
  for (const auto& l : log.lines) std::fprintf(out, "%s\n", l.c_str());
  std::fclose(out);
}

void run_process(const std::string& dir, int p, Log* log) {
  // Thread 1 first, then the main thread: one thread at a time keeps fd numbers deterministic.
  std::thread t([&] { thread_ops(dir, "p" + std::to_string(p) + "t1", log); });
  t.join();
  thread_ops(dir, "p" + std::to_string(p) + "t0", log);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s DIR REPORT [--die]\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1], report = argv[2];
  bool die = argc > 3 && std::string(argv[3]) == "--die";
  Log parent;
  run_process(dir, 0, &parent);
  write_report(report + ".0", parent);
  if (die) {
    kill(getpid(), SIGTERM);
    pause();
  }
  pid_t child = fork();
  if (child == 0) {
    Log log;
    run_process(dir, 1, &log);
    write_report(report + ".1", log);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
