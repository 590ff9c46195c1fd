// What a shared fd table costs an fd-based call: the same lseek, pread, zero-byte read and fstat
// on one regular file, timed in a single-threaded process, then with a second (sleeping) thread
// sharing the fd table, then after unshare(CLONE_FILES). With the table shared the kernel takes
// a reference on the file for every call (no fdget fast path), and the file then counts two
// users, so read, write and lseek also lock its position — as in a replayer whose threads replay
// single-threaded traced processes from one fd table (docs/replay.md "Rounds").
//
//   cc -O2 -pthread -o fd_table_sharing bench/fd_table_sharing.c && ./fd_table_sharing [ROUNDS]
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { kCalls = 200000 };

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void* sleeper(void* arg) {
  (void)arg;
  for (;;) pause();
  return NULL;
}

static void measure(const char* how, int fd) {
  char buf[64];
  struct stat st;
  double t = now_ns();
  for (int i = 0; i < kCalls; ++i) (void)lseek(fd, 0, SEEK_SET);
  const double lseek_ns = (now_ns() - t) / kCalls;
  t = now_ns();
  for (int i = 0; i < kCalls; ++i) (void)pread(fd, buf, sizeof buf, 0);
  const double pread_ns = (now_ns() - t) / kCalls;
  t = now_ns();
  for (int i = 0; i < kCalls; ++i) (void)read(fd, buf, 0);
  const double read_ns = (now_ns() - t) / kCalls;
  t = now_ns();
  for (int i = 0; i < kCalls; ++i) (void)fstat(fd, &st);
  const double fstat_ns = (now_ns() - t) / kCalls;
  printf("%-28s lseek %4.0f  pread %4.0f  read(0 bytes) %4.0f  fstat %4.0f ns\n", how, lseek_ns, pread_ns, read_ns,
         fstat_ns);
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 3;
  const int fd = open("/etc/passwd", O_RDONLY);
  if (fd < 0 || rounds < 1) {
    fprintf(stderr, "fd_table_sharing: cannot open /etc/passwd, or ROUNDS < 1\n");
    return 2;
  }
  for (int r = 0; r < rounds; ++r) measure("single-threaded", fd);
  pthread_t thread;
  if (pthread_create(&thread, NULL, sleeper, NULL) != 0) return 1;
  for (int r = 0; r < rounds; ++r) measure("2 threads, one fd table", fd);
  if (unshare(CLONE_FILES) != 0) {
    perror("unshare(CLONE_FILES)");
    return 1;
  }
  for (int r = 0; r < rounds; ++r) measure("2 threads, unshared tables", fd);
  return 0;
}
