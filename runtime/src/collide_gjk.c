/* collide_gjk.c: convex cores and their contact, for the hull pairs
 * (collide_hull.c; diagc/world.h part 1).
 *
 * A shape becomes a core in world (collide_core_world: a sphere's centre,
 * a capsule's segment, a box's or hull's vertices with their faces) plus
 * a radius.  collide_core_contact gives the normal, witness points and
 * depth of two cores: GJK for their distance (the closest point of each
 * simplex from its subsets' affine minima: no division by a vanishing
 * determinant; bounded iterations); when they overlap, EPA on their
 * Minkowski difference for the least penetration (a start polytope of
 * the GJK simplex and 14 supports, expanded with tracked neighbours;
 * bounded points, faces and iterations; a face without a normal is never
 * chosen); if EPA cannot proceed, the separating axis over the
 * polytopes' face normals.  The normal is always a unit vector.
 *
 * No allocation: every buffer is on the stack. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "collide_internal.h"

#define MAXV DIAGC_HULL_MAX_VERTICES

/* GJK and EPA iteration bounds and tolerances (relative to the pair's size) */
#define GJK_ITERS 64
#define GJK_REL 1e-18 /* squared: a distance within 1e-9 of the size is contact */
#define EPA_ITERS 64
#define EPA_VERTS 96
#define EPA_FACES 384
#define EPA_REL 1e-10

/* a box's faces, face 2i + (outward along +x_i), counter-clockwise from
   outside, by corner index */
static const int box_faces[6][4] = {
  { 0, 4, 6, 2 }, { 1, 3, 7, 5 }, { 0, 1, 5, 4 }, { 2, 6, 7, 3 }, { 0, 2, 3, 1 }, { 4, 5, 7, 6 },
};

void collide_core_world(const diagc_shape *s, const double *X, collide_core *w) {
  int i, k;
  w->poly = 0;
  w->nf = 0;
  w->radius = 0.0;
  switch (s->type) {
  case DIAGC_SHAPE_SPHERE:
    w->nv = 1;
    memcpy(w->v[0], X + 9, sizeof w->v[0]);
    w->radius = s->size[0];
    w->size = s->size[0];
    return;
  case DIAGC_SHAPE_CAPSULE:
    w->nv = 2;
    capsule_ends(s, X, w->v[0], w->v[1]);
    w->radius = s->size[0];
    w->size = s->size[0] + s->size[1];
    return;
  case DIAGC_SHAPE_BOX:
    w->nv = 8;
    w->nf = 6;
    w->poly = 1;
    for (k = 0; k < 8; k++) {
      double r[3];
      r[0] = (k & 1) ? s->size[0] : -s->size[0];
      r[1] = (k & 2) ? s->size[1] : -s->size[1];
      r[2] = (k & 4) ? s->size[2] : -s->size[2];
      pose_point(X, r, w->v[k]);
    }
    for (k = 0; k < 6; k++) {
      double nl[3] = { 0.0, 0.0, 0.0 };
      nl[k / 2] = (k & 1) ? 1.0 : -1.0;
      pose_dir(X, nl, w->pl[k]);
      w->pl[k][3] = v3_dot(w->pl[k], w->v[box_faces[k][0]]);
      w->face[k] = 4 * k;
      for (i = 0; i < 4; i++) w->fv[4 * k + i] = box_faces[k][i];
    }
    w->face[6] = 24;
    w->size = s->size[0] + s->size[1] + s->size[2];
    return;
  default: { /* hull (checked by hull_ok) */
    const diagc_hull *h = s->hull;
    w->nv = h->nv;
    w->nf = h->nf;
    w->poly = 1;
    for (k = 0; k < h->nv; k++) pose_point(X, h->vert + 3 * k, w->v[k]);
    for (k = 0; k < h->nf; k++) {
      double d;
      pose_dir(X, h->plane + 4 * k, w->pl[k]);
      /* d' = n'.(R x + p) = d + n'.p */
      d = h->plane[4 * k + 3] + v3_dot(w->pl[k], X + 9);
      w->pl[k][3] = d;
    }
    for (k = 0; k <= h->nf; k++) w->face[k] = h->face[k];
    for (k = 0; k < h->face[h->nf]; k++) w->fv[k] = h->face_vert[k];
    w->size = 2.0 * s->size[0];
    return;
  }
  }
}

