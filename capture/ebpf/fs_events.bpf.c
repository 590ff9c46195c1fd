// SPDX-License-Identifier: GPL-2.0
/* Kernel side of the eBPF capture backend (bcc libbpf-tools layout: this file, fs_events.h,
 * fs_loader.cpp). One record per completed syscall of the traced task tree.
 *
 * Hooks: tp_btf/sys_enter + tp_btf/sys_exit (the cheapest syscall hooks this kernel allows:
 * fentry and kprobes are unavailable, PLATFORM.md), sched_process_fork/exec/exit for the task tree,
 * sched_switch for the time each call spends off-CPU and its voluntary/involuntary switches,
 * io_uring_submit_req/io_uring_complete for io_uring requests (below).
 *
 * Per-task state lives in BPF task-local storage rather than a hash keyed by tid: the lookup is a
 * pointer walk from the task (no hashing, no copy of the value through the 512-byte stack), the
 * entry is freed with the task, and "is this task traced?" is the same lookup, so an untraced
 * task pays one lookup per syscall. The in-flight record is built in place in that storage at
 * sys_enter and copied once into the ring buffer at sys_exit (bpf_ringbuf_output with the exact
 * size, so short records do not waste ring space).
 *
 * fd -> path: resolved here by walking task->files->fdt->fd[fd]->f_path up the d_parent chain
 * and across mount points (bpf_d_path is unavailable). We chose the kernel walk over tracking
 * opens in user space because user-space tracking is wrong whenever anything is missed: fds
 * inherited across exec, syscalls outside the selected set (-e trace=write), dup2/fcntl/
 * close_range/SCM_RIGHTS, O_CLOEXEC at exec, or a dropped record. The walk reads the truth at the
 * time of the call, like `strace -y`. It records up to FS_MAX_COMPONENTS components (leaf
 * first) and flags truncation.
 *
 * AT_FDCWD resolves to the working directory (task->fs->pwd), as strace -y prints it.
 *
 * The walk costs ~20 kernel reads (~0.75 us per call here), so each task caches the identity of
 * the last file it resolved (fd, struct file *, dentry, its parent, the leaf name's hash_len),
 * in two slots: the working directory (AT_FDCWD) and real fds, so open/read/close patterns do
 * not evict the cwd.
 * When the next fd argument matches all five, no walk and no string: the record says "same as
 * this tid's cached path" (fd_same) and user space reuses the path it already decoded. The cache
 * is committed only after the record carrying the path entered the ring, and per-tid records
 * reach user space in order, so a dropped record cannot leave user space without the path.
 * A rename of the file itself changes its parent or hash_len and forces a new walk; a rename of
 * an ancestor directory while the file stays open is not seen until the cache entry changes.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "capture/ebpf/fs_events.h"

char LICENSE[] SEC("license") = "GPL";

/* Filters, set through skel->rodata before load. */
const volatile __u16 roles[FS_NR_SLOTS] = {};
const volatile __u64 wakeup_bytes = 1 << 20;  /* pending bytes that justify waking the consumer */

/* Live traced tasks (user space stops when the workload is reaped and this reaches 0). */
__s64 live_tasks = 0;

/* Identity of a resolved fd (see the header comment). */
struct fd_key {
  __u64 file, dentry, parent, hash_len;
  __s64 fd;
};

extern void *bpf_rdonly_cast(void *obj, __u32 btf_id) __ksym;

struct fs_task {
  __u32 state;     /* enum fs_task_state */
  __u32 inflight;  /* ev holds a syscall entered but not yet exited */
  struct fd_key cached[2];     /* user space holds these paths for this tid (FS_SLOT_*) */
  struct fd_key candidate[2];  /* resolved by the in-flight call; cached once its record is out */
  __u32 candidate_mask;        /* bit slot: candidate[slot] is valid */
  __u32 fault_pending;         /* fault_tasks holds a fault still to be looked up */
  __u64 off_since;             /* switched out at this time (in a call or between calls), else 0 */
  __u64 gap_offcpu_ns;         /* off-CPU since the last recorded call's exit: the next call's gap */
  struct fs_event ev;
  char area[FS_STR_AREA + FS_STR_MAX];  /* string data; follows ev directly (emitted together) */
};

struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct fs_task);
} tasks SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 1 << 24);  /* resized from --buffer before load */
} events SEC(".maps");

/* Per-CPU loss counters (bpftrace counts failed ringbuf outputs the same way). */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, FS_DROP_NR_REASONS);
  __type(key, __u32);
  __type(value, __u64);
} drops SEC(".maps");

static __always_inline void count_drops(__u32 reason, __u64 k)
{
  __u64 *n = bpf_map_lookup_elem(&drops, &reason);
  if (n) *n += k;  /* per-CPU slot: no atomic needed */
}

static __always_inline void count_drop(__u32 reason)
{
  count_drops(reason, 1);
}

static __always_inline void add_str(struct fs_event *e, int arg, int kind, __u32 len)
{
  __u8 i = e->nstrs;
  if (i >= FS_MAX_STRS) return;
  e->strs[i].arg = arg;
  e->strs[i].kind = kind;
  e->strs[i].len = len;
  e->nstrs = i + 1;
}

/* Copies the user string of argument k; on failure (page not resident yet) marks it pending so
 * the exit handler re-reads it once the kernel has faulted the page in. */
static __noinline int read_user_path(struct fs_task *t, int k, __u64 uptr, int at_exit)
{
  struct fs_event *e = &t->ev;
  __u32 off = e->str_bytes;
  long n;

  if (!uptr) return 0;  /* NULL path (utimensat on an fd): no string */
  if (off >= FS_STR_AREA) {
    e->flags |= FS_EV_STR_TRUNCATED;
    return 0;
  }
  n = bpf_probe_read_user_str(&t->area[off & (FS_STR_AREA - 1)], FS_STR_MAX, (const void *)uptr);
  if (n <= 0) {
    if (at_exit)
      e->flags |= FS_EV_STR_UNREADABLE;
    else
      e->pending |= 1 << k;
    return 0;
  }
  if (n >= FS_STR_MAX) e->flags |= FS_EV_STR_TRUNCATED;
  e->str_bytes = off + n;
  add_str(e, k, FS_STR_PATH, n);
  return 0;
}

/* State of one fd-path walk, shared with the bpf_loop callback. bpf_loop rather than a bounded
 * for loop: the verifier explores an open-coded loop once per iteration and per branch
 * (component or mount crossing), which exceeded the 1M-instruction limit; a callback is verified
 * once. */
struct walk_ctx {
  struct fs_task *t;
  struct dentry *d;
  struct vfsmount *vm;
  struct mount *mnt;
  __u32 off;
  __u32 ncomp;
  __u32 done;
};

static long walk_step(__u32 index, void *data)
{
  /* Locals, not w->field, inside BPF_CORE_READ: the macro's preserve_access_index would
   * otherwise emit a CO-RE relocation against our own struct walk_ctx. */
  struct walk_ctx *w = data;
  struct fs_task *t = w->t;
  struct dentry *d = w->d;
  struct vfsmount *vm = w->vm;
  struct mount *mnt = w->mnt;
  struct dentry *parent = BPF_CORE_READ(d, d_parent);
  __u32 off = w->off;
  long n;

  if (d == BPF_CORE_READ(vm, mnt_root) || d == parent) {
    struct mount *up = BPF_CORE_READ(mnt, mnt_parent);
    if (up == mnt || !up) {  /* the root of the mount tree */
      w->done = 1;
      return 1;
    }
    w->d = BPF_CORE_READ(mnt, mnt_mountpoint);
    w->mnt = up;
    w->vm = &up->mnt;
    return 0;
  }
  if (off >= FS_STR_AREA) {
    t->ev.flags |= FS_EV_STR_TRUNCATED;
    w->done = 1;
    return 1;
  }
  n = bpf_probe_read_kernel_str(&t->area[off & (FS_STR_AREA - 1)], FS_NAME_MAX,
                                BPF_CORE_READ(d, d_name.name));
  if (n <= 0) {
    w->done = 1;
    return 1;
  }
  w->off = off + n;
  w->ncomp++;
  w->d = parent;
  return 0;
}

