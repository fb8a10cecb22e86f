/* bench/dynamics/dyn_bench.c: time per call of the generated dynamics (the
 * worlds of bench/dynamics/worlds.lua, emitted into dyn_gen.c by gen.lua):
 * kinematics, mass matrix, bias, factor, solve, and forward dynamics
 * vdot = M^-1 (tau - c) (all five).  The functions are called through
 * volatile pointers (no inlining into the timing loop, no dead-code
 * elimination).  Prints "RESULT world part ns" lines, each the best of 20
 * timed loops (a shared machine only adds time). */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "dyn_gen.c"

typedef struct world_fns {
  const char *name;
  int nq, nv, nb;
  const double *q_default; /* identity quaternions */
  void (*kinematics)(const double *, double *);
  void (*mass_matrix)(const double *, const double *, double *);
  void (*bias)(const double *, const double *, const double *, double *);
  void (*factor)(double *);
  void (*solve)(const double *, double *);
} world_fns;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile double sink;

enum { NPART = 6 };
static const char *PARTS[NPART] = { "kinematics", "mass_matrix", "bias", "factor", "solve", "forward" };

static void bench(const world_fns *w, int reps)
{
  double *q = calloc((size_t)w->nq + 1, sizeof *q), *v = calloc((size_t)w->nv + 1, sizeof *v);
  double *X = calloc(12 * (size_t)w->nb, sizeof *X), *c = calloc((size_t)w->nv + 1, sizeof *c);
  double *M = calloc((size_t)w->nv * (size_t)w->nv + 1, sizeof *M);
  double best[NPART];
  int r, i, k;
  for (k = 0; k < NPART; ++k) best[k] = 1e30;
  for (k = 0; k < w->nq; ++k) q[k] = w->q_default[k] + 0.1 * (double)(k % 7) - 0.2;
  for (k = 0; k < w->nv; ++k) v[k] = 0.3 * (double)(k % 5) - 0.5;
  w->kinematics(q, X);
  w->mass_matrix(q, X, M);
  for (r = 0; r < 20; ++r) {
    double t[NPART], t0;
    t0 = now(); for (i = 0; i < reps; ++i) w->kinematics(q, X);
    t[0] = now() - t0;
    t0 = now(); for (i = 0; i < reps; ++i) w->mass_matrix(q, X, M);
    t[1] = now() - t0;
    t0 = now(); for (i = 0; i < reps; ++i) w->bias(q, v, X, c);
    t[2] = now() - t0;
    t0 = now(); for (i = 0; i < reps; ++i) { w->mass_matrix(q, X, M); w->factor(M); }
    t[3] = now() - t0;
    t0 = now(); for (i = 0; i < reps; ++i) { c[0] = 1.0; w->solve(M, c); }
    t[4] = now() - t0;
    t0 = now();
    for (i = 0; i < reps; ++i) {
      w->kinematics(q, X);
      w->mass_matrix(q, X, M);
      w->bias(q, v, X, c);
      for (k = 0; k < w->nv; ++k) c[k] = -c[k];
      w->factor(M);
      w->solve(M, c);
    }
    t[5] = now() - t0;
    for (k = 0; k < NPART; ++k) if (t[k] < best[k]) best[k] = t[k];
    sink += c[0] + M[0] + X[0];
  }
  best[3] -= best[1]; /* the factor without the mass matrix that restores its input */
  for (k = 0; k < NPART; ++k) printf("RESULT\t%s\t%s\t%.1f\n", w->name, PARTS[k], best[k] > 0 ? 1e9 * best[k] / reps : 0.0);
  free(q); free(v); free(X); free(c); free(M);
}

#define WORLD(W) { #W, W##_NQ, W##_NV, W##_NB, W##_q_default, W##_kinematics, W##_mass_matrix, W##_bias, \
                         W##_factor, W##_solve }

int main(int argc, char **argv)
{
  int quick = argc > 1 && atoi(argv[1]) == 1;
  int reps = quick ? 500 : 10000;
  static const world_fns worlds[] = { WORLD(arm7), WORLD(tree20), WORLD(tree50), WORLD(boxes50) };
  const world_fns *volatile list = worlds;
  size_t k;
  for (k = 0; k < sizeof worlds / sizeof worlds[0]; ++k) bench(&list[k], k == 0 ? reps : reps / 4);
  return 0;
}