int collide_poly_vertex(const diagc_shape *s, int k, double *r) {
  if (s->type == DIAGC_SHAPE_BOX) {
    if (k < 0 || k > 7) return 0;
    r[0] = (k & 1) ? s->size[0] : -s->size[0];
    r[1] = (k & 2) ? s->size[1] : -s->size[1];
    r[2] = (k & 4) ? s->size[2] : -s->size[2];
    return 1;
  }
  if (s->type != DIAGC_SHAPE_HULL || k < 0 || k >= s->hull->nv) return 0;
  memcpy(r, s->hull->vert + 3 * k, 3 * sizeof(double));
  return 1;
}

int collide_poly_face(const diagc_shape *s, int f, double *nl, double *d, double (*v)[3]) {
  int k, n;
  if (s->type == DIAGC_SHAPE_BOX) {
    if (f < 0 || f > 5) return 0;
    nl[0] = nl[1] = nl[2] = 0.0;
    nl[f / 2] = (f & 1) ? 1.0 : -1.0;
    *d = s->size[f / 2];
    for (k = 0; k < 4; k++) collide_poly_vertex(s, box_faces[f][k], v[k]);
    return 4;
  }
  if (s->type != DIAGC_SHAPE_HULL || f < 0 || f >= s->hull->nf) return 0;
  memcpy(nl, s->hull->plane + 4 * f, 3 * sizeof(double));
  *d = s->hull->plane[4 * f + 3];
  n = s->hull->face[f + 1] - s->hull->face[f];
  for (k = 0; k < n; k++) collide_poly_vertex(s, s->hull->face_vert[s->hull->face[f] + k], v[k]);
  return n;
}

/* Support: the vertex farthest along d (ties: the lowest index). */
int collide_core_support(const collide_core *w, const double *d) {
  int i, best = 0;
  double bd = v3_dot(w->v[0], d);
  for (i = 1; i < w->nv; i++) {
    double x = v3_dot(w->v[i], d);
    if (x > bd) {
      bd = x;
      best = i;
    }
  }
  return best;
}

/* ---------------------------------------------------------------------
 * GJK */

typedef struct {
  double w[3]; /* a_i - b_j */
  int ia, ib;
} spt;

/* The point of the affine hull of s[idx[0..m)] nearest the origin, as
 * weights lam; 0 if the points are affinely dependent. */
static int affine_min(const spt *s, const int *idx, int m, double *lam) {
  double G[3][4], e[3][3];
  int i, j, r, c;
  if (m == 1) {
    lam[0] = 1.0;
    return 1;
  }
  /* minimize |w0 + sum_k t_k e_k|: (e_i.e_j) t = -(e_i.w0) */
  for (i = 0; i < m - 1; i++) v3_sub(s[idx[i + 1]].w, s[idx[0]].w, e[i]);
  for (i = 0; i < m - 1; i++) {
    for (j = 0; j < m - 1; j++) G[i][j] = v3_dot(e[i], e[j]);
    G[i][m - 1] = -v3_dot(e[i], s[idx[0]].w);
  }
  /* Gaussian elimination with partial pivoting */
  for (c = 0; c < m - 1; c++) {
    int p = c;
    double scale = 0.0;
    for (r = 0; r < m - 1; r++) scale = fabs(G[r][r]) > scale ? fabs(G[r][r]) : scale;
    for (r = c + 1; r < m - 1; r++)
      if (fabs(G[r][c]) > fabs(G[p][c])) p = r;
    if (!(fabs(G[p][c]) > 1e-13 * scale) || !(scale > 0.0)) return 0;
    if (p != c)
      for (j = 0; j < m; j++) {
        double t = G[c][j];
        G[c][j] = G[p][j];
        G[p][j] = t;
      }
    for (r = c + 1; r < m - 1; r++) {
      double f = G[r][c] / G[c][c];
      for (j = c; j < m; j++) G[r][j] -= f * G[c][j];
    }
  }
  for (r = m - 2; r >= 0; r--) {
    double x = G[r][m - 1];
    for (j = r + 1; j < m - 1; j++) x -= G[r][j] * lam[j + 1];
    lam[r + 1] = x / G[r][r];
  }
  lam[0] = 1.0;
  for (i = 1; i < m; i++) lam[0] -= lam[i];
  return 1;
}