/* Resolves fd to its path: d_name components from the leaf up, crossing mounts like d_path. */
static __noinline int read_fd_path(struct fs_task *t, int k, int fd)
{
  struct fs_event *e = &t->ev;
  struct task_struct *task = bpf_get_current_task_btf();
  struct fdtable *fdt;
  struct file **fda;
  struct file *f = NULL, *ft;
  struct fs_struct *fs = NULL;
  struct dentry *dn, *dt;
  struct fd_key key = {};
  struct fd_key *cached;
  struct vfsmount *vm;
  struct walk_ctx w = {};
  __u32 start = e->str_bytes;
  int slot;

  if (fd == FS_AT_FDCWD) {
    /* The *at calls' AT_FDCWD names the working directory: resolve it like strace -y does. */
    fs = BPF_CORE_READ(task, fs);
    slot = FS_SLOT_CWD;
    dn = BPF_CORE_READ(fs, pwd.dentry);
    key.file = 1;  /* "the cwd": never a struct file address */
  } else {
    if (fd < 0) return 0;  /* an invalid fd: nothing to resolve */
    slot = FS_SLOT_FD;
    /* Direct BTF loads (fault-safe, no helper call) down to the fd array. */
    fdt = task->files->fdt;
    if (!fdt || (unsigned int)fd >= fdt->max_fds) goto unknown;
    fda = fdt->fd;
    if (bpf_probe_read_kernel(&f, sizeof(f), &fda[fd]) || !f) goto unknown;
    ft = bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file));
    dn = ft->f_path.dentry;  /* direct load: this is the hot path of every fd argument */
    key.file = (__u64)f;
  }
  if (!dn) goto unknown;
  /* Identity of the file, with direct (fault-safe) BTF loads: far cheaper than helper reads. */
  dt = bpf_rdonly_cast(dn, bpf_core_type_id_kernel(struct dentry));
  key.fd = fd;
  key.dentry = (__u64)dn;
  key.parent = (__u64)dt->d_parent;
  key.hash_len = dt->d_name.hash_len;
  cached = slot == FS_SLOT_CWD ? &t->cached[FS_SLOT_CWD] : &t->cached[FS_SLOT_FD];
  if (key.file == cached->file && key.dentry == cached->dentry && key.parent == cached->parent &&
      key.hash_len == cached->hash_len && key.fd == cached->fd) {
    e->fd_same |= 1 << k;
    return 0;
  }
  /* Cache miss: the mount is only needed for the walk. */
  if (slot == FS_SLOT_CWD)
    vm = BPF_CORE_READ(fs, pwd.mnt);
  else
    vm = BPF_CORE_READ(f, f_path.mnt);
  w.t = t;
  w.d = dn;
  w.vm = vm;
  w.mnt = container_of(vm, struct mount, mnt);
  w.off = start;
  bpf_loop(FS_MAX_COMPONENTS, walk_step, &w, 0);
  if (!w.done) e->flags |= FS_EV_FDPATH_TRUNCATED;
  /* No component and a d_dname operation: a pseudo file (pipe, socket, anon inode) with no
   * path in the tree; strace shows "pipe:[ino]". Report it as unknown rather than "/". */
  if (w.ncomp == 0) {
    struct dentry *last = w.d;
    if (BPF_CORE_READ(last, d_op, d_dname)) goto unknown;
  }
  e->str_bytes = w.off;
  add_str(e, k, FS_STR_FDPATH, w.off - start);
  if (w.done && !(t->candidate_mask & (1 << slot))) {  /* a complete path: worth caching */
    e->fd_cached_mask |= 1 << k;
    t->candidate_mask |= 1 << slot;
    if (slot == FS_SLOT_CWD)
      t->candidate[FS_SLOT_CWD] = key;
    else
      t->candidate[FS_SLOT_FD] = key;
  }
  return 0;
unknown:
  e->flags |= FS_EV_FDPATH_UNKNOWN;
  return 0;
}

/* The path of a struct file the kernel holds (an io_uring request's file, fixed or not): the same
 * walk as read_fd_path, without the per-tid cache (the record is not a call of that tid). */
static __noinline int read_file_path(struct fs_task *t, int k, struct file *f)
{
  struct fs_event *e = &t->ev;
  struct walk_ctx w = {};
  struct vfsmount *vm;
  __u32 start = e->str_bytes;

  if (!f) return 0;
  vm = BPF_CORE_READ(f, f_path.mnt);
  w.t = t;
  w.d = BPF_CORE_READ(f, f_path.dentry);
  w.vm = vm;
  w.mnt = container_of(vm, struct mount, mnt);
  w.off = start;
  if (!w.d) return 0;
  bpf_loop(FS_MAX_COMPONENTS, walk_step, &w, 0);
  if (!w.done) e->flags |= FS_EV_FDPATH_TRUNCATED;
  if (w.ncomp == 0) {
    struct dentry *last = w.d;
    if (BPF_CORE_READ(last, d_op, d_dname)) {
      e->flags |= FS_EV_FDPATH_UNKNOWN;
      return 0;
    }
  }
  e->str_bytes = w.off;
  add_str(e, k, FS_STR_FDPATH, w.off - start);
  return 0;
}

/* struct flock as x86_64 user space passes it to fcntl (uapi asm-generic/fcntl.h). */
struct fs_user_flock {
  __s16 l_type;
  __s16 l_whence;
  __s64 l_start;
  __s64 l_len;
  __s32 l_pid;
};

/* F_GETLK 5, F_SETLK 6, F_SETLKW 7, F_OFD_GETLK 36, F_OFD_SETLK 37, F_OFD_SETLKW 38. */
static __always_inline int is_lock_cmd(__s32 cmd)
{
  return (cmd >= 5 && cmd <= 7) || (cmd >= 36 && cmd <= 38);
}

/* An fcntl lock command (FS_ROLE_LOCK): the struct flock's fields replace its address in
 * args[2..5] (FS_EV_LOCK_ARGS). Read at entry, because F_GETLK writes its answer over the request;
 * a struct not yet readable (page not resident) is read again at exit, except F_GETLK's. */
static __noinline int read_flock(struct fs_task *t, int at_exit)
{
  struct fs_event *e = &t->ev;
  struct fs_user_flock fl = {};
  __s32 cmd = (__s32)e->args[1];

  if (!is_lock_cmd(cmd) || (e->flags & FS_EV_LOCK_ARGS)) return 0;
  if (at_exit && (cmd == 5 || cmd == 36)) return 0;
  if (bpf_probe_read_user(&fl, sizeof(fl), (const void *)e->args[2])) return 0;
  e->args[2] = (__u64)(__s64)fl.l_type;
  e->args[3] = (__u64)(__s64)fl.l_whence;
  e->args[4] = (__u64)fl.l_start;
  e->args[5] = (__u64)fl.l_len;
  e->flags |= FS_EV_LOCK_ARGS;
  return 0;
}

static __always_inline void read_arg(struct fs_task *t, __u16 r, int k)
{
  int role = FS_ROLE_ARG(r, k);
  if (role == FS_ROLE_PATH)
    read_user_path(t, k, t->ev.args[k], 0);
  else if (role == FS_ROLE_FD)
    read_fd_path(t, k, (int)t->ev.args[k]);
}

