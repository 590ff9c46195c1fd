// Catalogue entries (SPEC §6.5, thesis App. B): `rastro analyze` turns per-experiment results
// into one entry per (instrument, type, level, background) group with precision, bias and its
// significance, the F-test against the reference's own replicates, normality, outliers,
// selectivity (effect of the background level), the calibration curve when the bias is
// significant, and the uncertainty before and after calibration.
//
// It lives in calibration/ rather than metrology/ because it fits curves: calibration/ depends
// on metrology/, never the reverse.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibration/curve_fit.h"
#include "metrology/bias_significance.h"
#include "metrology/error_decomposition.h"
#include "metrology/experiment_result.h"
#include "metrology/f_ratio.h"
#include "metrology/outliers.h"
#include "metrology/qq_plot.h"
#include "metrology/shapiro_wilk.h"
#include "metrology/uncertainty.h"
#include "metrology/welch_t.h"

namespace rastro::calibration {

// Effect of background load: this group's mean against the same instrument/type/level at the
// lowest background level present (the baseline).
struct Selectivity {
  std::string baseline_background;
  double delta_rel = 0;  // (mean − mean_baseline)/mean_baseline · 100
  metrology::WelchTTest welch;
  bool significant = false;  // Welch p < α
};

struct CatalogueEntry {
  std::string instrument, type, level, background;
  size_t n = 0;
  std::vector<double> measured;  // replicates in replicate order
  std::optional<metrology::UncertaintyBudget> budget;
  std::optional<metrology::BiasSignificance> significance;
  std::optional<metrology::FTest> f_test;  // vs the reference group's replicates
  size_t f_reference_n = 0;
  std::optional<metrology::ShapiroWilk> shapiro;
  std::optional<metrology::OutlierReport> outliers;
  std::vector<metrology::QqPoint> qq;
  std::optional<Selectivity> selectivity;
  bool calibration_needed = false;
  std::optional<CalibrationCurve> curve;  // fitted when calibration_needed
  std::optional<metrology::UncertaintyBudget> after_calibration;
  // The error split of a capture instrument (metrology/error_decomposition.h).
  std::optional<metrology::ErrorComponent> perturbation;
  std::optional<metrology::ErrorComponent> recording_error;
  std::map<std::string, std::string> undefined;  // JSON key → why it is null
};

struct AnalyzeOptions {
  double alpha = 0.05;      // F-test, Welch test
  double outlier_k = 3;     // median ± k·MAD
};

// Groups results and computes every entry. Never throws on bad statistics: an undefined value
// is left empty with its reason in `undefined`. Entries are sorted by instrument (reference
// first), type, level, background.
std::vector<CatalogueEntry> analyze_results(const std::vector<metrology::ExperimentResult>& results,
                                            const AnalyzeOptions& options = {});

// One JSON object per entry (docs/metrology.md lists the keys); undefined numbers are null.
nlohmann::json to_json(const CatalogueEntry& e);
nlohmann::json to_json(const std::vector<CatalogueEntry>& entries);

}  // namespace rastro::calibration
