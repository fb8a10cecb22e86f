/* Tests of the collision part of diagc/world.h: diagc_collide,
 * diagc_collide_max, diagc_contact_frame, diagc_shape_aabb and the
 * sweep-and-prune broad phase.
 *
 * Expected values come from hand-computed geometry (analytic cases) or
 * from straightforward references written here (corner enumeration,
 * ternary search of convex distance functions, sampled box surfaces,
 * all-pairs AABB tests), never from the code under test.  Also: swapping
 * the arguments, a rigid motion of both shapes, degenerate shapes, and the
 * same input twice (bit-identical output). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "diagc/world.h"

#include "check.h"

#define PI 3.14159265358979323846

/* ---------------------------------------------------------------------
 * helpers */

static uint64_t rng_state = 88172645463325252ull;
static double urand(void) { /* [0, 1) */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}
static double srand1(double a) { return a * (2.0 * urand() - 1.0); }

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static double norm3(const double *a) { return sqrt(dot3(a, a)); }
static double dist3(const double *a, const double *b) {
  double d[3] = { a[0] - b[0], a[1] - b[1], a[2] - b[2] };
  return norm3(d);
}

#include "pose_aa.h"

static void pose_id(double *X, double px, double py, double pz) { pose_aa(X, 0, 0, 1, 0, px, py, pz); }

static void pose_random(double *X, double spread) {
  pose_aa(X, srand1(1), srand1(1), srand1(1), srand1(PI), srand1(spread), srand1(spread),
          srand1(spread));
}

/* Y = T X (T applied after X). */
static void pose_compose(const double *T, const double *X, double *Y) {
  int i, j;
  for (i = 0; i < 3; i++) {
    for (j = 0; j < 3; j++)
      Y[3 * i + j] = T[3 * i] * X[j] + T[3 * i + 1] * X[3 + j] + T[3 * i + 2] * X[6 + j];
    Y[9 + i] = T[3 * i] * X[9] + T[3 * i + 1] * X[10] + T[3 * i + 2] * X[11] + T[9 + i];
  }
}

static void apply_rot(const double *T, const double *v, double *w) {
  int i;
  for (i = 0; i < 3; i++) w[i] = T[3 * i] * v[0] + T[3 * i + 1] * v[1] + T[3 * i + 2] * v[2];
}

static void apply_pt(const double *T, const double *v, double *w) {
  apply_rot(T, v, w);
  w[0] += T[9];
  w[1] += T[10];
  w[2] += T[11];
}

static void to_local(const double *X, const double *w, double *r) {
  double d[3] = { w[0] - X[9], w[1] - X[10], w[2] - X[11] };
  int i;
  for (i = 0; i < 3; i++) r[i] = X[i] * d[0] + X[3 + i] * d[1] + X[6 + i] * d[2];
}

static diagc_shape shp(int type, double s0, double s1, double s2) {
  diagc_shape s;
  s.type = type;
  s.size[0] = s0;
  s.size[1] = s1;
  s.size[2] = s2;
  return s;
}

static int collide(const diagc_shape *a, const double *Xa, const diagc_shape *b, const double *Xb,
                   double margin, diagc_contact *c) {
  memset(c, 0, sizeof(diagc_contact) * DIAGC_COLLIDE_MAX);
  return diagc_collide(a, Xa, b, Xb, margin, c, DIAGC_COLLIDE_MAX);
}

/* Every contact finite, normal unit, depth > -margin, count in bounds. */
static int sane(const diagc_shape *a, const diagc_shape *b, const diagc_contact *c, int n,
                double margin) {
  int i, k;
  if (n < 0 || n > diagc_collide_max(a->type, b->type)) return 0;
  for (i = 0; i < n; i++) {
    for (k = 0; k < 3; k++)
      if (!isfinite(c[i].point[k]) || !isfinite(c[i].normal[k])) return 0;
    if (!isfinite(c[i].depth) || !(c[i].depth > -margin)) return 0;
    if (fabs(norm3(c[i].normal) - 1.0) > 1e-12) return 0;
    if (i > 0 && c[i].feature < c[i - 1].feature) return 0;
  }
  return 1;
}

static int vec_near(const double *a, double x, double y, double z, double tol) {
  return fabs(a[0] - x) <= tol && fabs(a[1] - y) <= tol && fabs(a[2] - z) <= tol;
}

/* Signed distance of world point w to a box (negative inside). */
static double box_sd(const diagc_shape *s, const double *X, const double *w) {
  double r[3], o = 0.0, in = -1e300;
  int i;
  to_local(X, w, r);
  for (i = 0; i < 3; i++) {
    double e = fabs(r[i]) - s->size[i];
    if (e > 0) o += e * e;
    if (e > in) in = e;
  }
  return o > 0 ? sqrt(o) : in;
}

/* min over t in [0,1] of f by ternary search (f convex). */
typedef double (*fn1)(double t, const void *ctx);
static double tern_min(fn1 f, const void *ctx, double *targ) {
  double lo = 0.0, hi = 1.0;
  int it;
  for (it = 0; it < 100; it++) {
    double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
    if (f(m1, ctx) <= f(m2, ctx))
      hi = m2;
    else
      lo = m1;
  }
  if (targ) *targ = 0.5 * (lo + hi);
  return f(0.5 * (lo + hi), ctx);
}

static void seg_ends(const diagc_shape *s, const double *X, double *e0, double *e1) {
  int i;
  for (i = 0; i < 3; i++) {
    e0[i] = X[9 + i] - s->size[1] * X[3 * i + 2];
    e1[i] = X[9 + i] + s->size[1] * X[3 * i + 2];
  }
}

/* ---------------------------------------------------------------------
 * analytic cases */

static void test_sphere_plane(void) {
  diagc_shape s = shp(DIAGC_SHAPE_SPHERE, 0.5, 0, 0), p = shp(DIAGC_SHAPE_PLANE, 0, 0, 0);
  double Xs[12], Xp[12];
  diagc_contact c[8];
  int n;
  pose_id(Xp, 0, 0, 0);
  pose_id(Xs, 0.3, -0.2, 0.5);
  n = collide(&s, Xs, &p, Xp, 1e-3, c);
  check(n == 1 && c[0].depth == 0.0 && vec_near(c[0].normal, 0, 0, 1, 0) &&
            vec_near(c[0].point, 0.3, -0.2, 0, 1e-15) && sane(&s, &p, c, n, 1e-3),
        "collide.sphere_plane.resting", "n=%d depth=%g", n, n ? c[0].depth : 0);
  n = collide(&s, Xs, &p, Xp, 0.0, c);
  check(n == 0, "collide.sphere_plane.margin_zero_excludes_touching", "n=%d", n);
  pose_id(Xs, 0, 0, 0.4);
  n = collide(&s, Xs, &p, Xp, 0.0, c);
  check(n == 1 && fabs(c[0].depth - 0.1) < 1e-15 && vec_near(c[0].point, 0, 0, -0.05, 1e-15),
        "collide.sphere_plane.penetrating", "n=%d", n);
  pose_id(Xs, 0, 0, 0.7);
  n = collide(&s, Xs, &p, Xp, 0.1, c);
  check(n == 0, "collide.sphere_plane.beyond_margin", "n=%d", n);
  n = collide(&s, Xs, &p, Xp, 0.3, c);
  check(n == 1 && fabs(c[0].depth + 0.2) < 1e-15, "collide.sphere_plane.within_margin",
        "n=%d", n);
  /* a tilted plane: normal (sin, 0, cos) */
  pose_aa(Xp, 0, 1, 0, 0.3, 0, 0, 0);
  pose_id(Xs, 0, 0, 0);
  n = collide(&s, Xs, &p, Xp, 0, c);
  check(n == 1 && fabs(c[0].depth - 0.5) < 1e-15 &&
            vec_near(c[0].normal, sin(0.3), 0, cos(0.3), 1e-15),
        "collide.sphere_plane.tilted", "n=%d", n);
}

