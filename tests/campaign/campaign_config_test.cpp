#include "campaign/campaign_config.h"

#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "campaign/run_matrix.h"
#include "common/error.h"

namespace rastro::campaign {
namespace {

TEST(CampaignConfig, UnknownFactorIsAnErrorNamingIt) {
  auto j = nlohmann::json::parse(R"({"kind":"capture","replicats":5})");
  try {
    config_from_json(j, "c.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("replicats"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("c.json"), std::string::npos);
  }
}

TEST(CampaignConfig, BadValuesAreRejected) {
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"types":["xx"]})"), "c"), Error);
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"replicates":1})"), "c"), Error);
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"levels":[0]})"), "c"), Error);
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"instruments":["dtrace"]})"), "c"), Error);
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"ops":"many"})"), "c"), Error);
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"([1,2])"), "c"), Error);
}

TEST(CampaignConfig, RoundTripsThroughJson) {
  CampaignConfig c = quick_config(CampaignKind::kReplay);
  c.seed = 42;
  CampaignConfig back = config_from_json(c.to_json(), "x");
  EXPECT_EQ(back.to_json(), c.to_json());
}

TEST(RunMatrix, ExpandsEveryCombinationOnceInSeededOrder) {
  CampaignConfig c = quick_config(CampaignKind::kCapture);
  c.replicates = 3;
  auto runs = expand_runs(c);
  EXPECT_EQ(runs.size(), c.types.size() * c.levels.size() * c.instruments.size() * c.backgrounds.size() * 3);
  std::set<std::string> keys;
  for (const auto& r : runs) keys.insert(r.key);
  EXPECT_EQ(keys.size(), runs.size());
  auto again = expand_runs(c);
  for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].key, again[i].key);
  c.seed = 2;
  auto other = expand_runs(c);
  bool differs = false;
  for (size_t i = 0; i < runs.size(); ++i) differs |= runs[i].key != other[i].key;
  EXPECT_TRUE(differs) << "a different seed should give a different run order";
}

TEST(RunMatrix, ReplayUsesTimestampOnlyForPausedTraces) {
  CampaignConfig c = default_config(CampaignKind::kReplay);
  c.types = {"sr"};
  c.levels = {1};
  c.replicates = 2;
  c.replayers = {"workers"};
  c.orderings = {"fs"};
  for (const auto& r : expand_runs(c))
    if (r.instrument == "workers" && r.pause_us == 0) {
      EXPECT_EQ(r.timing, "fullspeed") << r.key;
    }
}

}  // namespace
}  // namespace rastro::campaign

namespace rastro::campaign {
namespace {
// Fuzzer finding F1 (docs/reliability.md): out-of-range or fractional integers are errors.
TEST(CampaignConfig, IntegersAreRangeChecked) {
  std::ifstream in(std::string(RASTRO_SOURCE_DIR) + "/tests/fuzz/crashes/campaign_config-float-to-int-overflow.json");
  ASSERT_TRUE(in) << "reproducer missing";
  nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_THROW(config_from_json(j, "repro"), Error);
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"replicates":2.5})"), "c"), Error);
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"ops":-1})"), "c"), Error);
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"levels":[1e300]})"), "c"), Error);
  EXPECT_EQ(config_from_json(nlohmann::json::parse(R"({"ops":7})"), "c").ops, 7u);
}
TEST(CampaignConfig, ThesisPresetIsTheThesisDesignAndValid) {
  CampaignConfig c = thesis_capture_config();
  EXPECT_EQ(c.types, (std::vector<std::string>{"rr", "rw", "sr", "sw"}));
  EXPECT_EQ(c.levels, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(c.ops, 5000u);
  EXPECT_GE(c.file_size, c.ops * c.block);
  EXPECT_EQ(config_from_json(c.to_json(), "thesis").to_json(), c.to_json());
}

TEST(RunMatrix, FioCrossCheckAddsFioAloneAndUnderEachInstrument) {
  CampaignConfig c = quick_config(CampaignKind::kCapture);
  c.instruments = {"reference", "strace"};
  c.types = {"sr"};
  c.levels = {1};
  c.fio = true;
  std::multiset<std::string> names;
  for (const auto& r : expand_runs(c)) names.insert(r.instrument);
  EXPECT_EQ(names.count("fio"), 3u);
  EXPECT_EQ(names.count("fio+strace"), 3u);
  EXPECT_EQ(names.count("strace"), 3u);
  // Off by default, and absent from the stored definition then (older stores still resume).
  EXPECT_FALSE(quick_config(CampaignKind::kCapture).to_json().contains("fio"));
  EXPECT_TRUE(config_from_json(c.to_json(), "x").fio);
  nlohmann::json replay = {{"kind", "replay"}, {"fio", true}};
  EXPECT_THROW(config_from_json(replay, "x"), Error);
}

}  // namespace
}  // namespace rastro::campaign

