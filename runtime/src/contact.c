/* contact.c: one time step's contact impulses (diagc/world.h, "Contact
 * solve"; docs/runtime-api.md, "Contact solve"): argument checks, the
 * workspace, the islands (contacts coupled through a common tree, found by
 * union-find over the island tags), per island the boxed LCP of DART's
 * row convention (contact_island.c builds it) solved by diagc_lcp_solve
 * under the step's share of the work budget, the optional complementarity
 * check, and v_next = v* + M^-1 J^T x.  The friction rows are solved in
 * per-contact tangent frames turned before the islands
 * (contact_friction.c); x is turned into them on entry (the warm start)
 * and back on return.
 */
#include "diagc/world.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "contact_internal.h"

#define ALIGN 64

/* The workspace's layout for nv velocities and nc contacts: its size, and
 * when w is not NULL its parts carved from base.  kind 0: dense rows (J,
 * MinvJT; the dense method for every island); 1: compact rows, dense
 * method; 2: compact rows, sparse method (the dense one up to
 * DIAGC_CONTACT_DENSE_ROWS rows, and as its fallback up to
 * DIAGC__DENSE_FALLBACK_ROWS).
 *
 * The sparse method's pools (neighbour indices; one pool of doubles for
 * the neighbour blocks and the envelope) come last and take all of the
 * room the caller gave (room bytes from base; 0 when sizing): a workspace
 * sized for nc_max contacts keeps the pools of nc_max contacts when a step
 * holds fewer, so the pools are totals over the workspace, not a share per
 * contact held.  Returns the bytes nc contacts need (0 on bad sizes); a
 * part that does not fit in room is not carved (the caller then refuses
 * the workspace). */
enum { WS_DENSE = 0, WS_COMPACT_DENSE = 1, WS_SPARSE = 2 };

/* bytes of the pools per contact (their units) */
#define POOL_UNIT                                                            \
  ((size_t)DIAGC__NBR_PER_CONTACT * sizeof(int) + (size_t)DIAGC__POOL_PER_CONTACT * sizeof(double))

