/* contact_tree.c: an island of one tree solved on its support contacts
 * (docs/world.md, "Contact solve", "Redundant contacts"; called by
 * contact.c for every island, it calls contact_island.c).
 *
 * A flat patch of point contacts on one body (a humanoid's sole: eight
 * points on two lines; a hull face with vertices on its edges) has more
 * rows than the body has freedoms, and contacts whose normal row is a
 * convex combination of two others' (a point between two others on a
 * line, or inside the patch).  Such a contact adds nothing an LCP
 * solution needs: take the LCP of the other contacts (the support), and
 * give the dropped ones zero impulses.  Their friction rows then have the
 * bounds [0, 0] (any velocity), and their normal velocity is the same
 * convex combination of the support's, each >= its target, so it is >= a
 * target that is the same combination of theirs (a flat sole on flat
 * ground, where depth is affine in the point): the point solves the whole
 * island's LCP.  That is not assumed: the dropped normals' velocities are
 * computed (v = v* + M^-1 J_S^T x_S, then each dropped row times v) and
 * the point is taken only when they violate no more than the support's
 * own solution does (or round-off); otherwise the whole island is solved
 * from that point as its warm start (exact either way: the same LCP, the
 * same tolerance).
 *
 * Which contacts are dropped is found from the rows alone: contacts of
 * one tree (every contact of the island on it or the world) whose rows
 * have the same nonzero columns (one body's chain) are a group; their
 * normal rows are placed in coordinates of the affine plane through them
 * (Gram-Schmidt on the differences; a group not within 1e-9 of a plane is
 * left whole), and the contacts that are not vertices of the convex hull
 * of those points (inside it, or on an edge between two vertices) are
 * dropped.  The Atlas standing: 22 contacts (54 rows) solved as 14 (30).
 */
#include <math.h>
#include <string.h>

#include "contact_internal.h"

#define PLANE_TOL 1e-7 /* a group's normal rows within this (relative) of a plane */
#define HULL_TOL 1e-9  /* a turn within this (relative) of straight: on an edge */
#define GROUP_MAX 64   /* contacts of one group, at most (a larger one is left whole) */
#define DROP_NOISE 4e-12 /* a dropped row's velocity computed to this (relative) */
#define WIDTH_MAX 256  /* columns of a group's rows, at most (a wider one is left whole) */

/* the key of w->blk_isl while the blocks are those of island isl's support */
static int support_key(int isl) { return -2 - isl; }

