/* The workload of bench/scale.sh's eBPF capture row: N tiny system calls in THREADS threads, each
 * thread writing 1 byte to /dev/null N/THREADS times (a call the kernel finishes at once, so the
 * capture, not the call, sets the pace).
 *
 *   scale_capture_workload N [THREADS=4]
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long per_thread;

static void *run(void *arg) {
  (void)arg;
  int fd = open("/dev/null", O_WRONLY);
  if (fd < 0) {
    perror("open /dev/null");
    exit(1);
  }
  char c = 'x';
  for (long i = 0; i < per_thread; ++i)
    if (write(fd, &c, 1) != 1) {
      perror("write");
      exit(1);
    }
  close(fd);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s N [THREADS=4]\n", argv[0]);
    return 2;
  }
  long n = atol(argv[1]);
  int threads = argc > 2 ? atoi(argv[2]) : 4;
  if (threads < 1 || threads > 256) threads = 4;
  per_thread = n / threads;
  pthread_t t[256];
  for (int i = 0; i < threads; ++i)
    if (pthread_create(&t[i], NULL, run, NULL) != 0) {
      fprintf(stderr, "pthread_create failed\n");
      return 1;
    }
  for (int i = 0; i < threads; ++i) pthread_join(t[i], NULL);
  return 0;
}
