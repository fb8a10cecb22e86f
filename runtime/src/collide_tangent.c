/* collide_tangent.c: derivatives of diagc_collide's contacts with respect
 * to the twists of the two shapes (diagc/world.h part 1b,
 * diagc_collide_tangent and diagc_collide_tangent_general).
 *
 * Per contact, the derivative of (point, normal, depth) with the contact's
 * features held fixed is found
 *   - analytically for sphere-sphere, sphere-plane, sphere-box (by
 *     region), sphere-capsule, box-plane (corner k), hull-plane (vertex k)
 *     and capsule-plane (end spheres): each contact there is two balls
 *     (centres moving with their shapes, or a closest point sliding along
 *     a feature) or a ball and a plane;
 *   - analytically for a vertex of a box or hull on the reference face of
 *     a hull (or of a box, against a hull) in a face patch: a point
 *     against the face's plane;
 *   - by the general path otherwise (box-box, capsule-capsule,
 *     capsule-box, and a hull with a sphere or capsule, and the other
 *     points of a hull's face patch: clipped edges, reference corners, a
 *     single GJK/EPA point): central differences of diagc_collide over the relative
 *     pose (one shape moved along its 6 twist directions, the other fixed),
 *     contacts matched by feature id, and the rigid-motion identity for the
 *     other shape's columns.
 * The tangent rows t1, t2 are the analytic derivative of
 * diagc_contact_frame applied to the normal's rows.
 *
 * Twist of a pose: (omega, v), omega the world angular velocity (dR =
 * [omega]x R), v the velocity of the frame's origin.  A point x fixed in a
 * shape with origin p moves at v + omega x (x - p). */
#include <math.h>
#include <string.h>

#include "collide_internal.h"

/* FD step of the general path and width of the analytic kink band, both
 * relative to the shapes' size; rotations step by STEP_REL radians. */
#define STEP_REL 1e-6
/* One-sided differences disagreeing by more than this (relative to the
 * larger, plus KINK_ABS in units of the shape's size) mark a kink. */
#define KINK_REL 1e-3
#define KINK_ABS 1e-4
/* |n.x| this close to DIAGC_CONTACT_FRAME_X_MAX: the frame's switch. */
#define FRAME_BAND 1e-9

/* Rows of the intermediate result: point 0..2, normal 3..5, depth 6. */
#define R7 7
#define NC 12

typedef double jrow[NC];

/* ---------------------------------------------------------------------
 * small helpers */

static void jzero(jrow *J, int rows) { memset(J, 0, sizeof(jrow) * (size_t)rows); }

/* Finite or 0. */
static double fin(double x) { return (x - x == 0.0) ? x : 0.0; }

/* Writes -[r]x (w -> w x r) into rows 0..2, columns c..c+2. */
static void put_cross(jrow *J, int c, const double *r) {
  J[0][c + 0] = 0.0;
  J[0][c + 1] = r[2];
  J[0][c + 2] = -r[1];
  J[1][c + 0] = -r[2];
  J[1][c + 1] = 0.0;
  J[1][c + 2] = r[0];
  J[2][c + 0] = r[1];
  J[2][c + 1] = -r[0];
  J[2][c + 2] = 0.0;
}

/* Velocity of the material point of shape `side` (origin p) at world x. */
static void body_point(jrow *J, int side, const double *x, const double *p) {
  double r[3];
  int i;
  jzero(J, 3);
  v3_sub(x, p, r);
  put_cross(J, 6 * side, r);
  for (i = 0; i < 3; i++) J[i][6 * side + 3 + i] = 1.0;
}

/* Rate of a direction u fixed in shape `side`. */
static void body_dir(jrow *J, int side, const double *u) {
  jzero(J, 3);
  put_cross(J, 6 * side, u);
}

/* y = u^T J (J: 3 rows) */
static void row_dot(const double *u, jrow *J, double *y) {
  int j;
  for (j = 0; j < NC; j++) y[j] = u[0] * J[0][j] + u[1] * J[1][j] + u[2] * J[2][j];
}

/* C = A + s B (3 rows) */
static void j3_axpy(jrow *A, double s, jrow *B, jrow *C) {
  int i, j;
  for (i = 0; i < 3; i++)
    for (j = 0; j < NC; j++) C[i][j] = A[i][j] + s * B[i][j];
}

