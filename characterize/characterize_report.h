// The readable side of `rastro characterize`: a Markdown and a self-contained HTML report with
// SVG plots (operation mix per class, request-size and think-time ECDFs per class), written to a
// directory. Optionally with the validation table of a synthetic trace.
#pragma once

#include <string>

#include "characterize/model_validation.h"
#include "characterize/workload_characterizer.h"

namespace rastro::characterize {

struct ReportFiles {
  std::string markdown, html;
};

// Writes DIR/characterize.md, DIR/characterize.html and DIR/*.svg (DIR is created).
ReportFiles write_report(const std::string& dir, const Characterization& c, const ValidationReport* validation = nullptr);

// The Markdown text alone (plots referenced as files). Visible for testing.
std::string report_markdown(const Characterization& c, const ValidationReport* validation);

}  // namespace rastro::characterize
