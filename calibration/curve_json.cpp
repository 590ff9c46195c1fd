#include "calibration/curve_json.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "common/atomic_write.h"

#include "common/error.h"
#include "common/json_integer.h"

namespace rastro::calibration {
namespace {

constexpr const char* kFormat = "rastro-calibration-curve";

void put_optional(nlohmann::json& j, const char* key, const std::optional<double>& v,
                  const std::string& reason) {
  if (v && std::isfinite(*v)) {
    j[key] = *v;
  } else {
    j[key] = nullptr;
    j["undefined"][key] = reason.empty() ? std::string("not computed") : reason;
  }
}

double get_number(const nlohmann::json& j, const char* key, const std::string& src) {
  auto it = j.find(key);
  if (it == j.end()) throw Error(fmt::format("{}: calibration curve lacks key '{}'", src, key));
  if (!it->is_number()) throw Error(fmt::format("{}: key '{}' must be a number", src, key));
  const double v = it->get<double>();
  if (!std::isfinite(v)) throw Error(fmt::format("{}: key '{}' is not finite", src, key));
  return v;
}

std::optional<double> get_optional(const nlohmann::json& j, const char* key, const std::string& src) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return get_number(j, key, src);
}

}  // namespace

nlohmann::json to_json(const CalibrationCurve& c) {
  nlohmann::json j;
  j["format"] = kFormat;
  j["version"] = 1;
  j["kind"] = std::string(to_string(c.kind));
  j["unit"] = c.unit;
  j["b0"] = c.b0;
  j["b1"] = c.b1;
  j["undefined"] = nlohmann::json::object();
  put_optional(j, "s_yx", c.s_yx, c.note);
  put_optional(j, "se_b0", c.se_b0, c.note);
  put_optional(j, "se_b1", c.se_b1, c.note);
  put_optional(j, "r2", c.r2, c.note);
  j["n"] = c.n;
  j["df"] = c.df;
  j["x_mean"] = c.x_mean;
  j["y_mean"] = c.y_mean;
  j["sxx"] = c.sxx;
  j["x_min"] = c.domain.x_min;
  j["x_max"] = c.domain.x_max;
  j["environment"] = c.domain.environment;
  j["background"] = c.domain.background ? nlohmann::json(*c.domain.background) : nlohmann::json();
  j["note"] = c.note;
  return j;
}

namespace {
CalibrationCurve parse_curve(const nlohmann::json& j, const std::string& src);
}

// Any JSON type mismatch the checks below miss becomes a rastro::Error naming the file, never an
// escaping nlohmann exception (found by tests/fuzz, F2 in docs/reliability.md).
CalibrationCurve curve_from_json(const nlohmann::json& j, const std::string& src) {
  try {
    return parse_curve(j, src);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: malformed calibration curve: {}", src, e.what()));
  }
}

namespace {
CalibrationCurve parse_curve(const nlohmann::json& j, const std::string& src) {
  if (!j.is_object()) throw Error(fmt::format("{}: a calibration curve must be a JSON object", src));
  if (!j.contains("format") || !j["format"].is_string() || j["format"].get<std::string>() != kFormat)
    throw Error(fmt::format("{}: not a rastro calibration curve (format must be '{}')", src, kFormat));
  // Range-checked: a huge or fractional version is an error, not a float-to-int conversion
  // (fuzz finding F5, docs/reliability.md).
  int version = 0;
  if (!j.contains("version") || !json_to_integer(j["version"], &version) || version != 1)
    throw Error(fmt::format("{}: unsupported calibration curve version {}", src,
                            j.contains("version") ? j["version"].dump() : std::string("(missing)")));
  CalibrationCurve c;
  if (!j.contains("kind")) throw Error(fmt::format("{}: calibration curve lacks key 'kind'", src));
  if (!j["kind"].is_string())
    throw Error(fmt::format("{}: key 'kind' must be a string", src));
  auto kind = parse_curve_kind(j["kind"].get<std::string>());
  if (!kind) throw Error(fmt::format("{}: {}", src, kind.error()));
  c.kind = *kind;
  c.unit = j.value("unit", std::string("us"));
  c.b0 = get_number(j, "b0", src);
  c.b1 = get_number(j, "b1", src);
  if (c.b1 == 0) throw Error(fmt::format("{}: slope b1 is 0: the curve cannot be inverted", src));
  c.s_yx = get_optional(j, "s_yx", src);
  c.se_b0 = get_optional(j, "se_b0", src);
  c.se_b1 = get_optional(j, "se_b1", src);
  c.r2 = get_optional(j, "r2", src);
  const double n = get_number(j, "n", src);
  // 2^53: the largest count a double holds exactly (and far below size_t's range, so the cast is defined).
  if (n < 1 || n != std::floor(n) || n > 9007199254740992.0)
    throw Error(fmt::format("{}: key 'n' must be a positive integer (at most 2^53)", src));
  c.n = static_cast<size_t>(n);
  c.df = get_number(j, "df", src);
  c.x_mean = get_number(j, "x_mean", src);
  c.y_mean = get_number(j, "y_mean", src);
  c.sxx = get_number(j, "sxx", src);
  c.domain.x_min = get_number(j, "x_min", src);
  c.domain.x_max = get_number(j, "x_max", src);
  if (c.domain.x_min > c.domain.x_max) throw Error(fmt::format("{}: x_min > x_max", src));
  if (c.s_yx && c.kind != CurveKind::kSinglePoint && !(c.sxx > 0))
    throw Error(fmt::format("{}: key 'sxx' must be positive for a {} curve", src, to_string(c.kind)));
  if (auto it = j.find("environment"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) throw Error(fmt::format("{}: key 'environment' must be an object", src));
    c.domain.environment = *it;
  }
  c.domain.background = get_optional(j, "background", src);
  c.note = j.value("note", std::string());
  return c;
}
}  // namespace

CalibrationCurve read_curve(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open calibration curve", path));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
  return curve_from_json(j, path);
}

void write_curve(const std::string& path, const CalibrationCurve& c) {
  write_text_atomically(path, to_json(c).dump(2) + "\n");
}

}  // namespace rastro::calibration