static void test_sphere_sphere(void) {
  diagc_shape a = shp(DIAGC_SHAPE_SPHERE, 1, 0, 0), b = shp(DIAGC_SHAPE_SPHERE, 1, 0, 0);
  double Xa[12], Xb[12];
  diagc_contact c[8];
  int n;
  pose_id(Xa, 0, 0, 0);
  pose_id(Xb, 1.5, 0, 0);
  n = collide(&a, Xa, &b, Xb, 0, c);
  check(n == 1 && fabs(c[0].depth - 0.5) < 1e-15 && vec_near(c[0].normal, -1, 0, 0, 0) &&
            vec_near(c[0].point, 0.75, 0, 0, 1e-15),
        "collide.sphere_sphere.overlap", "n=%d", n);
  pose_id(Xb, 0, 0, 0);
  n = collide(&a, Xa, &b, Xb, 0, c);
  check(n == 1 && c[0].depth == 2.0 && vec_near(c[0].normal, 0, 0, 1, 0) && sane(&a, &b, c, n, 0),
        "collide.sphere_sphere.coincident_centres", "n=%d", n);
}

static void test_sphere_box(void) {
  diagc_shape s = shp(DIAGC_SHAPE_SPHERE, 0.5, 0, 0), b = shp(DIAGC_SHAPE_BOX, 1, 2, 3);
  double Xs[12], Xb[12];
  diagc_contact c[8];
  int n;
  pose_id(Xb, 0, 0, 0);
  pose_id(Xs, 1.4, 0.3, -0.2);
  n = collide(&s, Xs, &b, Xb, 0, c);
  check(n == 1 && fabs(c[0].depth - 0.1) < 1e-14 && vec_near(c[0].normal, 1, 0, 0, 0) &&
            vec_near(c[0].point, 0.95, 0.3, -0.2, 1e-14) && c[0].feature == 2 + 3 + 9,
        "collide.sphere_box.face", "n=%d", n);
  s.size[0] = 0.6;
  pose_id(Xs, 1.3, 2.4, 0.5);
  n = collide(&s, Xs, &b, Xb, 0, c);
  check(n == 1 && fabs(c[0].depth - 0.1) < 1e-14 && vec_near(c[0].normal, 0.6, 0.8, 0, 1e-14) &&
            c[0].feature == 2 + 6 + 9,
        "collide.sphere_box.edge", "n=%d", n);
  s.size[0] = 0.4;
  pose_id(Xs, 1.2, 2.2, 3.1);
  n = collide(&s, Xs, &b, Xb, 0, c);
  check(n == 1 && fabs(c[0].depth - 0.1) < 1e-14 &&
            vec_near(c[0].normal, 2.0 / 3, 2.0 / 3, 1.0 / 3, 1e-14) && c[0].feature == 26,
        "collide.sphere_box.vertex", "n=%d", n);
  s.size[0] = 0.2;
  pose_id(Xs, 0.9, 0, 0);
  n = collide(&s, Xs, &b, Xb, 0, c);
  check(n == 1 && fabs(c[0].depth - 0.3) < 1e-14 && vec_near(c[0].normal, 1, 0, 0, 0),
        "collide.sphere_box.centre_inside", "n=%d", n);
  pose_id(Xs, 0, 0, 0);
  n = collide(&s, Xs, &b, Xb, 0, c);
  check(n == 1 && fabs(c[0].depth - 1.2) < 1e-14 && vec_near(c[0].normal, 1, 0, 0, 0) &&
            sane(&s, &b, c, n, 0),
        "collide.sphere_box.coincident_centres", "n=%d", n);
  /* rotated box: face region along the box's rotated x */
  pose_aa(Xb, 0, 0, 1, PI / 6, 1, 1, 0);
  pose_id(Xs, 1 + 1.3 * cos(PI / 6), 1 + 1.3 * sin(PI / 6), 0);
  n = collide(&s, Xs, &b, Xb, 0, c);
  n = collide(&s, Xs, &b, Xb, 0.2, c);
  check(n == 1 && fabs(c[0].depth + 0.1) < 1e-14 &&
            vec_near(c[0].normal, cos(PI / 6), sin(PI / 6), 0, 1e-14),
        "collide.sphere_box.rotated", "n=%d", n);
}

static void test_box_plane(void) {
  diagc_shape b = shp(DIAGC_SHAPE_BOX, 0.5, 0.5, 0.5), p = shp(DIAGC_SHAPE_PLANE, 0, 0, 0);
  double Xb[12], Xp[12], r[3], w[3];
  diagc_contact c[8];
  int n, k, ok, low = 0;
  pose_id(Xp, 0, 0, 0);
  pose_id(Xb, 1, 2, 0.49);
  n = collide(&b, Xb, &p, Xp, 0, c);
  ok = n == 4;
  for (k = 0; ok && k < 4; k++)
    ok = c[k].feature == k && fabs(c[k].depth - 0.01) < 1e-15 &&
         vec_near(c[k].normal, 0, 0, 1, 0) &&
         vec_near(c[k].point, 1 + ((k & 1) ? 0.5 : -0.5), 2 + ((k & 2) ? 0.5 : -0.5), -0.005,
                  1e-15);
  check(ok, "collide.box_plane.resting_4_corners", "n=%d", n);
  /* tilted about y: one edge (corners 0 and 2, x = -0.5) down */
  pose_aa(Xb, 0, 1, 0, -0.2, 0, 0, 0);
  {
    double zlow = 0.5 * sin(0.2) + 0.5 * cos(0.2);
    Xb[11] = zlow - 0.01;
  }
  n = collide(&b, Xb, &p, Xp, 0, c);
  check(n == 2 && c[0].feature == 0 && c[1].feature == 2 && fabs(c[0].depth - 0.01) < 1e-14 &&
            fabs(c[1].depth - 0.01) < 1e-14,
        "collide.box_plane.tilted_edge_2_corners", "n=%d", n);
  /* tilted about x then y: one lowest corner */
  {
    double A[12], B[12], Y[12], zmin = 1e9;
    pose_aa(A, 1, 0, 0, 0.1, 0, 0, 0);
    pose_aa(B, 0, 1, 0, 0.15, 0, 0, 0);
    pose_compose(B, A, Y);
    for (k = 0; k < 8; k++) {
      r[0] = (k & 1) ? 0.5 : -0.5;
      r[1] = (k & 2) ? 0.5 : -0.5;
      r[2] = (k & 4) ? 0.5 : -0.5;
      apply_pt(Y, r, w);
      if (w[2] < zmin) {
        zmin = w[2];
        low = k;
      }
    }
    Y[11] = -zmin - 0.02;
    n = collide(&b, Y, &p, Xp, 0, c);
    check(n == 1 && c[0].feature == low && fabs(c[0].depth - 0.02) < 1e-14,
          "collide.box_plane.tilted_1_corner", "n=%d low=%d", n, low);
    memcpy(Xb, Y, sizeof Y);
  }
  /* deep: all 8 corners below; max_out keeps the deepest */
  pose_id(Xb, 0, 0, -2);
  n = collide(&b, Xb, &p, Xp, 0, c);
  check(n == 8 && c[0].feature == 0 && c[7].feature == 7 && c[0].depth == 2.5 && c[7].depth == 1.5,
        "collide.box_plane.submerged_8", "n=%d", n);
  n = diagc_collide(&b, Xb, &p, Xp, 0, c, 3);
  check(n == 3 && c[0].feature == 0 && c[1].feature == 1 && c[2].feature == 2,
        "collide.box_plane.max_out_deepest", "n=%d", n);
}

