/* collide_box.c: the narrow phase of the pairs with a box: sphere-box
 * (closest point of the box, or the nearest face when the centre is
 * inside), box-plane (every corner within the margin), box-capsule
 * (closest points of the segment and the box, or a separating-axis test
 * when the segment enters the box; a capsule along a face gives its
 * segment clipped to the face) and box-box (separating-axis test over the
 * 15 axes, then the incident face clipped against the reference face, or
 * one edge-edge point). */
#include <math.h>

#include "collide_internal.h"

/* Face axes win over later candidates unless these are clearly better:
 * by this fraction of the current best separation plus a length tolerance
 * (keeps the reference face of a resting contact from flipping with
 * round-off). */
#define AXIS_BIAS_REL 0.05
#define AXIS_BIAS_ABS 1e-9

/* An edge-pair axis within acos(EDGE_FACE_COS) (2.6 degrees) of the chosen
 * face's normal never replaces it: for nearly parallel faces (a resting,
 * slightly tilted box) such an axis can separate a little better, yet the
 * clipped face polygon is the contact that holds the box. */
#define EDGE_FACE_COS 0.999

static double bias_tol(double best, double scale) {
  return AXIS_BIAS_REL * fabs(best) + AXIS_BIAS_ABS * scale;
}

/* Area (over 4) of the faces normal to axis k of a box. */
static double face_area(const double *h, int k) { return h[(k + 1) % 3] * h[(k + 2) % 3]; }

/* Local coordinates of box corner k (bit i set: +h_i). */
static void corner_local(const double *h, int k, double *r) {
  r[0] = (k & 1) ? h[0] : -h[0];
  r[1] = (k & 2) ? h[1] : -h[1];
  r[2] = (k & 4) ? h[2] : -h[2];
}

/* ---------------------------------------------------------------------
 * sphere-box */

int collide_sphere_box(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                       const double *Xb, double margin, diagc_contact *out) {
  const double *h = b->size;
  double c[3], q[3], nl[3], n[3], sa[3], sb[3], r = a->size[0], depth, dist;
  int sgn[3], i, outside = 0, k = 0;
  pose_local_point(Xb, Xa + 9, c);
  for (i = 0; i < 3; i++) {
    sgn[i] = c[i] > h[i] ? 1 : (c[i] < -h[i] ? -1 : 0);
    q[i] = clampd(c[i], -h[i], h[i]);
    outside |= sgn[i] != 0;
  }
  if (outside) {
    v3_sub(c, q, nl);
    dist = v3_normalize(nl, 0.0);
    if (!(dist > 0.0)) { /* underflow: the first outside face's normal */
      for (i = 2; i >= 0; i--)
        if (sgn[i]) k = i;
      nl[0] = nl[1] = nl[2] = 0.0;
      nl[k] = sgn[k];
    }
    depth = r - dist;
  } else {
    /* inside: the nearest face */
    double best = h[0] - fabs(c[0]);
    for (i = 1; i < 3; i++)
      if (h[i] - fabs(c[i]) < best) {
        best = h[i] - fabs(c[i]);
        k = i;
      }
    sgn[k] = c[k] >= 0.0 ? 1 : -1;
    nl[0] = nl[1] = nl[2] = 0.0;
    nl[k] = sgn[k];
    q[0] = c[0];
    q[1] = c[1];
    q[2] = c[2];
    q[k] = sgn[k] * h[k];
    depth = r + best;
  }
  if (!(depth > -margin)) return 0;
  pose_dir(Xb, nl, n);
  v3_axpy(Xa + 9, -r, n, sa);
  pose_point(Xb, q, sb);
  contact_set(out, n, sa, sb, depth, (sgn[0] + 1) + 3 * (sgn[1] + 1) + 9 * (sgn[2] + 1));
  return 1;
}

/* ---------------------------------------------------------------------
 * box-plane */

