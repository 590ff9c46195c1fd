// rastro's MPI interposition library (PMPI wrappers), LD_PRELOAD'ed into each rank by
// `rastro capture --mpi`. It is C, not C++, so it drags no C++ runtime into the application, and it
// links no MPI library: the PMPI_* symbols resolve at run time from the application's own MPI. It is
// compiled once per MPI ABI (Open MPI, MPICH) because their mpi.h handle types differ.
//
// What it writes (text, one record a line, to $RASTRO_MPI_LOG; format in mpi/mpi_log.h):
//  - clock synchronisation rounds against rank 0 right after MPI_Init and right before
//    MPI_Finalize (Cristian's ping-pong: the rank notes t1, asks rank 0 for its clock T, notes t2;
//    rank 0's clock read T happened inside [t1, t2] of the rank's clock);
//  - one record per point-to-point and collective operation: the calling thread, begin/end on
//    CLOCK_MONOTONIC (the clock the capture backends use), the communicator (a key shared by every
//    rank), the peer as a rank of MPI_COMM_WORLD, tag, bytes and, for collectives, their sequence
//    number on that communicator (MPI requires every member to call collectives in the same order).
// With $RASTRO_MPI_LOG unset every wrapper is a plain pass-through.
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define RASTRO_SYNC_TAG 0x5a5a
#define RASTRO_MAX_COMMS 256
#define RASTRO_MAX_PENDING 4096

static FILE* log_file;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int world_rank = -1, world_size = 0;
static MPI_Comm sync_comm = MPI_COMM_NULL;
static uint64_t records_dropped;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
static long my_tid(void) { return (long)syscall(SYS_gettid); }

static uint64_t handle_key(const void* handle, size_t size) {
  uint64_t k = 0;
  memcpy(&k, handle, size < sizeof k ? size : sizeof k);
  return k;
}

// ---- communicators: a key every member computes alike, and world-rank translation -------------
struct comm_entry {
  uint64_t handle;
  int used;
  int64_t key;         // 0 for MPI_COMM_WORLD; else a hash of the members' world ranks
  int64_t collectives; // collectives issued so far on this communicator by this rank
  int size;
  int* to_world;       // comm rank -> world rank
};
static struct comm_entry comms[RASTRO_MAX_COMMS];

static struct comm_entry* comm_info(MPI_Comm comm) {
  uint64_t h = handle_key(&comm, sizeof comm);
  for (int i = 0; i < RASTRO_MAX_COMMS; ++i)
    if (comms[i].used && comms[i].handle == h) return &comms[i];
  struct comm_entry* e = NULL;
  for (int i = 0; i < RASTRO_MAX_COMMS && !e; ++i)
    if (!comms[i].used) e = &comms[i];
  if (!e) return NULL;  // too many live communicators: such records carry comm -1
  int size = 0;
  PMPI_Comm_size(comm, &size);
  int* ranks = malloc(sizeof(int) * (size_t)size);
  int* world = malloc(sizeof(int) * (size_t)size);
  if (!ranks || !world) {
    free(ranks);
    free(world);
    return NULL;
  }
  for (int i = 0; i < size; ++i) ranks[i] = i;
  MPI_Group g, wg;
  PMPI_Comm_group(comm, &g);
  PMPI_Comm_group(MPI_COMM_WORLD, &wg);
  PMPI_Group_translate_ranks(g, size, ranks, wg, world);
  PMPI_Group_free(&g);
  PMPI_Group_free(&wg);
  free(ranks);
  int64_t key = 0;
  if (comm != MPI_COMM_WORLD) {
    uint64_t hsh = 1469598103934665603ull;  // FNV-1a over the members' world ranks
    for (int i = 0; i < size; ++i) {
      hsh ^= (uint64_t)(uint32_t)world[i];
      hsh *= 1099511628211ull;
    }
    key = (int64_t)(hsh & 0x7fffffffffffull) | 1;  // never 0 (reserved for the world)
  }
  e->handle = h;
  e->used = 1;
  e->key = key;
  e->collectives = 0;
  e->size = size;
  e->to_world = world;
  return e;
}