static void test_box_box(void) {
  diagc_shape a = shp(DIAGC_SHAPE_BOX, 0.5, 0.5, 0.5), b = shp(DIAGC_SHAPE_BOX, 0.5, 0.5, 0.5);
  double Xa[12], Xb[12], s = 0.5 * sqrt(2.0) - 0.5;
  diagc_contact c[8];
  int n, k, ok, j, used[8] = { 0 };
  pose_id(Xa, 0, 0, 0);
  pose_id(Xb, 0, 0, 0.99);
  n = collide(&a, Xa, &b, Xb, 0, c);
  ok = n == 4;
  for (k = 0; ok && k < 4; k++)
    ok = fabs(c[k].depth - 0.01) < 1e-14 && vec_near(c[k].normal, 0, 0, -1, 0) &&
         vec_near(c[k].point, (k & 1) ? 0.5 : -0.5, (k & 2) ? 0.5 : -0.5, 0.495, 1e-14);
  check(ok, "collide.box_box.stack_4_points", "n=%d", n);
  /* a small box on a big one: the small box's corners */
  b.size[0] = 0.2;
  b.size[1] = 0.1;
  b.size[2] = 0.1;
  pose_id(Xb, 0.1, -0.2, 0.59);
  n = collide(&a, Xa, &b, Xb, 0, c);
  ok = n == 4;
  for (k = 0; ok && k < 4; k++)
    ok = fabs(c[k].depth - 0.01) < 1e-14 && vec_near(c[k].normal, 0, 0, -1, 0) &&
         vec_near(c[k].point, 0.1 + ((k & 1) ? 0.2 : -0.2), -0.2 + ((k & 2) ? 0.1 : -0.1), 0.495,
                  1e-14);
  check(ok, "collide.box_box.small_on_big", "n=%d", n);
  /* rotated 45 degrees about z: the octagon */
  b.size[0] = b.size[1] = b.size[2] = 0.5;
  pose_aa(Xb, 0, 0, 1, PI / 4, 0, 0, 0.99);
  n = collide(&a, Xa, &b, Xb, 0, c);
  ok = n == 8;
  for (k = 0; ok && k < 8; k++) {
    double oct[8][2] = { { 0.5, s }, { 0.5, -s }, { -0.5, s }, { -0.5, -s },
                         { s, 0.5 }, { -s, 0.5 }, { s, -0.5 }, { -s, -0.5 } };
    int found = -1;
    for (j = 0; j < 8; j++)
      if (!used[j] && vec_near(c[k].point, oct[j][0], oct[j][1], 0.495, 1e-6)) found = j;
    ok = found >= 0 && fabs(c[k].depth - 0.01) < 1e-14 && vec_near(c[k].normal, 0, 0, -1, 1e-15);
    if (found >= 0) used[found] = 1;
  }
  check(ok, "collide.box_box.rotated45_octagon_8_points", "n=%d", n);
  /* edge-edge: A's top edge along x, B's bottom edge along y, crossing */
  {
    double h = 0.5 * sqrt(2.0);
    pose_aa(Xa, 1, 0, 0, PI / 4, 0, 0, 0);
    pose_aa(Xb, 0, 1, 0, PI / 4, 0, 0, 2 * h - 0.01);
    n = collide(&a, Xa, &b, Xb, 0, c);
    check(n == 1 && fabs(c[0].depth - 0.01) < 1e-12 && vec_near(c[0].normal, 0, 0, -1, 1e-12) &&
              vec_near(c[0].point, 0, 0, h - 0.005, 1e-12) && c[0].feature / 32 >= 12,
          "collide.box_box.edge_edge", "n=%d depth=%g feature=%d", n, n ? c[0].depth : 0,
          n ? c[0].feature : -1);
  }
  /* separated beyond the margin; within it */
  pose_id(Xa, 0, 0, 0);
  pose_id(Xb, 0, 0, 1.05);
  n = collide(&a, Xa, &b, Xb, 0.01, c);
  check(n == 0, "collide.box_box.separated", "n=%d", n);
  n = collide(&a, Xa, &b, Xb, 0.1, c);
  check(n == 4 && fabs(c[0].depth + 0.05) < 1e-14, "collide.box_box.within_margin", "n=%d", n);
  /* stable slots: a tiny perturbation keeps the features */
  {
    diagc_contact c2[8];
    int n2, same;
    pose_id(Xb, 0.01, 0.02, 0.99);
    n = collide(&a, Xa, &b, Xb, 0, c);
    pose_aa(Xb, 1, 1, 0, 1e-9, 0.01, 0.02, 0.99 - 1e-9);
    n2 = collide(&a, Xa, &b, Xb, 0, c2);
    same = n == n2 && n == 4;
    for (k = 0; same && k < n; k++) same = c[k].feature == c2[k].feature;
    check(same, "collide.box_box.stable_features", "n=%d n2=%d", n, n2);
  }
}

/* a resting stack under round-off noise keeps its reference face, its
 * features and their order (warm start by slot), in both argument orders */
static void test_stack_slots(void) {
  diagc_shape a = shp(DIAGC_SHAPE_BOX, 0.5, 0.5, 0.5), b = shp(DIAGC_SHAPE_BOX, 0.5, 0.5, 0.5);
  double Xa[12], Xb[12], Ya[12], Yb[12];
  diagc_contact c0[8], d0[8], c[8], d[8];
  int n0, m0, it, k, bad = 0;
  pose_id(Xa, 0, 0, 0.5);
  pose_id(Xb, 0.1, 0, 1.499);
  n0 = collide(&a, Xa, &b, Xb, 0.01, c0);
  m0 = collide(&b, Xb, &a, Xa, 0.01, d0);
  for (it = 0; it < 500; it++) {
    int n, m, same;
    pose_aa(Ya, srand1(1), srand1(1), srand1(1), srand1(1e-10), srand1(1e-12), srand1(1e-12),
            0.5 + srand1(1e-12));
    pose_aa(Yb, srand1(1), srand1(1), srand1(1), srand1(1e-10), 0.1 + srand1(1e-12), srand1(1e-12),
            1.499 + srand1(1e-12));
    n = collide(&a, Ya, &b, Yb, 0.01, c);
    m = collide(&b, Yb, &a, Ya, 0.01, d);
    same = n == n0 && m == m0;
    for (k = 0; same && k < n; k++) same = c[k].feature == c0[k].feature;
    for (k = 0; same && k < m; k++) same = d[k].feature == d0[k].feature;
    bad += !same;
  }
  check(n0 == 4 && m0 == 4 && bad == 0, "collide.box_box.stack_slots_stable_under_noise",
        "n0=%d m0=%d, %d of 500 changed", n0, m0, bad);
}

