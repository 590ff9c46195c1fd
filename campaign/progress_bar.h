// A one-line progress indicator with ETA: redrawn in place on a terminal, printed every few
// percent when stderr is not a terminal (CI logs).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace rastro::campaign {

class ProgressBar {
 public:
  ProgressBar(size_t total, bool enabled);
  void update(size_t done, const std::string& label);
  void finish();

 private:
  size_t total_;
  bool enabled_;
  bool tty_;
  int last_percent_ = -1;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace rastro::campaign
