/* python/diagc/collect.c: the loggers' callback of diagc's Context.simulate
 * (python/diagc/_sim.py), compiled into each model by diagc.build, and
 * diagc_py_simulate, the whole of a simulation in one foreign call (a
 * dozen calls through ctypes cost about as much as 1 ms of simulated
 * pendulum; bench/python).  The callback
 * appends each publish instant's samples to arrays that double when full,
 * so that a simulation from Python makes no Python call per sample.  A
 * row holds every logger's elements (NaN for a logger that did not fire
 * then) and a fired flag per logger.  Allocation happens only when the
 * arrays double (log2 of the rows times in a run); a failed one stops
 * collecting and sets `failed`, which Python reports.
 *
 * C99. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagc/simulator.h"

typedef struct diagc_py_log {
  int n_loggers;
  int width;            /* the sum of the loggers' sizes */
  const int *sizes;     /* n_loggers */
  size_t rows, cap;
  double *t;            /* rows */
  double *values;       /* rows x width */
  unsigned char *fired; /* rows x n_loggers */
  int failed;
  size_t full_rows;     /* rows in which every logger fired */
} diagc_py_log;

void diagc_py_log_append(void *user, double t, const unsigned char *fired,
                         const double *const *values);
void diagc_py_log_free(diagc_py_log *l);
int diagc_py_simulate(const diagc_model *m, void *ctx, const diagc_sim_options *opt, double until,
                      diagc_py_log *col, diagc_sim_statistics *stats, char *err, size_t errlen);

static int grow(diagc_py_log *l) {
  size_t cap = l->cap ? 2 * l->cap : 1024;
  double *t = realloc(l->t, cap * sizeof *t);
  if (t) l->t = t;
  double *v = t ? realloc(l->values, cap * (size_t)(l->width ? l->width : 1) * sizeof *v) : NULL;
  if (v) l->values = v;
  unsigned char *f = v ? realloc(l->fired, cap * (size_t)(l->n_loggers ? l->n_loggers : 1)) : NULL;
  if (f) l->fired = f;
  if (!f) return -1;
  l->cap = cap;
  return 0;
}

void diagc_py_log_append(void *user, double t, const unsigned char *fired,
                         const double *const *values) {
  diagc_py_log *l = user;
  if (l->failed) return;
  if (l->rows == l->cap && grow(l) != 0) {
    l->failed = 1;
    return;
  }
  size_t r = l->rows++;
  double *row = l->values + r * (size_t)l->width;
  int all = 1;
  l->t[r] = t;
  for (int i = 0, col = 0; i < l->n_loggers; col += l->sizes[i], i++) {
    all &= fired[i] ? 1 : 0;
    l->fired[r * (size_t)l->n_loggers + (size_t)i] = fired[i] ? 1 : 0;
    if (fired[i])
      memcpy(row + col, values[i], (size_t)l->sizes[i] * sizeof(double));
    else
      for (int k = 0; k < l->sizes[i]; k++) row[col + k] = NAN;
  }
  l->full_rows += (size_t)all;
}

void diagc_py_log_free(diagc_py_log *l) {
  free(l->t);
  free(l->values);
  free(l->fired);
  l->t = l->values = NULL;
  l->fired = NULL;
  l->rows = l->cap = l->full_rows = 0;
}

/* A simulator of m from the context ctx (copied in), the loggers into col
 * (when it has any), initialized and advanced to `until`; on success its
 * statistics into stats and the final context copied back into ctx, and
 * the simulator's status returned (0, or 1 when a handler ended the run).
 * On failure a negative status, the reason in err, and ctx unchanged; a
 * failed allocation of the logs (col->failed) also leaves ctx unchanged. */
int diagc_py_simulate(const diagc_model *m, void *ctx, const diagc_sim_options *opt, double until,
                      diagc_py_log *col, diagc_sim_statistics *stats, char *err, size_t errlen) {
  diagc_sim *sim = diagc_sim_create_ex(m, opt, err, errlen);
  int rc;
  if (!sim) {
    if (errlen && !err[0]) snprintf(err, errlen, "the simulator could not be created");
    return -1;
  }
  memcpy(diagc_sim_context(sim), ctx, m->context_size);
  if (m->n_loggers > 0) diagc_sim_set_log_callback(sim, diagc_py_log_append, col);
  rc = diagc_sim_initialize(sim);
  if (rc >= 0) {
    int rc2 = diagc_sim_advance_to(sim, until);
    rc = rc2 != 0 ? rc2 : rc;
  }
  if (rc < 0) {
    snprintf(err, errlen, "%s", diagc_sim_error(sim));
  } else if (!col->failed) {
    diagc_sim_stats(sim, stats);
    memcpy(ctx, diagc_sim_context(sim), m->context_size);
  }
  diagc_sim_destroy(sim);
  return rc;
}