static void test_capsules(void) {
  diagc_shape cap = shp(DIAGC_SHAPE_CAPSULE, 0.1, 0.5, 0), p = shp(DIAGC_SHAPE_PLANE, 0, 0, 0);
  diagc_shape cap2 = shp(DIAGC_SHAPE_CAPSULE, 0.1, 0.5, 0), box = shp(DIAGC_SHAPE_BOX, 0.5, 0.5, 0.5);
  diagc_shape sph = shp(DIAGC_SHAPE_SPHERE, 0.1, 0, 0);
  double Xc[12], Xp[12], Xd[12], Xb[12], Xs[12];
  diagc_contact c[8];
  int n;
  pose_id(Xp, 0, 0, 0);
  pose_aa(Xc, 0, 1, 0, PI / 2, 0, 0, 0.09); /* local z along world x */
  n = collide(&cap, Xc, &p, Xp, 0, c);
  check(n == 2 && c[0].feature == 0 && c[1].feature == 1 && fabs(c[0].depth - 0.01) < 1e-14 &&
            fabs(c[1].depth - 0.01) < 1e-14 && vec_near(c[0].point, -0.5, 0, -0.005, 1e-14) &&
            vec_near(c[1].point, 0.5, 0, -0.005, 1e-14) && vec_near(c[0].normal, 0, 0, 1, 0),
        "collide.capsule_plane.lying_2_points", "n=%d", n);
  pose_id(Xc, 0, 0, 0.59);
  n = collide(&cap, Xc, &p, Xp, 0, c);
  check(n == 1 && c[0].feature == 0 && fabs(c[0].depth - 0.01) < 1e-14,
        "collide.capsule_plane.standing_1_point", "n=%d", n);
  /* crossed capsules */
  pose_aa(Xc, 0, 1, 0, PI / 2, 0, 0, 0);
  pose_aa(Xd, 1, 0, 0, PI / 2, 0, 0, 0.19);
  n = collide(&cap, Xc, &cap2, Xd, 0, c);
  check(n == 1 && fabs(c[0].depth - 0.01) < 1e-14 && vec_near(c[0].normal, 0, 0, -1, 1e-15) &&
            vec_near(c[0].point, 0, 0, 0.095, 1e-14) && c[0].feature == 2,
        "collide.capsule_capsule.crossed", "n=%d", n);
  /* parallel, overlapping on x in [-0.2, 0.5] */
  pose_aa(Xd, 0, 1, 0, PI / 2, 0.3, 0, 0.19);
  n = collide(&cap, Xc, &cap2, Xd, 0, c);
  check(n == 2 && fabs(c[0].depth - 0.01) < 1e-14 && fabs(c[1].depth - 0.01) < 1e-14 &&
            vec_near(c[0].point, -0.2, 0, 0.095, 1e-14) &&
            vec_near(c[1].point, 0.5, 0, 0.095, 1e-14) && vec_near(c[0].normal, 0, 0, -1, 1e-15),
        "collide.capsule_capsule.parallel_2_points", "n=%d", n);
  /* coincident axes: finite, normal across the axis */
  pose_aa(Xd, 0, 1, 0, PI / 2, 0.3, 0, 0);
  n = collide(&cap, Xc, &cap2, Xd, 0, c);
  check(n == 2 && sane(&cap, &cap2, c, n, 0) && fabs(c[0].normal[0]) < 1e-12 && fabs(c[0].depth - 0.2) < 1e-14,
        "collide.capsule_capsule.coincident_axes", "n=%d", n);
  /* capsule on a box face: 2 points; longer than the face: clipped */
  pose_id(Xb, 0, 0, 0);
  pose_aa(Xc, 0, 1, 0, PI / 2, 0, 0.1, 0.59);
  cap.size[1] = 0.3;
  n = collide(&box, Xb, &cap, Xc, 0, c);
  check(n == 2 && fabs(c[0].depth - 0.01) < 1e-14 && fabs(c[1].depth - 0.01) < 1e-14 &&
            vec_near(c[0].normal, 0, 0, -1, 1e-15) && vec_near(c[0].point, -0.3, 0.1, 0.495, 1e-14) &&
            vec_near(c[1].point, 0.3, 0.1, 0.495, 1e-14),
        "collide.capsule_box.on_face_2_points", "n=%d", n);
  cap.size[1] = 1.0;
  n = collide(&box, Xb, &cap, Xc, 0, c);
  check(n == 2 && vec_near(c[0].point, -0.5, 0.1, 0.495, 1e-14) &&
            vec_near(c[1].point, 0.5, 0.1, 0.495, 1e-14),
        "collide.capsule_box.clipped_to_face", "n=%d", n);
  /* near a box vertex: one point along the diagonal */
  cap.size[1] = 0.2;
  {
    double d = 0.05 / sqrt(3.0), q = 0.5 + d + 0.2 / sqrt(3.0);
    pose_aa(Xc, -1, 1, 0, acos(1 / sqrt(3.0)), q, q, q); /* local z along (1,1,1) */
    n = collide(&box, Xb, &cap, Xc, 0, c);
    check(n == 1 && fabs(c[0].depth - 0.05) < 1e-12 &&
              vec_near(c[0].normal, -1 / sqrt(3.0), -1 / sqrt(3.0), -1 / sqrt(3.0), 1e-12),
          "collide.capsule_box.vertex", "n=%d depth=%g", n, n ? c[0].depth : 0);
  }
  /* a capsule through the box: finite, pushed out along a face */
  pose_id(Xc, 0.1, 0.45, 0);
  cap.size[1] = 1.0;
  n = collide(&box, Xb, &cap, Xc, 0, c);
  check(n >= 1 && sane(&box, &cap, c, n, 0) && vec_near(c[0].normal, 0, -1, 0, 1e-15) &&
            fabs(c[0].depth - 0.15) < 1e-14,
        "collide.capsule_box.through", "n=%d", n);
  /* a zero-length capsule is a ball: one contact on a plane and on a face */
  {
    diagc_shape ball = shp(DIAGC_SHAPE_CAPSULE, 0.1, 0, 0);
    int n2;
    pose_aa(Xc, 0, 1, 0, PI / 2, 0.1, 0.1, 0.09);
    n = collide(&ball, Xc, &p, Xp, 0, c);
    Xc[11] = 0.59;
    n2 = collide(&box, Xb, &ball, Xc, 0, c);
    check(n == 1 && n2 == 1 && fabs(c[0].depth - 0.01) < 1e-14, "collide.capsule.zero_length_one_point",
          "n=%d n2=%d", n, n2);
  }
  /* sphere-capsule */
  pose_aa(Xc, 0, 1, 0, PI / 2, 0, 0, 0);
  cap.size[0] = 0.2;
  pose_id(Xs, 0.3, 0, 0.25);
  n = collide(&sph, Xs, &cap, Xc, 0, c);
  check(n == 1 && fabs(c[0].depth - 0.05) < 1e-14 && vec_near(c[0].normal, 0, 0, 1, 1e-15) &&
            vec_near(c[0].point, 0.3, 0, 0.175, 1e-14),
        "collide.sphere_capsule", "n=%d", n);
  pose_id(Xs, 0.3, 0, 0);
  n = collide(&sph, Xs, &cap, Xc, 0, c);
  check(n == 1 && sane(&sph, &cap, c, n, 0) && fabs(c[0].normal[0]) < 1e-15 &&
            fabs(c[0].depth - 0.3) < 1e-15,
        "collide.sphere_capsule.centre_on_axis", "n=%d", n);
}

static void test_misc(void) {
  diagc_shape p = shp(DIAGC_SHAPE_PLANE, 0, 0, 0), bad = shp(7, 1, 1, 1);
  double X[12], Y[12], n1[3], t1[3], t2[3];
  diagc_contact c[8];
  int n, i, ok = 1;
  static const int want[4][4] = { { 1, 1, 1, 1 }, { 1, 8, 2, 8 }, { 1, 2, 2, 2 }, { 1, 8, 2, 0 } };
  pose_id(X, 0, 0, 0);
  pose_id(Y, 0, 0, -0.5);
  n = collide(&p, X, &p, Y, 10, c);
  check(n == 0, "collide.plane_plane_none", "n=%d", n);
  n = collide(&p, X, &bad, Y, 10, c);
  check(n == 0 && diagc_collide_max(7, 1) == 0 && diagc_collide_max(0, 2) == 0,
        "collide.unknown_type_none", "n=%d", n);
  for (i = 0; i < 16; i++)
    ok &= diagc_collide_max(i / 4 + 1, i % 4 + 1) == want[i / 4][i % 4] &&
          DIAGC_COLLIDE_MAX_FOR(i / 4 + 1, i % 4 + 1) == want[i / 4][i % 4];
  {
    /* a constant expression: sizes an array */
    static diagc_contact slots[DIAGC_COLLIDE_MAX_FOR(DIAGC_SHAPE_BOX, DIAGC_SHAPE_PLANE)];
    ok &= sizeof slots / sizeof slots[0] == 8;
  }
  check(ok, "collide.max_table", "mismatch");
  /* contact frame */
  n1[0] = 0;
  n1[1] = 0;
  n1[2] = 1;
  diagc_contact_frame(n1, t1, t2);
  check(vec_near(t1, 1, 0, 0, 0) && vec_near(t2, 0, 1, 0, 0), "collide.frame.z", "t1 %g %g %g",
        t1[0], t1[1], t1[2]);
  n1[0] = -sin(0.3);
  n1[2] = cos(0.3);
  diagc_contact_frame(n1, t1, t2);
  check(vec_near(t1, cos(0.3), 0, sin(0.3), 1e-15) && vec_near(t2, 0, 1, 0, 1e-15),
        "collide.frame.incline_along_slope", "t1 %g %g %g", t1[0], t1[1], t1[2]);
  n1[0] = 1;
  n1[1] = 0;
  n1[2] = 0;
  diagc_contact_frame(n1, t1, t2);
  check(vec_near(t1, 0, 1, 0, 0) && vec_near(t2, 0, 0, 1, 0), "collide.frame.x_normal_uses_y",
        "t1 %g %g %g", t1[0], t1[1], t1[2]);
  for (i = 0; i < 2000 && ok; i++) {
    double m[3] = { srand1(1), srand1(1), srand1(1) }, l = norm3(m), tt[3];
    m[0] /= l;
    m[1] /= l;
    m[2] /= l;
    if (i == 0) m[0] = DIAGC_CONTACT_FRAME_X_MAX, m[1] = 0, m[2] = sqrt(1 - 0.81);
    diagc_contact_frame(m, t1, t2);
    tt[0] = m[1] * t1[2] - m[2] * t1[1];
    tt[1] = m[2] * t1[0] - m[0] * t1[2];
    tt[2] = m[0] * t1[1] - m[1] * t1[0];
    ok = fabs(norm3(t1) - 1) < 1e-14 && fabs(norm3(t2) - 1) < 1e-14 && fabs(dot3(t1, m)) < 1e-14 &&
         fabs(dot3(t2, m)) < 1e-14 && dist3(tt, t2) < 1e-14 &&
         /* t1 in the plane of n and world x (or y), on the side of x (y) */
         (fabs(m[0]) < DIAGC_CONTACT_FRAME_X_MAX
              ? fabs(m[1] * t1[2] - m[2] * t1[1]) < 1e-14 && t1[0] > 0
              : fabs(m[2] * t1[0] - m[0] * t1[2]) < 1e-14 && t1[1] > 0);
  }
  check(ok, "collide.frame.random_orthonormal", "at %d", i);
  n1[0] = n1[1] = n1[2] = 0;
  diagc_contact_frame(n1, t1, t2);
  ok = vec_near(t1, 1, 0, 0, 0) && vec_near(t2, 0, 1, 0, 0);
  n1[0] = NAN;
  diagc_contact_frame(n1, t1, t2);
  ok = ok && vec_near(t1, 1, 0, 0, 0) && vec_near(t2, 0, 1, 0, 0);
  check(ok, "collide.frame.degenerate", "t1 %g %g %g", t1[0], t1[1], t1[2]);
  /* non-finite poses give nothing */
  {
    diagc_shape s = shp(DIAGC_SHAPE_SPHERE, 1, 0, 0);
    Y[9] = NAN;
    n = collide(&s, X, &s, Y, 1, c);
    check(n == 0, "collide.nonfinite_input_none", "n=%d", n);
  }
}

