#include "common/progress.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace rastro {
namespace {

constexpr auto kQuietStart = std::chrono::seconds(2);
constexpr auto kRedraw = std::chrono::milliseconds(500);

std::string millions(double n) { return fmt::format("{:.1f} M", n / 1e6); }

}  // namespace

Progress::Progress(std::string label, bool enabled)
    : label_(std::move(label)),
      active_(enabled && ::isatty(STDERR_FILENO) == 1),
      start_(Clock::now()),
      next_draw_(start_ + kQuietStart) {}

Progress::~Progress() { finish(); }

std::string Progress::format_line(const std::string& label, uint64_t done, uint64_t total,
                                  double seconds) {
  double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0.0;
  std::string line = fmt::format("{}: {} events, {} events/s", label,
                                 millions(static_cast<double>(done)), millions(rate));
  if (total > 0 && done <= total && rate > 0) {
    auto left = static_cast<uint64_t>(static_cast<double>(total - done) / rate + 0.5);
    line += fmt::format(", {} % ETA {}:{:02}", done * 100 / total, left / 60, left % 60);
  }
  return line;
}

void Progress::update(uint64_t done) {
  if (!active_) return;
  Clock::time_point now = Clock::now();
  if (now < next_draw_) return;
  next_draw_ = now + kRedraw;
  double seconds = std::chrono::duration<double>(now - start_).count();
  // \033[K erases what a longer previous line left behind.
  fmt::print(stderr, "\r{}\033[K", format_line(label_, done, total_, seconds));
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  if (!drawn_) return;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace rastro
