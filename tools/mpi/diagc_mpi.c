/* tools/mpi/diagc_mpi.c: lib/libdiagc_mpi.so, the few MPI calls `diagc
 * sweep --mpi` makes (generator/diagc/cli/sweep_mpi.lua loads it with
 * LuaJIT's FFI).  Built by make only when Open MPI's mpicc is installed
 * (scripts/install-deps.sh libopenmpi-dev); without it, --mpi is an
 * error naming the package.  Every call works on MPI_COMM_WORLD and
 * returns 0 or MPI's error code.  C99.
 */
#include <mpi.h>

int diagc_mpi_init(int *rank, int *size) {
  int rc, flag = 0;
  MPI_Initialized(&flag);
  if (!flag && (rc = MPI_Init(NULL, NULL)) != MPI_SUCCESS) return rc;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if ((rc = MPI_Comm_rank(MPI_COMM_WORLD, rank)) != MPI_SUCCESS) return rc;
  return MPI_Comm_size(MPI_COMM_WORLD, size);
}

int diagc_mpi_finalize(void) { return MPI_Finalize(); }

void diagc_mpi_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

int diagc_mpi_send(const void *buf, long bytes, int dest, int tag) {
  return MPI_Send(buf, (int)bytes, MPI_BYTE, dest, tag, MPI_COMM_WORLD);
}

/* Waits for a message from src (-1: any rank): its source, tag, bytes. */
int diagc_mpi_probe(int src, int *out_src, int *out_tag, long *bytes) {
  MPI_Status st;
  int n = 0, rc = MPI_Probe(src < 0 ? MPI_ANY_SOURCE : src, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Get_count(&st, MPI_BYTE, &n);
  *out_src = st.MPI_SOURCE;
  *out_tag = st.MPI_TAG;
  *bytes = n;
  return 0;
}

int diagc_mpi_recv(void *buf, long bytes, int src, int tag) {
  return MPI_Recv(buf, (int)bytes, MPI_BYTE, src, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
