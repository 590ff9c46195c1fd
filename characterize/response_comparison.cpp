#include "characterize/response_comparison.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "campaign/subprocess.h"
#include "common/error.h"

#include "metrology/descriptive.h"
#include "metrology/welch_t.h"
#include "trace/io/trace_io.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::characterize {

std::map<OpCategory, double> replayed_response_us(const trace::Trace& replayed) {
  std::map<OpCategory, std::pair<double, uint64_t>> sum;
  for (const trace::Event& e : replayed.events) {
    if (!(e.flags & trace::kEventReplayed) || (e.flags & (trace::kEventSkipped | trace::kEventUnfinished))) continue;
    const trace::SyscallInfo* s = trace::syscall_by_nr(e.nr);
    if (!s || (s->classes & trace::kClassProcess)) continue;
    auto& [total, n] = sum[op_category(*s)];
    total += static_cast<double>(e.duration_ns()) / 1000.0;
    ++n;
  }
  std::map<OpCategory, double> out;
  for (const auto& [c, tn] : sum) out[c] = tn.first / static_cast<double>(tn.second);
  return out;
}

ResponseComparison compare_responses(const std::vector<std::map<OpCategory, double>>& original,
                                     const std::vector<std::map<OpCategory, double>>& synthetic) {
  ResponseComparison out;
  out.replays = std::min(original.size(), synthetic.size());
  for (size_t k = 0; k < kOpCategories; ++k) {
    const auto c = static_cast<OpCategory>(k);
    CategoryResponse r;
    r.category = c;
    for (const auto& run : original)
      if (auto it = run.find(c); it != run.end()) r.original_us.push_back(it->second);
    for (const auto& run : synthetic)
      if (auto it = run.find(c); it != run.end()) r.synthetic_us.push_back(it->second);
    if (r.original_us.empty() || r.synthetic_us.empty()) continue;
    r.original_mean = metrology::mean(r.original_us).take();
    r.synthetic_mean = metrology::mean(r.synthetic_us).take();
    r.difference_us = r.synthetic_mean - r.original_mean;
    // welch_t_test(x, y) is about x̄ − ȳ: x = synthetic.
    if (auto w = metrology::welch_t_test(r.synthetic_us, r.original_us)) {
      r.ci_low_us = w->ci_low;
      r.ci_high_us = w->ci_high;
    } else {
      r.why_undefined = w.error();
    }
    out.categories.push_back(std::move(r));
  }
  return out;
}

ResponseComparison compare_by_replay(const std::string& original, const std::string& synthetic, size_t replays) {
  namespace fs = std::filesystem;
  char tmpl[] = "/tmp/rastro-characterize-replay-XXXXXX";
  if (!mkdtemp(tmpl)) throw Error(fmt::format("cannot make a scratch directory for the replays: {}", std::strerror(errno)));
  const std::string work = tmpl;
  const std::string self = campaign::self_executable();
  std::vector<std::map<OpCategory, double>> per[2];
  try {
    for (size_t r = 0; r < replays; ++r) {
      for (int which = 0; which < 2; ++which) {
        const std::string& in = which == 0 ? original : synthetic;
        const std::string root = fmt::format("{}/root-{}-{}", work, which, r), out = root + ".rastro";
        campaign::ProcessResult p =
            campaign::run_process({self, "replay", "-O", "fs", "-T", "think", in, "--root", root, "--init", "-o", out}, 3600);
        if (p.status != 0) throw Error(fmt::format("{}: replay {} of {} failed:\n{}", in, r + 1, replays, p.output));
        per[which].push_back(replayed_response_us(trace::read_trace(out)));
        std::error_code ec;
        fs::remove_all(root, ec);
        fs::remove(out, ec);
      }
    }
  } catch (...) {
    std::error_code ec;
    fs::remove_all(work, ec);
    throw;
  }
  std::error_code ec;
  fs::remove_all(work, ec);
  return compare_responses(per[0], per[1]);
}

std::string response_markdown(const ResponseComparison& c) {
  std::string md = fmt::format(
      "Response times replayed on this machine ({} replays of each trace, alternating; mean per replay, µs):\n\n"
      "| category | original | synthetic | difference | 95 % interval | relative | |\n|---|---:|---:|---:|---:|---:|---|\n",
      c.replays);
  for (const auto& r : c.categories) {
    const double rel = r.original_mean > 0 ? 100.0 * *r.difference_us / r.original_mean : 0.0;
    md += fmt::format("| {} | {:.2f} | {:.2f} | {:+.2f} | {} | {:+.1f} % | {} |\n", op_category_name(r.category),
                      r.original_mean, r.synthetic_mean, *r.difference_us,
                      r.ci_low_us ? fmt::format("[{:+.2f}, {:+.2f}]", *r.ci_low_us, *r.ci_high_us)
                                  : "n/a (" + r.why_undefined + ")",
                      rel, r.ci_low_us ? (r.within() ? "same within the interval" : "**differs**") : "");
  }
  return md;
}

nlohmann::json to_json(const ResponseComparison& c) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : c.categories) {
    nlohmann::json j = {{"category", op_category_name(r.category)},
                        {"original_us", r.original_us},
                        {"synthetic_us", r.synthetic_us},
                        {"original_mean_us", r.original_mean},
                        {"synthetic_mean_us", r.synthetic_mean},
                        {"difference_us", *r.difference_us}};
    if (r.ci_low_us) {
      j["ci95_us"] = {*r.ci_low_us, *r.ci_high_us};
      j["within"] = r.within();
    } else {
      j["undefined"] = r.why_undefined;
    }
    rows.push_back(std::move(j));
  }
  return {{"replays", c.replays}, {"categories", rows}};
}

}  // namespace rastro::characterize
