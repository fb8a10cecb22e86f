/* collide_hull.c: the narrow phase of the pairs with a convex hull
 * (DIAGC_SHAPE_HULL): hull-plane (every vertex within the margin),
 * sphere-hull, capsule-hull, box-hull and hull-hull.
 *
 * The normal and depth come from the cores' contact (collide_gjk.c: GJK,
 * EPA).  A polytope pair whose normal lies within FACE_COS of a face
 * normal gets a manifold by clipping the incident face against the
 * reference face's side planes (as box-box does, collide_box.c), with
 * feature ids from the vertices and edges involved; a capsule along a
 * face, its segment clipped to the face; otherwise one point.  At most
 * DIAGC_COLLIDE_MAX points: more are reduced to the deepest and then, in
 * turn, the farthest from those kept.
 *
 * No allocation: every buffer is on the stack, sized by
 * DIAGC_HULL_MAX_VERTICES. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "collide_internal.h"

#define MAXV DIAGC_HULL_MAX_VERTICES
#define MAXFV (6 * MAXV) /* face vertex entries: 3 (nf) <= 3 (2 nv) */

/* A face normal this close to the contact normal: a face contact. */
#define FACE_COS 0.999
/* The reference face grown by this fraction of the pair's size when
 * clipping (as collide_box.c's CLIP_GROW). */
#define CLIP_GROW 1e-6
#define CLIP_CAP (2 * MAXV + 8)

#define POINT_ONE COLLIDE_POINT_ONE /* the single point's feature id */

/* A hull the runtime can take: sizes within its buffers, indices in range. */
/* 1 when every one of the n doubles is finite: their products with 0 sum
 * to 0 (an infinity or a NaN makes a NaN), in four branch-free partial
 * sums; called for every hull on every step, so not one test per value. */
static int all_finite(const double *v, int n) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  int k;
  for (k = 0; k + 4 <= n; k += 4) {
    s0 += v[k] * 0.0;
    s1 += v[k + 1] * 0.0;
    s2 += v[k + 2] * 0.0;
    s3 += v[k + 3] * 0.0;
  }
  for (; k < n; k++) s0 += v[k] * 0.0;
  return (s0 + s1) + (s2 + s3) == 0.0;
}

int collide_hull_ok(const diagc_hull *h) {
  int k, bad = 0;
  if (!h || !h->vert || !h->plane || !h->face || !h->face_vert) return 0;
  if (h->nv < 4 || h->nv > MAXV || h->nf < 4 || h->nf > 2 * h->nv - 4) return 0;
  if (h->face[0] != 0 || h->face[h->nf] > MAXFV) return 0;
  for (k = 0; k < h->nf; k++) { /* each face 3 to nv vertices: branch-free */
    int d = h->face[k + 1] - h->face[k];
    bad |= (d < 3) | (d > h->nv);
  }
  for (k = 0; k < h->face[h->nf]; k++) bad |= (unsigned)h->face_vert[k] >= (unsigned)h->nv;
  return !bad && all_finite(h->vert, 3 * h->nv) && all_finite(h->plane, 4 * h->nf);
}

/* ---------------------------------------------------------------------
 * manifold reduction */

/* Keeps DIAGC_COLLIDE_MAX of c[0..n): the deepest (ties: the earlier),
 * then in turn the one farthest from those kept (ties: the earlier); in
 * their original order. */
static int reduce(diagc_contact *c, int n) {
  int keep[CLIP_CAP], i, j, m, best;
  double dmin[CLIP_CAP];
  diagc_contact t[CLIP_CAP];
  if (n <= DIAGC_COLLIDE_MAX) return n;
  for (i = 0; i < n; i++) keep[i] = 0;
  best = 0;
  for (i = 1; i < n; i++)
    if (c[i].depth > c[best].depth) best = i;
  keep[best] = 1;
  for (i = 0; i < n; i++) {
    double d[3];
    v3_sub(c[i].point, c[best].point, d);
    dmin[i] = v3_dot(d, d);
  }
  for (m = 1; m < DIAGC_COLLIDE_MAX; m++) {
    best = -1;
    for (i = 0; i < n; i++)
      if (!keep[i] && (best < 0 || dmin[i] > dmin[best])) best = i;
    keep[best] = 1;
    for (i = 0; i < n; i++) {
      double d[3], dd;
      v3_sub(c[i].point, c[best].point, d);
      dd = v3_dot(d, d);
      if (dd < dmin[i]) dmin[i] = dd;
    }
  }
  for (i = 0, j = 0; i < n; i++)
    if (keep[i]) t[j++] = c[i];
  for (i = 0; i < j; i++) c[i] = t[i];
  return j;
}