static __always_inline int emit(struct fs_task *t)
{
  __u64 size = sizeof(struct fs_event) + t->ev.str_bytes;
  __u64 avail, flags;

  if (size > sizeof(struct fs_event) + FS_STR_AREA + FS_STR_MAX)
    size = sizeof(struct fs_event) + FS_STR_AREA + FS_STR_MAX;
  /* Batched wake-ups: waking the consumer per record costs 2-3 us here (PLATFORM.md), so below
   * wakeup_bytes pending nobody is woken (the consumer's poll timer drains). At or above it every
   * record wakes the consumer: that costs the producer an irq_work self-IPI per record (3 % of a
   * traced loop's time in perf), and is kept on purpose — it is the only backpressure a lagging
   * consumer gets. Waking only when a multiple of wakeup_bytes is crossed let an endless
   * workload outrun an ASan-built consumer and lose 311,198 events (docs/performance.md). */
  avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
  flags = avail >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
  if (bpf_ringbuf_output(&events, &t->ev, size, flags)) {
    count_drop(FS_DROP_RINGBUF_FULL);
    return -1;
  }
  return 0;
}

/* Defined with the page faults below. */
static __always_inline void note_mmap_file(struct task_struct *task, struct fs_task *t);
static __always_inline void drain_pending_faults_between_faults(struct task_struct *task, struct fs_task *t,
                                                                int last_chance);

SEC("tp_btf/sys_enter")
int BPF_PROG(fs_sys_enter, struct pt_regs *regs, long id)
{
  struct task_struct *task = bpf_get_current_task_btf();
  struct fs_task *t = bpf_task_storage_get(&tasks, task, 0, 0);
  struct fs_event *e;
  __u64 pid_tgid;
  __u16 r;

  if (!t) return 0;  /* not traced: the common case for the rest of the system */
  if (t->fault_pending) drain_pending_faults_between_faults(task, t, 0);
  if (id < 0 || id >= FS_NR_SLOTS) return 0;
  r = roles[id];
  if (!(r & FS_ROLE_WANTED)) return 0;
  if (t->state != FS_TASK_ACTIVE && !(t->state == FS_TASK_PENDING && (r & FS_ROLE_EXEC)))
    return 0;

  e = &t->ev;
  pid_tgid = bpf_get_current_pid_tgid();
  e->pid = pid_tgid >> 32;
  e->tid = (__u32)pid_tgid;
  e->nr = id;
  e->args[0] = regs->di;
  e->args[1] = regs->si;
  e->args[2] = regs->dx;
  e->args[3] = regs->r10;  /* the syscall ABI passes arg 4 in r10, not rcx */
  e->args[4] = regs->r8;
  e->args[5] = regs->r9;
  e->flags = 0;
  e->nstrs = 0;
  e->pending = 0;
  e->str_bytes = 0;
  e->fd_same = 0;
  e->fd_cached_mask = 0;
  e->vol_switches = 0;
  e->invol_switches = 0;
  e->offcpu_ns = 0;
  e->uring_opcode = 0;
  e->uring_user_data = 0;
  e->uring_enter_ns = 0;
  e->gap_offcpu_ns = t->gap_offcpu_ns;
  t->gap_offcpu_ns = 0;
  t->off_since = 0;
  t->candidate_mask = 0;
  if (r & 0x0fff) {
    read_arg(t, r, 0);
    read_arg(t, r, 1);
    read_arg(t, r, 2);
    read_arg(t, r, 3);
    read_arg(t, r, 4);
  }
  if (r & FS_ROLE_LOCK) read_flock(t, 0);
  t->inflight = 1;
  e->begin_ns = bpf_ktime_get_ns();  /* last: the hook's own work is not the call's duration */
  return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(fs_sys_exit, struct pt_regs *regs, long ret)
{
  __u64 now = bpf_ktime_get_ns();  /* first: see begin_ns */
  struct fs_task *t = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0, 0);
  struct fs_event *e;
  __u64 pid_tgid;
  __u16 r;
  int k;

  if (!t || !t->inflight) return 0;
  t->inflight = 0;
  if (t->state != FS_TASK_ACTIVE) return 0;  /* a failed exec attempt of the launcher */
  e = &t->ev;
  e->end_ns = now;
  e->ret = ret;
  r = roles[e->nr & (FS_NR_SLOTS - 1)];
  if (r & FS_ROLE_EXEC) {
    /* Re-read: a non-leader thread's execve makes it the leader (its tid becomes the tgid). */
    pid_tgid = bpf_get_current_pid_tgid();
    e->pid = pid_tgid >> 32;
    e->tid = (__u32)pid_tgid;
  }
  if (e->pending) {
    for (k = 0; k < 5; k++)
      if (e->pending & (1 << k)) read_user_path(t, k, e->args[k], 1);
  }
  if (r & FS_ROLE_LOCK) read_flock(t, 1);
  if (ret >= 0 && (r & 0x0fff)) {
    for (k = 0; k < 4; k++) {
      if (FS_ROLE_ARG(r, k) == FS_ROLE_FDPAIR) {
        int fds[2] = {-1, -1};
        if (bpf_probe_read_user(fds, sizeof(fds), (const void *)e->args[k]) == 0)
          e->args[k] = (__u32)fds[0] | ((__u64)(__u32)fds[1] << 32);
        else
          e->args[k] = (__u64)-1;
      }
    }
  }
  if (e->nr == FS_NR_MMAP) note_mmap_file(bpf_get_current_task_btf(), t);
  if (emit(t) == 0 && t->candidate_mask) {
    if (t->candidate_mask & (1 << FS_SLOT_CWD)) t->cached[FS_SLOT_CWD] = t->candidate[FS_SLOT_CWD];
    if (t->candidate_mask & (1 << FS_SLOT_FD)) t->cached[FS_SLOT_FD] = t->candidate[FS_SLOT_FD];
  }
  return 0;
}

/* Off-CPU time and context switches of the in-flight call; between calls, the off-CPU time of the
 * gap (preempted, or blocked in a call the capture does not record), which the next call carries.
 * Voluntary exactly as the kernel counts nvcsw (__schedule: not a preemption and the task left
 * TASK_RUNNING), so the sums agree with /proc/TID/status. Runs on every switch of the machine:
 * untraced tasks cost two storage lookups and nothing else. */
SEC("tp_btf/sched_switch")
int BPF_PROG(fs_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
             unsigned int prev_state)
{
  __u64 now = bpf_ktime_get_ns();
  struct fs_task *t = bpf_task_storage_get(&tasks, prev, 0, 0);

  if (t) {
    t->off_since = now;
    if (t->inflight) {
      if (!preempt && prev_state != 0 /* TASK_RUNNING */)
        t->ev.vol_switches++;
      else
        t->ev.invol_switches++;
    }
  }
  t = bpf_task_storage_get(&tasks, next, 0, 0);
  if (t && t->off_since) {
    if (t->inflight)
      t->ev.offcpu_ns += now - t->off_since;
    else
      t->gap_offcpu_ns += now - t->off_since;
    t->off_since = 0;
  }
  return 0;
}

/* ---- io_uring requests -------------------------------------------------------------------------
 * A request never enters a syscall of its own: io_uring_enter (or the SQPOLL thread) submits it
 * and it completes later, possibly on a kernel worker. io_uring_submit_req runs in the submitting
 * task after the request's prep, so its fd, offset, length and user_data are known there; the
 * request is kept in a hash by its address until io_uring_complete gives its result. The record
 * is built in a per-CPU scratch fs_task (a completion may run in another task's context) with the
 * path of the request's struct file: fixed files are resolved too. */
#define URING_MAX_INFLIGHT 65536

