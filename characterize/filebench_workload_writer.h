// A workload model as a Filebench workload (.f, Filebench's workload model language): per class,
// a fileset (the class's files, sizes from the model's file-size distribution as a tabular
// randvar, entries preallocated but for the ones its creates need) and a process whose threads
// (the class's, scaled like `rastro synth --scale`) repeat one cycle of sessions in the class's
// proportions: createfile + writes, openfile + appendfile, openfile + readwholefile or reads and
// writes, closefile, fsync at the class's rate, deletefile/makedir/removedir for its name-space
// changes and statfile for its metadata calls. Request sizes are tabular randvars too. What the
// language cannot say (rename, link, think times, failed opens) is listed in a comment.
#pragma once

#include <string>

#include "characterize/workload_model.h"
#include "characterize/workload_synthesizer.h"

namespace rastro::characterize {

std::string filebench_workload_text(const WorkloadModel& model, const SynthOptions& options);
void write_filebench_workload(const std::string& path, const WorkloadModel& model, const SynthOptions& options);

// A Filebench tabular randvar's table ("{{10, 512, 4096}, ...}") for a distribution: its atoms
// (each a one-value range) or ten deciles; integer percentages summing to 100, as Filebench
// requires. Visible for testing.
std::string filebench_randtable(const EmpiricalDistribution& d);

}  // namespace rastro::characterize
