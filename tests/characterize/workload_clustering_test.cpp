#include "characterize/workload_clustering.h"

#include <random>

#include <gtest/gtest.h>

#include "common/error.h"

namespace rastro::characterize {
namespace {

std::vector<std::vector<double>> blobs(const std::vector<std::pair<double, double>>& centres, int per, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.1);
  std::vector<std::vector<double>> rows;
  for (auto [x, y] : centres)
    for (int i = 0; i < per; ++i) rows.push_back({x + noise(rng), y + noise(rng)});
  return rows;
}

// Points 0, 1 | 10, 11 on a line: s = 1 - 1/10.5 and 1 - 1/9.5 for each pair (by hand).
TEST(WorkloadClustering, SilhouetteByHand) {
  std::vector<std::vector<double>> rows = {{0}, {1}, {10}, {11}};
  double expected = ((1 - 1 / 10.5) + (1 - 1 / 9.5)) / 2;
  EXPECT_NEAR(mean_silhouette(rows, {0, 0, 1, 1}, 2), expected, 1e-12);
  EXPECT_LT(mean_silhouette(rows, {0, 1, 0, 1}, 2), 0.0);
}

TEST(WorkloadClustering, KmeansFindsThreeSeparatedBlobs) {
  auto rows = blobs({{0, 0}, {5, 5}, {0, 5}}, 20, 1);
  Clustering c = cluster_rows(rows, ClusterMethod::kKmeans, 0);
  ASSERT_EQ(c.k, 3u);
  EXPECT_GT(c.score, 0.8);
  for (int b = 0; b < 3; ++b)
    for (int i = 1; i < 20; ++i) EXPECT_EQ(c.labels[b * 20 + i], c.labels[b * 20]);
  EXPECT_NE(c.labels[0], c.labels[20]);
  EXPECT_NE(c.labels[0], c.labels[40]);
}

TEST(WorkloadClustering, OneBlobStaysOneClass) {
  auto rows = blobs({{1, 1}}, 40, 2);
  Clustering c = cluster_rows(rows, ClusterMethod::kKmeans, 0);
  EXPECT_EQ(c.k, 1u);
  EXPECT_LT(c.score, kMinSilhouette);
  Clustering g = cluster_rows(rows, ClusterMethod::kGmm, 0);
  EXPECT_EQ(g.k, 1u);
}

TEST(WorkloadClustering, GmmBicPicksTwoForTwoBlobs) {
  auto rows = blobs({{0, 0}, {6, 6}}, 30, 3);
  Clustering c = cluster_rows(rows, ClusterMethod::kGmm, 0);
  EXPECT_EQ(c.k, 2u);
  EXPECT_EQ(c.score_name, "bic");
  EXPECT_NE(c.labels[0], c.labels[30]);
}

TEST(WorkloadClustering, ChosenKAndLargestClassFirst) {
  auto rows = blobs({{0, 0}, {6, 6}}, 10, 4);
  rows.resize(14);  // 10 + 4: class 0 must be the larger
  Clustering c = cluster_rows(rows, ClusterMethod::kKmeans, 2);
  EXPECT_EQ(c.k, 2u);
  EXPECT_EQ(c.labels[0], 0u);
  EXPECT_EQ(c.labels[13], 1u);
  EXPECT_THROW(cluster_rows({{1}, {1}}, ClusterMethod::kKmeans, 2), Error);
}

}  // namespace
}  // namespace rastro::characterize