int collide_box_plane(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                      const double *Xb, double margin, diagc_contact *out) {
  double n[3], r[3], w[3], rel[3], sb[3], h;
  int k, m = 0;
  (void)b;
  pose_axis(Xb, 2, n);
  v3_normalize(n, 0.0);
  for (k = 0; k < 8; k++) {
    corner_local(a->size, k, r);
    pose_point(Xa, r, w);
    v3_sub(w, Xb + 9, rel);
    h = v3_dot(n, rel);
    if (!(-h > -margin)) continue;
    v3_axpy(w, -h, n, sb);
    contact_set(&out[m++], n, w, sb, -h, k);
  }
  return m;
}

/* ---------------------------------------------------------------------
 * box-capsule, in the box's frame */

/* Squared distance of local point p to the box [-h, h]; q: closest. */
static double point_box(const double *p, const double *h, double *q) {
  double d2 = 0.0;
  int i;
  for (i = 0; i < 3; i++) {
    q[i] = clampd(p[i], -h[i], h[i]);
    d2 += (p[i] - q[i]) * (p[i] - q[i]);
  }
  return d2;
}

/* The t in [0, 1] minimizing the distance of s0 + t u to the box.  The
 * squared distance is convex and piecewise quadratic in t, with pieces
 * separated where the segment crosses a face plane: minimize each piece. */
static double segment_box_t(const double *s0, const double *u, const double *h) {
  double ts[8], best_t = 0.0, best = -1.0, p[3], q[3];
  int n = 0, i, j, sg;
  ts[n++] = 0.0;
  for (i = 0; i < 3; i++)
    for (sg = -1; sg <= 1; sg += 2)
      if (u[i] != 0.0) {
        double t = (sg * h[i] - s0[i]) / u[i];
        if (t > 0.0 && t < 1.0) ts[n++] = t;
      }
  ts[n++] = 1.0;
  for (i = 1; i < n; i++) {
    double t = ts[i];
    for (j = i; j > 0 && ts[j - 1] > t; j--) ts[j] = ts[j - 1];
    ts[j] = t;
  }
  for (j = 0; j + 1 < n; j++) {
    double ta = ts[j], tb = ts[j + 1], tm = 0.5 * (ta + tb), A = 0.0, B = 0.0, t, d2;
    for (i = 0; i < 3; i++) {
      double x = s0[i] + tm * u[i], bound;
      if (x > h[i])
        bound = h[i];
      else if (x < -h[i])
        bound = -h[i];
      else
        continue;
      A += u[i] * u[i];
      B += 2.0 * u[i] * (s0[i] - bound);
    }
    t = A > 0.0 ? clampd(-B / (2.0 * A), ta, tb) : ta;
    v3_axpy(s0, t, u, p);
    d2 = point_box(p, h, q);
    if (best < 0.0 || d2 < best) {
      best = d2;
      best_t = t;
    }
  }
  return best_t;
}

/* The segment clipped to the slab |x_j| <= h_j of the two axes j != k:
 * [*t0, *t1]; returns 0 when empty. */
static int clip_to_face(const double *s0, const double *u, const double *h, int k, double *t0,
                        double *t1) {
  double lo = 0.0, hi = 1.0;
  int j;
  for (j = 0; j < 3; j++) {
    double a, b;
    if (j == k) continue;
    if (u[j] == 0.0) {
      if (fabs(s0[j]) > h[j]) return 0;
      continue;
    }
    a = (-h[j] - s0[j]) / u[j];
    b = (h[j] - s0[j]) / u[j];
    if (a > b) {
      double t = a;
      a = b;
      b = t;
    }
    lo = a > lo ? a : lo;
    hi = b < hi ? b : hi;
  }
  *t0 = lo;
  *t1 = hi;
  return lo <= hi;
}

/* Contacts of the capsule (local segment s0 + t u, radius r) against box
 * face k on side sg (outward normal sg e_k, pointing to the capsule).
 * Returns -1 when the segment does not lie over the face. */
