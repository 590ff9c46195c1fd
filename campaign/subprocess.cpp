#include "campaign/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "common/error.h"

namespace rastro::campaign {

namespace {

constexpr size_t kMaxOutput = 64 * 1024;

int shell_status(int wstatus) {
  if (WIFEXITED(wstatus)) return WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) return 128 + WTERMSIG(wstatus);
  return -1;
}

[[noreturn]] void exec_child(const std::vector<std::string>& argv, int out_fd) {
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, 0);
  if (out_fd >= 0) {
    dup2(out_fd, 1);
    dup2(out_fd, 2);
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  dprintf(2, "cannot execute %s: %s\n", args[0], strerror(errno));
  _exit(127);
}

}  // namespace

bool executable_in_path(const std::string& program) {
  if (program.empty()) return false;
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end == start ? "." : dirs.substr(start, end - start);
    if (access((dir + "/" + program).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

std::string self_executable() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw Error("cannot find the rastro executable (/proc/self/exe)");
  return std::string(buf, static_cast<size_t>(n));
}

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s) {
  ProcessResult result;
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) throw Error(fmt::format("pipe: {}", strerror(errno)));
  pid_t pid = fork();
  if (pid < 0) throw Error(fmt::format("fork: {}", strerror(errno)));
  if (pid == 0) {
    close(pipefd[0]);
    exec_child(argv, pipefd[1]);
  }
  close(pipefd[1]);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  char buf[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      result.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    pollfd p{pipefd[0], POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    ssize_t n = read(pipefd[0], buf, sizeof buf);
    if (n <= 0) break;
    result.output.append(buf, static_cast<size_t>(n));
    if (result.output.size() > 2 * kMaxOutput) result.output.erase(0, result.output.size() - kMaxOutput);
  }
  close(pipefd[0]);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  result.status = result.timed_out ? 128 + SIGKILL : shell_status(wstatus);
  return result;
}

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv) {
  pid_ = fork();
  if (pid_ < 0) throw Error(fmt::format("fork: {}", strerror(errno)));
  if (pid_ == 0) {
    setpgid(0, 0);
    int devnull = open("/dev/null", O_WRONLY);
    exec_child(argv, devnull);
  }
  setpgid(pid_, pid_);
}

void BackgroundProcess::stop() {
  if (pid_ <= 0) return;
  kill(-pid_, SIGTERM);
  kill(pid_, SIGTERM);
  int wstatus;
  while (waitpid(pid_, &wstatus, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

BackgroundProcess::~BackgroundProcess() { stop(); }

}  // namespace rastro::campaign
