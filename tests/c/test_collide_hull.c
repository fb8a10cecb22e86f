/* Tests of the convex-hull pairs of diagc_collide and
 * diagc_collide_tangent (runtime/src/collide_hull.c).
 *
 * Expected values: hand-computed distances and depths of polytopes of
 * known shape (cubes, an octahedron, a tetrahedron, a prism), and the
 * independent primitive routines of the same geometry (a hull built from
 * a box's corners against collide_box_plane, collide_sphere_box and
 * collide_box_box).  Also: swapped arguments, determinism, finite output
 * and bounded counts for random poses, a 4-point patch for a box-shaped
 * hull on a hull, a spread 8-point patch for a 32-vertex prism, bad hulls,
 * and the hull-plane derivative against the general path. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "diagc/world.h"

#include "check.h"

#define PI 3.14159265358979323846

#include "pose_aa.h"

static uint64_t rng_state = 2463534242ull;
static double urand(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}
static double srand1(double a) { return a * (2.0 * urand() - 1.0); }

static double dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* ---------------------------------------------------------------------
 * polytopes built here: vertices and faces by hand, planes computed */

typedef struct {
  double v[64][3];
  double p[128][4];
  int f[129];
  int fv[512];
  diagc_hull h;
} poly;

/* faces: lists of vertex indices, counter-clockwise from outside, each
 * ended by -1 */
static void poly_make(poly *P, int nv, const double *verts, int nf, const int *faces) {
  int k, i = 0, m = 0;
  memcpy(P->v, verts, sizeof(double) * 3 * (size_t)nv);
  P->f[0] = 0;
  for (k = 0; k < nf; k++) {
    double n[3] = { 0, 0, 0 }, len, d = -1e300;
    int first = m, j, c;
    while (faces[i] >= 0) P->fv[m++] = faces[i++];
    i++;
    P->f[k + 1] = m;
    /* Newell's normal */
    for (j = first; j < m; j++) {
      const double *a = P->v[P->fv[j]], *b = P->v[P->fv[j + 1 < m ? j + 1 : first]];
      n[0] += (a[1] - b[1]) * (a[2] + b[2]);
      n[1] += (a[2] - b[2]) * (a[0] + b[0]);
      n[2] += (a[0] - b[0]) * (a[1] + b[1]);
    }
    len = sqrt(dot3(n, n));
    for (c = 0; c < 3; c++) P->p[k][c] = n[c] / len;
    for (j = 0; j < nv; j++) d = dot3(P->p[k], P->v[j]) > d ? dot3(P->p[k], P->v[j]) : d;
    P->p[k][3] = d;
  }
  P->h.nv = nv;
  P->h.nf = nf;
  P->h.vert = &P->v[0][0];
  P->h.plane = &P->p[0][0];
  P->h.face = P->f;
  P->h.face_vert = P->fv;
}

/* a box of half extents h, its corners in the runtime's corner order */
static void poly_box(poly *P, double hx, double hy, double hz) {
  static const int faces[] = { 0, 4, 6, 2, -1, 1, 3, 7, 5, -1, 0, 1, 5, 4, -1,
                               2, 6, 7, 3, -1, 0, 2, 3, 1, -1, 4, 5, 7, 6, -1 };
  double v[8][3];
  int k;
  for (k = 0; k < 8; k++) {
    v[k][0] = (k & 1) ? hx : -hx;
    v[k][1] = (k & 2) ? hy : -hy;
    v[k][2] = (k & 4) ? hz : -hz;
  }
  poly_make(P, 8, &v[0][0], 6, faces);
}

/* an octahedron of half diagonal r */
static void poly_octahedron(poly *P, double r) {
  double v[6][3] = {
    { r, 0, 0 }, { -r, 0, 0 }, { 0, r, 0 }, { 0, -r, 0 }, { 0, 0, r }, { 0, 0, -r }
  };
  static const int faces[] = { 0, 2, 4, -1, 2, 1, 4, -1, 1, 3, 4, -1, 3, 0, 4, -1,
                               2, 0, 5, -1, 1, 2, 5, -1, 3, 1, 5, -1, 0, 3, 5, -1 };
  poly_make(P, 6, &v[0][0], 8, faces);
}