static size_t plan(contact_ws *w, void *base, size_t room, int nv, int nc, int kind) {
  size_t n = 3 * (size_t)nc, d = n, nbr = 0, pool = 0, mt = 0, nz = 0, sn = 0, off = 0, lcp, units = (size_t)nc;
  size_t skip = 0, need;
  char *q = (char *)base;
  if (kind == WS_SPARSE && d > DIAGC__DENSE_FALLBACK_ROWS) d = DIAGC__DENSE_FALLBACK_ROWS;
  if (kind == WS_DENSE) mt = n * (size_t)nv, nz = (size_t)nv;
  if (kind == WS_SPARSE) sn = n;
  lcp = diagc_lcp_workspace_size((int)d);
  if (d > 0 && lcp == 0) return 0;
  /* every part starts ALIGN-aligned: the base is aligned first, and each
     part's bytes are rounded up to a multiple of ALIGN */
#define ROUND(bytes) ((bytes) + (ALIGN - (bytes) % ALIGN) % ALIGN)
#define PART(field, type, count)                                             \
  do {                                                                       \
    size_t bytes_ = (size_t)(count) * sizeof(type);                          \
    if (w && skip + off + bytes_ <= room) w->field = (type *)(q + off);      \
    off += ROUND(bytes_);                                                    \
  } while (0)
  if (q) skip = (ALIGN - (uintptr_t)q % ALIGN) % ALIGN, q += skip;
  PART(lcp_ws, char, lcp);
  if (w) w->lcp_ws_size = lcp;
  PART(A, double, d * d);
  PART(b, double, n);
  PART(lo, double, n);
  PART(hi, double, n);
  PART(x, double, n);
  PART(target, double, n);
  PART(u, double, nv);
  PART(vs, double, nv);
  PART(vt, double, nv);
  PART(lam, double, nc);
  PART(frame, double, 2 * (size_t)nc);
  PART(hold, int, nc);
  PART(ut, double, 2 * (size_t)nc);
  PART(mt, double, mt);
  PART(w, double, sn);
  PART(rhs, double, sn);
  PART(sol, double, sn);
  PART(xbest, double, sn);
  PART(xprox, double, sn);
  PART(xpbest, double, sn);
  PART(xprev, double, sn);
  PART(loff, size_t, sn);
  PART(uoff, size_t, sn);
  PART(fx, int, n);
  PART(rows, int, n);
  PART(parent, int, nc);
  PART(label, int, nc);
  PART(start, int, (size_t)nc + 1);
  PART(list, int, nc);
  PART(nz, int, nz);
  PART(cls, int, sn);
  PART(red, int, sn);
  PART(first, int, sn);
  PART(drop, int, sn);
  PART(roff, int, sn ? (size_t)nc + 1 : 0);
  PART(nbr0, int, sn ? (size_t)nc + 1 : 0);
  PART(order, int, sn ? nc : 0);
  PART(order0, int, sn ? nc : 0);
  PART(cls0, int, sn);
  PART(clsprev, int, sn);
  PART(where, int, sn ? nc : 0);
  PART(mark, int, sn ? nc : 0);
  PART(queue, int, sn ? nc : 0);
  /* the island pass of every compact problem keeps one entry per tree
     (ntrees <= nv: each tree has a dof); the sparse method two more */
  PART(tstart, int, kind != WS_DENSE ? (size_t)nv + 2 : 0);
  PART(tlist, int, sn ? 2 * (size_t)nc : 0);
  PART(span, int, kind != WS_DENSE ? 2 * DIAGC__SPAN_RUNS * (size_t)nc : 0);
  need = off + ALIGN;
  if (kind == WS_SPARSE) {
    /* the pools: units of POOL_UNIT bytes, at least nc, as many as the
       room holds (ALIGN for the base's alignment, one per pool's padding) */
    size_t used = off + 4 * ALIGN;
    need += ROUND((size_t)DIAGC__NBR_PER_CONTACT * sizeof(int) * units) +
            ROUND((size_t)DIAGC__POOL_PER_CONTACT * sizeof(double) * units);
    if (room > used && (room - used) / POOL_UNIT > units) units = (room - used) / POOL_UNIT;
    if (units > (size_t)INT_MAX / DIAGC__NBR_PER_CONTACT) units = (size_t)INT_MAX / DIAGC__NBR_PER_CONTACT;
    nbr = (size_t)DIAGC__NBR_PER_CONTACT * units;
    pool = (size_t)DIAGC__POOL_PER_CONTACT * units;
    if (nbr > pool / 9) nbr = pool / 9; /* every entry's block fits */
  }
  PART(nbr, int, nbr);
  PART(blk, double, pool);
#undef PART
#undef ROUND
  if (w) {
    w->dense_rows = (int)d;
    w->nbr_cap = (int)nbr;
    w->pool_cap = pool;
    w->env = w->blk; /* until an island's blocks take the pool's start */
    w->env_cap = pool;
  }
  return need;
}

/* nc_max bounded (and the sizes' products with it far from overflow) */
static int sizes_ok(int nv, int nc_max) { return nv >= 0 && nc_max >= 0 && nc_max <= (1 << 20) && nv <= (1 << 24); }

size_t diagc_contact_workspace_size(int nv, int nc_max) {
  if (!sizes_ok(nv, nc_max)) return 0;
  return plan(NULL, NULL, 0, nv, nc_max, WS_DENSE);
}

size_t diagc_contact_compact_workspace_size(int nv, int nc_max, int method) {
  if (!sizes_ok(nv, nc_max) || (method != DIAGC_CONTACT_SPARSE && method != DIAGC_CONTACT_DENSE)) return 0;
  return plan(NULL, NULL, 0, nv, nc_max, method == DIAGC_CONTACT_DENSE ? WS_COMPACT_DENSE : WS_SPARSE);
}

void diagc_contact_options_init(diagc_contact_options *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->erp = 0.2;
  o->allowed_penetration = 1e-4;
  o->max_correction_speed = 1.0;
  o->bounce_threshold = 1e-2;
  o->cfm = 0.0;
#ifdef DIAGC_CONTACT_CHECK
  o->check = 1;
#else
  o->check = 0;
#endif
  diagc_lcp_options_init(&o->lcp, NULL, 0);
}

static int all_finite(const double *a, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    if (!isfinite(a[i])) return 0;
  return 1;
}