static int capsule_on_face(const double *s0, const double *u, double r, const double *h, int k,
                           int sg, const double *Xb, double margin, diagc_contact *out) {
  double t0, t1, ts[2], nl[3] = { 0.0, 0.0, 0.0 }, n[3];
  int e, m = 0, ne;
  if (!clip_to_face(s0, u, h, k, &t0, &t1)) return -1;
  nl[k] = sg;
  pose_dir(Xb, nl, n);
  /* normal from the capsule (b) to the box (a) */
  n[0] = -n[0];
  n[1] = -n[1];
  n[2] = -n[2];
  ts[0] = t0;
  ts[1] = t1;
  /* one point when the clipped segment is (nearly) a point */
  ne = (t1 - t0) * v3_norm(u) > 1e-9 * (h[0] + h[1] + h[2]) ? 2 : 1;
  for (e = 0; e < ne; e++) {
    double x[3], onface[3], sa[3], sb[3], height, depth;
    v3_axpy(s0, ts[e], u, x);
    height = sg * x[k] - h[k];
    depth = r - height;
    if (!(depth > -margin)) continue;
    onface[0] = x[0];
    onface[1] = x[1];
    onface[2] = x[2];
    onface[k] = sg * h[k];
    pose_point(Xb, onface, sa);
    x[k] -= sg * r; /* the capsule's surface below the segment point */
    pose_point(Xb, x, sb);
    contact_set(&out[m++], n, sa, sb, depth, e);
  }
  return m;
}

/* Penetration of segment s0 + t u into the box: the axis (unit, local,
 * pointing from the box to the segment) of least push-out, *face = its
 * face index k, or -1 - k for the axis e_k x u; returns the push-out
 * distance. */
static double segment_box_sat(const double *s0, const double *u, const double *h, double *axis,
                              int *face) {
  double best = 0.0, s1[3], ulen = v3_norm(u), scale = h[0] + h[1] + h[2] + ulen;
  int k, have = 0;
  v3_axpy(s0, 1.0, u, s1);
  for (k = 0; k < 3; k++) {
    double m0 = s0[k] < s1[k] ? s0[k] : s1[k], m1 = s0[k] < s1[k] ? s1[k] : s0[k];
    double up = h[k] - m0, down = m1 + h[k], pen = up <= down ? up : down;
    if (!have || pen < best) {
      best = pen;
      *face = k;
      axis[0] = axis[1] = axis[2] = 0.0;
      axis[k] = up <= down ? 1.0 : -1.0;
      have = 1;
    }
  }
  for (k = 0; k < 3; k++) {
    double e[3] = { 0.0, 0.0, 0.0 }, L[3], rb, m, up, down, pen;
    e[k] = 1.0;
    v3_cross(e, u, L);
    if (!(v3_norm(L) > 1e-9 * ulen) || !(ulen > 0.0)) continue;
    v3_normalize(L, 0.0);
    rb = h[0] * fabs(L[0]) + h[1] * fabs(L[1]) + h[2] * fabs(L[2]);
    m = v3_dot(L, s0);
    up = rb - m;
    down = m + rb;
    pen = up <= down ? up : down;
    if (pen < best - bias_tol(best, scale)) {
      best = pen;
      *face = -1 - k;
      axis[0] = up <= down ? L[0] : -L[0];
      axis[1] = up <= down ? L[1] : -L[1];
      axis[2] = up <= down ? L[2] : -L[2];
    }
  }
  return best;
}

