// Validation of a synthetic trace against the model it was drawn from: the synthetic trace is
// characterized again, its threads grouped by the class `rastro synth` recorded for them, and
// every class feature compared with the model's within a stated tolerance — absolute for
// fractions, relative for ratios, the two-sample Kolmogorov-Smirnov distance for distributions.
//
// The operation mix is compared over the categories the synthesizer draws (read, write, open,
// close, meta, sync, namespace), renormalised: "other" calls (mmap, fcntl, ...) are in the model
// for the record but not synthesized, and are listed as such. The namespace calls are compared
// kind by kind (unlink, rename, mkdir, ...), and the sessions by how they opened (create, append).
#pragma once

#include <string>
#include <vector>

#include "characterize/workload_model.h"
#include "trace/model/trace.h"

namespace rastro::characterize {

struct FeatureCheck {
  std::string scope;    // class name, or "workload"
  std::string feature;
  std::string measure;  // "abs", "rel" or "ks"
  double model = 0.0, synthetic = 0.0;  // values (for "ks": the sample sizes)
  double distance = 0.0, tolerance = 0.0;
  bool pass = false;
};

struct ValidationReport {
  std::vector<FeatureCheck> checks;
  std::vector<std::string> not_synthesized;  // features the model records but synth does not draw
  bool pass() const;
};

// Throws rastro::Error when `synthetic` was not written by `rastro synth` (no class labels).
ValidationReport validate_synthetic(const WorkloadModel& model, const trace::Trace& synthetic);

std::string validation_markdown(const ValidationReport& r);
nlohmann::json to_json(const ValidationReport& r);

}  // namespace rastro::characterize
