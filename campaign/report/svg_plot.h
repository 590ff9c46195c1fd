// A small SVG chart builder for the self-contained catalogue page: grouped bars, scatter/lines
// with an optional band, and step (ECDF) lines, with labelled linear axes. No dependencies, so
// the HTML report opens anywhere without scripts.
#pragma once

#include <string>
#include <vector>

namespace rastro::campaign {

struct Series {
  std::string name;
  std::vector<double> x;
  std::vector<double> y;
  std::vector<double> y_low;   // optional band / error bar low
  std::vector<double> y_high;  // optional band / error bar high
  enum class Style { kLine, kPoints, kStep, kBand } style = Style::kLine;
};

struct BarGroup {
  std::string label;            // category on the x axis
  std::vector<double> values;   // one per bar series
  std::vector<double> errors;   // optional ± half-width per bar
};

struct ChartText {
  std::string title;
  std::string x_label;
  std::string y_label;
};

std::string line_chart(const ChartText& text, const std::vector<Series>& series, int width = 560, int height = 340);
std::string bar_chart(const ChartText& text, const std::vector<std::string>& bar_names,
                      const std::vector<BarGroup>& groups, int width = 560, int height = 340);
// Escapes text for SVG/HTML content and attributes.
std::string xml_escape(const std::string& s);

}  // namespace rastro::campaign
