// The catalogue of a campaign run by a fake laboratory whose instruments have a known
// perturbation (the application runs slower under them) and a known recording error (a fixed
// delay added around each call in the trace): the catalogue must recover both within their
// stated uncertainty, and its total bias must be against the uninstrumented reference runs.
#include "campaign/report/catalogue_report.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include <gtest/gtest.h>

#include "campaign/campaign_runner.h"

namespace rastro::campaign {
namespace {

struct FakeInstrument {
  double slowdown;  // application timing under the instrument / without it
  double delay_us;  // added to every call's duration in the trace
};

const std::map<std::string, FakeInstrument> kInstruments = {{"strace", {1.5, 12}}, {"ebpf", {1.0, 0.5}}};

class KnownErrorExecutor : public RunExecutor {
 public:
  std::string unavailable(const std::string&) override { return ""; }
  RunOutcome execute(const RunSpec& run) override {
    std::seed_seq seq(run.key.begin(), run.key.end());
    std::mt19937_64 rng(seq);
    std::normal_distribution<double> z(0, 1);
    // The application's own mean call time in this run: 100 µs · level, 5 % run-to-run spread.
    const double undisturbed_ns = 100e3 * run.level * (1 + 0.05 * z(rng));
    RunOutcome o;
    o.ok = true;
    if (run.instrument == "reference") {
      o.measurements.push_back({run.type, undisturbed_ns, undisturbed_ns, 0, {}});
      return o;
    }
    const FakeInstrument& f = kInstruments.at(run.instrument);
    const double application_ns = undisturbed_ns * f.slowdown;
    const double delay_ns = f.delay_us * 1e3 * (1 + 0.01 * z(rng));  // per-call jitter averages out
    Measurement m{run.type, application_ns + delay_ns, application_ns, 0, {}};
    m.extra["recording_ns"] = delay_ns;
    o.measurements.push_back(m);
    return o;
  }
};

TEST(CatalogueReport, RecoversAKnownPerturbationAndRecordingErrorWithinTheirUncertainty) {
  CampaignConfig c = quick_config(CampaignKind::kCapture);
  c.instruments = {"reference", "strace", "ebpf"};
  c.types = {"rr"};
  c.levels = {1, 2};
  c.replicates = 10;
  auto dir = std::filesystem::temp_directory_path() / ("rastro-known-error-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  KnownErrorExecutor ex;
  run_campaign(c, ex, {.dir = dir.string(), .progress = false});
  ResultsStore store((dir / "results.sqlite").string(), c.to_json());
  nlohmann::json cat = build_catalogue({{c, store.runs()}});
  size_t checked = 0;
  for (const auto& inst : cat["instruments"]) {
    const std::string name = inst["instrument"];
    if (name == "reference") continue;
    const FakeInstrument& f = kInstruments.at(name);
    for (const auto& e : inst["entries"]) {
      SCOPED_TRACE(name + " level " + e["level"].dump());
      const double level = e["level"].get<double>();
      const double perturbation = (f.slowdown - 1) * 100;
      const double recording = f.delay_us / (100 * level * f.slowdown) * 100;
      ASSERT_TRUE(e["perturbation_rel"].is_number()) << e["undefined"].dump();
      ASSERT_TRUE(e["recording_error_rel"].is_number()) << e["undefined"].dump();
      EXPECT_NEAR(e["perturbation_rel"].get<double>(), perturbation, 2 * e["perturbation_u_rel"].get<double>());
      EXPECT_NEAR(e["recording_error_rel"].get<double>(), recording, 2 * e["recording_error_u_rel"].get<double>());
      EXPECT_GT(e["perturbation_u_rel"].get<double>(), 0);
      // The total bias is against the uninstrumented runs, so it holds both parts.
      const double total = ((1 + perturbation / 100) * (1 + recording / 100) - 1) * 100;
      EXPECT_NEAR(e["bias_rel"].get<double>(), total, e["U_rel"].get<double>());
      ++checked;
    }
  }
  EXPECT_EQ(checked, 4u);
  // The reference has no error split.
  for (const auto& inst : cat["instruments"]) {
    if (inst["instrument"] != "reference") continue;
    for (const auto& e : inst["entries"]) EXPECT_EQ(e["undefined"]["perturbation_rel"], "this is the reference");
  }
  std::filesystem::remove_all(dir);
}

TEST(CatalogueReport, ACellWithoutReferenceRunsHasNoBiasAndSaysWhy) {
  CampaignConfig c = quick_config(CampaignKind::kCapture);
  c.instruments = {"strace"};
  c.types = {"rr"};
  c.levels = {1};
  auto dir = std::filesystem::temp_directory_path() / ("rastro-no-reference-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  KnownErrorExecutor ex;
  run_campaign(c, ex, {.dir = dir.string(), .progress = false});
  ResultsStore store((dir / "results.sqlite").string(), c.to_json());
  const std::vector<CampaignResults> campaigns = {{c, store.runs()}};
  nlohmann::json cat = build_catalogue(campaigns);
  ASSERT_EQ(cat["instruments"].size(), 1u);
  const auto& e = cat["instruments"][0]["entries"][0];
  EXPECT_TRUE(e["bias_rel"].is_null());
  EXPECT_NE(e["undefined"]["bias_rel"].get<std::string>().find("no uninstrumented reference runs"), std::string::npos);
  EXPECT_TRUE(e["perturbation_rel"].is_null());
  EXPECT_TRUE(e["recording_error_rel"].is_number()) << "the recording error needs no reference";
  // results.csv leaves the reference empty rather than inventing one.
  std::string csv = results_csv(campaigns);
  ASSERT_NE(csv.find("strace,RR,1,0,1,"), std::string::npos) << csv;
  const std::string row = csv.substr(csv.find("strace,RR,1,0,1,"));
  EXPECT_NE(row.find(",,0,"), std::string::npos) << row;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rastro::campaign

namespace rastro::campaign {
namespace {

// An MPI campaign's runs as the executor reports them (campaign/mpi_job_measurement.h): rank 1's
// span carries a clock component (re-captures ± 3 µs, replays ± 4 µs), the writes none.
class MpiJobExecutor : public RunExecutor {
 public:
  std::string unavailable(const std::string&) override { return ""; }
  RunOutcome execute(const RunSpec& run) override {
    RunOutcome o;
    o.ok = true;
    const bool replay = run.instrument != "reference";
    const double jitter = 1000.0 * run.replicate;  // ns, so precision is defined
    Measurement write{"openmpi.write.r1", 20e3 + jitter, 21e3, 0, {{"clock_u_ns", 0.0}}};
    Measurement span{"openmpi.span.r1", 5e6 + jitter, 5.1e6, 0, {{"clock_u_ns", replay ? 4000.0 : 3000.0}}};
    o.measurements = {write, span};
    return o;
  }
};

TEST(CatalogueReport, AnMpiCellShowsTheClockComponentBesidePrecisionAndBias) {
  CampaignConfig c = quick_config(CampaignKind::kMpi);
  c.replicates = 3;
  auto dir = std::filesystem::temp_directory_path() / ("rastro-mpi-catalogue-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  MpiJobExecutor ex;
  run_campaign(c, ex, {.dir = dir.string(), .progress = false});
  ResultsStore store((dir / "results.sqlite").string(), c.to_json());
  const std::vector<CampaignResults> campaigns = {{c, store.runs()}};
  const nlohmann::json cat = build_catalogue(campaigns);
  size_t checked = 0;
  for (const auto& inst : cat["instruments"]) {
    const std::string name = inst["instrument"];
    if (name == "reference") {
      EXPECT_NE(inst["kind"].get<std::string>().find("MPI job captured"), std::string::npos);
    }
    for (const auto& e : inst["entries"]) {
      SCOPED_TRACE(name + " " + e["type"].get<std::string>());
      EXPECT_EQ(e["level"], 2);  // ranks
      const bool span = e["type"] == "OPENMPI.SPAN.R1";
      // Every replicate's clock_u is the same: u_clock = it, in µs.
      EXPECT_DOUBLE_EQ(e["u_clock"].get<double>(), span ? (name == "reference" ? 3.0 : 4.0) : 0.0);
      EXPECT_TRUE(e["precision_rel"].is_number());
      EXPECT_TRUE(e["bias_rel"].is_number());
      // uc = sqrt(sd² + u_bias² + u_clock²).
      EXPECT_NEAR(e["uc"].get<double>(), std::sqrt(std::pow(e["sd"].get<double>(), 2) + std::pow(e["u_bias"].get<double>(), 2) +
                                                   std::pow(e["u_clock"].get<double>(), 2)), 1e-9);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 4u);  // {reference, workers/fs/fullspeed} × {write, span}
  const std::string csv = results_csv(campaigns);
  EXPECT_NE(csv.find("workers/fs/fullspeed,OPENMPI.SPAN.R1,2,0,1,5000,5100,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",4\n"), std::string::npos) << csv;
  auto files = write_report(dir.string(), campaigns);
  std::ifstream md(files.markdown);
  const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("| u(clock) |"), std::string::npos);
  EXPECT_NE(text.find("| 4 µs (0.08%) |"), std::string::npos) << text;  // the replays' span: 4 µs of ~5000 µs
  EXPECT_NE(text.find("| 3 µs (0.06%) |"), std::string::npos) << text;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rastro::campaign
