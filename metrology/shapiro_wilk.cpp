#include "metrology/shapiro_wilk.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "metrology/descriptive.h"
#include "metrology/distributions.h"

namespace rastro::metrology {
namespace {

// c[0] + c[1]·x + c[2]·x² + ... (AS 181.2's poly).
template <size_t N>
double polynomial(const double (&c)[N], double x) {
  double r = 0;
  for (size_t i = N; i-- > 0;) r = r * x + c[i];
  return r;
}

// Royston (1995) polynomial coefficients.
constexpr double kC1[] = {0.0, 0.221157, -0.147981, -2.07119, 4.434685, -2.706056};
constexpr double kC2[] = {0.0, 0.042981, -0.293762, -1.752461, 5.682633, -3.582633};
constexpr double kC3[] = {0.544, -0.39978, 0.025054, -6.714e-4};
constexpr double kC4[] = {1.3822, -0.77857, 0.062767, -0.0020322};
constexpr double kC5[] = {-1.5861, -0.31082, -0.083751, 0.0038915};
constexpr double kC6[] = {-0.4803, -0.082676, 0.0030302};
constexpr double kG[] = {-2.273, 0.459};

// The half-vector of coefficients a_1..a_{n/2} (a_1 for the extremes), positive.
std::vector<double> coefficients(size_t n) {
  const size_t half = n / 2;
  std::vector<double> a(half);
  if (n == 3) {
    a[0] = 0.70710678;  // sqrt(1/2) to the precision AS R94 uses
    return a;
  }
  const double an = static_cast<double>(n);
  // m_i = Φ⁻¹((i − 3/8) / (n + 1/4)) (negative for the lower half); summ2 = Σ over all n of m².
  std::vector<double> m(half);
  double summ2 = 0;
  for (size_t i = 0; i < half; ++i) {
    m[i] = normal_quantile((static_cast<double>(i + 1) - 0.375) / (an + 0.25));
    summ2 += m[i] * m[i];
  }
  summ2 *= 2;
  const double ssumm2 = std::sqrt(summ2);
  const double rsn = 1 / std::sqrt(an);
  // Royston's approximations for the largest coefficients, then the rest rescaled so Σa² = 1.
  const double a1 = polynomial(kC1, rsn) - m[0] / ssumm2;
  size_t first_scaled;
  double fac;
  if (n > 5) {
    const double a2 = -m[1] / ssumm2 + polynomial(kC2, rsn);
    fac = std::sqrt((summ2 - 2 * m[0] * m[0] - 2 * m[1] * m[1]) / (1 - 2 * a1 * a1 - 2 * a2 * a2));
    a[1] = a2;
    first_scaled = 2;
  } else {
    fac = std::sqrt((summ2 - 2 * m[0] * m[0]) / (1 - 2 * a1 * a1));
    first_scaled = 1;
  }
  a[0] = a1;
  for (size_t i = first_scaled; i < half; ++i) a[i] = -m[i] / fac;
  return a;
}

}  // namespace

Result<ShapiroWilk> shapiro_wilk(std::span<const double> xs) {
  const size_t n = xs.size();
  if (n < 3 || n > 5000)
    return fail(fmt::format("Shapiro-Wilk needs 3 <= n <= 5000 values, got {}", n));
  if (auto bad = check_finite(xs, "sample")) return fail(*bad);
  std::vector<double> x(xs.begin(), xs.end());
  std::sort(x.begin(), x.end());
  double range = x.back() - x.front();
  if (range == 0) return fail("all values are identical: Shapiro-Wilk undefined");
  // R rescales tiny ranges so AS R94's zero-range guard (1e-19) does not trigger.
  if (range < 1e-10) {
    for (double& v : x) v /= range;
    range = x.back() - x.front();
  }
  const std::vector<double> a = coefficients(n);
  // Full antisymmetric coefficient vector: −a for the lower half, +a mirrored, 0 in the middle.
  std::vector<double> c(n, 0.0);
  for (size_t i = 0; i < n / 2; ++i) {
    c[i] = -a[i];
    c[n - 1 - i] = a[i];
  }
  // W = squared correlation of the coefficients with the data scaled by its range.
  double mc = 0, mx = 0;
  for (size_t i = 0; i < n; ++i) {
    mc += c[i];
    mx += x[i] / range;
  }
  mc /= static_cast<double>(n);
  mx /= static_cast<double>(n);
  double ssa = 0, ssx = 0, sax = 0;
  for (size_t i = 0; i < n; ++i) {
    const double dc = c[i] - mc;
    const double dx = x[i] / range - mx;
    ssa += dc * dc;
    ssx += dx * dx;
    sax += dc * dx;
  }
  // 1 − W computed as (√(ssa·ssx) − sax)(√(ssa·ssx) + sax)/(ssa·ssx) to keep precision when W ≈ 1.
  const double root = std::sqrt(ssa * ssx);
  const double w1 = (root - sax) * (root + sax) / (ssa * ssx);
  ShapiroWilk r;
  r.W = 1 - w1;
  if (n == 3) {
    // Exact: p = 6/π · (asin(√W) − asin(√(3/4))).
    constexpr double kSixOverPi = 1.90985931710274;
    constexpr double kAsinRoot34 = 1.04719755119660;
    r.p_value = std::max(0.0, kSixOverPi * (std::asin(std::sqrt(r.W)) - kAsinRoot34));
    return r;
  }
  double y = std::log(w1);
  const double an = static_cast<double>(n);
  double mu, sigma;
  if (n <= 11) {
    const double gamma = polynomial(kG, an);
    if (y >= gamma) {
      r.p_value = 1e-99;  // beyond the approximation's range: as AS R94 / R, "obviously" tiny
      return r;
    }
    y = -std::log(gamma - y);
    mu = polynomial(kC3, an);
    sigma = std::exp(polynomial(kC4, an));
  } else {
    const double ln = std::log(an);
    mu = polynomial(kC5, ln);
    sigma = std::exp(polynomial(kC6, ln));
  }
  r.p_value = normal_upper_tail((y - mu) / sigma);
  return r;
}

}  // namespace rastro::metrology
