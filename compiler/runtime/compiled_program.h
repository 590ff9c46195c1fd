// The run-time side of a compiled replayer (SPEC §4 "compiled", ARTC-style). The generated program
// is the trace as static data plus one straight-line function per traced thread:
//
//   void thread_3_part_0(rastro::compiled::ThreadContext& c) {
//     c.wait(12); c.wait(15); c.issue(17);   // request 17 waits for 12 and 15
//     c.issue(18);
//     ...
//   }
//
// Everything else — sandboxed path resolution, fd mapping, executing a call, timing, the output
// trace and summary — is the same library code the event-based replayer runs (replay/runtime,
// replay/session), linked in, not copied.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rastro::compiled {

struct StaticString {
  const char* data;  // may contain NUL and any byte: use size
  uint32_t size;
};

struct StaticArg {
  uint8_t type;
  int64_t value;
  uint32_t str;
};

struct StaticEvent {
  uint64_t seq;
  int32_t pid, tid;
  int64_t begin_ns, end_ns;
  int32_t nr;
  uint32_t name;
  uint8_t nargs;
  StaticArg args[6];
  int64_t rvalue;
  uint32_t flags;
  int64_t gap_offcpu_ns;  // trace::Event::gap_offcpu_ns: what --think-work does not work through
};

struct StaticRequest {
  uint32_t event, thread, deps_begin;
  uint8_t action;
  uint32_t path0, path1;
  int32_t fd_keys[8];  // the plan's fd keys of this request (replay::FdKeys)
};

struct StaticDep {
  uint32_t request;
  uint8_t kind;
};

class ThreadContext;
using ThreadBody = void (*)(ThreadContext&);

struct StaticThread {
  int32_t pid, tid;
  const ThreadBody* parts;  // the thread's code, split into functions of bounded size
  size_t n_parts;
};

// Large tables are split into chunks (one translation unit each) to bound compile time.
template <typename T>
struct Chunks {
  const T* const* chunks;
  const size_t* sizes;
  size_t n_chunks;
};

struct CompiledTrace {
  const char* header_json;
  const char* ordering;  // "thread" | "fs" | "temporal"
  const char* timing;    // "fullspeed" | "timestamp" | "think[:S]"
  const char* source;    // the trace it was compiled from
  Chunks<StaticString> strings;  // ids 1..n (id 0 is the empty string)
  Chunks<StaticEvent> events;
  Chunks<StaticRequest> requests;
  Chunks<StaticDep> deps;
  const StaticThread* threads;
  size_t n_threads;
  // The plan's process seeds, fd key count and initial state: replay::replayer_data_json as CBOR.
  StaticString replayer_data;
};

struct ThreadState;

// What a generated thread function calls.
class ThreadContext {
 public:
  explicit ThreadContext(ThreadState* s) : s_(s) {}
  void wait(uint32_t request);   // until `request` has completed
  void issue(uint32_t request);  // wait for its creating clone, apply timing, run it, mark it done

 private:
  ThreadState* s_;
};

// The generated main(): options like `rastro replay` (--root, --init, --force, --drop-caches, --rt,
// -o, --summary-json), then the session.
int compiled_main(int argc, char** argv, const CompiledTrace& trace);

}  // namespace rastro::compiled
