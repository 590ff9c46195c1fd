#include "common/env_inventory.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

namespace rastro {
namespace {

std::string run(const std::string& cmd) {
  FILE* f = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[256];
  while (f && std::fgets(buf, sizeof buf, f)) out += buf;
  if (f) ::pclose(f);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

TEST(EnvInventory, AgreesWithTheSystemsOwnTools) {
  nlohmann::json env = collect_environment("/tmp");
  utsname u{};
  ::uname(&u);
  EXPECT_EQ(env["kernel"]["release"], u.release);
  EXPECT_EQ(env["cpu"]["cores_online"].get<long>(), std::stol(run("nproc")));
  EXPECT_GT(env["memory_bytes"].get<uint64_t>(), 0u);
  // util-linux's findmnt names the file system of a path independently of our mountinfo walk.
  std::string fstype = run("findmnt -n -o FSTYPE -T /tmp 2>/dev/null");
  if (!fstype.empty()) {
    EXPECT_EQ(env["target"]["fs_type"], fstype);
  }
  std::string target = run("findmnt -n -o TARGET -T /tmp 2>/dev/null");
  if (!target.empty()) {
    EXPECT_EQ(env["target"]["mount_point"], target);
  }
  if (::access("/usr/bin/strace", X_OK) == 0) {
    ASSERT_TRUE(env["tools"].contains("strace"));
    EXPECT_NE(env["tools"]["strace"].get<std::string>().find("strace"), std::string::npos);
  }
  EXPECT_FALSE(env["tools"].contains("no-such-tool"));
}

// An ext4 made with and one without a journal, loop-mounted: the inventory says which keeps one,
// as e2fsprogs' own dumpe2fs reads it from each image's superblock.
TEST(EnvInventory, SaysWhetherAnExt4KeepsAJournal) {
  if (::geteuid() != 0) GTEST_SKIP() << "loop-mounting an ext4 image needs root; running as uid " << ::geteuid();
  char tmpl[] = "/tmp/rastro-journal-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  int checked = 0;
  for (const bool journal : {true, false}) {
    SCOPED_TRACE(journal ? "with a journal" : "without a journal");
    const std::string img = dir + (journal ? "/j.img" : "/n.img"), mnt = img + ".mnt";
    ASSERT_EQ(std::system(("truncate -s 32M " + img + " && mkdir " + mnt).c_str()), 0);
    ASSERT_EQ(std::system(("PATH=$PATH:/sbin mkfs.ext4 -q -F " + std::string(journal ? "" : "-O ^has_journal ") + img).c_str()), 0);
    const std::string features = run("PATH=$PATH:/sbin dumpe2fs -h " + img + " 2>/dev/null | grep -i '^Filesystem features'");
    ASSERT_FALSE(features.empty()) << "dumpe2fs read no superblock of " << img;
    EXPECT_EQ(features.find("has_journal") != std::string::npos, journal) << features;
    if (std::system(("mount -o loop " + img + " " + mnt + " 2>/dev/null").c_str()) != 0) {
      std::printf("%s: loop mount failed (no loop device here): not checked\n", img.c_str());
      continue;
    }
    const nlohmann::json env = collect_environment(mnt);
    EXPECT_EQ(std::system(("umount " + mnt).c_str()), 0);
    EXPECT_EQ(env["target"]["fs_type"], "ext4");
    ASSERT_TRUE(env["target"].contains("journal")) << env["target"].dump();
    EXPECT_EQ(env["target"]["journal"].get<bool>(), journal) << env["target"].dump();
    ++checked;
  }
  EXPECT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
  if (checked == 0) GTEST_SKIP() << "no loop device to mount the images on";
}

TEST(EnvInventory, MissingTargetUsesItsExistingParent) {
  nlohmann::json env = collect_environment("/tmp/rastro-does-not-exist/x/y");
  EXPECT_EQ(env["target"]["mount_point"], collect_environment("/tmp")["target"]["mount_point"]);
}

}  // namespace
}  // namespace rastro
