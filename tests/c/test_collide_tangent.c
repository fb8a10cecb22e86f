/* Tests of diagc_collide_tangent (diagc/world.h part 1b): the derivatives
 * of diagc_collide's contacts (point, normal, t1, t2, depth) with respect
 * to the twists of the two shapes.
 *
 * Expected values are central differences of diagc_collide (and
 * diagc_contact_frame) computed here, with a step (2e-5) different from the
 * implementation's, the pose moved by an explicit rotation matrix about
 * the shape's origin or a translation; contacts matched by feature id.
 * Also: the analytic pairs against the general path, the rigid-motion
 * identity, kinks (a corner at the margin, a clipped point on a side of
 * the reference face, a sphere at a region boundary, the frame's switch),
 * degenerate input, determinism and bad arguments. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diagc/world.h"

#include "check.h"

#define PI 3.14159265358979323846
#define BLOCK 156
#define H_TEST 2e-5
#define TOL 1e-7

/* ---------------------------------------------------------------------
 * helpers */

#include "pose_aa.h"

/* Rotation R2 R1 (R1 first). */
static void rot_then(const double *X1, double ax, double ay, double az, double th, double *Y) {
  double T[12], R[9];
  int i, j, k;
  pose_aa(T, ax, ay, az, th, 0, 0, 0);
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++) {
      double s = 0.0;
      for (k = 0; k < 3; k++) s += T[3 * i + k] * X1[3 * k + j];
      R[3 * i + j] = s;
    }
  memcpy(Y, R, sizeof R);
  for (i = 0; i < 3; i++) Y[9 + i] = X1[9 + i];
}

static diagc_shape shp(int type, double s0, double s1, double s2) {
  diagc_shape s;
  s.type = type;
  s.size[0] = s0;
  s.size[1] = s1;
  s.size[2] = s2;
  return s;
}

/* X moved along twist direction i (0..2 rotation about world axis i
 * through the origin, 3..5 translation) by h. */
static void moved(const double *X, int i, double h, double *Y) {
  if (i < 3) {
    rot_then(X, i == 0, i == 1, i == 2, h, Y);
  } else {
    memcpy(Y, X, 12 * sizeof(double));
    Y[9 + i - 3] += h;
  }
}

/* The 13 outputs of a contact: point, normal, t1, t2, depth. */
static void outputs(const diagc_contact *c, double *f) {
  int i;
  for (i = 0; i < 3; i++) {
    f[i] = c->point[i];
    f[3 + i] = c->normal[i];
  }
  diagc_contact_frame(c->normal, f + 6, f + 9);
  f[12] = c->depth;
}

static int find(const diagc_contact *c, int n, int feature, int occ) {
  int i;
  for (i = 0; i < n; i++)
    if (c[i].feature == feature && occ-- == 0) return i;
  return -1;
}

/* Central differences of contact k in column order (a's twist, b's). 0 if a
 * feature is missing on a side. */
static int fd_block_h(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                      const double *Xb, double margin, const diagc_contact *con, int k, double h,
                      double *D) {
  int col, r, j, occ = 0;
  for (j = 0; j < k; j++) occ += con[j].feature == con[k].feature;
  for (col = 0; col < 12; col++) {
    double Y[12], fp[13], fm[13];
    diagc_contact cp[DIAGC_COLLIDE_MAX], cm[DIAGC_COLLIDE_MAX];
    int side = col / 6, i = col % 6, np, nm, ip, im;
    moved(side ? Xb : Xa, i, h, Y);
    np = side ? diagc_collide(a, Xa, b, Y, margin, cp, DIAGC_COLLIDE_MAX)
              : diagc_collide(a, Y, b, Xb, margin, cp, DIAGC_COLLIDE_MAX);
    moved(side ? Xb : Xa, i, -h, Y);
    nm = side ? diagc_collide(a, Xa, b, Y, margin, cm, DIAGC_COLLIDE_MAX)
              : diagc_collide(a, Y, b, Xb, margin, cm, DIAGC_COLLIDE_MAX);
    ip = find(cp, np, con[k].feature, occ);
    im = find(cm, nm, con[k].feature, occ);
    if (ip < 0 || im < 0) return 0;
    outputs(&cp[ip], fp);
    outputs(&cm[im], fm);
    for (r = 0; r < 13; r++) D[r * 12 + col] = (fp[r] - fm[r]) / (2.0 * h);
  }
  return 1;
}

static int fd_block(const diagc_shape *a, const double *Xa, const diagc_shape *b, const double *Xb,
                    double margin, const diagc_contact *con, int k, double *D) {
  return fd_block_h(a, Xa, b, Xb, margin, con, k, H_TEST, D);
}

/* max |A - B| / max(1, max |B|) over a block; *where gets the entry. */
static double block_err(const double *A, const double *B, int *where) {
  double e = 0.0, s = 1.0;
  int i;
  for (i = 0; i < BLOCK; i++) s = fabs(B[i]) > s ? fabs(B[i]) : s;
  *where = 0;
  for (i = 0; i < BLOCK; i++)
    if (fabs(A[i] - B[i]) / s > e) {
      e = fabs(A[i] - B[i]) / s;
      *where = i;
    }
  return e;
}

