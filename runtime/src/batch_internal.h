/* Internal to the batch: the pool (batch.c) and its per-run output step
 * (batch_out.c).  Calls go one way: batch.c -> batch_out.c. */
#ifndef DIAGC_BATCH_INTERNAL_H
#define DIAGC_BATCH_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <pthread.h>

#include "diagc/batch.h"

typedef struct worker {
  char pad0[64]; /* the fields below are written per log row: keep them
                    off the cache lines of the neighbouring workers */
  struct diagc_batch *b;
  diagc_sim *sim;
  pthread_t thread;
  int started;
  double *jac;          /* VJP: K x nnz Jacobian values */
  size_t jac_cap;       /* doubles */
  /* the run being logged */
  const diagc_batch_job *job;
  int run;
  int rows;
  /* the output step (batch_out.c): the file being written, from buf */
  char *buf;            /* out_cap bytes */
  size_t used;
  double *stats;        /* 3 x log_width: final, min, max of each column */
  char *path, *tmp;     /* path_cap bytes each */
  int fd;
  int io_errno;         /* the first failed call's errno (0: none) */
  char pad1[64];
} worker;

struct diagc_batch {
  const diagc_model *m;
  int jobs;
  void *ctx0;
  worker *w;
  int log_width;
  int *log_off;         /* n_loggers: column offset of each logger */
  /* the output step's sizes and the CSV header (made once) */
  char *header;
  size_t header_len;
  size_t out_cap, path_cap;
  /* the pool */
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  int generation;       /* bumped for each job */
  int stopping;
  int busy;             /* workers still in the current job */
  const diagc_batch_job *job;
  const diagc_batch_output *out; /* the job's output step, or NULL */
  int write_only;       /* diagc_batch_write: the output step only */
  atomic_int next;      /* the next run to hand out */
};

/* batch_out.c */
/* Checks out against the job and sizes every worker's buffers (the only
 * allocation of the output step).  DIAGC_OK, DIAGC_BATCH_E_ARG or
 * DIAGC_BATCH_E_NOMEM, with err. */
int diagc_batch_out_prepare(diagc_batch *b, const diagc_batch_job *j,
                            const diagc_batch_output *o, char *err,
                            size_t errlen);
/* Run i's output step on worker w: its summary cells and its CSV file; a
 * failed write becomes the run's status and message. */
void diagc_batch_out_run(worker *w, const diagc_batch_job *j,
                         const diagc_batch_output *o, int i);
/* Frees what prepare allocated (b->w still valid). */
void diagc_batch_out_free(diagc_batch *b);

#endif
