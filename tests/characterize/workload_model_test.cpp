#include "characterize/workload_model.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "characterize/workload_characterizer.h"
#include "common/error.h"
#include "tests/characterize/namespace_cycle_trace.h"
#include "tests/characterize/two_class_trace.h"

namespace rastro::characterize {
namespace {

TEST(WorkloadModel, JsonRoundTrip) {
  WorkloadModel m = characterize(testing::two_class_trace(), "two.rastro").model;
  std::string path = std::filesystem::temp_directory_path() / ("rastro-model-" + std::to_string(getpid()) + ".json");
  write_model(path, m);
  WorkloadModel back = read_model(path);
  std::filesystem::remove(path);
  EXPECT_EQ(to_json(back), to_json(m));
  EXPECT_EQ(back.classes.size(), m.classes.size());
  EXPECT_EQ(back.classes[0].read_size.atoms, m.classes[0].read_size.atoms);
}

std::string error_of(const nlohmann::json& j) {
  try {
    model_from_json(j, "m.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(WorkloadModel, BadModelsNameTheFileAndKey) {
  nlohmann::json good = to_json(characterize(testing::two_class_trace(), "t").model);
  EXPECT_EQ(error_of(good), "");
  EXPECT_NE(error_of(nlohmann::json::object()).find("m.json: not a rastro workload model"), std::string::npos);
  nlohmann::json v = good;
  v["rastro_workload_model"] = 99;
  EXPECT_NE(error_of(v).find("version 99"), std::string::npos);
  nlohmann::json share = good;
  share["classes"][1]["share"] = 1.5;
  EXPECT_NE(error_of(share).find("m.json: classes[1]: share"), std::string::npos) << error_of(share);
  nlohmann::json missing = good;
  missing["classes"][0].erase("read_size");
  EXPECT_NE(error_of(missing).find("m.json"), std::string::npos);
  nlohmann::json mix = good;
  mix["classes"][0]["mix"]["read"] = 0.99;
  EXPECT_NE(error_of(mix).find("sum"), std::string::npos) << error_of(mix);
  nlohmann::json empty = good;
  empty["classes"] = nlohmann::json::array();
  EXPECT_NE(error_of(empty).find("non-empty"), std::string::npos);
  nlohmann::json ranks = good;
  ranks["classes"][0]["whole_read_size"].push_back(8);
  EXPECT_NE(error_of(ranks).find("m.json: classes[0]: whole_read_share and whole_read_size"), std::string::npos)
      << error_of(ranks);
  nlohmann::json whole = good;
  whole["classes"][0]["whole_read_share"][0] = 2.0;  // more than the rank's opens
  EXPECT_NE(error_of(whole).find("whole_read_share[0]"), std::string::npos) << error_of(whole);
  nlohmann::json old = good;
  old["rastro_workload_model"] = 0;
  EXPECT_NE(error_of(old).find("version 0 is not supported (this rastro reads 1 to 2)"), std::string::npos) << error_of(old);
  EXPECT_THROW(read_model("/nonexistent/model.json"), Error);
}

// The session kinds and name-space changes are stored and read back; a model written before
// them (without their keys) reads as a workload that creates, appends and renames nothing.
TEST(WorkloadModel, NamespaceKeysRoundTripAndMayBeAbsent) {
  WorkloadModel m = characterize(testing::fileserver_like_trace(2, 30), "fs").model;
  nlohmann::json j = to_json(m);
  EXPECT_EQ(to_json(model_from_json(j, "m.json")), j);
  EXPECT_GT(j["classes"][0]["namespace_mix"]["unlink"].get<double>(), 0.99);
  EXPECT_GT(j["classes"][0]["create_fraction"].get<double>(), 0.3);
  nlohmann::json old = j;
  for (const char* key : {"whole_read_fraction", "eof_jump_fraction", "eof_session_reads", "incarnation_size", "base_size", "create_fraction", "append_fraction", "create_session_writes",
                          "append_session_writes", "create_write_request", "append_write_request", "plain_write_request",
                          "namespace_per_open", "namespace_mix", "namespace_failed_fraction"})
    old["classes"][0].erase(key);
  WorkloadModel back = model_from_json(old, "m.json");
  EXPECT_EQ(back.classes[0].create_fraction, 0.0);
  EXPECT_EQ(back.classes[0].eof_jump_fraction, 0.0);
  EXPECT_EQ(back.classes[0].namespace_per_open, 0.0);
  EXPECT_EQ(to_json(back.classes[0].plain_write_request), to_json(back.classes[0].write_request));
  EXPECT_EQ(to_json(back.classes[0].incarnation_size), to_json(back.classes[0].file_size));
  EXPECT_EQ(to_json(back.classes[0].base_size), to_json(back.classes[0].file_size));
  nlohmann::json bad = j;
  bad["classes"][0]["namespace_mix"]["rename"] = 2;
  EXPECT_NE(error_of(bad).find("m.json: classes[0]: namespace_mix.rename is outside [0, 1]"), std::string::npos) << error_of(bad);
  nlohmann::json kinds = j;
  kinds["classes"][0]["append_fraction"] = 0.9;
  EXPECT_NE(error_of(kinds).find("create_fraction + append_fraction"), std::string::npos) << error_of(kinds);
}

}  // namespace
}  // namespace rastro::characterize
