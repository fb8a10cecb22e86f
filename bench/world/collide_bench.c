/* bench/world/collide_bench.c: time per diagc_collide call for the pairs a
 * world step meets most (box-plane, box-box resting, rotated and random,
 * sphere-box, capsule-capsule, capsule-box) and per diagc_broadphase call
 * over a scene of 50 shapes.
 *
 * Build and run from the repository root (after make):
 *   cc -std=c99 -O2 -Iruntime/include bench/world/collide_bench.c \
 *      lib/libdiagc.a -lm -lpthread -o build/collide_bench && build/collide_bench
 * (bench/world/collide_dart.cpp times the same scenes in DART 6.12.)
 * Each case cycles through 256 poses (small perturbations of the scene, so
 * every call does the full work) and reports the median of 7 runs in ns per
 * call (thread CPU time: the machine may be shared), and the contacts per call.  BENCH_QUICK=1 in the environment: fewer
 * calls. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diagc/world.h"
#include "collide_scenes.h"

#define RUNS 7

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef struct {
  const char *name;
  diagc_shape a, b;
  double Xa[NPOSE][12], Xb[NPOSE][12];
} bench_case;

static int cmp_double(const void *p, const void *q) {
  double a = *(const double *)p, b = *(const double *)q;
  return a < b ? -1 : a > b;
}

static void run_case(const bench_case *c, long calls) {
  double t[RUNS], contacts = 0;
  diagc_contact out[DIAGC_COLLIDE_MAX];
  int r;
  long i;
  for (r = 0; r < RUNS; r++) {
    double t0 = now_ns();
    long total = 0;
    for (i = 0; i < calls; i++) {
      int k = (int)(i & (NPOSE - 1));
      total += diagc_collide(&c->a, c->Xa[k], &c->b, c->Xb[k], 0.01, out, DIAGC_COLLIDE_MAX);
    }
    t[r] = (now_ns() - t0) / (double)calls;
    contacts = (double)total / (double)calls;
  }
  qsort(t, RUNS, sizeof t[0], cmp_double);
  printf("| %-34s | %8.1f | %5.2f |\n", c->name, t[RUNS / 2], contacts);
}

static diagc_shape shape(int type, double a, double b, double c) {
  diagc_shape s;
  s.type = type;
  s.size[0] = a;
  s.size[1] = b;
  s.size[2] = c;
  return s;
}

static void bench_broadphase(long calls) {
  enum { NS = 50, NP = NS * (NS - 1) / 2 };
  static double aabb[NS * 6];
  static int pairs[2 * NP], out[NP], ws[DIAGC_BROADPHASE_WS(NS)];
  diagc_shape s[NS];
  double X[NS][12], t[RUNS], hits = 0;
  int i, j, np = 0, r;
  long c;
  for (i = 0; i < NS; i++) {
    s[i] = shape(DIAGC_SHAPE_BOX, 0.2 + 0.1 * urand(), 0.2, 0.2);
    pose(X[i], jitter(1), jitter(1), 1, jitter(3), jitter(3), jitter(3), 2 * urand());
  }
  for (i = 0; i < NS; i++)
    for (j = i + 1; j < NS; j++) {
      pairs[2 * np] = i;
      pairs[2 * np + 1] = j;
      np++;
    }
  memset(ws, 0, sizeof ws);
  for (r = 0; r < RUNS; r++) {
    double t0 = now_ns();
    long total = 0;
    for (c = 0; c < calls; c++) {
      X[c % NS][9] += 1e-9 * (double)((c & 1) ? 1 : -1);
      for (i = 0; i < NS; i++) diagc_shape_aabb(&s[i], X[i], 0.01, aabb + 6 * i);
      total += diagc_broadphase(NS, aabb, np, pairs, ws, out);
    }
    t[r] = (now_ns() - t0) / (double)calls;
    hits = (double)total / (double)calls;
  }
  qsort(t, RUNS, sizeof t[0], cmp_double);
  printf("| %-34s | %8.1f | %5.2f |\n", "broad phase, 50 boxes, 1225 pairs", t[RUNS / 2], hits);
}

int main(void) {
  static bench_case cases[NSCENE];
  const char *quick = getenv("BENCH_QUICK");
  long calls = quick && strcmp(quick, "1") == 0 ? 20000 : 400000;
  int k;
  for (k = 0; k < NSCENE; k++) {
    const double(*sh)[4] = scene_shapes[k];
    cases[k].name = scene_names[k];
    cases[k].a = shape((int)sh[0][0], sh[0][1], sh[0][2], sh[0][3]);
    cases[k].b = shape((int)sh[1][0], sh[1][1], sh[1][2], sh[1][3]);
    scene_poses(k, cases[k].Xa, cases[k].Xb);
  }
  printf("| call | ns per call | contacts |\n|---|---:|---:|\n");
  for (k = 0; k < NSCENE; k++) run_case(&cases[k], calls);
  bench_broadphase(calls / 40);
  return 0;
}
