/* collide.c: the collision entry points of diagc/world.h (part 1):
 * diagc_collide (dispatch by pair type, either argument order, sort by
 * feature, trim to max_out), diagc_collide_max, diagc_contact_frame, the
 * shapes' bounding boxes and the sweep-and-prune broad phase.  The narrow
 * phase routines are in collide_box.c, collide_capsule.c and
 * collide_hull.c (with GJK and EPA in collide_gjk.c). */
#include <float.h>
#include <math.h>
#include <stddef.h>

#include "collide_internal.h"

typedef int (*pair_fn)(const diagc_shape *, const double *, const diagc_shape *, const double *,
                       double, diagc_contact *);

/* [rank_a][rank_b] for rank_a <= rank_b (collide_rank: sphere, box,
 * capsule, hull, plane); NULL: no contact. */
static const pair_fn pair_table[5][5] = {
  { collide_sphere_sphere, collide_sphere_box, collide_sphere_capsule, collide_sphere_hull,
    collide_sphere_plane },
  { NULL, collide_box_box, collide_box_capsule, collide_box_hull, collide_box_plane },
  { NULL, NULL, collide_capsule_capsule, collide_capsule_hull, collide_capsule_plane },
  { NULL, NULL, NULL, collide_hull_hull, collide_hull_plane },
  { NULL, NULL, NULL, NULL, NULL },
};

int collide_rank(int type) { return type == DIAGC_SHAPE_PLANE ? 4 : (type == DIAGC_SHAPE_HULL ? 3 : type - 1); }

static int shape_ok(const diagc_shape *s) {
  if (s->type < DIAGC_SHAPE_SPHERE || s->type > DIAGC_SHAPE_HULL) return 0;
  return s->type != DIAGC_SHAPE_HULL || collide_hull_ok(s->hull);
}

int diagc_collide_max(int type_a, int type_b) { return DIAGC_COLLIDE_MAX_FOR(type_a, type_b); }

static int finite_input(const diagc_shape *s, const double *X) {
  int i;
  for (i = 0; i < 12; i++)
    if (!isfinite(X[i])) return 0;
  for (i = 0; i < 3; i++)
    if (!isfinite(s->size[i])) return 0;
  return 1;
}

static int contact_finite(const diagc_contact *c) {
  int i;
  for (i = 0; i < 3; i++)
    if (!isfinite(c->point[i]) || !isfinite(c->normal[i])) return 0;
  return isfinite(c->depth);
}

/* Keeps the finite contacts within the margin, sorted by feature (stable). */
static int clean_and_sort(diagc_contact *c, int n, double margin) {
  int i, j, m = 0;
  for (i = 0; i < n; i++)
    if (contact_finite(&c[i]) && c[i].depth > -margin) c[m++] = c[i];
  for (i = 1; i < m; i++) {
    diagc_contact t = c[i];
    for (j = i; j > 0 && c[j - 1].feature > t.feature; j--) c[j] = c[j - 1];
    c[j] = t;
  }
  return m;
}

/* Copies the max_out deepest of c[0..n) (ties: the earlier) to out, in
 * their order; returns the count. */
static int keep_deepest(const diagc_contact *c, int n, diagc_contact *out, int max_out) {
  int i, j, m = 0;
  if (n <= max_out) {
    for (i = 0; i < n; i++) out[i] = c[i];
    return n;
  }
  for (i = 0; i < n; i++) {
    int rank = 0;
    for (j = 0; j < n; j++)
      if (c[j].depth > c[i].depth || (c[j].depth == c[i].depth && j < i)) rank++;
    if (rank < max_out) out[m++] = c[i];
  }
  return m;
}

int diagc_collide(const diagc_shape *a, const double Xa[12], const diagc_shape *b,
                  const double Xb[12], double margin, diagc_contact *out, int max_out) {
  diagc_contact buf[DIAGC_COLLIDE_MAX];
  const diagc_shape *s0 = a, *s1 = b;
  const double *X0 = Xa, *X1 = Xb;
  int swapped = 0, n, i;
  pair_fn fn;
  if (!a || !b || !Xa || !Xb || !out || max_out <= 0 || !isfinite(margin)) return 0;
  if (!shape_ok(a) || !shape_ok(b)) return 0;
  if (!finite_input(a, Xa) || !finite_input(b, Xb)) return 0;
  if (collide_rank(a->type) > collide_rank(b->type)) {
    s0 = b;
    s1 = a;
    X0 = Xb;
    X1 = Xa;
    swapped = 1;
  }
  fn = pair_table[collide_rank(s0->type)][collide_rank(s1->type)];
  if (!fn) return 0;
  n = fn(s0, X0, s1, X1, margin, buf);
  if (swapped)
    for (i = 0; i < n; i++) {
      buf[i].normal[0] = -buf[i].normal[0];
      buf[i].normal[1] = -buf[i].normal[1];
      buf[i].normal[2] = -buf[i].normal[2];
    }
  n = clean_and_sort(buf, n, margin);
  return keep_deepest(buf, n, out, max_out);
}

