#include "calibration/catalogue_entry.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <tuple>

#include <fmt/format.h>

#include "calibration/curve_json.h"
#include "metrology/descriptive.h"

namespace rastro::calibration {
namespace {

using metrology::ExperimentResult;
using Key = std::tuple<std::string, std::string, std::string, std::string>;

std::optional<double> as_number(const std::string& s) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// Numeric-aware order for levels ("2" < "10").
bool level_less(const std::string& a, const std::string& b) {
  auto na = as_number(a), nb = as_number(b);
  if (na && nb) return *na < *nb;
  if (na != nb) return static_cast<bool>(na);  // numbers before words
  return a < b;
}

bool entry_less(const CatalogueEntry& a, const CatalogueEntry& b) {
  const bool ra = a.instrument == metrology::kReferenceInstrument;
  const bool rb = b.instrument == metrology::kReferenceInstrument;
  if (ra != rb) return ra;
  if (a.instrument != b.instrument) return a.instrument < b.instrument;
  if (a.type != b.type) return a.type < b.type;
  if (a.level != b.level) return level_less(a.level, b.level);
  return level_less(a.background, b.background);
}

// The replicates of a group with their references, or why the bias cannot be computed: a row
// without a reference value is never compared with something else.
Result<std::vector<metrology::Replicate>> replicates_of(const std::vector<const ExperimentResult*>& rows) {
  std::vector<metrology::Replicate> out;
  for (const auto* r : rows) {
    if (!r->reference)
      return fail(fmt::format("no reference value (line {}): the campaign has no uninstrumented reference runs "
                              "for this cell, so bias and uncertainty are undefined", r->line));
    out.push_back({r->measured, *r->reference, r->reference_u, r->clock_u});
  }
  return out;
}

// Perturbation and recording error of a group, from its rows' application timings (capture
// instruments only); each left empty with its reason when it cannot be computed.
void split_error(CatalogueEntry& e, const std::vector<const ExperimentResult*>& rows) {
  auto why_not = [&](const std::string& reason) {
    if (!e.perturbation) e.undefined["perturbation"] = reason;
    if (!e.recording_error) e.undefined["recording_error"] = reason;
  };
  if (e.instrument == metrology::kReferenceInstrument) return why_not("this is the reference");
  std::vector<double> application, recording;
  for (const auto* r : rows) {
    if (!r->application) {
      return why_not(application.empty() && r == rows.front()
                         ? "no application-level timing in these rows (measured for capture instruments only)"
                         : fmt::format("no application-level timing on line {}", r->line));
    }
    application.push_back(*r->application);
    if (r->recording) recording.push_back(*r->recording);
  }
  if (!e.budget) e.undefined["perturbation"] = e.undefined.at("budget");
  else if (auto p = metrology::perturbation(application, e.budget->reference_mean, e.budget->u_cref)) e.perturbation = *p;
  else e.undefined["perturbation"] = p.error();
  if (recording.size() != application.size())
    e.undefined["recording_error"] = fmt::format(
        "{} of {} runs have no paired per-call difference (the trace did not hold the same calls as the application)",
        application.size() - recording.size(), application.size());
  else if (auto d = metrology::recording_error(application, recording)) e.recording_error = *d;
  else e.undefined["recording_error"] = d.error();
}

}  // namespace

std::vector<CatalogueEntry> analyze_results(const std::vector<ExperimentResult>& results,
                                            const AnalyzeOptions& opt) {
  std::map<Key, std::vector<const ExperimentResult*>> groups;
  for (const auto& r : results) groups[{r.instrument, r.type, r.level, r.background}].push_back(&r);

  std::vector<CatalogueEntry> entries;
  std::map<Key, size_t> index;
  for (auto& [key, rows] : groups) {
    std::sort(rows.begin(), rows.end(),
              [](const ExperimentResult* a, const ExperimentResult* b) { return a->replicate < b->replicate; });
    CatalogueEntry e;
    std::tie(e.instrument, e.type, e.level, e.background) = key;
    e.n = rows.size();
    for (const auto* r : rows) e.measured.push_back(r->measured);
    auto reps = replicates_of(rows);
    if (!reps) {
      e.undefined["budget"] = reps.error();
    } else if (auto b = metrology::uncertainty_budget(*reps)) {
      e.budget = *b;
      e.significance = metrology::bias_significance(b->mean, b->reference_mean, b->sd, b->n, b->u_cref);
      e.calibration_needed = e.significance->significant;
    } else {
      e.undefined["budget"] = b.error();
    }
    split_error(e, rows);
    if (auto s = metrology::shapiro_wilk(e.measured)) e.shapiro = *s;
    else e.undefined["shapiro"] = s.error();
    if (auto o = metrology::flag_outliers(e.measured, opt.outlier_k)) e.outliers = *o;
    else e.undefined["outliers"] = o.error();
    if (auto q = metrology::qq_normal(e.measured)) e.qq = *q;
    index[key] = entries.size();
    entries.push_back(std::move(e));
  }

  for (auto& e : entries) {
    // F-test against the reference's own replicates under the same conditions.
    if (e.instrument == metrology::kReferenceInstrument) {
      e.undefined["F"] = "this is the reference";
    } else if (auto it = index.find({metrology::kReferenceInstrument, e.type, e.level, e.background});
               it == index.end()) {
      e.undefined["F"] = "no 'reference' rows for this type, level and background";
    } else {
      const auto& ref = entries[it->second];
      e.f_reference_n = ref.n;
      if (auto f = metrology::f_test(e.measured, ref.measured, opt.alpha)) e.f_test = *f;
      else e.undefined["F"] = f.error();
    }
    // Selectivity against the lowest background level of the same instrument/type/level.
    std::optional<std::string> baseline;
    for (const auto& [key, i] : index) {
      const auto& [ins, type, level, bg] = key;
      if (ins == e.instrument && type == e.type && level == e.level &&
          (!baseline || level_less(bg, *baseline)))
        baseline = bg;
    }
    if (!baseline || *baseline == e.background) {
      e.undefined["selectivity"] = "this is the lowest background level (the baseline)";
    } else {
      const auto& base = entries[index.at({e.instrument, e.type, e.level, *baseline})];
      auto w = metrology::welch_t_test(e.measured, base.measured, opt.alpha);
      auto mb = metrology::mean(base.measured);
      if (!w) e.undefined["selectivity"] = w.error();
      else if (!mb || *mb == 0) e.undefined["selectivity"] = "baseline mean is 0 or undefined";
      else
        e.selectivity = Selectivity{*baseline, (metrology::mean(e.measured).take() - *mb) / *mb * 100, *w,
                                    w->p_value < opt.alpha};
    }
  }

  // Calibration: one curve per (instrument, type, background) over every level's replicates,
  // attached to the entries whose bias is significant.
  for (auto& e : entries) {
    if (!e.calibration_needed) continue;
    std::vector<CalibrationPoint> pts;
    for (const auto& r : results)
      if (r.instrument == e.instrument && r.type == e.type && r.background == e.background && r.reference)
        pts.push_back({*r.reference, r.measured});
    auto curve = fit_curve(pts, default_kind(pts));
    if (!curve) {
      e.undefined["calibration"] = curve.error();
      continue;
    }
    if (auto why = calibration_obstacle(*curve, opt.alpha)) {  // bias stays uncorrected, said why
      e.undefined["calibration"] = *why;
      continue;
    }
    if (auto bg = as_number(e.background)) curve->domain.background = *bg;
    std::vector<metrology::Replicate> corrected;
    const auto& rows = groups.at({e.instrument, e.type, e.level, e.background});
    for (const auto* r : rows)
      corrected.push_back({correct(*curve, r->measured), *r->reference, r->reference_u, r->clock_u});
    if (auto b = metrology::uncertainty_budget(corrected)) e.after_calibration = *b;
    else e.undefined["after_calibration"] = b.error();
    e.curve = std::move(*curve);
  }
  std::sort(entries.begin(), entries.end(), entry_less);
  return entries;
}

namespace {

nlohmann::json label(const std::string& s) {
  if (auto v = as_number(s)) {
    if (*v == std::floor(*v) && std::fabs(*v) < 1e15) return static_cast<int64_t>(*v);
    return *v;
  }
  return s;
}

nlohmann::json budget_json(const metrology::UncertaintyBudget& b) {
  return {{"n", b.n},
          {"mean", b.mean},
          {"reference_mean", b.reference_mean},
          {"sd", b.sd},
          {"bias", b.bias},
          {"rms_bias", b.rms_bias},
          {"u_cref", b.u_cref},
          {"u_bias", b.u_bias},
          {"u_clock", b.u_clock},
          {"uc", b.uc},
          {"U", b.U},
          {"precision_rel", b.precision_rel},
          {"bias_rel", b.bias_rel},
          {"rms_bias_rel", b.rms_bias_rel},
          {"u_cref_rel", b.u_cref_rel},
          {"u_bias_rel", b.u_bias_rel},
          {"u_clock_rel", b.u_clock_rel},
          {"uc_rel", b.uc_rel},
          {"U_rel", b.U_rel},
          {"dominant_component", metrology::dominant_component(b)}};
}

}  // namespace

nlohmann::json to_json(const CatalogueEntry& e) {
  nlohmann::json j;
  j["instrument"] = e.instrument;
  j["type"] = e.type;
  j["level"] = label(e.level);
  j["background"] = label(e.background);
  j["n"] = e.n;
  nlohmann::json undefined = nlohmann::json::object();
  for (const auto& [k, v] : e.undefined) undefined[k] = v;

  static const char* const kBudgetKeys[] = {"mean",       "reference_mean", "sd",          "bias",
                                            "rms_bias",   "u_cref",         "u_bias",      "u_clock",
                                            "uc",         "U",              "precision_rel", "bias_rel",
                                            "rms_bias_rel", "u_cref_rel",   "u_bias_rel",  "u_clock_rel",
                                            "uc_rel",     "U_rel",          "dominant_component"};
  if (e.budget) {
    auto b = budget_json(*e.budget);
    for (const char* k : kBudgetKeys) j[k] = b[k];
    j["bias_significant"] = e.significance->significant;
    j["bias_difference"] = e.significance->difference;
    j["bias_threshold"] = e.significance->threshold;
  } else {
    for (const char* k : kBudgetKeys) {
      j[k] = nullptr;
      undefined[k] = e.undefined.at("budget");
    }
    j["bias_significant"] = nullptr;
    undefined["bias_significant"] = e.undefined.at("budget");
  }
  if (e.f_test) {
    j["F"] = e.f_test->F;
    j["F_df"] = {e.f_test->df_num, e.f_test->df_den};
    j["F_crit_low"] = e.f_test->crit_low;
    j["F_crit_high"] = e.f_test->crit_high;
    j["F_crit_one_sided"] = e.f_test->crit_one_sided;
    j["F_p"] = e.f_test->p_value;
    j["F_verdict"] = std::string(to_string(e.f_test->verdict));
    j["F_reference_n"] = e.f_reference_n;
  } else {
    for (const char* k : {"F", "F_crit_low", "F_crit_high", "F_crit_one_sided", "F_p", "F_verdict"}) {
      j[k] = nullptr;
      undefined[k] = e.undefined.at("F");
    }
  }
  if (e.shapiro) {
    j["shapiro_W"] = e.shapiro->W;
    j["shapiro_p"] = e.shapiro->p_value;
  } else {
    j["shapiro_W"] = j["shapiro_p"] = nullptr;
    undefined["shapiro_W"] = undefined["shapiro_p"] = e.undefined.at("shapiro");
  }
  if (e.outliers) {
    nlohmann::json flagged = nlohmann::json::array();
    for (size_t i : e.outliers->flagged) flagged.push_back(i + 1);
    j["outliers"] = {{"rule", fmt::format("|x - median| > {} * MAD", e.outliers->k)},
                     {"median", e.outliers->median},
                     {"mad", e.outliers->mad},
                     {"flagged_positions", flagged},
                     {"note", e.outliers->note}};
  } else {
    j["outliers"] = nullptr;
  }
  nlohmann::json qq = nlohmann::json::array();
  for (const auto& p : e.qq) qq.push_back({p.theoretical, p.sample});
  j["qq"] = qq;
  if (e.selectivity) {
    const auto& s = *e.selectivity;
    j["selectivity"] = {{"baseline_background", label(s.baseline_background)},
                        {"delta_rel", s.delta_rel},
                        {"welch_t", s.welch.t},
                        {"welch_df", s.welch.df},
                        {"welch_p", s.welch.p_value},
                        {"significant", s.significant}};
  } else {
    j["selectivity"] = nullptr;
  }
  j["calibration_needed"] = e.budget ? nlohmann::json(e.calibration_needed) : nlohmann::json();
  j["calibration"] = e.curve ? to_json(*e.curve) : nlohmann::json();
  if (!e.curve && e.budget && !e.calibration_needed) j["calibration"] = "not needed";
  j["after_calibration"] = e.after_calibration ? budget_json(*e.after_calibration) : nlohmann::json();
  auto component = [&](const std::optional<metrology::ErrorComponent>& c, const std::string& key) {
    j[key + "_rel"] = c ? nlohmann::json(c->rel) : nlohmann::json();
    j[key + "_u_rel"] = c ? nlohmann::json(c->u_rel) : nlohmann::json();
    if (!c) undefined[key + "_rel"] = undefined[key + "_u_rel"] = e.undefined.at(key);
  };
  component(e.perturbation, "perturbation");
  component(e.recording_error, "recording_error");
  j["undefined"] = undefined;
  return j;
}

nlohmann::json to_json(const std::vector<CatalogueEntry>& entries) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& e : entries) a.push_back(to_json(e));
  return a;
}

}  // namespace rastro::calibration
