// Per-experiment results, the input of `rastro analyze` (docs/metrology.md).
//
// CSV with a header naming at least these columns, in any order (others are ignored):
//   instrument,type,level,background,replicate,measured,reference,reference_u
//   strace,RR,1,0,1,10.43,9.87,0.05
//   reference,RR,1,0,1,9.87,9.87,
// One row per replicated experiment. `reference_u` may be empty (= 0). An empty `reference` means
// the cell has no reference value (a campaign without uninstrumented reference runs for it): the
// bias of that group is then undefined, never computed against something else. Blank lines and
// lines starting with '#' are skipped. Fields may be double-quoted.
//
// Optional columns of the error decomposition (docs/metrology.md), both empty or absent when not
// measured:
//   application  the application's own timing of the measured calls in the same instrumented run
//   recording    the mean paired per-call difference trace − application in that run
// and, for a measured value that is an interval between hosts' clocks (docs/multinode.md):
//   clock_u      its Type-B standard uncertainty from the clock offsets' bounds (empty = 0)
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rastro::metrology {

inline constexpr const char* kReferenceInstrument = "reference";

struct ExperimentResult {
  std::string instrument;  // "reference" for the reference's own replicates
  std::string type;        // workload type: RR, RW, SR, SW, fileserver, ...
  std::string level;       // load level
  std::string background;  // background-load level
  long replicate = 0;
  double measured = 0;     // measured mean response time
  std::optional<double> reference;  // reference mean response time; empty = unknown
  double reference_u = 0;           // its standard uncertainty
  size_t line = 0;                  // source line, for messages
  std::optional<double> application;  // same-run application-level timing (capture only)
  std::optional<double> recording;    // same-run paired per-call difference trace − application
  double clock_u = 0;                 // Type-B u of a cross-host interval (clock offsets), ≥ 0
};

// Throws rastro::Error naming file:line and the problem (missing column, non-numeric or
// non-finite value, negative uncertainty, duplicate replicate in a group).
std::vector<ExperimentResult> read_results_csv(const std::string& path);
std::vector<ExperimentResult> parse_results_csv(const std::string& text, const std::string& source);

// Visible for testing: split one CSV line (double quotes, "" escapes).
std::vector<std::string> split_csv_line(const std::string& line);

}  // namespace rastro::metrology