/* ---------------------------------------------------------------------
 * hull-plane */

int collide_hull_plane(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                       const double *Xb, double margin, diagc_contact *out) {
  diagc_contact found[MAXV];
  const diagc_hull *h = a->hull;
  double n[3];
  int k, m = 0;
  (void)b;
  pose_axis(Xb, 2, n);
  v3_normalize(n, 0.0);
  for (k = 0; k < h->nv; k++) {
    double w[3], rel[3], sb[3], hh;
    pose_point(Xa, h->vert + 3 * k, w);
    v3_sub(w, Xb + 9, rel);
    hh = v3_dot(n, rel);
    if (!(-hh > -margin)) continue;
    v3_axpy(w, -hh, n, sb);
    contact_set(&found[m++], n, w, sb, -hh, k);
  }
  m = reduce(found, m);
  for (k = 0; k < m; k++) out[k] = found[k];
  return m;
}

/* ---------------------------------------------------------------------
 * face clipping (polytope pairs) */

typedef struct {
  double x[3];
  int code;    /* point code (diagc/world.h, hull feature ids) */
  int carrier; /* the outgoing edge's line: incident edge from vertex v
                  (v >= 0), or -1 - s for reference side s */
} cvert;

/* The face of S whose outward normal is most along d (ties: the first). */
static int best_face(const collide_core *S, const double *d, double *c) {
  int k, best = 0;
  double bc = -DBL_MAX;
  for (k = 0; k < S->nf; k++) {
    double x = v3_dot(S->pl[k], d);
    if (x > bc) {
      bc = x;
      best = k;
    }
  }
  *c = bc;
  return best;
}

/* Clips the incident face of I against reference face rf of R (its
 * outward normal towards I); the contacts, normal n from b to a. */
static int clip_faces(const collide_core *R, int rf, const collide_core *I, int ref_is_b,
                      double margin, double scale, diagc_contact *out) {
  cvert poly[2][CLIP_CAP];
  diagc_contact found[CLIP_CAP];
  const double *nR = R->pl[rf];
  double c, grow = CLIP_GROW * scale;
  int inc, cur = 0, nv, s, i, nfound = 0;
  int r0 = R->face[rf], rn = R->face[rf + 1] - r0;
  double neg[3] = { -nR[0], -nR[1], -nR[2] };
  const double *n = ref_is_b ? nR : neg; /* from b to a */
  inc = best_face(I, neg, &c);
  nv = I->face[inc + 1] - I->face[inc];
  if (nv > CLIP_CAP) nv = CLIP_CAP;
  for (i = 0; i < nv; i++) {
    int v = I->fv[I->face[inc] + i];
    memcpy(poly[0][i].x, I->v[v], sizeof(double) * 3);
    poly[0][i].code = v;
    poly[0][i].carrier = v;
  }
  for (s = 0; s < rn && nv > 0; s++) {
    const double *p0 = R->v[R->fv[r0 + s]], *p1 = R->v[R->fv[r0 + (s + 1) % rn]];
    double e[3], sn[3], sd;
    int m = 0;
    const cvert *in = poly[cur];
    cvert *o = poly[1 - cur];
    v3_sub(p1, p0, e);
    v3_cross(e, nR, sn);
    if (!(v3_normalize(sn, 0.0) > 0.0)) continue;
    sd = v3_dot(sn, p0) + grow;
    for (i = 0; i < nv; i++) {
      const cvert *v = &in[i], *w = &in[(i + 1) % nv];
      double fv = v3_dot(sn, v->x) - sd, fw = v3_dot(sn, w->x) - sd;
      int vin = fv <= 0.0, win = fw <= 0.0;
      if (vin && m < CLIP_CAP) {
        o[m] = *v;
        if (!win && fv == 0.0) o[m].carrier = -1 - s;
        m++;
      }
      if (vin != win && ((vin && fv < 0.0) || (win && fw < 0.0)) && m < CLIP_CAP) {
        double t = fv / (fv - fw);
        int j;
        for (j = 0; j < 3; j++) o[m].x[j] = v->x[j] + t * (w->x[j] - v->x[j]);
        if (v->carrier >= 0) {
          o[m].code = 64 + 64 * v->carrier + (s < 63 ? s : 63);
        } else {
          /* two side planes meet: the reference face's vertex between them */
          int s0 = -1 - v->carrier, rv = (s0 + 1) % rn == s ? s : s0;
          o[m].code = 4160 + R->fv[r0 + rv];
        }
        o[m].carrier = vin ? -1 - s : v->carrier;
        m++;
      }
    }
    nv = m;
    cur = 1 - cur;
  }
  for (i = 0; i < nv; i++) {
    double *x = poly[cur][i].x, height = v3_dot(nR, x) - R->pl[rf][3], onref[3];
    int feat = (128 * ref_is_b + rf) * COLLIDE_PATCH_STRIDE + poly[cur][i].code;
    if (!(-height > -margin)) continue;
    v3_axpy(x, -height, nR, onref);
    if (ref_is_b)
      contact_set(&found[nfound], n, x, onref, -height, feat);
    else
      contact_set(&found[nfound], n, onref, x, -height, feat);
    nfound++;
  }
  nfound = reduce(found, nfound);
  for (i = 0; i < nfound; i++) out[i] = found[i];
  return nfound;
}