static int all_finite(const double *D, int n) {
  int i;
  for (i = 0; i < n; i++)
    if (!isfinite(D[i])) return 0;
  return 1;
}

static void cross3(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* The rigid-motion identity for block D of contact c: both shapes moved by
 * one world motion (omega, v0 = the velocity of the world origin) move the
 * point at omega x point + v0, turn the normal at omega x n and keep the
 * depth.  Returns the largest violation over a few motions. */
static double rigid_err(const double *Xa, const double *Xb, const diagc_contact *c,
                        const double *D) {
  static const double motions[3][6] = {
    { 0.3, -0.7, 0.2, 0.5, 0.1, -0.4 },
    { 1.0, 0.0, 0.0, 0.0, 0.0, 0.0 },
    { -0.2, 0.4, 0.9, 0.0, -1.0, 0.3 },
  };
  double worst = 0.0;
  int m, r, j;
  for (m = 0; m < 3; m++) {
    const double *w = motions[m], *v0 = motions[m] + 3;
    double tw[12], y[13], wp[3], wn[3];
    cross3(w, Xa + 9, wp);
    for (j = 0; j < 3; j++) {
      tw[j] = w[j];
      tw[3 + j] = v0[j] + wp[j];
    }
    cross3(w, Xb + 9, wp);
    for (j = 0; j < 3; j++) {
      tw[6 + j] = w[j];
      tw[9 + j] = v0[j] + wp[j];
    }
    for (r = 0; r < 13; r++) {
      y[r] = 0.0;
      for (j = 0; j < 12; j++) y[r] += D[12 * r + j] * tw[j];
    }
    cross3(w, c->point, wp);
    cross3(w, c->normal, wn);
    for (j = 0; j < 3; j++) {
      double e1 = fabs(y[j] - wp[j] - v0[j]), e2 = fabs(y[3 + j] - wn[j]);
      worst = e1 > worst ? e1 : worst;
      worst = e2 > worst ? e2 : worst;
    }
    worst = fabs(y[12]) > worst ? fabs(y[12]) : worst;
  }
  return worst;
}

/* One pose of a pair: the contacts, the blocks against this file's central
 * differences, against the general path, the rigid identity, determinism.
 * want_n: the expected contact count (-1: any >= 1). */
static void pose_case(const char *name, const diagc_shape *a, const double *Xa,
                      const diagc_shape *b, const double *Xb, double margin, int want_n) {
  diagc_contact con[DIAGC_COLLIDE_MAX];
  double D[DIAGC_COLLIDE_MAX * BLOCK], G[DIAGC_COLLIDE_MAX * BLOCK], E[BLOCK],
      D2[DIAGC_COLLIDE_MAX * BLOCK];
  char label[160];
  int n = diagc_collide(a, Xa, b, Xb, margin, con, DIAGC_COLLIDE_MAX), rc, rg, k, where = 0;
  double worst = 0.0, worst_g = 0.0, worst_r = 0.0;
  int fd_ok = 1;
  snprintf(label, sizeof label, "tangent.%s.contacts", name);
  check(want_n < 0 ? n >= 1 : n == want_n, label, "%d contacts (want %d)", n, want_n);
  if (n < 1) return;
  rc = diagc_collide_tangent(a, Xa, b, Xb, margin, con, n, D);
  rg = diagc_collide_tangent_general(a, Xa, b, Xb, margin, con, n, G);
  snprintf(label, sizeof label, "tangent.%s.smooth", name);
  check(rc == 0 && rg == 0, label, "returned %d, general %d (features %d..%d)", rc, rg,
        con[0].feature, con[n - 1].feature);
  for (k = 0; k < n; k++) {
    int w;
    double e;
    if (!fd_block(a, Xa, b, Xb, margin, con, k, E)) {
      fd_ok = 0;
      continue;
    }
    e = block_err(D + BLOCK * k, E, &w);
    if (e > worst) {
      worst = e;
      where = k * 1000 + w;
    }
    e = block_err(G + BLOCK * k, E, &w);
    worst_g = e > worst_g ? e : worst_g;
    e = rigid_err(Xa, Xb, &con[k], D + BLOCK * k);
    worst_r = e > worst_r ? e : worst_r;
  }
  snprintf(label, sizeof label, "tangent.%s.vs_fd", name);
  check(fd_ok && worst <= TOL, label,
        "features present %d, max rel error %.3g at contact %d row %d col %d (got %.12g, fd)",
        fd_ok, worst, where / 1000, (where % 1000) / 12, where % 12, D[BLOCK * (where / 1000) + where % 1000]);
  snprintf(label, sizeof label, "tangent.%s.general_vs_fd", name);
  check(fd_ok && worst_g <= TOL, label, "max rel error %.3g", worst_g);
  snprintf(label, sizeof label, "tangent.%s.rigid_identity", name);
  check(worst_r <= 1e-9, label, "violation %.3g", worst_r);
  rc = diagc_collide_tangent(a, Xa, b, Xb, margin, con, n, D2);
  snprintf(label, sizeof label, "tangent.%s.deterministic_finite", name);
  check(rc == 0 && memcmp(D, D2, sizeof(double) * BLOCK * (size_t)n) == 0 &&
            all_finite(D, BLOCK * n) && all_finite(G, BLOCK * n),
        label, "differs or not finite");
}

/* Both argument orders of a pair. */
static void both_orders(const char *name, const diagc_shape *a, const double *Xa,
                        const diagc_shape *b, const double *Xb, double margin, int want_n) {
  char label[120];
  pose_case(name, a, Xa, b, Xb, margin, want_n);
  snprintf(label, sizeof label, "%s.swapped", name);
  pose_case(label, b, Xb, a, Xa, margin, want_n);
}

/* ---------------------------------------------------------------------
 * pairs */

static void test_spheres(void) {
  diagc_shape s1 = shp(DIAGC_SHAPE_SPHERE, 0.3, 0, 0), s2 = shp(DIAGC_SHAPE_SPHERE, 0.5, 0, 0);
  diagc_shape pl = shp(DIAGC_SHAPE_PLANE, 0, 0, 0);
  double Xa[12], Xb[12];
  pose_aa(Xa, 1, 2, 3, 0.7, 0.1, 0.2, 0.3);
  pose_aa(Xb, -1, 0, 1, 1.2, 0.5, 0.6, -0.2);
  pose_case("sphere_sphere.overlap", &s1, Xa, &s2, Xb, 0.01, 1);
  pose_aa(Xb, -1, 0, 1, 1.2, 0.1, 0.3, 0.3 + 0.79);
  pose_case("sphere_sphere.gap", &s1, Xa, &s2, Xb, 0.05, 1);
  /* normal mostly along x: the contact frame's other branch (t1 from y) */
  pose_aa(Xb, -1, 0, 1, 1.2, 0.1 - 0.7, 0.2 + 0.1, 0.3 - 0.15);
  {
    diagc_contact c[1];
    check(diagc_collide(&s1, Xa, &s2, Xb, 0.01, c, 1) == 1 && fabs(c[0].normal[0]) > 0.95,
          "tangent.sphere_sphere.frame_y_branch.normal", "n.x %g", c[0].normal[0]);
  }
  pose_case("sphere_sphere.frame_y_branch", &s1, Xa, &s2, Xb, 0.01, 1);
  /* a tilted plane away from the world origin */
  pose_aa(Xb, 1, -1, 0, 0.4, 0.3, -0.2, 0.1);
  {
    double n[3] = { Xb[2], Xb[5], Xb[8] };
    pose_aa(Xa, 0, 1, 0, 0.3, 0.3 + 0.2 * n[0], -0.2 + 0.2 * n[1] + 0.1, 0.1 + 0.2 * n[2]);
  }
  both_orders("sphere_plane.tilted", &s1, Xa, &pl, Xb, 0.01, 1);
}

static void test_box_plane(void) {
  diagc_shape box = shp(DIAGC_SHAPE_BOX, 0.3, 0.2, 0.1), pl = shp(DIAGC_SHAPE_PLANE, 0, 0, 0);
  double Xa[12], Xb[12], Xt[12];
  /* resting on a face, turned about z: 4 corners */
  pose_aa(Xb, 0, 0, 1, 0, 0, 0, 0);
  pose_aa(Xa, 0, 0, 1, 0.6, 0.4, -0.3, 0.1 - 0.002);
  both_orders("box_plane.resting", &box, Xa, &pl, Xb, 0.01, 4);
  /* corner down on a tilted plane */
  pose_aa(Xb, 1, 2, 0, 0.3, 0.2, 0.1, -0.1);
  pose_aa(Xt, 1, 1, 1, 0.9, 0, 0, 0);
  rot_then(Xt, 0, 1, 1, 0.4, Xa);
  {
    /* put the lowest corner 0.01 into the plane */
    double n[3] = { Xb[2], Xb[5], Xb[8] }, low = 1e9;
    int k, i;
    for (k = 0; k < 8; k++) {
      double r[3] = { (k & 1) ? 0.3 : -0.3, (k & 2) ? 0.2 : -0.2, (k & 4) ? 0.1 : -0.1 }, h = 0;
      for (i = 0; i < 3; i++) h += n[i] * (Xa[3 * i] * r[0] + Xa[3 * i + 1] * r[1] + Xa[3 * i + 2] * r[2]);
      low = h < low ? h : low;
    }
    /* 0.7 along the plane's own x axis, then the depth along n */
    for (i = 0; i < 3; i++) Xa[9 + i] = Xb[9 + i] + 0.7 * Xb[3 * i] + (-low - 0.01) * n[i];
  }
  both_orders("box_plane.corner", &box, Xa, &pl, Xb, 0.005, 1);
}

static void test_capsule_plane(void) {
  diagc_shape cap = shp(DIAGC_SHAPE_CAPSULE, 0.1, 0.3, 0), pl = shp(DIAGC_SHAPE_PLANE, 0, 0, 0);
  double Xa[12], Xb[12];
  pose_aa(Xb, 0, 1, 0, 0.2, 0, 0, 0);
  {
    /* tilted: the lower end 0.01 into the plane */
    double n[3] = { Xb[2], Xb[5], Xb[8] }, z[3], lo;
    int i;
    pose_aa(Xa, 1, 0.3, 0, 0.5, 0, 0, 0);
    for (i = 0; i < 3; i++) z[i] = Xa[3 * i + 2];
    lo = -0.3 * fabs(n[0] * z[0] + n[1] * z[1] + n[2] * z[2]);
    for (i = 0; i < 3; i++) Xa[9 + i] = 0.2 * Xb[3 * i] + (0.1 - 0.01 - lo) * n[i];
    both_orders("capsule_plane.tilted", &cap, Xa, &pl, Xb, 0.0, 1);
  }
  {
    /* lying across the tilted plane: both ends within the margin */
    double n[3] = { Xb[2], Xb[5], Xb[8] };
    pose_aa(Xa, 0, 1, 0, 0.2 + PI / 2 + 0.05, 0.1 + 0.09 * n[0], 0.09 * n[1], 0.09 * n[2]);
    both_orders("capsule_plane.lying", &cap, Xa, &pl, Xb, 0.05, 2);
  }
}

static void test_sphere_box(void) {
  diagc_shape s = shp(DIAGC_SHAPE_SPHERE, 0.2, 0, 0), box = shp(DIAGC_SHAPE_BOX, 0.4, 0.3, 0.25);
  double Xb[12], Xa[12], r[3], w[3];
  /* local positions of the sphere's centre: faces (outside, inside), edge,
     corner */
  static const double cl[6][3] = {
    { 0.1, -0.05, 0.25 + 0.15 },  /* +z face, outside */
    { 0.05, 0.1, 0.25 - 0.05 },   /* +z face, centre inside */
    { -0.4 - 0.1, 0.1, -0.05 },   /* -x face */
    { 0.4 + 0.1, 0.1, 0.25 + 0.1 }, /* edge (+x, +z) */
    { -0.4 - 0.08, 0.3 + 0.1, -0.25 - 0.07 }, /* corner */
    { 0.1, -0.3 - 0.12, 0.1 },    /* -y face */
  };
  static const char *names[6] = { "face_out", "face_in", "face_x", "edge", "corner", "face_y" };
  static const int feats[6] = { 22, 22, 12, 23, 6, 10 };
  int i, j;
  pose_aa(Xb, 1, -2, 0.5, 0.8, 0.3, -0.1, 0.2);
  for (i = 0; i < 6; i++) {
    char label[80];
    diagc_contact c[1];
    for (j = 0; j < 3; j++) r[j] = cl[i][j];
    for (j = 0; j < 3; j++) w[j] = Xb[3 * j] * r[0] + Xb[3 * j + 1] * r[1] + Xb[3 * j + 2] * r[2] + Xb[9 + j];
    pose_aa(Xa, 0.3, 1, -1, 0.3 * i, w[0], w[1], w[2]);
    snprintf(label, sizeof label, "tangent.sphere_box.%s.feature", names[i]);
    check(diagc_collide(&s, Xa, &box, Xb, 0.05, c, 1) == 1 && c[0].feature == feats[i], label,
          "feature %d, want %d", c[0].feature, feats[i]);
    snprintf(label, sizeof label, "sphere_box.%s", names[i]);
    both_orders(label, &s, Xa, &box, Xb, 0.05, 1);
  }
}

static void test_sphere_capsule(void) {
  diagc_shape s = shp(DIAGC_SHAPE_SPHERE, 0.2, 0, 0), cap = shp(DIAGC_SHAPE_CAPSULE, 0.1, 0.4, 0);
  double Xb[12], Xa[12];
  pose_aa(Xb, 1, 1, 0, 0.7, 0.1, 0.2, 0.3);
  {
    /* beside the middle of the segment */
    double z[3] = { Xb[2], Xb[5], Xb[8] }, x[3] = { Xb[0], Xb[3], Xb[6] };
    pose_aa(Xa, 0, 0, 1, 0.4, 0.1 + 0.15 * z[0] + 0.28 * x[0], 0.2 + 0.15 * z[1] + 0.28 * x[1],
            0.3 + 0.15 * z[2] + 0.28 * x[2]);
    both_orders("sphere_capsule.side", &s, Xa, &cap, Xb, 0.01, 1);
    /* beyond end 1 */
    pose_aa(Xa, 0, 0, 1, 0.4, 0.1 + 0.6 * z[0] + 0.1 * x[0], 0.2 + 0.6 * z[1] + 0.1 * x[1],
            0.3 + 0.6 * z[2] + 0.1 * x[2]);
    both_orders("sphere_capsule.end", &s, Xa, &cap, Xb, 0.01, 1);
  }
}

static void test_box_box(void) {
  diagc_shape big = shp(DIAGC_SHAPE_BOX, 0.5, 0.4, 0.1), small = shp(DIAGC_SHAPE_BOX, 0.2, 0.15, 0.1);
  diagc_shape cube = shp(DIAGC_SHAPE_BOX, 0.2, 0.2, 0.2);
  double Xa[12], Xb[12], Xt[12];
  /* rotated boxes resting face to face: the small one turned on the big */
  pose_aa(Xb, 0, 0, 1, 0.2, 0.1, 0.0, 0.0);
  pose_aa(Xa, 0, 0, 1, 0.9, 0.05, 0.1, 0.2 - 0.004);
  both_orders("box_box.resting_turned", &small, Xa, &big, Xb, 0.01, 4);
  /* both tilted the same way, a little penetrating, slightly rocked */
  pose_aa(Xt, 1, 0.5, 0, 0.3, 0.0, 0.0, 0.0);
  rot_then(Xt, 0, 0, 1, 0.0, Xb);
  rot_then(Xt, 0.2, 1, 0, 0.02, Xa);
  {
    double n[3] = { Xb[2], Xb[5], Xb[8] };
    int i;
    for (i = 0; i < 3; i++) Xa[9 + i] = 0.05 * (i == 0) + (0.2 - 0.006) * n[i];
  }
  pose_case("box_box.tilted_rocked", &small, Xa, &big, Xb, 0.02, -1);
  /* equal cubes, the top turned 45 degrees: 8 points */
  pose_aa(Xb, 0, 0, 1, 0, 0, 0, 0);
  pose_aa(Xa, 0, 0, 1, PI / 4, 0.01, -0.02, 0.4 - 0.003);
  pose_case("box_box.turned_45", &cube, Xa, &cube, Xb, 0.01, 8);
  /* edge on edge: crossed edges */
  pose_aa(Xa, 1, 0, 0, PI / 4 + 0.1, 0, 0, 0);
  pose_aa(Xt, 0, 1, 0, PI / 4 - 0.15, 0, 0, 0);
  memcpy(Xb, Xt, sizeof Xt);
  Xb[9] = 0.03;
  Xb[10] = 0.02;
  Xb[11] = 0.2 * sqrt(2.0) * 2 - 0.01;
  pose_case("box_box.edge_edge", &cube, Xa, &cube, Xb, 0.01, 1);
}

static void test_capsule_pairs(void) {
  diagc_shape c1 = shp(DIAGC_SHAPE_CAPSULE, 0.1, 0.4, 0), c2 = shp(DIAGC_SHAPE_CAPSULE, 0.15, 0.3, 0);
  diagc_shape box = shp(DIAGC_SHAPE_BOX, 0.5, 0.4, 0.2);
  double Xa[12], Xb[12];
  /* crossing */
  pose_aa(Xa, 0, 1, 0.2, PI / 2, 0.02, 0.01, 0.24);
  pose_aa(Xb, 1, 0, 0.3, PI / 2 + 0.2, 0, 0, 0);
  pose_case("capsule_capsule.crossing", &c1, Xa, &c2, Xb, 0.01, 1);
  /* parallel, overlapping: the two ends of the overlap (a's ends, over
     the middle of b's segment) */
  pose_aa(Xa, 0, 1, 0.1, PI / 2, -0.02, 0.0, 0.24);
  pose_aa(Xb, 0, 1, 0.1, PI / 2, -0.05, 0.0, 0.0);
  pose_case("capsule_capsule.parallel", &c2, Xa, &c1, Xb, 0.01, 2);
  {
    /* an end of the overlap at an end of b: b's closest point is clamped
       there, so tilting a either way is a different piece (a kink) */
    diagc_contact c[2];
    double D[2 * BLOCK];
    int n = diagc_collide(&c1, Xa, &c2, Xb, 0.01, c, 2), rc;
    rc = diagc_collide_tangent(&c1, Xa, &c2, Xb, 0.01, c, n, D);
    check(n == 2 && rc == DIAGC_COLLIDE_KINK && all_finite(D, 2 * BLOCK),
          "tangent.kink.capsule_capsule_parallel_end", "n %d, rc %d", n, rc);
  }
  /* capsule lying on a box's top face (rotated box) */
  pose_aa(Xb, 0, 0, 1, 0.3, 0, 0, 0);
  pose_aa(Xa, 0.1, 1, 0, PI / 2, 0.1, 0.05, 0.2 + 0.1 - 0.004);
  both_orders("capsule_box.lying", &c1, Xa, &box, Xb, 0.01, 2);
  /* tilted capsule, one end on the face */
  pose_aa(Xa, 1, 0.4, 0, 0.7, 0.1, 0.05, 0.2 + 0.1 + 0.4 * cos(0.7) - 0.01);
  both_orders("capsule_box.tilted", &c1, Xa, &box, Xb, 0.005, 1);
  /* skew across an edge of the box (along y at x = 0.5, z = 0.2): the
     segment runs along (1, 0.3, -1) through a point 0.08 off the edge */
  pose_aa(Xb, 0, 0, 1, 0, 0, 0, 0);
  pose_aa(Xa, -0.3, 1, 0, acos(-1.0 / sqrt(2.09)), 0.5 + 0.08 / sqrt(2.0), 0.05,
          0.2 + 0.08 / sqrt(2.0));
  pose_case("capsule_box.edge", &box, Xb, &c1, Xa, 0.01, 1);
}

/* ---------------------------------------------------------------------
 * random poses of every pair type */

static unsigned long long rng = 88172645463325252ull;
static double urand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}
static double srand1(double a) { return a * (2.0 * urand() - 1.0); }

