#include "capture/stap/stap_script.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "capture/stap/stap_requirements.h"

namespace rastro::capture {
namespace {

TEST(StapScript, TracesExactlyTheSelectedSyscalls) {
  auto set = trace::parse_syscall_set("openat,pread64,rename").take();
  std::string s = generate_stap_script(set, "openat,pread64,rename");
  EXPECT_NE(s.find("rastro_want[257] = 1"), std::string::npos);
  EXPECT_NE(s.find("rastro_want[17] = 1"), std::string::npos);
  EXPECT_EQ(s.find("rastro_want[1] = 1"), std::string::npos);  // write not selected
  // rename reads both paths; openat its one path (argument 1).
  EXPECT_NE(s.find("if (nr == 82) str = user_string_n_quoted($args[0], 4096) . \" \" . user_string_n_quoted($args[1], 4096)"),
            std::string::npos);
  EXPECT_NE(s.find("if (nr == 257) str = user_string_n_quoted($args[1], 4096)"), std::string::npos);
  EXPECT_NE(s.find("target_set_pid"), std::string::npos);
}

// `stap -p1` parses the script. stap refuses to start without a kernel build tree, so the test
// builds the stand-in PLATFORM.md describes (.config from /proc/config.gz, kernel.release, empty
// Module.symvers) in a temp dir.
TEST(StapScript, ParsesWithStapPass1) {
  if (std::system("command -v stap >/dev/null 2>&1") != 0) {
    std::puts("SKIP reason: SystemTap (stap) is not installed");
    GTEST_SKIP() << "stap not installed";
  }
  if (::access("/proc/config.gz", R_OK) != 0) {
    std::puts("SKIP reason: /proc/config.gz absent, cannot build a stand-in kernel build tree");
    GTEST_SKIP() << "no /proc/config.gz";
  }
  utsname u{};
  ::uname(&u);
  auto dir = std::filesystem::temp_directory_path() / ("rastro-stap-p1-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "include/config");
  ASSERT_EQ(std::system(("zcat /proc/config.gz > " + (dir / ".config").string()).c_str()), 0);
  std::ofstream(dir / "include/config/kernel.release") << u.release << "\n";
  std::ofstream(dir / "Module.symvers");
  for (const char* spec : {"fs", "all", "openat,read,write,exit_group"}) {
    auto set = trace::parse_syscall_set(spec).take();
    std::string script = (dir / "t.stp").string();
    std::ofstream(script) << generate_stap_script(set, spec);
    std::string cmd = "stap -p1 -r " + dir.string() + " " + script + " > " + (dir / "p1.out").string() + " 2>&1";
    int rc = std::system(cmd.c_str());
    std::ifstream log(dir / "p1.out");
    std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    EXPECT_EQ(rc, 0) << spec << ":\n" << text;
  }
  // A real syntax error must fail: the check can fail.
  std::ofstream(dir / "bad.stp") << "probe begin { printf(\"x\" }\n";
  EXPECT_NE(std::system(("stap -p1 -r " + dir.string() + " " + (dir / "bad.stp").string() + " >/dev/null 2>&1").c_str()), 0);
  std::filesystem::remove_all(dir);
}

TEST(StapRequirements, ListsEachMissingPieceOrNone) {
  StapRuntimeChoice c = check_stap_requirements();
  utsname u{};
  ::uname(&u);
  bool has_build = ::access(("/lib/modules/" + std::string(u.release) + "/build/.config").c_str(), R_OK) == 0;
  bool mentions_build = false;
  for (const auto& m : c.missing) {
    EXPECT_FALSE(m.empty());
    if (m.find("build tree") != std::string::npos) mentions_build = true;
  }
  EXPECT_EQ(mentions_build, !has_build);
}

}  // namespace
}  // namespace rastro::capture