/* a regular n-gon prism (radius r, half height hz), axis z */
static void poly_prism(poly *P, int n, double r, double hz) {
  double v[64][3];
  int faces[600], i = 0, k;
  for (k = 0; k < n; k++) {
    double a = 2 * PI * k / n;
    v[k][0] = v[n + k][0] = r * cos(a);
    v[k][1] = v[n + k][1] = r * sin(a);
    v[k][2] = -hz;
    v[n + k][2] = hz;
  }
  for (k = n - 1; k >= 0; k--) faces[i++] = k; /* bottom, seen from below */
  faces[i++] = -1;
  for (k = 0; k < n; k++) faces[i++] = n + k;
  faces[i++] = -1;
  for (k = 0; k < n; k++) {
    faces[i++] = k;
    faces[i++] = (k + 1) % n;
    faces[i++] = n + (k + 1) % n;
    faces[i++] = n + k;
    faces[i++] = -1;
  }
  poly_make(P, 2 * n, &v[0][0], n + 2, faces);
}

static diagc_shape shp(int type, double s0, double s1, double s2) {
  diagc_shape s;
  s.type = type;
  s.size[0] = s0;
  s.size[1] = s1;
  s.size[2] = s2;
  s.hull = NULL;
  return s;
}

static diagc_shape hull_shape(const poly *P) {
  diagc_shape s = shp(DIAGC_SHAPE_HULL, 0, 0, 0);
  int k;
  for (k = 0; k < P->h.nv; k++) {
    double r = sqrt(dot3(P->v[k], P->v[k]));
    if (r > s.size[0]) s.size[0] = r;
  }
  s.hull = &P->h;
  return s;
}

static int collide(const diagc_shape *a, const double *Xa, const diagc_shape *b, const double *Xb,
                   double margin, diagc_contact *c) {
  memset(c, 0, sizeof(diagc_contact) * DIAGC_COLLIDE_MAX);
  return diagc_collide(a, Xa, b, Xb, margin, c, DIAGC_COLLIDE_MAX);
}

static int sane(const diagc_shape *a, const diagc_shape *b, const diagc_contact *c, int n,
                double margin) {
  int i, k;
  if (n < 0 || n > diagc_collide_max(a->type, b->type)) return 0;
  for (i = 0; i < n; i++) {
    for (k = 0; k < 3; k++)
      if (!isfinite(c[i].point[k]) || !isfinite(c[i].normal[k])) return 0;
    if (!isfinite(c[i].depth) || !(c[i].depth > -margin)) return 0;
    if (fabs(sqrt(dot3(c[i].normal, c[i].normal)) - 1.0) > 1e-12) return 0;
    if (i > 0 && c[i].feature < c[i - 1].feature) return 0;
  }
  return 1;
}

static double max_depth(const diagc_contact *c, int n) {
  double d = -1e300;
  int i;
  for (i = 0; i < n; i++) d = c[i].depth > d ? c[i].depth : d;
  return d;
}

/* The least penetration of two cubes of half side h at Xa, Xb: the
 * minimum over the 15 axes (3 + 3 faces, 9 edge pairs) of their overlap. */
static double sat_boxes(const double *Xa, const double *Xb, double h) {
  double ax[15][3], best = 1e300;
  int i, j, k, na = 0;
  for (i = 0; i < 3; i++) {
    for (k = 0; k < 3; k++) ax[na][k] = Xa[3 * k + i];
    na++;
    for (k = 0; k < 3; k++) ax[na][k] = Xb[3 * k + i];
    na++;
  }
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++) {
      double u[3] = { Xa[i], Xa[3 + i], Xa[6 + i] }, v[3] = { Xb[j], Xb[3 + j], Xb[6 + j] }, len;
      ax[na][0] = u[1] * v[2] - u[2] * v[1];
      ax[na][1] = u[2] * v[0] - u[0] * v[2];
      ax[na][2] = u[0] * v[1] - u[1] * v[0];
      len = sqrt(dot3(ax[na], ax[na]));
      if (len < 1e-9) continue;
      for (k = 0; k < 3; k++) ax[na][k] /= len;
      na++;
    }
  for (i = 0; i < na; i++) {
    double ra = 0.0, rb = 0.0, d[3] = { Xb[9] - Xa[9], Xb[10] - Xa[10], Xb[11] - Xa[11] }, ov;
    for (k = 0; k < 3; k++) {
      ra += h * fabs(ax[i][0] * Xa[k] + ax[i][1] * Xa[3 + k] + ax[i][2] * Xa[6 + k]);
      rb += h * fabs(ax[i][0] * Xb[k] + ax[i][1] * Xb[3 + k] + ax[i][2] * Xb[6 + k]);
    }
    ov = ra + rb - fabs(dot3(ax[i], d));
    best = ov < best ? ov : best;
  }
  return best;
}

