/* bench/world/collide_bench.c: time per diagc_collide call for the pairs a
 * world step meets most (box-plane, box-box resting, rotated and random,
 * sphere-box, capsule-capsule, capsule-box) and per diagc_broadphase call
 * over a scene of 50 shapes.
 *
 * Build and run from the repository root (after make):
 *   cc -std=c99 -O2 -Iruntime/include bench/world/collide_bench.c \
 *      lib/libdiagc.a -lm -lpthread -o build/collide_bench && build/collide_bench
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

#define NPOSE 256
#define RUNS 7

static unsigned long long rng = 0x9E3779B97F4A7C15ull;
static double urand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* rotation of angle th about axis (x, y, z), position p */
static void pose(double *X, double x, double y, double z, double th, double px, double py,
                 double pz) {
  double n = sqrt(x * x + y * y + z * z), c = cos(th), s = sin(th), t = 1 - c;
  x /= n;
  y /= n;
  z /= n;
  X[0] = t * x * x + c;
  X[1] = t * x * y - s * z;
  X[2] = t * x * z + s * y;
  X[3] = t * x * y + s * z;
  X[4] = t * y * y + c;
  X[5] = t * y * z - s * x;
  X[6] = t * x * z - s * y;
  X[7] = t * y * z + s * x;
  X[8] = t * z * z + c;
  X[9] = px;
  X[10] = py;
  X[11] = pz;
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

static double jitter(double a) { return a * (2 * urand() - 1); }

static void fill(bench_case *c, int kind) {
  int k;
  for (k = 0; k < NPOSE; k++) {
    double *Xa = c->Xa[k], *Xb = c->Xb[k];
    switch (kind) {
    case 0: /* box resting on a plane: 4 corners */
      pose(Xa, jitter(1), jitter(1), 1, jitter(1e-3), jitter(1), jitter(1), 0.5 - 1e-3);
      pose(Xb, 0, 0, 1, 0, 0, 0, 0);
      break;
    case 1: /* box tilted on a plane: 1 or 2 corners */
      pose(Xa, 1, jitter(1), 0, 0.3 + jitter(0.1), 0, 0, 0.62);
      pose(Xb, 0, 0, 1, 0, 0, 0, 0);
      break;
    case 2: /* stacked boxes: 4 points */
      pose(Xa, 0, 0, 1, 0, 0, 0, 0.5);
      pose(Xb, jitter(1), jitter(1), 1, jitter(1e-3), jitter(0.05), jitter(0.05), 1.499);
      break;
    case 3: /* stacked, rotated 45 degrees about z: 8 points */
      pose(Xa, 0, 0, 1, 0, 0, 0, 0.5);
      pose(Xb, jitter(1e-3), jitter(1e-3), 1, 0.785398 + jitter(1e-3), 0, 0, 1.499);
      break;
    case 4: /* random overlapping boxes */
      pose(Xa, jitter(1), jitter(1), jitter(1), jitter(3), 0, 0, 0);
      pose(Xb, jitter(1), jitter(1), jitter(1), jitter(3), jitter(0.6), jitter(0.6), jitter(0.6));
      break;
    case 5: /* sphere on a box face */
      pose(Xa, 0, 0, 1, 0, jitter(0.4), jitter(0.4), 0.5 + 0.2 - 1e-3);
      pose(Xb, 0, 0, 1, 0, 0, 0, 0);
      break;
    case 6: /* crossed capsules */
      pose(Xa, 0, 1, 0, 1.5708, 0, 0, 0);
      pose(Xb, 1, 0, 0, 1.5708 + jitter(0.3), 0, jitter(0.2), 0.199);
      break;
    default: /* capsule lying on a box */
      pose(Xa, 0, 0, 1, 0, 0, 0, 0);
      pose(Xb, 0, 1, 0, 1.5708 + jitter(1e-3), jitter(0.1), jitter(0.3), 0.5 + 0.1 - 1e-3);
      break;
    }
  }
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
  static bench_case cases[8];
  static const char *names[8] = {
    "box-plane resting (4 corners)", "box-plane tilted (1-2 corners)", "box-box stacked (4 points)",
    "box-box stacked 45 deg (8 points)", "box-box random overlapping", "sphere-box face",
    "capsule-capsule crossed", "capsule-box lying (2 points)",
  };
  const char *quick = getenv("BENCH_QUICK");
  long calls = quick && strcmp(quick, "1") == 0 ? 20000 : 400000;
  int k;
  for (k = 0; k < 8; k++) {
    cases[k].name = names[k];
    fill(&cases[k], k);
  }
  cases[0].a = cases[1].a = shape(DIAGC_SHAPE_BOX, 0.5, 0.5, 0.5);
  cases[0].b = cases[1].b = shape(DIAGC_SHAPE_PLANE, 0, 0, 0);
  cases[2].a = cases[2].b = cases[3].a = cases[3].b = shape(DIAGC_SHAPE_BOX, 0.5, 0.5, 0.5);
  cases[4].a = shape(DIAGC_SHAPE_BOX, 0.5, 0.3, 0.4);
  cases[4].b = shape(DIAGC_SHAPE_BOX, 0.2, 0.6, 0.3);
  cases[5].a = shape(DIAGC_SHAPE_SPHERE, 0.2, 0, 0);
  cases[5].b = shape(DIAGC_SHAPE_BOX, 0.5, 0.5, 0.5);
  cases[6].a = cases[6].b = shape(DIAGC_SHAPE_CAPSULE, 0.1, 0.5, 0);
  cases[7].a = shape(DIAGC_SHAPE_BOX, 0.5, 0.5, 0.5);
  cases[7].b = shape(DIAGC_SHAPE_CAPSULE, 0.1, 0.3, 0);
  printf("| call | ns per call | contacts |\n|---|---:|---:|\n");
  for (k = 0; k < 8; k++) run_case(&cases[k], calls);
  bench_broadphase(calls / 40);
  return 0;
}
