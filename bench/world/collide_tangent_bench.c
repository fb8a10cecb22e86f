/* bench/world/collide_tangent_bench.c: time of diagc_collide_tangent per
 * contact: box-plane (analytic, a box resting on a face and a tilted box
 * on a corner), sphere-box (analytic), box-box stacked and turned 45
 * degrees and capsule-box lying (the general path: 12 diagc_collide calls
 * per pair).
 *
 * Build and run from the repository root (after make):
 *   cc -std=c99 -O2 -Iruntime/include bench/world/collide_tangent_bench.c \
 *      lib/libdiagc.a -lm -lpthread -o build/collide_tangent_bench && build/collide_tangent_bench
 * Reports the median of 7 runs (thread CPU time) in ns per call and per
 * contact. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diagc/world.h"

#define RUNS 7
#define CALLS 20000

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *p, const void *q) {
  double a = *(const double *)p, b = *(const double *)q;
  return a < b ? -1 : a > b;
}

#include "pose.h"

static double sink;

static void run(const char *name, diagc_shape a, const double *Xa, diagc_shape b, const double *Xb,
                double margin) {
  diagc_contact c[DIAGC_COLLIDE_MAX];
  double D[DIAGC_COLLIDE_MAX * 156], t[RUNS];
  int n = diagc_collide(&a, Xa, &b, Xb, margin, c, DIAGC_COLLIDE_MAX), r, i, rc = 0;
  for (r = 0; r < RUNS; r++) {
    double t0 = now_ns();
    for (i = 0; i < CALLS; i++) {
      rc |= diagc_collide_tangent(&a, Xa, &b, Xb, margin, c, n, D);
      sink += D[i % 156];
    }
    t[r] = (now_ns() - t0) / CALLS;
  }
  qsort(t, RUNS, sizeof t[0], cmp_double);
  printf("%-28s %d contacts  %8.0f ns/call  %7.0f ns/contact  (rc %d)\n", name, n, t[RUNS / 2],
         t[RUNS / 2] / (n ? n : 1), rc);
}

int main(void) {
  diagc_shape box = { DIAGC_SHAPE_BOX, { 0.5, 0.4, 0.3 }, NULL }, plane = { DIAGC_SHAPE_PLANE, { 0, 0, 0 }, NULL };
  diagc_shape sph = { DIAGC_SHAPE_SPHERE, { 0.2, 0, 0 }, NULL }, cap = { DIAGC_SHAPE_CAPSULE, { 0.1, 0.4, 0 }, NULL };
  double Xa[12], Xb[12];
  pose(Xb, 0, 0, 1, 0, 0, 0, 0);
  pose(Xa, 0, 0, 1, 0.3, 0.1, 0.2, 0.3 - 0.001);
  run("box-plane resting", box, Xa, plane, Xb, 0.01);
  pose(Xa, 1, 1, 0.3, 0.7, 0.1, 0.2, 0.55);
  run("box-plane tilted", box, Xa, plane, Xb, 0.01);
  pose(Xa, 0, 0, 1, 0, 0.1, 0.2, 0.3 + 0.15);
  run("sphere-box", sph, Xa, box, Xb, 0.01);
  pose(Xa, 0, 0, 1, 0.3, 0.05, 0.02, 0.6 - 0.001);
  run("box-box stacked", box, Xa, box, Xb, 0.01);
  {
    diagc_shape cube = { DIAGC_SHAPE_BOX, { 0.3, 0.3, 0.3 }, NULL };
    pose(Xa, 0, 0, 1, 0.785, 0.01, 0.0, 0.6 - 0.001);
    run("box-box turned 45", cube, Xa, cube, Xb, 0.01);
  }
  pose(Xa, 0, 1, 0, 1.5707963, 0.0, 0.0, 0.3 + 0.1 - 0.001);
  run("capsule-box lying", cap, Xa, box, Xb, 0.01);
  return sink == 12345.0;
}
