// Progress of a long-running command on stderr: "rastro cat: 12.3 M events, 4.1 M events/s,
// 48 % ETA 0:07" (or lines, for an importer). Silent unless enabled (no -q) and stderr is a terminal, and silent for the first
// two seconds, so short runs and pipelines print nothing. The line is redrawn in place (\r) at
// most every half second and erased by finish().
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace rastro {

class Progress {
 public:
  using Clock = std::chrono::steady_clock;

  // `enabled` is the command's "not -q"; stderr must also be a terminal. `unit`: what is counted.
  Progress(std::string label, bool enabled, std::string unit = "events");
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Starts a count (e.g. one pass over a file): its expected total (0: unknown, no percentage or
  // ETA); the rate and ETA are measured from here.
  void set_total(uint64_t total) {
    total_ = total;
    start_ = Clock::now();
  }
  // `done` events so far; cheap enough to call once per block.
  void update(uint64_t done);
  // The same when the share of the work done is known otherwise (e.g. the bytes of the input read:
  // a log's line count is not known in advance); `fraction` < 0: unknown.
  void update(uint64_t done, double fraction);
  // A stage of a run that counts nothing while it works (an inference pass): "label: what,
  // elapsed 0:41", drawn at once (nothing may call again for a while), unless the run is still in
  // its quiet first two seconds.
  void step(const std::string& what);
  // Erases the line (if one was drawn).
  void finish();
  // Whether lines are drawn at all (enabled, and stderr is a terminal): a command can skip the
  // counting a line would need.
  bool active() const { return active_; }

  // The line update() draws (without \r), for tests.
  static std::string format_line(const std::string& label, uint64_t done, uint64_t total,
                                 double seconds);
  static std::string format_line(const std::string& label, const std::string& unit, uint64_t done,
                                 double fraction, double seconds);
  static std::string format_step(const std::string& label, const std::string& what, double seconds);

 private:
  void draw(const std::string& line);
  // Whether to draw now (rate-limited); sets *seconds since start.
  bool due(double* seconds);

  std::string label_;
  std::string unit_;
  bool active_;
  bool drawn_ = false;
  uint64_t total_ = 0;
  Clock::time_point created_;
  Clock::time_point start_;
  Clock::time_point next_draw_;
};

}  // namespace rastro