/* Distance of local point p to the box [-h, h]^3. */
static double point_box_dist(const double *p, double h) {
  double d2 = 0.0;
  int k;
  for (k = 0; k < 3; k++) {
    double e = fabs(p[k]) - h;
    if (e > 0) d2 += e * e;
  }
  return sqrt(d2);
}

/* Distance of segments p0 p1 and q0 q1 (Ericson's clamped solution). */
static double seg_seg(const double *p0, const double *p1, const double *q0, const double *q1) {
  double d1[3], d2[3], r[3], a, e, f, b, c, den, s = 0, t = 0, x[3];
  int k;
  for (k = 0; k < 3; k++) {
    d1[k] = p1[k] - p0[k];
    d2[k] = q1[k] - q0[k];
    r[k] = p0[k] - q0[k];
  }
  a = dot3(d1, d1);
  e = dot3(d2, d2);
  f = dot3(d2, r);
  c = dot3(d1, r);
  b = dot3(d1, d2);
  den = a * e - b * b;
  s = den > 1e-14 * a * e ? (b * f - c * e) / den : 0.0;
  s = s < 0 ? 0 : (s > 1 ? 1 : s);
  t = (b * s + f) / e;
  if (t < 0) {
    t = 0;
    s = -c / a;
  } else if (t > 1) {
    t = 1;
    s = (b - c) / a;
  }
  s = s < 0 ? 0 : (s > 1 ? 1 : s);
  for (k = 0; k < 3; k++) x[k] = p0[k] + s * d1[k] - q0[k] - t * d2[k];
  return sqrt(dot3(x, x));
}

/* The distance of two separated cubes of half side h: the least of every
 * corner's distance to the other cube and every edge pair's distance. */
static double cubes_distance(const double *Xa, const double *Xb, double h) {
  double best = 1e300, c[2][8][3];
  int side, k, i, j;
  const double *X[2] = { Xa, Xb };
  for (side = 0; side < 2; side++)
    for (k = 0; k < 8; k++) {
      double r[3] = { (k & 1) ? h : -h, (k & 2) ? h : -h, (k & 4) ? h : -h };
      for (i = 0; i < 3; i++)
        c[side][k][i] = X[side][3 * i] * r[0] + X[side][3 * i + 1] * r[1] +
                        X[side][3 * i + 2] * r[2] + X[side][9 + i];
    }
  for (side = 0; side < 2; side++)
    for (k = 0; k < 8; k++) {
      const double *Y = X[1 - side];
      double d[3] = { c[side][k][0] - Y[9], c[side][k][1] - Y[10], c[side][k][2] - Y[11] }, l[3],
             dd;
      for (i = 0; i < 3; i++) l[i] = Y[i] * d[0] + Y[3 + i] * d[1] + Y[6 + i] * d[2];
      dd = point_box_dist(l, h);
      best = dd < best ? dd : best;
    }
  for (i = 0; i < 8; i++)
    for (k = 0; k < 3; k++) {
      int i2 = i | (1 << k);
      if (i2 == i) continue;
      for (j = 0; j < 8; j++) {
        int m;
        for (m = 0; m < 3; m++) {
          int j2 = j | (1 << m);
          double dd;
          if (j2 == j) continue;
          dd = seg_seg(c[0][i], c[0][i2], c[1][j], c[1][j2]);
          best = dd < best ? dd : best;
        }
      }
    }
  return best;
}

/* ---------------------------------------------------------------------
 * tests */

/* A hull of a box's corners against a plane gives box-plane's contacts. */
static void test_box_hull_plane(void) {
  poly P;
  diagc_shape box = shp(DIAGC_SHAPE_BOX, 0.2, 0.15, 0.1), pl = shp(DIAGC_SHAPE_PLANE, 0, 0, 0), h;
  double Xa[12], Xp[12], worst = 0.0;
  int trial, ok = 1;
  poly_box(&P, 0.2, 0.15, 0.1);
  h = hull_shape(&P);
  pose_aa(Xp, 0.1, 0.2, 1, 0.3, 0.1, -0.2, 0.05);
  for (trial = 0; trial < 200; trial++) {
    diagc_contact cb[8], ch[8];
    int nb, nh, i, k;
    if (trial == 0)
      pose_aa(Xa, 0, 0, 1, 0, 0, 0, 0.1 - 1e-4); /* resting flat on z = 0 */
    else
      pose_aa(Xa, srand1(1), srand1(1), srand1(1), srand1(PI), srand1(0.3), srand1(0.3),
              srand1(0.2));
    nb = collide(&box, Xa, &pl,
                 trial == 0 ? (double[12]){ 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 } : Xp, 0.01, cb);
    nh = collide(&h, Xa, &pl, trial == 0 ? (double[12]){ 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 } : Xp,
                 0.01, ch);
    if (nb != nh) {
      ok = 0;
      break;
    }
    for (i = 0; i < nb; i++) {
      ok &= cb[i].feature == ch[i].feature;
      for (k = 0; k < 3; k++) {
        worst = fmax(worst, fabs(cb[i].point[k] - ch[i].point[k]));
        worst = fmax(worst, fabs(cb[i].normal[k] - ch[i].normal[k]));
      }
      worst = fmax(worst, fabs(cb[i].depth - ch[i].depth));
    }
  }
  check(ok && worst <= 1e-15, "collide_hull.box_hull_plane_equals_box", "ok %d, worst %g", ok,
        worst);
}