struct uring_req {
  __u64 begin_ns;
  __u64 enter_ns;
  __u64 user_data;
  __u64 args[5];
  __u32 pid;
  __u32 tid;
  __s32 nr;
  __u16 opcode;
  __u8 has_paths;  /* its path strings wait in uring_paths */
  __u8 pad;
};

/* The path strings of a request that names files (openat, statx, unlinkat, renameat, ...). The
 * kernel frees its copy (struct filename) before the completion, so they are read at submission
 * and kept here until then: fewer entries than uring_reqs, each 8 KiB. */
#define URING_MAX_PATH_INFLIGHT 1024

struct uring_paths {
  __u8 arg[2];  /* the equivalent call's argument each string belongs to */
  __u8 n;       /* strings held */
  __u8 pad[5];
  char s[2][FS_STR_MAX];
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, URING_MAX_PATH_INFLIGHT);
  __type(key, __u64);
  __type(value, struct uring_paths);
} uring_path_reqs SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct uring_paths);
} uring_path_scratch SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, URING_MAX_INFLIGHT);
  __type(key, __u64);
  __type(value, struct uring_req);
} uring_reqs SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct fs_task);
} uring_scratch SEC(".maps");

/* The syscall an opcode does the work of (x86_64 numbers), -1 when none. */
static __always_inline int uring_equivalent(__u8 op)
{
  switch (op) {
    case IORING_OP_READ: case IORING_OP_READ_FIXED: return 17;     /* pread64 */
    case IORING_OP_WRITE: case IORING_OP_WRITE_FIXED: return 18;   /* pwrite64 */
    case IORING_OP_READV: case IORING_OP_READV_FIXED: return 295;  /* preadv */
    case IORING_OP_WRITEV: case IORING_OP_WRITEV_FIXED: return 296; /* pwritev */
    case IORING_OP_FSYNC: return 74;                               /* fsync */
    case IORING_OP_SYNC_FILE_RANGE: return 277;                    /* sync_file_range */
    case IORING_OP_FALLOCATE: return 285;                          /* fallocate */
    case IORING_OP_FADVISE: return 221;                            /* fadvise64 */
    case IORING_OP_CLOSE: return 3;                                /* close */
    case IORING_OP_FTRUNCATE: return 77;                           /* ftruncate */
    case IORING_OP_OPENAT: case IORING_OP_OPENAT2: return 257;     /* openat (openat2's resolve flags dropped) */
    case IORING_OP_STATX: return 332;                              /* statx */
    case IORING_OP_UNLINKAT: return 263;                           /* unlinkat */
    case IORING_OP_RENAMEAT: return 316;                           /* renameat2 */
    case IORING_OP_MKDIRAT: return 258;                            /* mkdirat */
    case IORING_OP_SYMLINKAT: return 266;                          /* symlinkat */
    case IORING_OP_LINKAT: return 265;                             /* linkat */
    default: return -1;
  }
}

/* Keeps string fn (a struct filename the request holds) as the equivalent call's argument arg;
 * its user-space address is the argument's value, as in the syscall. */
static __always_inline __u64 keep_uring_path(struct uring_paths *p, struct filename *fn, int arg)
{
  __u8 i = p->n;
  long n;

  if (!fn || i >= 2) return 0;
  n = bpf_probe_read_kernel_str(p->s[i & 1], FS_STR_MAX, BPF_CORE_READ(fn, name));
  if (n > 0) {
    p->arg[i & 1] = arg;
    p->n = i + 1;
  }
  return (__u64)BPF_CORE_READ(fn, uptr);
}

