#include "campaign/progress_bar.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace rastro::campaign {

ProgressBar::ProgressBar(size_t total, bool enabled)
    : total_(total), enabled_(enabled), tty_(isatty(2) != 0), start_(std::chrono::steady_clock::now()) {}

void ProgressBar::update(size_t done, const std::string& label) {
  if (!enabled_ || total_ == 0) return;
  double frac = static_cast<double>(done) / static_cast<double>(total_);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  double eta = done > 0 ? elapsed / static_cast<double>(done) * static_cast<double>(total_ - done) : 0;
  int percent = static_cast<int>(frac * 100);
  std::string eta_text = done > 0 ? fmt::format("{:02}:{:02}", static_cast<int>(eta) / 60, static_cast<int>(eta) % 60) : "--:--";
  if (tty_) {
    constexpr int kWidth = 30;
    int filled = static_cast<int>(frac * kWidth);
    fmt::print(stderr, "\r[{}{}] {:3}% {}/{} ETA {} {:<40.40}", std::string(static_cast<size_t>(filled), '#'),
               std::string(static_cast<size_t>(kWidth - filled), '.'), percent, done, total_, eta_text, label);
  } else if (percent / 10 != last_percent_ / 10 || done == total_) {
    fmt::print(stderr, "progress: {}/{} runs ({}%), ETA {}\n", done, total_, percent, eta_text);
  }
  last_percent_ = percent;
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (enabled_ && tty_) fmt::print(stderr, "\n");
}

}  // namespace rastro::campaign