/* Separated pairs of known distance. */
static void test_distances(void) {
  poly C, O;
  diagc_shape c, o, s = shp(DIAGC_SHAPE_SPHERE, 0.25, 0, 0);
  double Xa[12], Xb[12];
  diagc_contact r[8];
  int n;
  poly_box(&C, 0.5, 0.5, 0.5);
  poly_octahedron(&O, 0.5);
  c = hull_shape(&C);
  o = hull_shape(&O);
  /* cubes face to face along x, gap 0.3 */
  pose_aa(Xa, 0, 0, 1, 0, 0, 0, 0);
  pose_aa(Xb, 0, 0, 1, 0, 1.3, 0.2, -0.1);
  n = collide(&c, Xa, &c, Xb, 1.0, r);
  check(n >= 1 && sane(&c, &c, r, n, 1.0) && fabs(max_depth(r, n) + 0.3) < 1e-12 &&
            fabs(r[0].normal[0] + 1.0) < 1e-12,
        "collide_hull.distance_cube_cube_faces", "n %d depth %.17g normal %g", n,
        n ? r[0].depth : 0, n ? r[0].normal[0] : 0);
  /* a cube turned 45 degrees about z: its edge at x = 0.5 sqrt 2 before the
     other's face at x = 1.5: gap 1 - 0.5 sqrt 2 */
  pose_aa(Xb, 0, 0, 1, PI / 4, 2.0, 0, 0);
  n = collide(&c, Xa, &c, Xb, 1.0, r);
  check(n >= 1 && sane(&c, &c, r, n, 1.0) &&
            fabs(max_depth(r, n) + (1.5 - 0.5 * sqrt(2.0))) < 1e-12,
        "collide_hull.distance_cube_edge_face", "n %d depth %.17g", n, n ? max_depth(r, n) : 0);
  /* octahedron vertex against the cube's top face: gap 0.2 */
  pose_aa(Xb, 0, 0, 1, 0.3, 0.1, 0.05, 1.2);
  n = collide(&o, Xb, &c, Xa, 1.0, r);
  check(n >= 1 && fabs(max_depth(r, n) + 0.2) < 1e-12 && fabs(r[0].normal[2] - 1.0) < 1e-12,
        "collide_hull.distance_octahedron_vertex_face", "n %d depth %.17g", n,
        n ? max_depth(r, n) : 0);
  /* octahedron and cube edge to edge: the octahedron turned 45 deg about
     x... its vertex (0.5, 0, 0) faces the cube's edge from the corner
     direction (1, 1, 0)/sqrt 2: placed at distance D along it, the gap is
     D - 0.5 - 0.5 sqrt 2... the cube's edge is at 0.5 sqrt 2 along that
     direction, and the octahedron's vertex 0.5 beyond its centre */
  {
    double D = 2.0, u = 1.0 / sqrt(2.0);
    pose_aa(Xb, 0, 0, 1, PI / 4 + PI, D * u, D * u,
            0.0); /* its +x vertex points at -(1,1)/sqrt 2 */
    n = collide(&o, Xb, &c, Xa, 1.0, r);
    check(n >= 1 && fabs(max_depth(r, n) + (D - 0.5 - 0.5 * sqrt(2.0))) < 1e-12,
          "collide_hull.distance_vertex_edge", "n %d depth %.17g want %.17g", n, n ? r[0].depth : 0,
          -(D - 0.5 - 0.5 * sqrt(2.0)));
  }
  /* sphere against the hull cube: the primitive sphere-box in every region */
  {
    diagc_shape box = shp(DIAGC_SHAPE_BOX, 0.5, 0.5, 0.5);
    double worst = 0.0;
    int t, ok = 1;
    for (t = 0; t < 300; t++) {
      diagc_contact p[8], q[8];
      int np, nq, k;
      pose_aa(Xb, 0, 0, 1, 0, srand1(1.0), srand1(1.0), srand1(1.0));
      np = collide(&s, Xb, &box, Xa, 0.5, p);
      nq = collide(&s, Xb, &c, Xa, 0.5, q);
      if (np != nq) {
        ok = 0;
        continue;
      }
      if (np == 0) continue;
      worst = fmax(worst, fabs(p[0].depth - q[0].depth));
      for (k = 0; k < 3; k++) {
        worst = fmax(worst, fabs(p[0].point[k] - q[0].point[k]));
        worst = fmax(worst, fabs(p[0].normal[k] - q[0].normal[k]) * 1e-3);
      }
    }
    check(ok && worst < 1e-9, "collide_hull.sphere_hull_equals_sphere_box", "ok %d worst %g", ok,
          worst);
  }
}

