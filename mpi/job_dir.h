// A job on disk: the directory of per-rank traces an MPI capture (or an MPI replay) writes,
// DIR/rank-R.rastro, or the trace `rastro merge` made of one.
#pragma once

#include <string>
#include <vector>

#include "mpi/job_merge.h"
#include "trace/model/trace.h"

namespace rastro::mpi {

// DIR's rank-R.rastro files in rank order. Throws rastro::Error (exit 2) when DIR is not a
// directory or holds none.
std::vector<std::string> rank_trace_paths(const std::string& dir);

// Reads DIR's rank traces and merges them (mpi/job_merge.h). A trace cut short is merged as its
// intact prefix, with a warning in `warnings`.
trace::Trace merge_job_dir(const std::string& dir, MergeReport* report, std::vector<std::string>* warnings);

// A merged job: DIR merged now, or a trace file `rastro merge` wrote (refused, naming it, when it
// is not one).
trace::Trace read_job(const std::string& dir_or_trace, std::vector<std::string>* warnings);

}  // namespace rastro::mpi
