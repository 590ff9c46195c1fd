// A fake capture instrument with a known error, for testing the campaign's error split
// (docs/metrology.md): preloaded into the workload, it wraps read/write/pread/pwrite and
//   - busy-waits RASTRO_FAKE_PERTURB_NS before each call, inside the application's own timing
//     window: the application runs slower by that much (the perturbation);
//   - records each call's begin and end around the real call, with RASTRO_FAKE_RECORD_NS added
//     to the end: the trace says each call took that much longer than it did (the recording
//     error is then RECORD − PERTURB per call against the application's timing);
//   - writes the calls as a rastro TSV trace to RASTRO_FAKE_TRACE when the process exits.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { kMaxCalls = 1 << 20 };

struct call {
  int32_t pid, tid;
  int64_t begin, end, count, offset, ret;
  int fd;
  const char* name;  // static string
  int has_offset;
};

static struct call* calls;
static atomic_long ncalls;
static int64_t perturb_ns, record_ns;
static const char* trace_path;

static ssize_t (*real_read)(int, void*, size_t);
static ssize_t (*real_write)(int, const void*, size_t);
static ssize_t (*real_pread)(int, void*, size_t, off_t);
static ssize_t (*real_pwrite)(int, const void*, size_t, off_t);

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void spin(int64_t ns) {
  const int64_t until = now_ns() + ns;
  while (now_ns() < until) {
  }
}

// The process and thread ids, read once per thread (and again in a forked child): two system
// calls per wrapped call would add their time to the application's window and not to the trace.
static _Thread_local int32_t cached_pid, cached_tid;
static void forget_ids(void) { cached_pid = cached_tid = 0; }

__attribute__((constructor)) static void fake_init(void) {
  // POSIX's way to turn dlsym's object pointer into a function pointer (ISO C has none).
  void* sym = dlsym(RTLD_NEXT, "read");
  memcpy(&real_read, &sym, sizeof sym);
  sym = dlsym(RTLD_NEXT, "write");
  memcpy(&real_write, &sym, sizeof sym);
  sym = dlsym(RTLD_NEXT, "pread64");
  memcpy(&real_pread, &sym, sizeof sym);
  sym = dlsym(RTLD_NEXT, "pwrite64");
  memcpy(&real_pwrite, &sym, sizeof sym);
  const char* p = getenv("RASTRO_FAKE_PERTURB_NS");
  const char* r = getenv("RASTRO_FAKE_RECORD_NS");
  perturb_ns = p ? atoll(p) : 0;
  record_ns = r ? atoll(r) : 0;
  trace_path = getenv("RASTRO_FAKE_TRACE");
  calls = calloc(kMaxCalls, sizeof *calls);
  pthread_atfork(NULL, NULL, forget_ids);
}

static void record(const char* name, int fd, int64_t count, int64_t offset, int has_offset, int64_t begin, int64_t end,
                   int64_t ret) {
  const long i = atomic_fetch_add(&ncalls, 1);
  if (!calls || i >= kMaxCalls) return;
  if (!cached_tid) {
    cached_pid = getpid();
    cached_tid = (int32_t)syscall(SYS_gettid);
  }
  calls[i] = (struct call){cached_pid, cached_tid, begin, end + record_ns, count, offset, ret, fd, name,
                           has_offset};
}

#define WRAP(body_name, call_expr, count, offset, has_offset)                           \
  do {                                                                                  \
    spin(perturb_ns);                                                                   \
    const int64_t b = now_ns();                                                         \
    const ssize_t ret = call_expr;                                                      \
    const int64_t e = now_ns();                                                         \
    record(body_name, fd, (int64_t)(count), (int64_t)(offset), has_offset, b, e, ret);  \
    return ret;                                                                         \
  } while (0)

ssize_t read(int fd, void* buf, size_t n) { WRAP("read", real_read(fd, buf, n), n, 0, 0); }
ssize_t write(int fd, const void* buf, size_t n) { WRAP("write", real_write(fd, buf, n), n, 0, 0); }
ssize_t pread(int fd, void* buf, size_t n, off_t off) { WRAP("pread64", real_pread(fd, buf, n, off), n, off, 1); }
ssize_t pread64(int fd, void* buf, size_t n, off_t off) { WRAP("pread64", real_pread(fd, buf, n, off), n, off, 1); }
ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) { WRAP("pwrite64", real_pwrite(fd, buf, n, off), n, off, 1); }
ssize_t pwrite64(int fd, const void* buf, size_t n, off_t off) {
  WRAP("pwrite64", real_pwrite(fd, buf, n, off), n, off, 1);
}

// Written with raw syscalls so that writing the trace is not itself traced.
__attribute__((destructor)) static void fake_finish(void) {
  if (!trace_path || !calls) return;
  FILE* f = fopen(trace_path, "w");
  if (!f) return;
  setvbuf(f, NULL, _IOFBF, 1 << 16);
  const long n = atomic_load(&ncalls) < kMaxCalls ? atomic_load(&ncalls) : kMaxCalls;
  fprintf(f, "# rastro-trace text 1 {\"backend\":\"fake-delay\",\"clock\":\"CLOCK_MONOTONIC\",\"complete\":true}\n");
  fprintf(f, "pid\ttid\tbegin\tend\tfunction\targs\trvalue\n");
  for (long i = 0; i < n; ++i) {
    const struct call* c = &calls[i];
    if (c->has_offset)
      fprintf(f, "%d\t%d\t%lld\t%lld\t%s\t%d, ..., %lld, %lld\t%lld\n", c->pid, c->tid, (long long)c->begin,
              (long long)c->end, c->name, c->fd, (long long)c->count, (long long)c->offset, (long long)c->ret);
    else
      fprintf(f, "%d\t%d\t%lld\t%lld\t%s\t%d, ..., %lld\t%lld\n", c->pid, c->tid, (long long)c->begin, (long long)c->end,
              c->name, c->fd, (long long)c->count, (long long)c->ret);
  }
  fclose(f);
}
