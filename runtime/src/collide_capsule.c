/* collide_capsule.c: the narrow phase of the round shapes: closest points
 * of two segments, and sphere-sphere, sphere-capsule, sphere-plane,
 * capsule-capsule and capsule-plane (a capsule is the set of points within
 * its radius of its segment, so each pair reduces to closest points of
 * points and segments, then two balls). */
#include <math.h>

#include "collide_internal.h"

void collide_segments(const double *p0, const double *p1, const double *q0, const double *q1,
                      double *s_out, double *t_out) {
  double d1[3], d2[3], r[3], a, e, b, c, f, s = 0.0, t = 0.0, den;
  v3_sub(p1, p0, d1);
  v3_sub(q1, q0, d2);
  v3_sub(p0, q0, r);
  a = v3_dot(d1, d1);
  e = v3_dot(d2, d2);
  f = v3_dot(d2, r);
  if (!(a > 0.0) && !(e > 0.0)) {
    s = t = 0.0;
  } else if (!(a > 0.0)) {
    t = clampd(f / e, 0.0, 1.0);
  } else {
    c = v3_dot(d1, r);
    if (!(e > 0.0)) {
      s = clampd(-c / a, 0.0, 1.0);
    } else {
      b = v3_dot(d1, d2);
      den = a * e - b * b;
      /* not parallel: the unconstrained minimizer's s, clamped; parallel:
         any s minimizes along the shared direction, take 0 */
      s = den > 1e-12 * a * e ? clampd((b * f - c * e) / den, 0.0, 1.0) : 0.0;
      t = (b * s + f) / e;
      if (t < 0.0) {
        t = 0.0;
        s = clampd(-c / a, 0.0, 1.0);
      } else if (t > 1.0) {
        t = 1.0;
        s = clampd((b - c) / a, 0.0, 1.0);
      }
    }
  }
  *s_out = s;
  *t_out = t;
}

/* Two balls (centre ca, radius ra; cb, rb): one contact when within the
 * margin; fallback is the normal used when the centres coincide. */
static int balls(const double *ca, double ra, const double *cb, double rb, const double *fallback,
                 double margin, int feature, diagc_contact *out) {
  double n[3], sa[3], sb[3], dist, depth;
  v3_sub(ca, cb, n);
  dist = v3_norm(n);
  depth = ra + rb - dist;
  if (!(depth > -margin)) return 0;
  if (dist > 1e-14 * (ra + rb) && dist > 0.0) {
    n[0] /= dist;
    n[1] /= dist;
    n[2] /= dist;
  } else {
    n[0] = fallback[0];
    n[1] = fallback[1];
    n[2] = fallback[2];
  }
  v3_axpy(ca, -ra, n, sa);
  v3_axpy(cb, rb, n, sb);
  contact_set(out, n, sa, sb, depth, feature);
  return 1;
}

int collide_sphere_sphere(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                          const double *Xb, double margin, diagc_contact *out) {
  double up[3];
  collide_fallback_normal(NULL, up);
  return balls(Xa + 9, a->size[0], Xb + 9, b->size[0], up, margin, 0, out);
}

int collide_sphere_capsule(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                           const double *Xb, double margin, diagc_contact *out) {
  double e0[3], e1[3], d[3], w[3], q[3], axis[3], fb[3], dd, t = 0.0;
  capsule_ends(b, Xb, e0, e1);
  v3_sub(e1, e0, d);
  v3_sub(Xa + 9, e0, w);
  dd = v3_dot(d, d);
  if (dd > 0.0) t = clampd(v3_dot(w, d) / dd, 0.0, 1.0);
  v3_axpy(e0, t, d, q);
  pose_axis(Xb, 2, axis);
  collide_fallback_normal(axis, fb);
  return balls(Xa + 9, a->size[0], q, b->size[0], fb, margin, 0, out);
}

/* A ball (centre c, radius r) against half-space b. */
static int ball_plane(const double *c, double r, const double *Xb, double margin, int feature,
                      diagc_contact *out) {
  double n[3], rel[3], sa[3], sb[3], h, depth;
  pose_axis(Xb, 2, n);
  v3_normalize(n, 0.0);
  v3_sub(c, Xb + 9, rel);
  h = v3_dot(n, rel);
  depth = r - h;
  if (!(depth > -margin)) return 0;
  v3_axpy(c, -r, n, sa);
  v3_axpy(c, -h, n, sb);
  contact_set(out, n, sa, sb, depth, feature);
  return 1;
}