/* The point of the simplex s[0..n) nearest the origin: the best of its
 * faces whose affine minimum has nonnegative weights.  Keeps only the
 * points of that face (in order) and their weights; returns the new count
 * (n with the origin inside a tetrahedron), writes v. */
static int simplex_closest(spt *s, int n, double *lam_out, double *v) {
  int mask, best_mask = 1, k, pass;
  double best = DBL_MAX, best_lam[4] = { 1.0, 0.0, 0.0, 0.0 };
  /* the faces holding the newest point (s[n - 1]: the nearest face holds
     it whenever the support made progress), then, if none is valid (round
     off), every face */
  for (pass = 0; pass < 2 && best == DBL_MAX; pass++)
    for (mask = 1; mask < (1 << n); mask++) {
      int idx[4], m = 0, ok = 1;
      double lam[4], p[3] = { 0.0, 0.0, 0.0 }, d2;
      if (pass == 0 && !(mask & (1 << (n - 1)))) continue;
      for (k = 0; k < n; k++)
        if (mask & (1 << k)) idx[m++] = k;
      if (!affine_min(s, idx, m, lam)) continue;
      /* nonnegative weights, within round-off (a point on an edge must not
         fall back to a vertex) */
      for (k = 0; k < m; k++) ok &= lam[k] >= -1e-12;
      if (!ok) continue;
      for (k = 0; k < m; k++) lam[k] = lam[k] < 0.0 ? 0.0 : lam[k];
      for (k = 0; k < m; k++) v3_axpy(p, lam[k], s[idx[k]].w, p);
      d2 = v3_dot(p, p);
      if (d2 < best) {
        best = d2;
        best_mask = mask;
        for (k = 0; k < m; k++) best_lam[k] = lam[k];
        memcpy(v, p, sizeof p);
      }
    }
  if (best == DBL_MAX) { /* nothing valid (cannot happen for m = 1) */
    memcpy(v, s[0].w, 3 * sizeof(double));
    best_mask = 1;
  }
  {
    spt t[4];
    int m = 0;
    for (k = 0; k < n; k++)
      if (best_mask & (1 << k)) t[m++] = s[k];
    for (k = 0; k < m; k++) {
      s[k] = t[k];
      lam_out[k] = best_lam[k];
    }
    return m;
  }
}

typedef struct {
  spt s[4];
  int n;
  double lam[4];
  double v[3]; /* closest point of the Minkowski difference */
  int overlap; /* the origin is inside (or within tolerance of) it */
} gjk_out;

static void gjk(const collide_core *A, const collide_core *B, double scale, gjk_out *g) {
  double d[3], tol = GJK_REL * scale * scale;
  int it;
  g->n = 1;
  g->s[0].ia = 0;
  g->s[0].ib = 0;
  v3_sub(A->v[0], B->v[0], g->s[0].w);
  g->lam[0] = 1.0;
  memcpy(g->v, g->s[0].w, sizeof g->v);
  g->overlap = 0;
  for (it = 0; it < GJK_ITERS; it++) {
    spt w;
    double vv = v3_dot(g->v, g->v);
    int k, dup = 0;
    if (vv <= tol) {
      g->overlap = 1;
      return;
    }
    d[0] = -g->v[0];
    d[1] = -g->v[1];
    d[2] = -g->v[2];
    w.ia = collide_core_support(A, d);
    w.ib = collide_core_support(B, g->v);
    v3_sub(A->v[w.ia], B->v[w.ib], w.w);
    /* no progress: v is the closest point */
    if (vv - v3_dot(g->v, w.w) <= 1e-12 * vv) return;
    for (k = 0; k < g->n; k++) dup |= g->s[k].ia == w.ia && g->s[k].ib == w.ib;
    if (dup) return;
    g->s[g->n++] = w;
    g->n = simplex_closest(g->s, g->n, g->lam, g->v);
    if (g->n == 4) {
      g->overlap = 1;
      return;
    }
  }
}

