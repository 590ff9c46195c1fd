// Hand-made traces for the CLI tests: one call appended to a trace, by syscall name.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "trace/model/trace.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::cli_test {

// Appends `name(args) = rv` by thread `tid` (its own process), from `begin_ns` for `duration_ns`.
inline void append_call(trace::Trace& t, const char* name, std::initializer_list<trace::Arg> args, int64_t rv,
                        int64_t begin_ns, int64_t duration_ns, int32_t tid = 77) {
  trace::Event e;
  e.seq = t.events.size();
  e.pid = e.tid = tid;
  e.begin_ns = begin_ns;
  e.end_ns = begin_ns + duration_ns;
  e.nr = trace::syscall_by_name(name)->nr;
  for (const auto& a : args) e.args[e.nargs++] = a;
  e.rvalue = rv;
  t.events.push_back(e);
}

}  // namespace rastro::cli_test