int collide_box_capsule(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                        const double *Xb, double margin, diagc_contact *out) {
  const double *h = a->size;
  double e0[3], e1[3], s0[3], s1[3], u[3], p[3], q[3], nl[3], n[3], sa[3], sb[3];
  double r = b->size[0], t, dist, depth, scale;
  int i, nout = 0, k = -1;
  capsule_ends(b, Xb, e0, e1);
  pose_local_point(Xa, e0, s0);
  pose_local_point(Xa, e1, s1);
  v3_sub(s1, s0, u);
  scale = h[0] + h[1] + h[2] + v3_norm(u) + r;
  t = segment_box_t(s0, u, h);
  v3_axpy(s0, t, u, p);
  dist = sqrt(point_box(p, h, q));
  if (!(r - dist > -margin)) return 0;
  if (dist > 1e-12 * scale) {
    /* outside: the closest points; a face region gives the face's normal */
    for (i = 0; i < 3; i++)
      if (fabs(p[i]) > h[i]) {
        k = nout ? k : i;
        nout++;
      }
    if (nout == 1) {
      int m = capsule_on_face(s0, u, r, h, k, p[k] > 0.0 ? 1 : -1, Xa, margin, out);
      if (m >= 0) return m;
    }
    v3_sub(p, q, nl);
    v3_normalize(nl, 0.0);
    depth = r - dist;
  } else {
    int face;
    double pen = segment_box_sat(s0, u, h, nl, &face), x0, x1;
    if (face >= 0) {
      int m = capsule_on_face(s0, u, r, h, face, nl[face] > 0.0 ? 1 : -1, Xa, margin, out);
      if (m >= 0) return m;
    }
    depth = pen + r;
    if (face < 0) {
      /* across the box edge along x_k nearest the capsule: the closest
         points of that edge and the segment (skew lines) */
      double c0[3], c1[3], s;
      int kk = -1 - face, j;
      for (j = 0; j < 3; j++) c0[j] = c1[j] = nl[j] >= 0.0 ? h[j] : -h[j];
      c0[kk] = -h[kk];
      c1[kk] = h[kk];
      collide_segments(s0, s1, c0, c1, &t, &s);
      v3_axpy(s0, t, u, p);
      for (j = 0; j < 3; j++) q[j] = c0[j] + s * (c1[j] - c0[j]);
    } else {
      /* the deepest end (or the middle) of the segment along -nl */
      x0 = v3_dot(nl, s0);
      x1 = v3_dot(nl, s1);
      t = x0 < x1 ? 0.0 : (x1 < x0 ? 1.0 : 0.5);
      v3_axpy(s0, t, u, p);
      v3_axpy(p, pen, nl, q); /* the box surface along nl */
    }
  }
  if (!(depth > -margin)) return 0;
  pose_dir(Xa, nl, n);
  for (i = 0; i < 3; i++) {
    sb[i] = p[i] - r * nl[i];
    n[i] = -n[i];
  }
  pose_point(Xa, q, sa);
  pose_point(Xa, sb, sb);
  contact_set(out, n, sa, sb, depth, 2);
  return 1;
}

/* ---------------------------------------------------------------------
 * box-box */

typedef struct {
  double x[3]; /* in the reference box's frame */
  int code;    /* point code (see diagc_collide's feature ids) */
  int carrier; /* the line of the outgoing edge: 0..3 incident face edge,
                  4..7 reference side plane */
} clip_vertex;

#define CLIP_CAP 16

/* The reference face is clipped against grown by this fraction of its
 * larger half extent: an incident corner on (or within round-off of) a
 * side plane, as in a stack of aligned boxes, stays a corner and keeps its
 * feature id instead of flickering between corner and crossing. */
#define CLIP_GROW 1e-6

/* Signed distance of x beyond reference side plane s (0: x_p >= -h_p,
 * 1: x_p <= h_p, 2: x_q >= -h_q, 3: x_q <= h_q), moved out by grow. */
static double side_f(const double *x, const double *h, int p, int q, int s, double grow) {
  int ax = s < 2 ? p : q;
  return ((s & 1) ? x[ax] - h[ax] : -x[ax] - h[ax]) - grow;
}

/* The point code of the crossing of an edge on `carrier` with plane s. */
static int cross_code(int carrier, int s) {
  int bp = 0, bq = 0;
  if (carrier < 4) return 8 + 4 * carrier + s;
  if (carrier - 4 == 1 || s == 1) bp = 1;
  if (carrier - 4 == 3 || s == 3) bq = 1;
  return 24 + bp + 2 * bq;
}

