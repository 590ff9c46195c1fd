#include "calibration/corrected_passes.h"

#include <vector>

namespace rastro::calibration {

Result<std::unique_ptr<CorrectedPasses>> CorrectedPasses::make(trace::TracePasses& raw,
                                                               const CalibrationCurve& curve,
                                                               const CorrectionOptions& options) {
  auto corrector = TraceCorrector::make(raw.header(), curve, options);
  if (!corrector) return fail(corrector.error());
  std::unique_ptr<CorrectedPasses> p(new CorrectedPasses(raw, *corrector));
  TraceCorrector counting = *corrector;
  std::vector<trace::Event> block;
  raw.pass([&](std::span<const trace::Event> events, const trace::StringTable&) {
    block.assign(events.begin(), events.end());
    for (trace::Event& e : block) counting.correct(e);
  });
  p->correction_ = counting.report();
  p->header_ = raw.header();
  counting.annotate(p->header_);
  return p;
}

void CorrectedPasses::pass(const BlockFn& fn) {
  TraceCorrector corrector = fresh_;
  std::vector<trace::Event> block;
  raw_.pass([&](std::span<const trace::Event> events, const trace::StringTable& strings) {
    block.assign(events.begin(), events.end());
    for (trace::Event& e : block) corrector.correct(e);
    fn(block, strings);
  });
}

}  // namespace rastro::calibration
