/* collide_internal.h: small 3-vector helpers and the narrow-phase routines
 * shared by collide.c, collide_box.c and collide_capsule.c.
 *
 * Each routine takes its pair in the order of increasing rank
 * (collide_rank: sphere < box < capsule < hull < plane), writes at most DIAGC_COLLIDE_MAX
 * contacts (normal from b to a) and returns their count; collide.c
 * dispatches, flips for the other order, sorts and trims.
 *
 * Poses X: R row-major (X[0..8]), p = X[9..11]. */
#ifndef DIAGC_COLLIDE_INTERNAL_H
#define DIAGC_COLLIDE_INTERNAL_H

#include <math.h>

#include "diagc/world.h"

static inline double v3_dot(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void v3_cross(const double *a, const double *b, double *c) {
  double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2],
         z = a[0] * b[1] - a[1] * b[0];
  c[0] = x;
  c[1] = y;
  c[2] = z;
}

static inline void v3_sub(const double *a, const double *b, double *c) {
  c[0] = a[0] - b[0];
  c[1] = a[1] - b[1];
  c[2] = a[2] - b[2];
}

/* c = a + s b */
static inline void v3_axpy(const double *a, double s, const double *b, double *c) {
  c[0] = a[0] + s * b[0];
  c[1] = a[1] + s * b[1];
  c[2] = a[2] + s * b[2];
}

static inline double v3_norm(const double *a) { return sqrt(v3_dot(a, a)); }

/* Normalizes a in place when its length exceeds tiny; returns the length
 * (a is left unchanged when it does not). */
static inline double v3_normalize(double *a, double tiny) {
  double n = v3_norm(a);
  if (n > tiny) {
    a[0] /= n;
    a[1] /= n;
    a[2] /= n;
  }
  return n;
}

/* Column i of the pose's rotation: the shape's local axis i in world. */
static inline void pose_axis(const double *X, int i, double *u) {
  u[0] = X[i];
  u[1] = X[3 + i];
  u[2] = X[6 + i];
}

/* World point of local r. */
static inline void pose_point(const double *X, const double *r, double *w) {
  double x = X[0] * r[0] + X[1] * r[1] + X[2] * r[2] + X[9];
  double y = X[3] * r[0] + X[4] * r[1] + X[5] * r[2] + X[10];
  double z = X[6] * r[0] + X[7] * r[1] + X[8] * r[2] + X[11];
  w[0] = x;
  w[1] = y;
  w[2] = z;
}

/* World direction of local d. */
static inline void pose_dir(const double *X, const double *d, double *w) {
  double x = X[0] * d[0] + X[1] * d[1] + X[2] * d[2];
  double y = X[3] * d[0] + X[4] * d[1] + X[5] * d[2];
  double z = X[6] * d[0] + X[7] * d[1] + X[8] * d[2];
  w[0] = x;
  w[1] = y;
  w[2] = z;
}

/* Local coordinates of world point w. */
static inline void pose_local_point(const double *X, const double *w, double *r) {
  double d0 = w[0] - X[9], d1 = w[1] - X[10], d2 = w[2] - X[11];
  double x = X[0] * d0 + X[3] * d1 + X[6] * d2;
  double y = X[1] * d0 + X[4] * d1 + X[7] * d2;
  double z = X[2] * d0 + X[5] * d1 + X[8] * d2;
  r[0] = x;
  r[1] = y;
  r[2] = z;
}

/* Local coordinates of world direction w. */
static inline void pose_local_dir(const double *X, const double *w, double *r) {
  double x = X[0] * w[0] + X[3] * w[1] + X[6] * w[2];
  double y = X[1] * w[0] + X[4] * w[1] + X[7] * w[2];
  double z = X[2] * w[0] + X[5] * w[1] + X[8] * w[2];
  r[0] = x;
  r[1] = y;
  r[2] = z;
}

