#include "campaign/cache_state.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include <fmt/format.h>

namespace rastro::campaign {

Result<uint64_t> warm_files(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  uint64_t total = 0;
  std::vector<char> buf(1 << 20);
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string path = it->path().string();
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fail(fmt::format("warm cache: {}: {}", path, std::strerror(errno)));
    ssize_t n;
    while ((n = read(fd, buf.data(), buf.size())) > 0) total += static_cast<uint64_t>(n);
    const int err = errno;
    close(fd);
    if (n < 0) return fail(fmt::format("warm cache: {}: {}", path, std::strerror(err)));
  }
  if (ec) return fail(fmt::format("warm cache: {}: {}", dir, ec.message()));
  return total;
}

namespace {

// Resident pages of one open file: mapped read-only, never touched (mincore does not fault pages in).
Result<ResidentPages> file_resident_pages(int fd, const std::string& path) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return fail(fmt::format("cache residency: {}: {}", path, std::strerror(errno)));
  if (st.st_size == 0) return ResidentPages{};
  const auto size = static_cast<size_t>(st.st_size);
  void* map = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) return fail(fmt::format("cache residency: mmap {}: {}", path, std::strerror(errno)));
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> pages((size + page - 1) / page);
  const int r = mincore(map, size, pages.data());
  const int err = errno;
  munmap(map, size);
  if (r != 0) return fail(fmt::format("cache residency: mincore {}: {}", path, std::strerror(err)));
  ResidentPages out{.resident = 0, .total = pages.size()};
  for (unsigned char v : pages) out.resident += v & 1u;
  return out;
}

}  // namespace

Result<ResidentPages> resident_pages(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  ResidentPages total;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string path = it->path().string();
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fail(fmt::format("cache residency: {}: {}", path, std::strerror(errno)));
    auto one = file_resident_pages(fd, path);
    close(fd);
    if (!one) return fail(one.error());
    total.resident += one->resident;
    total.total += one->total;
  }
  if (ec) return fail(fmt::format("cache residency: {}: {}", dir, ec.message()));
  return total;
}

Result<std::string> warm_state_lost(const std::string& dir) {
  auto pages = resident_pages(dir);
  if (!pages) return fail(pages.error());
  if (pages->resident == pages->total) return std::string();
  return fmt::format("not warm: {} of the {} pages of its files under {} left the page cache during the run "
                     "(caches dropped by another process, or memory pressure)",
                     pages->total - pages->resident, pages->total, dir);
}

}  // namespace rastro::campaign
