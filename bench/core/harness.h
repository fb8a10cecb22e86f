/* bench/harness.h: timing helpers shared by the bench drivers.
 * Each implementation runs `iters` iterations per repetition; repetitions
 * of the implementations are interleaved (round robin) and the best
 * (minimum) time per iteration is kept, which is the figure least
 * disturbed by a noisy machine. */
#ifndef DIAGC_BENCH_HARNESS_H
#define DIAGC_BENCH_HARNESS_H

#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double bench_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef double (*bench_fn)(long iters); /* returns a checksum */

typedef struct bench_case {
  const char *name;
  bench_fn fn;
  double best_ns;   /* per iteration */
  double median_ns;
  double checksum;
  double samples[64];
  int n;
} bench_case;

static int bench_cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : (x > y);
}

/* Runs every case `reps` times, interleaved, each for `iters` iterations. */
static void bench_run(const char *scenario, bench_case *cases, int ncases, long iters, int reps)
{
  int r, i;
  if (reps > 64) reps = 64;
  for (i = 0; i < ncases; ++i) { /* warm-up: caches, page faults */
    cases[i].checksum = cases[i].fn(iters / 10 + 1);
    cases[i].n = 0;
  }
  for (r = 0; r < reps; ++r) {
    for (i = 0; i < ncases; ++i) {
      double t0 = bench_now();
      double sum = cases[i].fn(iters);
      double dt = bench_now() - t0;
      cases[i].checksum = sum;
      cases[i].samples[cases[i].n++] = dt * 1e9 / (double)iters;
    }
  }
  for (i = 0; i < ncases; ++i) {
    qsort(cases[i].samples, (size_t)cases[i].n, sizeof(double), bench_cmp_double);
    cases[i].best_ns = cases[i].samples[0];
    cases[i].median_ns = cases[i].samples[cases[i].n / 2];
    /* RESULT scenario impl best_ns median_ns iters reps checksum */
    printf("RESULT %s %s %.3f %.3f %ld %d %.17g\n", scenario, cases[i].name, cases[i].best_ns,
           cases[i].median_ns, iters, reps, cases[i].checksum);
  }
  for (i = 1; i < ncases; ++i) {
    if (cases[i].checksum != cases[0].checksum) {
      printf("CHECKSUM-MISMATCH %s %s %.17g != %s %.17g\n", scenario, cases[i].name,
             cases[i].checksum, cases[0].name, cases[0].checksum);
    }
  }
  fflush(stdout);
}

#endif