namespace rastro::campaign {
namespace {

TEST(CampaignConfig, CacheStateIsAFactorAndDropCachesItsOlderSpelling) {
  auto cold = config_from_json(nlohmann::json::parse(R"({"kind":"capture","drop_caches":true})"), "c");
  EXPECT_EQ(cold.cache, std::vector<std::string>{"cold"});
  auto warm = config_from_json(nlohmann::json::parse(R"({"kind":"capture","drop_caches":false})"), "c");
  EXPECT_EQ(warm.cache, std::vector<std::string>{"warm"});
  auto both = config_from_json(nlohmann::json::parse(R"({"kind":"capture","cache":["warm","cold"]})"), "c");
  EXPECT_EQ(both.cache, (std::vector<std::string>{"warm", "cold"}));
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"cache":["cold"],"drop_caches":true})"), "c"), Error);
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"cache":["tepid"]})"), "c"), Error);
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"cache":["cold","cold"]})"), "c"), Error);
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"cache":[]})"), "c"), Error);
}

TEST(CampaignConfig, WarmupAndOriginalsAreChecked) {
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"ops":100,"warmup":100})"), "c"), Error);
  EXPECT_EQ(config_from_json(nlohmann::json::parse(R"({"ops":100,"warmup":99})"), "c").warmup, 99u);
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"kind":"capture","originals":3})"), "c"), Error);
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"kind":"replay","originals":0})"), "c"), Error);
  EXPECT_EQ(config_from_json(nlohmann::json::parse(R"({"kind":"replay","originals":3})"), "c").originals, 3);
  // Defaults are not written, so the definition of a campaign that does not use them is unchanged.
  auto j = default_config(CampaignKind::kReplay).to_json();
  EXPECT_FALSE(j.contains("warmup"));
  EXPECT_FALSE(j.contains("originals"));
  EXPECT_EQ(j["cache"], nlohmann::json::array({"cold"}));
  EXPECT_EQ(thesis_capture_config().warmup, 100u);
  EXPECT_FALSE(j.contains("cpus"));
  EXPECT_EQ(config_from_json(nlohmann::json::parse(R"({"cpus":[1]})"), "c").cpus, std::vector<int>{1});
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"cpus":[1,1]})"), "c"), Error);
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"cpus":[-1]})"), "c"), Error);
}

TEST(RunMatrix, EachCacheStateIsItsOwnCellAndColdKeysKeepTheirForm) {
  CampaignConfig c = quick_config(CampaignKind::kCapture);
  const size_t one_state = expand_runs(c).size();
  c.cache = {"cold", "warm"};
  auto runs = expand_runs(c);
  ASSERT_EQ(runs.size(), 2 * one_state);
  size_t warm = 0;
  for (const auto& r : runs) {
    if (r.cache == "warm") {
      ++warm;
      EXPECT_NE(r.cell.find("|warm"), std::string::npos) << r.cell;
    } else {
      EXPECT_EQ(r.cache, "cold");
      EXPECT_EQ(r.cell.find("cold"), std::string::npos) << r.cell;  // a store made before the factor resumes
    }
  }
  EXPECT_EQ(warm, one_state);
}

}  // namespace
}  // namespace rastro::campaign