/* ---------------------------------------------------------------------
 * EPA */

typedef struct {
  int v[3];   /* counter-clockwise from outside */
  int adj[3]; /* the face across edge v[j] -> v[j + 1] */
  double n[3], d;
  int alive;
} epa_face;

typedef struct {
  spt p[EPA_VERTS];
  int np;
  epa_face f[EPA_FACES];
  int nf; /* faces made (alive or not): the buffer is never compacted */
} epa_poly;

static int epa_add_face(epa_poly *P, int a, int b, int c) {
  epa_face *f;
  double e1[3], e2[3], len;
  if (P->nf >= EPA_FACES) return -1;
  f = &P->f[P->nf];
  f->v[0] = a;
  f->v[1] = b;
  f->v[2] = c;
  f->adj[0] = f->adj[1] = f->adj[2] = -1;
  v3_sub(P->p[b].w, P->p[a].w, e1);
  v3_sub(P->p[c].w, P->p[a].w, e2);
  v3_cross(e1, e2, f->n);
  len = v3_norm(f->n);
  f->alive = 1;
  if (len > 0.0 && isfinite(len)) {
    f->n[0] /= len;
    f->n[1] /= len;
    f->n[2] /= len;
    f->d = v3_dot(f->n, P->p[a].w);
  } else {
    f->n[0] = f->n[1] = 0.0;
    f->n[2] = 1.0;
    f->d = DBL_MAX; /* never the nearest */
  }
  return P->nf++;
}

/* Adds the support point of direction d; returns its index (an existing
 * one when the same pair of vertices) or -1. */
static int epa_support(epa_poly *P, const collide_core *A, const collide_core *B, const double *d) {
  double nd[3] = { -d[0], -d[1], -d[2] };
  spt w;
  int k;
  w.ia = collide_core_support(A, d);
  w.ib = collide_core_support(B, nd);
  v3_sub(A->v[w.ia], B->v[w.ib], w.w);
  for (k = 0; k < P->np; k++)
    if (P->p[k].ia == w.ia && P->p[k].ib == w.ib) return k;
  if (P->np >= EPA_VERTS) return -1;
  P->p[P->np] = w;
  return P->np++;
}

/* How far point w lies in front of face f (a degenerate face: never). */
static double epa_front(const epa_poly *P, int f, int w) {
  const epa_face *F = &P->f[f];
  if (F->d == DBL_MAX) return -DBL_MAX;
  return v3_dot(F->n, P->p[w].w) - F->d;
}

/* Adds point w seen from face `from` (in front by more than tol): the
 * connected faces w sees go, each edge of their horizon joins w.  Returns
 * 0 when a buffer is full (the polytope is then left as it was). */
static int epa_expand(epa_poly *P, int w, int from, double tol) {
  int stack[EPA_FACES], vis[EPA_FACES], hf[EPA_FACES], he[EPA_FACES];
  int by_start[EPA_VERTS], by_end[EPA_VERTS];
  int ns = 0, nh = 0, k, j, nv0 = 0;
  for (k = 0; k < P->nf; k++) vis[k] = 0;
  vis[from] = 1;
  stack[ns++] = from;
  while (ns > 0) {
    int f = stack[--ns];
    for (j = 0; j < 3; j++) {
      int g = P->f[f].adj[j];
      if (g < 0 || vis[g] == 1) continue;
      if (P->f[g].alive && epa_front(P, g, w) > tol) {
        vis[g] = 1;
        if (ns < EPA_FACES) stack[ns++] = g;
      } else {
        if (nh >= EPA_FACES) return 0;
        hf[nh] = f;
        he[nh] = j;
        nh++;
      }
    }
  }
  if (P->nf + nh > EPA_FACES || nh < 3) return 0;
  for (k = 0; k < P->np; k++) by_start[k] = by_end[k] = -1;
  nv0 = P->nf;
  for (k = 0; k < nh; k++) {
    const epa_face *F = &P->f[hf[k]];
    int a = F->v[he[k]], b = F->v[(he[k] + 1) % 3], g = F->adj[he[k]], nf, gj;
    nf = epa_add_face(P, a, b, w);
    P->f[nf].adj[0] = g;
    for (gj = 0; gj < 3; gj++)
      if (P->f[g].adj[gj] == hf[k]) P->f[g].adj[gj] = nf;
    by_start[a] = nf;
    by_end[b] = nf;
  }
  for (k = nv0; k < P->nf; k++) {
    epa_face *F = &P->f[k];
    F->adj[1] = by_start[F->v[1]]; /* edge b -> w: the face of the edge from b */
    F->adj[2] = by_end[F->v[0]];   /* edge w -> a: the face of the edge into a */
  }
  for (k = 0; k < nv0; k++)
    if (vis[k]) P->f[k].alive = 0;
  return 1;
}

