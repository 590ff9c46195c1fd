// A program that does W bytes of its own work (one byte per 64-byte line touched), and runs C bytes
// of its own code (a jump per 64-byte line; C = 0, the default: none), before each group of calls
// — fcntl(F_GETFD), fstat, stat, open, close — for capture and replay: the replay issues the same
// calls without the work between them (docs/replay.md "Calls after a program's own work", "Think
// work"). Usage: work_then_calls W [GROUPS [C]]
//
//   cc -O2 -o work_then_calls bench/work_then_calls.c
//   for c in 0 1048576; do for i in 1 2 3 4; do d=/tmp/wtc/c$c.$i; mkdir -p $d
//     (cd $d && rastro capture -b ebpf -q -o /dev/shm/t.rastro -- $OLDPWD/work_then_calls 4194304 1500 $c) &&
//       mv /dev/shm/t.rastro $d/t.rastro
//     for m in none memory memory,code; do
//       rastro replay -e workers --time-with ebpf -O fs -T think --think-work $m $d/t.rastro -q
//         --root $d/root-$m --init -o $d/r-$m.rastro; done     (one line)
//   done; for m in none memory memory,code; do
//     rastro compare $(for i in 1 2 3 4; do echo /tmp/wtc/c$c.$i/t.rastro /tmp/wtc/c$c.$i/r-$m.rastro; done); done; done
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char** argv) {
  const size_t work = argc > 1 ? strtoul(argv[1], 0, 10) : 0;
  const int groups = argc > 2 ? atoi(argv[2]) : 2000;
  const size_t code = argc > 3 ? strtoul(argv[3], 0, 10) / 64 * 64 : 0;
  volatile char* buf = malloc(work + 64);
  if (!buf) return 1;
  memset((char*)buf, 1, work + 64);
  // Code: every line a jmp rel32 to the next line, the last a ret.
  unsigned char* text = 0;
  if (code) {
    text = mmap(0, code, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (text == MAP_FAILED) return 1;
    memset(text, 0xcc, code);
    for (size_t at = 0; at + 64 < code; at += 64) {
      const int rel = 59;
      text[at] = 0xe9;
      memcpy(text + at + 1, &rel, 4);
    }
    text[code - 64] = 0xc3;
    if (mprotect(text, code, PROT_READ | PROT_EXEC)) return 1;
  }
  const int fd = open("data", O_RDWR | O_CREAT, 0644);
  if (fd < 0) return 1;
  struct stat st;
  for (int i = 0; i < groups; ++i) {
    for (size_t j = 0; j < work; j += 64) buf[j]++;
    if (text) ((void (*)(void))text)();
    fcntl(fd, F_GETFD);
    fstat(fd, &st);
    stat("data", &st);
    const int again = open("data", O_RDONLY);
    if (again >= 0) close(again);
  }
  close(fd);
  return 0;
}
