#include "characterize/model_validation.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "characterize/sampling_bounds.h"
#include "characterize/workload_characterizer.h"
#include "common/error.h"

namespace rastro::characterize {
namespace {

// Tolerances (docs/characterize.md, "Validation").
constexpr double kMixTolerance = 0.05;       // absolute, per category share
constexpr double kFractionTolerance = 0.05;  // absolute: sequential fraction, syncs per write
constexpr double kReuseTolerance = 0.10;     // absolute
constexpr double kRatioTolerance = 0.15;     // relative: transfers per open, read/write bytes
constexpr double kKsTolerance = 0.10;        // sizes, think times, durations
constexpr double kKsDerivedTolerance = 0.20; // inter-arrival (think + duration) and file extents

constexpr std::array<OpCategory, 7> kSynthesized = {OpCategory::kRead,  OpCategory::kWrite, OpCategory::kOpen,
                                                   OpCategory::kClose, OpCategory::kMeta,  OpCategory::kSync,
                                                   OpCategory::kNamespace};

// How many calls of `c`'s mix share `share` the class made (its threads times their mean calls).
double class_calls(const ClassModel& c, double share) {
  return share * c.calls_per_thread.mean * static_cast<double>(c.threads);
}
// Transfers (reads and writes that moved data) of the class: the trials of its sequential fraction.
double class_transfers(const ClassModel& c) { return static_cast<double>(c.read_size.count + c.write_size.count); }
// Read and write calls of the class (0-byte reads included): the events of its transfers per open.
double class_transfer_calls(const ClassModel& c) {
  return class_calls(c, c.mix[static_cast<size_t>(OpCategory::kRead)] + c.mix[static_cast<size_t>(OpCategory::kWrite)]);
}
// Sessions of the class: its successful opens.
double class_sessions(const ClassModel& c) {
  return class_calls(c, c.mix[static_cast<size_t>(OpCategory::kOpen)]) * (1.0 - c.failed_open_fraction);
}

OpMix synthesized_mix(const OpMix& mix) {
  OpMix m{};
  for (OpCategory c : kSynthesized) m[static_cast<size_t>(c)] = mix[static_cast<size_t>(c)];
  return normalised(m);
}

class Checker {
 public:
  explicit Checker(ValidationReport& r) : r_(r) {}
  void absolute(const std::string& scope, const std::string& f, double m, double s, double tol) {
    r_.checks.push_back({scope, f, "abs", m, s, std::abs(m - s), tol, std::abs(m - s) <= tol});
  }
  void relative(const std::string& scope, const std::string& f, double m, double s, double tol) {
    double d = m != 0 ? std::abs(s - m) / std::abs(m) : std::abs(s);
    r_.checks.push_back({scope, f, "rel", m, s, d, tol, d <= tol});
  }
  void ks(const std::string& scope, const std::string& f, const EmpiricalDistribution& m,
          const EmpiricalDistribution& s, double tol) {
    if (m.empty() && s.empty()) return;
    double d = ks_distance(m, s);
    // Small samples: never tighter than the two-sample KS critical value at alpha = 0.05, below
    // which a difference is not even detectable (sampling_bounds.h, as the two below).
    double n = static_cast<double>(m.count), k = static_cast<double>(s.count);
    tol = std::max(tol, ks_critical_distance(n, k));
    r_.checks.push_back({scope, f, "ks", n, k, d, tol, d <= tol});
  }
  // A share of n (model) and k (synthetic) trials: never tighter than the two-proportion bound.
  void proportion(const std::string& scope, const std::string& f, double m, double s, double n, double k, double tol) {
    absolute(scope, f, m, s, std::max(tol, two_proportion_bound(m, n, s, k)));
  }
  // Events per unit counted tm (model) and ts (synthetic) times: never tighter than the
  // ratio-of-counts bound.
  void count_ratio(const std::string& scope, const std::string& f, double m, double s, double tm, double ts, double tol) {
    relative(scope, f, m, s, std::max(tol, count_ratio_bound(tm, ts)));
  }