/* The problem's arrays: present, finite, in range. */
static int check_problem(const diagc_contact_problem *p) {
  size_t nv, rows;
  int k;
  if (!p || p->nv < 0 || p->nc < 0 || p->nc > (1 << 20)) return 0;
  if (!(p->dt > 0) || !isfinite(p->dt)) return 0;
  nv = (size_t)p->nv;
  rows = 3 * (size_t)p->nc;
  if (!p->vstar || (nv > 0 && !all_finite(p->vstar, nv))) return 0;
  if (p->nc == 0) return 1;
  if (!p->v || !p->depth || !p->mu) return 0;
  if (!all_finite(p->v, nv) || !all_finite(p->depth, (size_t)p->nc)) return 0;
  if (!p->Jc && (!p->J || !p->MinvJT || !all_finite(p->J, rows * nv) || !all_finite(p->MinvJT, nv * rows)))
    return 0;
  for (k = 0; k < p->nc; k++) {
    if (!(p->mu[k] >= 0) || !isfinite(p->mu[k])) return 0;
    if (p->restitution && !(p->restitution[k] >= 0 && p->restitution[k] <= 1)) return 0;
    if (p->tree && (p->tree[2 * k] < -1 || p->tree[2 * k + 1] < -1)) return 0;
    if (p->bound && (!(p->bound[k] >= 0) || (p->bound[k] > 0 && (p->mu[k] != 0.0 ||
                                                                  (p->restitution && p->restitution[k] != 0.0)))))
      return 0; /* a bilateral row has no friction rows and no restitution */
  }
  return !p->Jc || diagc__contact_compact_ok(p);
}

static int check_options(const diagc_contact_options *o) {
  const diagc_lcp_options *l = &o->lcp;
  if (!(o->erp >= 0 && o->erp <= 1)) return 0;
  if (!(o->allowed_penetration >= 0) || !isfinite(o->allowed_penetration)) return 0;
  if (!(o->max_correction_speed > 0)) return 0;
  if (!(o->bounce_threshold >= 0) || !isfinite(o->bounce_threshold)) return 0;
  if (!(o->cfm >= 0) || !isfinite(o->cfm)) return 0;
  if (o->restitution_passes < 0) return 0;
  if (o->method != DIAGC_CONTACT_SPARSE && o->method != DIAGC_CONTACT_DENSE) return 0;
  if (l->method != DIAGC_LCP_AUTO && l->method != DIAGC_LCP_PIVOT && l->method != DIAGC_LCP_PGS &&
      l->method != DIAGC_LCP_COUPLED)
    return 0;
  if (!(l->tol >= 0) || !(l->accept_tol >= 0) || l->work_budget != l->work_budget) return 0;
  return 1;
}

/* v_next = v* + M^-1 J^T x; 0, or -1 if not finite. */
static int apply_impulses(const diagc_contact_problem *p, const double *x, double *v_next) {
  int nv = p->nv, ncol = 3 * p->nc, i, c;
  if (p->Jc) {
    memcpy(v_next, p->vstar, sizeof(double) * (size_t)nv);
    for (c = 0; c < ncol; c++)
      if (x[c] != 0.0) diagc__row_axpy(p, c, x[c], v_next);
    return all_finite(v_next, (size_t)nv) ? 0 : -1;
  }
  for (i = 0; i < nv; i++) {
    const double *row = p->MinvJT + (size_t)i * (size_t)ncol;
    double s = p->vstar[i];
    for (c = 0; c < ncol; c++)
      if (x[c] != 0.0) s += row[c] * x[c];
    v_next[i] = s;
  }
  return all_finite(v_next, (size_t)nv) ? 0 : -1;
}

/* The step's status from the islands' (worst first: errors, then budget,
 * inexact, within accept_tol, solved). */
static int rank_status(int rc) {
  switch (rc) {
    case DIAGC_CONTACT_E_NUMERIC: return 6;
    case DIAGC_CONTACT_E_CHECK: return 5;
    case DIAGC_LCP_BUDGET: return 4;
    case DIAGC_CONTACT_INEXACT: return 3;
    case DIAGC_LCP_SOLVED_TOL: return 2;
    default: return 1;
  }
}

static void worst(int *acc, int rc) {
  if (rank_status(rc) > rank_status(*acc)) *acc = rc;
}