/* Sutherland-Hodgman against side plane s; returns the new count. */
static int clip_side(const clip_vertex *in, int n, clip_vertex *out, const double *h, int p,
                     int q, int s) {
  int i, m = 0;
  double grow = CLIP_GROW * (h[p] > h[q] ? h[p] : h[q]);
  for (i = 0; i < n; i++) {
    const clip_vertex *v = &in[i], *w = &in[(i + 1) % n];
    double fv = side_f(v->x, h, p, q, s, grow), fw = side_f(w->x, h, p, q, s, grow);
    int vin = fv <= 0.0, win = fw <= 0.0;
    if (vin && m < CLIP_CAP) {
      out[m] = *v;
      if (!win && fv == 0.0) out[m].carrier = 4 + s;
      m++;
    }
    if (vin != win && ((vin && fv < 0.0) || (win && fw < 0.0)) && m < CLIP_CAP) {
      double t = fv / (fv - fw);
      int j;
      for (j = 0; j < 3; j++) out[m].x[j] = v->x[j] + t * (w->x[j] - v->x[j]);
      out[m].code = cross_code(v->carrier, s);
      out[m].carrier = vin ? 4 + s : v->carrier;
      m++;
    }
  }
  return m;
}

/* Keeps the DIAGC_COLLIDE_MAX deepest of c[0..n) in place (ties: the
 * earlier), in their order. */
static int trim_deepest(diagc_contact *c, int n) {
  int i, j, m = 0;
  int keep[CLIP_CAP];
  if (n <= DIAGC_COLLIDE_MAX) return n;
  for (i = 0; i < n; i++) {
    int rank = 0;
    for (j = 0; j < n; j++)
      if (c[j].depth > c[i].depth || (c[j].depth == c[i].depth && j < i)) rank++;
    keep[i] = rank < DIAGC_COLLIDE_MAX;
  }
  for (i = 0; i < n; i++)
    if (keep[i]) c[m++] = c[i];
  return m;
}

/* Face contact: reference box (XR, hR) face k on side sg (outward normal
 * towards the incident box (XI, hI)); ref_is_a says which is a. */
static int box_face(const double *XR, const double *hR, const double *XI, const double *hI,
                    int k, int sg, int ref_is_a, int axis_code, double margin, double sep,
                    diagc_contact *out) {
  clip_vertex poly[2][CLIP_CAP];
  diagc_contact found[CLIP_CAP];
  double nR[3], n[3], best = -1.0;
  int m, im = 0, isg, u, v, e, s, cur = 0, nv = 4, nfound = 0, i, p = (k + 1) % 3,
         q = (k + 2) % 3;
  static const int cyc[4][2] = { { 0, 0 }, { 1, 0 }, { 1, 1 }, { 0, 1 } };
  if (p > q) {
    int t = p;
    p = q;
    q = t;
  }
  pose_axis(XR, k, nR);
  nR[0] *= sg;
  nR[1] *= sg;
  nR[2] *= sg;
  /* incident face: the face of I most anti-parallel to nR */
  for (m = 0; m < 3; m++) {
    double ax[3], c;
    pose_axis(XI, m, ax);
    c = fabs(v3_dot(ax, nR));
    if (c > best) {
      best = c;
      im = m;
    }
  }
  {
    double ax[3];
    pose_axis(XI, im, ax);
    isg = v3_dot(ax, nR) > 0.0 ? -1 : 1;
  }
  u = (im + 1) % 3;
  v = (im + 2) % 3;
  if (u > v) {
    int t = u;
    u = v;
    v = t;
  }
  for (e = 0; e < 4; e++) {
    int corner = (isg > 0 ? 1 << im : 0) | (cyc[e][0] << u) | (cyc[e][1] << v);
    double r[3], w[3];
    corner_local(hI, corner, r);
    pose_point(XI, r, w);
    pose_local_point(XR, w, poly[0][e].x);
    poly[0][e].code = corner;
    poly[0][e].carrier = e;
  }
  for (s = 0; s < 4 && nv > 0; s++) {
    nv = clip_side(poly[cur], nv, poly[1 - cur], hR, p, q, s);
    cur = 1 - cur;
  }
  for (i = 0; i < 3; i++) n[i] = ref_is_a ? -nR[i] : nR[i];
  for (i = 0; i < nv; i++) {
    double *x = poly[cur][i].x, height = sg * x[k] - hR[k], onref[3], w[3], wr[3];
    if (!(-height > -margin)) continue;
    onref[0] = x[0];
    onref[1] = x[1];
    onref[2] = x[2];
    onref[k] = sg * hR[k];
    pose_point(XR, x, w);
    pose_point(XR, onref, wr);
    if (ref_is_a)
      contact_set(&found[nfound], n, wr, w, -height, axis_code * 32 + poly[cur][i].code);
    else
      contact_set(&found[nfound], n, w, wr, -height, axis_code * 32 + poly[cur][i].code);
    nfound++;
  }
  if (nfound == 0 && sep < 0.0) {
    /* penetrating, yet nothing of the incident face lies over the
       reference face: one point at the incident box's deepest corner */
    int corner = 0;
    double r[3], w[3], wr[3];
    for (m = 0; m < 3; m++) {
      double ax[3];
      pose_axis(XI, m, ax);
      if (v3_dot(ax, nR) < 0.0) corner |= 1 << m;
    }
    corner_local(hI, corner, r);
    pose_point(XI, r, w);
    v3_axpy(w, -sep, nR, wr);
    if (ref_is_a)
      contact_set(&found[0], n, wr, w, -sep, axis_code * 32 + 31);
    else
      contact_set(&found[0], n, w, wr, -sep, axis_code * 32 + 31);
    nfound = 1;
  }
  nfound = trim_deepest(found, nfound);
  for (i = 0; i < nfound; i++) out[i] = found[i];
  return nfound;
}

