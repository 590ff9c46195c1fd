// What walking a relative traced path from the replay root costs, against walking it from the
// traced cwd: git opens `.git/objects/..`-style paths relative to its work tree; the replayer once
// walked each as `tmp/corpus/git/in/tree/.git/...` from a dirfd of the root (RESOLVE_IN_ROOT),
// five components more than the traced call, and now walks it from an O_PATH fd of the cwd
// (RESOLVE_BENEATH, replay/runtime/sandbox_resolver.h "Base"). Timed, interleaved in rounds: the
// failed open of a missing object and the open of an existing file, each (a) openat from the cwd
// as the program did, (b) openat2 RESOLVE_BENEATH from a cwd fd, (c) openat2 RESOLVE_IN_ROOT from
// the root with the whole path. Prints the median ns per call over the rounds.
//
//   cc -O2 -o path_walk_base bench/path_walk_base.c && ./path_walk_base DIR [ROUNDS]
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { kCalls = 20000, kMaxRounds = 101 };

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double per_call(int how, int dirfd, const char* path) {
  struct open_how o = {.flags = O_RDONLY | O_CLOEXEC,
                       .resolve = how == 1 ? RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS
                                           : RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
  const double t0 = now_ns();
  for (int i = 0; i < kCalls; ++i) {
    long fd = how == 0 ? openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC) : syscall(SYS_openat2, dirfd, path, &o, sizeof o);
    if (fd >= 0) close((int)fd);
  }
  return (now_ns() - t0) / kCalls;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s DIR [ROUNDS]\n", argv[0]);
    return 2;
  }
  const int rounds = argc > 2 ? atoi(argv[2]) : 21;
  if (rounds < 1 || rounds > kMaxRounds) return 2;
  // DIR/root/tmp/corpus/git/in/tree/.git/objects/ab/file: the replay root holds the traced tree.
  char root[4096], cwd[4200], cmd[8500];
  snprintf(root, sizeof root, "%s/root", argv[1]);
  snprintf(cwd, sizeof cwd, "%s/tmp/corpus/git/in/tree", root);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/.git/objects/ab' && touch '%s/.git/objects/ab/file'", cwd, cwd);
  if (system(cmd) != 0) return 1;
  const int root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  const int cwd_fd = open(cwd, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0 || cwd_fd < 0 || chdir(cwd) != 0) return 1;
  const char* rel[2] = {".git/objects/cd/missing", ".git/objects/ab/file"};
  const char* whole[2] = {"tmp/corpus/git/in/tree/.git/objects/cd/missing", "tmp/corpus/git/in/tree/.git/objects/ab/file"};
  const char* what[2] = {"missing object (ENOENT)", "existing file"};
  static double ns[2][3][kMaxRounds];
  for (int r = 0; r < rounds; ++r)
    for (int k = 0; k < 2; ++k) {
      ns[k][0][r] = per_call(0, -1, rel[k]);
      ns[k][1][r] = per_call(1, cwd_fd, rel[k]);
      ns[k][2][r] = per_call(2, root_fd, whole[k]);
    }
  printf("median ns per open over %d rounds of %d (open+close for the existing file)\n", rounds, kCalls);
  printf("%-26s %12s %18s %22s\n", "", "openat(cwd)", "openat2 cwd fd", "openat2 root, whole");
  for (int k = 0; k < 2; ++k) {
    double m[3];
    for (int h = 0; h < 3; ++h) {
      qsort(ns[k][h], (size_t)rounds, sizeof(double), cmp);
      m[h] = ns[k][h][rounds / 2];
    }
    printf("%-26s %12.0f %18.0f %22.0f\n", what[k], m[0], m[1], m[2]);
  }
  return 0;
}
