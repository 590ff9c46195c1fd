#include "campaign/report/html_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "campaign/report/markdown_report.h"
#include "campaign/report/svg_plot.h"

namespace rastro::campaign {

namespace {

std::string cell_label(const calibration::CatalogueEntry& e) {
  return fmt::format("{} {} L{}{}", e.instrument, e.type, e.level, e.background == "0" ? "" : " B" + e.background);
}

std::string section(const std::string& title, const std::string& intro, const std::string& body) {
  return fmt::format("<section><h2>{}</h2><p>{}</p><div class=\"plots\">{}</div></section>\n", xml_escape(title),
                     xml_escape(intro), body);
}

std::string note(const std::string& text) { return "<p class=\"note\">" + xml_escape(text) + "</p>"; }

// Fig. 5.4: random (precision) and systematic (bias) components and the expanded uncertainty.
std::string components_plot(const std::vector<calibration::CatalogueEntry>& entries) {
  std::vector<BarGroup> groups;
  for (const auto& e : entries) {
    if (!e.budget || e.instrument == "reference") continue;
    const auto& b = e.after_calibration ? *e.after_calibration : *e.budget;
    groups.push_back({cell_label(e), {b.precision_rel, b.u_bias_rel, b.U_rel}, {}});
  }
  if (groups.empty()) return note("No instrument with a defined uncertainty budget.");
  int width = std::max(600, static_cast<int>(groups.size()) * 46 + 230);
  return bar_chart({"Uncertainty components per cell (after calibration where applied)", "", "% of the measured value"},
                   {"precision u(Rw)", "bias u(bias)", "U (k=2)"}, groups, width, 380);
}

// Fig. 6.5: measured mean vs reference mean, per type, with U(k=2) error bars.
std::string measured_vs_reference(const std::vector<calibration::CatalogueEntry>& entries) {
  std::map<std::string, std::vector<const calibration::CatalogueEntry*>> by_type;
  for (const auto& e : entries)
    if (e.budget && e.instrument != "reference") by_type[e.type].push_back(&e);
  std::string out;
  for (const auto& [type, list] : by_type) {
    std::vector<BarGroup> groups;
    for (const auto* e : list) {
      const auto& b = *e->budget;
      groups.push_back({fmt::format("{} L{}", e->instrument, e->level), {b.mean, b.reference_mean}, {b.U, 0}});
    }
    int width = std::max(520, static_cast<int>(groups.size()) * 40 + 230);
    out += bar_chart({"Mean response time, " + type, "", "µs"}, {"measured (±U)", "reference"}, groups, width, 340);
  }
  return out.empty() ? note("No measured cells.") : out;
}

// Figs. 4.3 / 5.7: calibration points, fitted curve with prediction band, calibrated points.
std::string calibration_plots(const std::vector<calibration::CatalogueEntry>& entries, const std::vector<CampaignResults>& campaigns) {
  std::string out;
  // The same rows (and so the same cell references) the curves were fitted on.
  std::vector<metrology::ExperimentResult> rows;
  for (const auto& c : campaigns)
    for (auto& r : analysis_rows(c)) rows.push_back(std::move(r));
  std::set<std::string> seen;
  int shown = 0;
  for (const auto& e : entries) {
    if (!e.curve || shown >= 8) continue;
    std::string key = e.instrument + "|" + e.type + "|" + e.background;
    if (!seen.insert(key).second) continue;
    ++shown;
    Series pts{"measured vs reference", {}, {}, {}, {}, Series::Style::kPoints};
    Series calibrated{"calibrated", {}, {}, {}, {}, Series::Style::kPoints};
    for (const auto& r : rows) {
      if (r.instrument != e.instrument || r.type != e.type || r.background != e.background || !r.reference) continue;
      pts.x.push_back(*r.reference);
      pts.y.push_back(r.measured);
      calibrated.x.push_back(*r.reference);
      calibrated.y.push_back(calibration::correct(*e.curve, r.measured));
    }
    if (pts.x.empty()) continue;
    double lo = *std::min_element(pts.x.begin(), pts.x.end()), hi = *std::max_element(pts.x.begin(), pts.x.end());
    Series fit{fmt::format("y = {:.3g} + {:.3g}x", e.curve->b0, e.curve->b1), {}, {}, {}, {}, Series::Style::kBand};
    for (int i = 0; i <= 20; ++i) {
      double x = lo + (hi - lo) * i / 20.0;
      auto band = calibration::prediction_band(*e.curve, x);
      fit.x.push_back(x);
      fit.y.push_back(calibration::predict_measured(*e.curve, x));
      fit.y_low.push_back(band ? band->pred_low : fit.y.back());
      fit.y_high.push_back(band ? band->pred_high : fit.y.back());
    }
    Series identity{"y = x", {lo, hi}, {lo, hi}, {}, {}, Series::Style::kLine};
    out += line_chart({fmt::format("Calibration curve: {} {} (95% prediction band)", e.instrument, e.type), "reference (µs)", "measured (µs)"},
                      {fit, pts, calibrated, identity});
  }
  return out.empty() ? note("No cell had a significant bias, so no calibration curve was needed.") : out;
}

// Fig. 5.5: mean response time against background load level.
std::string selectivity_plot(const std::vector<calibration::CatalogueEntry>& entries) {
  std::map<std::string, Series> lines;
  for (const auto& e : entries) {
    if (!e.budget) continue;
    Series& s = lines[fmt::format("{} {} L{}", e.instrument, e.type, e.level)];
    s.name = fmt::format("{} {} L{}", e.instrument, e.type, e.level);
    s.x.push_back(std::atof(e.background.c_str()));
    s.y.push_back(e.budget->mean);
    s.style = Series::Style::kLine;
  }
  std::vector<Series> multi;
  for (auto& [k, s] : lines)
    if (s.x.size() > 1) multi.push_back(s);
  if (multi.empty()) return note("Only one background load level was measured: selectivity needs at least two (campaign factor `backgrounds`).");
  if (multi.size() > 8) multi.resize(8);
  return line_chart({"Selectivity: mean response time vs background load", "CPU-hog processes", "µs"}, multi);
}

std::string qq_plots(const std::vector<calibration::CatalogueEntry>& entries) {
  std::string out;
  int shown = 0;
  for (const auto& e : entries) {
    if (e.qq.size() < 3 || shown >= 12) continue;
    ++shown;
    Series pts{"replicates", {}, {}, {}, {}, Series::Style::kPoints};
    for (const auto& p : e.qq) {
      pts.x.push_back(p.theoretical);
      pts.y.push_back(p.sample);
    }
    std::vector<Series> s{pts};
    if (e.budget) {
      double lo = pts.x.front(), hi = pts.x.back();
      s.push_back({"normal", {lo, hi}, {e.budget->mean + lo * e.budget->sd, e.budget->mean + hi * e.budget->sd}, {}, {}, Series::Style::kLine});
    }
    std::string title = "QQ: " + cell_label(e);
    if (e.shapiro) title += fmt::format(" (W={:.3f}, p={:.3g})", e.shapiro->W, e.shapiro->p_value);
    out += line_chart({title, "standard normal quantile", "µs"}, s, 380, 280);
  }
  return out.empty() ? note("No cell with at least 3 replicates.") : out;
}

Series ecdf_series(const std::string& name, const std::map<uint32_t, double>& hist) {
  Series s{name, {}, {}, {}, {}, Series::Style::kStep};
  double total = 0;
  for (auto& [l, c] : hist) total += c;
  double cum = 0;
  if (!hist.empty()) {
    s.x.push_back(0);
    s.y.push_back(0);
  }
  for (auto& [l, c] : hist) {
    cum += c;
    s.x.push_back(l);
    s.y.push_back(cum / total);
  }
  return s;
}

// Fig. 6.7: concurrency level ECDF, trace vs replay (and capture), aggregated over runs.
std::string concurrency_plot(const std::vector<CampaignResults>& campaigns) {
  std::map<std::string, std::map<uint32_t, double>> hists;
  for (const auto& c : campaigns)
    for (const auto& r : c.runs) {
      if (r.status != "ok" || r.measurements.empty()) continue;
      const auto& extra = r.measurements.front().extra;
      auto add = [&](const char* key, const std::string& name) {
        if (!extra.contains(key) || !extra[key].is_object()) return;
        for (auto& [l, n] : extra[key].items()) hists[name][static_cast<uint32_t>(std::stoul(l))] += n.get<double>();
      };
      add("concurrency", r.spec.catalogue_instrument());
      add("concurrency_original", "original trace");
    }
  if (hists.empty()) return note("No concurrency data in these campaigns (recorded by replay and macro runs).");
  std::vector<Series> s;
  for (auto& [name, h] : hists) s.push_back(ecdf_series(name, h));
  return line_chart({"Concurrency level at each request's start (ECDF)", "requests in flight", "P(level ≤ x)"}, s, 640, 360);
}

std::string issue_error_plot(const std::vector<CampaignResults>& campaigns) {
  std::map<std::string, std::vector<double>> p50, p99;
  for (const auto& c : campaigns)
    for (const auto& r : c.runs) {
      if (r.status != "ok") continue;
      for (const auto& m : r.measurements) {
        if (m.extra.contains("issue_error_p50_ns") && m.extra["issue_error_p50_ns"].is_number())
          p50[r.spec.catalogue_instrument()].push_back(m.extra["issue_error_p50_ns"].get<double>() / 1000);
        if (m.extra.contains("issue_error_p99_ns") && m.extra["issue_error_p99_ns"].is_number())
          p99[r.spec.catalogue_instrument()].push_back(m.extra["issue_error_p99_ns"].get<double>() / 1000);
      }
    }
  if (p99.empty()) return note("No replay runs reported an issue error.");
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? NAN : v[v.size() / 2];
  };
  std::vector<BarGroup> groups;
  for (auto& [name, v] : p99) groups.push_back({name, {median(p50[name]), median(v), *std::max_element(v.begin(), v.end())}, {}});
  return bar_chart({"Timing issue error (planned vs actual start)", "", "µs"}, {"median p50", "median p99", "worst p99"}, groups,
                   std::max(560, static_cast<int>(groups.size()) * 80 + 230), 340);
}

std::string summary_html(const nlohmann::json& cat) {
  std::string h = "<table><tr><th>instrument</th><th>status</th><th>type</th><th>level</th><th>bg</th><th>n</th><th>mean µs</th>"
                  "<th>ref µs</th><th>precision %</th><th>bias %</th><th>perturbation ± U</th><th>recording error ± U</th><th>significant</th>"
                  "<th>U(k=2) % after (before)</th></tr>\n";
  auto num = [](const nlohmann::json& v, const char* f) {
    return v.is_number() ? fmt::format(fmt::runtime(f), v.get<double>()) : std::string("n/a");
  };
  for (const auto& inst : cat["instruments"]) {
    std::string name = xml_escape(inst["instrument"].get<std::string>()), status = xml_escape(inst["status"].get<std::string>());
    if (inst["entries"].empty()) {
      h += fmt::format("<tr class=\"na\"><td>{}</td><td colspan=\"13\">{}</td></tr>\n", name, status);
      continue;
    }
    for (const auto& e : inst["entries"]) {
      std::string U = num(e["U_rel"], "{:.2f}");
      if (e["after_calibration"].is_object()) U = num(e["after_calibration"]["U_rel"], "{:.2f}") + " (" + U + ")";
      std::string sig = e["bias_significant"].is_boolean() ? (e["bias_significant"].get<bool>() ? "yes" : "no") : "n/a";
      if (sig == "yes" && e["calibration"].is_null() && e["undefined"].contains("calibration") &&
          e["undefined"]["calibration"].is_string())
        sig = fmt::format("<span title=\"{}\">yes, not calibrated</span>", xml_escape(e["undefined"]["calibration"].get<std::string>()));
      h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       name, status, xml_escape(e["type"].get<std::string>()), level_text(e["level"]), level_text(e["background"]), e["n"].dump(),
                       num(e["mean"], "{:.3f}"), num(e["reference_mean"], "{:.3f}"), num(e["precision_rel"], "{:.2f}"),
                       num(e["bias_rel"], "{:+.2f}"), error_component(e, "perturbation"), error_component(e, "recording_error"), sig, U);
    }
  }
  return h + "</table>\n";
}

}  // namespace

