#include "calibration/calibration_data.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "common/error.h"
#include "metrology/experiment_result.h"

namespace rastro::calibration {
namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

double number(const std::string& text, const std::string& where, const char* column) {
  const std::string t = trim(text);
  double v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || p != t.data() + t.size())
    throw Error(fmt::format("{}: column '{}' is not a number: '{}'", where, column, t));
  if (!std::isfinite(v)) throw Error(fmt::format("{}: column '{}' is not finite", where, column));
  return v;
}

}  // namespace

std::vector<CalibrationPoint> parse_calibration_csv(const std::string& text, const std::string& src) {
  std::istringstream in(text);
  std::string line;
  size_t lineno = 0;
  std::map<std::string, size_t> col;
  std::vector<CalibrationPoint> out;
  while (std::getline(in, line)) {
    ++lineno;
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    auto f = metrology::split_csv_line(t);
    if (col.empty()) {
      for (size_t i = 0; i < f.size(); ++i) col[trim(f[i])] = i;
      for (const char* c : {"reference", "measured"})
        if (!col.count(c))
          throw Error(fmt::format("{}:{}: header lacks column '{}' (need reference,measured)", src,
                                  lineno, c));
      continue;
    }
    const std::string where = fmt::format("{}:{}", src, lineno);
    const size_t ir = col["reference"], im = col["measured"];
    if (ir >= f.size() || im >= f.size())
      throw Error(fmt::format("{}: only {} fields", where, f.size()));
    out.push_back({number(f[ir], where, "reference"), number(f[im], where, "measured")});
  }
  if (col.empty()) throw Error(fmt::format("{}: empty calibration file (no header)", src));
  if (out.empty()) throw Error(fmt::format("{}: no data rows", src));
  return out;
}

std::vector<CalibrationPoint> read_calibration_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open calibration data", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_calibration_csv(ss.str(), path);
}

}  // namespace rastro::calibration