/* ---------------------------------------------------------------------
 * random configurations */

static void random_shape(int type, diagc_shape *s) {
  *s = shp(type, 0.1 + urand(), 0.1 + urand(), 0.1 + urand());
  if (type == DIAGC_SHAPE_CAPSULE) s->size[0] = 0.05 + 0.5 * urand();
}

/* Does b's contact set equal a's with normals negated (any order)? */
static int same_set_flipped(const diagc_contact *c, int n, const diagc_contact *d, int m, double tol) {
  int i, j, used[8] = { 0 };
  if (n != m) return 0;
  for (i = 0; i < n; i++) {
    int f = -1;
    for (j = 0; j < m && f < 0; j++)
      if (!used[j] && dist3(c[i].point, d[j].point) <= tol && fabs(c[i].depth - d[j].depth) <= tol &&
          fabs(c[i].normal[0] + d[j].normal[0]) <= tol && fabs(c[i].normal[1] + d[j].normal[1]) <= tol &&
          fabs(c[i].normal[2] + d[j].normal[2]) <= tol)
        f = j;
    if (f < 0) return 0;
    used[f] = 1;
  }
  return 1;
}

static void test_symmetry_and_motion(void) {
  int ta, tb, it, bad_sym = 0, bad_mot = 0, bad_sane = 0, total = 0, nonzero = 0;
  for (ta = 1; ta <= 4; ta++)
    for (tb = 1; tb <= 4; tb++) {
      for (it = 0; it < 400; it++) {
        diagc_shape a, b;
        double Xa[12], Xb[12], T[12], Ya[12], Yb[12], margin = 0.05;
        diagc_contact c[8], d[8], e[8];
        int n, m, k, i;
        random_shape(ta, &a);
        random_shape(tb, &b);
        pose_random(Xa, 0.6);
        pose_random(Xb, 0.6);
        n = collide(&a, Xa, &b, Xb, margin, c);
        m = collide(&b, Xb, &a, Xa, margin, d);
        total++;
        nonzero += n > 0;
        if (!sane(&a, &b, c, n, margin) || !sane(&b, &a, d, m, margin)) bad_sane++;
        if (!same_set_flipped(c, n, d, m, 1e-9)) {
          if (bad_sym++ < 3) printf("# symmetry %d-%d it %d: n=%d m=%d\n", ta, tb, it, n, m);
        }
        pose_random(T, 3.0);
        pose_compose(T, Xa, Ya);
        pose_compose(T, Xb, Yb);
        k = collide(&a, Ya, &b, Yb, margin, e);
        if (k != n) {
          if (bad_mot++ < 3) printf("# motion %d-%d it %d: n=%d k=%d\n", ta, tb, it, n, k);
          continue;
        }
        for (i = 0; i < n; i++) {
          double pt[3], nn[3];
          apply_pt(T, c[i].point, pt);
          apply_rot(T, c[i].normal, nn);
          if (dist3(pt, e[i].point) > 1e-9 || dist3(nn, e[i].normal) > 1e-9 ||
              fabs(c[i].depth - e[i].depth) > 1e-9 || c[i].feature != e[i].feature) {
            if (bad_mot++ < 3)
              printf("# motion %d-%d it %d contact %d of %d differs: feature %d/%d depth %.17g/%.17g dp %g dn %g\n",
                     ta, tb, it, i, n, c[i].feature, e[i].feature, c[i].depth, e[i].depth,
                     dist3(pt, e[i].point), dist3(nn, e[i].normal));
            break;
          }
        }
      }
    }
  check(bad_sane == 0, "collide.random.sane", "%d of %d", bad_sane, total);
  check(bad_sym == 0 && nonzero > total / 4, "collide.random.swap_symmetry",
        "%d of %d differ (%d with contacts)", bad_sym, total, nonzero);
  check(bad_mot == 0, "collide.random.rigid_motion_invariance", "%d of %d differ", bad_mot, total);
}

/* sphere-box against a sampled box surface */
static void test_fuzz_sphere_box(void) {
  int it, bad = 0, seen = 0;
  for (it = 0; it < 300; it++) {
    diagc_shape s, b;
    double Xs[12], Xb[12], r[3], sd, ref_n[3] = { 0, 0, 0 }, margin = 0.5;
    diagc_contact c[8];
    int n, f, i, j, N = 40;
    random_shape(DIAGC_SHAPE_SPHERE, &s);
    random_shape(DIAGC_SHAPE_BOX, &b);
    pose_random(Xb, 0.5);
    pose_random(Xs, 1.5);
    to_local(Xb, Xs + 9, r);
    /* reference: nearest sample of the box surface (outside) or nearest
       face plane (inside) */
    if (box_sd(&b, Xb, Xs + 9) > 0) {
      double best = 1e300, bq[3] = { 0, 0, 0 };
      for (f = 0; f < 6; f++)
        for (i = 0; i <= N; i++)
          for (j = 0; j <= N; j++) {
            double q[3], d;
            int ax = f / 2, u = (ax + 1) % 3, v = (ax + 2) % 3;
            q[ax] = (f & 1) ? b.size[ax] : -b.size[ax];
            q[u] = -b.size[u] + 2 * b.size[u] * i / N;
            q[v] = -b.size[v] + 2 * b.size[v] * j / N;
            d = dist3(q, r);
            if (d < best) {
              best = d;
              memcpy(bq, q, sizeof bq);
            }
          }
      sd = best;
      for (i = 0; i < 3; i++) ref_n[i] = (r[i] - bq[i]) / best;
    } else {
      sd = box_sd(&b, Xb, Xs + 9);
    }
    n = collide(&s, Xs, &b, Xb, margin, c);
    {
      double depth_ref = s.size[0] - sd, tol = 2.0 * sqrt(2.0) / N;
      int ok = 1;
      if (depth_ref > -margin + tol) ok = n == 1;
      if (depth_ref < -margin - 1e-12) ok = n == 0;
      if (ok && n == 1) {
        double sa[3], sb[3];
        seen++;
        ok = fabs(c[0].depth - depth_ref) <= tol;
        /* the point is midway: depth/2 back along the normal is on the
           sphere, depth/2 ahead is on the box */
        for (i = 0; i < 3; i++) {
          sa[i] = c[0].point[i] - 0.5 * c[0].depth * c[0].normal[i];
          sb[i] = c[0].point[i] + 0.5 * c[0].depth * c[0].normal[i];
        }
        ok = ok && fabs(dist3(sa, Xs + 9) - s.size[0]) < 1e-9 && fabs(box_sd(&b, Xb, sb)) < 1e-9;
        if (ok && sd > 0.5) {
          double nw[3];
          apply_rot(Xb, ref_n, nw);
          ok = dist3(nw, c[0].normal) < 0.15;
        }
      }
      if (!ok && bad++ < 3)
        printf("# sphere_box it %d: n=%d depth=%g ref=%g\n", it, n, n ? c[0].depth : 0, depth_ref);
    }
  }
  check(bad == 0 && seen > 50, "collide.fuzz.sphere_box_vs_sampled_surface", "%d bad, %d seen",
        bad, seen);
}