namespace rastro::campaign {
namespace {

TEST(CampaignConfig, ExternalInstrumentsAreCheckedAndTheirTracePathSubstituted) {
  auto c = config_from_json(nlohmann::json::parse(
                                R"({"kind":"capture","instruments":["reference","mytracer"],
                                    "instrument_commands":{"mytracer":["mytracer","--out={trace}.tsv","--"]}})"),
                            "c");
  EXPECT_EQ(capture_command(c, "/bin/rastro", "mytracer", "/w/cap"),
            (std::vector<std::string>{"mytracer", "--out=/w/cap.tsv", "--"}));
  EXPECT_EQ(capture_command(c, "/bin/rastro", "ebpf", "/w/cap"),
            (std::vector<std::string>{"/bin/rastro", "capture", "-b", "ebpf", "-o", "/w/cap", "--"}));
  EXPECT_EQ(config_from_json(c.to_json(), "x").to_json(), c.to_json());
  // Not declared, no {trace}, a built-in or fio name, or outside a capture campaign: errors.
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"instruments":["mytracer"]})"), "c"), Error);
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"instrument_commands":{"t":["t","--"]}})"), "c"), Error);
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"instrument_commands":{"strace":["s","{trace}"]}})"), "c"), Error);
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"instrument_commands":{"fiox":["s","{trace}"]}})"), "c"), Error);
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"instrument_commands":{"a/b":["s","{trace}"]}})"), "c"), Error);
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"kind":"replay","instrument_commands":{"t":["t","{trace}"]}})"),
                                "c"),
               Error);
}

}  // namespace
}  // namespace rastro::campaign

namespace rastro::campaign {
namespace {

TEST(CampaignConfig, AnMpiCampaignReplaysJobsOfEachMpiAndRankCount) {
  auto c = config_from_json(nlohmann::json::parse(
                                R"({"kind":"mpi","types":["openmpi","mpich"],"levels":[2,4],"replicates":2,
                                    "replayers":["workers"],"orderings":["fs","temporal"],"mpi_capture_instrument":"ebpf"})"),
                            "m.json");
  EXPECT_EQ(c.kind, CampaignKind::kMpi);
  EXPECT_EQ(c.mpi_capture_instrument, "ebpf");
  EXPECT_EQ(c.instruments, std::vector<std::string>{"reference"});
  auto runs = expand_runs(c);
  // Per MPI × ranks: the re-captures ("reference") and workers × 2 orderings, 2 replicates each.
  EXPECT_EQ(runs.size(), 2u * 2u * (1u + 2u) * 2u);
  std::set<std::string> cells;
  for (const auto& r : runs) {
    EXPECT_TRUE(r.type == "openmpi" || r.type == "mpich") << r.key;
    EXPECT_EQ(r.pause_us, 0);
    cells.insert(r.cell);
  }
  EXPECT_EQ(cells.size(), 2u * 2u * 3u);
  EXPECT_EQ(config_from_json(c.to_json(), "x").to_json(), c.to_json());
  // Stores of the other kinds keep resuming: the key exists only in mpi definitions.
  EXPECT_FALSE(default_config(CampaignKind::kReplay).to_json().contains("mpi_capture_instrument"));
}

TEST(CampaignConfig, AnMpiCampaignRefusesWhatItCannotRun) {
  auto refused = [](const char* text, const char* says) {
    try {
      config_from_json(nlohmann::json::parse(text), "m.json");
      ADD_FAILURE() << "accepted " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused(R"({"kind":"mpi","types":["sr"]})", "'types' has unknown value 'sr'");
  refused(R"({"kind":"mpi","levels":[1]})", "ranks per job, at least 2");
  refused(R"({"kind":"mpi","replayers":["compiled"]})", "'replayers' has unknown value 'compiled'");
  refused(R"({"kind":"mpi","mpi_capture_instrument":"stap"})", "'mpi_capture_instrument' has unknown value 'stap'");
  refused(R"({"kind":"mpi","instruments":["reference","ptrace"]})", "mpi_capture_instrument");
  refused(R"({"kind":"mpi","pauses_us":[0,10]})", "no pauses_us");
  refused(R"({"kind":"mpo"})", "capture, replay, macro or mpi");
}

}  // namespace
}  // namespace rastro::campaign