/* Penetrating cubes: the EPA depth and a 4-point face patch, the same as
 * box-box's. */
static void test_penetration(void) {
  poly C;
  diagc_shape c, box = shp(DIAGC_SHAPE_BOX, 0.5, 0.5, 0.5);
  double Xa[12], Xb[12];
  diagc_contact r[8], q[8];
  int n, m, t, ok = 1;
  poly_box(&C, 0.5, 0.5, 0.5);
  c = hull_shape(&C);
  pose_aa(Xa, 0, 0, 1, 0, 0, 0, 0);
  pose_aa(Xb, 0, 0, 1, 0.1, 0.3, -0.2, 0.9); /* b above a, sunk 0.1 */
  n = collide(&c, Xb, &c, Xa, 1e-3, r);
  check(n == 4 && sane(&c, &c, r, n, 1e-3) && fabs(r[0].depth - 0.1) < 1e-12 &&
            fabs(r[3].depth - 0.1) < 1e-12 && fabs(r[0].normal[2] - 1.0) < 1e-12,
        "collide_hull.cube_on_cube_4_points", "n %d depth %g", n, n ? r[0].depth : 0);
  /* separated cubes at random turns: the gap is their distance (corners
     against the other cube, edges against edges, computed here);
     overlapping ones: a single point's depth is the least penetration,
     the minimum over the 15 separating axes computed here */
  {
    int nsep = 0, npen = 0;
    double wsep = 0.0, wpen = 0.0;
    for (t = 0; t < 400; t++) {
      double ax = srand1(1), ay = srand1(1), az = srand1(1), th = srand1(PI);
      pose_aa(Xb, ax, ay, az, th, srand1(1.3), srand1(1.3), srand1(1.3));
      n = collide(&box, Xa, &box, Xb, 0.5, q);
      m = collide(&c, Xa, &c, Xb, 0.5, r);
      if (!sane(&c, &c, r, m, 0.5)) ok = 0;
      if (m && max_depth(r, m) < -1e-6) {
        wsep = fmax(wsep, fabs(max_depth(r, m) + cubes_distance(Xa, Xb, 0.5)));
        nsep++;
      }
      if (m == 1 && r[0].depth > 1e-6) {
        wpen = fmax(wpen, fabs(r[0].depth - sat_boxes(Xa, Xb, 0.5)));
        npen++;
      }
      m = collide(&box, Xa, &c, Xb, 0.5, r);
      if (!sane(&box, &c, r, m, 0.5)) ok = 0;
      if (m && max_depth(r, m) < -1e-6)
        wsep = fmax(wsep, fabs(max_depth(r, m) + cubes_distance(Xa, Xb, 0.5)));
    }
    /* (a face patch measures its depths along the reference face's
       normal, within 2.6 degrees of the nearest direction: 1e-8) */
    check(ok && nsep > 20 && npen > 20 && wsep < 1e-8 && wpen < 1e-12,
          "collide_hull.cubes_distance_and_least_penetration",
          "ok %d separated %d (worst %g), penetrating single points %d (worst %g)", ok, nsep, wsep,
          npen, wpen);
  }
}