static double size_of(const diagc_shape *s) {
  switch (s->type) {
  case DIAGC_SHAPE_SPHERE: return s->size[0];
  case DIAGC_SHAPE_BOX: return sqrt(s->size[0] * s->size[0] + s->size[1] * s->size[1] + s->size[2] * s->size[2]);
  case DIAGC_SHAPE_CAPSULE: return s->size[0] + s->size[1];
  default: return 0.0;
  }
}

static void random_shape(int type, diagc_shape *s) {
  *s = shp(type, 0.1 + 0.4 * urand(), 0.1 + 0.4 * urand(), 0.1 + 0.4 * urand());
}

/* a near b: a's origin within reach of b's (or of the plane's surface). */
static void random_pair(const diagc_shape *a, double *Xa, const diagc_shape *b, double *Xb) {
  double reach = size_of(a) + size_of(b), d[3], len;
  int i;
  pose_aa(Xb, srand1(1), srand1(1), srand1(1) + 1e-3, srand1(PI), srand1(1), srand1(1), srand1(1));
  pose_aa(Xa, srand1(1), srand1(1), srand1(1) + 1e-3, srand1(PI), 0, 0, 0);
  if (b->type == DIAGC_SHAPE_PLANE) {
    double n[3] = { Xb[2], Xb[5], Xb[8] }, t = srand1(size_of(a));
    for (i = 0; i < 3; i++) Xa[9 + i] = Xb[9 + i] + srand1(1) * Xb[3 * i] + srand1(1) * Xb[3 * i + 1] + t * n[i];
    return;
  }
  if (a->type == DIAGC_SHAPE_PLANE) {
    random_pair(b, Xb, a, Xa);
    return;
  }
  for (i = 0; i < 3; i++) d[i] = srand1(1);
  len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + 1e-12;
  for (i = 0; i < 3; i++) Xa[9 + i] = Xb[9 + i] + d[i] / len * reach * urand();
}