/* Area and centroid of face f of S. */
static double face_area(const collide_core *S, int f, double *c) {
  int f0 = S->face[f], n = S->face[f + 1] - f0, k;
  double s[3] = { 0.0, 0.0, 0.0 };
  c[0] = c[1] = c[2] = 0.0;
  for (k = 0; k < n; k++) {
    double x[3];
    const double *p = S->v[S->fv[f0 + k]], *q = S->v[S->fv[f0 + (k + 1) % n]];
    v3_cross(p, q, x);
    v3_axpy(s, 1.0, x, s);
    v3_axpy(c, 1.0 / n, p, c);
  }
  return 0.5 * fabs(v3_dot(s, S->pl[f]));
}

/* The reference face: the better aligned one; within 1e-4 (a face
 * resting on a face) the larger, then the one whose centroid is
 * lexicographically smaller: a choice that does not depend on the
 * argument order and holds while the faces rest on each other.  1: b's. */
static int ref_is_b(const collide_core *A, int fa, double ca, const collide_core *B, int fb,
                    double cb) {
  double xa[3], xb[3], aa, ab;
  int k;
  if (ca < FACE_COS) return 1;
  if (cb < FACE_COS) return 0;
  if (fabs(ca - cb) > 1e-4) return cb > ca;
  aa = face_area(A, fa, xa);
  ab = face_area(B, fb, xb);
  if (fabs(aa - ab) > 1e-9 * (aa + ab)) return ab > aa;
  for (k = 0; k < 3; k++)
    if (xa[k] != xb[k]) return xb[k] < xa[k];
  return 1;
}

/* ---------------------------------------------------------------------
 * the pairs */

/* One contact from the core witnesses. */
static int one_point(const collide_core *A, const collide_core *B, const double *n,
                     const double *pa, const double *pb, double core_depth, double margin,
                     int feature, diagc_contact *out) {
  double sa[3], sb[3], depth = core_depth + A->radius + B->radius;
  if (!(depth > -margin)) return 0;
  v3_axpy(pa, -A->radius, n, sa);
  v3_axpy(pb, B->radius, n, sb);
  contact_set(out, n, sa, sb, depth, feature);
  return 1;
}

