// rastro bench micro|macro: the reference workloads (SPEC §5). Every request is timed by the
// application itself (the reference method) and the run is written as a uniform trace.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "common/error.h"
#include "common/units.h"
#include "trace/io/trace_io.h"
#include "workloads/common/stop_signal.h"
#include "workloads/macro/fileserver_bench.h"
#include "workloads/micro/micro_bench.h"

namespace {

using namespace rastro;
using namespace rastro::workloads;

// The exact command line, for the trace header.
std::vector<std::string> own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), {});
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i] == '\0') {
      out.push_back(all.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

uint64_t size_option(const std::string& name, const std::string& text) {
  auto r = parse_size(text);
  if (!r) throw Error(fmt::format("{}: {}", name, r.error()));
  return *r;
}

double positive_size_option(const std::string& name, const std::string& text) {
  const uint64_t v = size_option(name, text);
  if (v == 0) throw Error(fmt::format("{} {}: must be positive", name, text));
  return static_cast<double>(v);
}

int64_t duration_option(const std::string& name, const std::string& text) {
  auto r = parse_duration_ns(text);
  if (!r) throw Error(fmt::format("{}: {}", name, r.error()));
  if (*r <= 0) throw Error(fmt::format("{} {}: must be positive", name, text));
  return *r;
}

// Fails before any work when the trace could not be written at the end.
void check_output_writable(const std::string& out) {
  std::filesystem::path p = std::filesystem::absolute(out);
  const std::string parent = p.parent_path().string();
  if (std::filesystem::is_directory(p)) throw Error(fmt::format("-o {}: is a directory", out));
  if (::access(parent.c_str(), W_OK) != 0) {
    throw Error(fmt::format("-o {}: cannot write in {}", out, parent));
  }
}

// Writes the collected trace and reports; SIGINT maps to exit status 130 (the trace is valid,
// flagged partial).
template <typename RunFn>
void run_and_write(const std::string& out, const std::string& label, RunFn run) {
  install_stop_handlers();
  trace::MemorySink mem;
  const LatencySummary summary = run(mem);
  trace::Trace& t = mem.trace();
  const bool partial = t.header.extra.value("partial", false);
  trace::write_trace(out, t);  // temp file + rename: never a half-written file
  fmt::print("{}: {}\n", label, summary.line());
  if (partial) {
    fmt::print(stderr, "rastro: warning: partial run ({}); the trace {} is valid but flagged partial\n",
               t.header.extra.value("partial_reason", std::string("stopped")), out);
    const int sig = process_stop_signal().load();
    rastro::cli::set_exit_code(sig > 0 ? 128 + sig : 3);
  }
  fmt::print("wrote {} ({} events)\n", out, t.events.size());
}

void setup_micro(CLI::App& app) {
  struct Args {
    std::string type = "sr";
    int threads = 1;
    int64_t ops = 5000;
    std::string block = "4096";
    std::string file_size = "64M";
    double pause_us = 0;
    std::string dir = ".";
    uint64_t seed = 1;
    bool prepare_only = false;
    std::string out;
  };
  auto a = std::make_shared<Args>();
  app.add_option("--type", a->type, "rr (pread64 random), rw (pwrite64 random), sr (read sequential), "
                                    "sw (write sequential)")->capture_default_str();
  app.add_option("--threads", a->threads, "Worker threads = load level, one file each")->capture_default_str();
  app.add_option("--ops", a->ops, "Requests per thread (thesis: 5000 capture, 2000 replay)")->capture_default_str();
  app.add_option("--block", a->block, "Bytes per request (4096, 4K, ...)")->capture_default_str();
  app.add_option("--file-size", a->file_size, "Size of each thread's file (thesis: 10G, >= 4x RAM)")->capture_default_str();
  app.add_option("--pause-us", a->pause_us, "Pause between requests, microseconds (busy-accurate)")->capture_default_str();
  app.add_option("--dir", a->dir, "Directory for the files (created if missing)")->capture_default_str();
  app.add_option("--seed", a->seed, "Seed of the random offsets (RR/RW)")->capture_default_str();
  app.add_flag("--prepare-only", a->prepare_only, "Create and fill the files, then stop (no trace)");
  app.add_option("-o,--output", a->out, "Reference trace to write (.rastro, .tsv, .csv)");
  app.callback([a] {
    MicroOptions o;
    o.type = parse_micro_type(a->type).take();
    o.threads = a->threads;
    if (a->ops < 1) throw Error(fmt::format("--ops {}: needs at least 1 request per thread", a->ops));
    o.ops = static_cast<uint64_t>(a->ops);
    o.block = size_option("--block", a->block);
    o.file_size = size_option("--file-size", a->file_size);
    if (!(a->pause_us >= 0) || !std::isfinite(a->pause_us)) throw Error("--pause-us: the pause cannot be negative");
    o.pause_ns = std::llround(a->pause_us * 1000.0);
    o.dir = a->dir;
    o.seed = a->seed;
    validate(o);
    if (a->prepare_only) {
      install_stop_handlers();
      bool stopped = false;
      const std::string dir = prepare_micro(o, process_stop_signal(), &stopped);
      if (stopped) throw Error("interrupted while preparing the files", 130);
      fmt::print("prepared {} file(s) of {} in {}\n", o.threads, format_size(o.file_size), dir);
      return;
    }
    if (a->out.empty()) throw Error("-o: the reference trace to write is required (or use --prepare-only)");
    check_output_writable(a->out);
    const std::string label = fmt::format("micro {} threads={} ops={}", micro_type_name(o.type), o.threads, o.ops);
    run_and_write(a->out, label, [&](trace::TraceSink& sink) {
      return micro_to_sink(o, own_command_line(), process_stop_signal(), sink);
    });
  });
}

void setup_macro(CLI::App& app) {
  struct Args {
    std::string personality = "fileserver";
    int threads = 4;
    int64_t files = 1000;
    std::string mean_size = "131072";
    double gamma = 1.5;
    std::string append_mean = "16K";
    std::string iosize = "1M";
    int dirwidth = 20;
    int prealloc = 80;
    std::string duration = "30s";
    std::string dir = ".";
    uint64_t seed = 1;
    int64_t max_events = 20'000'000;
    std::string out;
  };
  auto a = std::make_shared<Args>();
  app.add_option("--personality", a->personality, "Filebench personality (fileserver)")->capture_default_str();
  app.add_option("--threads", a->threads, "Worker threads")->capture_default_str();
  app.add_option("--files", a->files, "Files in the file set")->capture_default_str();
  app.add_option("--mean-size", a->mean_size, "Mean file size (gamma distributed)")->capture_default_str();
  app.add_option("--gamma", a->gamma, "Shape of the gamma size distribution")->capture_default_str();
  app.add_option("--append-mean", a->append_mean, "Mean append size (gamma, same shape)")->capture_default_str();
  app.add_option("--iosize", a->iosize, "Largest single read/write")->capture_default_str();
  app.add_option("--dirwidth", a->dirwidth, "Files per directory")->capture_default_str();
  app.add_option("--prealloc", a->prealloc, "Percent of files created before the run")->capture_default_str();
  app.add_option("--duration", a->duration, "Run time (30s, 500ms, ...)")->capture_default_str();
  app.add_option("--dir", a->dir, "Directory for the file set (created if missing)")->capture_default_str();
  app.add_option("--seed", a->seed, "Seed of sizes and picks")->capture_default_str();
  app.add_option("--max-events", a->max_events, "Stop (flagged partial) beyond this many calls")->capture_default_str();
  app.add_option("-o,--output", a->out, "Reference trace to write")->required();
  app.callback([a] {
    if (a->personality != "fileserver") {
      throw Error(fmt::format("--personality {}: only 'fileserver' is implemented", a->personality));
    }
    FileserverOptions o;
    o.threads = a->threads;
    if (a->files < 1) throw Error(fmt::format("--files {}: needs at least 1 file", a->files));
    o.files = static_cast<uint64_t>(a->files);
    o.mean_size = positive_size_option("--mean-size", a->mean_size);
    o.gamma = a->gamma;
    o.append_mean = positive_size_option("--append-mean", a->append_mean);
    o.iosize = size_option("--iosize", a->iosize);
    o.dirwidth = a->dirwidth;
    o.prealloc_percent = a->prealloc;
    o.duration_ns = duration_option("--duration", a->duration);
    o.dir = a->dir;
    o.seed = a->seed;
    if (a->max_events < 1) throw Error("--max-events must be at least 1");
    o.max_events = static_cast<uint64_t>(a->max_events);
    validate(o);
    check_output_writable(a->out);
    const std::string label = fmt::format("macro fileserver threads={} files={}", o.threads, o.files);
    run_and_write(a->out, label, [&](trace::TraceSink& sink) {
      return fileserver_to_sink(o, own_command_line(), process_stop_signal(), sink);
    });
  });
}

rastro::cli::RegisterCommand register_bench{{"bench",
                                  "Run a reference workload (micro RR/RW/SR/SW, macro fileserver) timing "
                                  "every request itself, and write it as a uniform trace",
                                  70, [](CLI::App& app) {
                                    app.require_subcommand(1);
                                    setup_micro(*app.add_subcommand(
                                        "micro", "Micro benchmark: N threads x ops block requests (thesis §5.1.4)"));
                                    setup_macro(*app.add_subcommand(
                                        "macro", "Macro benchmark: Filebench fileserver personality (thesis §6.1.4)"));
                                  }}};

}  // namespace
