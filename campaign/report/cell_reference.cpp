#include "campaign/report/cell_reference.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "metrology/descriptive.h"
#include "metrology/experiment_result.h"

namespace rastro::campaign {

std::string type_label(const RunSpec& spec, const std::string& measured_type) {
  std::string t = measured_type;
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (spec.pause_us > 0) t += fmt::format("+{}us", spec.pause_us);
  if (spec.cache != "cold") t += "(" + spec.cache + ")";  // a cache state is a different cell
  return t;
}

std::string reference_source(const std::string& instrument) {
  return instrument.rfind("fio+", 0) == 0 ? "fio" : metrology::kReferenceInstrument;
}

std::string cell_key(const std::string& source, const RunSpec& spec, const std::string& measured_type) {
  return fmt::format("{}|{}|L{}|B{}", source, type_label(spec, measured_type), spec.level, spec.background);
}

std::map<std::string, CellReference> cell_references(const std::vector<StoredRun>& runs) {
  std::map<std::string, std::vector<double>> values;
  for (const auto& run : runs) {
    if (run.status != "ok" || (run.spec.instrument != metrology::kReferenceInstrument && run.spec.instrument != "fio"))
      continue;
    for (const auto& m : run.measurements) values[cell_key(run.spec.instrument, run.spec, m.type)].push_back(m.measured);
  }
  std::map<std::string, CellReference> cells;
  for (const auto& [key, v] : values) {
    CellReference c;
    c.n = v.size();
    if (auto sd = metrology::sample_sd(v)) {  // n >= 2 and finite
      c.mean = metrology::mean(v).take();
      c.sd = *sd;
    }
    cells[key] = c;
  }
  return cells;
}

RowReference row_reference(const RunSpec& run, const Measurement& m, const CellReference& cell) {
  if (!cell.mean || !cell.sd) return {};
  // A replayer replays an original run: its reference is that run's timing. The cell's replays
  // spread over `originals` independent originals, so the mean reference they are compared with
  // is uncertain by the spread of one application run over √originals.
  if (!run.ordering.empty()) {
    const double originals = m.extra.is_object() ? m.extra.value("originals", 1.0) : 1.0;
    return {m.reference, *cell.sd / std::sqrt(std::max(1.0, originals))};
  }
  return {*cell.mean, *cell.sd / std::sqrt(static_cast<double>(cell.n))};
}

}  // namespace rastro::campaign
