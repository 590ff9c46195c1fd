#include "metrology/experiment_result.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "common/error.h"

namespace rastro::metrology {
namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

double parse_number(const std::string& text, const std::string& where, const char* column,
                    bool empty_is_zero) {
  const std::string t = trim(text);
  if (t.empty()) {
    if (empty_is_zero) return 0;
    throw Error(fmt::format("{}: column '{}' is empty", where, column));
  }
  double v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size())
    throw Error(fmt::format("{}: column '{}' is not a number: '{}'", where, column, t));
  if (!std::isfinite(v)) throw Error(fmt::format("{}: column '{}' is not finite: '{}'", where, column, t));
  return v;
}

// An optional numeric column: absent or empty gives nullopt.
std::optional<double> parse_optional(const std::string& text, const std::string& where, const char* column) {
  if (trim(text).empty()) return std::nullopt;
  return parse_number(text, where, column, false);
}

}  // namespace

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::vector<ExperimentResult> parse_results_csv(const std::string& text, const std::string& src) {
  static const char* const kColumns[] = {"instrument", "type",      "level",     "background",
                                         "replicate",  "measured",  "reference", "reference_u"};
  std::istringstream in(text);
  std::string line;
  size_t lineno = 0;
  std::map<std::string, size_t> col;
  std::vector<ExperimentResult> out;
  std::set<std::tuple<std::string, std::string, std::string, std::string, long>> seen;
  while (std::getline(in, line)) {
    ++lineno;
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    auto fields = split_csv_line(t);
    if (col.empty()) {
      for (size_t i = 0; i < fields.size(); ++i) col[trim(fields[i])] = i;
      for (const char* c : kColumns)
        if (!col.count(c))
          throw Error(fmt::format("{}:{}: header lacks column '{}' (need instrument,type,level,"
                                  "background,replicate,measured,reference,reference_u)",
                                  src, lineno, c));
      continue;
    }
    const std::string where = fmt::format("{}:{}", src, lineno);
    auto field = [&](const char* c) -> std::string {
      size_t i = col.at(c);
      if (i >= fields.size())
        throw Error(fmt::format("{}: {} fields, column '{}' missing", where, fields.size(), c));
      return trim(fields[i]);
    };
    ExperimentResult r;
    r.line = lineno;
    r.instrument = field("instrument");
    r.type = field("type");
    r.level = field("level");
    r.background = field("background");
    if (r.instrument.empty()) throw Error(fmt::format("{}: column 'instrument' is empty", where));
    const double rep = parse_number(field("replicate"), where, "replicate", false);
    if (rep != std::floor(rep)) throw Error(fmt::format("{}: replicate must be an integer", where));
    r.replicate = static_cast<long>(rep);
    r.measured = parse_number(field("measured"), where, "measured", false);
    r.reference = parse_optional(field("reference"), where, "reference");
    r.reference_u = parse_number(field("reference_u"), where, "reference_u", true);
    if (r.reference_u < 0) throw Error(fmt::format("{}: reference_u is negative", where));
    if (col.count("application")) r.application = parse_optional(field("application"), where, "application");
    if (col.count("recording")) r.recording = parse_optional(field("recording"), where, "recording");
    if (col.count("clock_u")) {
      r.clock_u = parse_number(field("clock_u"), where, "clock_u", true);
      if (r.clock_u < 0) throw Error(fmt::format("{}: clock_u is negative", where));
    }
    if (r.recording && !r.application)
      throw Error(fmt::format("{}: 'recording' needs the 'application' timing of the same run", where));
    if (!seen.insert({r.instrument, r.type, r.level, r.background, r.replicate}).second)
      throw Error(fmt::format("{}: duplicate replicate {} for {} {} level {} background {}", where,
                              r.replicate, r.instrument, r.type, r.level, r.background));
    out.push_back(std::move(r));
  }
  if (col.empty()) throw Error(fmt::format("{}: empty results file (no header)", src));
  return out;
}

std::vector<ExperimentResult> read_results_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open results file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_results_csv(ss.str(), path);
}

}  // namespace rastro::metrology