/* A 32-vertex prism lying on a plane: 8 points spread around the face. */
static void test_prism_patch(void) {
  poly P;
  diagc_shape h, pl = shp(DIAGC_SHAPE_PLANE, 0, 0, 0);
  double Xa[12], Xp[12], cx = 0, cy = 0, rmin = 1e9;
  diagc_contact r[8];
  int n, i;
  poly_prism(&P, 16, 0.3, 0.1);
  h = hull_shape(&P);
  pose_aa(Xa, 0, 0, 1, 0, 0, 0, 0.1 - 1e-4);
  pose_aa(Xp, 0, 0, 1, 0, 0, 0, 0);
  n = collide(&h, Xa, &pl, Xp, 1e-3, r);
  for (i = 0; i < n; i++) {
    double rr = sqrt(r[i].point[0] * r[i].point[0] + r[i].point[1] * r[i].point[1]);
    cx += r[i].point[0] / n;
    cy += r[i].point[1] / n;
    rmin = rr < rmin ? rr : rmin;
  }
  check(n == 8 && sane(&h, &pl, r, n, 1e-3) && fabs(cx) < 1e-9 && fabs(cy) < 1e-9 && rmin > 0.29,
        "collide_hull.prism_on_plane_spread_8", "n %d centroid %g %g", n, cx, cy);
  /* on a hull cube: a face patch too */
  {
    poly C;
    diagc_shape c;
    double Xc[12];
    poly_box(&C, 1, 1, 0.5);
    c = hull_shape(&C);
    pose_aa(Xc, 0, 0, 1, 0, 0, 0, -0.5);
    n = collide(&h, Xa, &c, Xc, 1e-3, r);
    check(n == 8 && sane(&h, &c, r, n, 1e-3) && fabs(r[0].normal[2] - 1.0) < 1e-12,
          "collide_hull.prism_on_hull_patch", "n %d", n);
  }
}

/* A capsule lying on a hull face: its two ends. */
static void test_capsule(void) {
  poly C;
  diagc_shape c, cap = shp(DIAGC_SHAPE_CAPSULE, 0.1, 0.3, 0),
                 box = shp(DIAGC_SHAPE_BOX, 0.5, 0.5, 0.5);
  double Xa[12], Xb[12];
  diagc_contact r[8], q[8];
  int n, m, t, ok = 1;
  double worst = 0.0;
  poly_box(&C, 0.5, 0.5, 0.5);
  c = hull_shape(&C);
  pose_aa(Xb, 0, 0, 1, 0, 0, 0, 0);
  pose_aa(Xa, 0, 1, 0, PI / 2, 0.1, 0.0, 0.59); /* along x, sunk 0.01 */
  n = collide(&cap, Xa, &c, Xb, 1e-3, r);
  check(n == 2 && fabs(r[0].depth - 0.01) < 1e-12 && fabs(r[1].depth - 0.01) < 1e-12 &&
            r[0].feature == 0 && r[1].feature == 1,
        "collide_hull.capsule_on_face_2_points", "n %d", n);
  for (t = 0; t < 300; t++) {
    pose_aa(Xa, srand1(1), srand1(1), srand1(1), srand1(PI), srand1(1), srand1(1), srand1(1));
    n = collide(&cap, Xa, &box, Xb, 0.2, q);
    m = collide(&cap, Xa, &c, Xb, 0.2, r);
    if (!sane(&cap, &c, r, m, 0.2)) ok = 0;
    if (n && m && max_depth(q, n) < -1e-6)
      worst = fmax(worst, fabs(max_depth(q, n) - max_depth(r, m)));
  }
  check(ok && worst < 1e-9, "collide_hull.capsule_distance_equals_capsule_box", "ok %d worst %g",
        ok, worst);
}

/* Random poses of every hull pair: finite, bounded, swap-symmetric and
 * deterministic; bad hulls give nothing. */