 private:
  ValidationReport& r_;
};

// The relative 95 % bound of the read/write byte ratio from sampling alone: each byte total is a
// sum of n transfers drawn from the class's size distribution (relative standard error
// sqrt(n var) / (n mean) per total), in the model and again in the synthetic trace (x sqrt 2).
// A model of a few large transfers (git's commit: 45 writes, a few of them most of the bytes)
// cannot be held to 15 %: like the KS and share bounds, the tolerance is never tighter than this.
double byte_ratio_noise(const WorkloadModel& m) {
  auto relative_se = [&](bool reads) {
    double mean = 0, var = 0;
    for (const ClassModel& c : m.classes) {
      const EmpiricalDistribution& d = reads ? c.read_size : c.write_size;
      const double n = static_cast<double>(d.count);
      mean += n * d.mean;
      var += n * d.variance();
    }
    return mean > 0 ? std::sqrt(var) / mean : 0.0;
  };
  double r = relative_se(true), w = relative_se(false);
  return kZ975 * std::sqrt(2.0) * std::sqrt(r * r + w * w);
}

}  // namespace

bool ValidationReport::pass() const {
  for (const FeatureCheck& c : checks)
    if (!c.pass) return false;
  return !checks.empty();
}

ValidationReport validate_synthetic(const WorkloadModel& model, const trace::Trace& synthetic) {
  const nlohmann::json& labels = synthetic.header.settings.value("classes", nlohmann::json::object());
  if (!labels.is_object() || labels.empty())
    throw Error("the trace has no synthetic class labels (settings.classes): it was not written by `rastro synth`");
  WorkloadFeatures w = measure_features(synthetic);
  std::map<std::string, std::vector<size_t>> members;
  for (size_t i = 0; i < w.threads.size(); ++i) {
    auto it = labels.find(std::to_string(w.threads[i].tid));
    if (it != labels.end() && it->is_string()) members[it->get<std::string>()].push_back(i);
  }
  ValidationReport r;
  Checker check(r);
  uint64_t rb = 0, wb = 0;
  for (const ThreadFeatures& t : w.threads) {
    rb += t.read_bytes;
    wb += t.write_bytes;
  }
  if (model.read_write_ratio > 0)
    check.relative("workload", "read_write_bytes", model.read_write_ratio,
                   wb ? static_cast<double>(rb) / static_cast<double>(wb) : 0.0,
                   std::max(kRatioTolerance, byte_ratio_noise(model)));
  for (const ClassModel& c : model.classes) {
    auto it = members.find(c.name);
    if (it == members.end()) continue;  // scaled out (fewer threads than classes)
    ClassModel s = build_class_model(w, it->second);
    OpMix mm = synthesized_mix(c.mix), sm = synthesized_mix(s.mix);
    for (OpCategory k : kSynthesized)
      check.absolute(c.name, fmt::format("mix.{}", op_category_name(k)), mm[static_cast<size_t>(k)],
                     sm[static_cast<size_t>(k)], kMixTolerance);
    check.ks(c.name, "read_size", c.read_size, s.read_size, kKsTolerance);
    check.ks(c.name, "write_size", c.write_size, s.write_size, kKsTolerance);
    check.ks(c.name, "think_ns", c.think_ns, s.think_ns, kKsTolerance);
    check.ks(c.name, "duration_ns", c.duration_ns, s.duration_ns, kKsTolerance);
    check.ks(c.name, "interarrival_ns", c.interarrival_ns, s.interarrival_ns, kKsDerivedTolerance);
    check.ks(c.name, "file_size", c.file_size, s.file_size, kKsDerivedTolerance);
    check.proportion(c.name, "sequential_fraction", c.sequential_fraction, s.sequential_fraction, class_transfers(c),
                     class_transfers(s), kFractionTolerance);
    check.proportion(c.name, "reuse_fraction", c.reuse_fraction, s.reuse_fraction, class_sessions(c), class_sessions(s),
                     kReuseTolerance);
    check.count_ratio(c.name, "transfers_per_open", c.transfers_per_open, s.transfers_per_open, class_transfer_calls(c),
                      class_transfer_calls(s), kRatioTolerance);
    check.absolute(c.name, "syncs_per_write", c.syncs_per_write, s.syncs_per_write, kFractionTolerance);
    check.proportion(c.name, "create_fraction", c.create_fraction, s.create_fraction, class_sessions(c),
                     class_sessions(s), kFractionTolerance);
    check.proportion(c.name, "append_fraction", c.append_fraction, s.append_fraction, class_sessions(c),
                     class_sessions(s), kFractionTolerance);
    const size_t ns = static_cast<size_t>(OpCategory::kNamespace);
    for (size_t k = 0; k < kNamespaceOps; ++k) {
      if (c.namespace_mix[k] == 0 && s.namespace_mix[k] == 0) continue;  // a kind neither has
      check.proportion(c.name, fmt::format("namespace.{}", namespace_op_name(static_cast<NamespaceOp>(k))),
                       c.namespace_mix[k], s.namespace_mix[k], class_calls(c, c.mix[ns]), class_calls(s, s.mix[ns]),
                       kMixTolerance);
    }
  }
  r.not_synthesized = {"mix.other", "reuse_distance", "concurrency (emerges from start times)"};
  return r;
}

std::string validation_markdown(const ValidationReport& r) {
  std::string out = "| scope | feature | measure | model | synthetic | distance | tolerance | |\n"
                    "|---|---|---|---:|---:|---:|---:|---|\n";
  for (const FeatureCheck& c : r.checks)
    out += fmt::format("| {} | {} | {} | {:.4g} | {:.4g} | {:.4f} | {:.2f} | {} |\n", c.scope, c.feature,
                       c.measure == "ks" ? "KS (n model / n synth)" : c.measure, c.model, c.synthetic, c.distance,
                       c.tolerance, c.pass ? "ok" : "**FAIL**");
  out += fmt::format("\nNot synthesized (recorded in the model only): {}.\n\n**{}**\n",
                     fmt::join(r.not_synthesized, ", "), r.pass() ? "All features within tolerance." : "Some features are outside their tolerance.");
  return out;
}

nlohmann::json to_json(const ValidationReport& r) {
  nlohmann::json checks = nlohmann::json::array();
  for (const FeatureCheck& c : r.checks)
    checks.push_back({{"scope", c.scope}, {"feature", c.feature}, {"measure", c.measure}, {"model", c.model},
                      {"synthetic", c.synthetic}, {"distance", c.distance}, {"tolerance", c.tolerance}, {"pass", c.pass}});
  return {{"pass", r.pass()}, {"checks", checks}, {"not_synthesized", r.not_synthesized}};
}

}  // namespace rastro::characterize
