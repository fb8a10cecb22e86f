/* bench/python/ref.c: the C side of bench/python (python_bench.py): the
 * same calls as diagc's Python package makes, timed in C.
 *
 *   ref_simulate: Context.simulate's calls (python/diagc/_sim.py) for a
 *     model at its defaults: a simulator, the loggers into collect.c's
 *     arrays (this file includes python/diagc/collect.c, so the samples
 *     are stored by the same code), initialize, advance to `until`, the
 *     statistics, the final context copied out, everything freed.
 *   ref_batch: Model.batch's calls (python/diagc/_batch.py): a batch on
 *     `jobs` threads, one job of n_runs runs (one source set per run),
 *     run, destroyed; the output arrays are the caller's, allocated once.
 *
 * Each times `reps` repetitions (CLOCK_MONOTONIC) into times[] and returns
 * 0, or -1 with the reason in err.  ref_simulate also reports the rows it
 * collected and the last row's first value, which the Python side checks
 * against its own run (the same run, bit for bit).
 *
 * C11 (the batch API's header). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diagc/batch.h"
#include "diagc/simulator.h"

#include "../../python/diagc/collect.c"

int ref_simulate(const diagc_model *m, double until, int reps, double *times, long *rows, double *last,
                 char *err, size_t errlen);
int ref_batch(const diagc_model *m, int jobs, int src, const double *set_values, int n_runs, double t_final,
              int max_rows, double *t, double *values, unsigned char *fired, int *nrows, int *status,
              char *messages, double *end_time, double *final_state, int reps, double *times, char *err,
              size_t errlen);

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int ref_simulate(const diagc_model *m, double until, int reps, double *times, long *rows, double *last,
                 char *err, size_t errlen) {
  int sizes[64], width = 0, i, r;
  void *out = malloc(m->context_size);
  if (!out || m->n_loggers > 64) {
    snprintf(err, errlen, "ref_simulate: out of memory or more than 64 loggers");
    free(out);
    return -1;
  }
  for (i = 0; i < m->n_loggers; i++) {
    sizes[i] = m->loggers[i].size;
    width += sizes[i];
  }
  for (r = 0; r < reps; r++) {
    diagc_sim_options o;
    diagc_sim_statistics st;
    diagc_py_log col;
    double t0 = now();
    diagc_sim *sim;
    int rc;
    diagc_sim_options_init(&o);
    sim = diagc_sim_create_ex(m, &o, err, errlen);
    if (!sim) {
      free(out);
      return -1;
    }
    memset(&col, 0, sizeof col);
    col.n_loggers = m->n_loggers;
    col.width = width;
    col.sizes = sizes;
    diagc_sim_set_log_callback(sim, diagc_py_log_append, &col);
    rc = diagc_sim_initialize(sim);
    if (rc >= 0) rc = diagc_sim_advance_to(sim, until);
    if (rc < 0 || col.failed) {
      snprintf(err, errlen, "ref_simulate: %s", rc < 0 ? diagc_sim_error(sim) : "out of memory");
      diagc_sim_destroy(sim);
      diagc_py_log_free(&col);
      free(out);
      return -1;
    }
    diagc_sim_stats(sim, &st);
    memcpy(out, diagc_sim_context(sim), m->context_size);
    diagc_sim_destroy(sim);
    times[r] = now() - t0;
    *rows = (long)col.rows;
    *last = col.rows && width ? col.values[(col.rows - 1) * (size_t)width] : 0.0;
    diagc_py_log_free(&col);
  }
  free(out);
  return 0;
}

int ref_batch(const diagc_model *m, int jobs, int src, const double *set_values, int n_runs, double t_final,
              int max_rows, double *t, double *values, unsigned char *fired, int *nrows, int *status,
              char *messages, double *end_time, double *final_state, int reps, double *times, char *err,
              size_t errlen) {
  int r;
  for (r = 0; r < reps; r++) {
    diagc_sim_options o;
    diagc_batch_job j;
    double t0 = now();
    diagc_batch *b;
    diagc_sim_options_init(&o);
    b = diagc_batch_create(m, &o, jobs, err, errlen);
    if (!b) return -1;
    memset(&j, 0, sizeof j);
    j.n_runs = n_runs;
    j.t_final = t_final;
    j.n_set = 1;
    j.set = &src;
    j.set_values = set_values;
    j.max_rows = max_rows;
    j.t = t;
    j.values = values;
    j.fired = fired;
    j.rows = nrows;
    j.status = status;
    j.messages = messages;
    j.end_time = end_time;
    j.final_state = final_state;
    if (diagc_batch_run(b, &j, err, errlen) != 0) {
      diagc_batch_destroy(b);
      return -1;
    }
    diagc_batch_destroy(b);
    times[r] = now() - t0;
  }
  return 0;
}
