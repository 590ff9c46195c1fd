#include "common/atomic_write.h"

#include <unistd.h>

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

TEST(TempPath, IsBesideTheTargetSoTheRenameStaysOnOneFileSystem) {
  EXPECT_EQ(fs::path(temp_path_for("/a/b/c.json")).parent_path(), fs::path("/a/b"));
  EXPECT_NE(temp_path_for("/a/b/c.json"), "/a/b/c.json");
}

}  // namespace
}  // namespace rastro