/* Per pair type and order: random poses with contacts; each smooth
 * contact (return 0, and this file's differences at two steps agreeing:
 * no kink within the test's step, curvature small enough for the step) against the differences, and the
 * analytic blocks against the general path. */
static void test_random(void) {
  static const int types[9][2] = {
    { 1, 1 }, { 1, 2 }, { 1, 3 }, { 1, 4 }, { 2, 2 }, { 2, 3 }, { 2, 4 }, { 3, 3 }, { 3, 4 },
  };
  int t, order;
  for (t = 0; t < 9; t++)
    for (order = 0; order < 2; order++) {
      int trial, posed = 0, compared = 0, near = 0, kinks = 0, bad = 0, nan = 0;
      double worst = 0.0, worst_g = 0.0;
      char label[96];
      for (trial = 0; trial < 60; trial++) {
        diagc_shape sa, sb;
        diagc_contact con[DIAGC_COLLIDE_MAX];
        double Xa[12], Xb[12], D[DIAGC_COLLIDE_MAX * BLOCK], G[DIAGC_COLLIDE_MAX * BLOCK];
        double E[BLOCK], E2[BLOCK], margin = 0.02;
        int n, rc, rg, k, w;
        random_shape(types[t][order], &sa);
        random_shape(types[t][1 - order], &sb);
        random_pair(&sa, Xa, &sb, Xb);
        n = diagc_collide(&sa, Xa, &sb, Xb, margin, con, DIAGC_COLLIDE_MAX);
        if (n == 0) continue;
        posed++;
        rc = diagc_collide_tangent(&sa, Xa, &sb, Xb, margin, con, n, D);
        rg = diagc_collide_tangent_general(&sa, Xa, &sb, Xb, margin, con, n, G);
        nan += !all_finite(D, n * BLOCK) || !all_finite(G, n * BLOCK) || rc < 0 || rg < 0;
        if (rc != 0) {
          kinks++;
          continue;
        }
        for (k = 0; k < n; k++) {
          double e, e2;
          if (!fd_block_h(&sa, Xa, &sb, Xb, margin, con, k, H_TEST, E) ||
              !fd_block_h(&sa, Xa, &sb, Xb, margin, con, k, 0.5 * H_TEST, E2) ||
              block_err(E, E2, &w) > 1e-8) {
            near++;
            continue;
          }
          compared++;
          e = block_err(D + BLOCK * k, E2, &w);
          worst = e > worst ? e : worst;
          bad += e > TOL;
          if (rg == 0) {
            e2 = block_err(G + BLOCK * k, E2, &w);
            worst_g = e2 > worst_g ? e2 : worst_g;
            bad += e2 > TOL;
          }
        }
      }
      snprintf(label, sizeof label, "tangent.random.%d_%d%s", types[t][order], types[t][1 - order],
               types[t][0] == types[t][1] && order ? ".again" : "");
      printf("# %s: %d poses with contacts, %d contacts compared, %d with unsettled differences, %d kinks, "
             "worst %.3g, general %.3g\n",
             label, posed, compared, near, kinks, worst, worst_g);
      check(bad == 0 && nan == 0 && compared >= posed / 2 && posed >= 20, label,
            "%d poses with contacts, %d contacts compared, %d with unsettled differences, %d kinks, %d bad "
            "(worst %.3g, general %.3g), %d non-finite",
            posed, compared, near, kinks, bad, worst, worst_g, nan);
    }
}

