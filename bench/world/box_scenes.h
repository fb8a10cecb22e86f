/* bench/world/box_scenes.h: the initial poses of the box scenes shared by
 * world_bench.c, dart_scenes.cpp and mujoco_scenes.c (the piles' seeded
 * generator, the pyramid), and the deepest penetration of a set of equal
 * cubes into the ground plane z = 0 and into each other, measured the same
 * way for every engine.  A pose is 7 numbers: the centre (x, y, z) and the
 * unit quaternion (w, x, y, z), diagc's free-joint q.  C99 and C++. */
#ifndef DIAGC_BENCH_BOX_SCENES_H
#define DIAGC_BENCH_BOX_SCENES_H

#include <math.h>

#define BOX_EDGE 0.2
#define PILE_N 30
#define PILE_SEEDS 10 /* the pile and nine more arrangements (pile_s1 ... pile_s9) */
#define PYRAMID_N 10
#define BOX_MAX 64 /* most cubes box_penetration measures */

/* MINSTD (Park and Miller): every product is below 2^47, exact in a double,
 * so bench/world/specs/pile.lua draws the same numbers in Lua */
static double pile_u(double *s) {
  *s = fmod(48271.0 * *s, 2147483647.0);
  return *s / 2147483647.0;
}

/* 30 cubes: 5 layers of 3 x 2 sites 0.4 m apart, the odd layers shifted by
 * (0.2, 0.2) so they land across the gaps below, the lowest centres at
 * z = 0.2 and layers 0.4 m apart; per cube, in order, x, y, z jitter of
 * 0.02 (2u - 1) m and a rotation of 0.15 (2u - 1) rad about the axis
 * (2u - 1, 2u - 1, 2u - 1), drawn again while shorter than 0.1.  Centres
 * are at least 0.36 m apart along a grid axis, more than the circumscribed
 * diameter 0.2 sqrt 3 = 0.346 m, and at least 0.18 m above the ground: no
 * overlap at any rotation.  Seed k (0 for the pile, 1 to PILE_SEEDS - 1 for
 * the other piles of the ensemble) starts the generator at
 * 20260326 + 7919 k. */
static void pile_poses(double *q, int k_seed) {
  double s = 20260326.0 + 7919.0 * k_seed;
  int k = 0;
  for (int layer = 0; layer < 5; layer++)
    for (int j = 0; j < 2; j++)
      for (int i = 0; i < 3; i++, k++) {
        double sh = (layer % 2) * 0.2, *p = q + 7 * k;
        p[0] = -0.4 + 0.4 * i + sh + 0.02 * (2 * pile_u(&s) - 1);
        p[1] = -0.2 + 0.4 * j + sh + 0.02 * (2 * pile_u(&s) - 1);
        p[2] = 0.2 + 0.4 * layer + 0.02 * (2 * pile_u(&s) - 1);
        double th = 0.15 * (2 * pile_u(&s) - 1), ax, ay, az, n;
        do {
          ax = 2 * pile_u(&s) - 1;
          ay = 2 * pile_u(&s) - 1;
          az = 2 * pile_u(&s) - 1;
          n = sqrt(ax * ax + ay * ay + az * az);
        } while (n < 0.1);
        double sn = sin(th / 2) / n;
        p[3] = cos(th / 2);
        p[4] = sn * ax;
        p[5] = sn * ay;
        p[6] = sn * az;
      }
}

/* 10 cubes in rows of 4, 3, 2, 1 in the x-z plane, each touching its
 * neighbours and resting on the middle of the two below */
static void pyramid_poses(double *q) {
  int k = 0;
  for (int row = 0; row < 4; row++)
    for (int i = 0; i < 4 - row; i++, k++) {
      double *p = q + 7 * k;
      p[0] = BOX_EDGE * (i - (3 - row) / 2.0);
      p[1] = 0;
      p[2] = BOX_EDGE / 2 + BOX_EDGE * row;
      p[3] = 1;
      p[4] = p[5] = p[6] = 0;
    }
}

/* the rotation matrix (row-major) of the unit quaternion (w, x, y, z) */
static void box_rotation(const double *e, double *R) {
  double w = e[0], x = e[1], y = e[2], z = e[3];
  R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
}

/* overlap of two cubes of half edge h along the unit axis L: the sum of
 * their extents minus the distance of their centres */
static double box_overlap(const double *pa, const double *Ra, const double *pb, const double *Rb,
                          const double *L, double h) {
  double ra = 0, rb = 0, d = 0;
  for (int i = 0; i < 3; i++) {
    ra += h * fabs(Ra[i] * L[0] + Ra[3 + i] * L[1] + Ra[6 + i] * L[2]);
    rb += h * fabs(Rb[i] * L[0] + Rb[3 + i] * L[1] + Rb[6 + i] * L[2]);
    d += (pb[i] - pa[i]) * L[i];
  }
  return ra + rb - fabs(d);
}

/* the penetration depth of two cubes: the least overlap over the 15
 * separating axes (the face normals of both and the cross products of their
 * edges: together they are the face normals of the Minkowski difference,
 * so the least overlap is the exact depth); 0 when some axis separates */
static double box_box_depth(const double *pa, const double *Ra, const double *pb, const double *Rb, double h) {
  double dx = pb[0] - pa[0], dy = pb[1] - pa[1], dz = pb[2] - pa[2];
  if (dx * dx + dy * dy + dz * dz > 12 * h * h) return 0; /* circumscribed spheres apart */
  double best = INFINITY;
  for (int k = 0; k < 15; k++) {
    double L[3];
    if (k < 6) {
      const double *R = k < 3 ? Ra : Rb;
      for (int r = 0; r < 3; r++) L[r] = R[3 * r + k % 3];
    } else {
      int i = (k - 6) / 3, j = (k - 6) % 3;
      double A[3] = {Ra[i], Ra[3 + i], Ra[6 + i]}, B[3] = {Rb[j], Rb[3 + j], Rb[6 + j]};
      L[0] = A[1] * B[2] - A[2] * B[1];
      L[1] = A[2] * B[0] - A[0] * B[2];
      L[2] = A[0] * B[1] - A[1] * B[0];
      double n = sqrt(L[0] * L[0] + L[1] * L[1] + L[2] * L[2]);
      if (n < 1e-9) continue; /* parallel edges: a face axis covers it */
      L[0] /= n, L[1] /= n, L[2] /= n;
    }
    double o = box_overlap(pa, Ra, pb, Rb, L, h);
    if (o < best) best = o;
  }
  return best > 0 ? best : 0;
}

/* the deepest penetration of n cubes of edge a (poses q, 7 each) into the
 * plane z = 0 or into one another; NAN for more than BOX_MAX cubes */
static double box_penetration(int n, const double *q, double a) {
  double h = a / 2, worst = 0, R[9 * BOX_MAX];
  if (n > BOX_MAX) return NAN;
  for (int i = 0; i < n; i++) {
    box_rotation(q + 7 * i + 3, R + 9 * i);
    double *r = R + 9 * i;
    double below = h * (fabs(r[6]) + fabs(r[7]) + fabs(r[8])) - q[7 * i + 2];
    if (below > worst) worst = below;
  }
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      double d = box_box_depth(q + 7 * i, R + 9 * i, q + 7 * j, R + 9 * j, h);
      if (d > worst) worst = d;
    }
  return worst;
}

#endif
