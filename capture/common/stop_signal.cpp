#include "capture/common/stop_signal.h"

#include <signal.h>

#include <atomic>

namespace rastro::capture {

namespace {

std::atomic<pid_t> g_forward_pid{0};
std::atomic<int> g_count{0};
std::atomic<int> g_first_signal{0};
struct sigaction g_old_int, g_old_term;

void on_stop_signal(int sig, siginfo_t* info, void*) {
  int n = g_count.fetch_add(1) + 1;
  int expected = 0;
  g_first_signal.compare_exchange_strong(expected, sig);
  pid_t target = g_forward_pid.load();
  if (target <= 0) return;
  if (n >= 2) {
    ::kill(target, SIGKILL);
  } else if (info == nullptr || info->si_code != SI_KERNEL) {
    // SI_KERNEL = sent by the tty to the whole foreground process group: the workload has it.
    ::kill(target, sig);
  }
}

}  // namespace

StopSignalScope::StopSignalScope() {
  g_count = 0;
  g_first_signal = 0;
  struct sigaction sa{};
  sa.sa_sigaction = on_stop_signal;
  sa.sa_flags = SA_SIGINFO;  // no SA_RESTART: waits return EINTR
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &g_old_int);
  ::sigaction(SIGTERM, &sa, &g_old_term);
}

StopSignalScope::~StopSignalScope() {
  ::sigaction(SIGINT, &g_old_int, nullptr);
  ::sigaction(SIGTERM, &g_old_term, nullptr);
  g_forward_pid = 0;
}

void set_stop_forward_pid(pid_t pid) {
  g_forward_pid = pid;
  // A stop requested before the workload existed (e.g. while the BPF programs were loading) is
  // passed on now, or the workload would run to its natural end with nobody left to stop it.
  // Racing with the handler can deliver the signal twice; a second SIGINT/SIGTERM is harmless.
  int n = g_count.load();
  if (pid > 0 && n > 0) ::kill(pid, n >= 2 ? SIGKILL : g_first_signal.load());
}
bool stop_requested() { return g_count.load() > 0; }
int stop_signal() { return g_first_signal.load(); }

}  // namespace rastro::capture