/* Edge-edge contact along axis L (A's frame, unit, from A to B) between
 * A's edge along x_i and B's edge along x_j. */
static int box_edges(const double *Xa, const double *ha, const double *Xb, const double *hb,
                     int i, int j, const double *L, double sep, diagc_contact *out) {
  double Lw[3], ra[3], rb[3], a0[3], a1[3], b0[3], b1[3], n[3], pa[3], pb[3], s, t;
  int k, bits_a = 0, bits_b = 0, na = 0, nb = 0;
  pose_dir(Xa, L, Lw);
  for (k = 0; k < 3; k++) {
    if (k == i) {
      ra[k] = 0.0;
      continue;
    }
    ra[k] = L[k] >= 0.0 ? ha[k] : -ha[k];
    bits_a |= (L[k] >= 0.0) << na++;
  }
  for (k = 0; k < 3; k++) {
    double bk[3], c;
    if (k == j) {
      rb[k] = 0.0;
      continue;
    }
    pose_axis(Xb, k, bk);
    c = v3_dot(Lw, bk);
    rb[k] = c >= 0.0 ? -hb[k] : hb[k];
    bits_b |= (c < 0.0) << nb++;
  }
  ra[i] = -ha[i];
  pose_point(Xa, ra, a0);
  ra[i] = ha[i];
  pose_point(Xa, ra, a1);
  rb[j] = -hb[j];
  pose_point(Xb, rb, b0);
  rb[j] = hb[j];
  pose_point(Xb, rb, b1);
  collide_segments(a0, a1, b0, b1, &s, &t);
  v3_sub(a1, a0, a1);
  v3_sub(b1, b0, b1);
  v3_axpy(a0, s, a1, pa);
  v3_axpy(b0, t, b1, pb);
  n[0] = -Lw[0];
  n[1] = -Lw[1];
  n[2] = -Lw[2];
  contact_set(out, n, pa, pb, -sep, (12 + 3 * i + j) * 32 + bits_a + 4 * bits_b);
  return 1;
}

