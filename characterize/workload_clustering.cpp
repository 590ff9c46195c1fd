#include "characterize/workload_clustering.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

#include <armadillo>
#include <fmt/format.h>

#include "common/error.h"

namespace rastro::characterize {
namespace {

// Columns are samples (Armadillo's convention for kmeans and gmm_diag), each feature z-scored;
// a constant feature becomes 0 so it cannot dominate or divide by zero.
arma::mat standardised(const std::vector<std::vector<double>>& rows) {
  size_t n = rows.size(), d = rows.front().size();
  arma::mat m(d, n);
  for (size_t j = 0; j < n; ++j)
    for (size_t i = 0; i < d; ++i) m(i, j) = rows[j][i];
  for (size_t i = 0; i < d; ++i) {
    arma::rowvec r = m.row(i);
    double mu = arma::mean(r), sd = n > 1 ? arma::stddev(r) : 0.0;
    m.row(i) = sd > 0 ? (r - mu) / sd : arma::rowvec(n, arma::fill::zeros);
  }
  return m;
}

size_t distinct_columns(const arma::mat& m) {
  std::set<std::vector<double>> seen;
  for (size_t j = 0; j < m.n_cols; ++j) seen.insert(arma::conv_to<std::vector<double>>::from(m.col(j)));
  return seen.size();
}

std::vector<size_t> nearest(const arma::mat& data, const arma::mat& means) {
  std::vector<size_t> labels(data.n_cols);
  for (size_t j = 0; j < data.n_cols; ++j) {
    double best = std::numeric_limits<double>::infinity();
    for (size_t c = 0; c < means.n_cols; ++c) {
      double dist = arma::accu(arma::square(data.col(j) - means.col(c)));
      if (dist < best) {
        best = dist;
        labels[j] = c;
      }
    }
  }
  return labels;
}

// Silhouette is O(n^2): above this many points it is computed on an evenly spaced subsample
// (as scikit-learn's sample_size), which keeps thousands of files to about a second.
constexpr size_t kSilhouetteSample = 2000;

double silhouette_exact(const arma::mat& data, const std::vector<size_t>& labels, size_t k) {
  size_t n = data.n_cols;
  std::vector<size_t> size(k, 0);
  for (size_t l : labels) ++size[l];
  double total = 0.0;
  for (size_t i = 0; i < n; ++i) {
    if (size[labels[i]] <= 1) continue;  // s(i) = 0 for a singleton
    std::vector<double> sum(k, 0.0);
    for (size_t j = 0; j < n; ++j)
      if (j != i) sum[labels[j]] += arma::norm(data.col(i) - data.col(j));
    double a = sum[labels[i]] / static_cast<double>(size[labels[i]] - 1);
    double b = std::numeric_limits<double>::infinity();
    for (size_t c = 0; c < k; ++c)
      if (c != labels[i] && size[c] > 0) b = std::min(b, sum[c] / static_cast<double>(size[c]));
    double s = std::max(a, b) > 0 ? (b - a) / std::max(a, b) : 0.0;
    total += s;
  }
  return total / static_cast<double>(n);
}

double silhouette(const arma::mat& data, const std::vector<size_t>& labels, size_t k) {
  if (k < 2) return 0.0;
  if (data.n_cols <= kSilhouetteSample) return silhouette_exact(data, labels, k);
  arma::mat sample(data.n_rows, kSilhouetteSample);
  std::vector<size_t> sample_labels(kSilhouetteSample);
  for (size_t s = 0; s < kSilhouetteSample; ++s) {
    size_t j = s * data.n_cols / kSilhouetteSample;
    sample.col(s) = data.col(j);
    sample_labels[s] = labels[j];
  }
  return silhouette_exact(sample, sample_labels, k);
}

struct Candidate {
  std::vector<size_t> labels;
  arma::mat means;
  double score = 0.0;
};

constexpr int kKmeansStarts = 5;

Candidate run_kmeans(const arma::mat& data, size_t k) {
  Candidate c;
  if (k == 1) {
    c.means = arma::mean(data, 1);
    c.labels.assign(data.n_cols, 0);
    return c;
  }
  // Several starts (static_spread, then random subsets with fixed seeds: deterministic), keeping
  // the one with the least within-class sum of squares: one start can merge two clear groups.
  double best = std::numeric_limits<double>::infinity();
  for (int start = 0; start < kKmeansStarts; ++start) {
    arma::mat means;
    bool ok;
    if (start == 0) {
      ok = arma::kmeans(means, data, k, arma::static_spread, 30, false);
    } else {
      arma::arma_rng::set_seed(static_cast<arma::arma_rng::seed_type>(1000 * k + static_cast<size_t>(start)));
      ok = arma::kmeans(means, data, k, arma::random_subset, 30, false);
    }
    if (!ok) continue;
    std::vector<size_t> labels = nearest(data, means);
    double sse = 0;
    for (size_t j = 0; j < data.n_cols; ++j) sse += arma::accu(arma::square(data.col(j) - means.col(labels[j])));
    if (sse < best) {
      best = sse;
      c.means = means;
      c.labels = std::move(labels);
    }
  }
  if (c.labels.empty()) throw Error(fmt::format("k-means with k = {} did not converge", k));
  c.score = silhouette(data, c.labels, k);
  return c;
}

Candidate run_gmm(const arma::mat& data, size_t k) {
  Candidate c;
  arma::gmm_diag g;
  if (!g.learn(data, k, arma::eucl_dist, arma::static_spread, 10, 30, 1e-6, false))
    throw Error(fmt::format("the Gaussian mixture with k = {} could not be fitted", k));
  c.means = g.means;
  arma::urowvec a = g.assign(data, arma::prob_dist);
  c.labels.assign(a.begin(), a.end());
  double n = static_cast<double>(data.n_cols), d = static_cast<double>(data.n_rows);
  double params = static_cast<double>(k) * 2.0 * d + static_cast<double>(k) - 1.0;
  c.score = -2.0 * g.sum_log_p(data) + params * std::log(n);
  return c;
}

// Renumbers classes by decreasing size (ties: first appearance), dropping empty ones.
void renumber(Clustering& out, const Candidate& c) {
  size_t k = c.means.n_cols;
  std::vector<size_t> size(k, 0), first(k, c.labels.size());
  for (size_t j = 0; j < c.labels.size(); ++j) {
    ++size[c.labels[j]];
    first[c.labels[j]] = std::min(first[c.labels[j]], j);
  }
  std::vector<size_t> order(k);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return size[a] != size[b] ? size[a] > size[b] : first[a] < first[b];
  });
  std::vector<size_t> rank(k);
  out.centroids.clear();
  for (size_t r = 0; r < k; ++r) {
    rank[order[r]] = r;
    if (size[order[r]] > 0) out.centroids.push_back(arma::conv_to<std::vector<double>>::from(c.means.col(order[r])));
  }
  out.k = out.centroids.size();
  out.labels.resize(c.labels.size());
  for (size_t j = 0; j < c.labels.size(); ++j) out.labels[j] = rank[c.labels[j]];
}

}  // namespace