/* C = M J (M 3x3 row-major given as rows of a pose or any matrix) */
static void j3_mul(const double *M, int transpose, jrow *J, jrow *C) {
  int i, j, k;
  jrow T[3];
  for (i = 0; i < 3; i++)
    for (j = 0; j < NC; j++) {
      double s = 0.0;
      for (k = 0; k < 3; k++) s += (transpose ? M[3 * k + i] : M[3 * i + k]) * J[k][j];
      T[i][j] = s;
    }
  memcpy(C, T, sizeof T);
}

/* J7 rows from the derivatives of point (3), normal (3), depth (1). */
static void set7(jrow *J7, jrow *Jp, jrow *Jn, const double *Jd) {
  memcpy(J7, Jp, sizeof(jrow) * 3);
  memcpy(J7 + 3, Jn, sizeof(jrow) * 3);
  memcpy(J7[6], Jd, sizeof(jrow));
}

/* ---------------------------------------------------------------------
 * analytic pieces (canonical pair: side 0 = the lower rank, collide_rank:
 * sphere, box, capsule, hull, plane) */

/* Two balls: centre ca (derivative Jca), radius ra; cb, Jcb, rb.  point =
 * (ca + cb)/2 + (rb - ra)/2 n, n = (ca - cb)/|ca - cb|, depth = ra + rb -
 * |ca - cb|.  Returns 1 at coincident centres (fallback normal: a kink). */
static int balls_d(const double *ca, jrow *Jca, double ra, const double *cb,
                   jrow *Jcb, double rb, jrow *J7) {
  double d[3], n[3], dist, Jd[NC];
  jrow Jdd[3], Jn[3], Jp[3];
  int i, j;
  v3_sub(ca, cb, d);
  dist = v3_norm(d);
  j3_axpy(Jca, -1.0, Jcb, Jdd);
  if (!(dist > 1e-14 * (ra + rb) && dist > 0.0)) {
    jzero(Jn, 3);
    for (j = 0; j < NC; j++) Jd[j] = 0.0;
    for (i = 0; i < 3; i++)
      for (j = 0; j < NC; j++) Jp[i][j] = 0.5 * (Jca[i][j] + Jcb[i][j]);
    set7(J7, Jp, Jn, Jd);
    return 1;
  }
  for (i = 0; i < 3; i++) n[i] = d[i] / dist;
  row_dot(n, Jdd, Jd);
  for (i = 0; i < 3; i++)
    for (j = 0; j < NC; j++) Jn[i][j] = (Jdd[i][j] - n[i] * Jd[j]) / dist;
  for (j = 0; j < NC; j++) Jd[j] = -Jd[j];
  for (i = 0; i < 3; i++)
    for (j = 0; j < NC; j++)
      Jp[i][j] = 0.5 * (Jca[i][j] + Jcb[i][j]) + 0.5 * (rb - ra) * Jn[i][j];
  set7(J7, Jp, Jn, Jd);
  return 0;
}

/* A ball (centre c, Jc, radius r) against the half-space side 1 (pose Xp):
 * n = its z axis, h = n.(c - p), depth = r - h, point = c - (r + h)/2 n. */
static void ball_plane_d(const double *c, jrow *Jc, double r, const double *Xp, jrow *J7) {
  double n[3], rel[3], h, Jh[NC], t[NC];
  jrow Jn[3], Jrel[3], Jpp[3], Jp[3];
  int i, j;
  pose_axis(Xp, 2, n);
  v3_normalize(n, 0.0);
  body_dir(Jn, 1, n);
  v3_sub(c, Xp + 9, rel);
  h = v3_dot(n, rel);
  body_point(Jpp, 1, Xp + 9, Xp + 9);
  j3_axpy(Jc, -1.0, Jpp, Jrel);
  row_dot(rel, Jn, Jh);
  row_dot(n, Jrel, t);
  for (j = 0; j < NC; j++) Jh[j] += t[j];
  for (i = 0; i < 3; i++)
    for (j = 0; j < NC; j++) Jp[i][j] = Jc[i][j] - 0.5 * n[i] * Jh[j] - 0.5 * (r + h) * Jn[i][j];
  for (j = 0; j < NC; j++) Jh[j] = -Jh[j];
  set7(J7, Jp, Jn, Jh);
}

static void box_corner(const double *h, int k, double *r) {
  r[0] = (k & 1) ? h[0] : -h[0];
  r[1] = (k & 2) ? h[1] : -h[1];
  r[2] = (k & 4) ? h[2] : -h[2];
}

/* Sphere (side 0) and box (side 1), region sg[] of the box from the
 * feature.  Returns 1 near a region boundary (or degenerate). */
