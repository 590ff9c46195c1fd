/* io_uring file-system requests, one at a time, each logged as "OPCODE RESULT" on stdout (the
 * kernel's CQE result: what the capture's io_uring events must show). Used by
 * tests/capture/root/ebpf_uring_test.cpp.
 *   uring_fs_workload fs DIR       mkdirat, openat, write, ftruncate, statx, fsync, close,
 *                                  renameat, symlinkat, linkat, unlinkat (x4) under DIR
 *   uring_fs_workload sqpoll FILE  openat, read, close of FILE through an SQPOLL ring */
#define _GNU_SOURCE
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OP_FTRUNCATE 55 /* IORING_OP_FTRUNCATE (kernel 6.9); liburing 2.3's headers predate it */

static struct io_uring ring;

static int run(const char *what) {
  struct io_uring_cqe *cqe;
  int res;
  if (io_uring_submit(&ring) != 1) { fprintf(stderr, "%s: submit failed\n", what); exit(1); }
  if (io_uring_wait_cqe(&ring, &cqe) != 0) { fprintf(stderr, "%s: wait failed\n", what); exit(1); }
  res = cqe->res;
  io_uring_cqe_seen(&ring, cqe);
  printf("%s %d\n", what, res);
  return res;
}

static char *join(const char *dir, const char *name) {
  char *p = malloc(strlen(dir) + strlen(name) + 2);
  sprintf(p, "%s/%s", dir, name);
  return p;
}

int main(int argc, char **argv) {
  static char buf[4096];
  struct statx stx;
  struct io_uring_params params;
  struct io_uring_sqe *sqe;
  int fd;
  if (argc != 3) { fprintf(stderr, "usage: %s fs DIR | sqpoll FILE\n", argv[0]); return 2; }
  memset(&params, 0, sizeof params);
  if (strcmp(argv[1], "sqpoll") == 0) {
    params.flags = IORING_SETUP_SQPOLL;
    params.sq_thread_idle = 2000;
  }
  if (io_uring_queue_init_params(8, &ring, &params) != 0) { perror("io_uring_queue_init"); return 1; }
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (strcmp(argv[1], "sqpoll") == 0) {
    sqe = io_uring_get_sqe(&ring);
    io_uring_prep_openat(sqe, AT_FDCWD, argv[2], O_RDONLY, 0);
    if ((fd = run("openat")) < 0) return 1;
    sqe = io_uring_get_sqe(&ring);
    io_uring_prep_read(sqe, fd, buf, sizeof buf, 0);
    run("pread64");
    sqe = io_uring_get_sqe(&ring);
    io_uring_prep_close(sqe, fd);
    run("close");
    io_uring_queue_exit(&ring);
    return 0;
  }
  const char *dir = argv[2];
  char *d = join(dir, "d"), *f = join(d, "f"), *g = join(d, "g"), *s = join(d, "s"), *h = join(d, "h");
  memset(buf, 'u', sizeof buf);
  sqe = io_uring_get_sqe(&ring);
  io_uring_prep_mkdirat(sqe, AT_FDCWD, d, 0755);
  run("mkdirat");
  sqe = io_uring_get_sqe(&ring);
  io_uring_prep_openat(sqe, AT_FDCWD, f, O_CREAT | O_RDWR, 0640);
  if ((fd = run("openat")) < 0) return 1;
  sqe = io_uring_get_sqe(&ring);
  io_uring_prep_write(sqe, fd, buf, sizeof buf, 4096);
  run("pwrite64");
  sqe = io_uring_get_sqe(&ring);
  io_uring_prep_rw(OP_FTRUNCATE, sqe, fd, NULL, 0, 12288);
  run("ftruncate");
  sqe = io_uring_get_sqe(&ring);
  io_uring_prep_statx(sqe, AT_FDCWD, f, 0, STATX_SIZE, &stx);
  run("statx");
  sqe = io_uring_get_sqe(&ring);
  io_uring_prep_fsync(sqe, fd, 0);
  run("fsync");
  sqe = io_uring_get_sqe(&ring);
  io_uring_prep_close(sqe, fd);
  run("close");
  sqe = io_uring_get_sqe(&ring);
  io_uring_prep_renameat(sqe, AT_FDCWD, f, AT_FDCWD, g, 0);
  run("renameat2");
  sqe = io_uring_get_sqe(&ring);
  io_uring_prep_symlinkat(sqe, "g", AT_FDCWD, s);
  run("symlinkat");
  sqe = io_uring_get_sqe(&ring);
  io_uring_prep_linkat(sqe, AT_FDCWD, g, AT_FDCWD, h, 0);
  run("linkat");
  const char *gone[] = {h, s, g};
  for (int i = 0; i < 3; ++i) {
    sqe = io_uring_get_sqe(&ring);
    io_uring_prep_unlinkat(sqe, AT_FDCWD, gone[i], 0);
    run("unlinkat");
  }
  sqe = io_uring_get_sqe(&ring);
  io_uring_prep_unlinkat(sqe, AT_FDCWD, d, AT_REMOVEDIR);
  run("unlinkat");
  io_uring_queue_exit(&ring);
  return 0;
}
