#include "common/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

namespace rastro {
namespace {

constexpr auto kQuietStart = std::chrono::seconds(2);
constexpr auto kRedraw = std::chrono::milliseconds(500);

std::string millions(double n) { return fmt::format("{:.1f} M", n / 1e6); }

std::string head(const std::string& label, const std::string& unit, uint64_t done, double rate) {
  return fmt::format("{}: {} {}, {} {}/s", label, millions(static_cast<double>(done)), unit, millions(rate), unit);
}

}  // namespace

Progress::Progress(std::string label, bool enabled, std::string unit)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      active_(enabled && ::isatty(STDERR_FILENO) == 1),
      created_(Clock::now()),
      start_(created_),
      next_draw_(start_ + kQuietStart) {}

Progress::~Progress() { finish(); }

std::string Progress::format_line(const std::string& label, uint64_t done, uint64_t total,
                                  double seconds) {
  double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0.0;
  std::string line = head(label, "events", done, rate);
  if (total > 0 && done <= total && rate > 0) {
    auto left = static_cast<uint64_t>(static_cast<double>(total - done) / rate + 0.5);
    line += fmt::format(", {} % ETA {}:{:02}", done * 100 / total, left / 60, left % 60);
  }
  return line;
}

std::string Progress::format_line(const std::string& label, const std::string& unit, uint64_t done,
                                  double fraction, double seconds) {
  double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0.0;
  std::string line = head(label, unit, done, rate);
  if (fraction > 0 && fraction <= 1 && seconds > 0) {
    auto left = static_cast<uint64_t>(seconds * (1 - fraction) / fraction + 0.5);
    line += fmt::format(", {} % ETA {}:{:02}", static_cast<int>(fraction * 100), left / 60, left % 60);
  }
  return line;
}

std::string Progress::format_step(const std::string& label, const std::string& what, double seconds) {
  const auto s = static_cast<uint64_t>(std::max(seconds, 0.0));
  return fmt::format("{}: {}, elapsed {}:{:02}", label, what, s / 60, s % 60);
}

void Progress::step(const std::string& what) {
  if (!active_) return;
  const Clock::time_point now = Clock::now();
  if (now < created_ + kQuietStart) return;
  next_draw_ = now + kRedraw;
  draw(format_step(label_, what, std::chrono::duration<double>(now - created_).count()));
}

bool Progress::due(double* seconds) {
  if (!active_) return false;
  Clock::time_point now = Clock::now();
  if (now < next_draw_) return false;
  next_draw_ = now + kRedraw;
  *seconds = std::chrono::duration<double>(now - start_).count();
  return true;
}

void Progress::draw(const std::string& line) {
  // \033[K erases what a longer previous line left behind.
  fmt::print(stderr, "\r{}\033[K", line);
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::update(uint64_t done) {
  double seconds = 0;
  if (!due(&seconds)) return;
  draw(unit_ == "events" ? format_line(label_, done, total_, seconds)
                         : format_line(label_, unit_, done, total_ > 0 ? static_cast<double>(done) / static_cast<double>(total_) : -1.0,
                                       seconds));
}

void Progress::update(uint64_t done, double fraction) {
  double seconds = 0;
  if (due(&seconds)) draw(format_line(label_, unit_, done, fraction, seconds));
}

void Progress::finish() {
  if (!drawn_) return;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace rastro