static int sphere_box_d(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                        const double *Xb, const int *sg, double band, jrow *J7) {
  const double *h = b->size;
  const double *ca = Xa + 9;
  double r = a->size[0], cl[3], ql[3], sb[3];
  jrow Jca[3], Jbm[3], Jcl[3], Jql[3], Jsb[3];
  int i, j, nz = 0, k = 0, kink = 0;
  for (i = 0; i < 3; i++)
    if (sg[i]) {
      nz++;
      k = i;
    }
  pose_local_point(Xb, ca, cl);
  body_point(Jca, 0, ca, ca);
  body_point(Jbm, 1, ca, Xb + 9);
  j3_axpy(Jca, -1.0, Jbm, Jcl);
  j3_mul(Xb, 1, Jcl, Jcl); /* d c_local = R^T (dc - d(b's point at c)) */
  for (i = 0; i < 3; i++) {
    if (sg[i] && nz > 1) {
      ql[i] = sg[i] * h[i];
      for (j = 0; j < NC; j++) Jql[i][j] = 0.0;
      kink |= sg[i] * cl[i] - h[i] < band; /* about to enter the face slab */
    } else if (sg[i]) {
      ql[i] = sg[i] * h[i];
      for (j = 0; j < NC; j++) Jql[i][j] = 0.0;
    } else {
      ql[i] = cl[i];
      memcpy(Jql[i], Jcl[i], sizeof(jrow));
      kink |= fabs(cl[i]) > h[i] - band; /* about to leave the slab */
    }
  }
  pose_point(Xb, ql, sb);
  j3_mul(Xb, 0, Jql, Jsb);
  body_point(Jbm, 1, sb, Xb + 9);
  j3_axpy(Jsb, 1.0, Jbm, Jsb);
  if (nz > 1) return balls_d(ca, Jca, r, sb, Jsb, 0.0, J7) | kink;
  {
    /* a face region (outside or inside): n = sg_k R e_k, depth = r + h_k -
       sg_k c_k, point = (c - r n + sb) / 2 */
    double nl[3] = { 0.0, 0.0, 0.0 }, n[3], Jd[NC];
    jrow Jn[3], Jp[3];
    nl[k] = sg[k];
    pose_dir(Xb, nl, n);
    body_dir(Jn, 1, n);
    for (j = 0; j < NC; j++) Jd[j] = -sg[k] * Jcl[k][j];
    for (i = 0; i < 3; i++)
      for (j = 0; j < NC; j++) Jp[i][j] = 0.5 * (Jca[i][j] - r * Jn[i][j] + Jsb[i][j]);
    set7(J7, Jp, Jn, Jd);
    if (sg[k] * cl[k] < h[k]) { /* inside: another face as near */
      double mine = h[k] - sg[k] * cl[k];
      for (i = 0; i < 3; i++)
        if (i != k) kink |= h[i] - fabs(cl[i]) < mine + band;
    }
  }
  return kink;
}

/* Sphere (side 0) and capsule (side 1): the closest point q = p + s z of
 * the segment, s = clamp(z.(c - p), -l, l). */
static int sphere_capsule_d(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                            const double *Xb, double band, jrow *J7) {
  const double *ca = Xa + 9;
  double z[3], rel[3], s, l = b->size[1], q[3], ds[NC];
  jrow Jca[3], Jbm[3], Jq[3];
  int i, j, kink = 0;
  pose_axis(Xb, 2, z);
  v3_sub(ca, Xb + 9, rel);
  s = v3_dot(z, rel);
  body_point(Jca, 0, ca, ca);
  if (l > 0.0) kink = fabs(fabs(s) - l) < band;
  s = clampd(s, -l, l);
  v3_axpy(Xb + 9, s, z, q);
  body_point(Jq, 1, q, Xb + 9);
  if (fabs(s) < l) {
    body_point(Jbm, 1, ca, Xb + 9);
    j3_axpy(Jca, -1.0, Jbm, Jbm);
    row_dot(z, Jbm, ds);
    for (i = 0; i < 3; i++)
      for (j = 0; j < NC; j++) Jq[i][j] += z[i] * ds[j];
  }
  return balls_d(ca, Jca, a->size[0], q, Jq, b->size[0], J7) | kink;
}