static int same_span(const int *span, int k, int l) {
  const int *a = span + 2 * DIAGC__SPAN_RUNS * k, *b = span + 2 * DIAGC__SPAN_RUNS * l;
  int i;
  for (i = 0; i < 2 * DIAGC__SPAN_RUNS; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

/* The tree of an island whose every contact is on that tree or the world
 * (a contact, not a bilateral row), or -1. */
static int island_tree(const diagc_contact_problem *p, const contact_ws *w, int isl) {
  int a, t = -1;
  for (a = w->start[isl]; a < w->start[isl + 1]; a++) {
    int c = w->list[a], ta = p->tree[2 * c], tb = p->tree[2 * c + 1];
    if (ta < 0) ta = tb, tb = -1;
    if (ta < 0 || (tb >= 0 && tb != ta)) return -1;
    if (t < 0) t = ta;
    if (ta != t) return -1;
  }
  return t;
}

/* 1 when the island has a bilateral row (a joint's friction).  Such an
 * island stays on the sparse path: the dense path left a joint held by
 * its friction turning at 2.6e-13 rad/s, the sparse one at 0 to 1e-14
 * (tests/lua/world_joint_friction_test.lua). */
static int has_bilateral(const diagc_contact_problem *p, const contact_ws *w, int isl) {
  int a;
  if (!p->bound) return 0;
  for (a = w->start[isl]; a < w->start[isl + 1]; a++)
    if (p->bound[w->list[a]] > 0.0) return 1;
  return 0;
}

/* What w->one_tree says of tree t's island (contact_internal.h): 2 for a
 * tree with more dofs than one free body (a robot: the dense path takes
 * it unscored), 1 for a lone body (its warm start scored from the rows
 * first: at rest, the usual case, that is the answer and no A is formed). */
static int tree_kind(const diagc_contact_problem *p, int t) {
  return p->tree_dof0 && t < p->ntrees && p->tree_dof0[t + 1] - p->tree_dof0[t] > 6 ? 2 : 1;
}

/* cross product of (b - a) and (c - a) */
static double turn(const double *u, const double *v, int a, int b, int c) {
  return (u[b] - u[a]) * (v[c] - v[a]) - (v[b] - v[a]) * (u[c] - u[a]);
}

/* Marks (keep[i] = 0) the contacts g[0 .. n) of one group that are not
 * vertices of the convex hull of their normal rows' points in the rows'
 * plane; returns how many it dropped. */
static int drop_inside(const diagc_contact_problem *p, const int *spans, const int *g, int n, int *keep) {
  int W = p->width, cw = diagc__contact_width(p, g[0]), i, j, far = -1, far2 = -1, h, dropped = 0, r;
  const int *run = spans + 2 * DIAGC__SPAN_RUNS * g[0]; /* the group's nonzero columns (shared) */
  double e1[WIDTH_MAX], e2[WIDTH_MAX], u[GROUP_MAX], v[GROUP_MAX], big = 0.0, scale, lim, extent = 0.0, a;
  int order[GROUP_MAX], hull[2 * GROUP_MAX + 1];
  const double *n0 = p->Jc + (size_t)(3 * g[0]) * (size_t)W;
#define ROW(i) (p->Jc + (size_t)(3 * g[i]) * (size_t)W)
#define COLS for (r = 0; r < DIAGC__SPAN_RUNS; r++) for (j = run[2 * r]; j < run[2 * r + 1]; j++)
  if (cw > WIDTH_MAX) return 0;
  /* e1: along the difference of largest norm; e2: the largest remainder */
  for (i = 1; i < n; i++) {
    const double *ni = ROW(i);
    double s = 0.0;
    COLS s += (ni[j] - n0[j]) * (ni[j] - n0[j]);
    if (s > big) big = s, far = i;
  }
  scale = 0.0;
  COLS scale += n0[j] * n0[j];
  if (far < 0 || !(big > PLANE_TOL * PLANE_TOL * scale)) return 0; /* one point: nothing to drop */
  a = 1.0 / sqrt(big);
  COLS e1[j] = (ROW(far)[j] - n0[j]) * a;
  big = 0.0;
  for (i = 1; i < n; i++) {
    const double *ni = ROW(i);
    double s = 0.0, t;
    a = 0.0;
    COLS a += (ni[j] - n0[j]) * e1[j];
    COLS t = ni[j] - n0[j] - a * e1[j], s += t * t;
    if (s > big) big = s, far2 = i;
  }
  if (far2 >= 0) {
    const double *ni = ROW(far2);
    double s = 0.0;
    a = 0.0;
    COLS a += (ni[j] - n0[j]) * e1[j];
    COLS e2[j] = ni[j] - n0[j] - a * e1[j], s += e2[j] * e2[j];
    s = s > 0.0 ? 1.0 / sqrt(s) : 0.0;
    COLS e2[j] *= s;
  } else {
    COLS e2[j] = 0.0;
  }
  /* the coordinates, and every row within PLANE_TOL of the plane */
  lim = PLANE_TOL * PLANE_TOL * scale;
  for (i = 0; i < n; i++) {
    const double *ni = ROW(i);
    double res = 0.0, t;
    u[i] = v[i] = 0.0;
    COLS u[i] += (ni[j] - n0[j]) * e1[j], v[i] += (ni[j] - n0[j]) * e2[j];
    COLS t = ni[j] - n0[j] - u[i] * e1[j] - v[i] * e2[j], res += t * t;
    if (!(res <= lim)) return 0;
    if (fabs(u[i]) > extent) extent = fabs(u[i]);
    if (fabs(v[i]) > extent) extent = fabs(v[i]);
  }
#undef ROW
#undef COLS
  /* Andrew's monotone chain; a turn within HULL_TOL of straight pops (a
     point on an edge is not a vertex) */
  for (i = 0; i < n; i++) {
    int k = i;
    while (k > 0 && (u[order[k - 1]] > u[i] || (u[order[k - 1]] == u[i] && v[order[k - 1]] > v[i]))) {
      order[k] = order[k - 1];
      k--;
    }
    order[k] = i;
  }
  lim = HULL_TOL * extent * extent;
  h = 0;
  for (i = 0; i < n; i++) { /* lower */
    while (h >= 2 && turn(u, v, hull[h - 2], hull[h - 1], order[i]) <= lim) h--;
    hull[h++] = order[i];
  }
  for (i = n - 2, j = h + 1; i >= 0; i--) { /* upper */
    while (h >= j && turn(u, v, hull[h - 2], hull[h - 1], order[i]) <= lim) h--;
    hull[h++] = order[i];
  }
  for (i = 0; i < n; i++) keep[g[i]] = 0;
  for (i = 0; i < h; i++) keep[g[hull[i]]] = 1;
  for (i = 0; i < n; i++) dropped += !keep[g[i]];
  return dropped;
}

/* keep[c] for the island's contacts (1: support); returns how many are
 * dropped. */
static int support(const diagc_contact_problem *p, contact_ws *w, int isl, int *keep) {
  int a, b, dropped = 0, g[GROUP_MAX];
  for (a = w->start[isl]; a < w->start[isl + 1]; a++) keep[w->list[a]] = -1; /* not grouped yet */
  for (a = w->start[isl]; a < w->start[isl + 1]; a++) {
    int c = w->list[a], n = 0;
    if (keep[c] >= 0) continue;
    keep[c] = 1;
    if (p->bound && p->bound[c] > 0.0) continue;
    g[n++] = c;
    for (b = a + 1; b < w->start[isl + 1]; b++) {
      int d = w->list[b];
      if (keep[d] >= 0 || (p->bound && p->bound[d] > 0.0) || !same_span(w->span, c, d)) continue;
      if (p->tree[2 * d] != p->tree[2 * c] || p->tree[2 * d + 1] != p->tree[2 * c + 1]) continue;
      if (n == GROUP_MAX) break;
      keep[d] = 1;
      g[n++] = d;
    }
    if (n >= 3) dropped += drop_inside(p, w->span, g, n, keep);
  }
  return dropped;
}

/* stats of a support solve into the step's: all of them (taken) or its
 * work only (the whole island solved after it) */
static void add_stats(diagc_contact_stats *st, const diagc_contact_stats *s, int all) {
  st->pivots += s->pivots;
  st->sweeps += s->sweeps;
  st->work += s->work;
  st->sparse_iterations += s->sparse_iterations;
  if (!all) return;
  st->islands += s->islands;
  st->rows += s->rows;
  if (s->largest > st->largest) st->largest = s->largest;
  if (s->budget_hit) st->budget_hit = 1;
  if (s->residual > st->residual) st->residual = s->residual;
  st->inexact += s->inexact;
  st->checked += s->checked;
  if (s->check_violation > st->check_violation) st->check_violation = s->check_violation;
  st->sparse_islands += s->sparse_islands;
  st->sparse_fallbacks += s->sparse_fallbacks;
  st->sparse_inexact += s->sparse_inexact;
  st->pool_overflows += s->pool_overflows;
}

/* The largest violation of the dropped contacts' normal rows at x (theirs
 * 0), above the round-off of computing them; w->vt: the support's
 * velocity change M^-1 J_S^T x_S. */
static double dropped_violation(const diagc_contact_problem *p, const diagc_contact_options *o, contact_ws *w,
                                int isl, const int *keep, const double *x) {
  int a, t;
  double worst = 0.0;
  memset(w->vt, 0, sizeof(double) * (size_t)p->nv);
  for (a = w->start[isl]; a < w->start[isl + 1]; a++) {
    int c = w->list[a];
    if (!keep[c]) continue;
    for (t = 0; t < (p->mu[c] > 0.0 ? 3 : 1); t++)
      if (x[3 * c + t] != 0.0) diagc__frow_axpy(p, w->frame, 3 * c + t, x[3 * c + t], w->vt);
  }
  for (a = w->start[isl]; a < w->start[isl + 1]; a++) {
    int c = w->list[a];
    double tg, jv, dv, wn;
    if (keep[c]) continue;
    tg = diagc__contact_normal_target(p, o, c, NULL);
    jv = diagc__row_dot(p, 3 * c, p->vstar);
    dv = diagc__row_dot(p, 3 * c, w->vt);
    wn = dv - (tg - jv); /* A x - b of the normal row */
    if (!(wn == wn)) return INFINITY;
    if (-wn > DROP_NOISE * (fabs(tg) + fabs(jv) + fabs(dv)) && -wn > worst) worst = -wn;
  }
  return worst;
}

int diagc__contact_tree_island(const diagc_contact_problem *p, const diagc_contact_options *o, contact_ws *w,
                               int isl, double *x, contact_budget *bud, diagc_contact_stats *st) {
  int *keep = w->mark, s0 = w->start[isl], end = w->start[isl + 1], a, b, q, nk, rc, t;
  diagc_contact_stats sub;
  double worst;
  w->one_tree = 0;
  /* an island of one tree, a robot's or a lone body's, takes the dense
     path when small (w->one_tree; docs/world.md, "Contact solve") */
  if (!p->Jc || o->method != DIAGC_CONTACT_SPARSE || !w->span || (t = island_tree(p, w, isl)) < 0 ||
      (w->one_tree = has_bilateral(p, w, isl) ? 0 : tree_kind(p, t), support(p, w, isl, keep) == 0)) {
    if (w->blk_isl == support_key(isl)) w->blk_isl = -1;
    rc = diagc__contact_island(p, o, w, isl, x, bud, st);
    w->one_tree = 0;
    return rc;
  }
  /* the support first in the island's list, the island cut to it (w->queue
     taken: the sparse method's factor is not kept) */
  w->fac_isl = -1;
  for (q = 0, a = s0; a < end; a++)
    if (keep[w->list[a]]) w->queue[q++] = w->list[a];
  nk = q;
  for (a = s0; a < end; a++)
    if (!keep[w->list[a]]) w->queue[q++] = w->list[a];
  memcpy(w->list + s0, w->queue, sizeof(int) * (size_t)(end - s0));
  w->start[isl + 1] = s0 + nk;
  memset(&sub, 0, sizeof sub);
  w->blk_isl = w->blk_isl == support_key(isl) ? isl : -1; /* the support's blocks are kept */
  rc = diagc__contact_island(p, o, w, isl, x, bud, &sub);
  if (w->blk_isl == isl) w->blk_isl = support_key(isl);
  w->start[isl + 1] = end;
  /* keep[] again (the solve used w->mark), the list in its order again
     (both parts ascend: merged), the dropped contacts' impulses 0 */
  for (a = s0; a < end; a++) keep[w->list[a]] = a < s0 + nk;
  for (q = 0, a = s0, b = s0 + nk; a < s0 + nk || b < end;)
    w->queue[q++] = b == end || (a < s0 + nk && w->list[a] < w->list[b]) ? w->list[a++] : w->list[b++];
  memcpy(w->list + s0, w->queue, sizeof(int) * (size_t)(end - s0));
  for (a = s0; a < end; a++) {
    int c = w->list[a];
    if (!keep[c]) x[3 * c] = x[3 * c + 1] = x[3 * c + 2] = 0.0;
  }
  if (rc == DIAGC_OK || rc == DIAGC_LCP_SOLVED_TOL) {
    worst = dropped_violation(p, o, w, isl, keep, x);
    if (worst <= o->lcp.tol || worst <= sub.residual) {
      add_stats(st, &sub, 1);
      w->one_tree = 0;
      return rc;
    }
  }
  /* the whole island, from the support's point */
  add_stats(st, &sub, 0);
  w->blk_isl = -1;
  rc = diagc__contact_island(p, o, w, isl, x, bud, st);
  w->one_tree = 0;
  return rc;
}
