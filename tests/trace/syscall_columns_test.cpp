// Checks every row's semantic columns (family, fd, path, data and process effects) against a list
// written here by kernel syscall number (<asm/unistd_64.h>, which we did not write): a row added to
// the table without saying what it does fails here.
#include <asm/unistd_64.h>

#include <map>
#include <set>

#include <gtest/gtest.h>

#include "trace/syscalls/syscall_table.h"

// Newer than Debian 12's header (numbers from the kernel's syscall_64.tbl; syscall_table_test checks
// each against this kernel's tracepoints).
#ifndef __NR_cachestat
#define __NR_cachestat 451
#define __NR_fchmodat2 452
#define __NR_map_shadow_stack 453
#define __NR_statmount 457
#define __NR_listmount 458
#define __NR_mseal 462
#define __NR_setxattrat 463
#define __NR_getxattrat 464
#define __NR_listxattrat 465
#define __NR_removexattrat 466
#define __NR_open_tree_attr 467
#define __NR_file_getattr 468
#define __NR_file_setattr 469
#endif

namespace rastro::trace {
namespace {

struct Expected {
  FdEffect fd = FdEffect::kNone;
  PathEffect path = PathEffect::kNone;
  ProcEffect proc = ProcEffect::kNone;
};

// From the man pages, by the kernel's numbers.
std::map<int, Expected> expected_effects() {
  std::map<int, Expected> m;
  for (int nr : {__NR_open, __NR_openat, __NR_openat2}) m[nr] = {FdEffect::kCreates, PathEffect::kOpens};
  m[__NR_creat] = {FdEffect::kCreates, PathEffect::kCreatesFile};
  for (int nr : {__NR_socket, __NR_accept, __NR_accept4}) m[nr] = {FdEffect::kCreates};
  // Calls that return a new fd on no path of theirs (epoll_create(2), eventfd(2), memfd_create(2), ...).
  for (int nr : {__NR_epoll_create, __NR_epoll_create1, __NR_eventfd, __NR_eventfd2, __NR_signalfd, __NR_signalfd4,
                 __NR_timerfd_create, __NR_inotify_init, __NR_inotify_init1, __NR_fanotify_init, __NR_perf_event_open,
                 __NR_userfaultfd, __NR_pidfd_open, __NR_pidfd_getfd, __NR_fsopen, __NR_fsmount,
                 __NR_landlock_create_ruleset, __NR_mq_open, __NR_memfd_create, __NR_memfd_secret, __NR_io_uring_setup,
                 __NR_open_by_handle_at})
    m[nr] = {FdEffect::kCreates};
  // open_tree(2), fspick(2): a new fd on a path that must exist.
  m[__NR_open_tree] = m[__NR_fspick] = m[__NR_open_tree_attr] = {FdEffect::kCreates, PathEffect::kNeeds};
  for (int nr : {__NR_pipe, __NR_pipe2, __NR_socketpair}) m[nr] = {FdEffect::kCreatesPair};
  m[__NR_dup] = {FdEffect::kDuplicates};
  m[__NR_dup2] = m[__NR_dup3] = {FdEffect::kDuplicatesOnto};
  m[__NR_close] = {FdEffect::kReleases};
  m[__NR_fcntl] = {FdEffect::kByCommand};
  m[__NR_mkdir] = m[__NR_mkdirat] = {FdEffect::kNone, PathEffect::kCreatesDir};
  m[__NR_mknod] = m[__NR_mknodat] = {FdEffect::kNone, PathEffect::kCreatesNode};
  m[__NR_symlink] = m[__NR_symlinkat] = {FdEffect::kNone, PathEffect::kCreatesSymlink};
  m[__NR_link] = m[__NR_linkat] = {FdEffect::kNone, PathEffect::kLinks};
  for (int nr : {__NR_rename, __NR_renameat, __NR_renameat2}) m[nr] = {FdEffect::kNone, PathEffect::kRenames};
  m[__NR_unlink] = m[__NR_unlinkat] = {FdEffect::kNone, PathEffect::kRemoves};
  m[__NR_rmdir] = {FdEffect::kNone, PathEffect::kRemovesDir};
  m[__NR_readlink] = m[__NR_readlinkat] = {FdEffect::kNone, PathEffect::kReadsLink};
  m[__NR_truncate] = m[__NR_ftruncate] = {FdEffect::kNone, PathEffect::kTruncates};
  m[__NR_getdents] = m[__NR_getdents64] = {FdEffect::kNone, PathEffect::kListsDir};
  m[__NR_clone] = {FdEffect::kNone, PathEffect::kNone, ProcEffect::kClone};
  m[__NR_clone3] = {FdEffect::kNone, PathEffect::kNone, ProcEffect::kClone3};
  m[__NR_fork] = {FdEffect::kNone, PathEffect::kNone, ProcEffect::kFork};
  m[__NR_vfork] = {FdEffect::kNone, PathEffect::kNone, ProcEffect::kVfork};
  m[__NR_execve] = m[__NR_execveat] = {FdEffect::kNone, PathEffect::kNeeds, ProcEffect::kExec};
  m[__NR_exit] = m[__NR_exit_group] = {FdEffect::kNone, PathEffect::kNone, ProcEffect::kExit};
  m[__NR_chdir] = {FdEffect::kNone, PathEffect::kNeeds, ProcEffect::kChdir};
  m[__NR_fchdir] = {FdEffect::kNone, PathEffect::kNone, ProcEffect::kFchdir};
  return m;
}

// (data-in fd argument, data-out fd argument) of the calls that move file data.
std::map<int, std::pair<int, int>> expected_data() {
  std::map<int, std::pair<int, int>> m;
  for (int nr : {__NR_read, __NR_pread64, __NR_readv, __NR_preadv, __NR_preadv2}) m[nr] = {0, -1};
  for (int nr : {__NR_write, __NR_pwrite64, __NR_writev, __NR_pwritev, __NR_pwritev2}) m[nr] = {-1, 0};
  m[__NR_sendfile] = {1, 0};         // sendfile(out_fd, in_fd, offset, count)
  m[__NR_copy_file_range] = {0, 2};  // copy_file_range(fd_in, off_in, fd_out, off_out, len, flags)
  m[__NR_splice] = {0, 2};           // splice(fd_in, off_in, fd_out, off_out, len, flags)
  m[__NR_tee] = {0, 1};              // tee(fd_in, fd_out, len, flags)
  return m;
}

std::map<int, Family> expected_families() {
  std::map<int, Family> m;
  for (int nr : {__NR_open, __NR_close, __NR_creat, __NR_openat, __NR_openat2}) m[nr] = Family::kOpenClose;
  for (int nr : {__NR_read, __NR_write, __NR_pread64, __NR_pwrite64, __NR_readv, __NR_writev, __NR_sendfile,
                 __NR_copy_file_range, __NR_preadv, __NR_pwritev, __NR_preadv2, __NR_pwritev2, __NR_lseek,
                 __NR_readahead, __NR_fadvise64, __NR_fsync, __NR_fdatasync, __NR_sync, __NR_syncfs,
                 __NR_sync_file_range, __NR_ftruncate, __NR_fallocate, __NR_splice, __NR_tee, __NR_vmsplice,
                 __NR_io_setup, __NR_io_destroy, __NR_io_getevents, __NR_io_submit, __NR_io_cancel, __NR_io_pgetevents,
                 __NR_io_uring_enter})
    m[nr] = Family::kDataIo;
  for (int nr : {__NR_open_by_handle_at, __NR_close_range}) m[nr] = Family::kOpenClose;
  for (int nr : {__NR_name_to_handle_at, __NR_ustat, __NR_sysfs}) m[nr] = Family::kStat;
  for (int nr : {__NR_mount, __NR_umount2, __NR_pivot_root, __NR_swapon, __NR_swapoff, __NR_acct, __NR_quotactl,
                 __NR_quotactl_fd, __NR_futimesat, __NR_move_mount, __NR_fsopen, __NR_fsconfig, __NR_fsmount,
                 __NR_fspick, __NR_open_tree, __NR_mount_setattr, __NR_open_tree_attr})
    m[nr] = Family::kNamespace;
  // Sockets, readiness, and the special fds (epoll, eventfd, signalfd, timerfd, inotify, fanotify, pidfd,
  // perf, userfaultfd, mqueue, memfd, bpf, landlock, io_uring's setup and register).
  for (int nr : {__NR_connect, __NR_sendto, __NR_recvfrom, __NR_sendmsg, __NR_recvmsg, __NR_shutdown, __NR_bind,
                 __NR_listen, __NR_getsockname, __NR_getpeername, __NR_setsockopt, __NR_getsockopt, __NR_recvmmsg,
                 __NR_sendmmsg, __NR_poll, __NR_select, __NR_pselect6, __NR_ppoll, __NR_epoll_create,
                 __NR_epoll_create1, __NR_epoll_wait, __NR_epoll_ctl, __NR_epoll_pwait, __NR_epoll_pwait2, __NR_eventfd,
                 __NR_eventfd2, __NR_signalfd, __NR_signalfd4, __NR_timerfd_create, __NR_timerfd_settime,
                 __NR_timerfd_gettime, __NR_inotify_init, __NR_inotify_init1, __NR_inotify_add_watch,
                 __NR_inotify_rm_watch, __NR_fanotify_init, __NR_fanotify_mark, __NR_perf_event_open, __NR_userfaultfd,
                 __NR_pidfd_open, __NR_pidfd_getfd, __NR_pidfd_send_signal, __NR_io_uring_setup, __NR_io_uring_register,
                 __NR_mq_open, __NR_mq_unlink, __NR_mq_timedsend, __NR_mq_timedreceive, __NR_mq_notify,
                 __NR_mq_getsetattr, __NR_memfd_create, __NR_bpf, __NR_landlock_create_ruleset, __NR_landlock_add_rule,
                 __NR_landlock_restrict_self})
    m[nr] = Family::kFdOps;
  // The caller's own memory (another process's memory, process_madvise/mrelease, is kProcess below).
  for (int nr : {__NR_brk, __NR_mremap, __NR_mincore, __NR_madvise, __NR_shmget, __NR_shmat, __NR_shmctl, __NR_shmdt,
                 __NR_mlock, __NR_munlock, __NR_mlockall, __NR_munlockall, __NR_remap_file_pages, __NR_mbind,
                 __NR_set_mempolicy, __NR_get_mempolicy, __NR_migrate_pages, __NR_move_pages, __NR_mlock2,
                 __NR_pkey_mprotect, __NR_pkey_alloc, __NR_pkey_free, __NR_memfd_secret, __NR_set_mempolicy_home_node,
                 __NR_map_shadow_stack, __NR_mseal})
    m[nr] = Family::kMemory;
  for (int nr : {__NR_stat, __NR_fstat, __NR_lstat, __NR_newfstatat, __NR_statx, __NR_access, __NR_faccessat,
                 __NR_faccessat2, __NR_readlink, __NR_readlinkat, __NR_getdents, __NR_getdents64, __NR_statfs,
                 __NR_fstatfs, __NR_cachestat, __NR_file_getattr})
    m[nr] = Family::kStat;
  for (int nr : {__NR_rename, __NR_renameat, __NR_renameat2, __NR_mkdir, __NR_mkdirat, __NR_rmdir, __NR_link,
                 __NR_linkat, __NR_unlink, __NR_unlinkat, __NR_symlink, __NR_symlinkat, __NR_mknod, __NR_mknodat,
                 __NR_chmod, __NR_fchmod, __NR_fchmodat, __NR_chown, __NR_fchown, __NR_lchown, __NR_fchownat,
                 __NR_utime, __NR_utimes, __NR_utimensat, __NR_setxattr, __NR_lsetxattr, __NR_fsetxattr,
                 __NR_removexattr, __NR_lremovexattr, __NR_fremovexattr, __NR_getxattr, __NR_lgetxattr,
                 __NR_fgetxattr, __NR_listxattr, __NR_llistxattr, __NR_flistxattr, __NR_truncate, __NR_fchmodat2,
                 __NR_setxattrat, __NR_getxattrat, __NR_listxattrat, __NR_removexattrat, __NR_file_setattr})
    m[nr] = Family::kNamespace;
  for (int nr : {__NR_dup, __NR_dup2, __NR_dup3, __NR_fcntl, __NR_flock, __NR_ioctl, __NR_pipe, __NR_pipe2,
                 __NR_socket, __NR_socketpair, __NR_accept, __NR_accept4})
    m[nr] = Family::kFdOps;
  for (int nr : {__NR_mmap, __NR_mprotect, __NR_munmap, __NR_msync}) m[nr] = Family::kMemory;
  for (int nr : {__NR_clone, __NR_clone3, __NR_fork, __NR_vfork, __NR_execve, __NR_execveat, __NR_exit,
                 __NR_exit_group, __NR_chdir, __NR_fchdir, __NR_getcwd, __NR_umask, __NR_chroot})
    m[nr] = Family::kProcess;
  return m;
}

TEST(SyscallColumns, EveryRowHasAFamilyFromTheKernelNumberList) {
  const auto families = expected_families();
  for (const SyscallInfo& s : all_syscalls()) {
    // Every number this list does not name has no file-system effect (ids, signals, time,
    // scheduling, keys, SysV semaphores and messages): the kProcess family, which replays none of them.
    auto it = families.find(s.nr);
    const Family want = it == families.end() ? Family::kProcess : it->second;
    EXPECT_EQ(static_cast<int>(s.family), static_cast<int>(want)) << s.name;
  }
  for (const auto& [nr, family] : families) EXPECT_NE(syscall_by_nr(nr), nullptr) << nr << " has no table row";
}

TEST(SyscallColumns, FdPathAndProcessEffectsMatchTheKernelNumberList) {
  const auto effects = expected_effects();
  for (const SyscallInfo& s : all_syscalls()) {
    Expected want;
    if (auto it = effects.find(s.nr); it != effects.end()) {
      want = it->second;
    } else if (s.arg_of(ArgType::kPath) >= 0) {
      want.path = PathEffect::kNeeds;  // any other path-taking call only needs its path to exist
    }
    EXPECT_EQ(static_cast<int>(s.fd), static_cast<int>(want.fd)) << s.name;
    EXPECT_EQ(static_cast<int>(s.path), static_cast<int>(want.path)) << s.name;
    EXPECT_EQ(static_cast<int>(s.proc), static_cast<int>(want.proc)) << s.name;
  }
  for (const auto& [nr, want] : effects) EXPECT_NE(syscall_by_nr(nr), nullptr) << nr;
}

TEST(SyscallColumns, DataDirectionAndSizeArgumentMatchTheKernelNumberList) {
  const auto data = expected_data();
  for (const SyscallInfo& s : all_syscalls()) {
    auto it = data.find(s.nr);
    const std::pair<int, int> want = it == data.end() ? std::pair{-1, -1} : it->second;
    EXPECT_EQ(s.data_in, want.first) << s.name;
    EXPECT_EQ(s.data_out, want.second) << s.name;
    if (s.data_in >= 0) {
      EXPECT_EQ(s.args[static_cast<size_t>(s.data_in)], ArgType::kFd) << s.name;
      EXPECT_TRUE(s.classes & kClassRead) << s.name;
    }
    if (s.data_out >= 0) {
      EXPECT_EQ(s.args[static_cast<size_t>(s.data_out)], ArgType::kFd) << s.name;
      EXPECT_TRUE(s.classes & kClassWrite) << s.name;
    }
    if (s.size_arg >= 0) {
      EXPECT_EQ(s.args[static_cast<size_t>(s.size_arg)], ArgType::kCount) << s.name;
    }
  }
  // Byte counts the man pages name, by number.
  EXPECT_EQ(syscall_by_nr(__NR_read)->size_arg, 2);
  EXPECT_EQ(syscall_by_nr(__NR_pwrite64)->size_arg, 2);
  EXPECT_EQ(syscall_by_nr(__NR_sendfile)->size_arg, 3);
  EXPECT_EQ(syscall_by_nr(__NR_copy_file_range)->size_arg, 4);
  EXPECT_EQ(syscall_by_nr(__NR_mmap)->size_arg, 1);
  EXPECT_EQ(syscall_by_nr(__NR_readv)->size_arg, -1);  // an iovec count, not bytes
  EXPECT_EQ(syscall_by_nr(__NR_splice)->size_arg, 4);
  EXPECT_EQ(syscall_by_nr(__NR_madvise)->size_arg, 1);
}

TEST(SyscallColumns, PathArgumentsSkipTheSymlinkContent) {
  const SyscallInfo* symlinkat = syscall_by_nr(__NR_symlinkat);  // symlinkat(target, newdirfd, linkpath)
  EXPECT_EQ(symlinkat->path_arg(0), 2);
  EXPECT_EQ(symlinkat->dirfd_of(2), 1);
  EXPECT_EQ(symlinkat->path_arg(1), -1);
  const SyscallInfo* renameat = syscall_by_nr(__NR_renameat);  // renameat(olddirfd, old, newdirfd, new)
  EXPECT_EQ(renameat->path_arg(0), 1);
  EXPECT_EQ(renameat->dirfd_of(1), 0);
  EXPECT_EQ(renameat->path_arg(1), 3);
  EXPECT_EQ(renameat->dirfd_of(3), 2);
  const SyscallInfo* rename = syscall_by_nr(__NR_rename);
  EXPECT_EQ(rename->dirfd_of(rename->path_arg(1)), -1);
  EXPECT_TRUE(syscall_by_nr(__NR_vfork)->creates_process());
  EXPECT_FALSE(syscall_by_nr(__NR_execve)->creates_process());
}

}  // namespace
}  // namespace rastro::trace