static int to_world_rank(struct comm_entry* c, int r) {
  if (!c || r < 0 || r >= c->size) return r;  // MPI_PROC_NULL, MPI_ANY_SOURCE, MPI_ROOT stay as they are
  return c->to_world[r];
}

// ---- the log -----------------------------------------------------------------------------------
static void emit(const char* name, int64_t begin, int64_t end, struct comm_entry* c, int peer, int tag,
                 int64_t bytes, int64_t extra, int rc) {
  if (!log_file) return;
  pthread_mutex_lock(&log_lock);
  if (fprintf(log_file, "E %s %ld %lld %lld %lld %d %d %lld %lld %d\n", name, my_tid(), (long long)begin,
              (long long)end, (long long)(c ? c->key : -1), peer, tag, (long long)bytes, (long long)extra, rc) < 0)
    ++records_dropped;
  pthread_mutex_unlock(&log_lock);
}

static int64_t type_bytes(MPI_Datatype t, int count) {
  int size = 0;
  if (t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &size) != MPI_SUCCESS) return 0;
  return (int64_t)size * count;
}

static void emit_p2p(const char* name, int64_t begin, int64_t end, MPI_Comm comm, int peer, int tag, int64_t bytes,
                     int rc) {
  if (!log_file) return;
  struct comm_entry* c = comm_info(comm);
  emit(name, begin, end, c, to_world_rank(c, peer), tag, bytes, 0, rc);
}

static void emit_collective(const char* name, int64_t begin, int64_t end, MPI_Comm comm, int root, int64_t bytes,
                            int rc) {
  if (!log_file) return;
  struct comm_entry* c = comm_info(comm);
  int64_t seq = c ? c->collectives++ : -1;
  emit(name, begin, end, c, root >= 0 ? to_world_rank(c, root) : -1, -1, bytes, seq, rc);
}

// ---- clock synchronisation (Cristian's algorithm, rank 0 as the reference) ----------------------
static void clock_sync(const char* phase) {
  int rounds = 16;
  const char* env = getenv("RASTRO_MPI_SYNC_ROUNDS");
  if (env && atoi(env) > 0) rounds = atoi(env);
  if (world_rank == 0) {
    for (int peer = 1; peer < world_size; ++peer)
      for (int k = 0; k < rounds; ++k) {
        int64_t dummy = 0, t = 0;
        PMPI_Recv(&dummy, 1, MPI_INT64_T, peer, RASTRO_SYNC_TAG, sync_comm, MPI_STATUS_IGNORE);
        t = now_ns();
        PMPI_Send(&t, 1, MPI_INT64_T, peer, RASTRO_SYNC_TAG, sync_comm);
      }
  } else {
    for (int k = 0; k < rounds; ++k) {
      int64_t dummy = 0, t0 = 0;
      int64_t t1 = now_ns();
      PMPI_Send(&dummy, 1, MPI_INT64_T, 0, RASTRO_SYNC_TAG, sync_comm);
      PMPI_Recv(&t0, 1, MPI_INT64_T, 0, RASTRO_SYNC_TAG, sync_comm, MPI_STATUS_IGNORE);
      int64_t t2 = now_ns();
      if (log_file) fprintf(log_file, "S %s %lld %lld %lld\n", phase, (long long)t1, (long long)t0, (long long)t2);
    }
  }
}

static void start_log(int64_t begin, int rc) {
  const char* path = getenv("RASTRO_MPI_LOG");
  if (!path || !*path || rc != MPI_SUCCESS) return;
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
  log_file = fopen(path, "w");
  if (!log_file) {
    fprintf(stderr, "rastro-mpi: cannot write %s: MPI operations of rank %d are not recorded\n", path, world_rank);
    return;
  }
  setvbuf(log_file, NULL, _IOFBF, 1 << 20);
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  fprintf(log_file, "rastro-mpi 1\nrank %d %d %s %ld\n", world_rank, world_size, host, (long)getpid());
  PMPI_Comm_dup(MPI_COMM_WORLD, &sync_comm);
  // One job id for every rank, whatever the launcher: rank 0's host, pid and clock, broadcast.
  char job[384] = {0};  // host (up to 255) + pid + clock
  if (world_rank == 0) snprintf(job, sizeof job, "%s-%ld-%lld", host, (long)getpid(), (long long)now_ns());
  PMPI_Bcast(job, (int)sizeof job, MPI_CHAR, 0, sync_comm);
  job[sizeof job - 1] = 0;
  fprintf(log_file, "job %s\n", job);
  clock_sync("init");
  emit("MPI_Init", begin, now_ns(), comm_info(MPI_COMM_WORLD), -1, -1, 0, 0, rc);
}

