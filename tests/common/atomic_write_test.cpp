#include "common/atomic_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>

namespace rastro {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class AtomicWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rastro_atomic_write_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(AtomicWrite, ReplacesTheFileAndLeavesNoTemporary) {
  const std::string path = (dir_ / "out.json").string();
  std::ofstream(path) << "old";
  write_file_atomically(path, [](std::ostream& out) { out << "new content"; });
  EXPECT_EQ(slurp(path), "new content");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(AtomicWrite, AWriterThatThrowsLeavesTheOldFileInPlace) {
  const std::string path = (dir_ / "out.json").string();
  std::ofstream(path) << "old";
  EXPECT_THROW(write_file_atomically(path, [](std::ostream& out) {
                 out << "half";
                 throw Error("writer failed");
               }),
               Error);
  EXPECT_EQ(slurp(path), "old");
  EXPECT_FALSE(fs::exists(temp_path_for(path))) << "the temporary file was left behind";
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(AtomicWrite, AWriterThatThrowsSomethingElseAlsoRemovesTheTemporary) {
  const std::string path = (dir_ / "new.json").string();
  EXPECT_THROW(write_file_atomically(path, [](std::ostream& out) {
                 out << "half";
                 throw std::runtime_error("not a rastro error");
               }),
               std::runtime_error);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(temp_path_for(path))) << "the temporary file was left behind";
}

TEST_F(AtomicWrite, AnUncreatableTemporaryIsAnErrorNamingIt) {
  const std::string path = (dir_ / "missing-dir" / "out.json").string();
  try {
    write_file_atomically(path, [](std::ostream& out) { out << "x"; });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing-dir"), std::string::npos) << e.what();
  }
}

TEST_F(AtomicWrite, AFailedRenameRemovesTheTemporaryAndNamesTheTarget) {
  const std::string tmp = temp_path_for((dir_ / "a").string());
  std::ofstream(tmp) << "x";
  fs::create_directories(dir_ / "target" / "not-empty");  // rename(file, non-empty dir) fails
  const std::string target = (dir_ / "target").string();
  try {
    commit_temp_file(tmp, target);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(target), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(tmp));
}

// `-o /dev/null` (or /dev/stdout, a FIFO): renaming the temporary over it replaced the machine's
// /dev/null with a regular file. A target that is no regular file is written into, and stays
// what it was. A FIFO here (with a reader) and, where mknod is allowed, a null device node.
TEST_F(AtomicWrite, ADeviceOrFifoTargetIsWrittenIntoNotReplaced) {
  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  // The reading end (O_RDWR: opening it does not wait for a writer, nor does the writer's open).
  const int rfd = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
  ASSERT_GE(rfd, 0) << std::strerror(errno);
  write_text_atomically(fifo.string(), "through the pipe");
  char buf[64] = {};
  const ssize_t n = ::read(rfd, buf, sizeof buf);
  ::close(rfd);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0), "through the pipe");
  EXPECT_EQ(fs::status(fifo).type(), fs::file_type::fifo);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1) << "no temporary left";

  const fs::path null = dir_ / "null";
  if (::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    std::printf("device part skipped: mknod: %s\n", std::strerror(errno));
    return;
  }
  write_text_atomically(null.string(), "discarded");
  EXPECT_EQ(fs::status(null).type(), fs::file_type::character);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 2) << "no temporary left";
}

TEST(TempPath, IsBesideTheTargetSoTheRenameStaysOnOneFileSystem) {
  EXPECT_EQ(fs::path(temp_path_for("/a/b/c.json")).parent_path(), fs::path("/a/b"));
  EXPECT_NE(temp_path_for("/a/b/c.json"), "/a/b/c.json");
}

}  // namespace
}  // namespace rastro
