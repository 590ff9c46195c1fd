// rastro load cpu|io: background load for selectivity studies (SPEC §5, §6.1). Starts --level
// hog processes and waits until they stop on their own (--duration) or the user interrupts.
#include <time.h>

#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "common/clock.h"
#include "common/error.h"
#include "common/units.h"
#include "workloads/common/stop_signal.h"
#include "workloads/load/load_generator.h"

namespace {

using namespace rastro;
using namespace rastro::workloads;

struct Args {
  int level = 1;
  std::string duration;
  std::string dir = ".";
  std::string block = "1M";
  std::string file_size = "256M";
};

void run_load(LoadKind kind, const Args& a) {
  LoadOptions o;
  o.kind = kind;
  o.level = a.level;
  if (!a.duration.empty()) {
    auto d = parse_duration_ns(a.duration);
    if (!d) throw Error(fmt::format("--duration: {}", d.error()));
    if (*d <= 0) throw Error(fmt::format("--duration {}: must be positive", a.duration));
    o.duration_ns = *d;
  }
  o.dir = a.dir;
  auto block = parse_size(a.block);
  if (!block) throw Error(fmt::format("--block: {}", block.error()));
  o.io_block = *block;
  auto fsize = parse_size(a.file_size);
  if (!fsize) throw Error(fmt::format("--file-size: {}", fsize.error()));
  o.io_file_size = *fsize;
  install_stop_handlers();
  const int64_t start = monotonic_ns();
  auto h = start_load(o);
  fmt::print("{} load level {}: {} process(es) {}{}\n", load_kind_name(kind), o.level, h->pids().size(),
             fmt::join(h->pids(), " "),
             o.duration_ns > 0 ? fmt::format(", stopping after {}", format_duration_ns(static_cast<double>(o.duration_ns)))
                               : std::string(", until interrupted"));
  std::fflush(stdout);
  // Level 0 still lasts --duration, so a campaign can treat every level alike.
  const auto& stop = process_stop_signal();
  while (stop.load() == 0) {
    if (o.level > 0 && !h->running()) break;
    if (o.level == 0 && (o.duration_ns == 0 || monotonic_ns() - start >= o.duration_ns)) break;
    timespec ts{0, 50'000'000};
    nanosleep(&ts, nullptr);
  }
  h->stop();
  if (stop.load() != 0) fmt::print("{}: stopped the load\n", describe_stop(stop.load()));
}

void setup(CLI::App& app, LoadKind kind) {
  auto a = std::make_shared<Args>();
  app.add_option("--level", a->level, "Number of hog processes (0 = none)")->capture_default_str();
  app.add_option("--duration", a->duration, "Stop on their own after this long (10s, 500ms); default: until Ctrl-C");
  if (kind == LoadKind::kIo) {
    app.add_option("--dir", a->dir, "Directory the writers write into")->capture_default_str();
    app.add_option("--block", a->block, "Bytes per write")->capture_default_str();
    app.add_option("--file-size", a->file_size, "Each writer wraps to offset 0 after this much")->capture_default_str();
  }
  app.callback([a, kind] { run_load(kind, *a); });
}

rastro::cli::RegisterCommand register_load{{"load", "Generate background load (CPU hogs, streaming writers) for selectivity studies",
                                  75, [](CLI::App& app) {
                                    app.require_subcommand(1);
                                    setup(*app.add_subcommand("cpu", "Busy-loop processes"), LoadKind::kCpu);
                                    setup(*app.add_subcommand("io", "Streaming-writer processes"), LoadKind::kIo);
                                  }}};

}  // namespace