static inline double clampd(double x, double lo, double hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

/* A capsule's segment in world: end 0 at e0, direction e1 - e0 = 2 h z. */
static inline void capsule_ends(const diagc_shape *s, const double *X, double *e0, double *e1) {
  double z[3];
  pose_axis(X, 2, z);
  v3_axpy(X + 9, -s->size[1], z, e0);
  v3_axpy(X + 9, s->size[1], z, e1);
}

/* Fills one contact: normal n (unit, b to a), the surface points sa on a
 * and sb on b (the point is their midpoint). */
static inline void contact_set(diagc_contact *c, const double *n, const double *sa,
                               const double *sb, double depth, int feature) {
  int i;
  for (i = 0; i < 3; i++) {
    c->point[i] = 0.5 * (sa[i] + sb[i]);
    c->normal[i] = n[i];
  }
  c->depth = depth;
  c->feature = feature;
}

/* Closest points of segments p0 + s (p1 - p0) and q0 + t (q1 - q0),
 * s, t in [0, 1]; deterministic for parallel and zero-length segments. */
void collide_segments(const double *p0, const double *p1, const double *q0, const double *q1,
                      double *s, double *t);

/* Narrow phase, pair order by type number (collide.c dispatches). */
int collide_sphere_sphere(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                          const double *Xb, double margin, diagc_contact *out);
int collide_sphere_box(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                       const double *Xb, double margin, diagc_contact *out);
int collide_sphere_capsule(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                           const double *Xb, double margin, diagc_contact *out);
int collide_sphere_plane(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                         const double *Xb, double margin, diagc_contact *out);
int collide_box_box(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                    const double *Xb, double margin, diagc_contact *out);
int collide_box_capsule(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                        const double *Xb, double margin, diagc_contact *out);
int collide_box_plane(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                      const double *Xb, double margin, diagc_contact *out);
int collide_capsule_capsule(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                            const double *Xb, double margin, diagc_contact *out);
int collide_capsule_plane(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                          const double *Xb, double margin, diagc_contact *out);

int collide_sphere_hull(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                        const double *Xb, double margin, diagc_contact *out);
int collide_box_hull(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                     const double *Xb, double margin, diagc_contact *out);
int collide_capsule_hull(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                         const double *Xb, double margin, diagc_contact *out);
int collide_hull_hull(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                      const double *Xb, double margin, diagc_contact *out);
int collide_hull_plane(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                       const double *Xb, double margin, diagc_contact *out);

/* The pair order of the narrow phase: sphere 0, box 1, capsule 2, hull 3,
 * plane 4. */
int collide_rank(int type);

/* 1 when the runtime can take hull h (counts within its buffers, indices
 * in range, finite numbers). */
int collide_hull_ok(const diagc_hull *h);

/* A box's or hull's vertex k (local r) and face f (local outward unit
 * normal nl, offset d, its vertices v, counter-clockwise from outside:
 * returns their count); 0 when there is no such vertex or face. */
int collide_poly_vertex(const diagc_shape *s, int k, double *r);
int collide_poly_face(const diagc_shape *s, int f, double *nl, double *d,
                      double (*v)[3]);

/* A shape as a core in world (collide_gjk.c): a polytope's vertices and
 * faces (poly = 1: a box or hull), a capsule's segment or a sphere's
 * centre, with the radius around it. */
#define COLLIDE_MAXV DIAGC_HULL_MAX_VERTICES
typedef struct {
  int nv, nf, poly;
  double v[COLLIDE_MAXV][3];
  double pl[2 * COLLIDE_MAXV][4]; /* faces' outward unit normal and offset */
  int face[2 * COLLIDE_MAXV + 1]; /* face f: fv[face[f] .. face[f + 1]) */
  int fv[6 * COLLIDE_MAXV];
  double radius;
  double size; /* a length scale */
} collide_core;

void collide_core_world(const diagc_shape *s, const double *X, collide_core *w);
/* The vertex farthest along d (ties: the lowest index). */
int collide_core_support(const collide_core *w, const double *d);
/* Normal n (unit, from b to a), witness points on the cores and their
 * depth (negative: the gap) of cores A and B: GJK, then EPA. */
void collide_core_contact(const collide_core *A, const collide_core *B, double *n, double *pa,
                          double *pb, double *core_depth);

/* The feature id of a face patch's point: 8192 (128 r + face) + point
 * (diagc/world.h); a point below 64 is an incident vertex. */
#define COLLIDE_PATCH_STRIDE 8192
#define COLLIDE_POINT_ONE 2097151

/* Unit direction for a degenerate normal: perpendicular to axis (a
 * contact-frame tangent) when axis is nonzero, else world +z. */
void collide_fallback_normal(const double *axis, double *n);

#endif