/* Moves the kept strings of a request into its record, as read_user_path does for a syscall's. */
static __always_inline void add_uring_paths(struct fs_task *s, struct uring_paths *p)
{
  struct fs_event *e = &s->ev;
  __u32 off;
  long n;
  int i;

  for (i = 0; i < 2; i++) {
    if (i >= p->n) break;
    off = e->str_bytes;
    if (off >= FS_STR_AREA) {
      e->flags |= FS_EV_STR_TRUNCATED;
      break;
    }
    n = bpf_probe_read_kernel_str(&s->area[off & (FS_STR_AREA - 1)], FS_STR_MAX, p->s[i]);
    if (n <= 0) {
      e->flags |= FS_EV_STR_UNREADABLE;
      continue;
    }
    if (n >= FS_STR_MAX) e->flags |= FS_EV_STR_TRUNCATED;
    e->str_bytes = off + n;
    add_str(e, p->arg[i], FS_STR_PATH, n);
  }
}

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(fs_uring_submit, struct io_kiocb *req)
{
  struct task_struct *task = bpf_get_current_task_btf();
  struct fs_task *t = bpf_task_storage_get(&tasks, task, 0, 0);
  struct uring_req r = {};
  struct uring_paths *paths = NULL;
  __u64 key = (__u64)req;
  __u64 pid_tgid;
  __u32 zero = 0;
  void *cmd;
  __u8 op;

  /* An SQPOLL ring's requests are submitted by its kernel thread (an io thread of the ring's
   * process, which no fork tracepoint announced): traced when that process is. */
  int sq_thread = !t && (task->flags & 0x10 /* PF_IO_WORKER */);

  if (sq_thread) t = bpf_task_storage_get(&tasks, task->group_leader, 0, 0);
  if (!t || t->state != FS_TASK_ACTIVE) return 0;
  op = BPF_CORE_READ(req, opcode);
  r.nr = uring_equivalent(op);
  /* Recorded when the equivalent syscall is selected, or, for the others, io_uring_enter. */
  if (!(roles[(r.nr >= 0 ? r.nr : FS_NR_IO_URING_ENTER) & (FS_NR_SLOTS - 1)] & FS_ROLE_WANTED)) return 0;
  r.opcode = op;
  r.user_data = BPF_CORE_READ(req, cqe.user_data);
  r.args[0] = (__u64)(__s64)BPF_CORE_READ(req, cqe.fd);
  cmd = &req->cmd;
  switch (op) {
    case IORING_OP_READ: case IORING_OP_WRITE: case IORING_OP_READ_FIXED: case IORING_OP_WRITE_FIXED:
    case IORING_OP_READV: case IORING_OP_WRITEV: {
      struct io_rw *rw = cmd;  /* (fd, buf or iovec, length or iovec count, offset) */
      r.args[1] = BPF_CORE_READ(rw, addr);
      r.args[2] = BPF_CORE_READ(rw, len);
      r.args[3] = BPF_CORE_READ(rw, kiocb.ki_pos);
      break;
    }
    case IORING_OP_FALLOCATE: {  /* fallocate(fd, mode, offset, len) */
      struct io_sync *s = cmd;
      r.args[1] = BPF_CORE_READ(s, mode);
      r.args[2] = BPF_CORE_READ(s, off);
      r.args[3] = BPF_CORE_READ(s, len);
      break;
    }
    case IORING_OP_SYNC_FILE_RANGE: {  /* sync_file_range(fd, offset, nbytes, flags) */
      struct io_sync *s = cmd;
      r.args[1] = BPF_CORE_READ(s, off);
      r.args[2] = BPF_CORE_READ(s, len);
      r.args[3] = BPF_CORE_READ(s, flags);
      break;
    }
    case IORING_OP_FADVISE: {  /* fadvise64(fd, offset, len, advice) */
      struct io_fadvise *a = cmd;
      r.args[1] = BPF_CORE_READ(a, offset);
      r.args[2] = BPF_CORE_READ(a, len);
      r.args[3] = BPF_CORE_READ(a, advice);
      break;
    }
    case IORING_OP_CLOSE: {
      struct io_close *c = cmd;
      r.args[0] = (__u64)(__s64)BPF_CORE_READ(c, fd);
      break;
    }
    case IORING_OP_FTRUNCATE: {  /* ftruncate(fd, length) */
      struct io_ftrunc *f = cmd;
      r.args[1] = BPF_CORE_READ(f, len);
      break;
    }
    case IORING_OP_OPENAT: case IORING_OP_OPENAT2: case IORING_OP_STATX: case IORING_OP_UNLINKAT:
    case IORING_OP_RENAMEAT: case IORING_OP_MKDIRAT: case IORING_OP_SYMLINKAT: case IORING_OP_LINKAT:
      paths = bpf_map_lookup_elem(&uring_path_scratch, &zero);
      if (!paths) break;
      paths->n = 0;
      switch (op) {
        case IORING_OP_OPENAT: case IORING_OP_OPENAT2: {  /* openat(dfd, path, flags, mode) */
          struct io_open *o = cmd;
          r.args[0] = (__u64)(__s64)BPF_CORE_READ(o, dfd);
          r.args[1] = keep_uring_path(paths, BPF_CORE_READ(o, filename), 1);
          r.args[2] = BPF_CORE_READ(o, how.flags);
          r.args[3] = BPF_CORE_READ(o, how.mode);
          /* Opened into a fixed-file slot: the result is not an fd of the process. */
          if (BPF_CORE_READ(o, file_slot)) r.nr = -1;
          break;
        }
        case IORING_OP_STATX: {  /* statx(dfd, path, flags, mask, buffer) */
          struct io_statx *x = cmd;
          r.args[0] = (__u64)(__s64)BPF_CORE_READ(x, dfd);
          r.args[1] = keep_uring_path(paths, BPF_CORE_READ(x, filename), 1);
          r.args[2] = BPF_CORE_READ(x, flags);
          r.args[3] = BPF_CORE_READ(x, mask);
          r.args[4] = (__u64)BPF_CORE_READ(x, buffer);
          break;
        }
        case IORING_OP_UNLINKAT: {  /* unlinkat(dfd, path, flags) */
          struct io_unlink *u = cmd;
          r.args[0] = (__u64)(__s64)BPF_CORE_READ(u, dfd);
          r.args[1] = keep_uring_path(paths, BPF_CORE_READ(u, filename), 1);
          r.args[2] = BPF_CORE_READ(u, flags);
          break;
        }
        case IORING_OP_MKDIRAT: {  /* mkdirat(dfd, path, mode) */
          struct io_mkdir *m = cmd;
          r.args[0] = (__u64)(__s64)BPF_CORE_READ(m, dfd);
          r.args[1] = keep_uring_path(paths, BPF_CORE_READ(m, filename), 1);
          r.args[2] = BPF_CORE_READ(m, mode);
          break;
        }
        case IORING_OP_RENAMEAT: {  /* renameat2(olddfd, old, newdfd, new, flags) */
          struct io_rename *n = cmd;
          r.args[0] = (__u64)(__s64)BPF_CORE_READ(n, old_dfd);
          r.args[1] = keep_uring_path(paths, BPF_CORE_READ(n, oldpath), 1);
          r.args[2] = (__u64)(__s64)BPF_CORE_READ(n, new_dfd);
          r.args[3] = keep_uring_path(paths, BPF_CORE_READ(n, newpath), 3);
          r.args[4] = BPF_CORE_READ(n, flags);
          break;
        }
        case IORING_OP_SYMLINKAT: {  /* symlinkat(target, newdfd, linkpath) */
          struct io_link *l = cmd;
          r.args[0] = keep_uring_path(paths, BPF_CORE_READ(l, oldpath), 0);
          r.args[1] = (__u64)(__s64)BPF_CORE_READ(l, new_dfd);
          r.args[2] = keep_uring_path(paths, BPF_CORE_READ(l, newpath), 2);
          break;
        }
        default: {  /* IORING_OP_LINKAT: linkat(olddfd, old, newdfd, new, flags) */
          struct io_link *l = cmd;
          r.args[0] = (__u64)(__s64)BPF_CORE_READ(l, old_dfd);
          r.args[1] = keep_uring_path(paths, BPF_CORE_READ(l, oldpath), 1);
          r.args[2] = (__u64)(__s64)BPF_CORE_READ(l, new_dfd);
          r.args[3] = keep_uring_path(paths, BPF_CORE_READ(l, newpath), 3);
          r.args[4] = BPF_CORE_READ(l, flags);
          break;
        }
      }
      break;
    default:
      break;
  }
  pid_tgid = bpf_get_current_pid_tgid();
  r.pid = pid_tgid >> 32;
  r.tid = (__u32)pid_tgid;
  /* The submitting io_uring_enter; the SQ thread's submissions have none (an enter the leader
   * is in meanwhile only waits for completions). */
  if (!sq_thread && t->inflight && t->ev.nr == FS_NR_IO_URING_ENTER) r.enter_ns = t->ev.begin_ns;
  if (paths && paths->n) {
    /* Over URING_MAX_PATH_INFLIGHT at once: the request is still recorded, its paths not. */
    if (bpf_map_update_elem(&uring_path_reqs, &key, paths, BPF_ANY) == 0)
      r.has_paths = 1;
    else
      count_drop(FS_COUNT_URING_PATHLESS);
  }
  r.begin_ns = bpf_ktime_get_ns();
  if (bpf_map_update_elem(&uring_reqs, &key, &r, BPF_ANY)) {
    count_drop(FS_DROP_URING_UNTRACKED);
    if (r.has_paths) bpf_map_delete_elem(&uring_path_reqs, &key);
  }
  return 0;
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(fs_uring_complete, struct io_ring_ctx *ring, void *req, struct io_uring_cqe *cqe)
{
  __u64 now = bpf_ktime_get_ns();
  __u64 key = (__u64)req;
  struct uring_req *r = bpf_map_lookup_elem(&uring_reqs, &key);
  __u32 zero = 0;
  struct fs_task *s;
  struct fs_event *e;
  int k;

  if (!r) return 0;  /* not a traced task's request */
  s = bpf_map_lookup_elem(&uring_scratch, &zero);
  if (s) {
    e = &s->ev;
    e->begin_ns = r->begin_ns;
    e->end_ns = now;
    e->ret = BPF_CORE_READ(cqe, res);
    for (k = 0; k < 5; k++) e->args[k] = r->args[k];
    e->args[5] = 0;
    e->pid = r->pid;
    e->tid = r->tid;
    e->nr = r->nr;
    e->flags = FS_EV_URING;
    e->nstrs = 0;
    e->pending = 0;
    e->str_bytes = 0;
    e->fd_same = 0;
    e->fd_cached_mask = 0;
    e->uring_opcode = r->opcode;
    e->vol_switches = 0;
    e->invol_switches = 0;
    e->offcpu_ns = 0;
    e->gap_offcpu_ns = 0;
    e->uring_user_data = r->user_data;
    e->uring_enter_ns = r->enter_ns;
    if (r->has_paths) {
      struct uring_paths *p = bpf_map_lookup_elem(&uring_path_reqs, &key);
      if (p) add_uring_paths(s, p);
    } else if (r->opcode != IORING_OP_CLOSE) {
      read_file_path(s, 0, BPF_CORE_READ((struct io_kiocb *)req, file));
    }
    emit(s);
  }
  if (r->has_paths) bpf_map_delete_elem(&uring_path_reqs, &key);
  bpf_map_delete_elem(&uring_reqs, &key);
  return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(fs_task_fork, struct task_struct *parent, struct task_struct *child)
{
  struct fs_task *pt = bpf_task_storage_get(&tasks, parent, 0, 0);
  struct fs_task *ct;

  if (!pt || pt->state != FS_TASK_ACTIVE) return 0;
  ct = bpf_task_storage_get(&tasks, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (!ct) {
    count_drop(FS_DROP_UNTRACKED_TASK);
    return 0;
  }
  ct->state = FS_TASK_ACTIVE;
  ct->inflight = 0;
  __sync_fetch_and_add(&live_tasks, 1);
  return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(fs_task_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
  struct fs_task *t = bpf_task_storage_get(&tasks, p, 0, 0);

  if (t && t->state == FS_TASK_PENDING) t->state = FS_TASK_ACTIVE;  /* the workload starts */
  return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(fs_task_exit, struct task_struct *p, bool group_dead)
{
  struct fs_task *t = bpf_task_storage_get(&tasks, p, 0, 0);

  if (!t || t->state == FS_TASK_NONE) return 0;
  if (t->fault_pending) drain_pending_faults_between_faults(p, t, 1);
  if (t->inflight && t->state == FS_TASK_ACTIVE) {
    /* exit/exit_group never return; a task killed in a blocking call neither. */
    t->ev.end_ns = bpf_ktime_get_ns();
    t->ev.ret = 0;
    t->ev.flags |= FS_EV_UNFINISHED;
    emit(t);
  }
  t->inflight = 0;
  t->state = FS_TASK_NONE;
  __sync_fetch_and_add(&live_tasks, -1);
  bpf_task_storage_delete(&tasks, p);
  return 0;
}

/* ---- page faults on file-backed mappings ------------------------------------------------------
 * Memory-mapped file access never enters a syscall: the program touches a page and the CPU
 * faults. exceptions:page_fault_user fires in the faulting thread for every user-mode fault, with
 * the address and the x86 error code, before the kernel handles it (interrupts off, no mm lock
 * held). For a traced task, bpf_find_vma looks the address up in its mm: a regular file's mapping
 * gives the struct file (so the path, with the same d_parent walk as an fd's), the file offset
 * ((vm_pgoff << 12) + address - vm_start, page-aligned) and whether it is shared. Anonymous memory,
 * devices and kernel-internal files (memfd, shared anonymous memory, SysV shm) are not file I/O
 * and not recorded. We chose this over filemap:mm_filemap_fault because that one gives only the
 * inode number and device of the page-cache miss, not the path, the thread's access or the hits;
 * and over joining fault addresses with the traced mmap ranges in user space because mappings
 * made by execve, or before the capture, have no traced mmap.
 * filemap:mm_filemap_map_pages, later in the same fault, gives the range of further pages the
 * kernel mapped from the page cache around the faulting one (fault-around): recorded as a second
 * record with FS_FAULT_AROUND. No tracepoint marks the end of a fault on x86: begin = end.
 * The path walk is skipped when the file is the one this tid's previous fault record named
 * (FS_EV_FAULT_SAME_FILE), committed only once that record is in the ring (as the fd cache). */
#define FS_EBUSY 16
#define FS_PAGE_SHIFT 12
#define FS_S_IFMT 0170000
#define FS_S_IFREG 0100000
#define FS_VM_SHARED 0x8
#define FS_X86_PF_PROT 0x1
#define FS_X86_PF_WRITE 0x2
#define FS_X86_PF_INSTR 0x10
#define FS_FAULT_KNOWN_FILES 4    /* a power of two */
#define FS_MAP_SHARED 0x01        /* MAP_SHARED; MAP_SHARED_VALIDATE is 0x03 */
#define FS_MAP_ANONYMOUS 0x20
#define FS_FAULT_DRAIN_IN_FAULT 4  /* one lookup can succeed with interrupts off; the rest are cache hits */

struct fault_task {
  /* The file whose path user space holds for this tid: identity as in struct fd_key. */
  __u64 last_file, last_dentry, last_parent, last_hash_len;
  /* The fault in progress, for its fault-around range; mapping = 0 when there is none. */
  __u64 mapping;    /* the faulting file's address_space */
  __u64 file;
  __u64 vm_start;
  __u64 vm_pgoff;
  __u64 pgoff;      /* page index of the faulting page in the file */
  __u64 how;        /* FS_FAULT_* of the fault */
  /* Faults whose lookup found the mm busy, oldest first: entries [pend_head, pend_tail) modulo
   * FS_FAULT_PENDING_MAX; see drain_pending_faults. */
  struct pending_fault {
    __u64 addr, error_code, ns;
    __u64 file, mapping, flags, page;  /* file 0: not resolved yet (see fs_filemap_fault) */
  } pend[FS_FAULT_PENDING_MAX];
  __u32 pend_head, pend_tail;
  /* The files of the last mappings a lookup found (address_space -> struct file, vm_flags):
   * a queued fault's own mm_filemap_fault names its address_space and page. */
  struct fault_known_file {
    __u64 mapping, file, flags;
  } known[FS_FAULT_KNOWN_FILES];
  __u32 known_next;
  __u32 newest_in_fault;  /* the newest queued fault is the user fault still in progress */
  /* The last mapping bpf_find_vma found (file 0: not a file's), valid while the mm's
   * mm_lock_seq (bumped by every mmap_write_lock, which every mapping change takes) is unchanged:
   * later faults in it skip the lookup. */
  struct fault_vma_cache {
    __u64 mm, seq, start, end, file, pgoff, flags, mapping;
  } vma;
};

struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct fault_task);
} fault_tasks SEC(".maps");

/* Records are built here: a fault's record must not disturb the task's in-flight syscall state. */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct fs_task);
} fault_scratch SEC(".maps");

struct fault_vma {
  __u64 file, start, end, pgoff, flags, mapping;
};

static long fault_vma_cb(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
  struct fault_vma *v = data;
  struct file *f = vma->vm_file;
  struct mount *mnt;
  __u64 ns;
  umode_t mode;

  v->start = vma->vm_start;
  v->end = vma->vm_end;
  if (!f) return 0;  /* anonymous memory */
  mode = BPF_CORE_READ(f, f_inode, i_mode);
  if ((mode & FS_S_IFMT) != FS_S_IFREG) return 0;  /* a device (/dev/zero, ...) */
  mnt = container_of(BPF_CORE_READ(f, f_path.mnt), struct mount, mnt);
  ns = (__u64)BPF_CORE_READ(mnt, mnt_ns);
  if (ns >= (__u64)-4095) return 0;  /* MNT_NS_INTERNAL: memfd, shared anonymous memory, shm */
  v->file = (__u64)f;
  v->pgoff = vma->vm_pgoff;
  v->flags = vma->vm_flags;
  v->mapping = (__u64)BPF_CORE_READ(f, f_mapping);
  return 0;
}

static __always_inline void emit_fault(struct fault_task *ft, __u64 now, __u64 addr, __u64 offset, __u64 len,
                                       __u64 how)
{
  __u32 zero = 0;
  struct fs_task *s = bpf_map_lookup_elem(&fault_scratch, &zero);
  struct file *f = (struct file *)ft->file;
  struct dentry *d;
  struct fs_event *e;
  __u64 pid_tgid, parent, hash_len;
  int same;

  if (!s) return;
  e = &s->ev;
  e->begin_ns = now;
  e->end_ns = now;
  e->ret = 0;
  e->args[0] = addr;
  e->args[1] = offset;
  e->args[2] = len;
  e->args[3] = how;
  e->args[4] = 0;
  e->args[5] = 0;
  pid_tgid = bpf_get_current_pid_tgid();
  e->pid = pid_tgid >> 32;
  e->tid = (__u32)pid_tgid;
  e->nr = -1;
  e->flags = FS_EV_FAULT;
  e->nstrs = 0;
  e->pending = 0;
  e->str_bytes = 0;
  e->fd_same = 0;
  e->fd_cached_mask = 0;
  e->uring_opcode = 0;
  e->vol_switches = 0;
  e->invol_switches = 0;
  e->offcpu_ns = 0;
  e->gap_offcpu_ns = 0;
  e->uring_user_data = 0;
  e->uring_enter_ns = 0;
  d = BPF_CORE_READ(f, f_path.dentry);
  parent = (__u64)BPF_CORE_READ(d, d_parent);
  hash_len = BPF_CORE_READ(d, d_name.hash_len);
  same = ft->last_file == (__u64)f && ft->last_dentry == (__u64)d && ft->last_parent == parent &&
         ft->last_hash_len == hash_len;
  if (same)
    e->flags |= FS_EV_FAULT_SAME_FILE;
  else
    read_file_path(s, 0, f);
  if (emit(s) == 0 && !same && e->nstrs == 1 && !(e->flags & (FS_EV_FDPATH_TRUNCATED | FS_EV_STR_TRUNCATED))) {
    ft->last_file = (__u64)f;
    ft->last_dentry = (__u64)d;
    ft->last_parent = parent;
    ft->last_hash_len = hash_len;
  }
}

/* Remembers that address_space mapping belongs to file (mapped with vm_flags flags). */
static __always_inline void note_known_file(struct fault_task *ft, __u64 mapping, __u64 file, __u64 flags)
{
  struct fault_known_file *k = &ft->known[ft->known_next & (FS_FAULT_KNOWN_FILES - 1)];
  __u32 i;

  for (i = 0; i < FS_FAULT_KNOWN_FILES; i++) {
    if (ft->known[i].mapping != mapping) continue;
    ft->known[i].file = file;
    ft->known[i].flags = flags;
    return;
  }
  k->mapping = mapping;
  k->file = file;
  k->flags = flags;
  ft->known_next++;
}

/* After a successful mmap of a file by this thread: its faults can then be resolved by their
 * mm_filemap_fault even when the mm is too busy to look the mapping up. */
static __always_inline void note_mmap_file(struct task_struct *task, struct fs_task *t)
{
  struct fs_event *e = &t->ev;
  struct fault_task *ft;
  struct file *f;
  __s64 fd = (int)e->args[4];
  __u64 file = 0, flags;

  if (e->ret < 0 && e->ret > -4096) return;
  if (fd < 0 || (e->args[3] & FS_MAP_ANONYMOUS)) return;
  if ((t->candidate_mask & (1 << FS_SLOT_FD)) && t->candidate[FS_SLOT_FD].fd == fd)
    file = t->candidate[FS_SLOT_FD].file;
  else if (t->cached[FS_SLOT_FD].fd == fd)
    file = t->cached[FS_SLOT_FD].file;
  if (!file) return;
  ft = bpf_task_storage_get(&fault_tasks, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (!ft) return;
  f = (struct file *)file;
  flags = (e->args[3] & FS_MAP_SHARED) ? FS_VM_SHARED : 0;  /* MAP_SHARED or MAP_SHARED_VALIDATE */
  note_known_file(ft, (__u64)BPF_CORE_READ(f, f_mapping), file, flags);
}

/* Looks up the mapping at address in the current task's mm: 0 with v filled (v->file = 0: not a
 * regular file's), 1 when nothing is mapped there, -FS_EBUSY when the mm's lock could not be
 * taken without waiting (a concurrent mmap/munmap holds it, or, with interrupts off, the deferred
 * unlock of the previous lookup on this CPU is still queued). */
static __always_inline int lookup_fault_vma(struct task_struct *task, struct fault_task *ft, __u64 address,
                                            struct fault_vma *v)
{
  struct mm_struct *mm = task->mm;
  __u64 seq;
  long err;

  if (!mm) return -FS_EBUSY;  /* at exit, after exit_mm: cannot be looked up any more */
  /* bpf_find_vma costs ~10 us with interrupts off (its mmap_lock release is deferred to an
   * irq_work, a self-IPI: a VM exit on this VM), so the last mapping found is reused while the
   * mm's write-lock sequence says no mapping changed. */
  seq = BPF_CORE_READ(mm, mm_lock_seq.sequence);
  if (ft->vma.mm == (__u64)mm && ft->vma.seq == seq && !(seq & 1) && address >= ft->vma.start &&
      address < ft->vma.end) {
    v->file = ft->vma.file;
    v->start = ft->vma.start;
    v->pgoff = ft->vma.pgoff;
    v->flags = ft->vma.flags;
    v->mapping = ft->vma.mapping;
    return 0;
  }
  err = bpf_find_vma(task, address, fault_vma_cb, v, 0);
  if (err == -FS_EBUSY) return -FS_EBUSY;
  if (err) return 1;  /* no mapping there: a SIGSEGV to come */
  ft->vma.mm = (__u64)mm;
  ft->vma.seq = seq;  /* read before the lookup: a change since then invalidates it */
  ft->vma.start = v->start;
  ft->vma.end = v->end;
  ft->vma.file = v->file;
  ft->vma.pgoff = v->pgoff;
  ft->vma.flags = v->flags;
  ft->vma.mapping = v->mapping;
  if (v->file) note_known_file(ft, v->mapping, v->file, v->flags);
  return 0;
}

/* Records the fault at address (x86 error code error_code, entered the kernel at when) on page
 * `page` of file (its address_space mapping; flags: the mapping's vm_flags), and remembers it as
 * the fault in progress for its fault-around range. */
static __always_inline void record_fault_at(struct fault_task *ft, __u64 file, __u64 mapping, __u64 flags,
                                            __u64 page, __u64 address, __u64 error_code, __u64 when)
{
  __u64 how = 0;

  if (error_code & FS_X86_PF_WRITE) how |= FS_FAULT_WRITE;
  if (error_code & FS_X86_PF_INSTR) how |= FS_FAULT_EXEC;
  if (error_code & FS_X86_PF_PROT) how |= FS_FAULT_PRESENT;
  if (flags & FS_VM_SHARED) how |= FS_FAULT_SHARED;
  ft->file = file;
  ft->vm_start = address & ~((1ull << FS_PAGE_SHIFT) - 1);  /* the mapping is linear: page <-> address */
  ft->vm_pgoff = page;
  ft->pgoff = page;
  ft->how = how;
  ft->mapping = mapping;
  emit_fault(ft, when, address, page << FS_PAGE_SHIFT, 1 << FS_PAGE_SHIFT, how);
}

static __always_inline void record_fault(struct fault_task *ft, struct fault_vma *v, __u64 address,
                                         __u64 error_code, __u64 when)
{
  __u64 page = (address >> FS_PAGE_SHIFT) - (v->start >> FS_PAGE_SHIFT) + v->pgoff;

  record_fault_at(ft, v->file, v->mapping, v->flags, page, address, error_code, when);
}

/* A fault whose lookup finds the mm busy is queued (per thread, in order) and looked up again at
 * the thread's next chances: later in the same fault (mm_filemap_map_pages, under the fault's own
 * lock), at its next fault, at its next system call, at its exit. By then each queued fault has
 * been handled against the mapping the lookup now finds (the fault waited for that same lock), so
 * its record is the one it would have given, with its original time, and records stay in the
 * thread's order. With interrupts off only one bpf_find_vma per program can succeed (the unlock
 * is deferred to an irq_work that must run first), so a fault drains what the cache allows and one
 * lookup; the other places drain everything the lock lets them. Returns how many are still queued. */
static __always_inline __u32 drain_pending_faults(struct task_struct *task, struct fs_task *t,
                                                  struct fault_task *ft, __u32 max)
{
  struct fault_vma v;
  struct pending_fault *pf;
  __u32 i;
  int err;

  for (i = 0; i < max && i < FS_FAULT_PENDING_MAX; i++) {
    if (ft->pend_head == ft->pend_tail) break;
    pf = &ft->pend[ft->pend_head & (FS_FAULT_PENDING_MAX - 1)];
    if (pf->file) {  /* resolved by its own mm_filemap_fault */
      record_fault_at(ft, pf->file, pf->mapping, pf->flags, pf->page, pf->addr, pf->error_code, pf->ns);
      ft->pend_head++;
      continue;
    }
    __builtin_memset(&v, 0, sizeof v);
    err = lookup_fault_vma(task, ft, pf->addr, &v);
    if (err == -FS_EBUSY) break;
    if (err == 0 && v.file) record_fault(ft, &v, pf->addr, pf->error_code, pf->ns);
    ft->pend_head++;
  }
  t->fault_pending = ft->pend_head != ft->pend_tail;
  return ft->pend_tail - ft->pend_head;
}

/* Emits the resolved faults at the head of the queue, without any lookup. */
static __always_inline void drain_resolved_pending_faults(struct fault_task *ft)
{
  struct pending_fault *pf;
  __u32 i;

  for (i = 0; i < FS_FAULT_PENDING_MAX; i++) {
    if (ft->pend_head == ft->pend_tail) break;
    pf = &ft->pend[ft->pend_head & (FS_FAULT_PENDING_MAX - 1)];
    if (!pf->file) break;
    record_fault_at(ft, pf->file, pf->mapping, pf->flags, pf->page, pf->addr, pf->error_code, pf->ns);
    ft->pend_head++;
  }
}

static __always_inline void queue_pending_fault(struct fs_task *t, struct fault_task *ft, __u64 address,
                                                __u64 error_code, __u64 when)
{
  struct pending_fault *pf;

  if (ft->pend_tail - ft->pend_head >= FS_FAULT_PENDING_MAX) {
    /* The mm stayed busy for a whole queue: the oldest (unresolved: a resolved head is emitted at
     * once) is given up, so the ones its own filemap fault resolved behind it can go out. */
    count_drop(FS_DROP_FAULT_UNRESOLVED);
    ft->pend_head++;
    drain_resolved_pending_faults(ft);
  }
  pf = &ft->pend[ft->pend_tail & (FS_FAULT_PENDING_MAX - 1)];
  pf->addr = address;
  pf->error_code = error_code;
  pf->ns = when;
  pf->file = 0;
  ft->pend_tail++;
  t->fault_pending = 1;
  count_drop(FS_COUNT_FAULT_DEFERRED);
}

/* Between faults (system call entry, task exit): no fault is in progress afterwards. At the
 * task's exit (last_chance) what is still queued is given up and counted. */
static __always_inline void drain_pending_faults_between_faults(struct task_struct *task, struct fs_task *t,
                                                                int last_chance)
{
  struct fault_task *ft = bpf_task_storage_get(&fault_tasks, task, 0, 0);
  __u32 left;

  if (!ft) {
    t->fault_pending = 0;
    return;
  }
  left = drain_pending_faults(task, t, ft, FS_FAULT_PENDING_MAX);
  ft->mapping = 0;  /* those faults are over: no fault-around range belongs to them any more */
  ft->newest_in_fault = 0;
  if (last_chance && left) {
    count_drops(FS_DROP_FAULT_UNRESOLVED, left);  /* the mm stayed busy to the end */
    ft->pend_head = ft->pend_tail;
    t->fault_pending = 0;
  }
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(fs_page_fault, unsigned long address, struct pt_regs *regs, unsigned long error_code)
{
  __u64 now = bpf_ktime_get_ns();
  struct task_struct *task = bpf_get_current_task_btf();
  struct fs_task *t = bpf_task_storage_get(&tasks, task, 0, 0);
  struct fault_vma v = {};
  struct fault_task *ft;
  int err;

  if (!t || t->state != FS_TASK_ACTIVE) return 0;  /* untraced: one lookup per fault */
  if (!(roles[FS_NR_MMAP] & FS_ROLE_WANTED)) return 0;
  ft = bpf_task_storage_get(&fault_tasks, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (!ft) {
    count_drop(FS_DROP_FAULT_UNRESOLVED);
    return 0;
  }
  ft->newest_in_fault = 0;
  if (t->fault_pending && drain_pending_faults(task, t, ft, FS_FAULT_DRAIN_IN_FAULT)) {
    queue_pending_fault(t, ft, address, error_code, now);  /* after the older ones, in order */
    ft->newest_in_fault = 1;
    ft->mapping = 0;
    return 0;
  }
  ft->mapping = 0;  /* no fault-around range belongs to an earlier fault */
  err = lookup_fault_vma(task, ft, address, &v);
  if (err == -FS_EBUSY) {
    queue_pending_fault(t, ft, address, error_code, now);
    ft->newest_in_fault = 1;
    return 0;
  }
  if (err || !v.file) return 0;  /* unmapped, or not a regular file's mapping */
  record_fault(ft, &v, address, error_code, now);
  return 0;
}

/* filemap_fault, inside a fault that reads a file's page through the page cache (a miss, a COW
 * or shared write fault, a read fault fault-around did not satisfy): it names the address_space
 * and the faulting page's index. When this fault is queued (its lookup found the mm busy) and an
 * earlier lookup of this thread found that address_space's file, that resolves it exactly,
 * without the mm's lock. */
SEC("tp_btf/mm_filemap_fault")
int BPF_PROG(fs_filemap_fault, struct address_space *mapping, unsigned long index)
{
  struct task_struct *task = bpf_get_current_task_btf();
  struct fs_task *t = bpf_task_storage_get(&tasks, task, 0, 0);
  struct fault_task *ft;
  struct pending_fault *pf;
  __u32 i;

  if (!t || t->state != FS_TASK_ACTIVE || t->inflight || !t->fault_pending) return 0;
  ft = bpf_task_storage_get(&fault_tasks, task, 0, 0);
  if (!ft || ft->pend_head == ft->pend_tail || !ft->newest_in_fault) return 0;
  pf = &ft->pend[(ft->pend_tail - 1) & (FS_FAULT_PENDING_MAX - 1)];  /* the fault in progress */
  if (!pf->file) {
    for (i = 0; i < FS_FAULT_KNOWN_FILES; i++) {
      if (ft->known[i].mapping != (__u64)mapping) continue;
      pf->file = ft->known[i].file;
      pf->mapping = (__u64)mapping;
      pf->flags = ft->known[i].flags;
      pf->page = index;
      break;
    }
  }
  drain_pending_faults(task, t, ft, FS_FAULT_PENDING_MAX);
  return 0;
}

SEC("tp_btf/mm_filemap_map_pages")
int BPF_PROG(fs_fault_around, struct address_space *mapping, unsigned long start, unsigned long last)
{
  __u64 now = bpf_ktime_get_ns();
  struct task_struct *task = bpf_get_current_task_btf();
  struct fs_task *t = bpf_task_storage_get(&tasks, task, 0, 0);
  struct fault_task *ft;

  /* Only inside a user fault of this task: a syscall in flight (read into a mapped buffer,
   * MADV_POPULATE) faults pages in too, but that is the syscall's work. */
  if (!t || t->state != FS_TASK_ACTIVE || t->inflight) return 0;
  ft = bpf_task_storage_get(&fault_tasks, task, 0, 0);
  if (!ft) return 0;
  if (t->fault_pending) drain_pending_faults(task, t, ft, FS_FAULT_PENDING_MAX);  /* this fault's, under its lock */
  if (!ft->mapping || ft->mapping != (__u64)mapping) return 0;
  if (start > ft->pgoff || last < ft->pgoff || last - start > (1u << 20)) return 0;
  ft->mapping = 0;  /* one range per fault */
  emit_fault(ft, now, ft->vm_start + ((start - ft->vm_pgoff) << FS_PAGE_SHIFT), start << FS_PAGE_SHIFT,
             (last - start + 1) << FS_PAGE_SHIFT, ft->how | FS_FAULT_AROUND);
  return 0;
}