/* capsule pairs against ternary search of convex distance functions */
typedef struct {
  const double *p0, *p1, *q0, *q1;
  const diagc_shape *box;
  const double *Xbox;
  double s;
} segctx;

static double seg_point_dist(double t, const void *vc) {
  const segctx *c = vc;
  double p[3], q[3];
  int i;
  for (i = 0; i < 3; i++) {
    p[i] = c->p0[i] + c->s * (c->p1[i] - c->p0[i]);
    q[i] = c->q0[i] + t * (c->q1[i] - c->q0[i]);
  }
  return dist3(p, q);
}

static double seg_seg_outer(double s, const void *vc) {
  segctx c = *(const segctx *)vc;
  c.s = s;
  return tern_min(seg_point_dist, &c, NULL);
}

static double seg_box_dist(double t, const void *vc) {
  const segctx *c = vc;
  double q[3];
  int i;
  for (i = 0; i < 3; i++) q[i] = c->q0[i] + t * (c->q1[i] - c->q0[i]);
  return box_sd(c->box, c->Xbox, q);
}

static void test_fuzz_capsules(void) {
  int it, bad = 0, seen_cc = 0, seen_cb = 0, seen_sc = 0;
  for (it = 0; it < 300; it++) {
    diagc_shape a, b, box, sph;
    double Xa[12], Xb[12], Xx[12], Xs[12], a0[3], a1[3], b0[3], b1[3], margin = 0.2, ref, depth;
    diagc_contact c[8];
    int n, i;
    segctx ctx;
    random_shape(DIAGC_SHAPE_CAPSULE, &a);
    random_shape(DIAGC_SHAPE_CAPSULE, &b);
    random_shape(DIAGC_SHAPE_BOX, &box);
    random_shape(DIAGC_SHAPE_SPHERE, &sph);
    pose_random(Xa, 0.8);
    pose_random(Xb, 0.8);
    pose_random(Xx, 0.8);
    pose_random(Xs, 0.8);
    seg_ends(&a, Xa, a0, a1);
    seg_ends(&b, Xb, b0, b1);
    /* capsule-capsule */
    ctx.p0 = a0;
    ctx.p1 = a1;
    ctx.q0 = b0;
    ctx.q1 = b1;
    ref = a.size[0] + b.size[0] - tern_min(seg_seg_outer, &ctx, NULL);
    n = collide(&a, Xa, &b, Xb, margin, c);
    depth = -1e300;
    for (i = 0; i < n; i++) depth = c[i].depth > depth ? c[i].depth : depth;
    if ((ref > -margin + 1e-9 && !(n >= 1 && fabs(depth - ref) < 1e-8)) ||
        (ref < -margin - 1e-9 && n != 0)) {
      if (bad++ < 3) printf("# capsule_capsule it %d: n=%d depth=%g ref=%g\n", it, n, depth, ref);
    }
    seen_cc += n > 0;
    /* sphere-capsule */
    ctx.p0 = ctx.p1 = Xs + 9;
    ctx.s = 0;
    ref = sph.size[0] + a.size[0] - tern_min(seg_point_dist, &(segctx){ Xs + 9, Xs + 9, a0, a1, NULL, NULL, 0 }, NULL);
    n = collide(&sph, Xs, &a, Xa, margin, c);
    if ((ref > -margin + 1e-9 && !(n == 1 && fabs(c[0].depth - ref) < 1e-8)) ||
        (ref < -margin - 1e-9 && n != 0)) {
      if (bad++ < 3) printf("# sphere_capsule it %d: n=%d ref=%g\n", it, n, ref);
    }
    seen_sc += n > 0;
    /* capsule-box, when the segment stays outside the box */
    {
      segctx bc = { NULL, NULL, a0, a1, &box, Xx, 0 };
      double dmin = tern_min(seg_box_dist, &bc, NULL);
      ref = a.size[0] - dmin;
      n = collide(&a, Xa, &box, Xx, margin, c);
      depth = -1e300;
      for (i = 0; i < n; i++) depth = c[i].depth > depth ? c[i].depth : depth;
      if (dmin > 1e-6 && ((ref > -margin + 1e-9 && !(n >= 1 && fabs(depth - ref) < 1e-8)) ||
                          (ref < -margin - 1e-9 && n != 0))) {
        if (bad++ < 3) printf("# capsule_box it %d: n=%d depth=%g ref=%g\n", it, n, depth, ref);
      }
      if (dmin <= 0 && n == 0) {
        if (bad++ < 3) printf("# capsule_box it %d: segment inside, no contact\n", it);
      }
      seen_cb += n > 0;
    }
  }
  check(bad == 0 && seen_cc > 30 && seen_cb > 30 && seen_sc > 30,
        "collide.fuzz.capsules_vs_ternary_search", "%d bad; seen %d %d %d", bad, seen_cc, seen_cb,
        seen_sc);
}

/* box-box: the least overlap by brute force (every corner projected on the
 * 15 candidate axes, built from world vectors): the penetration depth when
 * positive, a lower bound of the distance when negative */
static void box_corners(const diagc_shape *s, const double *X, double w[8][3]) {
  int k;
  for (k = 0; k < 8; k++) {
    double r[3] = { (k & 1) ? s->size[0] : -s->size[0], (k & 2) ? s->size[1] : -s->size[1],
                    (k & 4) ? s->size[2] : -s->size[2] };
    apply_pt(X, r, w[k]);
  }
}

static double overlap_along(double A[8][3], double B[8][3], const double *L) {
  double amin = 1e300, amax = -1e300, bmin = 1e300, bmax = -1e300;
  int k;
  for (k = 0; k < 8; k++) {
    double x = dot3(A[k], L), y = dot3(B[k], L);
    amin = x < amin ? x : amin;
    amax = x > amax ? x : amax;
    bmin = y < bmin ? y : bmin;
    bmax = y > bmax ? y : bmax;
  }
  /* the push-out distance along +-L (negative: the gap) */
  return (amax - bmin < bmax - amin) ? amax - bmin : bmax - amin;
}

/* faces_only: the least overlap over the 6 face normals */
static double box_box_mtd(double A[8][3], double B[8][3], const double *Xa, const double *Xb,
                          int faces_only) {
  double best = 1e300, axes[15][3];
  int i, j, na = 0;
  for (i = 0; i < 3; i++) {
    double u[3] = { Xa[i], Xa[3 + i], Xa[6 + i] }, v[3] = { Xb[i], Xb[3 + i], Xb[6 + i] };
    memcpy(axes[na++], u, sizeof u);
    memcpy(axes[na++], v, sizeof v);
  }
  for (i = 0; i < 3 && !faces_only; i++)
    for (j = 0; j < 3; j++) {
      double u[3] = { Xa[i], Xa[3 + i], Xa[6 + i] }, v[3] = { Xb[j], Xb[3 + j], Xb[6 + j] }, w[3], l;
      w[0] = u[1] * v[2] - u[2] * v[1];
      w[1] = u[2] * v[0] - u[0] * v[2];
      w[2] = u[0] * v[1] - u[1] * v[0];
      l = norm3(w);
      if (l < 1e-6) continue;
      w[0] /= l;
      w[1] /= l;
      w[2] /= l;
      memcpy(axes[na++], w, sizeof w);
    }
  for (i = 0; i < na; i++) {
    double o = overlap_along(A, B, axes[i]);
    best = o < best ? o : best;
  }
  return best; /* < 0: separated along some axis */
}