/* The four faces of the tetrahedron t[0..3] of P's points, outward (the
 * fourth point behind the face of the other three), with neighbours. */
static void epa_tetra(epa_poly *P, const int *t) {
  int a = t[0], b = t[1], c3 = t[2], d3 = t[3], f, j, g, gj;
  double x[3], dd[3], e1[3], e2[3];
  v3_sub(P->p[b].w, P->p[a].w, e1);
  v3_sub(P->p[c3].w, P->p[a].w, e2);
  v3_cross(e1, e2, x);
  v3_sub(P->p[d3].w, P->p[a].w, dd);
  if (v3_dot(x, dd) > 0.0) {
    int s2 = b;
    b = c3;
    c3 = s2;
  }
  P->nf = 0;
  epa_add_face(P, a, b, c3);
  epa_add_face(P, a, d3, b);
  epa_add_face(P, b, d3, c3);
  epa_add_face(P, c3, d3, a);
  /* neighbours: the face holding the reversed edge */
  for (f = 0; f < 4; f++)
    for (j = 0; j < 3; j++)
      for (g = 0; g < 4; g++)
        for (gj = 0; gj < 3; gj++)
          if (g != f && P->f[g].v[gj] == P->f[f].v[(j + 1) % 3] &&
              P->f[g].v[(gj + 1) % 3] == P->f[f].v[j])
            P->f[f].adj[j] = g;
}

/* 1 when every live face holds the origin behind it (within tol). */
static int epa_holds_origin(const epa_poly *P, double tol) {
  int k;
  for (k = 0; k < P->nf; k++)
    if (P->f[k].alive && P->f[k].d < -tol) return 0;
  return 1;
}

/* The starting polytope: the GJK simplex when it is a tetrahedron around
 * the origin (the usual overlap); otherwise the hull of the simplex and
 * the supports of 14 directions (the axes and the diagonals), which holds
 * the origin when the cores overlap by more than round-off.  0 if it does
 * not (or is flat). */