int diagc_contact_solve(const diagc_contact_problem *p, const diagc_contact_options *o,
                        double *x, double *v_next, void *ws, size_t ws_size,
                        diagc_contact_stats *st) {
  diagc_contact_options defaults;
  diagc_contact_stats local;
  contact_ws w;
  contact_budget bud;
  diagc_contact_problem after;
  const diagc_contact_problem *orig = p;
  int nc, status = DIAGC_OK, isl, k, rows, kind;

  if (!st) st = &local;
  memset(st, 0, sizeof *st);
  if (!o) {
    diagc_contact_options_init(&defaults);
    o = &defaults;
  }
  if (!check_problem(p) || !check_options(o) || !v_next || (p->nc > 0 && !x))
    return DIAGC_CONTACT_E_ARG;
  nc = p->nc;
  kind = !p->Jc ? WS_DENSE : o->method == DIAGC_CONTACT_DENSE ? WS_COMPACT_DENSE : WS_SPARSE;
  /* carved once: the parts are set when the workspace holds them */
  if (!ws || ws_size < plan(&w, ws, ws_size, p->nv, nc, kind)) return DIAGC_CONTACT_E_WORKSPACE;
  if (nc == 0) {
    if (p->nv > 0) memcpy(v_next, p->vstar, sizeof(double) * (size_t)p->nv);
    return DIAGC_OK;
  }
  if (o->restitution_passes > 0 && p->restitution) {
    /* impacts first, one contact at a time, at the step's midpoint
       velocity (v + v*) / 2: a bounce then loses no more and gains no
       more to the smooth forces than the other half-step does (starting
       from v or v* would bias every rebound by -/+ dt |f| / 2 m); the
       LCP starts from the velocity after them */
    int i;
    for (i = 0; i < p->nv; i++) w.u[i] = 0.5 * (p->v[i] + p->vstar[i]);
    st->impacts = diagc__contact_impacts(p, o, w.u, w.lam, &st->impact_passes);
    for (i = 0; i < p->nv; i++) w.vs[i] = w.u[i] + 0.5 * (p->vstar[i] - p->v[i]);
    after = *p;
    after.v = w.u, after.vstar = w.vs;
    if (all_finite(w.vs, (size_t)p->nv)) {
      p = &after;
    } else { /* overflow: no impacts */
      status = DIAGC_CONTACT_E_NUMERIC;
      st->impacts = 0;
    }
  }
  /* isotropic friction: each contact's tangent frame along its sliding
     velocity at v*, held to it when it slid at v (contact_friction.c);
     the warm start turned into it */
  st->friction_turned = diagc__friction_frames(p, p->vstar, orig->v, w.frame, w.hold, w.ut);
  for (k = 0; k < nc; k++) st->friction_held += w.hold[k];
  for (k = 0; k < nc && w.frame[2 * k + 1] == 0.0; k++) {}
  if (k == nc) w.frame = NULL; /* every frame the default one: the rows as given */
  diagc__friction_turn(w.frame, nc, x, 0);
  if (p->Jc) diagc__contact_spans(p, w.span); /* the blocks of A over each row's nonzero columns */
  else w.span = NULL;
  diagc__contact_islands(p, &w);
  w.blk_isl = w.fac_isl = -1;
  w.a_isl = -1;
  w.one_tree = 0;
  /* the budget of one LCP of all the step's rows, in multiply-adds,
     shared by the islands in proportion to m^3 (unused work passes on) */
  rows = 0;
  bud.cubes = 0.0;
  for (isl = 0; isl < w.nislands; isl++) {
    double m = (double)diagc__contact_island_rows(p, &w, isl);
    rows += (int)m;
    bud.cubes += m * m * m;
  }
  bud.left = diagc_lcp_work_budget(rows, o->lcp.work_budget) * (double)rows * (double)rows;
  for (isl = 0; isl < w.nislands; isl++) {
    int rc = diagc__contact_tree_island(p, o, &w, isl, x, &bud, st);
    /* a held contact that stopped along t1' within the step is released
       and its island solved again from there (at most once per contact) */
    while ((rc == DIAGC_OK || rc == DIAGC_LCP_SOLVED_TOL) && diagc__friction_release(p, &w, isl, x, w.hold) > 0) {
      st->friction_resolves++;
      rc = diagc__contact_tree_island(p, o, &w, isl, x, &bud, st);
    }
    worst(&status, rc);
  }
  diagc__friction_turn(w.frame, nc, x, 1); /* the default frames again */
  st->friction_outside = diagc__friction_outside(p, x);
  if (apply_impulses(p, x, v_next) != 0) { /* overflow: no impulses */
    memset(x, 0, sizeof(double) * 3 * (size_t)nc);
    p = orig;
    apply_impulses(p, x, v_next); /* v_next = v*: finite (checked) */
    status = DIAGC_CONTACT_E_NUMERIC;
  }
  if (p == &after) /* the impacts' impulses are part of the step's */
    for (k = 0; k < nc; k++) x[3 * k] += w.lam[k];
  return status;
}
