// `rastro export -f tsv|csv|chrome|sqlite|fio-iolog TRACE -o OUT [-q]`: writes a trace in a format
// other tools read (trace/exporters/), streaming: memory does not grow with the trace's length. A damaged binary trace exports its intact prefix, with the header's
// `complete` false, a warning and exit status 2.
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "common/error.h"
#include "trace/exporters/exporter.h"
#include "common/progress.h"
#include "trace/io/trace_passes.h"

namespace {

std::string formats_help() {
  std::string s = "Output format:";
  for (const auto* e : rastro::trace::all_exporters())
    s += fmt::format("\n  {:9} {}", e->name(), e->description());
  return s;
}

rastro::cli::RegisterCommand register_export{
    {"export", "Export a trace as TSV, CSV, Chrome trace-event JSON (Perfetto), SQLite or a fio iolog", 30,
     [](CLI::App& app) {
       auto format = std::make_shared<std::string>();
       auto in = std::make_shared<std::string>();
       auto out = std::make_shared<std::string>();
       std::vector<std::string> names;
       for (const auto* e : rastro::trace::all_exporters()) names.emplace_back(e->name());
       app.add_option("-f,--format", *format, formats_help())
           ->required()
           ->check(CLI::IsMember(names));
       app.add_option("TRACE", *in, "Trace file (.rastro, .tsv or .csv)")->required();
       app.add_option("-o,--output", *out, "Output file (written atomically)")->required();
       auto quiet = std::make_shared<bool>(false);
       app.add_flag("-q,--quiet", *quiet, "No progress line on stderr (shown on a terminal for long runs)");
       app.callback([format, in, out, quiet] {
         const rastro::trace::Exporter* e = rastro::trace::find_exporter(*format);
         if (!e) throw rastro::Error(fmt::format("unknown export format '{}'", *format));
         rastro::Progress progress("rastro export", !*quiet);
         auto passes = rastro::trace::passes_over_file(*in, &progress);
         e->write(*passes, *out);
         const rastro::trace::ReadReport& rep = passes->report();
         if (!rep.intact) {
           fmt::print(stderr, "rastro export: {}: exported only the intact prefix ({} events): {}\n",
                      *in, passes->size(), rep.problem);
           rastro::cli::set_exit_code(2);
         }
       });
     }}};

}  // namespace