/* A vertex of one polytope against the reference face of the other (a
 * face patch with a hull, feature 8192 (128 r + face) + v, v < 64): the
 * vertex x moves with its shape; the face's plane (normal n, a point q)
 * with the reference shape (side r).  h = n.(x - q), depth = -h, point =
 * x - h/2 n, normal n (r = 1) or -n (r = 0).  Returns 1 when the vertex
 * lies within band of a side of the face (it may leave it), 0, or -1 when
 * the feature is not of this kind. */
static int vertex_face_d(const diagc_shape *s0, const double *X0, const diagc_shape *s1,
                         const double *X1, int f, double band, jrow *J7) {
  double nl[3], d, fv[DIAGC_HULL_MAX_VERTICES][3], vl[3], x[3], n[3], ql[3], q[3], rel[3], h;
  double Jh[NC], t[NC], xl[3];
  jrow Jx[3], Jn[3], Jq[3], Jr[3], Jp[3], Jnn[3];
  int r, face, pt, nfv, k, i, j, kink = 0, I;
  const diagc_shape *SR, *SI;
  const double *XR, *XI;
  if (f < 0 || f >= COLLIDE_POINT_ONE) return -1;
  pt = f % COLLIDE_PATCH_STRIDE;
  r = (f / COLLIDE_PATCH_STRIDE) / 128;
  face = (f / COLLIDE_PATCH_STRIDE) % 128;
  if (pt >= 64 || r > 1) return -1;
  I = 1 - r;
  SR = r ? s1 : s0;
  XR = r ? X1 : X0;
  SI = r ? s0 : s1;
  XI = r ? X0 : X1;
  nfv = collide_poly_face(SR, face, nl, &d, fv);
  if (nfv < 3 || !collide_poly_vertex(SI, pt, vl)) return -1;
  pose_point(XI, vl, x);
  body_point(Jx, I, x, XI + 9);
  pose_dir(XR, nl, n);
  body_dir(Jn, r, n);
  for (i = 0; i < 3; i++) ql[i] = nl[i] * d;
  pose_point(XR, ql, q);
  body_point(Jq, r, q, XR + 9);
  v3_sub(x, q, rel);
  h = v3_dot(n, rel);
  j3_axpy(Jx, -1.0, Jq, Jr);
  row_dot(rel, Jn, Jh);
  row_dot(n, Jr, t);
  for (j = 0; j < NC; j++) Jh[j] += t[j];
  for (i = 0; i < 3; i++)
    for (j = 0; j < NC; j++) {
      Jp[i][j] = Jx[i][j] - 0.5 * n[i] * Jh[j] - 0.5 * h * Jn[i][j];
      Jnn[i][j] = r ? Jn[i][j] : -Jn[i][j];
    }
  for (j = 0; j < NC; j++) Jh[j] = -Jh[j];
  set7(J7, Jp, Jnn, Jh);
  /* near a side of the reference face: the vertex may leave it */
  pose_local_point(XR, x, xl);
  for (k = 0; k < nfv; k++) {
    double e[3], sn[3], len, rl[3];
    v3_sub(fv[(k + 1) % nfv], fv[k], e);
    v3_cross(e, nl, sn);
    len = v3_norm(sn);
    v3_sub(xl, fv[k], rl);
    if (len > 0.0 && v3_dot(sn, rl) / len > -band) kink = 1;
  }
  return kink;
}

static int is_poly(const diagc_shape *s) {
  return s->type == DIAGC_SHAPE_BOX || s->type == DIAGC_SHAPE_HULL;
}

/* The analytic pairs: J7 over canonical columns for contact c.  Returns 0,
 * 1 (kink) or -1 (the feature does not exist for the pair). */
