// Runs a child process (the campaign drives rastro's own sub-commands as separate processes, so a
// crashing instrument cannot take the campaign down and every run gets a fresh address space).
#pragma once

#include <string>
#include <vector>

namespace rastro::campaign {

struct ProcessResult {
  int status = -1;       // shell-style: exit code, or 128+signal
  std::string output;    // combined stdout+stderr (tail kept when long)
  bool timed_out = false;
};

// Runs argv[0] (searched in PATH when it has no '/'), waits at most timeout_s seconds (then
// SIGKILL). stdin is /dev/null.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s);

// Whether run_process could execute `program`: an executable file at that path when it has a
// '/', else in one of $PATH's directories.
bool executable_in_path(const std::string& program);

// A long-running child stopped by stop(): used for background load generators.
class BackgroundProcess {
 public:
  explicit BackgroundProcess(const std::vector<std::string>& argv);
  ~BackgroundProcess();
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;
  void stop();

 private:
  int pid_ = -1;
};

// The path of the running rastro executable (/proc/self/exe).
std::string self_executable();

}  // namespace rastro::campaign
