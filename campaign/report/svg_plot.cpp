#include "campaign/report/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace rastro::campaign {

namespace {

const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};
const char* color(size_t i) { return kPalette[i % (sizeof kPalette / sizeof kPalette[0])]; }

struct Frame {
  int width, height;
  int left = 70, right = 150, top = 34, bottom = 48;
  double x0, x1, y0, y1;
  double px(double x) const { return left + (x - x0) / (x1 - x0) * (width - left - right); }
  double py(double y) const { return height - bottom - (y - y0) / (y1 - y0) * (height - top - bottom); }
};

// "Nice" tick step for a range (1, 2, 5 × 10^k).
double nice_step(double range, int ticks) {
  double raw = range / ticks;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double norm = raw / mag;
  double step = norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10;
  return step * mag;
}

std::string fmt_tick(double v) {
  if (v == 0) return "0";
  double a = std::fabs(v);
  if (a >= 1e6 || a < 1e-3) return fmt::format("{:.2g}", v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 1) return fmt::format("{:.3g}", v);
  return fmt::format("{:.3f}", v);
}

void pad_range(double& lo, double& hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (hi - lo < 1e-12 * std::max(1.0, std::fabs(hi))) {
    lo -= 0.5 * std::max(1.0, std::fabs(lo) * 0.1);
    hi += 0.5 * std::max(1.0, std::fabs(hi) * 0.1);
  }
  double pad = (hi - lo) * 0.05;
  lo -= pad;
  hi += pad;
}

std::string axes(const Frame& f, const ChartText& text, bool x_ticks) {
  std::string s = fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" font-family="sans-serif" font-size="11">)"
                              R"(<rect width="100%" height="100%" fill="white"/>)",
                              f.width, f.height);
  s += fmt::format(R"(<text x="{}" y="18" font-size="13" font-weight="bold">{}</text>)", f.left, xml_escape(text.title));
  double ystep = nice_step(f.y1 - f.y0, 5);
  for (double v = std::ceil(f.y0 / ystep) * ystep; v <= f.y1 + 1e-9 * std::fabs(f.y1); v += ystep) {
    double y = f.py(v);
    s += fmt::format(R"(<line x1="{}" x2="{}" y1="{:.1f}" y2="{:.1f}" stroke="#ddd"/>)", f.left, f.width - f.right, y, y);
    s += fmt::format(R"(<text x="{}" y="{:.1f}" text-anchor="end">{}</text>)", f.left - 4, y + 4, fmt_tick(v));
  }
  if (x_ticks) {
    double xstep = nice_step(f.x1 - f.x0, 6);
    for (double v = std::ceil(f.x0 / xstep) * xstep; v <= f.x1 + 1e-9 * std::fabs(f.x1); v += xstep) {
      double x = f.px(v);
      s += fmt::format(R"(<line x1="{:.1f}" x2="{:.1f}" y1="{}" y2="{}" stroke="#999"/>)", x, x, f.height - f.bottom, f.height - f.bottom + 4);
      s += fmt::format(R"(<text x="{:.1f}" y="{}" text-anchor="middle">{}</text>)", x, f.height - f.bottom + 16, fmt_tick(v));
    }
  }
  s += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#333"/>)", f.left, f.top,
                   f.width - f.left - f.right, f.height - f.top - f.bottom);
  s += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">{}</text>)", (f.left + f.width - f.right) / 2,
                   f.height - 8, xml_escape(text.x_label));
  s += fmt::format(R"svg(<text transform="translate(14,{}) rotate(-90)" text-anchor="middle">{}</text>)svg",
                   (f.top + f.height - f.bottom) / 2, xml_escape(text.y_label));
  return s;
}

std::string legend(const Frame& f, const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) {
    double y = f.top + 8 + 16.0 * static_cast<double>(i);
    s += fmt::format(R"(<rect x="{}" y="{:.1f}" width="10" height="10" fill="{}"/>)", f.width - f.right + 8, y - 8, color(i));
    s += fmt::format(R"(<text x="{}" y="{:.1f}">{}</text>)", f.width - f.right + 22, y + 1, xml_escape(names[i].substr(0, 22)));
  }
  return s;
}

}  // namespace

