// The runner with a deterministic executor: retries, unavailable instruments, and resume after
// an interruption giving exactly the same stored results (and so the same catalogue).
#include "campaign/campaign_runner.h"

#include <filesystem>
#include <random>

#include <gtest/gtest.h>

#include "campaign/report/catalogue_report.h"
#include "campaign/results_store.h"

namespace rastro::campaign {
namespace {

// Values depend only on the run key, like a perfectly repeatable laboratory.
class FakeExecutor : public RunExecutor {
 public:
  std::string unavailable(const std::string& instrument) override {
    return instrument == "stap" ? "SystemTap cannot load modules here" : "";
  }
  RunOutcome execute(const RunSpec& run) override {
    ++calls;
    RunOutcome o;
    if (run.instrument == "ptrace" && run.replicate == 0 && !failed_once[run.key]++) {
      o.error = "transient failure";
      return o;
    }
    std::seed_seq seq(run.key.begin(), run.key.end());
    std::mt19937_64 rng(seq);
    std::normal_distribution<double> noise(0, 50);
    double ref = 1000.0 * run.level;
    double bias = run.instrument == "strace" ? 1.5 : run.instrument == "reference" ? 1.0 : 1.05;
    o.ok = true;
    o.measurements.push_back({run.type, ref * bias + noise(rng), ref + noise(rng), 5.0, {}});
    return o;
  }
  int calls = 0;
  std::map<std::string, int> failed_once;
};

CampaignConfig small() {
  CampaignConfig c = quick_config(CampaignKind::kCapture);
  c.instruments = {"reference", "strace", "ptrace", "stap"};
  c.replicates = 4;
  return c;
}

std::string temp_dir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("rastro-campaign-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  return d.string();
}

TEST(CampaignRunner, RetriesAndMarksUnavailable) {
  std::string dir = temp_dir("retry");
  FakeExecutor ex;
  auto s = run_campaign(small(), ex, {.dir = dir, .progress = false});
  EXPECT_EQ(s.failed, 0u);
  size_t stap_runs = 0;
  ResultsStore store(dir + "/results.sqlite", small().to_json());
  for (const auto& r : store.runs()) {
    if (r.spec.instrument == "stap") {
      ++stap_runs;
      EXPECT_EQ(r.status, "failed");
      EXPECT_NE(r.error.find("unavailable: SystemTap"), std::string::npos);
    } else {
      EXPECT_EQ(r.status, "ok") << r.spec.key << ": " << r.error;
    }
    if (r.spec.instrument == "ptrace" && r.spec.replicate == 0) {
      EXPECT_EQ(r.attempts, 2);
    }
  }
  EXPECT_EQ(stap_runs, s.unavailable);
  std::filesystem::remove_all(dir);
}

TEST(CampaignRunner, ResumedCampaignEqualsUninterruptedOne) {
  std::string a = temp_dir("whole"), b = temp_dir("resumed");
  FakeExecutor whole, part1, part2;
  run_campaign(small(), whole, {.dir = a, .progress = false});
  auto first = run_campaign(small(), part1, {.dir = b, .progress = false, .max_runs = 7});
  EXPECT_TRUE(first.interrupted);
  auto second = run_campaign(small(), part2, {.dir = b, .progress = false});
  EXPECT_FALSE(second.interrupted);
  EXPECT_EQ(second.already_done, 7u);
  ResultsStore sa(a + "/results.sqlite", small().to_json()), sb(b + "/results.sqlite", small().to_json());
  std::string csv_a = results_csv({{small(), sa.runs()}}), csv_b = results_csv({{small(), sb.runs()}});
  EXPECT_EQ(csv_a, csv_b);
  EXPECT_EQ(build_catalogue({{small(), sa.runs()}}).dump(), build_catalogue({{small(), sb.runs()}}).dump());
  std::filesystem::remove_all(a);
  std::filesystem::remove_all(b);
}

TEST(CampaignRunner, RefusesAStoreOfAnotherCampaign) {
  std::string dir = temp_dir("other");
  FakeExecutor ex;
  run_campaign(small(), ex, {.dir = dir, .progress = false, .max_runs = 1});
  CampaignConfig other = small();
  other.replicates = 5;
  EXPECT_ANY_THROW(run_campaign(other, ex, {.dir = dir, .progress = false}));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rastro::campaign
