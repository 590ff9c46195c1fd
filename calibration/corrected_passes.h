// A trace corrected by a calibration curve as it streams (`rastro calibrate apply`): passes over
// the raw trace (trace/io/trace_passes.h) in which every event comes out corrected by a
// TraceCorrector, and whose header records the application. Memory stays bounded by a block.
#pragma once

#include <memory>

#include "calibration/trace_correction.h"
#include "trace/io/trace_passes.h"

namespace rastro::calibration {

class CorrectedPasses final : public trace::TracePasses {
 public:
  // Reads `raw` once to count what the correction does and which validity warnings it raises
  // (correction()), so they are known before anything is written. Fails as TraceCorrector::make.
  static Result<std::unique_ptr<CorrectedPasses>> make(trace::TracePasses& raw, const CalibrationCurve& curve,
                                                       const CorrectionOptions& options);

  const CorrectionReport& correction() const { return correction_; }

  const trace::TraceHeader& header() override { return header_; }  // with extra.calibration
  const trace::StringTable& strings() override { return raw_.strings(); }
  uint64_t size() override { return raw_.size(); }
  const trace::ReadReport& report() override { return raw_.report(); }
  void pass(const BlockFn& fn) override;

 private:
  CorrectedPasses(trace::TracePasses& raw, TraceCorrector corrector)
      : raw_(raw), fresh_(std::move(corrector)) {}
  trace::TracePasses& raw_;
  TraceCorrector fresh_;  // copied for every pass: each pass corrects from the same start
  CorrectionReport correction_;
  trace::TraceHeader header_;
};

}  // namespace rastro::calibration