/* A (sphere, capsule, box or hull) against the hull B. */
static int against_hull(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                        const double *Xb, double margin, diagc_contact *out) {
  collide_core A, B;
  double n[3], pa[3], pb[3], cd;
  collide_core_world(a, Xa, &A);
  collide_core_world(b, Xb, &B);
  collide_core_contact(&A, &B, n, pa, pb, &cd);
  if (!(cd + A.radius + B.radius > -margin)) return 0;
  if (a->type == DIAGC_SHAPE_SPHERE) return one_point(&A, &B, n, pa, pb, cd, margin, 0, out);
  if (a->type == DIAGC_SHAPE_CAPSULE) {
    /* along a face of B: the segment clipped to the face's prism, 2 points */
    double c, u[3], len;
    int f = best_face(&B, n, &c), m = 0, e;
    v3_sub(A.v[1], A.v[0], u);
    len = v3_norm(u);
    if (c >= FACE_COS && len > 0.0 && fabs(v3_dot(u, B.pl[f])) <= (1.0 - FACE_COS) * len) {
      double t0 = 0.0, t1 = 1.0;
      int f0 = B.face[f], fn = B.face[f + 1] - f0, s;
      for (s = 0; s < fn; s++) {
        const double *p0 = B.v[B.fv[f0 + s]], *p1 = B.v[B.fv[f0 + (s + 1) % fn]];
        double ed[3], sn[3], g0, g1;
        v3_sub(p1, p0, ed);
        v3_cross(ed, B.pl[f], sn);
        if (!(v3_normalize(sn, 0.0) > 0.0)) continue;
        g0 = v3_dot(sn, A.v[0]) - v3_dot(sn, p0);
        g1 = g0 + v3_dot(sn, u);
        if (g0 > 0.0 && g1 > 0.0) {
          t1 = -1.0;
          break;
        }
        if (g0 > 0.0) t0 = t0 > g0 / (g0 - g1) ? t0 : g0 / (g0 - g1);
        if (g1 > 0.0) t1 = t1 < g0 / (g0 - g1) ? t1 : g0 / (g0 - g1);
      }
      if (t1 >= t0) {
        for (e = 0; e < 2; e++) {
          double x[3], h, sa[3], sb[3], t = e ? t1 : t0;
          v3_axpy(A.v[0], t, u, x);
          h = v3_dot(B.pl[f], x) - B.pl[f][3] - A.radius;
          if (!(-h > -margin)) continue;
          v3_axpy(x, -A.radius, B.pl[f], sa);
          v3_axpy(sa, -h, B.pl[f], sb);
          contact_set(&out[m++], B.pl[f], sa, sb, -h, e);
        }
        if (m > 0) return m;
      }
    }
    return one_point(&A, &B, n, pa, pb, cd, margin, 2, out);
  }
  {
    /* polytopes: the face most along the normal on either side */
    double ca, cb, neg[3] = { -n[0], -n[1], -n[2] }, scale = A.size + B.size;
    int fa = best_face(&A, neg, &ca), fb = best_face(&B, n, &cb), m;
    if (ca >= FACE_COS || cb >= FACE_COS) {
      int ref_b = ref_is_b(&A, fa, ca, &B, fb, cb);
      m = ref_b ? clip_faces(&B, fb, &A, 1, margin, scale, out)
                : clip_faces(&A, fa, &B, 0, margin, scale, out);
      /* the patch holds the deepest point (else the nearest features lie
         off the reference face: one point) */
      if (m > 0) {
        double deepest = out[0].depth;
        int i;
        for (i = 1; i < m; i++) deepest = out[i].depth > deepest ? out[i].depth : deepest;
        if (deepest >= cd - 1e-9 * scale) return m;
      }
    }
    return one_point(&A, &B, n, pa, pb, cd, margin, POINT_ONE, out);
  }
}

int collide_sphere_hull(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                        const double *Xb, double margin, diagc_contact *out) {
  return against_hull(a, Xa, b, Xb, margin, out);
}

int collide_box_hull(const diagc_shape *a, const double *Xa, const diagc_shape *b, const double *Xb,
                     double margin, diagc_contact *out) {
  return against_hull(a, Xa, b, Xb, margin, out);
}

int collide_capsule_hull(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                         const double *Xb, double margin, diagc_contact *out) {
  return against_hull(a, Xa, b, Xb, margin, out);
}

int collide_hull_hull(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                      const double *Xb, double margin, diagc_contact *out) {
  return against_hull(a, Xa, b, Xb, margin, out);
}
