#include "capture/common/workload_launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace rastro::capture {

namespace {

// What the child writes into the error pipe before _exit(127).
struct ChildFailure {
  int stage;  // 0 = pre-exec hook, 1 = exec
  int err;
};

void write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= static_cast<size_t>(w);
  }
}

}  // namespace

Result<std::string> resolve_command(const std::string& name) {
  if (name.empty()) return fail("empty command");
  auto check = [](const std::string& p) -> int {
    struct stat st;
    if (::stat(p.c_str(), &st) != 0) return errno;
    if (S_ISDIR(st.st_mode)) return EISDIR;
    if (::access(p.c_str(), X_OK) != 0) return errno;
    return 0;
  };
  if (name.find('/') != std::string::npos) {
    int err = check(name);
    if (err == 0) return name;
    return fail(fmt::format("{}: {}", name, std::strerror(err)));
  }
  const char* path_env = std::getenv("PATH");
  std::string path = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
  int first_err = ENOENT;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t colon = path.find(':', pos);
    std::string_view dir = std::string_view(path).substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
    pos = colon == std::string::npos ? path.size() + 1 : colon + 1;
    std::string candidate = fmt::format("{}/{}", dir.empty() ? std::string_view(".") : dir, name);
    int err = check(candidate);
    if (err == 0) return candidate;
    if (err != ENOENT && err != ENOTDIR && first_err == ENOENT) first_err = err;
  }
  if (first_err == ENOENT) return fail(fmt::format("{}: command not found", name));
  return fail(fmt::format("{}: {}", name, std::strerror(first_err)));
}

WorkloadLauncher::~WorkloadLauncher() {
  if (pid_ > 0 && !released_) {
    ::kill(pid_, SIGKILL);
    int status;
    ::waitpid(pid_, &status, __WALL);
  }
  if (go_fd_ >= 0) ::close(go_fd_);
  if (error_fd_ >= 0) ::close(error_fd_);
}

pid_t WorkloadLauncher::spawn(const LaunchSpec& spec) {
  if (spec.argv.empty()) throw Error("capture: no command given", 127);
  auto resolved = resolve_command(spec.argv[0]);
  if (!resolved) throw Error(resolved.error(), 127);
  command_ = spec.argv[0];

  // Everything the child needs is built before fork (no allocation after fork).
  std::string exe = resolved.value();
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  int go[2], err[2];
  // The go channel is a socket so release() can write with MSG_NOSIGNAL: a workload killed
  // before its release (a stop during BPF loading) must not kill rastro with SIGPIPE.
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
    throw Error(fmt::format("capture: pipe: {}", std::strerror(errno)));
  sigset_t all, before;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &before);  // the child resets its handlers first
  pid_t pid = ::fork();
  if (pid != 0) ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (pid < 0) throw Error(fmt::format("capture: fork: {}", std::strerror(errno)));
  if (pid == 0) {
    ::close(go[1]);
    ::close(err[0]);
    // Default signal state for the workload. What exec will do is done now, with every signal
    // still blocked since before fork: a caught signal gets its default action (an ignored one
    // stays ignored). Otherwise a stop forwarded before the exec would run the capture's handler
    // in this copy of the process, which forwards to nobody, and be swallowed.
    for (int sig : {SIGINT, SIGTERM}) {
      struct sigaction sa{};
      if (::sigaction(sig, nullptr, &sa) == 0 && sa.sa_handler != SIG_IGN) ::signal(sig, SIG_DFL);
    }
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    // Never outlive the capture, even one killed with SIGKILL: an untraced workload running on
    // after its capture died would be invisible work (ptrace tracees die with PTRACE_O_EXITKILL).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    char c;
    ssize_t r;
    do {
      r = ::read(go[0], &c, 1);
    } while (r < 0 && errno == EINTR);
    if (r != 1) ::_exit(127);  // parent gave up
    ::close(go[0]);
    if (spec.pre_exec) {
      int e = spec.pre_exec();
      if (e != 0) {
        ChildFailure f{0, e};
        write_all(err[1], &f, sizeof f);
        ::_exit(127);
      }
    }
    ::execv(exe.c_str(), argv.data());
    ChildFailure f{1, errno};
    write_all(err[1], &f, sizeof f);
    ::_exit(127);
  }
  ::close(go[0]);
  ::close(err[1]);
  pid_ = pid;
  go_fd_ = go[1];
  error_fd_ = err[0];
  return pid;
}

void WorkloadLauncher::release() {
  if (pid_ <= 0 || released_) return;
  char c = 'g';
  while (::send(go_fd_, &c, 1, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
  ::close(go_fd_);
  go_fd_ = -1;
  released_ = true;
}

std::string WorkloadLauncher::launch_failure() {
  if (error_fd_ < 0) return "";
  int flags = ::fcntl(error_fd_, F_GETFL);
  ::fcntl(error_fd_, F_SETFL, flags | O_NONBLOCK);
  ChildFailure f{};
  ssize_t r = ::read(error_fd_, &f, sizeof f);
  if (r != static_cast<ssize_t>(sizeof f)) return "";
  if (f.stage == 0)
    return fmt::format("{}: setting up the workload before exec failed: {}", command_,
                       std::strerror(f.err));
  return fmt::format("{}: cannot execute: {}", command_, std::strerror(f.err));
}

void become_subreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 1); }

int shell_status(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

int wait_all_children(pid_t main_pid, const std::function<void()>& on_interrupt) {
  int result = 0;
  for (;;) {
    int status;
    pid_t p = ::waitpid(-1, &status, __WALL);
    if (p < 0) {
      if (errno == EINTR) {
        if (on_interrupt) on_interrupt();
        continue;
      }
      break;  // ECHILD: nothing left
    }
    if (p == main_pid && (WIFEXITED(status) || WIFSIGNALED(status))) result = shell_status(status);
  }
  return result;
}

}  // namespace rastro::capture
