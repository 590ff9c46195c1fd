// `rastro calibrate fit|apply|show|predict`: calibration curves (SPEC §6.2, docs/metrology.md).
//
//   rastro calibrate fit DATA.csv -o CURVE.json [--kind single|two|linear] [--unit us]
//                        [--environment-from T.rastro] [--background N]
//   rastro calibrate apply CURVE.json T -o T2.rastro [--background N] [--syscalls SET] [--strict] [-q]
//   rastro calibrate show CURVE.json [--json]
//   rastro calibrate predict CURVE.json --measured Y1,Y2,... [--alpha 0.05] [--json]
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "calibration/calibration_data.h"
#include "calibration/corrected_passes.h"
#include "calibration/curve_fit.h"
#include "calibration/curve_json.h"
#include "calibration/inverse_prediction.h"
#include "calibration/trace_correction.h"
#include "cli/command.h"
#include "common/error.h"
#include "common/progress.h"
#include "trace/io/trace_io.h"
#include "trace/io/trace_passes.h"
#include "trace/syscalls/syscall_table.h"

namespace {

using namespace rastro::calibration;

std::string opt_num(const std::optional<double>& v) { return v ? fmt::format("{:.6g}", *v) : "undefined"; }

void print_curve(const CalibrationCurve& c, const std::string& source) {
  fmt::print("calibration curve {}\n", source);
  fmt::print("  kind        {}   (measured = b0 + b1 * reference, unit {})\n", to_string(c.kind), c.unit);
  fmt::print("  b0          {:.6g}  (se {})\n", c.b0, opt_num(c.se_b0));
  fmt::print("  b1          {:.6g}  (se {})\n", c.b1, opt_num(c.se_b1));
  fmt::print("  s_y/x       {}\n", opt_num(c.s_yx));
  fmt::print("  R^2         {}\n", opt_num(c.r2));
  fmt::print("  n           {}  (residual df {})\n", c.n, c.df);
  fmt::print("  valid for   reference {:.6g} .. {:.6g} {}\n", c.domain.x_min, c.domain.x_max, c.unit);
  fmt::print("  background  {}\n", c.domain.background ? fmt::format("{:g}", *c.domain.background) : "not recorded");
  const auto env = flatten_environment(c.domain.environment);
  if (env.empty()) fmt::print("  environment not recorded\n");
  for (const auto& [k, v] : env) fmt::print("  env         {} = {}\n", k, v);
  if (!c.note.empty()) fmt::print("  note        {}\n", c.note);
}

std::vector<double> parse_measured(const std::string& list) {
  std::vector<double> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || !std::isfinite(v))
      throw rastro::Error(fmt::format("--measured: '{}' is not a finite number", item));
    out.push_back(v);
  }
  if (out.empty()) throw rastro::Error("--measured needs at least one value");
  return out;
}

void setup_fit(CLI::App& app) {
  auto data = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto kind = std::make_shared<std::string>();
  auto unit = std::make_shared<std::string>("us");
  auto env_from = std::make_shared<std::string>();
  auto background = std::make_shared<std::optional<double>>();
  app.add_option("DATA", *data, "CSV with columns reference,measured (replicates as repeated rows)")->required();
  app.add_option("-o,--output", *out, "Curve JSON to write")->required();
  app.add_option("--kind", *kind, "single (zero error), two (gain error) or linear (least squares); "
                                   "default: single for one reference value, else linear")
      ->check(CLI::IsMember({"single", "two", "linear"}));
  app.add_option("--unit", *unit, "Unit of the values (ns, us, ms, s)")->capture_default_str();
  app.add_option("--environment-from", *env_from,
                 "Trace whose header environment inventory (kernel, CPU, FS) the curve is valid for");
  app.add_option("--background", *background, "Background-load level the data was measured at");
  app.callback([=] {
    if (!ns_per_unit(*unit)) throw rastro::Error(ns_per_unit(*unit).error());
    auto pts = read_calibration_csv(*data);
    const CurveKind k = kind->empty() ? default_kind(pts) : parse_curve_kind(*kind).take();
    auto fitted = fit_curve(pts, k);
    if (!fitted) throw rastro::Error(fmt::format("{}: {}", *data, fitted.error()));
    CalibrationCurve c = std::move(*fitted);
    c.unit = *unit;
    if (!env_from->empty()) {
      auto t = rastro::trace::read_trace(*env_from);
      c.domain.environment = trace_environment(t.header);
      if (!*background) *background = trace_background_level(t.header);
    }
    c.domain.background = *background;
    write_curve(*out, c);
    print_curve(c, *out);
    if (env_from->empty())
      fmt::print(stderr, "rastro calibrate fit: warning: no --environment-from: the curve cannot be checked "
                         "against the kernel and machine it is applied on\n");
    if (!*background)
      fmt::print(stderr, "rastro calibrate fit: warning: no --background: the curve records no background-load level\n");
    if (auto why = calibration_obstacle(c))
      fmt::print(stderr, "rastro calibrate fit: WARNING: {}; `calibrate apply` will warn, and refuse with --strict\n", *why);
  });
}