static int analytic(const diagc_shape *s0, const double *X0, const diagc_shape *s1,
                    const double *X1, const diagc_contact *c, double band, jrow *J7) {
  jrow Jc[3];
  double x[3], r[3];
  int f = c->feature;
  switch (s0->type * 8 + s1->type) {
  case DIAGC_SHAPE_SPHERE * 8 + DIAGC_SHAPE_SPHERE: {
    jrow Jb[3];
    if (f != 0) return -1;
    body_point(Jc, 0, X0 + 9, X0 + 9);
    body_point(Jb, 1, X1 + 9, X1 + 9);
    return balls_d(X0 + 9, Jc, s0->size[0], X1 + 9, Jb, s1->size[0], J7);
  }
  case DIAGC_SHAPE_SPHERE * 8 + DIAGC_SHAPE_PLANE:
    if (f != 0) return -1;
    body_point(Jc, 0, X0 + 9, X0 + 9);
    ball_plane_d(X0 + 9, Jc, s0->size[0], X1, J7);
    return 0;
  case DIAGC_SHAPE_BOX * 8 + DIAGC_SHAPE_PLANE:
    if (f < 0 || f > 7) return -1;
    box_corner(s0->size, f, r);
    pose_point(X0, r, x);
    body_point(Jc, 0, x, X0 + 9);
    ball_plane_d(x, Jc, 0.0, X1, J7);
    return 0;
  case DIAGC_SHAPE_HULL * 8 + DIAGC_SHAPE_PLANE:
    /* vertex f on the plane (side 1): a point against a half-space */
    if (f < 0 || f >= s0->hull->nv) return -1;
    pose_point(X0, s0->hull->vert + 3 * f, x);
    body_point(Jc, 0, x, X0 + 9);
    ball_plane_d(x, Jc, 0.0, X1, J7);
    return 0;
  case DIAGC_SHAPE_CAPSULE * 8 + DIAGC_SHAPE_PLANE:
    if (f < 0 || f > 1) return -1;
    r[0] = r[1] = 0.0;
    r[2] = f ? s0->size[1] : -s0->size[1];
    pose_point(X0, r, x);
    body_point(Jc, 0, x, X0 + 9);
    ball_plane_d(x, Jc, s0->size[0], X1, J7);
    return 0;
  case DIAGC_SHAPE_SPHERE * 8 + DIAGC_SHAPE_BOX: {
    int sg[3];
    if (f < 0 || f > 26 || f == 13) return -1;
    sg[0] = f % 3 - 1;
    sg[1] = (f / 3) % 3 - 1;
    sg[2] = f / 9 - 1;
    return sphere_box_d(s0, X0, s1, X1, sg, band, J7);
  }
  case DIAGC_SHAPE_SPHERE * 8 + DIAGC_SHAPE_CAPSULE:
    if (f != 0) return -1;
    return sphere_capsule_d(s0, X0, s1, X1, band, J7);
  default:
    return -1;
  }
}

/* ---------------------------------------------------------------------
 * the general path */

/* The size of a shape (0 for a plane). */
static double extent(const diagc_shape *s) {
  switch (s->type) {
  case DIAGC_SHAPE_SPHERE:
    return s->size[0];
  case DIAGC_SHAPE_BOX: {
    double m = s->size[0] > s->size[1] ? s->size[0] : s->size[1];
    return m > s->size[2] ? m : s->size[2];
  }
  case DIAGC_SHAPE_CAPSULE:
    return s->size[0] + s->size[1];
  case DIAGC_SHAPE_HULL:
    return s->size[0];
  default:
    return 0.0;
  }
}

/* X moved by step h along twist direction i (0..2: rotation about world
 * axis i through the origin of the frame; 3..5: translation). */
static void perturb(const double *X, int i, double h, double *Y) {
  memcpy(Y, X, 12 * sizeof(double));
  if (i >= 3) {
    Y[9 + i - 3] += h;
  } else {
    /* Y.R = Rot(e_i, h) X.R: rows j, k (the other two axes) mix */
    int j = (i + 1) % 3, k = (i + 2) % 3, c;
    double cs = cos(h), sn = sin(h);
    for (c = 0; c < 3; c++) {
      double rj = X[3 * j + c], rk = X[3 * k + c];
      Y[3 * j + c] = cs * rj - sn * rk;
      Y[3 * k + c] = sn * rj + cs * rk;
    }
  }
}

/* Index of the occ-th contact (0-based) with this feature, or -1. */
static int find_feature(const diagc_contact *c, int n, int feature, int occ) {
  int i;
  for (i = 0; i < n; i++)
    if (c[i].feature == feature && occ-- == 0) return i;
  return -1;
}

static void contact7(const diagc_contact *c, double *f) {
  f[0] = c->point[0];
  f[1] = c->point[1];
  f[2] = c->point[2];
  f[3] = c->normal[0];
  f[4] = c->normal[1];
  f[5] = c->normal[2];
  f[6] = c->depth;
}

/* One difference column (direction i of side P, step h; the contacts
 * cp[0..np) moved by +h, cm[0..nm) by -h) of every contact k: central
 * differences, or one side's when the other lacks the feature or the two
 * one-sided differences disagree (kink[k] set).  L: the length unit. */
