// What the CLI tests share: running the built `rastro` (RASTRO_EXE) as a user does, in a shell or
// as a child we can signal, and a scratch directory per test.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <cctype>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace rastro::cli_test {

inline const std::string kRastro = RASTRO_EXE;

// Sanitizer builds (scripts/sanitizers.sh) run rastro several times slower: an overlap that the
// release build keeps exactly (how many requests are in flight at once) holds there only within
// bounds, since completions arrive while the slowed replayer is still submitting.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif

struct ShellRun {
  int status = -1;  // exit status, or 128 + signal
  std::string out;  // stdout and stderr together
};

inline int decode_status(int st) { return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st); }

// Runs a shell command line, capturing stdout+stderr.
inline ShellRun sh(const std::string& cmd) {
  ShellRun r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  r.status = decode_status(pclose(p));
  return r;
}

struct CliRun {
  int status = -1;  // exit status, or 128 + signal
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `rastro ARGS` (ARGS is shell text), stdout and stderr captured apart.
inline CliRun rastro(const std::string& args) {
  char err_path[] = "/tmp/rastro-cli-stderr-XXXXXX";
  const int fd = mkstemp(err_path);
  if (fd < 0) return {};
  close(fd);
  CliRun r;
  FILE* p = popen((kRastro + " " + args + " 2>" + err_path).c_str(), "r");
  if (p) {
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    r.status = decode_status(pclose(p));
  }
  std::ifstream in(err_path);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  unlink(err_path);
  return r;
}

// A test parameter such as "workers --processes" as a gtest name: "workers__processes".
inline std::string param_name(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh directory named after the running test, removed afterwards.
struct TempDir {
  explicit TempDir(const std::string& prefix = "rastro-cli") {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    // A parameterised test's name has a '/' ("Test/ebpf_workers"): one directory, not two (the
    // destructor would remove only the inner one).
    std::string name = info->name();
    std::replace(name.begin(), name.end(), '/', '_');
    path = (std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(getpid()) + "-" + name)).string();
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string path;
};

// A child process running argv with stdout+stderr going to `log`; the test signals and waits for it.
class Child {
 public:
  Child(const std::vector<std::string>& argv, const std::string& log) {
    pid_ = fork();
    if (pid_ == 0) {
      // LeakSanitizer (sanitizer builds) cannot run inside a ptrace-traced process tree.
      setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
      if (!freopen(log.c_str(), "w", stdout) || dup2(fileno(stdout), 2) < 0) _exit(126);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
  }
  ~Child() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int sig) const { kill(pid_, sig); }
  // Waits at most `limit`; returns the decoded exit status, or -1 (and kills the child) on timeout.
  int wait(std::chrono::seconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    int st = 0;
    while (std::chrono::steady_clock::now() < end) {
      if (waitpid(pid_, &st, WNOHANG) == pid_) {
        reaped_ = true;
        return decode_status(st);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
};

// Polls `ready` every 20 ms for at most `limit`; true once it holds.
inline bool wait_until(const std::function<bool()>& ready, std::chrono::seconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return ready();
}

}  // namespace rastro::cli_test