void setup_apply(CLI::App& app) {
  auto curve_path = std::make_shared<std::string>();
  auto in = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto background = std::make_shared<std::optional<double>>();
  auto syscalls = std::make_shared<std::string>();
  auto strict = std::make_shared<bool>(false);
  app.add_option("CURVE", *curve_path, "Curve JSON from `rastro calibrate fit`")->required();
  app.add_option("TRACE", *in, "Trace to correct")->required();
  app.add_option("-o,--output", *out, "Corrected trace to write")->required();
  app.add_option("--background", *background, "Background-load level of the trace (if its header lacks it)");
  app.add_option("--syscalls", *syscalls, "Correct only these syscalls (e.g. read,pread64 or %read); default all");
  app.add_flag("--strict", *strict, "Refuse (exit 3, nothing written) on any warning: outside the curve's validity domain, or a curve whose gain is not significantly positive");
  auto quiet = std::make_shared<bool>(false);
  app.add_flag("-q,--quiet", *quiet, "No progress line on stderr (shown on a terminal for long runs)");
  app.callback([=] {
    CalibrationCurve c = read_curve(*curve_path);
    // Streaming: the trace is read in passes (facts, correction counts, then the corrected
    // events written block by block), never held whole.
    rastro::Progress progress("rastro calibrate apply", !*quiet);
    auto raw = rastro::trace::passes_over_file(*in, &progress);
    const rastro::trace::ReadReport& rep = raw->report();
    if (!rep.intact)
      fmt::print(stderr, "rastro calibrate apply: warning: {}: only the intact prefix is used: {}\n", *in, rep.problem);
    CorrectionOptions opt;
    opt.curve_source = *curve_path;
    opt.background = *background;
    if (!syscalls->empty()) {
      auto set = rastro::trace::parse_syscall_set(*syscalls);
      if (!set) throw rastro::Error("--syscalls: " + set.error());
      opt.syscalls = set->numbers();
    }
    auto corrected = CorrectedPasses::make(*raw, c, opt);
    if (!corrected) throw rastro::Error(fmt::format("{}: {}", *in, corrected.error()));
    const CorrectionReport& result = (*corrected)->correction();
    for (const auto& w : result.warnings)
      fmt::print(stderr, "rastro calibrate apply: WARNING: {}\n", w);
    if (!result.warnings.empty() && *strict)
      throw rastro::Error(fmt::format("{} validity warnings with --strict: nothing written", result.warnings.size()), 3);
    rastro::trace::write_trace(*out, **corrected, rastro::trace::format_for_path(*out));
    fmt::print("{}: corrected {} events ({} unfinished, {} not selected), curve {} recorded in the header\n",
               *out, result.corrected, result.skipped_unfinished, result.skipped_filtered, *curve_path);
  });
}

void setup_show(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  app.add_option("CURVE", *path, "Curve JSON")->required();
  app.add_flag("--json", *json, "Print the curve as JSON");
  app.callback([=] {
    CalibrationCurve c = read_curve(*path);
    if (*json) std::cout << to_json(c).dump(2) << "\n";
    else print_curve(c, *path);
  });
}

void setup_predict(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto measured = std::make_shared<std::string>();
  auto alpha = std::make_shared<double>(0.05);
  auto json = std::make_shared<bool>(false);
  app.add_option("CURVE", *path, "Curve JSON")->required();
  app.add_option("--measured", *measured, "Replicate measurements Y1,Y2,... (their mean is calibrated)")->required();
  app.add_option("--alpha", *alpha, "1 - confidence level of the interval")->capture_default_str();
  app.add_flag("--json", *json, "Print JSON (x_hat, ci_low, ci_high, ...)");
  app.callback([=] {
    CalibrationCurve c = read_curve(*path);
    const auto ys = parse_measured(*measured);
    auto p = inverse_predict(c, ys, *alpha);
    if (!p) throw rastro::Error(fmt::format("{}: {}", *path, p.error()));
    ApplicationContext where;
    where.value_min = where.value_max = p->x_hat;
    where.environment = c.domain.environment;  // environment is the caller's business here
    where.background = c.domain.background;
    if (p->x_hat < c.domain.x_min) where.values_below = 1;
    if (p->x_hat > c.domain.x_max) where.values_above = 1;
    std::vector<std::string> warnings;
    for (auto& w : validity_warnings(c.domain, where))
      if (w.find("range") != std::string::npos) warnings.push_back(w);
    if (*json) {
      auto num = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
      nlohmann::json j = {{"x_hat", p->x_hat},     {"ci_low", num(p->ci_low)}, {"ci_high", num(p->ci_high)},
                          {"s_x_hat", num(p->s_x_hat)}, {"t", num(p->t)},        {"m", p->m},
                          {"y_mean", p->y_mean},   {"alpha", p->alpha},       {"unit", c.unit},
                          {"warnings", warnings}};
      if (!p->note.empty()) j["undefined"] = {{"ci_low", p->note}, {"ci_high", p->note}, {"s_x_hat", p->note}};
      std::cout << j.dump(2) << "\n";
    } else {
      fmt::print("x_hat = {:.6g} {} from the mean {:.6g} of {} measurements\n", p->x_hat, c.unit, p->y_mean, p->m);
      if (p->ci_low)
        fmt::print("{:g} % interval: {:.6g} .. {:.6g} (s = {:.6g}, t = {:.6g})\n", 100 * (1 - p->alpha), *p->ci_low,
                   *p->ci_high, *p->s_x_hat, *p->t);
      else
        fmt::print("{}\n", p->note);
    }
    for (const auto& w : warnings) fmt::print(stderr, "rastro calibrate predict: WARNING: {}\n", w);
  });
}

rastro::cli::RegisterCommand register_calibrate{
    {"calibrate", "Calibration curves: fit from reference data, apply to a trace, show, predict with intervals", 110,
     [](CLI::App& app) {
       app.require_subcommand(1);
       setup_fit(*app.add_subcommand("fit", "Fit a curve (measured = b0 + b1 * reference) from a CSV"));
       setup_apply(*app.add_subcommand("apply", "Correct each event's response time of a trace with a curve"));
       setup_show(*app.add_subcommand("show", "Print a curve and its validity domain"));
       setup_predict(*app.add_subcommand("predict", "Calibrated value and interval for replicate measurements"));
     }}};

}  // namespace
