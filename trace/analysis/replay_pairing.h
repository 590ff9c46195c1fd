// Pairs each call of an original trace with its replay in a replayed trace (a replayer's output:
// one event per original call, the traced pid/tid, call and arguments, the traced result as
// expected_rvalue, flag kEventReplayed). Pairs are made per thread, in order: the replayers write
// their events in the plan's begin order, keeping each thread's calls in order, but renumber seq;
// the original may be stored in another order (a capture writes at syscall exit, so by end), so
// neither seq nor file position pairs them — a thread's n-th call does. Within a thread the two
// orders differ only where the thread's own calls overlap (io_uring requests: begin = submission,
// end = completion), so a call pairs with the first not yet paired call of its thread on the other
// side that is the same call (syscall, arguments, strings, traced result), looked for among the
// next kPairingWindow; identical calls are interchangeable.
//
// Streaming: both traces are read block by block, the one with fewer calls waiting first; memory
// holds the calls read on one side and not yet on the other (a block or two when both files are in
// begin or end order), never the whole traces.
//
// Anything that is not the replay of the original throws rastro::Error naming both files, the
// event, its thread and why: a trace that is not a replayer's output (swapped arguments are pointed
// out), the replay of another trace (a thread's calls that do not pair within the window, or no
// call of the first blocks pairing at all), a replay cut short or longer.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "trace/io/trace_reader.h"
#include "trace/model/event.h"
#include "trace/model/string_table.h"

namespace rastro::trace {

inline constexpr size_t kPairingWindow = 256;

struct PairingSide {
  TraceReader* reader = nullptr;
  std::string path;  // for messages
};

// Called once per pair, in no particular order across threads; `strings` resolve the StrIds of the
// events of the same side.
using PairFn = std::function<void(const Event& original, const StringTable& original_strings, const Event& replayed)>;

// Returns the number of pairs.
uint64_t pair_replay(PairingSide original, PairingSide replayed, const PairFn& fn);

}  // namespace rastro::trace
