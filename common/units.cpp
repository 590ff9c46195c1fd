#include "common/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace rastro {

namespace {
std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}
}  // namespace

Result<uint64_t> parse_size(std::string_view text) {
  std::string_view s = trim(text);
  if (s.empty()) return fail("empty size");
  if (s.front() == '-') return fail(fmt::format("size '{}' is negative", text));
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec == std::errc::result_out_of_range) return fail(fmt::format("size '{}' is too large", text));
  if (ec != std::errc()) return fail(fmt::format("size '{}' is not a number", text));
  std::string_view suffix(ptr, static_cast<size_t>(s.data() + s.size() - ptr));
  std::string lower;
  for (char c : suffix) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (lower.size() >= 2 && lower.substr(lower.size() - 2) == "ib") lower.resize(lower.size() - 2);
  else if (lower.size() == 2 && lower.back() == 'b') lower.pop_back();
  int shift = 0;
  if (lower.empty() || lower == "b") shift = 0;
  else if (lower == "k") shift = 10;
  else if (lower == "m") shift = 20;
  else if (lower == "g") shift = 30;
  else if (lower == "t") shift = 40;
  else return fail(fmt::format("size '{}' has unknown unit '{}' (use K, M, G, T)", text, suffix));
  if (shift && value > (std::numeric_limits<uint64_t>::max() >> shift))
    return fail(fmt::format("size '{}' is too large", text));
  return value << shift;
}

Result<int64_t> parse_duration_ns(std::string_view text) {
  std::string_view s = trim(text);
  if (s.empty()) return fail("empty duration");
  double value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || !std::isfinite(value)) return fail(fmt::format("duration '{}' is not a number", text));
  if (value < 0) return fail(fmt::format("duration '{}' is negative", text));
  std::string_view unit(ptr, static_cast<size_t>(s.data() + s.size() - ptr));
  double scale;
  if (unit.empty() || unit == "s") scale = 1e9;
  else if (unit == "ms") scale = 1e6;
  else if (unit == "us") scale = 1e3;
  else if (unit == "ns") scale = 1;
  else if (unit == "m" || unit == "min") scale = 60e9;
  else return fail(fmt::format("duration '{}' has unknown unit '{}' (use ns, us, ms, s, min)", text, unit));
  double ns = value * scale;
  if (ns > 9.2e18) return fail(fmt::format("duration '{}' is too large", text));
  return static_cast<int64_t>(std::llround(ns));
}

std::string format_size(uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) { v /= 1024; ++u; }
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, units[u]);
}

std::string format_duration_ns(double ns) {
  if (ns < 1e3) return fmt::format("{:.0f} ns", ns);
  if (ns < 1e6) return fmt::format("{:.2f} us", ns / 1e3);
  if (ns < 1e9) return fmt::format("{:.2f} ms", ns / 1e6);
  return fmt::format("{:.3f} s", ns / 1e9);
}

}  // namespace rastro
