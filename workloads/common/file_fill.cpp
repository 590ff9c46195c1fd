#include "workloads/common/file_fill.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"

namespace rastro::workloads {

void fill_pattern(void* buf, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto* p = static_cast<unsigned char*>(buf);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint64_t v = rng();
    std::memcpy(p + i, &v, 8);
  }
  const uint64_t v = rng();
  std::memcpy(p + i, &v, n - i);
}

IoBuffer patterned_io_buffer(size_t n, uint64_t seed) {
  const size_t rounded = (n + 4095) / 4096 * 4096;
  IoBuffer buf(std::aligned_alloc(4096, rounded));
  if (!buf) throw Error(fmt::format("out of memory for a {}-byte I/O buffer", rounded));
  fill_pattern(buf.get(), rounded, seed);
  return buf;
}

uint64_t bytes_to_fill(const std::string& path, uint64_t size) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return size;
  const auto have = static_cast<uint64_t>(st.st_size);
  return have >= size ? 0 : size - have;
}

FillOutcome prepare_file(const std::string& path, uint64_t size, const StopSignal& stop) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(fmt::format("{}: cannot create: {}", path, std::strerror(errno)));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    throw Error(fmt::format("{}: fstat: {}", path, std::strerror(e)));
  }
  const auto have = static_cast<uint64_t>(st.st_size);
  if (have == size) {
    ::close(fd);
    return FillOutcome::kReused;
  }
  if (have > size && ::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    const int e = errno;
    ::close(fd);
    throw Error(fmt::format("{}: ftruncate: {}", path, std::strerror(e)));
  }
  constexpr size_t kChunk = 1u << 20;
  std::vector<unsigned char> buf(kChunk);
  fill_pattern(buf.data(), buf.size(), std::hash<std::string>{}(path));
  uint64_t off = std::min(have, size);
  while (off < size) {
    if (stop.load(std::memory_order_relaxed) != 0) {
      ::close(fd);
      return FillOutcome::kStopped;
    }
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, size - off));
    const ssize_t w = ::pwrite(fd, buf.data(), n, static_cast<off_t>(off));
    if (w <= 0) {
      const int e = w < 0 ? errno : ENOSPC;
      ::close(fd);
      throw Error(fmt::format("{}: writing at offset {} while preparing it: {}", path, off, std::strerror(e)));
    }
    off += static_cast<uint64_t>(w);
  }
  if (::fsync(fd) != 0) {
    const int e = errno;
    ::close(fd);
    throw Error(fmt::format("{}: fsync: {}", path, std::strerror(e)));
  }
  ::close(fd);
  return FillOutcome::kWritten;
}

}  // namespace rastro::workloads