int collide_sphere_plane(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                         const double *Xb, double margin, diagc_contact *out) {
  (void)b;
  return ball_plane(Xa + 9, a->size[0], Xb, margin, 0, out);
}

int collide_capsule_plane(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                          const double *Xb, double margin, diagc_contact *out) {
  double e0[3], e1[3];
  int n;
  (void)b;
  capsule_ends(a, Xa, e0, e1);
  n = ball_plane(e0, a->size[0], Xb, margin, 0, out);
  if (a->size[1] > 0.0) /* a zero-length capsule is one ball */
    n += ball_plane(e1, a->size[0], Xb, margin, 1, out + n);
  return n;
}

/* Parallel segments overlapping along their direction: the two ends of the
 * overlap (on a's segment), each against its closest point on b's; 0 when
 * they do not overlap (then the general case applies). */
static int capsules_parallel(const double *a0, const double *a1, double ra, const double *b0,
                             const double *b1, double rb, const double *fb, double margin,
                             diagc_contact *out) {
  double da[3], db[3], w[3], aa, bb, u0, u1, lo, hi, ends[2];
  int k, n = 0;
  v3_sub(a1, a0, da);
  v3_sub(b1, b0, db);
  aa = v3_dot(da, da);
  bb = v3_dot(db, db);
  v3_sub(b0, a0, w);
  u0 = v3_dot(w, da) / aa;
  v3_sub(b1, a0, w);
  u1 = v3_dot(w, da) / aa;
  lo = u0 < u1 ? u0 : u1;
  hi = u0 < u1 ? u1 : u0;
  lo = lo > 0.0 ? lo : 0.0;
  hi = hi < 1.0 ? hi : 1.0;
  if (!(hi - lo > 1e-9)) return -1;
  ends[0] = lo;
  ends[1] = hi;
  for (k = 0; k < 2; k++) {
    double pa[3], qb[3], t;
    v3_axpy(a0, ends[k], da, pa);
    v3_sub(pa, b0, w);
    t = clampd(v3_dot(w, db) / bb, 0.0, 1.0);
    v3_axpy(b0, t, db, qb);
    n += balls(pa, ra, qb, rb, fb, margin, k, out + n);
  }
  return n;
}

int collide_capsule_capsule(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                            const double *Xb, double margin, diagc_contact *out) {
  double a0[3], a1[3], b0[3], b1[3], da[3], db[3], cr[3], fb[3], pa[3], qb[3], cd[3], s, t;
  double ra = a->size[0], rb = b->size[0], aa, bb, crr;
  int n;
  capsule_ends(a, Xa, a0, a1);
  capsule_ends(b, Xb, b0, b1);
  v3_sub(a1, a0, da);
  v3_sub(b1, b0, db);
  aa = v3_dot(da, da);
  bb = v3_dot(db, db);
  v3_cross(da, db, cr);
  crr = v3_dot(cr, cr);
  /* fallback normal when the segments meet: across both, towards a */
  if (crr > 1e-12 * aa * bb && v3_normalize(cr, 0.0) > 0.0) {
    fb[0] = cr[0];
    fb[1] = cr[1];
    fb[2] = cr[2];
  } else {
    double axis[3];
    pose_axis(Xa, 2, axis);
    collide_fallback_normal(axis, fb);
  }
  v3_sub(Xa + 9, Xb + 9, cd);
  if (v3_dot(fb, cd) < 0.0) {
    fb[0] = -fb[0];
    fb[1] = -fb[1];
    fb[2] = -fb[2];
  }
  if (aa > 0.0 && bb > 0.0 && crr <= 1e-6 * aa * bb) {
    n = capsules_parallel(a0, a1, ra, b0, b1, rb, fb, margin, out);
    if (n >= 0) return n;
  }
  collide_segments(a0, a1, b0, b1, &s, &t);
  v3_axpy(a0, s, da, pa);
  v3_axpy(b0, t, db, qb);
  return balls(pa, ra, qb, rb, fb, margin, 2, out);
}
