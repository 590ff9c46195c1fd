/* rastro's MPI replay shim (interface and rules in rastro_mpireplay.h): the few MPI calls a rank
 * of `rastro replay --mpi` needs to start with the others, exchange dependency tokens and clock
 * synchronisation rounds, and stop. C, compiled once per MPI ABI like the capture interposer
 * (mpi/interpose/rastro_pmpi.c): the MPI_Comm/MPI_Request handle types differ between ABIs. */
#include "rastro_mpireplay.h"

#include <mpi.h>
#include <stdlib.h>

/* A send in flight: MPI owns `value` until the request completes, so each has its own node. */
struct pending_send {
  MPI_Request request;
  int64_t value;
  struct pending_send* next;
};

static struct pending_send* pending;
static MPI_Comm comm = MPI_COMM_NULL; /* a private duplicate: no clash with anything else's tags */

/* Frees the sends that completed (all of them, waiting, when `block` is set). */
static int reap(int block) {
  struct pending_send** link = &pending;
  while (*link) {
    struct pending_send* p = *link;
    int done = 0, rc;
    if (block) {
      rc = MPI_Wait(&p->request, MPI_STATUS_IGNORE);
      done = 1;
    } else {
      rc = MPI_Test(&p->request, &done, MPI_STATUS_IGNORE);
    }
    if (rc != MPI_SUCCESS) return rc;
    if (done) {
      *link = p->next;
      free(p);
    } else {
      link = &p->next;
    }
  }
  return MPI_SUCCESS;
}

int rastro_mpireplay_init(int* rank, int* size) {
  int provided = 0, rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
  if (rc != MPI_SUCCESS) return rc;
  if ((rc = MPI_Comm_dup(MPI_COMM_WORLD, &comm)) != MPI_SUCCESS) return rc;
  if ((rc = MPI_Comm_rank(comm, rank)) != MPI_SUCCESS) return rc;
  return MPI_Comm_size(comm, size);
}

int rastro_mpireplay_send(int dest, int tag, int64_t value) {
  struct pending_send* p = malloc(sizeof *p);
  if (!p) return MPI_ERR_NO_MEM;
  p->value = value;
  int rc = MPI_Isend(&p->value, 1, MPI_INT64_T, dest, tag, comm, &p->request);
  if (rc != MPI_SUCCESS) {
    free(p);
    return rc;
  }
  p->next = pending;
  pending = p;
  return reap(0);
}

int rastro_mpireplay_poll(int tag, int* source, int64_t* value) {
  int flag = 0, rc = reap(0);
  MPI_Status st;
  if (rc == MPI_SUCCESS) rc = MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &flag, &st);
  if (rc != MPI_SUCCESS) return -rc;
  if (!flag) return 0;
  rc = MPI_Recv(value, 1, MPI_INT64_T, st.MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return -rc;
  *source = st.MPI_SOURCE;
  return 1;
}

int rastro_mpireplay_recv(int source, int tag, int64_t* value) {
  return MPI_Recv(value, 1, MPI_INT64_T, source, tag, comm, MPI_STATUS_IGNORE);
}

int rastro_mpireplay_barrier(void) { return MPI_Barrier(comm); }

int rastro_mpireplay_finalize(void) {
  int rc = reap(1);
  if (rc != MPI_SUCCESS) return rc;
  if (comm != MPI_COMM_NULL && (rc = MPI_Comm_free(&comm)) != MPI_SUCCESS) return rc;
  return MPI_Finalize();
}
