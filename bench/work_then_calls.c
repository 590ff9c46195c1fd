// A program that does W bytes of its own work (one byte per 64-byte line touched) before each group
// of calls — fcntl(F_GETFD), fstat, stat, open, close — for capture and replay: the replay issues
// the same calls without the work between them (docs/replay.md "Calls after a program's own work").
//
//   cc -O2 -o work_then_calls bench/work_then_calls.c
//   for w in 0 4194304; do for i in 1 2 3 4; do d=/tmp/wtc/w$w.$i; mkdir -p $d
//     (cd $d && rastro capture -b ebpf -q -o t.rastro -- $PWD/work_then_calls $w 1500)
//     rastro replay -e workers --time-with ebpf -O fs -T think $d/t.rastro --root $d/root --init -o $d/r.rastro
//   done; rastro compare $(for i in 1 2 3 4; do echo /tmp/wtc/w$w.$i/t.rastro /tmp/wtc/w$w.$i/r.rastro; done); done
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char** argv) {
  const size_t work = argc > 1 ? strtoul(argv[1], 0, 10) : 0;
  const int groups = argc > 2 ? atoi(argv[2]) : 2000;
  volatile char* buf = malloc(work + 64);
  if (!buf) return 1;
  memset((char*)buf, 1, work + 64);
  const int fd = open("data", O_RDWR | O_CREAT, 0644);
  if (fd < 0) return 1;
  struct stat st;
  for (int i = 0; i < groups; ++i) {
    for (size_t j = 0; j < work; j += 64) buf[j]++;
    fcntl(fd, F_GETFD);
    fstat(fd, &st);
    stat("data", &st);
    const int again = open("data", O_RDONLY);
    if (again >= 0) close(again);
  }
  close(fd);
  return 0;
}
