// `rastro cat TRACE [--csv]`: prints a trace (any format) as TSV on stdout (docs/text-format.md).
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "trace/formats/text/text_format.h"
#include "trace/io/trace_io.h"

namespace {

rastro::cli::RegisterCommand reg{
    {"cat", "Print a trace as TSV (columns pid tid begin end function args rvalue ...)", 20, [](CLI::App& app) {
       auto path = std::make_shared<std::string>();
       auto csv = std::make_shared<bool>(false);
       app.add_option("TRACE", *path, "Trace file (.rastro, .tsv or .csv)")->required();
       app.add_flag("--csv", *csv, "Print CSV instead of TSV");
       app.callback([path, csv] {
         rastro::trace::ReadReport rep;
         rastro::trace::Trace t = rastro::trace::read_trace(*path, &rep);
         std::ios::sync_with_stdio(false);
         rastro::trace::write_text_trace(std::cout, t, *csv ? ',' : '\t');
         std::cout.flush();
         if (!rep.intact) {
           fmt::print(stderr, "rastro cat: {}: only the intact prefix was printed: {}\n", *path, rep.problem);
           rastro::cli::set_exit_code(2);
         }
       });
     }}};

}  // namespace
