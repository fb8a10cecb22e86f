/* bench/world/collide_scenes.h: the scenes of the collision benchmarks
 * (collide_bench.c for diagc, collide_dart.cpp for DART 6.12): poses from
 * one deterministic generator, so both time the same calls. */
#ifndef DIAGC_BENCH_COLLIDE_SCENES_H
#define DIAGC_BENCH_COLLIDE_SCENES_H
#include <math.h>

#define NPOSE 256
#define NSCENE 8

static const char *const scene_names[NSCENE] = {
  "box-plane resting (4 corners)", "box-plane tilted (1-2 corners)", "box-box stacked (4 points)",
  "box-box stacked 45 deg (8 points)", "box-box random overlapping", "sphere-box face",
  "capsule-capsule crossed", "capsule-box lying (2 points)",
};

/* shape types and sizes per scene: {type, size...} of a, then of b
   (1 sphere, 2 box (half extents), 3 capsule (radius, half length), 4 plane) */
static const double scene_shapes[NSCENE][2][4] = {
  { { 2, 0.5, 0.5, 0.5 }, { 4, 0, 0, 0 } },   { { 2, 0.5, 0.5, 0.5 }, { 4, 0, 0, 0 } },
  { { 2, 0.5, 0.5, 0.5 }, { 2, 0.5, 0.5, 0.5 } }, { { 2, 0.5, 0.5, 0.5 }, { 2, 0.5, 0.5, 0.5 } },
  { { 2, 0.5, 0.3, 0.4 }, { 2, 0.2, 0.6, 0.3 } }, { { 1, 0.2, 0, 0 }, { 2, 0.5, 0.5, 0.5 } },
  { { 3, 0.1, 0.5, 0 }, { 3, 0.1, 0.5, 0 } },     { { 2, 0.5, 0.5, 0.5 }, { 3, 0.1, 0.3, 0 } },
};

#define SCENE_SEED 0x9E3779B97F4A7C15ull
static unsigned long long rng = SCENE_SEED;
static double urand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

#include "pose.h"

static double jitter(double a) { return a * (2 * urand() - 1); }

/* Poses of scene `kind` (0..7, see scene_names), NPOSE of each shape. */
static void scene_poses(int kind, double (*XA)[12], double (*XB)[12]) {
  int k;
  for (k = 0; k < NPOSE; k++) {
    double *Xa = XA[k], *Xb = XB[k];
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

#endif
