// The reference value of each cell of a campaign (thesis §5.1.4, Fig. 5.3): what an instrument or
// replayer is compared with. A cell is one measured type × load level × background × pause.
//
// - Capture instruments (and the reference's own replicates): the mean of the uninstrumented
//   reference runs of the cell, which the runner interleaves with the instrument runs in the same
//   randomised order; u = s/√n_ref from their run-to-run spread, never from the requests inside
//   one run (those are not independent draws: readahead makes the same reads slow every time).
// - Replayers: the original trace's application-level timing (thesis §6.1.4); with `originals`
//   independent original runs per cell, u = s/√originals, s from the uninstrumented runs of the
//   cell (one original: the spread of one run).
// - fio under an instrument: the cell's runs of fio alone (the slowdown fio sees).
// A cell with fewer than two reference runs has no reference: its bias stays undefined.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "campaign/results_store.h"

namespace rastro::campaign {

struct CellReference {
  size_t n = 0;                 // successful uninstrumented runs of the cell
  std::optional<double> mean;   // their mean, ns (set when n >= 2)
  std::optional<double> sd;     // their run-to-run standard deviation, ns (set when n >= 2)
};

// The reference of a run's measurement, in ns, with its standard uncertainty.
struct RowReference {
  std::optional<double> value;
  double u = 0;
};

// The catalogue's name of a measured type: upper case, with the pause and a cache state other than
// cold ("SR", "SW+10us", "READ", "SR(warm)").
std::string type_label(const RunSpec& spec, const std::string& measured_type);

// Which runs are the reference of an instrument's runs: "reference" (the uninstrumented benchmark),
// except for fio under an instrument ("fio+strace"), whose slowdown is against fio alone ("fio").
std::string reference_source(const std::string& instrument);

// Cells are keyed by the reference source, type label, level and background.
std::string cell_key(const std::string& source, const RunSpec& spec, const std::string& measured_type);

// The runs that serve as references ("reference", "fio") of a campaign, summarised per cell.
std::map<std::string, CellReference> cell_references(const std::vector<StoredRun>& runs);

// The reference of one measurement of `run` given its cell's reference runs (see above).
RowReference row_reference(const RunSpec& run, const Measurement& m, const CellReference& cell);

}  // namespace rastro::campaign
