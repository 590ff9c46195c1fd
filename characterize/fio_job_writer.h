// A workload model as a fio job file: per class, a read job and a write job (numjobs = the
// class's threads, scaled like `rastro synth --scale`) that move the class's mean bytes per
// thread (size: fio reads or writes its files once through, the last request of each cut at its
// end, so the bytes are exact) with its request-size mix (bssplit), access pattern (sequential
// when most transfers are), files per thread (nrfiles, fewer when the bytes are few: see the
// writer), think time and fsync rate.
// Reads and writes are separate jobs so fio moves exactly the model's bytes per operation class;
// their interleaving within a thread is not reproduced (the iolog exporter keeps it).
#pragma once

#include <string>

#include "characterize/workload_model.h"
#include "characterize/workload_synthesizer.h"

namespace rastro::characterize {

std::string fio_job_text(const WorkloadModel& model, const SynthOptions& options);
void write_fio_job(const std::string& path, const WorkloadModel& model, const SynthOptions& options);

// fio's bssplit value ("4096/60:65536/40") for a request-size distribution: its atoms, or ten
// deciles; integer percentages summing to 100. Visible for testing.
std::string fio_bssplit(const EmpiricalDistribution& sizes);

}  // namespace rastro::characterize