/* ---------------------------------------------------------------------
 * kinks, degenerate input, bad arguments */

static void test_kinks(void) {
  diagc_shape box = shp(DIAGC_SHAPE_BOX, 0.3, 0.2, 0.1), pl = shp(DIAGC_SHAPE_PLANE, 0, 0, 0);
  diagc_shape big = shp(DIAGC_SHAPE_BOX, 0.5, 0.5, 0.1), small = shp(DIAGC_SHAPE_BOX, 0.1, 0.1, 0.1);
  diagc_shape s = shp(DIAGC_SHAPE_SPHERE, 0.2, 0, 0), s2 = shp(DIAGC_SHAPE_SPHERE, 0.3, 0, 0);
  diagc_contact c[DIAGC_COLLIDE_MAX];
  double Xa[12], Xb[12], D[DIAGC_COLLIDE_MAX * BLOCK], margin = 0.01;
  int n, rc, rg;
  /* box corners exactly 1e-9 inside the margin: a kink */
  pose_aa(Xb, 0, 0, 1, 0, 0, 0, 0);
  pose_aa(Xa, 0, 0, 1, 0.3, 0, 0, 0.1 + margin - 1e-9);
  n = diagc_collide(&box, Xa, &pl, Xb, margin, c, DIAGC_COLLIDE_MAX);
  rc = diagc_collide_tangent(&box, Xa, &pl, Xb, margin, c, n, D);
  rg = diagc_collide_tangent_general(&box, Xa, &pl, Xb, margin, c, n, D);
  check(n == 4 && rc == DIAGC_COLLIDE_KINK && rg == DIAGC_COLLIDE_KINK && all_finite(D, n * BLOCK),
        "tangent.kink.box_corner_at_margin", "n %d, rc %d, general %d", n, rc, rg);
  {
    /* there the general path's block is the one-sided difference from
       the side where the corners exist: the analytic derivative to O(h) */
    double A[DIAGC_COLLIDE_MAX * BLOCK];
    int w;
    rc = diagc_collide_tangent(&box, Xa, &pl, Xb, margin, c, n, A);
    check(n == 4 && block_err(D, A, &w) < 1e-5 && block_err(D + 3 * BLOCK, A + 3 * BLOCK, &w) < 1e-5,
          "tangent.kink.box_corner_one_sided", "general vs analytic %.3g", block_err(D, A, &w));
  }
  Xa[11] = 0.1 + margin - 1e-3;
  n = diagc_collide(&box, Xa, &pl, Xb, margin, c, DIAGC_COLLIDE_MAX);
  rc = diagc_collide_tangent(&box, Xa, &pl, Xb, margin, c, n, D);
  check(n == 4 && rc == 0, "tangent.kink.box_corner_inside_margin", "n %d, rc %d", n, rc);
  /* a small box on a big one with its corners on the big face's side
     plane x = 0.5 (grown by 1e-6 of the face's size): the clipped corner
     leaves the face on one side of the difference */
  pose_aa(Xa, 0, 0, 1, 0, 0.4 + 0.5e-6, 0.0, 0.2 - 0.002);
  n = diagc_collide(&small, Xa, &big, Xb, margin, c, DIAGC_COLLIDE_MAX);
  rc = diagc_collide_tangent(&small, Xa, &big, Xb, margin, c, n, D);
  check(n == 4 && rc == DIAGC_COLLIDE_KINK && all_finite(D, n * BLOCK),
        "tangent.kink.clipped_point_leaves_face", "n %d, rc %d", n, rc);
  Xa[9] = 0.3;
  n = diagc_collide(&small, Xa, &big, Xb, margin, c, DIAGC_COLLIDE_MAX);
  rc = diagc_collide_tangent(&small, Xa, &big, Xb, margin, c, n, D);
  check(n == 4 && rc == 0, "tangent.kink.clipped_point_inside_face", "n %d, rc %d", n, rc);
  /* a sphere above the +z face with its centre on the x = h_x slab plane */
  pose_aa(Xa, 0, 0, 1, 0, 0.3, 0.05, 0.1 + 0.15);
  n = diagc_collide(&s, Xa, &box, Xb, margin, c, 1);
  rc = diagc_collide_tangent(&s, Xa, &box, Xb, margin, c, n, D);
  rg = diagc_collide_tangent_general(&s, Xa, &box, Xb, margin, c, n, D);
  check(n == 1 && rc == DIAGC_COLLIDE_KINK && rg == DIAGC_COLLIDE_KINK,
        "tangent.kink.sphere_box_region_boundary", "n %d, rc %d, general %d", n, rc, rg);
  /* the contact frame's switch: |n.x| = 0.9 */
  pose_aa(Xb, 0, 0, 1, 0, 0, 0, 0);
  pose_aa(Xa, 0, 0, 1, 0, 0.45 * 0.9, 0.45 * sqrt(0.19), 0);
  n = diagc_collide(&s, Xa, &s2, Xb, margin, c, 1);
  rc = diagc_collide_tangent(&s, Xa, &s2, Xb, margin, c, n, D);
  check(n == 1 && fabs(fabs(c[0].normal[0]) - 0.9) < 1e-12 && rc == DIAGC_COLLIDE_KINK,
        "tangent.kink.frame_switch", "n %d, n.x %.17g, rc %d", n, c[0].normal[0], rc);
  /* coincident sphere centres: fallback normal, finite, a kink */
  n = diagc_collide(&s, Xb, &s2, Xb, margin, c, 1);
  rc = diagc_collide_tangent(&s, Xb, &s2, Xb, margin, c, n, D);
  check(n == 1 && rc == DIAGC_COLLIDE_KINK && all_finite(D, BLOCK), "tangent.degenerate.coincident",
        "n %d, rc %d", n, rc);
}

