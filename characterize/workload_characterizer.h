// From a trace to a workload model: measure the features (workload_features.h), cluster the
// threads' feature vectors into classes (workload_clustering.h) and reduce each class to the
// parameters of workload_model.h. Files are clustered too, for the report.
#pragma once

#include <string>
#include <vector>

#include "characterize/workload_clustering.h"
#include "characterize/workload_features.h"
#include "characterize/workload_model.h"
#include "trace/model/trace.h"

namespace rastro::characterize {

struct CharacterizeOptions {
  ClusterMethod method = ClusterMethod::kKmeans;
  size_t k = 0;  // 0: chosen automatically
  size_t max_k = 8;
};

struct FileClass {
  uint64_t files = 0;
  double share = 0.0;
  EmpiricalDistribution size, accesses;
  double write_byte_fraction = 0.0;
};

struct Characterization {
  WorkloadFeatures features;
  WorkloadModel model;
  std::vector<size_t> thread_class;  // per features.threads entry
  std::vector<FileClass> file_classes;
};

// The names of the per-thread clustering features, in vector order.
const std::vector<std::string>& thread_feature_names();
std::vector<double> thread_feature_vector(const ThreadFeatures& t);

// One class's parameters from the threads listed in `members` (indices into w.threads).
ClassModel build_class_model(const WorkloadFeatures& w, const std::vector<size_t>& members);

Characterization characterize(const trace::Trace& trace, const std::string& source,
                              const CharacterizeOptions& options = {});

}  // namespace rastro::characterize
