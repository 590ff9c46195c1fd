/* The record the kernel side (fs_events.bpf.c) writes into the BPF ring buffer and the user side
 * (fs_loader.cpp) decodes. Shared by C (clang -target bpf) and C++: fixed-width types only, no
 * kernel or libc headers (the BPF side gets __u64 & co. from vmlinux.h, C++ from <linux/types.h>).
 *
 * One record per completed syscall (with the time the task spent off-CPU inside it):
 *   struct fs_event | str_bytes bytes of string data
 * The string data holds up to FS_MAX_STRS strings, described by strs[] in order:
 *   FS_STR_PATH    a user string (path or xattr name) read with bpf_probe_read_user_str; NUL-terminated.
 *   FS_STR_FDPATH  the path of an fd argument, as d_name components from the leaf up to "/",
 *                  each NUL-terminated (the kernel cannot prepend cheaply; user space reverses).
 */
#ifndef RASTRO_CAPTURE_EBPF_FS_EVENTS_H
#define RASTRO_CAPTURE_EBPF_FS_EVENTS_H

#define FS_MAX_ARGS 6
#define FS_MAX_STRS 6           /* 2 paths + 2 fd paths at entry, +2 paths re-read at exit */
#define FS_NR_SLOTS 512          /* syscall numbers 0..511, as trace::SyscallSet */
#define FS_STR_MAX 4096          /* PATH_MAX: the longest user string read */
#define FS_NAME_MAX 256          /* NAME_MAX + 1: one d_name component */
#define FS_STR_AREA 16384        /* string bytes per record; a power of two (verifier masking) */
#define FS_MAX_COMPONENTS 24     /* d_name components walked per fd path before giving up */

/* Per-syscall word the kernel reads (rodata `roles[nr]`): 2 bits per argument k at bit 2k saying
 * what to do with it, plus flags. Filled by user space from trace/syscalls/syscall_table.h. */
#define FS_ROLE_NONE 0
#define FS_ROLE_PATH 1           /* user string to copy (path, xattr name) */
#define FS_ROLE_FD 2             /* fd whose path to resolve (AT_FDCWD and negatives skipped) */
#define FS_ROLE_FDPAIR 3         /* int[2] written by the kernel: read at exit (pipe, socketpair) */
#define FS_ROLE_ARG(r, k) (((r) >> (2 * (k))) & 3)
#define FS_ROLE_LOCK 0x2000      /* fcntl: a lock command's struct flock is read (FS_EV_LOCK_ARGS) */
#define FS_ROLE_EXEC 0x4000      /* execve/execveat: recorded from a pending (pre-exec) task */
#define FS_ROLE_WANTED 0x8000    /* syscall selected by -e trace= */

enum fs_str_kind {
  FS_STR_PATH = 1,
  FS_STR_FDPATH = 2,
};

enum fs_event_flags {
  FS_EV_STR_TRUNCATED = 1 << 0,     /* a user string filled FS_STR_MAX or the string area */
  FS_EV_STR_UNREADABLE = 1 << 1,    /* a user string could not be read at entry nor at exit */
  FS_EV_FDPATH_TRUNCATED = 1 << 2,  /* an fd path had more than FS_MAX_COMPONENTS components */
  FS_EV_UNFINISHED = 1 << 3,        /* the task exited inside the call (exit, exit_group, killed) */
  FS_EV_FDPATH_UNKNOWN = 1 << 4,    /* an fd argument was not open in the task's file table */
  FS_EV_URING = 1 << 5,             /* an io_uring request, not a syscall (see struct fs_event) */
  FS_EV_FAULT = 1 << 6,             /* a page fault on a file-backed mapping (FS_FAULT_* below) */
  FS_EV_FAULT_SAME_FILE = 1 << 7,   /* FS_EV_FAULT: no string, the file of this tid's previous
                                     * fault record that carried one */
  FS_EV_LOCK_ARGS = 1 << 8,         /* fcntl lock command: args[2..5] hold the struct flock's
                                     * l_type, l_whence, l_start, l_len instead of its address */
};

enum fs_task_state {
  FS_TASK_NONE = 0,
  FS_TASK_PENDING = 1,  /* added by the launcher before exec: the fork-exec glue is not recorded */
  FS_TASK_ACTIVE = 2,   /* recorded; set by sched_process_exec or inherited on fork */
};

