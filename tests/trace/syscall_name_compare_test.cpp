// The syscall table's columns say what a call does; code outside trace/syscalls/ must read them, not
// compare syscall names (`name == "openat"`). This test greps the source tree for such comparisons.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "trace/syscalls/syscall_table.h"

namespace rastro::trace {
namespace {

namespace fs = std::filesystem;

// Folders that are not the product's code: tests may compare names, the table itself holds them.
bool skipped(const fs::path& rel) {
  const std::string top = rel.begin() == rel.end() ? "" : rel.begin()->string();
  if (top == "tests" || top == "docs" || top == "scripts" || top.starts_with(".") || top.starts_with("build")) return true;
  return rel.string().starts_with("trace/syscalls/");
}

std::regex comparison_regex() {
  std::string names;
  for (const SyscallInfo& s : all_syscalls()) names += (names.empty() ? "" : "|") + std::string(s.name);
  const std::string quoted = "\"(" + names + ")\"";
  return std::regex("(==|!=)\\s*" + quoted + "|" + quoted + "\\s*(==|!=)");
}

std::vector<std::string> comparisons_in(const fs::path& root) {
  const std::regex re = comparison_regex();
  std::vector<std::string> found;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path rel = fs::relative(it->path(), root);
    if (it->is_directory() && skipped(rel)) {
      it.disable_recursion_pending();
      continue;
    }
    const std::string ext = it->path().extension().string();
    if (!it->is_regular_file() || (ext != ".cpp" && ext != ".h" && ext != ".c" && ext != ".inc")) continue;
    if (skipped(rel)) continue;
    std::ifstream in(it->path());
    std::string line;
    for (int lineno = 1; std::getline(in, line); ++lineno)
      if (std::regex_search(line, re)) found.push_back(rel.string() + ":" + std::to_string(lineno) + ": " + line);
  }
  return found;
}

TEST(SyscallNameCompare, TheRegexFindsAComparison) {
  const std::regex re = comparison_regex();
  EXPECT_TRUE(std::regex_search(std::string(R"(if (name == "openat") {)"), re));
  EXPECT_TRUE(std::regex_search(std::string(R"(if ("dup3" != n))"), re));
  EXPECT_FALSE(std::regex_search(std::string(R"(if (mode == "reference") {)"), re));
  EXPECT_FALSE(std::regex_search(std::string(R"(return "pread64";)"), re));
}

TEST(SyscallNameCompare, NoCodeOutsideTheTableComparesSyscallNames) {
  const fs::path root = RASTRO_SOURCE_DIR;
  ASSERT_TRUE(fs::exists(root / "trace/syscalls/syscall_rows.inc")) << root;
  const auto found = comparisons_in(root);
  std::ostringstream list;
  for (const auto& f : found) list << "\n  " << f;
  EXPECT_TRUE(found.empty()) << "read the syscall table's columns instead of comparing names:" << list.str();
}

}  // namespace
}  // namespace rastro::trace
