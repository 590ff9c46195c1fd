// A small MPI application with file I/O, the object of the multi-node tests (docs/multinode.md)
// and the workload of `rastro validate mpi` (docs/campaign.md), built per MPI beside rastro:
// each rank writes its own file (rank 0 many more blocks: the others wait for it at the barrier),
// the ranks pass a token around a ring (blocking send/recv), each appending a block to its file
// while it holds the token, rank 0 writes a shared file at each rank's offset in turn as the
// others tell it their byte counts (nonblocking receives, any source), and barriers separate the
// phases. A replay that ignored the messages would let the others' ring writes run ahead of rank
// 0's first phase.
// Usage: mpi_io_ranks DIR [ROUNDS]
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* dir = argc > 1 ? argv[1] : ".";
  int rounds = argc > 2 ? atoi(argv[2]) : 4;
  char path[4096], block[4096];
  memset(block, 'a' + rank % 26, sizeof block);

  snprintf(path, sizeof path, "%s/rank-%d.dat", dir, rank);
  int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0) MPI_Abort(MPI_COMM_WORLD, 2);
  const int blocks = rank == 0 ? rounds * 32 : rounds;
  for (int i = 0; i < blocks; ++i)
    if (write(fd, block, sizeof block) != (ssize_t)sizeof block) MPI_Abort(MPI_COMM_WORLD, 3);
  fsync(fd);
  MPI_Barrier(MPI_COMM_WORLD);

  // Ring: rank r receives the token from r-1, then passes it to r+1; rank 0 starts and ends it.
  for (int i = 0; i < rounds; ++i) {
    int token = i;
    if (rank == 0) {
      if (write(fd, block, sizeof block) != (ssize_t)sizeof block) MPI_Abort(MPI_COMM_WORLD, 3);
      MPI_Send(&token, 1, MPI_INT, 1 % size, 7, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_INT, size - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&token, 1, MPI_INT, rank - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (write(fd, block, sizeof block) != (ssize_t)sizeof block) MPI_Abort(MPI_COMM_WORLD, 3);
      MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD);
    }
  }
  close(fd);

  // Shared file: the others send their sizes, rank 0 writes each one's region when it hears.
  snprintf(path, sizeof path, "%s/shared.dat", dir);
  long bytes = (long)(blocks + rounds) * (long)sizeof block;
  if (rank == 0) {
    int sfd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (sfd < 0) MPI_Abort(MPI_COMM_WORLD, 4);
    MPI_Request* reqs = calloc((size_t)size, sizeof *reqs);
    long* sizes = calloc((size_t)size, sizeof *sizes);
    for (int r = 1; r < size; ++r) MPI_Irecv(&sizes[r], 1, MPI_LONG, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &reqs[r - 1]);
    for (int k = 1; k < size; ++k) {
      int idx = 0;
      MPI_Status st;
      MPI_Waitany(size - 1, reqs, &idx, &st);
      if (pwrite(sfd, block, sizeof block, (off_t)st.MPI_SOURCE * (off_t)sizeof block) != (ssize_t)sizeof block)
        MPI_Abort(MPI_COMM_WORLD, 5);
    }
    fsync(sfd);
    close(sfd);
    free(reqs);
    free(sizes);
  } else {
    MPI_Request req;
    MPI_Isend(&bytes, 1, MPI_LONG, 0, 9, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  long total = 0;
  MPI_Allreduce(&bytes, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("ranks %d bytes %ld\n", size, total);
  MPI_Finalize();
  return 0;
}
