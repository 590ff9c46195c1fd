#include "common/env_inventory.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
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

TEST(EnvInventory, MissingTargetUsesItsExistingParent) {
  nlohmann::json env = collect_environment("/tmp/rastro-does-not-exist/x/y");
  EXPECT_EQ(env["target"]["mount_point"], collect_environment("/tmp")["target"]["mount_point"]);
}

}  // namespace
}  // namespace rastro
