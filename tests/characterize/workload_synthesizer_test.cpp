#include "characterize/workload_synthesizer.h"

#include <set>

#include <gtest/gtest.h>

#include "characterize/model_validation.h"
#include "characterize/workload_characterizer.h"
#include "common/error.h"
#include "tests/characterize/two_class_trace.h"

namespace rastro::characterize {
namespace {

WorkloadModel two_class_model() { return characterize(testing::two_class_trace(6, 3), "two").model; }

TEST(WorkloadSynthesizer, RoundTripIsWithinTolerance) {
  WorkloadModel m = two_class_model();
  SynthOptions o;
  o.threads = 30;  // enough threads that the drawn samples are large
  trace::Trace s = synthesize(m, o);
  ValidationReport r = validate_synthetic(m, s);
  EXPECT_TRUE(r.pass()) << validation_markdown(r);
  EXPECT_GT(r.checks.size(), 20u);
}

TEST(WorkloadSynthesizer, ScaleThreadsAndLabels) {
  WorkloadModel m = two_class_model();
  SynthOptions o;
  parse_scale("threads=12", o);
  trace::Trace s = synthesize(m, o);
  std::set<int32_t> tids;
  for (const trace::Event& e : s.events) tids.insert(e.tid);
  EXPECT_EQ(tids.size(), 12u);
  const auto& labels = s.header.settings.at("classes");
  int readers = 0;
  for (const auto& [tid, cls] : labels.items()) readers += cls == "c0";
  EXPECT_EQ(readers, 8);  // 6/9 of 12
  for (size_t i = 1; i < s.events.size(); ++i) ASSERT_LE(s.events[i - 1].begin_ns, s.events[i].begin_ns);
}

TEST(WorkloadSynthesizer, DurationBoundsEachThread) {
  WorkloadModel m = two_class_model();
  SynthOptions o;
  parse_scale("duration=0.05,threads=3", o);
  trace::Trace s = synthesize(m, o);
  std::map<int32_t, std::pair<int64_t, int64_t>> span;
  for (const trace::Event& e : s.events) {
    auto [it, added] = span.try_emplace(e.tid, e.begin_ns, e.begin_ns);
    it->second.second = std::max(it->second.second, e.begin_ns);
  }
  ASSERT_EQ(span.size(), 3u);
  for (const auto& [tid, se] : span) {
    EXPECT_LT(se.second - se.first, 51'000'000) << tid;  // + the session's close
    EXPECT_GT(se.second - se.first, 40'000'000) << tid;  // long past the model's own calls per thread
  }
}

TEST(WorkloadSynthesizer, SameSeedSameTrace) {
  WorkloadModel m = two_class_model();
  EXPECT_EQ(synthesize(m, {}).events, synthesize(m, {}).events);
  SynthOptions other;
  other.seed = 2;
  EXPECT_NE(synthesize(m, {}).events, synthesize(m, other).events);
}

TEST(WorkloadSynthesizer, BadScaleIsRefused) {
  SynthOptions o;
  EXPECT_THROW(parse_scale("threads=0", o), Error);
  EXPECT_THROW(parse_scale("threads=4x", o), Error);
  EXPECT_THROW(parse_scale("duration=-1", o), Error);
  EXPECT_THROW(parse_scale("speed=2", o), Error);
  EXPECT_THROW(parse_scale("threads", o), Error);
}

// The validation must be able to fail: a model whose read sizes differ from what was drawn.
TEST(ModelValidation, DetectsAMismatch) {
  WorkloadModel m = two_class_model();
  trace::Trace s = synthesize(m, {});
  WorkloadModel wrong = m;
  wrong.classes[0].read_size.atoms = {4096};
  wrong.classes[0].sequential_fraction = 0.2;
  ValidationReport r = validate_synthetic(wrong, s);
  EXPECT_FALSE(r.pass());
  std::set<std::string> failed;
  for (const FeatureCheck& c : r.checks)
    if (!c.pass && c.scope == "c0") failed.insert(c.feature);
  EXPECT_TRUE(failed.count("read_size")) << validation_markdown(r);
  EXPECT_TRUE(failed.count("sequential_fraction")) << validation_markdown(r);
  trace::Trace unlabeled = testing::two_class_trace();
  EXPECT_THROW(validate_synthetic(m, unlabeled), Error);
}

}  // namespace
}  // namespace rastro::characterize
