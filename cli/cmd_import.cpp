// `rastro import strace LOG [-o OUT] [--ff] [--pid N] [-q]`: converts an strace log into a trace
// (docs/strace-import.md), in memory independent of the log's length, with a progress line on a
// terminal. Prints every import counter (zeros included) and the first problem
// lines on stderr; exits 1 when an error counter is above zero (after writing the trace), so a
// damaged log never passes silently. The output file appears only once complete.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "common/atomic_write.h"
#include "common/error.h"
#include "common/progress.h"
#include "trace/importers/strace/strace_import.h"
#include "trace/io/trace_io.h"

namespace {

struct ImportArgs {
  std::string log;
  std::string out;
  bool ff = false;
  int pid = 0;
  bool quiet = false;
};

// For the progress line's percentage only: 0 (unknown) when the size cannot be read.
uint64_t file_size_or_zero(const std::string& path) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<uint64_t>(n);
}

std::string default_output(const std::string& log) {
  std::string base = log;
  if (base.ends_with(".log")) base.resize(base.size() - 4);
  return base + ".rastro";
}

void run_import(const ImportArgs& a) {
  using namespace rastro::trace;
  StraceImportOptions opt;
  opt.default_tid = a.pid;
  rastro::Progress progress("rastro import", !a.quiet, "lines");
  opt.progress = &progress;
  // Events go to the output as the importer flushes them (a binary trace is written block by
  // block), into a temporary file renamed into place once finished.
  std::string out = a.out.empty() ? default_output(a.log) : a.out;
  TraceHeader header;
  header.backend = "import-strace";
  header.settings["source"] = a.log;
  header.settings["ff"] = a.ff;
  const std::string tmp = rastro::temp_path_for(out);
  ImportReport rep;
  try {
    std::unique_ptr<TraceSink> sink = open_trace_sink(tmp, std::move(header), format_for_path(out));
    if (a.ff) {
      auto files = find_strace_ff_files(a.log);
      if (files.empty()) {
        throw rastro::Error(fmt::format("{}: no strace -ff files '{}.<pid>' found", a.log, a.log));
      }
      for (const auto& f : files) opt.input_bytes += file_size_or_zero(f);
      rep = import_strace_ff(files, *sink, opt);
    } else {
      std::ifstream in(a.log, std::ios::binary);
      if (!in) throw rastro::Error(fmt::format("{}: cannot open: {}", a.log, std::strerror(errno)));
      opt.input_bytes = file_size_or_zero(a.log);
      rep = import_strace(in, a.log, *sink, opt);
    }
    sink->finish();
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  rastro::commit_temp_file(tmp, out);
  if (!a.quiet || rep.has_errors()) {
    std::cerr << fmt::format("rastro import: {} events from {} lines -> {}\n", rep.events,
                             rep.stats[kStat_strace_lines], out);
    rep.print(std::cerr);
  }
  if (rep.has_errors()) {
    throw rastro::Error(fmt::format("{}: {} malformed/unsupported line(s) (see above; first: {}); the "
                                    "trace {} holds the events of the other lines",
                                    a.log,
                                    rep.stats[kStat_strace_malformed_lines] + rep.stats[kStat_strace_unsupported_lines],
                                    rep.problems.empty() ? std::string("?") : rep.problems.front(), out));
  }
}

rastro::cli::RegisterCommand register_import{
    {"import", "Convert another tool's log into a rastro trace (strace -f -ttt -T [-y] logs)", 10,
     [](CLI::App& app) {
       app.require_subcommand(1);
       CLI::App* st = app.add_subcommand(
           "strace",
           "Import an `strace -f -ttt -T [-y|-yy] -o LOG` log (also --absolute-timestamps=format:unix,"
           "precision:ns, --syscall-times=ns, [pid N] prefixes, -ff per-pid files). <unfinished ...>/"
           "<... resumed> pairs are merged; signal and exit lines skipped; unknown syscalls kept. "
           "Prints the import counters; exits 1 if any line could not be read.");
       auto a = std::make_shared<ImportArgs>();
       st->add_option("LOG", a->log, "strace log (with --ff: the -o prefix; files LOG.<pid> are read)")->required();
       st->add_option("-o,--output", a->out, "Output trace (.rastro, .tsv or .csv; default LOG.rastro)");
       st->add_flag("--ff", a->ff, "Read strace -ff per-process files LOG.<pid> (tid from the suffix)");
       st->add_option("--pid", a->pid, "Tid for lines without a pid prefix (default: inferred)");
       st->add_flag("-q,--quiet", a->quiet,
                    "Print the counters only when something is wrong, and no progress line (shown on a "
                    "terminal for long runs)");
       st->callback([a] { run_import(*a); });
     }}};

}  // namespace
