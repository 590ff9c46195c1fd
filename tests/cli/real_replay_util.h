// Capturing a real program with the ptrace backend and replaying the capture at full speed with
// fs ordering and --init: the set-up of the real-program replay tests
// (pipe_special_replay_test.cpp, real_program_replay_test.cpp).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace rastro::cli_test {

// `rastro capture -b ptrace -q -o TRACE -- COMMAND` (COMMAND: words for the shell). Leak checking
// is off: the traced program, not rastro, is what runs under the tracer.
inline ShellRun capture_ptrace(const std::string& trace, const std::string& command) {
  return sh("ASAN_OPTIONS=detect_leaks=0 " + kRastro + " capture -b ptrace -q -o " + trace + " -- " + command);
}

// `rastro replay -O fs -T fullspeed -e ENGINE --root DIR/root --init TRACE`, writing DIR/out.rastro
// and DIR/summary.json; `summary` is parsed only when the replay succeeded.
struct FullspeedReplay {
  ShellRun run;
  std::string out, summary_path;
  nlohmann::json summary;
};

inline FullspeedReplay replay_fullspeed(const std::string& dir, const std::string& engine, const std::string& trace) {
  FullspeedReplay r;
  r.out = dir + "/out.rastro";
  r.summary_path = dir + "/summary.json";
  r.run = sh(kRastro + " replay -O fs -T fullspeed -e " + engine + " --root " + dir + "/root --init " + trace + " -o " +
             r.out + " --summary-json " + r.summary_path);
  if (r.run.status == 0) r.summary = nlohmann::json::parse(slurp(r.summary_path));
  return r;
}

}  // namespace rastro::cli_test