void diagc_contact_frame(const double n[3], double t1[3], double t2[3]) {
  double u[3] = { 0.0, 0.0, 1.0 }, len, c;
  int i;
  if (n && isfinite(n[0]) && isfinite(n[1]) && isfinite(n[2])) {
    u[0] = n[0];
    u[1] = n[1];
    u[2] = n[2];
    len = v3_normalize(u, 1e-300);
    if (!(len > 1e-300) || !isfinite(len)) {
      u[0] = 0.0;
      u[1] = 0.0;
      u[2] = 1.0;
    }
  }
  /* |u.x| < 0.9: |x - u u.x| >= 0.43; otherwise |u.y| <= 0.44 and
     |y - u u.y| >= 0.89: never degenerate */
  if (fabs(u[0]) < DIAGC_CONTACT_FRAME_X_MAX) {
    c = u[0];
    for (i = 0; i < 3; i++) t1[i] = (i == 0 ? 1.0 : 0.0) - c * u[i];
  } else {
    c = u[1];
    for (i = 0; i < 3; i++) t1[i] = (i == 1 ? 1.0 : 0.0) - c * u[i];
  }
  v3_normalize(t1, 0.0);
  v3_cross(u, t1, t2);
}

void collide_fallback_normal(const double *axis, double *n) {
  double t2[3];
  if (axis && v3_dot(axis, axis) > 0.0) {
    diagc_contact_frame(axis, n, t2);
  } else {
    n[0] = 0.0;
    n[1] = 0.0;
    n[2] = 1.0;
  }
}

/* ---------------------------------------------------------------------
 * Bounding boxes */

void diagc_shape_aabb(const diagc_shape *s, const double X[12], double margin, double aabb[6]) {
  double e[3] = { 0.0, 0.0, 0.0 }, c[3] = { X[9], X[10], X[11] };
  int i;
  switch (s->type) {
  case DIAGC_SHAPE_SPHERE:
    e[0] = e[1] = e[2] = s->size[0];
    break;
  case DIAGC_SHAPE_BOX:
    for (i = 0; i < 3; i++)
      e[i] = fabs(X[3 * i]) * s->size[0] + fabs(X[3 * i + 1]) * s->size[1] +
             fabs(X[3 * i + 2]) * s->size[2];
    break;
  case DIAGC_SHAPE_CAPSULE:
    for (i = 0; i < 3; i++) e[i] = fabs(X[3 * i + 2]) * s->size[1] + s->size[0];
    break;
  case DIAGC_SHAPE_HULL: {
    /* the vertices' extent along each world axis: only the vertices are
       read here, so only they are checked (their sum is not finite when
       one of them is not; the faces are checked where they are used) */
    double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX}, sum = 0.0;
    int k;
    if (!s->hull || !s->hull->vert || s->hull->nv < 4 || s->hull->nv > DIAGC_HULL_MAX_VERTICES) {
      for (i = 0; i < 3; i++) e[i] = s->size[0];
      break;
    }
    for (k = 0; k < s->hull->nv; k++) {
      const double *v = s->hull->vert + 3 * k;
      sum += v[0] + v[1] + v[2];
      for (i = 0; i < 3; i++) {
        double x = X[3 * i] * v[0] + X[3 * i + 1] * v[1] + X[3 * i + 2] * v[2];
        lo[i] = x < lo[i] ? x : lo[i];
        hi[i] = x > hi[i] ? x : hi[i];
      }
    }
    if (!isfinite(sum)) {
      for (i = 0; i < 3; i++) e[i] = s->size[0];
      break;
    }
    for (i = 0; i < 3; i++) {
      aabb[i] = c[i] + lo[i] - margin;
      aabb[3 + i] = c[i] + hi[i] + margin;
    }
    return;
  }
  case DIAGC_SHAPE_PLANE:
    for (i = 0; i < 3; i++) {
      /* the outward normal is column 2 of R */
      double nz = X[3 * i + 2];
      int other = (X[3 * ((i + 1) % 3) + 2] == 0.0) && (X[3 * ((i + 2) % 3) + 2] == 0.0);
      aabb[i] = -DBL_MAX;
      aabb[3 + i] = DBL_MAX;
      if (other && nz > 0.0) aabb[3 + i] = c[i] + margin;
      if (other && nz < 0.0) aabb[i] = c[i] - margin;
    }
    return;
  default:
    break;
  }
  for (i = 0; i < 3; i++) {
    aabb[i] = c[i] - e[i] - margin;
    aabb[3 + i] = c[i] + e[i] + margin;
  }
}