/* Loss reasons counted per CPU in the kernel and read back into the trace header. */
enum fs_drop_reason {
  FS_DROP_RINGBUF_FULL = 0,  /* bpf_ringbuf_output failed: the consumer fell behind */
  FS_DROP_UNTRACKED_TASK = 1,  /* a traced task's child got no state (allocation failed) */
  FS_DROP_URING_UNTRACKED = 2,  /* an io_uring request found its in-flight table full: not recorded */
  FS_DROP_FAULT_UNRESOLVED = 3,  /* a traced page fault whose mapping could not be looked up */
  FS_COUNT_FAULT_DEFERRED = 4,  /* not a loss: a fault looked up later (the mm was busy) */
  FS_COUNT_URING_PATHLESS = 5,  /* an io_uring request recorded without its paths (their table was full) */
  FS_DROP_NR_REASONS = 6,
};

struct fs_str_desc {
  __u8 arg;   /* argument index the string belongs to */
  __u8 kind;  /* enum fs_str_kind */
  __u16 len;  /* bytes in the string data, NULs included */
};

struct fs_event {
  __u64 begin_ns;  /* bpf_ktime_get_ns() = CLOCK_MONOTONIC at sys_enter */
  __u64 end_ns;    /* ... at sys_exit (or at task exit when FS_EV_UNFINISHED) */
  __s64 ret;       /* return value, -errno on failure */
  __u64 args[FS_MAX_ARGS];
  __u32 pid;       /* thread-group id */
  __u32 tid;
  __s32 nr;
  __u16 flags;     /* enum fs_event_flags */
  __u8 nstrs;
  __u8 pending;    /* bit k: string k still to be read at exit (kernel-internal) */
  struct fs_str_desc strs[FS_MAX_STRS];
  __u32 str_bytes;
  __u8 fd_same;         /* bit k: fd argument k is the file this tid's cache slot names (slot:
                         * FS_SLOT_CWD when the argument is AT_FDCWD, else FS_SLOT_FD); no string */
  __u8 fd_cached_mask;  /* bit k: the FS_STR_FDPATH string of argument k is now cached in its
                         * slot for this tid (user space must remember it) */
  __u16 uring_opcode;   /* FS_EV_URING: the request's IORING_OP_* */
  /* Scheduling while in the call (sched_switch): */
  __u32 vol_switches;    /* switched out blocked (it gave up the CPU) */
  __u32 invol_switches;  /* switched out runnable (preempted) */
  __u64 offcpu_ns;       /* time between each switch-out and the following switch-in */
  /* FS_EV_URING: nr is the equivalent syscall (pread64 for IORING_OP_READ, ...; -1 when none),
   * args are laid out as that syscall's, begin_ns = submission, end_ns = completion, ret = the
   * CQE's res, pid/tid = the submitting task. */
  __u64 uring_user_data;
  __u64 uring_enter_ns;  /* begin_ns of the submitting io_uring_enter of the same tid, 0: none */
  /* Syscalls: the thread's off-CPU time between its previous recorded call's exit and this call's
   * entry (preempted, or blocked in calls not recorded); 0 for io_uring requests and faults. */
  __u64 gap_offcpu_ns;
};
#define FS_NR_IO_URING_ENTER 426

/* FS_EV_FAULT records: args[0] = the address (faulting address, or the first page of a
 * fault-around range), args[1] = file offset of the first page, args[2] = bytes, args[3] = the
 * FS_FAULT_* bits (the values of trace/model/page_fault.h's FaultHow), the file's path as an
 * FS_STR_FDPATH string of argument 0 (unless FS_EV_FAULT_SAME_FILE). nr = -1, ret = 0,
 * begin_ns = end_ns = when the fault entered the kernel (no tracepoint marks its end). */
#define FS_FAULT_WRITE 1
#define FS_FAULT_EXEC 2
#define FS_FAULT_PRESENT 4
#define FS_FAULT_SHARED 8
#define FS_FAULT_AROUND 16
#define FS_FAULT_PENDING_MAX 16  /* faults queued per thread while the mm is busy (a power of two) */
#define FS_NR_MMAP 9                /* faults are recorded when mmap is selected (-e trace=) */
#define FS_AT_FDCWD (-100)
#define FS_SLOT_CWD 0
#define FS_SLOT_FD 1

#endif /* RASTRO_CAPTURE_EBPF_FS_EVENTS_H */