std::string xml_escape(const std::string& in) {
  std::string out;
  for (char c : in) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string line_chart(const ChartText& text, const std::vector<Series>& series, int width, int height) {
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const auto& s : series) {
    for (double v : s.x) x0 = std::min(x0, v), x1 = std::max(x1, v);
    for (double v : s.y) y0 = std::min(y0, v), y1 = std::max(y1, v);
    for (double v : s.y_low) y0 = std::min(y0, v);
    for (double v : s.y_high) y1 = std::max(y1, v);
  }
  pad_range(x0, x1);
  pad_range(y0, y1);
  Frame f{width, height};
  f.x0 = x0, f.x1 = x1, f.y0 = y0, f.y1 = y1;
  std::string s = axes(f, text, true);
  std::vector<std::string> names;
  for (size_t i = 0; i < series.size(); ++i) {
    const Series& se = series[i];
    names.push_back(se.name);
    const char* c = color(i);
    size_t n = std::min(se.x.size(), se.y.size());
    if (se.style == Series::Style::kBand && se.y_low.size() == n && se.y_high.size() == n && n > 0) {
      std::string pts;
      for (size_t k = 0; k < n; ++k) pts += fmt::format("{:.1f},{:.1f} ", f.px(se.x[k]), f.py(se.y_high[k]));
      for (size_t k = n; k-- > 0;) pts += fmt::format("{:.1f},{:.1f} ", f.px(se.x[k]), f.py(se.y_low[k]));
      s += fmt::format(R"(<polygon points="{}" fill="{}" fill-opacity="0.18" stroke="none"/>)", pts, c);
    }
    if (se.style == Series::Style::kPoints) {
      for (size_t k = 0; k < n; ++k) {
        s += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="3" fill="{}"/>)", f.px(se.x[k]), f.py(se.y[k]), c);
        if (se.y_low.size() == n && se.y_high.size() == n)
          s += fmt::format(R"(<line x1="{0:.1f}" x2="{0:.1f}" y1="{1:.1f}" y2="{2:.1f}" stroke="{3}"/>)", f.px(se.x[k]),
                           f.py(se.y_low[k]), f.py(se.y_high[k]), c);
      }
    } else if (n > 0) {
      std::string pts;
      for (size_t k = 0; k < n; ++k) {
        if (se.style == Series::Style::kStep && k > 0)
          pts += fmt::format("{:.1f},{:.1f} ", f.px(se.x[k]), f.py(se.y[k - 1]));
        pts += fmt::format("{:.1f},{:.1f} ", f.px(se.x[k]), f.py(se.y[k]));
      }
      s += fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="1.6"/>)", pts, c);
    }
  }
  s += legend(f, names);
  return s + "</svg>";
}

std::string bar_chart(const ChartText& text, const std::vector<std::string>& bar_names, const std::vector<BarGroup>& groups,
                      int width, int height) {
  // Quantities that cannot be negative (times, uncertainties) keep the axis at 0: an error bar
  // reaching below it is clipped there rather than drawing a negative range.
  bool any_negative = false;
  for (const auto& g : groups)
    for (double v : g.values) any_negative |= std::isfinite(v) && v < 0;
  double y0 = 0, y1 = 0;
  for (const auto& g : groups)
    for (size_t i = 0; i < g.values.size(); ++i) {
      double e = i < g.errors.size() ? std::fabs(g.errors[i]) : 0;
      if (std::isfinite(g.values[i])) {
        if (any_negative) y0 = std::min(y0, g.values[i] - e);
        y1 = std::max(y1, g.values[i] + e);
      }
    }
  pad_range(y0, y1);
  if (y0 > 0 || !any_negative) y0 = 0;
  Frame f{width, height};
  f.bottom = 90;  // rotated category labels
  f.left = 130;   // ... which reach left of their bar
  f.x0 = 0, f.x1 = static_cast<double>(std::max<size_t>(groups.size(), 1)), f.y0 = y0, f.y1 = y1;
  std::string s = axes(f, text, false);
  size_t nbars = std::max<size_t>(bar_names.size(), 1);
  for (size_t g = 0; g < groups.size(); ++g) {
    double gx0 = f.px(static_cast<double>(g) + 0.1), gx1 = f.px(static_cast<double>(g) + 0.9);
    double bw = (gx1 - gx0) / static_cast<double>(nbars);
    for (size_t i = 0; i < groups[g].values.size() && i < nbars; ++i) {
      double v = groups[g].values[i];
      if (!std::isfinite(v)) continue;
      double x = gx0 + bw * static_cast<double>(i);
      double ya = f.py(std::max(v, 0.0)), yb = f.py(std::min(v, 0.0));
      s += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}"><title>{}: {}</title></rect>)", x, ya,
                       std::max(bw - 1, 1.0), std::max(yb - ya, 0.5), color(i), xml_escape(bar_names.size() > i ? bar_names[i] : ""), fmt_tick(v));
      if (i < groups[g].errors.size() && groups[g].errors[i] > 0) {
        double cx = x + bw / 2, e = groups[g].errors[i];
        s += fmt::format(R"(<line x1="{0:.1f}" x2="{0:.1f}" y1="{1:.1f}" y2="{2:.1f}" stroke="black"/>)", cx,
                         f.py(std::max(v - e, y0)), f.py(v + e));
      }
    }
    double cx = (gx0 + gx1) / 2;
    s += fmt::format(R"svg(<text transform="translate({:.1f},{}) rotate(-30)" text-anchor="end">{}</text>)svg", cx,
                     f.height - f.bottom + 14, xml_escape(groups[g].label.substr(0, 28)));
  }
  if (y0 < 0) s += fmt::format(R"(<line x1="{}" x2="{}" y1="{:.1f}" y2="{:.1f}" stroke="#333"/>)", f.left, f.width - f.right, f.py(0), f.py(0));
  s += legend(f, bar_names);
  return s + "</svg>";
}

}  // namespace rastro::campaign