double mean_silhouette(const std::vector<std::vector<double>>& rows, const std::vector<size_t>& labels, size_t k) {
  if (rows.empty()) return 0.0;
  size_t n = rows.size(), d = rows.front().size();
  arma::mat m(d, n);
  for (size_t j = 0; j < n; ++j)
    for (size_t i = 0; i < d; ++i) m(i, j) = rows[j][i];
  return silhouette(m, labels, k);
}

Clustering cluster_rows(const std::vector<std::vector<double>>& rows, ClusterMethod method, size_t k, size_t max_k) {
  Clustering out;
  out.score_name = method == ClusterMethod::kKmeans ? "silhouette" : "bic";
  if (rows.empty()) {
    out.k = 0;
    return out;
  }
  for (const auto& r : rows)
    if (r.size() != rows.front().size()) throw Error("clustering: feature vectors differ in length");
  arma::mat data = standardised(rows);
  size_t distinct = distinct_columns(data);
  if (k > distinct)
    throw Error(fmt::format("cannot form {} classes from {} distinct feature vectors", k, distinct));
  auto run = [&](size_t kk) { return method == ClusterMethod::kKmeans ? run_kmeans(data, kk) : run_gmm(data, kk); };
  Candidate chosen;
  if (k > 0) {
    chosen = run(k);
  } else if (method == ClusterMethod::kKmeans) {
    chosen = run(1);
    double best = -1.0;
    for (size_t kk = 2; kk <= std::min(max_k, distinct); ++kk) {
      Candidate c = run(kk);
      if (c.score > best) {
        best = c.score;
        if (c.score >= kMinSilhouette) chosen = std::move(c);
      }
    }
    if (chosen.means.n_cols == 1) chosen.score = std::max(0.0, best);
  } else {
    bool have = false;
    for (size_t kk = 1; kk <= std::min(max_k, distinct); ++kk) {
      Candidate c = run(kk);
      if (!have || c.score < chosen.score) {
        chosen = std::move(c);
        have = true;
      }
    }
  }
  out.score = chosen.score;
  renumber(out, chosen);
  return out;
}

}  // namespace rastro::characterize
