#include "replay/plan/plan_trace.h"

#include <algorithm>
#include <vector>

#include "common/progress.h"
#include "trace/io/trace_reader.h"

namespace rastro::replay {

PlanTrace::PlanTrace(const trace::Trace& t) : header(t.header), strings(t.strings) {
  events.reserve(t.events.size());
  for (const trace::Event& e : t.events) events.push_back(e);
}

PlanTrace::PlanTrace(trace::Trace&& t) : header(std::move(t.header)), strings(std::move(t.strings)) {
  events.reserve(t.events.size());
  for (const trace::Event& e : t.events) events.push_back(e);
  t.events = {};
}

PlanTrace read_plan_trace(const std::string& path, trace::ReadReport* report, Progress* progress) {
  auto reader = trace::open_trace_reader(path);
  PlanTrace t;
  const uint64_t expected = reader->remaining_hint();
  t.events.reserve(std::min<uint64_t>(expected, uint64_t{1} << 28));  // (as read_remaining)
  if (progress) progress->set_total(expected);
  std::span<const trace::Event> block;
  while (reader->next_events(&block)) {
    for (const trace::Event& e : block) t.events.push_back(e);
    if (progress) progress->update(t.events.size());
  }
  t.header = reader->header();
  t.strings = reader->take_strings();
  if (report) *report = reader->report();
  return t;
}

}  // namespace rastro::replay
