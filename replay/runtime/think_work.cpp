#include "replay/runtime/think_work.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "common/clock.h"
#include "common/units.h"

namespace rastro::replay {
namespace {

constexpr size_t kLine = 64;
constexpr size_t kMaxBytes = size_t{1} << 30;
// Lines read between two clock reads: a vDSO read costs about as much as 16 lines from L2, and
// even from memory (~80 ns a line) 16 lines overshoot a deadline by little more than a microsecond.
constexpr uint64_t kLinesPerClockRead = 16;
// Work ends this far before the call is due; the wait that follows spins the rest.
constexpr int64_t kStopBeforeNs = 1'000;

}  // namespace

Result<ThinkWork> parse_think_work(std::string_view text) {
  ThinkWork w;
  if (text == "none") return w;
  const size_t colon = text.find(':');
  if (text.substr(0, colon) != "memory")
    return fail(fmt::format("unknown think work '{}' (expected none, memory or memory:SIZE, e.g. memory:4M)", text));
  w.mode = ThinkWork::Mode::kMemory;
  if (colon == std::string_view::npos) return w;
  auto bytes = parse_size(text.substr(colon + 1));
  if (!bytes.ok() || bytes.value() < kLine || bytes.value() > kMaxBytes)
    return fail(fmt::format("bad size in think work '{}'{} (expected 64 bytes to 1G, e.g. memory:4M)", text,
                            bytes.ok() ? "" : ": " + bytes.error()));
  w.bytes = static_cast<size_t>(bytes.value());
  return w;
}

std::string think_work_name(const ThinkWork& work) {
  if (!work.active()) return "none";
  for (auto [shift, unit] : {std::pair{30, "GiB"}, {20, "MiB"}, {10, "KiB"}})
    if (work.bytes % (size_t{1} << shift) == 0) return fmt::format("memory:{}{}", work.bytes >> shift, unit);
  return fmt::format("memory:{}", work.bytes);
}

ThinkBuffer::ThinkBuffer(const ThinkWork& work) {
  if (!work.active()) return;
  const size_t bytes = (work.bytes + kLine - 1) / kLine * kLine;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw Error(fmt::format("--think-work {}: cannot map its buffer: {}", think_work_name(work), std::strerror(errno)));
  // Base pages, as a program's scattered heap mostly has: a walk through them misses in the TLB.
  (void)::madvise(p, bytes, MADV_NOHUGEPAGE);
  std::memset(p, 0x5a, bytes);
  (void)::mprotect(p, bytes, PROT_READ);  // read only from here on: forked replay processes copy none of it
  base_ = static_cast<const unsigned char*>(p);
  lines_ = bytes / kLine;
}

ThinkBuffer::ThinkBuffer(ThinkBuffer&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)), lines_(std::exchange(other.lines_, 0)) {}

ThinkBuffer& ThinkBuffer::operator=(ThinkBuffer&& other) noexcept {
  if (this != &other) {
    if (base_) ::munmap(const_cast<unsigned char*>(base_), lines_ * kLine);
    base_ = std::exchange(other.base_, nullptr);
    lines_ = std::exchange(other.lines_, 0);
  }
  return *this;
}

ThinkBuffer::~ThinkBuffer() {
  if (base_) ::munmap(const_cast<unsigned char*>(base_), lines_ * kLine);
}

uint64_t ThinkBuffer::work_until(int64_t deadline_ns) const {
  if (!base_) return 0;
  const int64_t stop = deadline_ns - kStopBeforeNs;
  // Each thread goes on where it stopped, so consecutive gaps touch new lines; threads start apart.
  thread_local size_t cursor = static_cast<size_t>(::gettid()) * 2654435761u;
  size_t at = cursor % lines_;
  unsigned sum = 0;
  uint64_t read = 0;
  while (monotonic_ns() < stop) {
    for (uint64_t i = 0; i < kLinesPerClockRead; ++i) {
      sum += *static_cast<const volatile unsigned char*>(base_ + at * kLine);
      if (++at == lines_) at = 0;
    }
    read += kLinesPerClockRead;
  }
  cursor = at;
  asm volatile("" : : "r"(sum));  // the reads are the point: keep them
  return read;
}

}  // namespace rastro::replay
