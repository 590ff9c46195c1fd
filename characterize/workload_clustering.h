// Classes of similar rows (threads, files) by clustering their standardised feature vectors with
// Armadillo: k-means (static_spread seeding, deterministic) scored by the mean silhouette, or a
// diagonal-covariance Gaussian mixture (gmm_diag) scored by BIC. With k = 0 the number of classes
// is chosen: the k in 2..max_k with the best silhouette when it reaches 0.5 (else one class — a
// weaker structure is not worth a class), or the k in 1..max_k with the lowest BIC.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rastro::characterize {

enum class ClusterMethod { kKmeans, kGmm };

struct Clustering {
  std::vector<size_t> labels;  // per row, 0..k-1, classes numbered by decreasing size
  size_t k = 1;
  std::string score_name;      // "silhouette" or "bic"
  double score = 0.0;          // of the chosen k (k-means with one class: the best rejected one)
  std::vector<std::vector<double>> centroids;  // per class, in standardised units
};

inline constexpr double kMinSilhouette = 0.5;

// rows: one feature vector per item, all the same length. k = 0 chooses k. Throws rastro::Error
// when k exceeds the number of distinct rows.
Clustering cluster_rows(const std::vector<std::vector<double>>& rows, ClusterMethod method, size_t k,
                        size_t max_k = 8);

// Mean silhouette of a labelling (Rousseeuw 1987), Euclidean distance; 0 for k < 2. Visible for
// testing.
double mean_silhouette(const std::vector<std::vector<double>>& rows, const std::vector<size_t>& labels, size_t k);

}  // namespace rastro::characterize