int MPI_Init(int* argc, char*** argv) {
  int64_t b = now_ns();
  int rc = PMPI_Init(argc, argv);
  start_log(b, rc);
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  int64_t b = now_ns();
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  start_log(b, rc);
  return rc;
}

int MPI_Finalize(void) {
  if (log_file) {
    int64_t b = now_ns();
    clock_sync("finalize");
    emit("MPI_Finalize", b, now_ns(), comm_info(MPI_COMM_WORLD), -1, -1, 0, 0, 0);
    fprintf(log_file, "end %llu\n", (unsigned long long)records_dropped);
    fclose(log_file);
    log_file = NULL;
    PMPI_Comm_free(&sync_comm);
  }
  for (int i = 0; i < RASTRO_MAX_COMMS; ++i) {
    free(comms[i].to_world);
    comms[i].to_world = NULL;
    comms[i].used = 0;
  }
  return PMPI_Finalize();
}

int MPI_Comm_free(MPI_Comm* comm) {
  uint64_t h = handle_key(comm, sizeof *comm);
  for (int i = 0; i < RASTRO_MAX_COMMS; ++i)
    if (comms[i].used && comms[i].handle == h) {
      free(comms[i].to_world);
      comms[i].to_world = NULL;
      comms[i].used = 0;
    }
  return PMPI_Comm_free(comm);
}

// ---- point to point ------------------------------------------------------------------------------
#define BLOCKING_SEND(NAME)                                                                              \
  int NAME(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {            \
    int64_t b = now_ns();                                                                                \
    int rc = P##NAME(buf, count, type, dest, tag, comm);                                                 \
    emit_p2p(#NAME, b, now_ns(), comm, dest, tag, type_bytes(type, count), rc);                          \
    return rc;                                                                                           \
  }
BLOCKING_SEND(MPI_Send)
BLOCKING_SEND(MPI_Ssend)
BLOCKING_SEND(MPI_Bsend)
BLOCKING_SEND(MPI_Rsend)

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  int64_t b = now_ns();
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
  int got = 0;
  if (rc == MPI_SUCCESS) PMPI_Get_count(st, type, &got);
  emit_p2p("MPI_Recv", b, now_ns(), comm, rc == MPI_SUCCESS ? st->MPI_SOURCE : source,
           rc == MPI_SUCCESS ? st->MPI_TAG : tag, type_bytes(type, got), rc);
  return rc;
}

int MPI_Sendrecv(const void* sbuf, int scount, MPI_Datatype stype, int dest, int stag, void* rbuf, int rcount,
                 MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Status* status) {
  int64_t b = now_ns();
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, st);
  int64_t e = now_ns();
  int got = 0;
  if (rc == MPI_SUCCESS) PMPI_Get_count(st, rtype, &got);
  emit_p2p("MPI_Sendrecv.send", b, e, comm, dest, stag, type_bytes(stype, scount), rc);
  emit_p2p("MPI_Sendrecv.recv", b, e, comm, rc == MPI_SUCCESS ? st->MPI_SOURCE : source,
           rc == MPI_SUCCESS ? st->MPI_TAG : rtag, type_bytes(rtype, got), rc);
  return rc;
}

