// A synthetic trace drawn from a workload model: each synthetic thread (its own process, so
// replayers need no clone) belongs to one class and repeats open -> transfers (-> fsync) ->
// close sessions on the class's file pool, with stat calls mixed in, sizes, think times and
// durations drawn from the class's distributions. Files are /synth/<class>/t<tid>/f<N>, opened without
// O_CREAT and read within their drawn size, so `rastro replay --init` infers that they existed
// and sizes them from the reads (replay/runtime/fs_init.h). Transfers use pread64/pwrite64 so
// every offset is explicit. The class of each synthetic thread is in the header's settings
// ("classes": {tid: class}) for the validation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "characterize/workload_model.h"
#include "trace/model/trace.h"

namespace rastro::characterize {

struct SynthOptions {
  std::optional<uint64_t> threads;     // total synthetic threads (default: the model's)
  std::optional<double> duration_s;    // each thread runs this long (default: its drawn call count)
  uint64_t seed = 1;
};

// Parses "threads=N,duration=S" (either or both). Throws rastro::Error naming the bad item.
void parse_scale(const std::string& spec, SynthOptions& options);

trace::Trace synthesize(const WorkloadModel& model, const SynthOptions& options);

}  // namespace rastro::characterize
