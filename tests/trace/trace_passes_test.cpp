// Passes over a trace (trace/io/trace_passes.h): the same blocks every pass, the whole-trace facts
// after the first, and a file still being written read to the same prefix every time.
#include "trace/io/trace_passes.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "common/error.h"
#include "tests/trace/random_trace.h"
#include "trace/formats/binary/binary_writer.h"

namespace rastro::trace {
namespace {

namespace fs = std::filesystem;

std::vector<Event> collect(TracePasses& p) {
  std::vector<Event> out;
  p.pass([&](std::span<const Event> b, const StringTable&) { out.insert(out.end(), b.begin(), b.end()); });
  return out;
}

TEST(TracePasses, FileAndMemoryGiveTheSameEventsAndFacts) {
  Trace t = testing::random_trace(2500, 8);
  t.header.complete = true;
  t.header.host = "host";  // the file stores valid UTF-8 only
  std::string p = (fs::temp_directory_path() / ("rastro_passes_" + std::to_string(::getpid()) + ".rastro")).string();
  binary::write_binary_trace(p, t, binary::BinaryWriterOptions{.events_per_block = 300});
  auto file = passes_over_file(p);
  auto mem = passes_over(t);
  EXPECT_EQ(file->size(), 2500u);  // asked first: a pass of its own
  EXPECT_EQ(collect(*file), t.events);
  EXPECT_EQ(collect(*file), t.events);
  EXPECT_EQ(collect(*mem), t.events);
  EXPECT_EQ(file->header().to_json(), t.header.to_json());
  EXPECT_EQ(file->strings().size(), t.strings.size());
  EXPECT_TRUE(file->report().intact);
  EXPECT_EQ(mem->size(), 2500u);
  fs::remove(p);
}

TEST(TracePasses, AGrowingFileIsReadToTheFirstPassPrefix) {
  std::string p = (fs::temp_directory_path() / ("rastro_passes_grow_" + std::to_string(::getpid()) + ".rastro")).string();
  binary::BinaryWriter w(p, TraceHeader{});
  Event e;
  e.nr = 3;
  for (int i = 0; i < 10; ++i) w.append(e);
  w.flush();
  auto passes = passes_over_file(p);
  EXPECT_EQ(collect(*passes).size(), 10u);
  EXPECT_FALSE(passes->report().intact);  // no trailer yet
  for (int i = 0; i < 5; ++i) w.append(e);
  w.flush();
  EXPECT_EQ(collect(*passes).size(), 10u);
  w.finish();
  fs::resize_file(p, 40);  // cut inside the header block: fewer events than the first pass saw
  EXPECT_THROW(collect(*passes), Error);
  fs::remove(p);
}

}  // namespace
}  // namespace rastro::trace