static void test_fuzz(void) {
  poly C, O, P;
  diagc_shape s[5];
  int t, ok = 1, sym = 1, det = 1;
  poly_box(&C, 0.3, 0.2, 0.1);
  poly_octahedron(&O, 0.3);
  poly_prism(&P, 7, 0.2, 0.15);
  s[0] = hull_shape(&C);
  s[1] = hull_shape(&O);
  s[2] = hull_shape(&P);
  s[3] = shp(DIAGC_SHAPE_SPHERE, 0.1, 0, 0);
  s[4] = shp(DIAGC_SHAPE_CAPSULE, 0.1, 0.2, 0);
  for (t = 0; t < 3000; t++) {
    const diagc_shape *a = &s[t % 3], *b = &s[(t / 3) % 5];
    double Xa[12], Xb[12];
    diagc_contact r[8], q[8], r2[8];
    int n, m, n2, i;
    pose_aa(Xa, srand1(1), srand1(1), srand1(1), srand1(PI), srand1(0.3), srand1(0.3), srand1(0.3));
    pose_aa(Xb, srand1(1), srand1(1), srand1(1), srand1(PI), srand1(0.3), srand1(0.3), srand1(0.3));
    if (t % 50 == 0) memcpy(Xb, Xa, sizeof Xa); /* coincident */
    n = collide(a, Xa, b, Xb, 0.05, r);
    m = collide(b, Xb, a, Xa, 0.05, q);
    n2 = collide(a, Xa, b, Xb, 0.05, r2);
    if (!sane(a, b, r, n, 0.05)) ok = 0;
    if (n != n2) det = 0;
    for (i = 0; i < n && i < n2; i++)
      if (memcmp(r[i].point, r2[i].point, sizeof r[i].point) ||
          memcmp(r[i].normal, r2[i].normal, sizeof r[i].normal) ||
          memcmp(&r[i].depth, &r2[i].depth, sizeof(double)) || r[i].feature != r2[i].feature)
        det = 0;
    if (t % 50 == 0) m = n = 0; /* coincident centres: the normal is not unique */
    if (n != m) sym = 0;
    for (i = 0; i < n && i < m; i++)
      if (fabs(r[i].depth - q[i].depth) > 1e-8 || fabs(r[i].normal[0] + q[i].normal[0]) > 1e-8)
        sym = 0;
  }
  check(ok, "collide_hull.fuzz_finite_bounded", "a contact was not finite, unit or bounded");
  check(sym, "collide_hull.fuzz_swap_symmetric", "swapping the arguments changed the contacts");
  check(det, "collide_hull.fuzz_deterministic", "the same input gave different output");
  {
    poly B = C;
    diagc_shape bad, pl = shp(DIAGC_SHAPE_PLANE, 0, 0, 0);
    B.h.vert = &B.v[0][0];
    B.h.plane = &B.p[0][0];
    B.h.face = B.f;
    B.h.face_vert = B.fv;
    bad = hull_shape(&B);
    double X[12];
    diagc_contact r[8];
    double aabb[6];
    pose_aa(X, 0, 0, 1, 0, 0, 0, 0);
    B.h.nv = 200;
    check(collide(&bad, X, &pl, X, 1.0, r) == 0, "collide_hull.bad_hull_no_contact",
          "a hull of 200 vertices");
    B.h.nv = 8;
    {
      int fv3 = B.fv[3];
      B.fv[3] = 99;
      check(collide(&bad, X, &pl, X, 1.0, r) == 0, "collide_hull.bad_index_no_contact",
            "a face index out of range");
      B.fv[3] = fv3;
    }
    check(collide(&bad, X, &pl, X, 1.0, r) > 0, "collide_hull.restored_hull_contacts", "the hull made good again");
    {
      /* a value that is not finite: no contact, and a bounding box from the
         shape's size (never NaN) */
      double v = B.v[2][1], pv = B.p[1][3];
      int k, fin = 1;
      B.v[2][1] = NAN;
      check(collide(&bad, X, &pl, X, 1.0, r) == 0, "collide_hull.nan_vertex_no_contact", "a NaN vertex");
      diagc_shape_aabb(&bad, X, 0.0, aabb);
      for (k = 0; k < 6; k++) fin = fin && isfinite(aabb[k]);
      check(fin, "collide_hull.nan_vertex_aabb_finite", "%g %g %g", aabb[0], aabb[1], aabb[2]);
      B.v[2][1] = v;
      B.p[1][3] = INFINITY;
      check(collide(&bad, X, &pl, X, 1.0, r) == 0, "collide_hull.infinite_plane_no_contact", "an infinite plane d");
      B.p[1][3] = pv;
    }
    bad.hull = NULL;
    check(collide(&bad, X, &pl, X, 1.0, r) == 0, "collide_hull.null_hull_no_contact",
          "a NULL hull");
    pose_aa(X, 0, 0, 1, PI / 4, 1, 2, 3);
    diagc_shape_aabb(&s[0], X, 0.0, aabb);
    check(fabs(aabb[0] - (1 - 0.5 / sqrt(2.0))) < 1e-12 && fabs(aabb[5] - 3.1) < 1e-12,
          "collide_hull.aabb", "%g %g", aabb[0], aabb[5]);
  }
}

/* Derivatives: hull-plane analytic against the general path; hull-hull
 * finite and consistent with a difference of diagc_collide. */