static void diff_column(const diagc_contact *con, int n, const diagc_contact *cp, int np,
                        const diagc_contact *cm, int nm, double h, int col, int rot, double L,
                        jrow (*J7)[R7], int *kink) {
  int k, r, j;
  for (k = 0; k < n; k++) {
    int occ = 0, ip, im;
    double f0[R7], fp[R7], fm[R7];
    for (j = 0; j < k; j++) occ += con[j].feature == con[k].feature;
    ip = find_feature(cp, np, con[k].feature, occ);
    im = find_feature(cm, nm, con[k].feature, occ);
    contact7(&con[k], f0);
    if (ip >= 0) contact7(&cp[ip], fp);
    if (im >= 0) contact7(&cm[im], fm);
    kink[k] |= ip < 0 || im < 0;
    for (r = 0; r < R7; r++) {
      double g = 0.0;
      if (ip >= 0 && im >= 0) {
        double gp = (fp[r] - f0[r]) / h, gm = (f0[r] - fm[r]) / h;
        /* in units of L: rows point, depth ~ L; columns v ~ L */
        double unit = (rot ? 1.0 : L) / ((r >= 3 && r < 6) ? 1.0 : L);
        double big = fabs(gp) > fabs(gm) ? fabs(gp) : fabs(gm);
        g = (fp[r] - fm[r]) / (2.0 * h);
        if (fabs(gp - gm) * unit > KINK_REL * big * unit + KINK_ABS) {
          kink[k] = 1;
          g = gp;
        }
      } else if (ip >= 0) {
        g = (fp[r] - f0[r]) / h;
      } else if (im >= 0) {
        g = (f0[r] - fm[r]) / h;
      }
      J7[k][r][col] = fin(g);
    }
  }
}

/* Side O's columns of contact c from side P's by the rigid-motion
 * identity: a common motion (omega, origin velocity v0 = vO - omega x pO)
 * moves point and normal rigidly and keeps the depth, and it is P's twist
 * (omega, vO + omega x (pP - pO)) on top of O's, so
 *   D_O,omega = rigid_omega - D_P,omega + D_P,v [pP - pO]x
 *   D_O,v     = rigid_v     - D_P,v. */
static void other_side(const diagc_contact *c, int P, const double *XP, const double *XO,
                       jrow *M) {
  int O = 1 - P, r, j, m;
  double dpo[3], X[3][3];
  jrow rig[3];
  v3_sub(XP + 9, XO + 9, dpo);
  for (j = 0; j < 3; j++) {
    double ej[3] = { 0.0, 0.0, 0.0 };
    ej[j] = 1.0;
    v3_cross(dpo, ej, X[j]); /* column j of [dpo]x */
  }
  for (r = 0; r < R7; r++)
    for (j = 0; j < 3; j++) {
      double s = 0.0;
      for (m = 0; m < 3; m++) s += M[r][6 * P + 3 + m] * X[j][m];
      M[r][6 * O + j] = -M[r][6 * P + j] + s;
      M[r][6 * O + 3 + j] = -M[r][6 * P + 3 + j];
    }
  body_point(rig, O, c->point, XO + 9);
  for (r = 0; r < 3; r++)
    for (j = 0; j < 6; j++) M[r][6 * O + j] += rig[r][6 * O + j];
  body_dir(rig, O, c->normal);
  for (r = 0; r < 3; r++)
    for (j = 0; j < 3; j++) M[3 + r][6 * O + j] += rig[r][6 * O + j];
}

/* J7 (user columns) of every contact by the general path; kink[k] set per
 * contact.  The side moved, P, is a unless a is a plane (whose origin may
 * be far from the contact); steps: STEP_REL of its size, STEP_REL rad. */
static void general(const diagc_shape *a, const double *Xa, const diagc_shape *b, const double *Xb,
                    double margin, const diagc_contact *con, int n, jrow (*J7)[R7], int *kink) {
  int P = a->type == DIAGC_SHAPE_PLANE ? 1 : 0, i, k;
  const double *XP = P ? Xb : Xa, *XO = P ? Xa : Xb;
  double L = extent(P ? b : a);
  diagc_contact cp[DIAGC_COLLIDE_MAX], cm[DIAGC_COLLIDE_MAX];
  if (!(L > 0.0) || !isfinite(L)) L = extent(P ? a : b);
  if (!(L > 0.0) || !isfinite(L)) L = 1.0;
  for (k = 0; k < n; k++) kink[k] = 0;
  for (i = 0; i < 6; i++) {
    double Y[12], h = i < 3 ? STEP_REL : STEP_REL * L;
    int np, nm;
    perturb(XP, i, h, Y);
    np = P ? diagc_collide(a, Xa, b, Y, margin, cp, DIAGC_COLLIDE_MAX)
           : diagc_collide(a, Y, b, Xb, margin, cp, DIAGC_COLLIDE_MAX);
    perturb(XP, i, -h, Y);
    nm = P ? diagc_collide(a, Xa, b, Y, margin, cm, DIAGC_COLLIDE_MAX)
           : diagc_collide(a, Y, b, Xb, margin, cm, DIAGC_COLLIDE_MAX);
    diff_column(con, n, cp, np, cm, nm, h, 6 * P + i, i < 3, L, J7, kink);
  }
  for (k = 0; k < n; k++) other_side(&con[k], P, XP, XO, J7[k]);
}