// Nonblocking receives are recorded when they complete (their source, tag and size are known only
// then), from the posting call's begin to the completing call's end.
struct pending_recv {
  uint64_t request;
  int used;
  int64_t posted;
  MPI_Comm comm;
  MPI_Datatype type;
};
static struct pending_recv pending[RASTRO_MAX_PENDING];
static uint64_t pending_overflow;

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  int64_t b = now_ns();
  int rc = PMPI_Isend(buf, count, type, dest, tag, comm, req);
  emit_p2p("MPI_Isend", b, now_ns(), comm, dest, tag, type_bytes(type, count), rc);
  return rc;
}

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* req) {
  int64_t b = now_ns();
  int rc = PMPI_Irecv(buf, count, type, source, tag, comm, req);
  if (log_file && rc == MPI_SUCCESS) {
    pthread_mutex_lock(&log_lock);
    int slot = -1;
    for (int i = 0; i < RASTRO_MAX_PENDING && slot < 0; ++i)
      if (!pending[i].used) slot = i;
    if (slot < 0) {
      ++pending_overflow;
      ++records_dropped;
    } else {
      pending[slot] = (struct pending_recv){handle_key(req, sizeof *req), 1, b, comm, type};
    }
    pthread_mutex_unlock(&log_lock);
  }
  return rc;
}

// Called with the handles as they were before completion and the statuses completion filled.
static void complete_requests(int n, const uint64_t* before, const int* done, MPI_Status* st, int64_t end) {
  for (int i = 0; i < n; ++i) {
    if (!done[i]) continue;
    struct pending_recv p = {0};
    pthread_mutex_lock(&log_lock);
    for (int j = 0; j < RASTRO_MAX_PENDING; ++j)
      if (pending[j].used && pending[j].request == before[i]) {
        p = pending[j];
        pending[j].used = 0;
        break;
      }
    pthread_mutex_unlock(&log_lock);
    if (!p.used) continue;  // a send, or a receive posted before the log started
    int got = 0;
    PMPI_Get_count(&st[i], p.type, &got);
    emit_p2p("MPI_Irecv", p.posted, end, p.comm, st[i].MPI_SOURCE, st[i].MPI_TAG, type_bytes(p.type, got),
             MPI_SUCCESS);
  }
}

int MPI_Wait(MPI_Request* req, MPI_Status* status) {
  if (!log_file) return PMPI_Wait(req, status);
  int64_t b = now_ns();
  uint64_t before = handle_key(req, sizeof *req);
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  int rc = PMPI_Wait(req, st);
  int64_t e = now_ns();
  int done = rc == MPI_SUCCESS;
  complete_requests(1, &before, &done, st, e);
  emit("MPI_Wait", b, e, NULL, -1, -1, 0, 1, rc);
  return rc;
}

int MPI_Test(MPI_Request* req, int* flag, MPI_Status* status) {
  if (!log_file) return PMPI_Test(req, flag, status);
  uint64_t before = handle_key(req, sizeof *req);
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  int rc = PMPI_Test(req, flag, st);
  int done = rc == MPI_SUCCESS && *flag;
  if (done) complete_requests(1, &before, &done, st, now_ns());
  return rc;
}

// Waitall/Testall/Waitany/Waitsome share this: snapshot the handles, run, report the completed ones.
struct multi {
  uint64_t* before;
  int* done;
  MPI_Status* st;
};
static int multi_begin(struct multi* m, int n, const MPI_Request* reqs) {
  m->before = calloc((size_t)(n > 0 ? n : 1), sizeof *m->before);
  m->done = calloc((size_t)(n > 0 ? n : 1), sizeof *m->done);
  m->st = calloc((size_t)(n > 0 ? n : 1), sizeof *m->st);
  if (!m->before || !m->done || !m->st) return 0;
  for (int i = 0; i < n; ++i) m->before[i] = handle_key(&reqs[i], sizeof reqs[i]);
  return 1;
}
static void multi_end(struct multi* m) {
  free(m->before);
  free(m->done);
  free(m->st);
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  struct multi m;
  if (!log_file || !multi_begin(&m, n, reqs)) return PMPI_Waitall(n, reqs, statuses);
  int64_t b = now_ns();
  int rc = PMPI_Waitall(n, reqs, m.st);
  int64_t e = now_ns();
  for (int i = 0; i < n; ++i) m.done[i] = rc == MPI_SUCCESS;
  complete_requests(n, m.before, m.done, m.st, e);
  if (statuses != MPI_STATUSES_IGNORE) memcpy(statuses, m.st, sizeof(MPI_Status) * (size_t)n);
  emit("MPI_Waitall", b, e, NULL, -1, -1, 0, n, rc);
  multi_end(&m);
  return rc;
}

