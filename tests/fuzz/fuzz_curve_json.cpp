// libFuzzer target: the calibration-curve reader on arbitrary JSON (tests/fuzz/corpus/curve_json).
#include <string>
#include <nlohmann/json.hpp>
#include "calibration/curve_json.h"
#include "tests/fuzz/fuzz_error_policy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;  // not JSON: read_curve reports that before curve_from_json
  RASTRO_FUZZ_EXPECTED_ERRORS({
    rastro::calibration::CalibrationCurve c = rastro::calibration::curve_from_json(j, "fuzz.json");
    // An accepted curve must serialise again (no NaN is ever written, see curve_json.h).
    (void)rastro::calibration::to_json(c).dump();
  })
  return 0;
}