int collide_box_box(const diagc_shape *a, const double *Xa, const diagc_shape *b,
                    const double *Xb, double margin, diagc_contact *out) {
  const double *ha = a->size, *hb = b->size;
  double C[3][3], AC[3][3], d[3], dA[3], dB[3], best, scale = 0.0, bestL[3] = { 0, 0, 0 };
  double edge_best = 0.0, edgeL[3] = { 0, 0, 0 }, face_sep, nf[3];
  int i, j, kind = 0, bi = 0, have_edge = 0, ei = 0, ej = 0;
  for (i = 0; i < 3; i++) {
    scale = ha[i] > scale ? ha[i] : scale;
    scale = hb[i] > scale ? hb[i] : scale;
  }
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++) {
      C[i][j] = Xa[i] * Xb[j] + Xa[3 + i] * Xb[3 + j] + Xa[6 + i] * Xb[6 + j];
      AC[i][j] = fabs(C[i][j]);
    }
  v3_sub(Xb + 9, Xa + 9, d);
  pose_local_dir(Xa, d, dA);
  pose_local_dir(Xb, d, dB);
  /* the best face of A (kind 0) and of B (kind 1): the clearly better
     one, else the larger face, else A's -- the same choice for either
     argument order, and stable under round-off for a resting contact */
  {
    double sa = 0.0, sb = 0.0, tol;
    int ai = 0, bj = 0;
    for (i = 0; i < 3; i++) {
      double sep = fabs(dA[i]) - ha[i] - (hb[0] * AC[i][0] + hb[1] * AC[i][1] + hb[2] * AC[i][2]);
      if (sep > margin) return 0;
      if (i == 0 || sep > sa) {
        sa = sep;
        ai = i;
      }
    }
    for (j = 0; j < 3; j++) {
      double sep =
          fabs(dB[j]) - hb[j] - (ha[0] * AC[0][j] + ha[1] * AC[1][j] + ha[2] * AC[2][j]);
      if (sep > margin) return 0;
      if (j == 0 || sep > sb) {
        sb = sep;
        bj = j;
      }
    }
    best = sa > sb ? sa : sb;
    tol = bias_tol(best, scale);
    if (sb > sa + tol)
      kind = 1;
    else if (sa > sb + tol)
      kind = 0;
    else
      kind = face_area(hb, bj) > face_area(ha, ai) ? 1 : 0;
    bi = kind ? bj : ai;
    face_sep = kind ? sb : sa;
  }
  /* the chosen face's normal in A's frame */
  for (i = 0; i < 3; i++) nf[i] = kind ? C[i][bi] : (i == bi ? 1.0 : 0.0);
  /* edge pairs: L = x_i (A) cross x_j (B), in A's frame.  With (i, i1, i2)
     and (j, j1, j2) cyclic, L = C[i1][j] e_i2 - C[i2][j] e_i1; its
     projections on B's axes are L.b_m = e_i . (b_j x b_m) = +-C[i][k]
     (k the third index), so both radii come from |C| */
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++) {
      int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      double L[3], len, rA, rB, Ld, sep;
      L[i] = 0.0;
      L[i1] = -C[i2][j];
      L[i2] = C[i1][j];
      len = sqrt(L[i1] * L[i1] + L[i2] * L[i2]);
      if (!(len > 1e-6)) continue;
      rA = ha[i1] * AC[i2][j] + ha[i2] * AC[i1][j];
      rB = hb[j1] * AC[i][j2] + hb[j2] * AC[i][j1];
      Ld = L[i1] * dA[i1] + L[i2] * dA[i2];
      sep = (fabs(Ld) - rA - rB) / len;
      if (sep > margin) return 0;
      if (have_edge && !(sep > edge_best)) continue;
      L[i1] /= len;
      L[i2] /= len;
      if (fabs(v3_dot(L, nf)) >= EDGE_FACE_COS) continue;
      have_edge = 1;
      edge_best = sep;
      ei = i;
      ej = j;
      edgeL[0] = Ld < 0.0 ? -L[0] : L[0];
      edgeL[1] = Ld < 0.0 ? -L[1] : L[1];
      edgeL[2] = Ld < 0.0 ? -L[2] : L[2];
    }
  if (have_edge && edge_best > face_sep + bias_tol(face_sep, scale)) {
    face_sep = edge_best;
    kind = 2;
    bestL[0] = edgeL[0];
    bestL[1] = edgeL[1];
    bestL[2] = edgeL[2];
  }
  if (kind == 2) return box_edges(Xa, ha, Xb, hb, ei, ej, bestL, face_sep, out);
  if (kind == 0) {
    int sg = dA[bi] >= 0.0 ? 1 : -1;
    return box_face(Xa, ha, Xb, hb, bi, sg, 1, 2 * bi + (sg > 0), margin, face_sep, out);
  } else {
    int sg = -dB[bi] >= 0.0 ? 1 : -1;
    return box_face(Xb, hb, Xa, ha, bi, sg, 0, 6 + 2 * bi + (sg > 0), margin, face_sep, out);
  }
}
