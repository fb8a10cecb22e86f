/* python/diagc/collect.c: the loggers' callback of diagc's Context.simulate
 * (python/diagc/_sim.py), compiled into each model by diagc.build.  It
 * appends each publish instant's samples to arrays that double when full,
 * so that a simulation from Python makes no Python call per sample.  A
 * row holds every logger's elements (NaN for a logger that did not fire
 * then) and a fired flag per logger.  Allocation happens only when the
 * arrays double (log2 of the rows times in a run); a failed one stops
 * collecting and sets `failed`, which Python reports.
 *
 * C99. */
#include <math.h>
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
} diagc_py_log;

void diagc_py_log_append(void *user, double t, const unsigned char *fired,
                         const double *const *values);
void diagc_py_log_free(diagc_py_log *l);

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
  l->t[r] = t;
  for (int i = 0, col = 0; i < l->n_loggers; col += l->sizes[i], i++) {
    l->fired[r * (size_t)l->n_loggers + (size_t)i] = fired[i] ? 1 : 0;
    if (fired[i])
      memcpy(row + col, values[i], (size_t)l->sizes[i] * sizeof(double));
    else
      for (int k = 0; k < l->sizes[i]; k++) row[col + k] = NAN;
  }
}

void diagc_py_log_free(diagc_py_log *l) {
  free(l->t);
  free(l->values);
  free(l->fired);
  l->t = l->values = NULL;
  l->fired = NULL;
  l->rows = l->cap = 0;
}