/* ---------------------------------------------------------------------
 * Sweep and prune */

static int pair_less(int a0, int a1, int b0, int b1) { return a0 < b0 || (a0 == b0 && a1 < b1); }

int diagc_broadphase_check_pairs(int nshapes, int npairs, const int *pairs) {
  int k, p0 = -1, p1 = -1;
  if (nshapes < 0 || npairs < 0 || (npairs > 0 && !pairs)) return 0;
  for (k = 0; k < npairs; k++) {
    int i = pairs[2 * k], j = pairs[2 * k + 1];
    int lo = i < j ? i : j, hi = i < j ? j : i;
    if (i < 0 || j < 0 || i >= nshapes || j >= nshapes || i == j) return 0;
    if (k > 0 && !pair_less(p0, p1, lo, hi)) return 0;
    p0 = lo;
    p1 = hi;
  }
  return 1;
}

/* Index of the candidate (lo, hi) in the sorted list, or -1. */
static int find_pair(int npairs, const int *pairs, int lo, int hi) {
  int a = 0, b = npairs - 1;
  while (a <= b) {
    int m = a + (b - a) / 2, i = pairs[2 * m], j = pairs[2 * m + 1];
    int mlo = i < j ? i : j, mhi = i < j ? j : i;
    if (mlo == lo && mhi == hi) return m;
    if (pair_less(mlo, mhi, lo, hi))
      a = m + 1;
    else
      b = m - 1;
  }
  return -1;
}

/* Heapsort of ints, ascending. */
static void sift_down(int *v, int root, int n) {
  for (;;) {
    int c = 2 * root + 1, t;
    if (c >= n) return;
    if (c + 1 < n && v[c + 1] > v[c]) c++;
    if (v[root] >= v[c]) return;
    t = v[root];
    v[root] = v[c];
    v[c] = t;
    root = c;
  }
}

static void sort_ints(int *v, int n) {
  int i, t;
  for (i = n / 2 - 1; i >= 0; i--) sift_down(v, i, n);
  for (i = n - 1; i > 0; i--) {
    t = v[0];
    v[0] = v[i];
    v[i] = t;
    sift_down(v, 0, i);
  }
}

/* ws[0..n): a permutation of the shapes (reset to the identity if not);
   ws[n..2n) scratch marks. */
static void order_check(int n, int *order, int *mark) {
  int k, ok = 1;
  for (k = 0; k < n; k++) mark[k] = 0;
  for (k = 0; k < n && ok; k++) {
    int o = order[k];
    if (o < 0 || o >= n || mark[o])
      ok = 0;
    else
      mark[o] = 1;
  }
  if (!ok)
    for (k = 0; k < n; k++) order[k] = k;
}

/* Insertion sort by (min x, index): near-linear on coherent scenes. */
static void order_sort(int n, int *order, const double *aabb) {
  int a, b;
  for (a = 1; a < n; a++) {
    int o = order[a];
    double x = aabb[6 * o];
    for (b = a; b > 0; b--) {
      int p = order[b - 1];
      double xp = aabb[6 * p];
      if (xp < x || (xp == x && p < o)) break;
      order[b] = p;
    }
    order[b] = o;
  }
}

static int overlap_yz(const double *u, const double *v) {
  return u[1] <= v[4] && v[1] <= u[4] && u[2] <= v[5] && v[2] <= u[5];
}

int diagc_broadphase(int nshapes, const double *aabb, int npairs, const int *pairs, int *ws,
                     int *out) {
  int a, b, count = 0;
  int *order = ws, *mark = ws ? ws + nshapes : NULL;
  if (nshapes < 0 || npairs < 0) return -1;
  if (nshapes == 0 || npairs == 0) return 0;
  if (!aabb || !pairs || !ws || !out) return -1;
  order_check(nshapes, order, mark);
  order_sort(nshapes, order, aabb);
  for (a = 0; a < nshapes; a++) {
    int i = order[a];
    const double *u = aabb + 6 * i;
    for (b = a + 1; b < nshapes; b++) {
      int j = order[b], k;
      const double *v = aabb + 6 * j;
      if (!(v[0] <= u[3])) break;
      if (!overlap_yz(u, v)) continue;
      k = find_pair(npairs, pairs, i < j ? i : j, i < j ? j : i);
      if (k >= 0 && count < npairs) out[count++] = k;
    }
  }
  sort_ints(out, count);
  return count;
}
