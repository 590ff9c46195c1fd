#include "campaign/report/catalogue_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "calibration/catalogue_entry.h"
#include "campaign/report/cell_reference.h"
#include "campaign/report/html_report.h"
#include "campaign/report/markdown_report.h"
#include "common/atomic_write.h"
#include "common/error.h"

namespace rastro::campaign {

namespace {

// The catalogue speaks in microseconds, like the thesis tables.
constexpr double kNsPerUs = 1000.0;

std::string instrument_kind(const std::string& instrument, CampaignKind kind) {
  if (instrument == "reference" && kind == CampaignKind::kMpi)
    return "reference method (the MPI job captured and merged again: the original's run-to-run spread)";
  if (instrument == "reference") return "reference method (application-level timing)";
  if (instrument == "fio") return "second reference (fio clat, uninstrumented)";
  if (instrument.rfind("fio+", 0) == 0) return "second reference under " + instrument.substr(4) + " (fio clat)";
  if (kind == CampaignKind::kCapture || instrument.find('/') == std::string::npos) return "capture instrument";
  return "replayer";
}

std::string csv_number(const std::optional<double>& v) { return v ? fmt::format("{:.17g}", *v) : std::string(); }

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// With several campaigns in one report, each campaign's own reference replicates stay its own:
// the reference of a replay campaign is named apart from the capture campaign's.
std::string display_instrument(const RunSpec& spec, CampaignKind kind, bool several) {
  std::string name = spec.catalogue_instrument();
  if (several && kind != CampaignKind::kCapture && name == "reference") name += fmt::format(" ({} campaign)", kind_name(kind));
  return name;
}

// fio's view next to rastro's, per cell: fio alone against rastro's reference method (both
// uninstrumented: they should agree), and fio's slowdown under an instrument against the
// perturbation rastro measured for that instrument. They agree when the difference is within the
// combined expanded uncertainty.
nlohmann::json fio_cross_check(const std::vector<calibration::CatalogueEntry>& entries) {
  nlohmann::json rows = nlohmann::json::array();
  auto find = [&](const std::string& instrument, const calibration::CatalogueEntry& like) -> const calibration::CatalogueEntry* {
    for (const auto& e : entries)
      if (e.instrument == instrument && e.type == like.type && e.level == like.level && e.background == like.background) return &e;
    return nullptr;
  };
  for (const auto& fio : entries) {
    if (fio.instrument.rfind("fio", 0) != 0 || !fio.budget) continue;
    const bool alone = fio.instrument == "fio";
    const std::string against = alone ? "reference" : fio.instrument.substr(4);
    nlohmann::json row = {{"instrument", against}, {"type", fio.type}, {"level", fio.level}, {"background", fio.background},
                          {"fio_rel", fio.budget->bias_rel}, {"fio_U_rel", fio.budget->U_rel}};
    double rastro = 0, rastro_U = 0;
    const auto* e = find(against, fio);
    if (alone) {
      row["compares"] = "fio clat vs rastro's reference method (both uninstrumented)";
      rastro = 0;  // the reference against itself
      rastro_U = e && e->budget ? 2 * e->budget->u_cref_rel : 0;
    } else if (e && e->perturbation) {
      row["compares"] = "fio's slowdown under the instrument vs rastro's perturbation_rel";
      rastro = e->perturbation->rel;
      rastro_U = 2 * e->perturbation->u_rel;
    } else {
      row["compares"] = "fio's slowdown under the instrument (rastro's perturbation undefined)";
      rows.push_back(row);
      continue;
    }
    row["rastro_rel"] = rastro;
    row["rastro_U_rel"] = rastro_U;
    row["agree"] = std::fabs(fio.budget->bias_rel - rastro) <= std::hypot(fio.budget->U_rel, rastro_U);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

std::vector<metrology::ExperimentResult> analysis_rows(const CampaignResults& c) {
  std::vector<metrology::ExperimentResult> rows;
  const auto cells = cell_references(c.runs);
  for (const auto& run : c.runs) {
    if (run.status != "ok") continue;
    for (const auto& m : run.measurements) {
      metrology::ExperimentResult r;
      r.instrument = run.spec.catalogue_instrument();
      if (c.config.kind == CampaignKind::kMacro && run.spec.instrument != "reference" && run.spec.ordering.empty())
        r.instrument = run.spec.instrument;
      r.type = type_label(run.spec, m.type);
      r.level = std::to_string(run.spec.level);
      r.background = std::to_string(run.spec.background);
      r.replicate = run.spec.replicate + 1;
      r.measured = m.measured / kNsPerUs;
      auto cell = cells.find(cell_key(reference_source(run.spec.instrument), run.spec, m.type));
      RowReference ref = cell == cells.end() ? RowReference{} : row_reference(run.spec, m, cell->second);
      if (ref.value) r.reference = *ref.value / kNsPerUs;
      r.reference_u = ref.u / kNsPerUs;
      // A capture instrument's run also timed its calls from inside the application.
      if (run.spec.instrument != metrology::kReferenceInstrument && run.spec.ordering.empty() &&
          run.spec.instrument.rfind("fio", 0) != 0) {
        r.application = m.reference / kNsPerUs;
        if (m.extra.contains("recording_ns") && m.extra["recording_ns"].is_number())
          r.recording = m.extra["recording_ns"].get<double>() / kNsPerUs;
      }
      // An interval between hosts' clocks (a multi-rank cell): its Type-B clock component.
      if (m.extra.contains("clock_u_ns") && m.extra["clock_u_ns"].is_number())
        r.clock_u = m.extra["clock_u_ns"].get<double>() / kNsPerUs;
      rows.push_back(std::move(r));
    }
  }
  // Stable order independent of execution order (a resumed campaign gives the same file).
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return std::tie(a.instrument, a.type, a.level, a.background, a.replicate) <
           std::tie(b.instrument, b.type, b.level, b.background, b.replicate);
  });
  return rows;
}

std::vector<calibration::CatalogueEntry> analyze_campaigns(const std::vector<CampaignResults>& campaigns) {
  std::vector<calibration::CatalogueEntry> all;
  for (const auto& c : campaigns) {
    auto entries = calibration::analyze_results(analysis_rows(c));
    for (auto& e : entries) {
      if (campaigns.size() > 1 && c.config.kind != CampaignKind::kCapture && e.instrument == "reference")
        e.instrument += fmt::format(" ({} campaign)", kind_name(c.config.kind));
      all.push_back(std::move(e));
    }
  }
  return all;
}

std::string results_csv(const std::vector<CampaignResults>& campaigns) {
  std::string out =
      "instrument,type,level,background,replicate,measured,reference,reference_u,application,recording,clock_u\n";
  for (const auto& c : campaigns)
    for (const auto& r : analysis_rows(c))
      out += fmt::format("{},{},{},{},{},{:.17g},{},{:.17g},{},{},{:.17g}\n", csv_field(r.instrument), csv_field(r.type),
                         r.level, r.background, r.replicate, r.measured, csv_number(r.reference), r.reference_u,
                         csv_number(r.application), csv_number(r.recording), r.clock_u);
  return out;
}

nlohmann::json build_catalogue(const std::vector<CampaignResults>& campaigns) {
  auto entries = analyze_campaigns(campaigns);
  nlohmann::json cat;
  cat["generator"] = "rastro validate";
  cat["measurand"] = "file-system response time: mean (end - begin) of the workload's data requests per experiment, in microseconds";
  if (std::any_of(campaigns.begin(), campaigns.end(), [](const auto& c) { return c.config.kind == CampaignKind::kMpi; }))
    cat["measurand"] = cat["measurand"].get<std::string>() +
                       "; MPI jobs, per rank R: write.rR = mean response time of its writes to the workload's files, "
                       "span.rR = from rank 0's first workload-file call to rank R's last, on rank 0's clock (docs/campaign.md)";
  cat["units"] = "us";
  cat["campaigns"] = nlohmann::json::array();
  for (const auto& c : campaigns) cat["campaigns"].push_back(c.config.to_json());
  // The environment of the first successful run (every run's own is in results.sqlite).
  cat["environment"] = nlohmann::json::object();
  for (const auto& c : campaigns)
    for (const auto& r : c.runs)
      if (r.status == "ok" && cat["environment"].empty()) cat["environment"] = r.environment;

  // Per instrument: status, range, entries, failures.
  struct Info {
    std::string kind;
    std::set<int> levels;
    std::set<std::string> types;
    std::set<int> backgrounds;
    size_t ok = 0, failed = 0;
    std::string unavailable;
    std::vector<std::string> errors;
    std::map<std::string, std::vector<double>> issue_p99;  // per type
  };
  std::map<std::string, Info> infos;
  for (const auto& c : campaigns)
    for (const auto& r : c.runs) {
      std::string name = display_instrument(r.spec, c.config.kind, campaigns.size() > 1);
      Info& info = infos[name];
      info.kind = instrument_kind(name, c.config.kind);
      info.levels.insert(r.spec.level);
      info.backgrounds.insert(r.spec.background);
      if (r.status == "ok") {
        ++info.ok;
        for (const auto& m : r.measurements) {
          info.types.insert(type_label(r.spec, m.type));
          if (m.extra.contains("issue_error_p99_ns") && m.extra["issue_error_p99_ns"].is_number())
            info.issue_p99[type_label(r.spec, m.type)].push_back(m.extra["issue_error_p99_ns"].get<double>());
        }
      } else if (r.error.rfind("unavailable: ", 0) == 0) {
        info.unavailable = r.error.substr(13);
      } else {
        ++info.failed;
        if (info.errors.size() < 5) info.errors.push_back(r.spec.key + ": " + r.error);
      }
    }
  nlohmann::json instruments = nlohmann::json::array();
  for (auto& [name, info] : infos) {
    nlohmann::json j;
    j["instrument"] = name;
    j["kind"] = info.kind;
    if (!info.unavailable.empty() && info.ok == 0) j["status"] = "unavailable: " + info.unavailable;
    else if (info.ok == 0) j["status"] = "failed";
    else j["status"] = "measured";
    j["runs_ok"] = info.ok;
    j["runs_failed"] = info.failed;
    j["failures"] = info.errors;
    j["range"] = {{"levels", info.levels}, {"types", info.types}, {"backgrounds", info.backgrounds}};
    j["entries"] = nlohmann::json::array();
    for (const auto& e : entries)
      if (e.instrument == name) j["entries"].push_back(calibration::to_json(e));
    nlohmann::json issue = nlohmann::json::object();
    for (auto& [type, v] : info.issue_p99) {
      std::sort(v.begin(), v.end());
      issue[type] = {{"median_of_run_p99_ns", v[v.size() / 2]}, {"max_of_run_p99_ns", v.back()}};
    }
    if (!issue.empty()) j["issue_error"] = issue;
    instruments.push_back(std::move(j));
  }
  cat["instruments"] = instruments;
  cat["cross_check_fio"] = fio_cross_check(entries);
  return cat;
}

ReportFiles write_report(const std::string& dir, const std::vector<CampaignResults>& campaigns) {
  std::filesystem::create_directories(dir);
  ReportFiles files{dir + "/results.csv", dir + "/catalogue.json", dir + "/catalogue.md", dir + "/index.html"};
  auto write = [](const std::string& path, const std::string& text) { write_text_atomically(path, text); };
  nlohmann::json catalogue = build_catalogue(campaigns);
  // One results file per campaign: `rastro analyze` on it reproduces that campaign's entries.
  if (campaigns.size() == 1) {
    write(files.csv, results_csv(campaigns));
  } else {
    files.csv.clear();
    for (const auto& c : campaigns) {
      std::string path = fmt::format("{}/results-{}.csv", dir, kind_name(c.config.kind));
      write(path, results_csv({c}));
      files.csv += (files.csv.empty() ? "" : " ") + path;
    }
  }
  write(files.json, catalogue.dump(2));
  write(files.markdown, markdown_catalogue(catalogue));
  auto entries = analyze_campaigns(campaigns);
  write(files.html, html_report(catalogue, entries, campaigns));
  return files;
}

std::string level_text(const nlohmann::json& v) {
  if (v.is_number() && std::floor(v.get<double>()) == v.get<double>()) return std::to_string(static_cast<long long>(v.get<double>()));
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string summary_table(const nlohmann::json& catalogue) {
  std::string out = fmt::format("{:<34} {:<16} {:>3} {:>3} {:>11} {:>11} {:>9} {:>9} {:>9} {:>9} {:>10}\n", "instrument",
                                "type", "lvl", "n", "mean (us)", "ref (us)", "bias %", "perturb %", "record %", "u(clk) %",
                                "U(k=2) %");
  auto num = [](const nlohmann::json& v, const char* f) {
    return v.is_number() ? fmt::format(fmt::runtime(f), v.get<double>()) : std::string("n/a");
  };
  for (const auto& inst : catalogue["instruments"]) {
    if (inst["entries"].empty()) {
      out += fmt::format("{:<34} {}\n", inst["instrument"].get<std::string>(), inst["status"].get<std::string>());
      continue;
    }
    for (const auto& e : inst["entries"]) {
      std::string U = num(e["U_rel"], "{:.2f}");
      if (e.contains("after_calibration") && e["after_calibration"].is_object())
        U = num(e["after_calibration"]["U_rel"], "{:.2f}") + " (" + U + ")";
      out += fmt::format("{:<34} {:<16} {:>3} {:>3} {:>11} {:>11} {:>9} {:>9} {:>9} {:>9} {:>10}\n", inst["instrument"].get<std::string>(),
                         e["type"].get<std::string>(), level_text(e["level"]), e["n"].get<size_t>(),
                         num(e["mean"], "{:.3f}"), num(e["reference_mean"], "{:.3f}"), num(e["bias_rel"], "{:+.2f}"),
                         num(e.value("perturbation_rel", nlohmann::json()), "{:+.1f}"),
                         num(e.value("recording_error_rel", nlohmann::json()), "{:+.1f}"),
                         num(e.value("u_clock_rel", nlohmann::json()), "{:.3g}"), U);
    }
  }
  return out;
}

}  // namespace rastro::campaign
