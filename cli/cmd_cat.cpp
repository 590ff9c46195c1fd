// `rastro cat TRACE [--csv] [-q]`: prints a trace (any format) as TSV on stdout
// (docs/text-format.md), streaming: memory does not grow with the trace's length.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "trace/formats/text/text_format.h"
#include "common/progress.h"
#include "trace/io/trace_passes.h"

namespace {

rastro::cli::RegisterCommand register_cat{
    {"cat", "Print a trace as TSV (columns pid tid begin end function args rvalue ...)", 20, [](CLI::App& app) {
       auto path = std::make_shared<std::string>();
       auto csv = std::make_shared<bool>(false);
       auto quiet = std::make_shared<bool>(false);
       app.add_option("TRACE", *path, "Trace file (.rastro, .tsv or .csv)")->required();
       app.add_flag("--csv", *csv, "Print CSV instead of TSV");
       app.add_flag("-q,--quiet", *quiet, "No progress line on stderr (shown on a terminal for long runs)");
       app.callback([path, csv, quiet] {
         rastro::Progress progress("rastro cat", !*quiet);
         auto passes = rastro::trace::passes_over_file(*path, &progress);
         std::ios::sync_with_stdio(false);
         rastro::trace::write_text_trace(std::cout, *passes, *csv ? ',' : '\t');
         std::cout.flush();
         const rastro::trace::ReadReport& rep = passes->report();
         if (!rep.intact) {
           fmt::print(stderr, "rastro cat: {}: only the intact prefix was printed: {}\n", *path, rep.problem);
           rastro::cli::set_exit_code(2);
         }
       });
     }}};

}  // namespace
