// The machine's own speed over time: the same batches of cheap system calls (fcntl F_GETFL,
// 4 KiB pwrite into the page cache, fstat), every INTERVAL ms, each batch's mean latency printed.
// On this VM the batch means vary by 9-15 % (cv) from batch to batch, which bounds how closely any
// two runs — an original and its replay — can agree on a call's latency (docs/replay.md "Rounds").
// Prints per call the mean, coefficient of variation and range of the batch means, and the
// correlation of the fcntl and pwrite batch means (whether the calls vary together: 0.12 here).
//
//   cc -O2 -o speed_drift bench/speed_drift.c -lm && ./speed_drift [BATCHES] [INTERVAL_MS] [FILE]
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { kCalls = 3, kFcntls = 2000, kWrites = 500, kStats = 2000, kMaxBatches = 10000 };

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static double batch[kMaxBatches][kCalls];

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 60;
  const int interval_ms = argc > 2 ? atoi(argv[2]) : 500;
  const char* path = argc > 3 ? argv[3] : "/tmp/rastro-speed-drift.dat";
  if (n < 3 || n > kMaxBatches || interval_ms < 0) {
    fprintf(stderr, "speed_drift: BATCHES must be 3..%d and INTERVAL_MS >= 0\n", kMaxBatches);
    return 2;
  }
  const int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) {
    perror(path);
    return 1;
  }
  static char buf[4096];
  struct stat st;
  const char* names[kCalls] = {"fcntl", "pwrite", "fstat"};
  for (int b = 0; b < n; ++b) {
    const double t0 = now_ns();
    for (int i = 0; i < kFcntls; ++i) (void)fcntl(fd, F_GETFL);
    const double t1 = now_ns();
    for (int i = 0; i < kWrites; ++i)
      if (pwrite(fd, buf, sizeof buf, (off_t)i * (off_t)sizeof buf) != (ssize_t)sizeof buf) {
        perror("pwrite");
        return 1;
      }
    const double t2 = now_ns();
    for (int i = 0; i < kStats; ++i) (void)fstat(fd, &st);
    const double t3 = now_ns();
    batch[b][0] = (t1 - t0) / kFcntls;
    batch[b][1] = (t2 - t1) / kWrites;
    batch[b][2] = (t3 - t2) / kStats;
    printf("batch %d: fcntl %.0f ns, pwrite %.0f ns, fstat %.0f ns\n", b, batch[b][0], batch[b][1], batch[b][2]);
    fflush(stdout);
    usleep((useconds_t)interval_ms * 1000u);
  }
  unlink(path);
  // The first batch warms the file and the caches: left out.
  double mean[kCalls] = {0}, sd[kCalls] = {0};
  for (int c = 0; c < kCalls; ++c) {
    double lo = batch[1][c], hi = batch[1][c];
    for (int b = 1; b < n; ++b) {
      mean[c] += batch[b][c] / (n - 1);
      lo = fmin(lo, batch[b][c]);
      hi = fmax(hi, batch[b][c]);
    }
    for (int b = 1; b < n; ++b) sd[c] += (batch[b][c] - mean[c]) * (batch[b][c] - mean[c]) / (n - 2);
    sd[c] = sqrt(sd[c]);
    printf("%-6s mean %.0f ns, cv %.1f %%, range %.0f..%.0f ns (%.2f..%.2f of the mean)\n", names[c], mean[c],
           100 * sd[c] / mean[c], lo, hi, lo / mean[c], hi / mean[c]);
  }
  double cov = 0;
  for (int b = 1; b < n; ++b) cov += (batch[b][0] - mean[0]) * (batch[b][1] - mean[1]) / (n - 2);
  printf("correlation of the fcntl and pwrite batch means: %.2f over %d batches\n", cov / (sd[0] * sd[1]), n - 1);
  return 0;
}
