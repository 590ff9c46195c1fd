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

// The check after a warm run: nothing lost while the files stay cached; after another process drops
// the caches it names how many pages left, and the count agrees with mincore read here.
TEST(CacheState, WarmStateLostCountsThePagesThatLeftTheCache) {
  char tmpl[] = "/tmp/rastro-warm-lost-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  fs::create_directories(dir + "/sub");
  std::string block(1 << 20, 'y');
  for (const std::string& f : {dir + "/a", dir + "/sub/b"}) {
    std::ofstream out(f, std::ios::binary);
    for (int i = 0; i < 3; ++i) out << block;
  }
  std::ofstream(dir + "/empty").close();
  sync();
  ASSERT_TRUE(warm_files(dir).ok());
  auto pages = resident_pages(dir);
  ASSERT_TRUE(pages.ok()) << pages.error();
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  EXPECT_EQ(pages->total, 2 * (3u << 20) / page);
  EXPECT_EQ(pages->resident, pages->total);
  auto lost = warm_state_lost(dir);
  ASSERT_TRUE(lost.ok()) << lost.error();
  EXPECT_EQ(*lost, "");
  if (!drop_caches().ok()) {
    fs::remove_all(dir);
    GTEST_SKIP() << "dropping caches needs root (/proc/sys/vm/drop_caches); without it the loss cannot be made";
  }
  const double kept = (resident_fraction(dir + "/a") + resident_fraction(dir + "/sub/b")) / 2;
  pages = resident_pages(dir);
  ASSERT_TRUE(pages.ok()) << pages.error();
  EXPECT_NEAR(static_cast<double>(pages->resident) / static_cast<double>(pages->total), kept, 0.02);
  EXPECT_LT(pages->resident, pages->total);
  lost = warm_state_lost(dir);
  ASSERT_TRUE(lost.ok()) << lost.error();
  EXPECT_NE(lost->find("not warm: " + std::to_string(pages->total - pages->resident) + " of the " +
                       std::to_string(pages->total) + " pages"),
            std::string::npos)
      << *lost;
  EXPECT_NE(lost->find(dir), std::string::npos) << *lost;
  fs::remove_all(dir);
}

TEST(CacheState, AMissingDirectoryIsAnErrorNamingIt) {
  auto r = warm_files("/nonexistent/rastro-warm");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("/nonexistent/rastro-warm"), std::string::npos) << r.error();
  auto pages = resident_pages("/nonexistent/rastro-warm");
  ASSERT_FALSE(pages.ok());
  EXPECT_NE(pages.error().find("/nonexistent/rastro-warm"), std::string::npos) << pages.error();
}

}  // namespace
}  // namespace rastro::campaign
