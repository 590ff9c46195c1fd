/* The C interface of rastro's MPI replay shim (librastro_mpireplay_<flavor>.so), which
 * `rastro replay --mpi` dlopens in each rank: rastro itself links no MPI library, so one rastro
 * serves every MPI ABI (Open MPI, MPICH), as the capture interposer does. Every function returns
 * 0 on success and an MPI error code (> 0) otherwise, except rastro_mpireplay_poll. Calls must be
 * serialised by the caller (the shim asks for MPI_THREAD_SERIALIZED). */
#ifndef RASTRO_MPIREPLAY_H
#define RASTRO_MPIREPLAY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MPI_Init_thread; this process's world rank and the world size. */
int rastro_mpireplay_init(int* rank, int* size);
/* One int64 to `dest` with `tag`, nonblocking (the shim keeps the buffer until the send completes). */
int rastro_mpireplay_send(int dest, int tag, int64_t value);
/* A message with `tag` from any rank if one has arrived: 1 and its source and value, 0 if none,
 * -(MPI error code) on failure. Never blocks. */
int rastro_mpireplay_poll(int tag, int* source, int64_t* value);
/* Blocking receive of one int64 from `source` with `tag`. */
int rastro_mpireplay_recv(int source, int tag, int64_t* value);
int rastro_mpireplay_barrier(void);
/* Completes the pending sends, then MPI_Finalize. */
int rastro_mpireplay_finalize(void);

#ifdef __cplusplus
}
#endif

#endif