int MPI_Testall(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  struct multi m;
  if (!log_file || !multi_begin(&m, n, reqs)) return PMPI_Testall(n, reqs, flag, statuses);
  int rc = PMPI_Testall(n, reqs, flag, m.st);
  for (int i = 0; i < n; ++i) m.done[i] = rc == MPI_SUCCESS && *flag;
  complete_requests(n, m.before, m.done, m.st, now_ns());
  if (statuses != MPI_STATUSES_IGNORE) memcpy(statuses, m.st, sizeof(MPI_Status) * (size_t)n);
  multi_end(&m);
  return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int* index, MPI_Status* status) {
  struct multi m;
  if (!log_file || !multi_begin(&m, n, reqs)) return PMPI_Waitany(n, reqs, index, status);
  int64_t b = now_ns();
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  int rc = PMPI_Waitany(n, reqs, index, st);
  int64_t e = now_ns();
  if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED) {
    int done = 1;
    complete_requests(1, &m.before[*index], &done, st, e);
  }
  emit("MPI_Waitany", b, e, NULL, -1, -1, 0, 1, rc);
  multi_end(&m);
  return rc;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  struct multi m;
  if (!log_file || !multi_begin(&m, n, reqs)) return PMPI_Waitsome(n, reqs, outcount, indices, statuses);
  int64_t b = now_ns();
  int rc = PMPI_Waitsome(n, reqs, outcount, indices, m.st);
  int64_t e = now_ns();
  if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
    for (int k = 0; k < *outcount; ++k) {
      int done = 1;
      complete_requests(1, &m.before[indices[k]], &done, &m.st[k], e);
    }
  if (statuses != MPI_STATUSES_IGNORE && rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
    memcpy(statuses, m.st, sizeof(MPI_Status) * (size_t)*outcount);
  emit("MPI_Waitsome", b, e, NULL, -1, -1, 0, rc == MPI_SUCCESS ? *outcount : 0, rc);
  multi_end(&m);
  return rc;
}

// ---- collectives ---------------------------------------------------------------------------------
int MPI_Barrier(MPI_Comm comm) {
  int64_t b = now_ns();
  int rc = PMPI_Barrier(comm);
  emit_collective("MPI_Barrier", b, now_ns(), comm, -1, 0, rc);
  return rc;
}

int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  int64_t b = now_ns();
  int rc = PMPI_Bcast(buf, count, type, root, comm);
  emit_collective("MPI_Bcast", b, now_ns(), comm, root, type_bytes(type, count), rc);
  return rc;
}

int MPI_Reduce(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  int64_t b = now_ns();
  int rc = PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
  emit_collective("MPI_Reduce", b, now_ns(), comm, root, type_bytes(type, count), rc);
  return rc;
}

int MPI_Allreduce(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  int64_t b = now_ns();
  int rc = PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
  emit_collective("MPI_Allreduce", b, now_ns(), comm, -1, type_bytes(type, count), rc);
  return rc;
}

int MPI_Gather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root,
               MPI_Comm comm) {
  int64_t b = now_ns();
  int rc = PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
  emit_collective("MPI_Gather", b, now_ns(), comm, root, type_bytes(stype, scount), rc);
  return rc;
}

int MPI_Scatter(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root,
                MPI_Comm comm) {
  int64_t b = now_ns();
  int rc = PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
  emit_collective("MPI_Scatter", b, now_ns(), comm, root, type_bytes(rtype, rcount), rc);
  return rc;
}

int MPI_Allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm comm) {
  int64_t b = now_ns();
  int rc = PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
  emit_collective("MPI_Allgather", b, now_ns(), comm, -1, type_bytes(stype, scount), rc);
  return rc;
}

int MPI_Alltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                 MPI_Comm comm) {
  int64_t b = now_ns();
  int rc = PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
  emit_collective("MPI_Alltoall", b, now_ns(), comm, -1, type_bytes(stype, scount), rc);
  return rc;
}
