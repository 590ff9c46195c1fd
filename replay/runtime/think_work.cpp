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
// The code is run a chunk of as many lines at a time: each line but the chunk's last jumps to the
// next line, the last returns.
constexpr size_t kChunk = kLinesPerClockRead * kLine;
// Work ends this far before the call is due; the wait that follows spins the rest.
constexpr int64_t kStopBeforeNs = 1'000;

std::string size_name(size_t bytes) {
  for (auto [shift, unit] : {std::pair{30, "GiB"}, {20, "MiB"}, {10, "KiB"}})
    if (bytes % (size_t{1} << shift) == 0) return fmt::format("{}{}", bytes >> shift, unit);
  return fmt::format("{}", bytes);
}

// Anonymous memory in base pages, as a program's scattered heap and code mostly are: a walk
// through them misses in the TLB.
unsigned char* map_pages(size_t bytes, const ThinkWork& work, const char* what) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw Error(fmt::format("--think-work {}: cannot map its {}: {}", think_work_name(work), what, std::strerror(errno)));
  (void)::madvise(p, bytes, MADV_NOHUGEPAGE);
  return static_cast<unsigned char*>(p);
}

}  // namespace

Result<ThinkWork> parse_think_work(std::string_view text) {
  ThinkWork w;
  if (text == "none") return w;
  std::string_view rest = text;
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view part = rest.substr(0, comma);
    const size_t colon = part.find(':');
    const std::string_view kind = part.substr(0, colon);
    size_t* bytes = kind == "memory" ? &w.memory_bytes : kind == "code" ? &w.code_bytes : nullptr;
    if (bytes == nullptr)
      return fail(fmt::format("unknown think work '{}' (expected none, or memory[:SIZE] and code[:SIZE] joined by a "
                              "comma, e.g. memory:4M,code:1M)",
                              text));
    if (*bytes != 0) return fail(fmt::format("think work '{}' names {} twice", text, kind));
#if !defined(__x86_64__)
    // The code is written as x86-64 instructions (jmp rel32, ret).
    if (kind == "code") return fail(fmt::format("think work '{}': code is written for x86-64 only", text));
#endif
    const size_t least = kind == "memory" ? kLine : kChunk;
    *bytes = kind == "memory" ? ThinkWork::kDefaultMemoryBytes : ThinkWork::kDefaultCodeBytes;
    if (colon != std::string_view::npos) {
      auto size = parse_size(part.substr(colon + 1));
      if (!size.ok() || size.value() < least || size.value() > kMaxBytes)
        return fail(fmt::format("bad size in think work '{}'{} (expected {} to 1G, e.g. {}:4M)", text,
                                size.ok() ? "" : ": " + size.error(), size_name(least), kind));
      *bytes = static_cast<size_t>(size.value());
    }
    if (comma == std::string_view::npos) return w;
    rest = rest.substr(comma + 1);
  }
}

std::string think_work_name(const ThinkWork& work) {
  std::string name;
  if (work.memory_bytes != 0) name = "memory:" + size_name(work.memory_bytes);
  if (work.code_bytes != 0) name += (name.empty() ? "code:" : ",code:") + size_name(work.code_bytes);
  return name.empty() ? "none" : name;
}

ThinkBuffer::ThinkBuffer(const ThinkWork& work) {
  if (work.memory_bytes != 0) {
    const size_t bytes = (work.memory_bytes + kLine - 1) / kLine * kLine;
    unsigned char* p = map_pages(bytes, work, "buffer");
    std::memset(p, 0x5a, bytes);
    (void)::mprotect(p, bytes, PROT_READ);  // read only from here on: forked replay processes copy none of it
    data_ = p;
    data_lines_ = bytes / kLine;
  }
  if (work.code_bytes != 0) {
    const size_t bytes = (work.code_bytes + kChunk - 1) / kChunk * kChunk;
    unsigned char* p = map_pages(bytes, work, "code");
    std::memset(p, 0xcc, bytes);  // int3 wherever no instruction is
    for (size_t line = 0; line < bytes / kLine; ++line) {
      unsigned char* at = p + line * kLine;
      if ((line + 1) % kLinesPerClockRead == 0) {
        at[0] = 0xc3;  // ret: the chunk's last line
      } else {
        at[0] = 0xe9;  // jmp rel32 to the next line's start
        const int32_t rel = static_cast<int32_t>(kLine) - 5;
        std::memcpy(at + 1, &rel, sizeof rel);
      }
    }
    if (::mprotect(p, bytes, PROT_READ | PROT_EXEC) != 0) {
      const int e = errno;
      ::munmap(p, bytes);
      release();
      throw Error(fmt::format("--think-work {}: cannot make its code executable (mprotect PROT_EXEC): {}",
                              think_work_name(work), std::strerror(e)));
    }
    code_ = p;
    code_chunks_ = bytes / kChunk;
  }
}

void ThinkBuffer::release() {
  if (data_) ::munmap(const_cast<unsigned char*>(data_), data_lines_ * kLine);
  if (code_) ::munmap(const_cast<unsigned char*>(code_), code_chunks_ * kChunk);
  data_ = code_ = nullptr;
  data_lines_ = code_chunks_ = 0;
}

ThinkBuffer::ThinkBuffer(ThinkBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      data_lines_(std::exchange(other.data_lines_, 0)),
      code_(std::exchange(other.code_, nullptr)),
      code_chunks_(std::exchange(other.code_chunks_, 0)) {}

ThinkBuffer& ThinkBuffer::operator=(ThinkBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    data_lines_ = std::exchange(other.data_lines_, 0);
    code_ = std::exchange(other.code_, nullptr);
    code_chunks_ = std::exchange(other.code_chunks_, 0);
  }
  return *this;
}

ThinkBuffer::~ThinkBuffer() { release(); }

uint64_t ThinkBuffer::work_until(int64_t deadline_ns) const {
  if (!active()) return 0;
  const int64_t stop = deadline_ns - kStopBeforeNs;
  // Each thread goes on where it stopped, so consecutive gaps touch new lines; threads start apart.
  thread_local size_t data_cursor = static_cast<size_t>(::gettid()) * 2654435761u;
  thread_local size_t code_cursor = static_cast<size_t>(::gettid()) * 40503u;
  size_t at = data_lines_ ? data_cursor % data_lines_ : 0;
  size_t chunk = code_chunks_ ? code_cursor % code_chunks_ : 0;
  unsigned sum = 0;
  uint64_t done = 0;
  while (monotonic_ns() < stop) {
    if (data_) {
      for (uint64_t i = 0; i < kLinesPerClockRead; ++i) {
        sum += *static_cast<const volatile unsigned char*>(data_ + at * kLine);
        if (++at == data_lines_) at = 0;
      }
      done += kLinesPerClockRead;
    }
    if (code_) {
      reinterpret_cast<void (*)()>(const_cast<unsigned char*>(code_ + chunk * kChunk))();
      if (++chunk == code_chunks_) chunk = 0;
      done += kLinesPerClockRead;
    }
  }
  data_cursor = at;
  code_cursor = chunk;
  asm volatile("" : : "r"(sum));  // the reads are the point: keep them
  return done;
}

}  // namespace rastro::replay