static void test_bad_args(void) {
  diagc_shape box = shp(DIAGC_SHAPE_BOX, 0.3, 0.2, 0.1), pl = shp(DIAGC_SHAPE_PLANE, 0, 0, 0);
  diagc_shape bad = shp(7, 1, 1, 1);
  diagc_contact c[DIAGC_COLLIDE_MAX], cb[DIAGC_COLLIDE_MAX];
  double Xa[12], Xb[12], Xn[12], D[DIAGC_COLLIDE_MAX * BLOCK];
  int n, ok = 1, i;
  pose_aa(Xb, 0, 0, 1, 0, 0, 0, 0);
  pose_aa(Xa, 0, 0, 1, 0.3, 0, 0, 0.095);
  n = diagc_collide(&box, Xa, &pl, Xb, 0.01, c, DIAGC_COLLIDE_MAX);
  memcpy(Xn, Xa, sizeof Xa);
  Xn[4] = NAN;
  for (i = 0; i < DIAGC_COLLIDE_MAX * BLOCK; i++) D[i] = 42.0;
  ok &= diagc_collide_tangent(NULL, Xa, &pl, Xb, 0.01, c, n, D) == DIAGC_CONTACT_E_ARG;
  ok &= diagc_collide_tangent(&box, NULL, &pl, Xb, 0.01, c, n, D) == DIAGC_CONTACT_E_ARG;
  ok &= diagc_collide_tangent(&box, Xa, &pl, Xb, 0.01, NULL, n, D) == DIAGC_CONTACT_E_ARG;
  ok &= diagc_collide_tangent(&box, Xa, &pl, Xb, 0.01, c, n, NULL) == DIAGC_CONTACT_E_ARG;
  ok &= diagc_collide_tangent(&box, Xa, &pl, Xb, 0.01, c, -1, D) == DIAGC_CONTACT_E_ARG;
  ok &= diagc_collide_tangent(&box, Xa, &pl, Xb, 0.01, c, 9, D) == DIAGC_CONTACT_E_ARG;
  ok &= diagc_collide_tangent(&box, Xn, &pl, Xb, 0.01, c, n, D) == DIAGC_CONTACT_E_ARG;
  ok &= diagc_collide_tangent(&box, Xa, &pl, Xb, NAN, c, n, D) == DIAGC_CONTACT_E_ARG;
  ok &= diagc_collide_tangent(&bad, Xa, &pl, Xb, 0.01, c, n, D) == DIAGC_CONTACT_E_ARG;
  ok &= diagc_collide_tangent(&pl, Xa, &pl, Xb, 0.01, c, 1, D) == DIAGC_CONTACT_E_ARG;
  memcpy(cb, c, sizeof c);
  cb[0].normal[0] = cb[0].normal[1] = cb[0].normal[2] = 0.0;
  ok &= diagc_collide_tangent(&box, Xa, &pl, Xb, 0.01, cb, n, D) == DIAGC_CONTACT_E_ARG;
  memcpy(cb, c, sizeof c);
  cb[0].depth = INFINITY;
  ok &= diagc_collide_tangent(&box, Xa, &pl, Xb, 0.01, cb, n, D) == DIAGC_CONTACT_E_ARG;
  memcpy(cb, c, sizeof c);
  cb[0].feature = 8; /* box-plane has corners 0..7 */
  ok &= diagc_collide_tangent(&box, Xa, &pl, Xb, 0.01, cb, n, D) == DIAGC_CONTACT_E_ARG;
  for (i = 0; i < DIAGC_COLLIDE_MAX * BLOCK; i++) ok &= D[i] == 42.0;
  ok &= diagc_collide_tangent(&box, Xa, &pl, Xb, 0.01, NULL, 0, NULL) == 0;
  check(n == 4 && ok, "tangent.bad_arguments", "a bad argument was accepted or D written");
}

int main(void) {
  (void)sleep_us;
  test_spheres();
  test_box_plane();
  test_capsule_plane();
  test_sphere_box();
  test_sphere_capsule();
  test_box_box();
  test_capsule_pairs();
  test_random();
  test_kinks();
  test_bad_args();
  return failures != 0;
}
