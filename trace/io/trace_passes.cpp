#include "trace/io/trace_passes.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "trace/io/trace_reader.h"

namespace rastro::trace {
namespace {

constexpr size_t kMemoryBlockEvents = 65536;

class MemoryPasses final : public TracePasses {
 public:
  explicit MemoryPasses(const Trace& t) : t_(t) {}
  const TraceHeader& header() override { return t_.header; }
  const StringTable& strings() override { return t_.strings; }
  uint64_t size() override { return t_.events.size(); }
  const ReadReport& report() override { return report_; }
  void pass(const BlockFn& fn) override {
    std::span<const Event> all(t_.events);
    for (size_t i = 0; i < all.size(); i += kMemoryBlockEvents)
      fn(all.subspan(i, std::min(kMemoryBlockEvents, all.size() - i)), t_.strings);
  }

 private:
  const Trace& t_;
  ReadReport report_;
};

class FilePasses final : public TracePasses {
 public:
  FilePasses(std::string path, Progress* progress) : path_(std::move(path)), progress_(progress) {}

  const TraceHeader& header() override {
    survey();
    return header_;
  }
  const StringTable& strings() override {
    survey();
    return strings_;
  }
  uint64_t size() override {
    survey();
    return size_;
  }
  const ReadReport& report() override {
    survey();
    return report_;
  }

  void pass(const BlockFn& fn) override {
    std::unique_ptr<TraceReader> r = open_trace_reader(path_);
    if (progress_) progress_->set_total(surveyed_ ? size_ : r->remaining_hint());
    std::span<const Event> block;
    uint64_t done = 0;
    while ((!surveyed_ || done < size_) && r->next_events(&block)) {
      // A later pass of a file still growing stops where the first one did.
      size_t n = surveyed_ ? static_cast<size_t>(std::min<uint64_t>(block.size(), size_ - done))
                           : block.size();
      fn(block.first(n), r->strings());
      done += n;
      if (progress_) progress_->update(done);
    }
    if (progress_) progress_->finish();
    if (surveyed_) {
      if (done != size_)
        throw Error(fmt::format("{}: the file changed while being read ({} events, then {})", path_,
                                size_, done));
      return;
    }
    header_ = r->header();
    strings_ = r->take_strings();
    report_ = r->report();
    size_ = done;
    surveyed_ = true;
  }

 private:
  void survey() {
    if (!surveyed_) pass([](std::span<const Event>, const StringTable&) {});
  }

  std::string path_;
  Progress* progress_;
  bool surveyed_ = false;
  TraceHeader header_;
  StringTable strings_;
  uint64_t size_ = 0;
  ReadReport report_;
};

}  // namespace

std::unique_ptr<TracePasses> passes_over(const Trace& trace) {
  return std::make_unique<MemoryPasses>(trace);
}

std::unique_ptr<TracePasses> passes_over_file(const std::string& path, Progress* progress) {
  return std::make_unique<FilePasses>(path, progress);
}

}  // namespace rastro::trace