static int epa_start(epa_poly *P, const collide_core *A, const collide_core *B, const gjk_out *g,
                     double scale) {
  int k, i, t[4] = { 0, 1, 2, 3 }, best;
  double bd, e1[3], e2[3], n[3], tol = 1e-12 * scale;
  P->np = 0;
  P->nf = 0;
  for (k = 0; k < g->n; k++) P->p[P->np++] = g->s[k];
  if (g->n == 4) {
    double e3[3];
    v3_sub(P->p[1].w, P->p[0].w, e1);
    v3_sub(P->p[2].w, P->p[0].w, e2);
    v3_sub(P->p[3].w, P->p[0].w, e3);
    v3_cross(e1, e2, n);
    if (fabs(v3_dot(n, e3)) > 1e-12 * scale * scale * scale) {
      epa_tetra(P, t);
      if (epa_holds_origin(P, tol)) return 1;
    }
    P->nf = 0;
  }
  for (k = 0; k < 14; k++) {
    double d[3];
    if (k < 6) {
      d[0] = k / 2 == 0 ? (k & 1 ? -1.0 : 1.0) : 0.0;
      d[1] = k / 2 == 1 ? (k & 1 ? -1.0 : 1.0) : 0.0;
      d[2] = k / 2 == 2 ? (k & 1 ? -1.0 : 1.0) : 0.0;
    } else {
      d[0] = (k - 6) & 1 ? -1.0 : 1.0;
      d[1] = (k - 6) & 2 ? -1.0 : 1.0;
      d[2] = (k - 6) & 4 ? -1.0 : 1.0;
    }
    if (epa_support(P, A, B, d) < 0) return 0;
  }
  /* a tetrahedron of extreme points (as quickhull starts) */
  t[0] = 0;
  best = 0;
  bd = -1.0;
  for (i = 1; i < P->np; i++) {
    double d[3];
    v3_sub(P->p[i].w, P->p[0].w, d);
    if (v3_dot(d, d) > bd) {
      bd = v3_dot(d, d);
      best = i;
    }
  }
  t[1] = best;
  v3_sub(P->p[t[1]].w, P->p[t[0]].w, e1);
  bd = -1.0;
  for (i = 0; i < P->np; i++) {
    double d[3], x[3];
    v3_sub(P->p[i].w, P->p[t[0]].w, d);
    v3_cross(e1, d, x);
    if (v3_dot(x, x) > bd) {
      bd = v3_dot(x, x);
      best = i;
    }
  }
  t[2] = best;
  v3_sub(P->p[t[2]].w, P->p[t[0]].w, e2);
  v3_cross(e1, e2, n);
  bd = -1.0;
  for (i = 0; i < P->np; i++) {
    double d[3];
    v3_sub(P->p[i].w, P->p[t[0]].w, d);
    if (fabs(v3_dot(n, d)) > bd) {
      bd = fabs(v3_dot(n, d));
      best = i;
    }
  }
  t[3] = best;
  if (!(bd > 1e-12 * scale * scale * scale)) return 0; /* flat */
  epa_tetra(P, t);
  for (i = 0; i < P->np; i++) {
    int f, from = -1;
    double most = tol;
    if (i == t[0] || i == t[1] || i == t[2] || i == t[3]) continue;
    for (f = 0; f < P->nf; f++)
      if (P->f[f].alive && epa_front(P, f, i) > most) {
        most = epa_front(P, f, i);
        from = f;
      }
    if (from >= 0 && !epa_expand(P, i, from, tol)) return 0;
  }
  /* the origin inside (every face at distance >= 0, within round-off) */
  return epa_holds_origin(P, tol);
}

/* EPA: the face of the Minkowski difference nearest the origin.  Writes
 * its outward normal m and distance depth (>= 0), and the witness points
 * on A and B (as weights of the face's points).  Returns 0 on failure. */
static int epa(const collide_core *A, const collide_core *B, const gjk_out *g, double scale,
               double *m, double *depth, double *pa, double *pb) {
  epa_poly P;
  int it, best = -1;
  double tol = EPA_REL * scale;
  if (!epa_start(&P, A, B, g, scale)) return 0;
  for (it = 0; it < EPA_ITERS; it++) {
    int k, w;
    double bd = DBL_MAX, dist;
    best = -1;
    for (k = 0; k < P.nf; k++)
      if (P.f[k].alive && P.f[k].d < bd) {
        bd = P.f[k].d;
        best = k;
      }
    if (best < 0 || bd == DBL_MAX) return 0;
    w = epa_support(&P, A, B, P.f[best].n);
    if (w < 0) break;
    dist = v3_dot(P.f[best].n, P.p[w].w);
    if (dist - bd <= tol) break;
    if (!epa_expand(&P, w, best, 1e-14 * scale)) break;
  }
  {
    /* the nearest live face */
    double bd = DBL_MAX, lam[3];
    const epa_face *f;
    spt tri[3];
    int idx[3] = { 0, 1, 2 }, k;
    best = -1;
    for (k = 0; k < P.nf; k++)
      if (P.f[k].alive && P.f[k].d < bd) {
        bd = P.f[k].d;
        best = k;
      }
    if (best < 0 || bd == DBL_MAX) return 0;
    f = &P.f[best];
    m[0] = f->n[0];
    m[1] = f->n[1];
    m[2] = f->n[2];
    *depth = bd > 0.0 ? bd : 0.0;
    for (k = 0; k < 3; k++) tri[k] = P.p[f->v[k]];
    /* the origin's projection d m in barycentric weights of the face */
    {
      double q[3], e1[3], e2[3], e0[3], d00, d01, d11, d20, d21, den;
      q[0] = m[0] * bd;
      q[1] = m[1] * bd;
      q[2] = m[2] * bd;
      v3_sub(tri[1].w, tri[0].w, e1);
      v3_sub(tri[2].w, tri[0].w, e2);
      v3_sub(q, tri[0].w, e0);
      d00 = v3_dot(e1, e1);
      d01 = v3_dot(e1, e2);
      d11 = v3_dot(e2, e2);
      d20 = v3_dot(e0, e1);
      d21 = v3_dot(e0, e2);
      den = d00 * d11 - d01 * d01;
      if (den > 0.0) {
        lam[1] = (d11 * d20 - d01 * d21) / den;
        lam[2] = (d00 * d21 - d01 * d20) / den;
      } else {
        lam[1] = lam[2] = 1.0 / 3.0;
      }
      /* not clamped: the face of the difference is planar and maps
         affinely to the features of A and B, so the weights extend past
         this triangle to the coplanar ones of the same face */
      if (!isfinite(lam[1]) || !isfinite(lam[2])) lam[1] = lam[2] = 1.0 / 3.0;
      lam[0] = 1.0 - lam[1] - lam[2];
    }
    (void)idx;
    pa[0] = pa[1] = pa[2] = pb[0] = pb[1] = pb[2] = 0.0;
    for (k = 0; k < 3; k++) {
      v3_axpy(pa, lam[k], A->v[tri[k].ia], pa);
      v3_axpy(pb, lam[k], B->v[tri[k].ib], pb);
    }
  }
  return 1;
}

