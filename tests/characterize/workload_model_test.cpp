#include "characterize/workload_model.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "characterize/workload_characterizer.h"
#include "common/error.h"
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
  EXPECT_THROW(read_model("/nonexistent/model.json"), Error);
}

}  // namespace
}  // namespace rastro::characterize
