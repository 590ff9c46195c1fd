// What each replay thread brings back besides its records: its counters, how many of its requests
// waited on a dependency, a warning, and which OS thread it was. One slot per plan thread, written
// only by that thread (no lock on the way), merged into the EngineResult once every thread ended.
// Used by the workers engine and the compiled replayer alike.
//
// With EngineOptions::processes each traced process is replayed in a process of its own
// (replay_threads.h): its slots and its threads' record streams live in that process's memory,
// so before it exits it encodes them (encode), and the engine's process adopts them (adopt).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "replay/engines/engine.h"
#include "replay/engines/replay_threads.h"
#include "replay/runtime/call_executor.h"
#include "replay/runtime/record_log.h"

namespace rastro::replay::detail {

struct ThreadOutcome {
  ExecStats stats;
  uint64_t dependency_waits = 0;
  std::string warning;  // --rt: why SCHED_FIFO was refused
  int32_t os_tid = 0;   // gettid() of the replay thread
  int32_t os_pid = 0;   // getpid(): its process
};

class ThreadOutcomes {
 public:
  explicit ThreadOutcomes(size_t threads) : slots_(threads) {}
  ThreadOutcome& operator[](size_t t) { return slots_[t]; }

  // After every thread ended: the counters and the first warning into `res`, and with
  // `record_os_threads` each request's OS thread (EngineResult::os_threads).
  void merge_into(EngineResult& res, const Plan& plan, bool record_os_threads) const;

  // For ReplayThreads::use_processes: each replay process encodes its threads' slots and streams of
  // `log`; the engine's process adopts them into these slots and `log`.
  ReplayThreads::ProcessOutcomes exchange(RecordLog& log) {
    return {[this, &log](std::span<const size_t> threads) { return encode(threads, log); },
            [this, &log](std::string_view bytes) { adopt(bytes, log); }};
  }

  // The slots and record streams of plan threads `threads`, as bytes.
  std::string encode(std::span<const size_t> threads, const RecordLog& log) const;
  // Takes what encode() gave into these slots and `log`. Throws rastro::Error when `bytes` is
  // not such a record (naming what is wrong), leaving what it had adopted.
  void adopt(std::string_view bytes, RecordLog& log);

 private:
  std::vector<ThreadOutcome> slots_;
};

}  // namespace rastro::replay::detail