static void test_fuzz_box_box(void) {
  int it, bad = 0, seen = 0, apart = 0;
  for (it = 0; it < 300; it++) {
    diagc_shape a, b;
    double Xa[12], Xb[12], A[8][3], B[8][3], mtd, fmin, margin = 0.1, maxd = -1e300;
    diagc_contact c[8];
    int n, i, ok = 1;
    random_shape(DIAGC_SHAPE_BOX, &a);
    random_shape(DIAGC_SHAPE_BOX, &b);
    pose_random(Xa, 0.5);
    pose_random(Xb, 1.2);
    box_corners(&a, Xa, A);
    box_corners(&b, Xb, B);
    mtd = box_box_mtd(A, B, Xa, Xb, 0);
    fmin = box_box_mtd(A, B, Xa, Xb, 1);
    n = collide(&a, Xa, &b, Xb, margin, c);
    for (i = 0; i < n; i++) maxd = c[i].depth > maxd ? c[i].depth : maxd;
    if (-mtd > margin + 1e-9) ok = n == 0;
    if (mtd > 1e-9) ok = n >= 1;
    /* no deeper than the push-out along its normal, which is within the
       face bias (1/0.95) of the least overlap: over all 15 axes for an
       edge-edge normal, over the 6 face normals for a face normal (an edge
       axis nearly parallel to the face may separate slightly better) */
    if (ok && n >= 1) {
      double nn[3] = { -c[0].normal[0], -c[0].normal[1], -c[0].normal[2] }, ov, ref;
      int face = 0;
      for (i = 0; i < 3; i++) {
        double u[3] = { Xa[i], Xa[3 + i], Xa[6 + i] }, v[3] = { Xb[i], Xb[3 + i], Xb[6 + i] };
        face |= fabs(fabs(dot3(u, nn)) - 1) < 1e-12 || fabs(fabs(dot3(v, nn)) - 1) < 1e-12;
      }
      ov = overlap_along(A, B, nn);
      ref = face ? fmin : mtd;
      ok = maxd <= ov + 1e-9 && ov <= (ref > 0 ? ref / 0.95 : ref * 0.95) + 1e-9 && maxd > -margin;
    }
    if (ok && n >= 1 && mtd > 0) {
      seen++;
      for (i = 0; ok && i < n; i++)
        ok = box_sd(&a, Xa, c[i].point) <= fabs(c[i].depth) + 1e-9 &&
             box_sd(&b, Xb, c[i].point) <= fabs(c[i].depth) + 1e-9;
    }
    apart += mtd < 0 && n > 0;
    if (!ok && bad++ < 3) {
      double nn[3] = { -c[0].normal[0], -c[0].normal[1], -c[0].normal[2] };
      printf("# box_box it %d: n=%d maxdepth=%g mtd=%g feature0 %d ov(n)=%g\n", it, n, maxd, mtd,
             c[0].feature, overlap_along(A, B, nn));
      for (i = 0; i < n; i++)
        printf("#   %d depth %g sdA %g sdB %g\n", c[i].feature, c[i].depth, box_sd(&a, Xa, c[i].point),
               box_sd(&b, Xb, c[i].point));
    }
  }
  check(bad == 0 && seen > 50 && apart > 5, "collide.fuzz.box_box_vs_brute_force",
        "%d bad, %d overlapping, %d apart within the margin", bad, seen, apart);
}

static void test_fuzz_box_plane(void) {
  int it, bad = 0;
  for (it = 0; it < 300; it++) {
    diagc_shape b, p = shp(DIAGC_SHAPE_PLANE, 0, 0, 0);
    double Xb[12], Xp[12], W[8][3], nrm[3], margin = 0.05;
    diagc_contact c[8];
    int n, k, m = 0, ok = 1;
    random_shape(DIAGC_SHAPE_BOX, &b);
    pose_random(Xb, 0.5);
    pose_random(Xp, 0.5);
    box_corners(&b, Xb, W);
    nrm[0] = Xp[2];
    nrm[1] = Xp[5];
    nrm[2] = Xp[8];
    n = collide(&b, Xb, &p, Xp, margin, c);
    for (k = 0; k < 8; k++) {
      double rel[3] = { W[k][0] - Xp[9], W[k][1] - Xp[10], W[k][2] - Xp[11] }, depth = -dot3(nrm, rel);
      if (depth > -margin) {
        ok = ok && m < n && c[m].feature == k && fabs(c[m].depth - depth) < 1e-12 &&
             dist3(c[m].normal, nrm) < 1e-12;
        m++;
      }
    }
    ok = ok && m == n;
    if (!ok && bad++ < 3) printf("# box_plane it %d: n=%d m=%d\n", it, n, m);
  }
  check(bad == 0, "collide.fuzz.box_plane_vs_corners", "%d bad", bad);
}

/* 0, tiny, huge or ordinary lengths */
static double wild(void) {
  double x = urand();
  if (x < 0.1) return 0;
  if (x < 0.2) return 1e-12 * urand();
  if (x < 0.3) return 1e6 * urand();
  if (x < 0.4) return 0.5;
  return urand();
}

/* random or axis-aligned (quarter turns about z, half-unit offsets) */
static void wild_pose(double *X, int aligned) {
  int i;
  if (aligned) {
    pose_aa(X, 0, 0, 1, (int)(urand() * 4) * PI / 2, 0, 0, 0);
    for (i = 9; i < 12; i++) X[i] = 0.5 * (int)(urand() * 4);
  } else {
    pose_random(X, 1);
    for (i = 9; i < 12; i++) X[i] = urand() < 0.2 ? 0 : wild() * (urand() < 0.5 ? -1 : 1);
  }
}

/* degenerate shapes and poses: never NaN, never more than the bound */
static void test_degenerate(void) {
  int ta, tb, it, bad = 0;
  for (ta = 1; ta <= 4; ta++)
    for (tb = 1; tb <= 4; tb++)
      for (it = 0; it < 60; it++) {
        diagc_shape a = shp(ta, 0, 0, 0), b = shp(tb, 0, 0, 0);
        double Xa[12], Xb[12];
        diagc_contact c[8];
        int n, k;
        if (it % 3 == 1) a.size[0] = b.size[0] = 0.5;
        if (it % 3 == 2) a.size[0] = a.size[1] = a.size[2] = b.size[0] = b.size[1] = b.size[2] = 0.5;
        pose_id(Xa, 0, 0, 0);
        if (it < 20)
          pose_id(Xb, 0, 0, 0); /* coincident */
        else if (it < 40)
          pose_aa(Xb, 0, 0, 1, (it % 4) * PI / 2, 0, 0, 0.25 * (it % 5)); /* parallel edges */
        else
          pose_aa(Xb, 1, 1, 1, 1e-300 * it, 1e-300, 0, 0);
        n = collide(&a, Xa, &b, Xb, 0.1, c);
        for (k = 0; k < n; k++)
          if (!isfinite(c[k].depth) || !isfinite(c[k].normal[0] + c[k].normal[1] + c[k].normal[2]) ||
              !isfinite(c[k].point[0] + c[k].point[1] + c[k].point[2]) ||
              fabs(norm3(c[k].normal) - 1) > 1e-12)
            n = -1;
        if (n < 0 || n > diagc_collide_max(ta, tb)) {
          if (bad++ < 3) printf("# degenerate %d-%d it %d: n=%d\n", ta, tb, it, n);
        }
      }
  check(bad == 0, "collide.degenerate_finite", "%d bad", bad);
  /* wild sizes (0, 1e-12, 1e6), positions and aligned poses, any margin */
  bad = 0;
  for (it = 0; it < 40000; it++) {
    diagc_shape a, b;
    double Xa[12], Xb[12], margin = urand() < 0.5 ? 0 : wild();
    diagc_contact c[8];
    int n, k, aligned = urand() < 0.3;
    a = shp(1 + (int)(urand() * 4), wild(), wild(), wild());
    b = shp(1 + (int)(urand() * 4), wild(), wild(), wild());
    wild_pose(Xa, aligned);
    wild_pose(Xb, aligned);
    n = collide(&a, Xa, &b, Xb, margin, c);
    for (k = 0; k < n; k++)
      if (!isfinite(c[k].depth) || !isfinite(c[k].point[0] + c[k].point[1] + c[k].point[2]) ||
          fabs(norm3(c[k].normal) - 1) > 1e-9 || !(c[k].depth > -margin))
        n = -1;
    if (n < 0 || n > diagc_collide_max(a.type, b.type)) bad++;
  }
  check(bad == 0, "collide.wild_sizes_and_poses_finite", "%d bad", bad);
}

