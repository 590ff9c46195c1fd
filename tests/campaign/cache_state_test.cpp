// The warm cache state: after warm_files every page of the laid out files is resident, as the
// kernel's mincore(2) reports (checked after dropping the caches, so the test can fail).
#include "campaign/cache_state.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/drop_caches.h"

namespace rastro::campaign {
namespace {

namespace fs = std::filesystem;

// Fraction of the file's pages in the page cache.
double resident_fraction(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return -1;
  const size_t size = fs::file_size(path);
  void* p = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return -1;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> vec((size + page - 1) / page);
  const int r = mincore(p, size, vec.data());
  munmap(p, size);
  if (r != 0) return -1;
  size_t in = 0;
  for (unsigned char v : vec) in += v & 1;
  return static_cast<double>(in) / static_cast<double>(vec.size());
}

TEST(CacheState, WarmFilesReadsEveryFileAndLeavesItsPagesResident) {
  char tmpl[] = "/tmp/rastro-warm-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  fs::create_directories(dir + "/sub");
  const std::vector<std::string> files = {dir + "/a", dir + "/sub/b"};
  std::string block(1 << 20, 'x');
  for (const auto& f : files) {
    std::ofstream out(f, std::ios::binary);
    for (int i = 0; i < 4; ++i) out << block;
  }
  sync();
  if (!drop_caches().ok()) {
    fs::remove_all(dir);
    GTEST_SKIP() << "dropping caches needs root (/proc/sys/vm/drop_caches); without it residency cannot be reset";
  }
  for (const auto& f : files) EXPECT_LT(resident_fraction(f), 0.5) << f << ": still cached after the drop";
  auto bytes = warm_files(dir);
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  EXPECT_EQ(*bytes, 8u << 20);
  for (const auto& f : files) EXPECT_GT(resident_fraction(f), 0.99) << f;
  fs::remove_all(dir);
}

TEST(CacheState, AMissingDirectoryIsAnErrorNamingIt) {
  auto r = warm_files("/nonexistent/rastro-warm");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("/nonexistent/rastro-warm"), std::string::npos) << r.error();
}

}  // namespace
}  // namespace rastro::campaign
