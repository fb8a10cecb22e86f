/* bench/batch/batch_bench.c: runs per second of diagc_batch (bench/batch/run).
 *
 *   batch_bench MODEL SOURCE RUNS T_FINAL REPS JOBS...
 *
 * MODEL is "pendulum" or "cartpole" (generated C linked in); run i sets
 * the first element of source SOURCE (by name) to its default + 1e-3 i,
 * logs into arrays, and the batch runs RUNS runs to T_FINAL on each
 * number of threads in JOBS.  Prints per JOBS: "jobs N best_s median_s
 * runs_per_s checksum failed cpu_us" (the best of REPS; the checksum, the
 * sum of every final state, is the same for every JOBS: the runs are bit
 * for bit the same; cpu_us, the process's CPU time per run over all its
 * threads, the least of REPS: what the threads cost beyond one thread's
 * work, whatever share of the cores the machine gave them).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diagc/batch.h"

extern const diagc_model bpend_model;
extern const diagc_model bcart_model;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  const diagc_model *m;
  int runs, reps, src = -1, i, a, r, rows = 0, lw, nx;
  double tf, base, *sv, *t, *v, *fs, *times;
  int *nrow, *st;
  if (argc < 7) {
    fprintf(stderr, "usage: batch_bench MODEL SOURCE RUNS T_FINAL REPS JOBS...\n");
    return 2;
  }
  m = strcmp(argv[1], "cartpole") == 0 ? &bcart_model : &bpend_model;
  runs = atoi(argv[3]);
  tf = atof(argv[4]);
  reps = atoi(argv[5]);
  for (i = 0; i < m->n_sources; i++)
    if (strcmp(m->sources[i].name, argv[2]) == 0) src = i;
  if (src < 0 || m->sources[src].size < 1) {
    fprintf(stderr, "no numeric source %s\n", argv[2]);
    return 2;
  }
  for (i = 0; i < m->n_loggers; i++) {
    int n = (int)(tf / m->loggers[i].period) + 2;
    rows += n;
  }
  lw = diagc_batch_log_width(m);
  nx = m->nxc + m->nxd;
  {
    char *ctx = (char *)malloc(m->context_size);
    m->init(ctx);
    base = *(const double *)(const void *)(ctx + m->sources[src].offset);
    free(ctx);
  }
  sv = (double *)malloc(sizeof(double) * (size_t)runs * (size_t)m->sources[src].size);
  t = (double *)malloc(sizeof(double) * (size_t)runs * (size_t)rows);
  v = (double *)malloc(sizeof(double) * (size_t)runs * (size_t)rows * (size_t)(lw ? lw : 1));
  fs = (double *)malloc(sizeof(double) * (size_t)runs * (size_t)(nx ? nx : 1));
  nrow = (int *)malloc(sizeof(int) * (size_t)runs);
  st = (int *)malloc(sizeof(int) * (size_t)runs);
  times = (double *)malloc(sizeof(double) * (size_t)reps);
  if (!sv || !t || !v || !fs || !nrow || !st || !times) return 3;
  for (i = 0; i < runs; i++) {
    int e;
    for (e = 0; e < m->sources[src].size; e++) sv[i * m->sources[src].size + e] = base;
    sv[i * m->sources[src].size] = base + 1e-3 * i;
  }
  for (a = 6; a < argc; a++) {
    char err[256];
    int jobs = atoi(argv[a]), bad = 0;
    double sum = 0, cpu_best = 1e300;
    diagc_batch *b = diagc_batch_create(m, NULL, jobs, err, sizeof err);
    diagc_batch_job j;
    if (!b) {
      fprintf(stderr, "%s\n", err);
      return 3;
    }
    memset(&j, 0, sizeof j);
    j.n_runs = runs;
    j.t_final = tf;
    j.n_set = 1;
    j.set = &src;
    j.set_values = sv;
    j.max_rows = rows;
    j.t = t;
    j.values = v;
    j.rows = nrow;
    j.status = st;
    j.final_state = fs;
    for (r = 0; r < reps; r++) {
      double t0 = now(), c0 = cpu_now();
      if (diagc_batch_run(b, &j, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 3;
      }
      times[r] = now() - t0;
      if (cpu_now() - c0 < cpu_best) cpu_best = cpu_now() - c0;
    }
    for (i = 0; i < runs; i++) bad += st[i] != 0;
    for (i = 0; i < runs * nx; i++) sum += fs[i];
    qsort(times, (size_t)reps, sizeof(double), cmp);
    printf("jobs %d %.6f %.6f %.1f %.17g %d %.2f\n", diagc_batch_jobs(b), times[0], times[reps / 2],
           runs / times[0], sum, bad, 1e6 * cpu_best / runs);
    diagc_batch_destroy(b);
  }
  return 0;
}
