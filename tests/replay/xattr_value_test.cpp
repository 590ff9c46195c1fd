// The values a replayed setxattr writes (replay/runtime/xattr_value.h), checked against the kernel:
// it parses POSIX ACLs and refuses bytes that are not one (cp -a's fsetxattr of
// system.posix_acl_access replayed as EOPNOTSUPP before).
#include "replay/runtime/xattr_value.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "replay/runtime/unique_fd.h"
#include "replay_test_util.h"

namespace rastro::replay {
namespace {

// A 3-entry ACL for mode 0640 written out by hand from include/uapi/linux/posix_acl_xattr.h:
// version 2, then (tag, perm, id) little-endian: USER_OBJ rw-, GROUP_OBJ r--, OTHER ---.
const unsigned char kHandMade0640[28] = {2, 0, 0, 0,                          //
                                         0x01, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,  //
                                         0x04, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,  //
                                         0x20, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};

TEST(XattrValue, PosixAclsOfTheTracedSizeAreAcceptedAndKeepTheMode) {
  EXPECT_TRUE(is_posix_acl_xattr("system.posix_acl_access"));
  EXPECT_TRUE(is_posix_acl_xattr("system.posix_acl_default"));
  EXPECT_FALSE(is_posix_acl_xattr("user.posix_acl_access"));

  unsigned char v[4 + 8 * 7];
  EXPECT_FALSE(posix_acl_value(20, 0644, v)) << "fewer than 3 entries";
  EXPECT_FALSE(posix_acl_value(30, 0644, v)) << "not 4 + 8k bytes";
  ASSERT_TRUE(posix_acl_value(28, 0640, v));
  EXPECT_EQ(std::memcmp(v, kHandMade0640, sizeof kHandMade0640), 0);

  testing::TempDir dir;
  testing::write_file(dir.sub("f"), "x");
  ASSERT_EQ(::chmod(dir.sub("f").c_str(), 0640), 0);
  UniqueFd fd(::open(dir.sub("f").c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_GE(fd.get(), 0);
  if (::fsetxattr(fd.get(), "system.posix_acl_access", kHandMade0640, sizeof kHandMade0640, 0) != 0) {
    GTEST_SKIP() << dir.path() << " takes no POSIX ACLs: " << std::strerror(errno);
  }
  // What the replay wrote before: bytes of the size, no ACL.
  std::vector<unsigned char> junk(28, 'r');
  EXPECT_EQ(::fsetxattr(fd.get(), "system.posix_acl_access", junk.data(), junk.size(), 0), -1);
  for (size_t n : {28u, 36u, 44u, 60u}) {
    ASSERT_TRUE(posix_acl_value(n, 0640, v)) << n;
    EXPECT_EQ(::fsetxattr(fd.get(), "system.posix_acl_access", v, n, 0), 0) << n << ": " << std::strerror(errno);
    struct stat st {};
    ASSERT_EQ(::fstat(fd.get(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0640u) << n;
  }
  // An extended ACL reads back with its entries (3 base, the mask, 3 named users).
  EXPECT_EQ(::fgetxattr(fd.get(), "system.posix_acl_access", v, sizeof v), 60);
  ASSERT_EQ(::mkdir(dir.sub("d").c_str(), 0750), 0);
  ASSERT_TRUE(posix_acl_value(44, 0750, v));
  EXPECT_EQ(::setxattr(dir.sub("d").c_str(), "system.posix_acl_default", v, 44, 0), 0) << std::strerror(errno);
}

}  // namespace
}  // namespace rastro::replay