std::string html_report(const nlohmann::json& cat, const std::vector<calibration::CatalogueEntry>& entries,
                        const std::vector<CampaignResults>& campaigns) {
  std::string h = R"(<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>rastro catalogue</title><style>
body{font-family:sans-serif;margin:24px;max-width:1400px;color:#222}h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}td:first-child,th:first-child{text-align:left}
tr.na td{color:#a00;text-align:left}.plots svg{margin:6px;border:1px solid #eee}svg{max-width:100%;height:auto}.note{color:#666;font-style:italic}</style></head><body>
)";
  h += "<h1>rastro measurement catalogue</h1>\n";
  h += "<p><b>Measurand:</b> " + xml_escape(cat["measurand"].get<std::string>()) + ".<br><b>Environment:</b> " +
       xml_escape(describe_environment(cat["environment"])) +
       ".<br>Precision relative to the measured mean, bias relative to the reference mean (the uninstrumented runs of the cell; for replayers the original trace); "
       "the bias of a capture instrument splits into perturbation (the application ran slower) and recording error (the trace vs the application's own timing of the same calls); U expanded with k = 2 (95.5 %). "
       "Every number can be recomputed with <code>rastro analyze</code> on the campaign's results CSV (results.csv, or results-KIND.csv per campaign); details in catalogue.md / catalogue.json.</p>\n";
  h += section("Catalogue", "One row per instrument × workload type × load level × background level.", summary_html(cat));
  h += section("Uncertainty components", "Random error (precision), systematic error (bias uncertainty) and combined expanded uncertainty per cell (thesis Fig. 5.4).",
               components_plot(entries));
  h += section("Measured vs reference", "Mean response time measured by each instrument or replayer next to the reference method's (thesis Fig. 6.5).",
               measured_vs_reference(entries));
  h += section("Calibration", "Curves fitted where the bias is significant, with the 95 % prediction band and the calibrated points (thesis Figs. 4.3, 5.7). "
               "A curve is valid only in the environment and background level it was fitted in.", calibration_plots(entries, campaigns));
  h += section("Selectivity", "Effect of background load on the measured value (thesis Fig. 5.5).", selectivity_plot(entries));
  h += section("Normality", "QQ-plots of the replicates with the Shapiro–Wilk test (thesis App. D–F).", qq_plots(entries));
  h += section("Concurrency", "Requests in flight at each request's start: original trace vs replay (thesis Fig. 6.7).", concurrency_plot(campaigns));
  h += section("Timing policies", "Issue error of the replayers: how far each call's actual start was from its planned start.", issue_error_plot(campaigns));
  h += "</body></html>\n";
  return h;
}

}  // namespace rastro::campaign
