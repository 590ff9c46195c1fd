// What a program's own work between its calls does to a call's time: `stat` of one path (and
// `close` of a just-opened fd), each after touching N KiB of memory (one byte per 64-byte line),
// as a program computing between its calls would. A replay issues the calls without that work,
// which a syscall trace does not record (docs/replay.md "r10").
//
//   cc -O2 -o cache_pollution bench/cache_pollution.c
//   for k in 0 64 512 2048 8192; do ./cache_pollution /usr/lib/python3.11/encodings/__init__.py $k; done
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s PATH KIB\n", argv[0]);
    return 2;
  }
  const char* path = argv[1];
  const size_t bytes = (size_t)atol(argv[2]) * 1024;
  const int calls = 20000;
  char* buf = malloc(bytes + 64);
  if (!buf) return 1;
  memset(buf, 1, bytes + 64);
  struct stat st;
  for (int round = 0; round < 3; ++round) {
    double stat_ns = 0, close_ns = 0;
    for (int i = 0; i < calls; ++i) {
      for (size_t k = 0; k < bytes; k += 64) buf[k]++;
      double t = now_ns();
      if (stat(path, &st) != 0) {
        perror(path);
        return 1;
      }
      stat_ns += now_ns() - t;
      int fd = open(path, O_RDONLY);
      t = now_ns();
      close(fd);
      close_ns += now_ns() - t;
    }
    printf("touched %zu KiB between calls: stat %.0f ns, close %.0f ns\n", bytes / 1024, stat_ns / calls,
           close_ns / calls);
  }
  free(buf);
  return 0;
}
