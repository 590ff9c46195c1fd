// `rastro analyze RESULTS.csv [-o CATALOGUE.json] [--json]`: per-experiment results → catalogue
// entries (SPEC §6.1, §6.5; docs/metrology.md lists the input columns and output keys).
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "calibration/catalogue_entry.h"
#include "cli/command.h"
#include "common/error.h"
#include "metrology/experiment_result.h"

namespace {

using namespace rastro::calibration;

std::string pct(const nlohmann::json& v) { return v.is_number() ? fmt::format("{:.3g}", v.get<double>()) : "-"; }

void print_table(const nlohmann::json& entries) {
  fmt::print("{:<10} {:<6} {:>5} {:>4} {:>3} {:>11} {:>9} {:>9} {:>9} {:>5} {:>13} {:>8} {:>10}\n", "instrument",
             "type", "level", "bg", "n", "mean", "prec%", "bias%", "U(k=2)%", "calib", "F verdict", "SW p",
             "U after%");
  for (const auto& e : entries) {
    auto label = [](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
    fmt::print("{:<10} {:<6} {:>5} {:>4} {:>3} {:>11} {:>9} {:>9} {:>9} {:>5} {:>13} {:>8} {:>10}\n",
               e["instrument"].get<std::string>(), e["type"].get<std::string>(), label(e["level"]),
               label(e["background"]), e["n"].get<size_t>(),
               e["mean"].is_number() ? fmt::format("{:.6g}", e["mean"].get<double>()) : "-", pct(e["precision_rel"]),
               pct(e["bias_rel"]), pct(e["U_rel"]),
               e["calibration_needed"].is_boolean() ? (e["calibration_needed"].get<bool>() ? "yes" : "no") : "-",
               e["F_verdict"].is_string() ? e["F_verdict"].get<std::string>() : "-", pct(e["shapiro_p"]),
               e["after_calibration"].is_object() ? pct(e["after_calibration"]["U_rel"]) : "-");
  }
  size_t undefined = 0;
  for (const auto& e : entries) undefined += e["undefined"].size();
  if (undefined) fmt::print("({} undefined values; see --json for the reasons)\n", undefined);
}

rastro::cli::RegisterCommand register_analyze{
    {"analyze", "Catalogue from experiment results: precision, bias, significance, F-test, normality, calibration", 120,
     [](CLI::App& app) {
       auto path = std::make_shared<std::string>();
       auto out = std::make_shared<std::string>();
       auto json = std::make_shared<bool>(false);
       auto opt = std::make_shared<AnalyzeOptions>();
       app.add_option("RESULTS", *path,
                      "CSV with columns instrument,type,level,background,replicate,measured,reference,reference_u "
                      "(an empty reference leaves that group's bias undefined) and optionally application,recording "
                      "(the error split into perturbation and recording error; docs/metrology.md) and clock_u (the "
                      "Type-B clock uncertainty of an interval between hosts)")
           ->required();
       app.add_option("-o,--output", *out, "Write the catalogue entries (JSON array) here");
       app.add_flag("--json", *json, "Print the catalogue entries as a JSON array");
       app.add_option("--alpha", opt->alpha, "Significance level of the F and Welch tests")->capture_default_str();
       app.add_option("--outlier-k", opt->outlier_k, "Flag replicates outside median +- k*MAD")->capture_default_str();
       app.callback([=] {
         if (!(opt->alpha > 0 && opt->alpha < 1)) throw rastro::Error("--alpha must be in (0, 1)");
         if (!(opt->outlier_k > 0)) throw rastro::Error("--outlier-k must be positive");
         const auto results = rastro::metrology::read_results_csv(*path);
         if (results.empty()) throw rastro::Error(fmt::format("{}: no result rows", *path));
         const auto j = to_json(analyze_results(results, *opt));
         if (!out->empty()) {
           std::ofstream f(*out);
           if (!f) throw rastro::Error(fmt::format("{}: cannot write", *out));
           f << j.dump(2) << "\n";
           if (!f.flush()) throw rastro::Error(fmt::format("{}: write failed", *out));
         }
         if (*json) std::cout << j.dump(2) << "\n";
         else print_table(j);
       });
     }}};

}  // namespace
