// What a shared address space costs memory calls: two loops of mmap (1 MiB of libc, 16 pages
// touched) and munmap run side by side, first as two processes (an address space each, as two
// traced processes had), then as two threads of one process (as a replayer replays them: one
// mmap_lock, and a munmap that must flush the TLB of the CPU running the other thread). Prints
// each loop's median mmap and munmap (docs/replay.md "r16").
//
//   cc -O2 -pthread -o address_space_sharing bench/address_space_sharing.c
//   for i in 1 2 3; do ./address_space_sharing processes; ./address_space_sharing threads; done
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kCalls = 4000, kMapBytes = 1 << 20, kPagesTouched = 16 };

static long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

static int by_value(const void* a, const void* b) {
  const long x = *(const long*)a, y = *(const long*)b;
  return x < y ? -1 : x > y;
}

static void* map_loop(void* label) {
  const int fd = open("/usr/lib/x86_64-linux-gnu/libc.so.6", O_RDONLY);
  long* map_ns = malloc(kCalls * sizeof(long));
  long* unmap_ns = malloc(kCalls * sizeof(long));
  if (fd < 0 || !map_ns || !unmap_ns) {
    perror("address_space_sharing");
    exit(1);
  }
  for (int i = 0; i < kCalls; ++i) {
    const long t0 = now_ns();
    char* p = mmap(NULL, kMapBytes, PROT_READ, MAP_PRIVATE, fd, 0);
    const long t1 = now_ns();
    if (p == MAP_FAILED) {
      perror("mmap");
      exit(1);
    }
    for (int k = 0; k < kPagesTouched; ++k) {
      volatile char c = p[4096 * k];
      (void)c;
    }
    const long t2 = now_ns();
    munmap(p, kMapBytes);
    map_ns[i] = t1 - t0;
    unmap_ns[i] = now_ns() - t2;
  }
  qsort(map_ns, kCalls, sizeof(long), by_value);
  qsort(unmap_ns, kCalls, sizeof(long), by_value);
  printf("%-9s mmap median %6ld ns, munmap median %6ld ns\n", (const char*)label, map_ns[kCalls / 2],
         unmap_ns[kCalls / 2]);
  fflush(stdout);
  free(map_ns);
  free(unmap_ns);
  close(fd);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 2 || (strcmp(argv[1], "processes") != 0 && strcmp(argv[1], "threads") != 0)) {
    fprintf(stderr, "usage: %s processes|threads\n", argv[0]);
    return 2;
  }
  if (strcmp(argv[1], "processes") == 0) {
    for (int i = 0; i < 2; ++i)
      if (fork() == 0) {
        map_loop("process");
        _exit(0);
      }
    while (wait(NULL) > 0) {
    }
  } else {
    pthread_t t[2];
    for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, map_loop, "thread");
    for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  }
  return 0;
}