/* ---------------------------------------------------------------------
 * bounding boxes and broad phase */

static void test_aabb(void) {
  int it, bad = 0;
  for (it = 0; it < 400; it++) {
    int type = 1 + it % 3, k;
    diagc_shape s;
    double X[12], bb[6], margin = 0.01 * (it % 2);
    random_shape(type, &s);
    pose_random(X, 2);
    diagc_shape_aabb(&s, X, margin, bb);
    /* sample the surface's extreme points: every one inside, and the box is
       tight to 1e-12 on each side (support points along +-world axes) */
    for (k = 0; k < 3; k++) {
      double lo = 1e300, hi = -1e300;
      if (type == DIAGC_SHAPE_SPHERE) {
        lo = X[9 + k] - s.size[0];
        hi = X[9 + k] + s.size[0];
      } else if (type == DIAGC_SHAPE_BOX) {
        double W[8][3];
        int j;
        box_corners(&s, X, W);
        for (j = 0; j < 8; j++) {
          lo = W[j][k] < lo ? W[j][k] : lo;
          hi = W[j][k] > hi ? W[j][k] : hi;
        }
      } else {
        double e0[3], e1[3];
        seg_ends(&s, X, e0, e1);
        lo = (e0[k] < e1[k] ? e0[k] : e1[k]) - s.size[0];
        hi = (e0[k] < e1[k] ? e1[k] : e0[k]) + s.size[0];
      }
      if (fabs(bb[k] - (lo - margin)) > 1e-12 || fabs(bb[3 + k] - (hi + margin)) > 1e-12) bad++;
    }
  }
  {
    diagc_shape p = shp(DIAGC_SHAPE_PLANE, 0, 0, 0);
    double X[12], bb[6];
    int ok;
    pose_id(X, 0, 0, 0.5);
    diagc_shape_aabb(&p, X, 0.1, bb);
    ok = bb[5] == 0.6 && bb[2] < -1e300 && bb[0] < -1e300 && bb[3] > 1e300;
    pose_aa(X, 1, 0, 0, PI, 0, 0, 0.5); /* upside down: inside is z > 0.5 */
    X[1] = X[2] = X[3] = X[5] = X[6] = X[7] = 0;
    diagc_shape_aabb(&p, X, 0.1, bb);
    ok = ok && bb[2] == 0.4 && bb[5] > 1e300;
    pose_aa(X, 1, 0, 0, 0.1, 0, 0, 0.5);
    diagc_shape_aabb(&p, X, 0.1, bb);
    ok = ok && bb[2] < -1e300 && bb[5] > 1e300;
    check(ok && bad == 0, "collide.aabb", "%d bad", bad);
  }
}

static void test_broadphase(void) {
  enum { NS = 40, NP = NS * (NS - 1) / 2 };
  static double aabb[NS * 6];
  static int pairs[2 * NP], out[NP], ref[NP], ws[DIAGC_BROADPHASE_WS(NS)], first[NP];
  diagc_shape s[NS];
  double X[NS][12];
  int scene, bad = 0, total = 0, hits = 0, det_bad = 0;
  for (scene = 0; scene < 60; scene++) {
    int ns = 2 + scene % (NS - 1), np = 0, i, j, k, n, nref = 0, step;
    for (i = 0; i < ns; i++) {
      random_shape(1 + (i + scene) % 3, &s[i]);
      if (i == 0 && scene % 2) s[i] = shp(DIAGC_SHAPE_PLANE, 0, 0, 0);
      pose_random(X[i], 1 + 0.1 * ns);
      if (s[i].type == DIAGC_SHAPE_PLANE) pose_id(X[i], 0, 0, -1);
    }
    for (i = 0; i < ns; i++)
      for (j = i + 1; j < ns; j++)
        if (urand() < 0.7) {
          /* either order within a pair */
          pairs[2 * np] = urand() < 0.5 ? i : j;
          pairs[2 * np + 1] = pairs[2 * np] == i ? j : i;
          np++;
        }
    for (k = 0; k < (int)(sizeof ws / sizeof ws[0]); k++) ws[k] = (int)(urand() * 1e6) - 500000;
    for (step = 0; step < 3; step++) {
      for (i = 0; i < ns; i++) {
        if (step > 0 && s[i].type != DIAGC_SHAPE_PLANE) X[i][9] += 0.05 * srand1(1);
        diagc_shape_aabb(&s[i], X[i], 0.01, aabb + 6 * i);
      }
      n = diagc_broadphase(ns, aabb, np, pairs, ws, out);
      nref = 0;
      for (k = 0; k < np; k++) {
        const double *u = aabb + 6 * pairs[2 * k], *v = aabb + 6 * pairs[2 * k + 1];
        int ov = 1, d;
        for (d = 0; d < 3; d++) ov &= u[d] <= v[3 + d] && v[d] <= u[3 + d];
        if (ov) ref[nref++] = k;
      }
      total++;
      hits += n;
      if (n != nref || memcmp(out, ref, sizeof(int) * (size_t)(n > 0 ? n : 0))) {
        if (bad++ < 3) printf("# broadphase scene %d step %d: n=%d ref=%d\n", scene, step, n, nref);
      }
      if (step == 0) memcpy(first, out, sizeof(int) * (size_t)n);
    }
    (void)first;
    if (!diagc_broadphase_check_pairs(ns, np, pairs)) det_bad++;
  }
  check(bad == 0 && hits > 100, "collide.broadphase_vs_all_pairs", "%d of %d differ, %d hits", bad,
        total, hits);
  {
    int p1[] = { 0, 1, 1, 2 }, p2[] = { 1, 2, 0, 1 }, p3[] = { 0, 0 }, p4[] = { 0, 5 };
    check(det_bad == 0 && diagc_broadphase_check_pairs(3, 2, p1) &&
              !diagc_broadphase_check_pairs(3, 2, p2) && !diagc_broadphase_check_pairs(3, 1, p3) &&
              !diagc_broadphase_check_pairs(3, 1, p4) &&
              diagc_broadphase(-1, aabb, 1, p1, ws, out) == -1 &&
              diagc_broadphase(3, NULL, 1, p1, ws, out) == -1 &&
              diagc_broadphase(0, aabb, 0, p1, ws, out) == 0,
          "collide.broadphase_arguments", "check_pairs");
  }
}

/* the same inputs twice: bit-identical outputs */
static unsigned long long run_hash(void) {
  unsigned long long h = 1469598103934665603ull;
  int ta, tb, it;
  rng_state = 12345;
  for (ta = 1; ta <= 4; ta++)
    for (tb = 1; tb <= 4; tb++)
      for (it = 0; it < 200; it++) {
        diagc_shape a, b;
        double Xa[12], Xb[12];
        diagc_contact c[8];
        int n, i;
        const unsigned char *bytes;
        random_shape(ta, &a);
        random_shape(tb, &b);
        pose_random(Xa, 0.6);
        pose_random(Xb, 0.6);
        n = collide(&a, Xa, &b, Xb, 0.05, c);
        for (i = 0; i < n; i++) {
          size_t k;
          bytes = (const unsigned char *)&c[i];
          for (k = 0; k < offsetof(diagc_contact, feature); k++) h = (h ^ bytes[k]) * 1099511628211ull;
          h = (h ^ (unsigned)c[i].feature) * 1099511628211ull;
        }
        h = (h ^ (unsigned)n) * 1099511628211ull;
      }
  return h;
}

static void test_determinism(void) {
  unsigned long long h1 = run_hash(), h2 = run_hash();
  check(h1 == h2, "collide.deterministic_bit_identical", "%llx vs %llx", h1, h2);
}

int main(void) {
  (void)sleep_us;
  test_sphere_plane();
  test_sphere_sphere();
  test_sphere_box();
  test_box_plane();
  test_box_box();
  test_stack_slots();
  test_capsules();
  test_misc();
  test_symmetry_and_motion();
  test_fuzz_sphere_box();
  test_fuzz_capsules();
  test_fuzz_box_box();
  test_fuzz_box_plane();
  test_degenerate();
  test_aabb();
  test_broadphase();
  test_determinism();
  return failures != 0;
}