static void test_tangent(void) {
  poly C;
  diagc_shape c, pl = shp(DIAGC_SHAPE_PLANE, 0, 0, 0);
  double Xa[12], Xp[12], D1[8 * 156], D2[8 * 156], worst = 0.0;
  diagc_contact r[8];
  int n, i, rc1, rc2;
  poly_box(&C, 0.3, 0.2, 0.1);
  c = hull_shape(&C);
  pose_aa(Xa, 0.3, 0.1, 1, 0.2, 0.1, 0.2, 0.05);
  pose_aa(Xp, 0.1, 0, 1, 0.05, 0, 0, 0);
  n = collide(&c, Xa, &pl, Xp, 0.5, r);
  rc1 = diagc_collide_tangent(&c, Xa, &pl, Xp, 0.5, r, n, D1);
  rc2 = diagc_collide_tangent_general(&c, Xa, &pl, Xp, 0.5, r, n, D2);
  for (i = 0; i < n * 156; i++) worst = fmax(worst, fabs(D1[i] - D2[i]));
  check(n > 0 && rc1 == 0 && rc2 == 0 && worst < 1e-6,
        "collide_hull.tangent_plane_analytic_vs_general", "n %d rc %d %d worst %g", n, rc1, rc2,
        worst);
  /* the same with the arguments swapped */
  n = collide(&pl, Xp, &c, Xa, 0.5, r);
  rc1 = diagc_collide_tangent(&pl, Xp, &c, Xa, 0.5, r, n, D1);
  rc2 = diagc_collide_tangent_general(&pl, Xp, &c, Xa, 0.5, r, n, D2);
  worst = 0.0;
  for (i = 0; i < n * 156; i++) worst = fmax(worst, fabs(D1[i] - D2[i]));
  check(n > 0 && rc1 == 0 && rc2 == 0 && worst < 1e-6, "collide_hull.tangent_plane_swapped",
        "worst %g", worst);
  /* hull on hull: the depth's derivative along b's z velocity is -1 for a
     face patch (b above a, normal +z from a to b... a moves up: less depth) */
  {
    double Xb[12];
    pose_aa(Xb, 0, 0, 1, 0.1, 0.05, 0.02, 0.19);
    pose_aa(Xa, 0, 0, 1, 0, 0, 0, 0);
    n = collide(&c, Xb, &c, Xa, 1e-3, r);
    rc1 = diagc_collide_tangent(&c, Xb, &c, Xa, 1e-3, r, n, D1);
    worst = 0.0;
    for (i = 0; i < n; i++) worst = fmax(worst, fabs(D1[156 * i + 12 * 12 + 5] + 1.0));
    check(n >= 4 && rc1 == 0 && worst < 1e-6, "collide_hull.tangent_hull_hull_depth_rate",
          "n %d rc %d worst %g", n, rc1, worst);
  }
}

/* Face patches: the vertices on the reference face analytically, equal
 * to the general path's differences (in both argument orders, hull-hull
 * and box-hull, the reference face on either side). */
static void test_tangent_patch(void) {
  poly C, Q;
  diagc_shape c, q, box = shp(DIAGC_SHAPE_BOX, 0.3, 0.2, 0.1);
  double Xa[12], Xb[12], D1[8 * 156], D2[8 * 156];
  int t, ok = 1, analytic = 0;
  double worst = 0.0;
  poly_box(&C, 0.3, 0.2, 0.1);
  poly_box(&Q, 1.0, 1.0, 0.25);
  c = hull_shape(&C);
  q = hull_shape(&Q);
  for (t = 0; t < 8; t++) {
    const diagc_shape *top = (t & 1) ? &box : &c, *A, *B;
    const double *XA, *XB;
    diagc_contact r[8];
    int n, i, rc1, rc2;
    pose_aa(Xa, 0.02 * (t + 1), -0.01 * t, 1, 0.3 * t, 0.05 * t, -0.03 * t,
            0.25 + 0.1 - 1e-3 * (t + 1));
    pose_aa(Xb, 0, 0, 1, 0.1 * t, 0, 0, 0);
    A = (t & 2) ? &q : top;
    B = (t & 2) ? top : &q;
    XA = (t & 2) ? Xb : Xa;
    XB = (t & 2) ? Xa : Xb;
    n = collide(A, XA, B, XB, 1e-3, r);
    rc1 = diagc_collide_tangent(A, XA, B, XB, 1e-3, r, n, D1);
    rc2 = diagc_collide_tangent_general(A, XA, B, XB, 1e-3, r, n, D2);
    if (n < 2 || rc1 < 0 || rc2 < 0) ok = 0;
    for (i = 0; i < n; i++) analytic += r[i].feature % 8192 < 64;
    for (i = 0; i < n * 156; i++) worst = fmax(worst, fabs(D1[i] - D2[i]));
  }
  check(ok && analytic >= 16 && worst < 1e-6, "collide_hull.tangent_patch_analytic_vs_general",
        "ok %d analytic points %d worst %g", ok, analytic, worst);
}

int main(void) {
  (void)sleep_us;
  test_box_hull_plane();
  test_distances();
  test_penetration();
  test_prism_patch();
  test_capsule();
  test_fuzz();
  test_tangent();
  test_tangent_patch();
  return failures != 0;
}