/* Separating-axis fallback over the polytopes' face normals: the
 * direction n (unit, from b to a: A moves along n) of least penetration
 * and that penetration.  Always gives a unit normal. */
static void sat_faces(const collide_core *A, const collide_core *B, double *n, double *depth) {
  double best = DBL_MAX;
  int side, k, sg;
  n[0] = 0.0;
  n[1] = 0.0;
  n[2] = 1.0;
  *depth = 0.0;
  for (side = 0; side < 2; side++) {
    const collide_core *S = side ? B : A;
    for (k = 0; k < S->nf; k++)
      for (sg = 0; sg < 2; sg++) {
        double u[3], nu[3], pen;
        int i;
        for (i = 0; i < 3; i++) {
          u[i] = sg ? -S->pl[k][i] : S->pl[k][i];
          nu[i] = -u[i];
        }
        /* A moves along u: max_B(u) - min_A(u) */
        pen = v3_dot(B->v[collide_core_support(B, u)], u) -
              v3_dot(A->v[collide_core_support(A, nu)], u);
        if (pen < best) {
          best = pen;
          memcpy(n, u, sizeof u);
        }
      }
  }
  if (best != DBL_MAX) *depth = best > 0.0 ? best : 0.0;
}

/* The normal (unit, from b to a), the core witness points and the core
 * depth (penetration of the cores, negative: their gap) of the pair. */
void collide_core_contact(const collide_core *A, const collide_core *B, double *n, double *pa,
                          double *pb, double *core_depth) {
  gjk_out g;
  double scale = A->size + B->size, dist;
  int k;
  if (!(scale > 0.0)) scale = 1.0;
  gjk(A, B, scale, &g);
  dist = v3_norm(g.v);
  if (!g.overlap && dist > 1e-9 * scale) {
    pa[0] = pa[1] = pa[2] = pb[0] = pb[1] = pb[2] = 0.0;
    for (k = 0; k < g.n; k++) {
      v3_axpy(pa, g.lam[k], A->v[g.s[k].ia], pa);
      v3_axpy(pb, g.lam[k], B->v[g.s[k].ib], pb);
    }
    for (k = 0; k < 3; k++) n[k] = g.v[k] / dist;
    *core_depth = -dist;
    return;
  }
  {
    double m[3], depth;
    if (epa(A, B, &g, scale, m, &depth, pa, pb)) {
      for (k = 0; k < 3; k++) n[k] = -m[k];
      *core_depth = depth;
      return;
    }
    sat_faces(A, B, n, &depth);
    *core_depth = depth;
    /* witnesses: A's deepest vertex against n, and where it leaves B */
    {
      double nn[3] = { -n[0], -n[1], -n[2] };
      memcpy(pa, A->v[collide_core_support(A, nn)], sizeof(double) * 3);
      v3_axpy(pa, depth, n, pb);
    }
  }
}
