#include "characterize/characterize_report.h"

#include <cmath>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "campaign/report/svg_plot.h"
#include "common/atomic_write.h"
#include "common/error.h"

namespace rastro::characterize {
namespace {

namespace fs = std::filesystem;
using campaign::ChartText;
using campaign::Series;

// ECDF steps of a distribution, on a log10 axis (sizes and times span decades).
Series ecdf_series(const std::string& name, const EmpiricalDistribution& d) {
  Series s;
  s.name = name;
  s.style = Series::Style::kStep;
  std::vector<double> xs = d.atoms.empty() ? d.quantiles : d.atoms;
  for (double x : xs) {
    s.x.push_back(std::log10(std::max(1.0, x)));
    s.y.push_back(d.cdf(x));
  }
  return s;
}

struct Plot {
  std::string file, title, svg;
};

std::vector<Plot> plots(const Characterization& c) {
  std::vector<Plot> out;
  const WorkloadModel& m = c.model;
  std::vector<std::string> names;
  for (const ClassModel& k : m.classes) names.push_back(k.name);
  std::vector<campaign::BarGroup> groups;
  for (size_t i = 0; i < kOpCategories; ++i) {
    campaign::BarGroup g;
    g.label = std::string(op_category_name(static_cast<OpCategory>(i)));
    for (const ClassModel& k : m.classes) g.values.push_back(k.mix[i]);
    groups.push_back(std::move(g));
  }
  out.push_back({"mix.svg", "Operation mix per class",
                 campaign::bar_chart({"Operation mix per class", "operation", "share of the class's calls"}, names, groups)});
  auto ecdf_plot = [&](const std::string& file, const std::string& title, const std::string& x_label, auto member) {
    std::vector<Series> series;
    for (const ClassModel& k : m.classes)
      if (!(k.*member).empty()) series.push_back(ecdf_series(k.name, k.*member));
    if (!series.empty()) out.push_back({file, title, campaign::line_chart({title, x_label, "P(X <= x)"}, series)});
  };
  ecdf_plot("read_size.svg", "Read size ECDF", "log10(bytes)", &ClassModel::read_size);
  ecdf_plot("write_size.svg", "Write size ECDF", "log10(bytes)", &ClassModel::write_size);
  ecdf_plot("think_time.svg", "Think time ECDF", "log10(ns)", &ClassModel::think_ns);
  ecdf_plot("file_size.svg", "File size ECDF (bytes touched)", "log10(bytes)", &ClassModel::file_size);
  return out;
}

std::string dist_text(const EmpiricalDistribution& d) {
  if (d.empty()) return "-";
  return fmt::format("mean {:.4g} (n {})", d.mean, d.count);
}


}  // namespace

std::string report_markdown(const Characterization& c, const ValidationReport* validation) {
  const WorkloadModel& m = c.model;
  std::string md = fmt::format("# Workload characterization of `{}`\n\n", m.source);
  md += fmt::format(
      "| threads | calls | files | duration (s) | metadata share | read/write bytes | mean concurrency |\n"
      "|---:|---:|---:|---:|---:|---:|---:|\n| {} | {} | {} | {:.3f} | {:.3f} | {:.3f} | {:.2f} |\n\n",
      m.threads, m.calls, m.files, m.duration_s, m.metadata_share, m.read_write_ratio, m.mean_concurrency);
  md += fmt::format("## Thread classes\n\n{} with {} {} classes ({} = {:.3f}{}); features: {}.\n\n",
                    m.clustering.method, m.clustering.automatic ? "automatically chosen" : "requested", m.clustering.k,
                    m.clustering.score_name, m.clustering.score,
                    m.clustering.k == 1 && m.clustering.score_name == "silhouette"
                        ? fmt::format(", the best k >= 2, below the {} needed for a split", kMinSilhouette)
                        : "",
                    fmt::join(m.clustering.feature_names, ", "));
  md += "| class | threads | share | call share | read | write | open | close | meta | sync | read size | write size "
        "| think ns | sequential | reuse | transfers/open | syncs/write | files |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---:|---:|---:|---:|---:|\n";
  for (const ClassModel& k : m.classes) {
    auto f = [&](OpCategory cat) { return k.mix[static_cast<size_t>(cat)]; };
    md += fmt::format("| {} | {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {} | {} | {} | {:.3f} "
                      "| {:.3f} | {:.2f} | {:.3f} | {} |\n",
                      k.name, k.threads, k.share, k.call_share, f(OpCategory::kRead), f(OpCategory::kWrite),
                      f(OpCategory::kOpen), f(OpCategory::kClose), f(OpCategory::kMeta), f(OpCategory::kSync),
                      dist_text(k.read_size), dist_text(k.write_size), dist_text(k.think_ns), k.sequential_fraction,
                      k.reuse_fraction, k.transfers_per_open, k.syncs_per_write, k.files);
  }
  md += "\n## File classes\n\n| class | files | share | size (bytes touched) | accesses | written share of bytes |\n"
        "|---|---:|---:|---|---|---:|\n";
  for (size_t i = 0; i < c.file_classes.size(); ++i) {
    const FileClass& f = c.file_classes[i];
    md += fmt::format("| f{} | {} | {:.3f} | {} | {} | {:.3f} |\n", i, f.files, f.share, dist_text(f.size),
                      dist_text(f.accesses), f.write_byte_fraction);
  }
  md += "\n## Plots\n\n";
  for (const Plot& p : plots(c)) md += fmt::format("![{}]({})\n\n", p.title, p.file);
  if (validation) md += "## Validation of a synthetic trace\n\n" + validation_markdown(*validation);
  return md;
}

ReportFiles write_report(const std::string& dir, const Characterization& c, const ValidationReport* validation) {
  fs::path d(dir);
  std::error_code ec;
  fs::create_directories(d, ec);
  if (ec) throw Error(fmt::format("{}: cannot create the report directory: {}", dir, ec.message()));
  std::string html = fmt::format(
      "<!doctype html><html><head><meta charset=\"utf-8\"><title>rastro characterize</title>"
      "<style>body{{font-family:sans-serif;max-width:1100px;margin:auto}}</style></head><body>"
      "<h1>Workload characterization of {}</h1><pre>{}</pre>",
      campaign::xml_escape(c.model.source), campaign::xml_escape(report_markdown(c, validation)));
  for (const Plot& p : plots(c)) {
    write_text_atomically((d / p.file).string(), p.svg);
    html += fmt::format("<h2>{}</h2>{}", campaign::xml_escape(p.title), p.svg);
  }
  html += "</body></html>\n";
  ReportFiles out{(d / "characterize.md").string(), (d / "characterize.html").string()};
  write_text_atomically(out.markdown, report_markdown(c, validation));
  write_text_atomically(out.html, html);
  return out;
}

}  // namespace rastro::characterize