/* ---------------------------------------------------------------------
 * the contact frame's derivative and the output block */

/* Block rows (point, normal, t1, t2, depth) from J7 and the normal n:
 * t1 = s / |s|, s = e - (e.u) u (e = world x, or y when |u.x| >= the
 * frame's limit), u = n / |n|; t2 = u x t1.  Returns 1 at the switch. */
static int write_block(const double *n, jrow *J7, double *D) {
  double u[3], ilen, t1[3], s[3], islen, c, T1[3][NC], T2[3][NC];
  int e, i, j;
  ilen = 1.0 / v3_norm(n);
  for (i = 0; i < 3; i++) u[i] = n[i] * ilen;
  e = fabs(u[0]) < DIAGC_CONTACT_FRAME_X_MAX ? 0 : 1;
  c = u[e];
  for (i = 0; i < 3; i++) s[i] = (i == e ? 1.0 : 0.0) - c * u[i];
  islen = 1.0 / v3_norm(s);
  for (i = 0; i < 3; i++) t1[i] = s[i] * islen;
  for (j = 0; j < NC; j++) {
    double du[3], ds[3], dt1[3], un, tt;
    if (J7[3][j] == 0.0 && J7[4][j] == 0.0 && J7[5][j] == 0.0) { /* a fixed normal */
      for (i = 0; i < 3; i++) T1[i][j] = T2[i][j] = 0.0;
      continue;
    }
    un = u[0] * J7[3][j] + u[1] * J7[4][j] + u[2] * J7[5][j];
    for (i = 0; i < 3; i++) du[i] = (J7[3 + i][j] - u[i] * un) * ilen;
    for (i = 0; i < 3; i++) ds[i] = -du[e] * u[i] - c * du[i];
    tt = v3_dot(t1, ds);
    for (i = 0; i < 3; i++) dt1[i] = (ds[i] - t1[i] * tt) * islen;
    /* dt2 = du x t1 + u x dt1 */
    T2[0][j] = du[1] * t1[2] - du[2] * t1[1] + u[1] * dt1[2] - u[2] * dt1[1];
    T2[1][j] = du[2] * t1[0] - du[0] * t1[2] + u[2] * dt1[0] - u[0] * dt1[2];
    T2[2][j] = du[0] * t1[1] - du[1] * t1[0] + u[0] * dt1[1] - u[1] * dt1[0];
    for (i = 0; i < 3; i++) T1[i][j] = dt1[i];
  }
  for (i = 0; i < 6; i++)
    for (j = 0; j < NC; j++) D[i * NC + j] = fin(J7[i][j]);
  for (i = 0; i < 3; i++)
    for (j = 0; j < NC; j++) {
      D[(6 + i) * NC + j] = fin(T1[i][j]);
      D[(9 + i) * NC + j] = fin(T2[i][j]);
    }
  for (j = 0; j < NC; j++) D[12 * NC + j] = fin(J7[6][j]);
  return fabs(fabs(u[0]) - DIAGC_CONTACT_FRAME_X_MAX) < FRAME_BAND;
}

/* ---------------------------------------------------------------------
 * entry points */

static int shape_ok(const diagc_shape *s, const double *X) {
  int i;
  if (!s || !X || s->type < DIAGC_SHAPE_SPHERE || s->type > DIAGC_SHAPE_HULL) return 0;
  if (s->type == DIAGC_SHAPE_HULL && !collide_hull_ok(s->hull)) return 0;
  for (i = 0; i < 12; i++)
    if (!isfinite(X[i])) return 0;
  for (i = 0; i < 3; i++)
    if (!isfinite(s->size[i])) return 0;
  return 1;
}

