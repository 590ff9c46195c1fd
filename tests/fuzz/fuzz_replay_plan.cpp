// libFuzzer target: the replay-plan inference on arbitrary traces (tests/fuzz/corpus/replay_plan).
// The plan is rastro's own format (written, never read back: `rastro replay` and `rastro compile`
// infer it from the trace), so what is fuzzed is the step that turns untrusted trace content —
// fds used before open, odd paths, fork/exec orders — into a plan. First byte: the ordering; the
// rest: a TSV/CSV trace. Property: a valid DAG (every dependency is an earlier request of the
// plan, within bounds) that the JSON plan writer can write.
#include <sstream>
#include <string>

#include "replay/passes/replay_passes.h"
#include "replay/plan/plan_json.h"
#include "tests/fuzz/fuzz_error_policy.h"
#include "trace/formats/text/text_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const auto ordering = static_cast<rastro::replay::Ordering>(data[0] % 3);
  std::istringstream in(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  RASTRO_FUZZ_EXPECTED_ERRORS({
    rastro::trace::Trace t = rastro::trace::read_text_trace(in, "fuzz.tsv");
    auto plan = rastro::replay::infer_plan(std::move(t), ordering);
    if (!plan.ok()) return 0;  // a documented refusal, with its reason
    const rastro::replay::Plan& p = plan.value();
    for (size_t r = 0; r < p.requests.size(); ++r) {
      const auto& req = p.requests[r];
      const size_t deps_end = r + 1 < p.requests.size() ? p.requests[r + 1].deps_begin : p.deps.size();
      if (req.event >= p.trace.events.size() || req.thread >= p.threads.size() || req.deps_begin > deps_end ||
          deps_end > p.deps.size())
        __builtin_trap();  // out-of-bounds plan
      for (size_t i = req.deps_begin; i < deps_end; ++i)
        if (p.deps[i].request >= r) __builtin_trap();  // a forward edge: cycle possible
    }
    std::ostringstream json;
    rastro::replay::write_plan_json(json, p);
  })
  return 0;
}
