// The one traced-process model (trace/common/process_model.h) follows the kernel's rules: clone(2)
// CLONE_FILES / CLONE_FS sharing, fork copies, execve(2) unsharing the table and closing
// O_CLOEXEC fds.
#include "trace/common/process_model.h"

#include <string>

#include <gtest/gtest.h>

namespace rastro::trace {
namespace {

struct Slot {
  std::string path;
  bool cloexec = false;
};
using Model = ProcessModel<Slot, std::string>;

std::string at(Model& m, int32_t id, int fd) {
  auto* p = m.find(id);
  if (!p) return "<no task>";
  auto it = p->files->fds.find(fd);
  return it == p->files->fds.end() ? "<none>" : it->second.path;
}

TEST(ProcessModel, NewTaskStartsEmptyInTheInitialCwd) {
  Model m("/start");
  EXPECT_EQ(m.find(1), nullptr);
  EXPECT_EQ(*m.get(1).cwd, "/start");
  EXPECT_TRUE(m.get(1).files->fds.empty());
}

TEST(ProcessModel, CloneFilesSharesTheTableForkCopiesIt) {
  Model m("/");
  m.get(1).files->fds[3] = {"/a"};
  m.clone(1, 2, /*share_files=*/true, /*share_fs=*/true);
  m.clone(1, 3, /*share_files=*/false, /*share_fs=*/false);
  m.get(2).files->fds[4] = {"/b"};
  EXPECT_EQ(at(m, 1, 4), "/b") << "CLONE_FILES: one table";
  EXPECT_EQ(at(m, 3, 4), "<none>") << "fork: the child's copy does not see later opens";
  EXPECT_EQ(at(m, 3, 3), "/a") << "fork: the child has what the parent had";
  m.get(3).files->fds.erase(3);
  EXPECT_EQ(at(m, 1, 3), "/a") << "a close in the copy leaves the parent alone";
}

TEST(ProcessModel, CloneFsSharesTheCwdForkCopiesIt) {
  Model m("/");
  *m.get(1).cwd = "/w";
  m.clone(1, 2, false, /*share_fs=*/true);
  m.clone(1, 3, false, /*share_fs=*/false);
  *m.get(2).cwd = "/x";
  EXPECT_EQ(*m.get(1).cwd, "/x");
  EXPECT_EQ(*m.get(3).cwd, "/w");
}

TEST(ProcessModel, ExecUnsharesTheTableAndDropsCloseOnExecFds) {
  Model m("/");
  m.get(1).files->fds[3] = {"/keep"};
  m.get(1).files->fds[4] = {"/cloexec", true};
  m.clone(1, 2, /*share_files=*/true, false);
  m.exec(2);
  EXPECT_EQ(at(m, 2, 3), "/keep");
  EXPECT_EQ(at(m, 2, 4), "<none>");
  EXPECT_EQ(at(m, 1, 4), "/cloexec") << "the former sharer keeps its table";
  m.get(2).files->fds[5] = {"/new"};
  EXPECT_EQ(at(m, 1, 5), "<none>") << "no longer shared after exec";
}

TEST(ProcessModel, ChildSeenBeforeItsParentsCloneReturnedKeepsWhatItDid) {
  Model m("");
  m.get(2).files->fds[7] = {"/early"};  // the child's call completed first
  *m.get(2).cwd = "/child";
  m.get(1).files->fds[3] = {"/a"};
  m.clone(1, 2, /*share_files=*/false, /*share_fs=*/false);
  EXPECT_EQ(at(m, 2, 7), "/early");
  EXPECT_EQ(at(m, 2, 3), "/a");
  EXPECT_EQ(*m.get(2).cwd, "/child") << "the parent's cwd is unknown: the child's own stays";
  m.get(4).files->fds[8] = {"/thread-early"};
  m.clone(1, 4, /*share_files=*/true, false);
  EXPECT_EQ(at(m, 1, 8), "/thread-early") << "merged into the shared table";
}

TEST(ProcessModel, ExitForgetsTheTaskRenameMovesIt) {
  Model m("/");
  m.get(1).files->fds[3] = {"/a"};
  m.clone(1, 2, true, true);
  m.exit(1);
  EXPECT_EQ(m.find(1), nullptr);
  EXPECT_EQ(at(m, 2, 3), "/a") << "the table lives on while shared";
  m.rename(2, 20);
  EXPECT_EQ(m.find(2), nullptr);
  EXPECT_EQ(at(m, 20, 3), "/a");
}

}  // namespace
}  // namespace rastro::trace