static int args_ok(const diagc_shape *a, const double *Xa, const diagc_shape *b, const double *Xb,
                   double margin, const diagc_contact *con, int n, const double *D) {
  int k, i;
  if (!shape_ok(a, Xa) || !shape_ok(b, Xb) || !isfinite(margin)) return 0;
  if (n < 0 || n > diagc_collide_max(a->type, b->type)) return 0;
  if (n > 0 && (!con || !D)) return 0;
  for (k = 0; k < n; k++) {
    for (i = 0; i < 3; i++)
      if (!isfinite(con[k].point[i]) || !isfinite(con[k].normal[i])) return 0;
    if (!isfinite(con[k].depth) || !(v3_norm(con[k].normal) > 0.5)) return 0;
  }
  return 1;
}

static int tangent(const diagc_shape *a, const double *Xa, const diagc_shape *b, const double *Xb,
                   double margin, const diagc_contact *con, int n, double *D, int force_general) {
  jrow J7[DIAGC_COLLIDE_MAX][R7];
  int kink[DIAGC_COLLIDE_MAX], k, any = 0, swapped, use_general;
  const diagc_shape *s0, *s1;
  const double *X0, *X1;
  double L, band;
  if (!args_ok(a, Xa, b, Xb, margin, con, n, D)) return DIAGC_CONTACT_E_ARG;
  if (n == 0) return 0;
  swapped = collide_rank(a->type) > collide_rank(b->type);
  s0 = swapped ? b : a;
  s1 = swapped ? a : b;
  X0 = swapped ? Xb : Xa;
  X1 = swapped ? Xa : Xb;
  /* analytic: a sphere with anything but a hull, a box, capsule or
     hull (vertex) on a plane */
  use_general = force_general || !((s0->type == DIAGC_SHAPE_SPHERE && s1->type != DIAGC_SHAPE_HULL) ||
                                   s1->type == DIAGC_SHAPE_PLANE);
  L = extent(a) > extent(b) ? extent(a) : extent(b);
  band = STEP_REL * (L > 0.0 ? L : 1.0);
  if (!force_general && is_poly(s0) && is_poly(s1) &&
      (s0->type == DIAGC_SHAPE_HULL || s1->type == DIAGC_SHAPE_HULL)) {
    /* a hull with a box or hull: a vertex on the reference face
       analytically, every other contact by the general path */
    jrow T[R7];
    int need = 0, r, j;
    for (k = 0; k < n; k++) need |= vertex_face_d(s0, X0, s1, X1, con[k].feature, band, T) < 0;
    if (need) general(a, Xa, b, Xb, margin, con, n, J7, kink);
    for (k = 0; k < n; k++) {
      int st = vertex_face_d(s0, X0, s1, X1, con[k].feature, band, T);
      if (st < 0) continue;
      kink[k] = st | (con[k].depth + margin < band);
      for (r = 0; r < R7; r++)
        for (j = 0; j < NC; j++) {
          int jj = swapped ? (j + 6) % 12 : j;
          J7[k][r][jj] = (swapped && r >= 3 && r < 6) ? -T[r][j] : T[r][j];
        }
    }
  } else if (use_general) {
    general(a, Xa, b, Xb, margin, con, n, J7, kink);
  } else {
    for (k = 0; k < n; k++) {
      int r, j, st = analytic(s0, X0, s1, X1, &con[k], band, J7[k]);
      if (st < 0) return DIAGC_CONTACT_E_ARG;
      kink[k] = st | (con[k].depth + margin < band);
      if (swapped) {
        for (r = 0; r < R7; r++)
          for (j = 0; j < 6; j++) {
            double t = J7[k][r][j];
            J7[k][r][j] = J7[k][r][6 + j];
            J7[k][r][6 + j] = t;
          }
        for (r = 3; r < 6; r++)
          for (j = 0; j < NC; j++) J7[k][r][j] = -J7[k][r][j];
      }
    }
  }
  for (k = 0; k < n; k++) {
    kink[k] |= write_block(con[k].normal, J7[k], D + 13 * NC * k);
    any |= kink[k];
  }
  return any ? DIAGC_COLLIDE_KINK : 0;
}

int diagc_collide_tangent(const diagc_shape *a, const double Xa[12], const diagc_shape *b,
                          const double Xb[12], double margin, const diagc_contact *con, int n,
                          double *D) {
  return tangent(a, Xa, b, Xb, margin, con, n, D, 0);
}

int diagc_collide_tangent_general(const diagc_shape *a, const double Xa[12], const diagc_shape *b,
                                  const double Xb[12], double margin, const diagc_contact *con,
                                  int n, double *D) {
  return tangent(a, Xa, b, Xb, margin, con, n, D, 1);
}
