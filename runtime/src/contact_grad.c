/* contact_grad.c: the linearized contact step (diagc/world.h, Part 3;
 * docs/world.md, "Gradients").  Given the solution of diagc_contact_solve
 * and the derivatives of its inputs (v, v*, depths, mu) along ncol
 * directions, the derivatives of v_next and x with the step's decisions
 * held:
 *   1. the impact phase is replayed (contact_impact.c's passes, through a
 *      hook) and each impulse l = -(1 + e) J_n u / (J_n M^-1 J_n^T)
 *      differentiated, u += M^-1 J_n^T l with it;
 *   2. the LCP's rows are classified (contact_classify.c) and held:
 *      clamping rows C keep J_i v' + cfm x_i = target_i, upper-bound rows
 *      U keep x_u = s_u mu x_n(u), the rest x = 0; with G the columns
 *      M^-1 (J_C^T + J_U^T E) and Q = J_C G + cfm I,
 *        Q dx_C = d target_C - dJ_C v' - J_C dw,
 *        dv' = dw + G dx_C,
 *      dw = dvs + M^-1 (dJ^T x - dM (v' - vs)) (+ the mu columns of E x).
 * Derivatives of J, J^T and M along configuration directions come from
 * the caller's operators (diagc_step_ops).  Q is solved by LU with
 * complete pivoting (rank revealed; the basic solution when dependent).
 *
 * Friction frames (contact_friction.c): the LCP's friction rows are in
 * frames turned along u* = J_t v* (after the impacts), so after phase 1
 * the rows J, M^-1 J^T, the impulses and the operators are turned the
 * same way (x' = R x; R_k turns contact k's rows t1, t2 by its angle phi)
 * and the classes are those of the turned rows.  phi depends on the state:
 * dphi = (u1 du2 - u2 du1) / |u*|^2 with du* = J_t dv* + dJ_t v*.  With
 * R moving, x = R^T x' and J' = R J add, per contact, dphi times
 *   - to the velocity: M^-1 (J'_t2^T x'_1 - J'_t1^T x'_2) (the impulse
 *     turning with its frame),
 *   - to a clamping row's right side: -a'_2 (row t1'), +a'_1 (row t2'),
 *     a' = J'_t v' (the row turning under the velocity),
 *   - to dx in the default frames: x'_1 e2 - x'_2 e1 (e1, e2 = t1', t2'
 *     in the default tangents), after dx = R^T dx'.
 * A contact whose two friction rows clamp (it sticks) satisfies J_t v' +
 * cfm x_t = 0 in every frame: its terms cancel and are not formed.
 */
#include <math.h>
#include <string.h>

#include "contact_internal.h"
#include "diagc/world.h"

#define RANK_TOL 1e-10 /* pivots below this times the largest: dependent */
#define KINK_TOL 1e-9  /* |w| of a row at zero impulse, or at its bound */
#define BOUND_TOL 1e-9 /* |x_t| within this (relative) of mu x_n: at the bound */
#define HELD_TOL 1e-9  /* |x'_2| below this times mu x_n: held at 0          */

typedef struct {
  const diagc_contact_problem *p;   /* the LCP's rows (turned after phase 1) */
  const diagc_contact_problem *p0;  /* the caller's (the default frames)    */
  const diagc_contact_options *o;
  const diagc_step_ops *ops;        /* the operators on p's rows            */
  const diagc_step_ops *uops;       /* the caller's                         */
  diagc_contact_problem pt;         /* p0 with the turned rows Jt, Mt       */
  diagc_step_ops tops;              /* uops turned                          */
  diagc_contact_tangent *t;
  int nv, nc, n3, nq;
  int ncol0;                        /* the caller's directions (t->ncol)    */
  int ncol;                         /* the live ones: the stride of every
                                       nv/nc/3 nc x ncol matrix below       */
  int *cm;                          /* ncol0: the caller's column of live
                                       column c (cm[c] = c for c < nq)      */
  int *rs;                          /* ncol0 + 1: the live columns in runs of
                                       consecutive caller's columns: run j
                                       is rs[j] .. rs[j + 1] - 1            */
  int nrun;
  int impacted;                     /* 1 once an impact was replayed (Tlam) */
  int mr;                           /* R's columns past mr are 0 (span)     */
  int tu;                           /* Tu: 0 formed; 1 not yet (u = v); 2
                                       not yet (u = (v + v*) / 2, no impact) */
  int *mc;                          /* nc: the live column of contact k's mu
                                       (t->mu_col), or -1                   */
  double *u, *vs, *dv, *vn, *y, *z; /* nv each                              */
  double *xl, *xr;                  /* 3 nc: the LCP's impulses; scratch    */
  double *lam;                      /* nc: the impacts' impulses            */
  double *ra, *rb;                  /* ncol each: scratch rows              */
  double *Tu, *Tvs, *Tw;            /* nv x ncol                            */
  double *Tlam;                     /* nc x ncol                            */
  double *D, *D2;                   /* nv x nq                              */
  double *DJ, *DJ2;                 /* 3 nc x nq                            */
  double *G;                        /* nv x n (the clamped columns)         */
  double *Q;                        /* n x n                                */
  double *R;                        /* n x ncol                             */
  int *cls, *C, *pos, *rp, *cp;     /* 3 nc each                            */
  int *pri;                         /* 3 nc: clamped rows with x != 0       */
  int *idx;                         /* max(3 nc, nv): row lists (add_rows) */
  double *coef;                     /* max(3 nc, nv): their factors         */
  int *rq, *cq;                     /* 3 nc: rp, cp inverted                */
  int *mn;                          /* 3 nc: moves_nothing of each row      */
  int *branch;                      /* nc                                   */
  double *Jt, *Mt;                  /* 3 nc x nv, nv x 3 nc: turned J, M^-1 J^T */
  double *fr;                       /* 2 nc: the frames (cos, sin)          */
  double *phi;                      /* nc x ncol: dphi (rows of dphi_on)    */
  double *xd;                       /* 3 nc: scratch (impulses turned back) */
  int *dphi_on;                     /* nc: 1 when contact k's dphi terms act */
  int *held;                        /* nc: 1 for a contact held to t1'      */
} tg;

static size_t doubles_needed(size_t nv, size_t nc, size_t ncol) {
  size_t n3 = 3 * nc;
  return 6 * nv + 2 * n3 + nc + 2 * ncol + 3 * nv * ncol + nc * ncol + 2 * nv * ncol + 2 * n3 * ncol +
         nv * n3 + n3 * n3 + n3 * ncol + 2 * n3 * nv + 2 * nc + nc * ncol + n3 + (n3 > nv ? n3 : nv);
}

size_t diagc_contact_tangent_workspace_size(int nv, int nc_max, int ncol) {
  size_t d, ints;
  if (nv < 0 || nc_max < 0 || ncol < 0 || nc_max > (1 << 16) || nv > (1 << 16) || ncol > (1 << 16)) return 0;
  d = doubles_needed((size_t)nv, (size_t)nc_max, (size_t)ncol);
  ints = 9 * 3 * (size_t)nc_max + 4 * (size_t)nc_max + (size_t)(3 * nc_max > nv ? 3 * nc_max : nv) +
         2 * (size_t)ncol + 1;
  return (d + ints + 1) * sizeof(double);
}

static double *take(double **q, size_t n) {
  double *r = *q;
  *q += n;
  return r;
}

static void carve(tg *g, void *ws) {
  size_t nv = (size_t)g->nv, nc = (size_t)g->nc, n3 = 3 * nc, nc_ = (size_t)g->ncol0;
  double *q = (double *)ws;
  int *iq;
  g->u = take(&q, nv), g->vs = take(&q, nv), g->dv = take(&q, nv);
  g->vn = take(&q, nv), g->y = take(&q, nv), g->z = take(&q, nv);
  g->xl = take(&q, n3), g->xr = take(&q, n3), g->lam = take(&q, nc);
  g->ra = take(&q, nc_), g->rb = take(&q, nc_);
  g->Tu = take(&q, nv * nc_), g->Tvs = take(&q, nv * nc_), g->Tw = take(&q, nv * nc_);
  g->Tlam = take(&q, nc * nc_);
  g->D = take(&q, nv * nc_), g->D2 = take(&q, nv * nc_);
  g->DJ = take(&q, n3 * nc_), g->DJ2 = take(&q, n3 * nc_);
  g->G = take(&q, nv * n3), g->Q = take(&q, n3 * n3), g->R = take(&q, n3 * nc_);
  g->Jt = take(&q, n3 * nv), g->Mt = take(&q, nv * n3), g->fr = take(&q, 2 * nc);
  g->phi = take(&q, nc * nc_), g->xd = take(&q, n3);
  g->coef = take(&q, n3 > nv ? n3 : nv);
  iq = (int *)q;
  g->cls = iq, iq += n3;
  g->C = iq, iq += n3;
  g->pos = iq, iq += n3;
  g->rp = iq, iq += n3;
  g->cp = iq, iq += n3;
  g->pri = iq, iq += n3;
  g->rq = iq, iq += n3;
  g->cq = iq, iq += n3;
  g->mn = iq, iq += n3;
  g->idx = iq, iq += n3 > nv ? n3 : nv;
  g->branch = iq, iq += nc;
  g->dphi_on = iq, iq += nc;
  g->held = iq, iq += nc;
  g->mc = iq, iq += nc;
  g->cm = iq, iq += nc_;
  g->rs = iq;
}

/* s[c] += |a_ic| over the nr rows a_i, columns c0 .. ncol-1: s[c] stays 0
 * exactly when column c is (a sum of magnitudes does not cancel; NaN
 * stays NaN, not 0); eight rows at a time, a loop that vectorizes */
static void add_magnitudes(const double *const *a, int nr, int ncol, int c0, double *restrict s) {
  int i = 0, c;
  for (; i + 8 <= nr; i += 8) {
    const double *restrict a0 = a[i], *restrict a1 = a[i + 1], *restrict a2 = a[i + 2], *restrict a3 = a[i + 3];
    const double *restrict a4 = a[i + 4], *restrict a5 = a[i + 5], *restrict a6 = a[i + 6], *restrict a7 = a[i + 7];
    for (c = c0; c < ncol; c++)
      s[c] += ((fabs(a0[c]) + fabs(a1[c])) + (fabs(a2[c]) + fabs(a3[c]))) +
              ((fabs(a4[c]) + fabs(a5[c])) + (fabs(a6[c]) + fabs(a7[c])));
  }
  for (; i < nr; i++) {
    const double *restrict a0 = a[i];
    for (c = c0; c < ncol; c++) s[c] += fabs(a0[c]);
  }
}

/* The live columns (g->cm, g->ncol, g->mc): the nq configuration columns
 * (the operators move them), and every other column whose seeds (Tv,
 * Tvstar, the depths) are not all zero or that moves a contact's mu.  The
 * step is linear in the seeds of a column >= nq: a dead column's
 * derivatives are exactly zero, and are not formed (a parameter's column
 * of a pair that does not touch, say).  The live ones are computed in the
 * same order with the same operations as they would be among all. */
static void live_columns(tg *g) {
  const diagc_contact_tangent *t = g->t;
  int ncol0 = g->ncol0, nq = g->nq, c, k, n = 0, nr = 0, i;
  double *s = g->ra; /* scratch here */
  const double *rows[8];
  for (c = nq; c < ncol0; c++) s[c] = 0.0;
  for (i = 0; i < 2 * g->nv + g->nc; i++) { /* the rows of Tvstar, Tv, Tdepth, eight at a time */
    rows[nr++] = i < g->nv       ? t->Tvstar + (size_t)i * (size_t)ncol0
                 : i < 2 * g->nv ? t->Tv + (size_t)(i - g->nv) * (size_t)ncol0
                                 : t->Tdepth + (size_t)(i - 2 * g->nv) * (size_t)ncol0;
    if (nr == 8 || i == 2 * g->nv + g->nc - 1) add_magnitudes(rows, nr, ncol0, nq, s), nr = 0;
  }
  for (k = 0; k < g->nc; k++)
    if (t->mu_col && t->mu_col[k] >= nq && t->mu_col[k] < ncol0) s[t->mu_col[k]] = 1.0;
  for (c = 0; c < ncol0; c++)
    if (c < nq || s[c] != 0.0) g->cm[n++] = c;
  g->ncol = n;
  g->nrun = 0;
  for (c = 0; c < n; c++)
    if (c == 0 || g->cm[c] != g->cm[c - 1] + 1) g->rs[g->nrun++] = c;
  g->rs[g->nrun] = n;
  for (k = 0; k < g->nc; k++) g->mc[k] = -1;
  if (t->mu_col)
    for (c = 0; c < n; c++)
      for (k = 0; k < g->nc; k++)
        if (t->mu_col[k] == g->cm[c]) g->mc[k] = c;
}

/* the live columns of the caller's row a (ncol0) into b (ncol), run by run */
static void gather_row(const tg *g, const double *a, double *b) {
  int j, c;
  for (j = 0; j < g->nrun; j++) {
    const int c0 = g->rs[j], c1 = g->rs[j + 1];
    const double *s = a + (g->cm[c0] - c0);
    if (c1 - c0 >= 8) memcpy(b + c0, s + c0, sizeof(double) * (size_t)(c1 - c0));
    else
      for (c = c0; c < c1; c++) b[c] = s[c];
  }
}

/* the n x ncol0 matrix A into the n x ncol matrix B: the live columns */
static void gather(const tg *g, const double *A, int n, double *B) {
  int i;
  for (i = 0; i < n; i++) gather_row(g, A + (size_t)i * (size_t)g->ncol0, B + (size_t)i * (size_t)g->ncol);
}

static double dot(const double *a, const double *b, int n) {
  double s = 0.0;
  int i;
  for (i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/* a . (column c of the nv x ncol matrix T) */
static double dot_col(const double *a, const double *T, int nv, int ncol, int c) {
  double s = 0.0;
  int i;
  for (i = 0; i < nv; i++) s += a[i] * T[(size_t)i * (size_t)ncol + c];
  return s;
}

/* y[c] += sum_k a[k] X[idx[k] ld + c] for c < m, the terms added one at a
 * time in k's order (up to eight rows per pass over y: loops that
 * vectorize) */
static void add_rows(double *restrict y, const double *restrict X, size_t ld, const int *idx, const double *a,
                     int na, int m) {
  int k = 0, c;
  while (na - k >= 8) {
    const double a0 = a[k], a1 = a[k + 1], a2 = a[k + 2], a3 = a[k + 3];
    const double a4 = a[k + 4], a5 = a[k + 5], a6 = a[k + 6], a7 = a[k + 7];
    const double *x0 = X + (size_t)idx[k] * ld, *x1 = X + (size_t)idx[k + 1] * ld;
    const double *x2 = X + (size_t)idx[k + 2] * ld, *x3 = X + (size_t)idx[k + 3] * ld;
    const double *x4 = X + (size_t)idx[k + 4] * ld, *x5 = X + (size_t)idx[k + 5] * ld;
    const double *x6 = X + (size_t)idx[k + 6] * ld, *x7 = X + (size_t)idx[k + 7] * ld;
    if (na - k == 9) { /* a row of J on a free base and a three-dof leg: one pass */
      const double a8 = a[k + 8], *x8 = X + (size_t)idx[k + 8] * ld;
      for (c = 0; c < m; c++)
        y[c] = ((((((((y[c] + a0 * x0[c]) + a1 * x1[c]) + a2 * x2[c]) + a3 * x3[c]) + a4 * x4[c]) + a5 * x5[c]) +
                 a6 * x6[c]) +
                a7 * x7[c]) +
               a8 * x8[c];
      return;
    }
    for (c = 0; c < m; c++)
      y[c] = (((((((y[c] + a0 * x0[c]) + a1 * x1[c]) + a2 * x2[c]) + a3 * x3[c]) + a4 * x4[c]) + a5 * x5[c]) +
              a6 * x6[c]) +
             a7 * x7[c];
    k += 8;
  }
  if (na - k >= 4) {
    const double a0 = a[k], a1 = a[k + 1], a2 = a[k + 2], a3 = a[k + 3];
    const double *x0 = X + (size_t)idx[k] * ld, *x1 = X + (size_t)idx[k + 1] * ld;
    const double *x2 = X + (size_t)idx[k + 2] * ld, *x3 = X + (size_t)idx[k + 3] * ld;
    for (c = 0; c < m; c++) y[c] = (((y[c] + a0 * x0[c]) + a1 * x1[c]) + a2 * x2[c]) + a3 * x3[c];
    k += 4;
  }
  if (na - k == 3) {
    const double a0 = a[k], a1 = a[k + 1], a2 = a[k + 2];
    const double *x0 = X + (size_t)idx[k] * ld, *x1 = X + (size_t)idx[k + 1] * ld, *x2 = X + (size_t)idx[k + 2] * ld;
    for (c = 0; c < m; c++) y[c] = ((y[c] + a0 * x0[c]) + a1 * x1[c]) + a2 * x2[c];
  } else if (na - k == 2) {
    const double a0 = a[k], a1 = a[k + 1], *x0 = X + (size_t)idx[k] * ld, *x1 = X + (size_t)idx[k + 1] * ld;
    for (c = 0; c < m; c++) y[c] = (y[c] + a0 * x0[c]) + a1 * x1[c];
  } else if (na - k == 1) {
    const double a0 = a[k], *x0 = X + (size_t)idx[k] * ld;
    for (c = 0; c < m; c++) y[c] += a0 * x0[c];
  }
}

/* the columns of the rows x ncol matrix A (row stride ld) up to its last
 * nonzero one (NaN counts as nonzero): the trailing zero columns are left
 * out of the products below (a contact's mu column while it sticks) */
static int span(const double *A, int rows, size_t ld, int ncol) {
  int i, c, m = 0;
  for (i = 0; i < rows; i++) {
    const double *a = A + (size_t)i * ld;
    for (c = ncol - 1; c >= m; c--)
      if (a[c] != 0.0) {
        m = c + 1;
        break;
      }
  }
  return m;
}

/* the nonzero entries of the row a (n) into g->idx, g->coef (times f: +-1);
 * their count */
static int nonzeros(tg *g, const double *a, int n, double f) {
  int j, m = 0;
  for (j = 0; j < n; j++)
    if (a[j] != 0.0) g->idx[m] = j, g->coef[m++] = f * a[j];
  return m;
}

/* T[:, 0..nq) += M^-1 D (D: nv x nq; with solve_cols, overwritten by
 * M^-1 D), all columns in one call, or column by column */
static void add_solved(tg *g, double *D, double *T) {
  int c, i;
  if (g->ops->solve_cols) {
    g->ops->solve_cols(g->ops->ctx, D, g->nq, g->nq);
    for (i = 0; i < g->nv; i++) {
      const double *d = D + (size_t)i * (size_t)g->nq;
      double *r = T + (size_t)i * (size_t)g->ncol;
      for (c = 0; c < g->nq; c++) r[c] += d[c];
    }
    return;
  }
  {
    const size_t lq = (size_t)g->nq, lc = (size_t)g->ncol;
    const int nv = g->nv, nq = g->nq;
    double *z = g->z;
    for (c = 0; c < nq; c++) {
      const double *d = D + c;
      double *r = T + c;
      for (i = 0; i < nv; i++) z[i] = d[(size_t)i * lq];
      g->ops->solve(g->ops->ctx, z);
      for (i = 0; i < nv; i++) r[(size_t)i * lc] += z[i];
    }
  }
}

/* column r of M^-1 J^T into y */
static void mj_column(const tg *g, int r, double *y) {
  int i;
  for (i = 0; i < g->nv; i++) y[i] = g->p->MinvJT[(size_t)i * (size_t)g->n3 + r];
}

/* ---- phase 1: the impacts, replayed ---- */

static void impact_hook(void *vctx, int k, const double *u, double vn, double a, double l) {
  tg *g = (tg *)vctx;
  const diagc_step_ops *ops = g->ops;
  int nv = g->nv, ncol = g->ncol, nq = g->nq, n = 3 * k, i, c;
  const double *Jn = g->p->J + (size_t)n * (size_t)nv;
  double e = g->p->restitution[k];
  (void)vn;
  mj_column(g, n, g->y);
  for (c = 0; c < ncol; c++) g->ra[c] = dot_col(Jn, g->Tu, nv, ncol, c); /* d vn */
  for (c = 0; c < ncol; c++) g->rb[c] = 0.0;                              /* d a  */
  if (nq > 0) {
    ops->dJy(ops->ctx, u, g->DJ);
    for (c = 0; c < nq; c++) g->ra[c] += g->DJ[(size_t)n * (size_t)nq + c];
    ops->dJy(ops->ctx, g->y, g->DJ);
    ops->dMy(ops->ctx, g->y, g->D2);
    for (c = 0; c < nq; c++) {
      double s = 2.0 * g->DJ[(size_t)n * (size_t)nq + c];
      for (i = 0; i < nv; i++) s -= g->y[i] * g->D2[(size_t)i * (size_t)nq + c];
      g->rb[c] = s;
    }
  }
  for (c = 0; c < ncol; c++) { /* d l */
    double dl = (-(1.0 + e) * g->ra[c] - l * g->rb[c]) / a;
    g->Tlam[(size_t)k * (size_t)ncol + c] += dl;
    for (i = 0; i < nv; i++) g->Tu[(size_t)i * (size_t)ncol + c] += g->y[i] * dl;
  }
  if (nq > 0) { /* l d(M^-1 J_n^T) = M^-1 (d(J^T l e_n) - l dM m) */
    memset(g->xr, 0, sizeof(double) * (size_t)g->n3);
    g->xr[n] = l;
    ops->dJTx(ops->ctx, g->xr, g->D);
    for (i = 0; i < nv * nq; i++) g->D[i] -= l * g->D2[i];
    add_solved(g, g->D, g->Tu);
  }
  if (g->t->bounce) g->t->bounce[k] = 1;
  g->impacted = 1;
}

/* Tu when it was left unformed (g->tu): v's derivative, or the midpoint
 * of v's and v*'s (no impact: Tvs is still v*'s) */
static void form_tu(tg *g) {
  size_t nvc = (size_t)g->nv * (size_t)g->ncol, i;
  if (g->tu == 0) return;
  gather(g, g->t->Tv, g->nv, g->Tu);
  if (g->tu == 2)
    for (i = 0; i < nvc; i++) g->Tu[i] = 0.5 * (g->Tu[i] + g->Tvs[i]);
  g->tu = 0;
}

/* u, Tu: the velocity the LCP starts from (after the impacts) and its
 * derivative; vs, Tvs: v* shifted by the impacts.  Tu is only read by the
 * impacts and by restitution targets: without an impact it is formed when
 * needed (form_tu), and Tvs is v*'s derivative. */
static void impacts(tg *g) {
  const diagc_contact_problem *p = g->p;
  const diagc_contact_tangent *t = g->t;
  size_t nvc = (size_t)g->nv * (size_t)g->ncol, i;
  int k, passes = 0;
  for (k = 0; k < g->nc; k++) g->lam[k] = 0.0;
  memset(g->Tlam, 0, sizeof(double) * (size_t)g->nc * (size_t)g->ncol);
  gather(g, t->Tvstar, g->nv, g->Tvs);
  if (!(g->o->restitution_passes > 0 && p->restitution)) {
    memcpy(g->u, p->v, sizeof(double) * (size_t)g->nv);
    memcpy(g->vs, p->vstar, sizeof(double) * (size_t)g->nv);
    g->tu = 1;
    return;
  }
  for (i = 0; i < (size_t)g->nv; i++) g->u[i] = 0.5 * (p->v[i] + p->vstar[i]);
  /* the passes on a copy: without an impact nothing below moves */
  memcpy(g->y, g->u, sizeof(double) * (size_t)g->nv);
  if (diagc__contact_impacts_hook(p, g->o, g->y, g->lam, &passes, NULL, NULL) == 0) {
    for (i = 0; i < (size_t)g->nv; i++) g->vs[i] = g->u[i] + 0.5 * (p->vstar[i] - p->v[i]);
    g->tu = 2;
    return;
  }
  gather(g, t->Tv, g->nv, g->Tu);
  for (i = 0; i < nvc; i++) g->Tw[i] = g->Tvs[i] - g->Tu[i]; /* Tvstar - Tv (Tw: free until phase 2) */
  for (i = 0; i < nvc; i++) g->Tu[i] = 0.5 * (g->Tu[i] + g->Tvs[i]);
  diagc__contact_impacts_hook(p, g->o, g->u, g->lam, &passes, impact_hook, g);
  for (i = 0; i < (size_t)g->nv; i++) g->vs[i] = g->u[i] + 0.5 * (p->vstar[i] - p->v[i]);
  for (i = 0; i < nvc; i++) g->Tvs[i] = g->Tu[i] + 0.5 * g->Tw[i];
}

/* ---- the friction frames (contact_friction.c), turned after phase 1 ---- */

static int is_turned(const tg *g, int k) { return g->fr[2 * k] != 1.0 || g->fr[2 * k + 1] != 0.0; }

/* rows 3k+1, 3k+2 of the 3 nc x n matrix A (row-major) turned by R_k */
static void turn_rows(const tg *g, double *A, size_t n) {
  int k;
  size_t j;
  for (k = 0; k < g->nc; k++) {
    double c = g->fr[2 * k], s = g->fr[2 * k + 1], *a1 = A + (size_t)(3 * k + 1) * n, *a2 = a1 + n;
    if (!is_turned(g, k)) continue;
    for (j = 0; j < n; j++) {
      double a = a1[j], b = a2[j];
      a1[j] = c * a + s * b;
      a2[j] = -s * a + c * b;
    }
  }
}

/* the operators on the turned rows: d(J' y) = R d(J y) (the turn's own
 * derivative is added apart, where dphi acts), d(J'^T x') = d(J^T R^T x') */
static void turned_dJy(void *ctx, const double *y, double *out) {
  tg *g = (tg *)ctx;
  g->uops->dJy(g->uops->ctx, y, out);
  turn_rows(g, out, (size_t)g->nq);
}

static void turned_dJTx(void *ctx, const double *x, double *out) {
  tg *g = (tg *)ctx;
  memcpy(g->xd, x, sizeof(double) * (size_t)g->n3);
  diagc__friction_turn(g->fr, g->nc, g->xd, 1);
  g->uops->dJTx(g->uops->ctx, g->xd, out);
}

static void turned_dMy(void *ctx, const double *y, double *out) {
  tg *g = (tg *)ctx;
  g->uops->dMy(g->uops->ctx, y, out);
}

static void turned_solve(void *ctx, double *x) {
  tg *g = (tg *)ctx;
  g->uops->solve(g->uops->ctx, x);
}

static void turned_solve_cols(void *ctx, double *X, int ncol, int ld) {
  tg *g = (tg *)ctx;
  g->uops->solve_cols(g->uops->ctx, X, ncol, ld);
}

/* the frames of the LCP's v* (g->vs), the turned rows and operators */
static void turn_problem(tg *g) {
  const diagc_contact_problem *p0 = g->p0;
  size_t nv = (size_t)g->nv, n3 = (size_t)g->n3, i;
  int k;
  diagc__friction_frames(p0, g->vs, p0->v, g->fr, g->held, NULL);
  memcpy(g->Jt, p0->J, sizeof(double) * n3 * nv);
  memcpy(g->Mt, p0->MinvJT, sizeof(double) * nv * n3);
  turn_rows(g, g->Jt, nv);
  for (i = 0; i < nv; i++) /* columns of M^-1 J^T: rows of its transpose */
    for (k = 0; k < g->nc; k++) {
      double c = g->fr[2 * k], s = g->fr[2 * k + 1], *m = g->Mt + i * n3 + (size_t)(3 * k), a = m[1], b = m[2];
      if (!is_turned(g, k)) continue;
      m[1] = c * a + s * b;
      m[2] = -s * a + c * b;
    }
  g->pt = *p0;
  g->pt.J = g->Jt, g->pt.MinvJT = g->Mt;
  g->p = &g->pt;
  if (g->uops) {
    g->tops.ctx = g;
    g->tops.dJy = g->uops->dJy ? turned_dJy : NULL;
    g->tops.dJTx = g->uops->dJTx ? turned_dJTx : NULL;
    g->tops.dMy = g->uops->dMy ? turned_dMy : NULL;
    g->tops.solve = g->uops->solve ? turned_solve : NULL;
    g->tops.solve_cols = g->uops->solve_cols ? turned_solve_cols : NULL;
    g->ops = &g->tops;
  }
}

/* The contacts the solve held to t1' (contact_friction.c): turned, slid
 * at v, and at their bound mu x_n with x'_2 = 0 (a held contact that
 * stopped was released and solved again: it is not at its bound, or its
 * x'_2 is free); their row t2' keeps x'_2 = 0 (not clamping, whatever its
 * w).  A tie (an unheld contact at its bound with x'_2 = 0 has w'_2 = 0)
 * is taken as held. */
static void held_classes(tg *g) {
  int k;
  for (k = 0; k < g->nc; k++) {
    const double *xr = g->xl + 3 * k;
    if (!g->held[k]) continue;
    if (!diagc__friction_at_bound(g->p0->mu[k], xr) || !(fabs(xr[2]) <= HELD_TOL * g->p0->mu[k] * xr[0])) {
      g->held[k] = 0;
      continue;
    }
    g->cls[3 * k + 2] = DIAGC_ROW_NOT_CLAMPING;
  }
}

/* dphi (g->phi) of the turned contacts whose friction rows do not both
 * clamp (g->dphi_on): u* = J_t v* in the default tangents (p0), du* = J_t
 * dv* + dJ_t v* */
static void frame_derivatives(tg *g) {
  const diagc_contact_problem *p0 = g->p0;
  int nv = g->nv, ncol = g->ncol, nq = g->nq, k, c, any = 0;
  for (k = 0; k < g->nc; k++) {
    const double *J1 = p0->J + (size_t)(3 * k + 1) * (size_t)nv;
    int stick = g->cls[3 * k + 1] == DIAGC_ROW_CLAMPING && g->cls[3 * k + 2] == DIAGC_ROW_CLAMPING;
    /* turned along u* (as diagc__friction_frames decides), even when that
       happens to be the default frame */
    g->dphi_on[k] = p0->mu[k] > 0.0 && !stick &&
                    hypot(dot(J1, g->vs, nv), dot(J1 + nv, g->vs, nv)) > DIAGC__FRICTION_TURN_TOL;
    any |= g->dphi_on[k];
  }
  if (!any) return;
  if (nq > 0) g->uops->dJy(g->uops->ctx, g->vs, g->DJ);
  for (k = 0; k < g->nc; k++) {
    const double *J1 = p0->J + (size_t)(3 * k + 1) * (size_t)nv, *J2 = J1 + nv;
    double u1, u2, r2, *ph = g->phi + (size_t)k * (size_t)ncol;
    if (!g->dphi_on[k]) continue;
    u1 = dot(J1, g->vs, nv), u2 = dot(J2, g->vs, nv), r2 = u1 * u1 + u2 * u2;
    for (c = 0; c < ncol; c++) {
      double du1 = dot_col(J1, g->Tvs, nv, ncol, c), du2 = dot_col(J2, g->Tvs, nv, ncol, c);
      if (c < nq) du1 += g->DJ[(size_t)(3 * k + 1) * (size_t)nq + c], du2 += g->DJ[(size_t)(3 * k + 2) * (size_t)nq + c];
      ph[c] = (u1 * du2 - u2 * du1) / r2;
    }
  }
}

/* the impulses turning with their frames: dw += dphi M^-1 (J'_t2^T x'_1 -
 * J'_t1^T x'_2) */
static void frame_velocity(tg *g) {
  int nv = g->nv, ncol = g->ncol, k, i, c;
  for (k = 0; k < g->nc; k++) {
    const double x1 = g->xl[3 * k + 1], x2 = g->xl[3 * k + 2], *ph = g->phi + (size_t)k * (size_t)ncol;
    if (!g->dphi_on[k]) continue;
    for (i = 0; i < nv; i++) {
      const double *m = g->Mt + (size_t)i * (size_t)g->n3 + (size_t)(3 * k);
      double a = m[2] * x1 - m[1] * x2, *tw = g->Tw + (size_t)i * (size_t)ncol;
      if (a == 0.0) continue;
      for (c = 0; c < ncol; c++) tw[c] += a * ph[c];
    }
  }
}

/* the rows turning under v': a clamping row t1' gets -a'_2 dphi, t2' gets
 * +a'_1 dphi on its right side (a' = J'_t v') */
static void frame_rhs(tg *g, int n) {
  int i, c, ncol = g->ncol;
  for (i = 0; i < n; i++) {
    int r = g->C[i], k = r / 3, t = r % 3;
    const double *J1 = g->Jt + (size_t)(3 * k + 1) * (size_t)g->nv, *ph = g->phi + (size_t)k * (size_t)ncol;
    double f;
    if (t == 0 || !g->dphi_on[k]) continue;
    f = t == 1 ? -dot(J1 + g->nv, g->vn, g->nv) : dot(J1, g->vn, g->nv);
    for (c = 0; c < ncol; c++) g->R[(size_t)g->rq[i] * (size_t)ncol + c] += f * ph[c];
  }
}

/* contact k's rows of Tx back to the default tangents: dx = R^T dx' +
 * dphi (x'_1 e2 - x'_2 e1) (a1, a2: its rows t1', t2', ncol each, in place) */
static void frame_results(const tg *g, int k, double *a1, double *a2) {
  int c, ncol = g->ncol;
  double cs = g->fr[2 * k], sn = g->fr[2 * k + 1], x1 = g->xl[3 * k + 1], x2 = g->xl[3 * k + 2];
  const double *ph = g->phi + (size_t)k * (size_t)ncol;
  if (!is_turned(g, k) && !g->dphi_on[k]) return;
  for (c = 0; c < ncol; c++) {
    double a = a1[c], b = a2[c];
    a1[c] = cs * a - sn * b;
    a2[c] = sn * a + cs * b;
  }
  if (g->dphi_on[k])
    for (c = 0; c < ncol; c++) a1[c] += (-sn * x1 - cs * x2) * ph[c], a2[c] += (cs * x1 - sn * x2) * ph[c];
}

/* ---- phase 2: the clamped LCP ---- */

static double sgn(double x) { return x < 0.0 ? -1.0 : 1.0; }

/* the clamped rows (C, pos), the columns G and the matrix Q; returns n */
static int clamped_system(tg *g) {
  const diagc_contact_problem *p = g->p;
  int nv = g->nv, n3 = g->n3, n = 0, r, i, j;
  for (r = 0; r < n3; r++) {
    g->pos[r] = -1;
    if (g->cls[r] == DIAGC_ROW_CLAMPING) g->pos[r] = n, g->C[n++] = r;
  }
  for (i = 0; i < nv; i++)
    for (j = 0; j < n; j++) g->G[(size_t)i * (size_t)n + j] = p->MinvJT[(size_t)i * (size_t)n3 + g->C[j]];
  for (r = 0; r < n3; r++) {
    int rn = 3 * (r / 3);
    double f;
    if (g->cls[r] != DIAGC_ROW_UPPER_BOUND || g->pos[rn] < 0) continue;
    f = sgn(g->xl[r]) * p->mu[r / 3];
    for (i = 0; i < nv; i++) g->G[(size_t)i * (size_t)n + g->pos[rn]] += f * p->MinvJT[(size_t)i * (size_t)n3 + r];
  }
  for (i = 0; i < n; i++) { /* J's row: its two bodies' dofs */
    double *q = g->Q + (size_t)i * (size_t)n;
    for (j = 0; j < n; j++) q[j] = 0.0;
    add_rows(q, g->G, (size_t)n, g->idx, g->coef, nonzeros(g, p->J + (size_t)g->C[i] * (size_t)nv, nv, 1.0), n);
    q[i] += g->o->cfm;
  }
  return n;
}

/* dw = dvs + M^-1 (dJ^T x - dM dv) + the mu columns of E x */
static void held_impulse_velocity(tg *g) {
  const diagc_contact_problem *p = g->p;
  const diagc_contact_tangent *t = g->t;
  int nv = g->nv, ncol = g->ncol, r, i;
  memcpy(g->Tw, g->Tvs, sizeof(double) * (size_t)nv * (size_t)ncol);
  if (g->nq > 0) {
    g->ops->dJTx(g->ops->ctx, g->xl, g->D);
    g->ops->dMy(g->ops->ctx, g->dv, g->D2);
    for (i = 0; i < nv * g->nq; i++) g->D[i] -= g->D2[i];
    add_solved(g, g->D, g->Tw);
  }
  if (!t->mu_col) return;
  for (r = 0; r < g->n3; r++) {
    int c = r / 3, col = g->mc[c];
    double f;
    if (g->cls[r] != DIAGC_ROW_UPPER_BOUND || col < 0) continue;
    f = sgn(g->xl[r]) * g->xl[3 * c];
    for (i = 0; i < nv; i++) g->Tw[(size_t)i * (size_t)ncol + col] += f * p->MinvJT[(size_t)i * (size_t)g->n3 + r];
  }
}

/* R: the right-hand sides of the clamped rows */
static void clamped_rhs(tg *g, int n) {
  const diagc_contact_problem *p = g->p;
  const diagc_contact_tangent *t = g->t;
  int nv = g->nv, ncol = g->ncol, nq = g->nq, i, c, rest = 0, mt = span(g->Tw, nv, (size_t)ncol, ncol);
  for (i = 0; i < n; i++) rest |= g->C[i] % 3 == 0 && g->branch[g->C[i] / 3] == DIAGC__TARGET_RESTITUTION;
  if (rest) form_tu(g);
  if (nq > 0) {
    g->ops->dJy(g->ops->ctx, g->vn, g->DJ);
    if (rest) g->ops->dJy(g->ops->ctx, g->u, g->DJ2);
  }
  for (i = 0; i < n; i++) { /* row i of R at its pivot position rq[i] */
    int r = g->C[i], k = r / 3;
    const double *Jr = p->J + (size_t)r * (size_t)nv, *dj = g->DJ + (size_t)r * (size_t)nq;
    int b = r % 3 == 0 ? g->branch[k] : DIAGC__TARGET_CONST;
    double e = p->restitution ? p->restitution[k] : 0.0, *out = g->R + (size_t)g->rq[i] * (size_t)ncol;
    for (c = 0; c < ncol; c++) out[c] = 0.0;
    /* -J_r dw (J's row: only its two bodies' dofs) */
    add_rows(out, g->Tw, (size_t)ncol, g->idx, g->coef, nonzeros(g, Jr, nv, -1.0), mt);
    for (c = 0; c < nq; c++) out[c] -= dj[c];
    if (b == DIAGC__TARGET_RESTITUTION) {
      for (c = 0; c < ncol; c++)
        out[c] -= e * (dot_col(Jr, g->Tu, nv, ncol, c) + (c < nq ? g->DJ2[(size_t)r * (size_t)nq + c] : 0.0));
    } else if (b == DIAGC__TARGET_PENETRATION || b == DIAGC__TARGET_GAP) {
      double *td = g->rb;
      gather_row(g, t->Tdepth + (size_t)k * (size_t)g->ncol0, td);
      if (b == DIAGC__TARGET_PENETRATION) {
        const double f = g->o->erp / p->dt;
        for (c = 0; c < ncol; c++) out[c] += f * td[c];
      } else {
        for (c = 0; c < ncol; c++) out[c] += td[c] / p->dt;
      }
    }
  }
}

/* the largest |Q_ij| over rows and columns k.. (columns with pri[cp[j]]
 * only, when pri is not NULL), its first place column by column (NaN
 * never taken); -1 when there is none.  cm: n scratch (the columns'
 * largest, row by row: a loop that vectorizes) */
static double pivot_search(const double *Q, int n, int k, const int *cp, const int *pri, int *bi, int *bj,
                           double *restrict cm) {
  double best = -1.0;
  int i, j;
  for (j = k; j < n; j++) cm[j] = -1.0;
  for (i = k; i < n; i++) {
    const double *restrict q = Q + (size_t)i * n;
    for (j = k; j < n; j++) {
      const double a = fabs(q[j]);
      cm[j] = a > cm[j] ? a : cm[j];
    }
  }
  for (j = k; j < n; j++) {
    if (pri && !pri[cp[j]]) continue;
    if (cm[j] > best) best = cm[j], *bj = j;
  }
  if (best >= 0.0)
    for (i = k; i < n; i++)
      if (fabs(Q[(size_t)i * n + *bj]) == best) {
        *bi = i;
        break;
      }
  return best;
}

/* LU of the n x n Q with complete pivoting, in place; returns the rank.
 * pri (n, may be NULL): columns to pivot on first; the others only once
 * those are exhausted, so the dependent unknowns (left at 0 by the
 * basic solution) are taken among the others: the rows the LCP solver
 * left at zero impulse when it dropped dependent columns.  cm: n scratch. */
static int lu_complete(double *Q, int n, int *rp, int *cp, const int *pri, double *cm) {
  int k, i, j, rank = 0, phase = pri ? 0 : 1;
  double first = 0.0;
  for (i = 0; i < n; i++) rp[i] = i, cp[i] = i;
  for (k = 0; k < n; k++) {
    int bi = k, bj = k;
    double best = pivot_search(Q, n, k, cp, phase == 0 ? pri : NULL, &bi, &bj, cm);
    if (k == 0 || first == 0.0) first = best > 0.0 ? best : first;
    if (phase == 0 && !(best > RANK_TOL * first)) {
      phase = 1;
      best = pivot_search(Q, n, k, cp, NULL, &bi, &bj, cm);
      if (first == 0.0 && best > 0.0) first = best;
    }
    if (!(best > RANK_TOL * first) || best == 0.0) break;
    if (bi != k) {
      int tmp = rp[k];
      rp[k] = rp[bi], rp[bi] = tmp;
      for (j = 0; j < n; j++) {
        double s = Q[(size_t)k * n + j];
        Q[(size_t)k * n + j] = Q[(size_t)bi * n + j], Q[(size_t)bi * n + j] = s;
      }
    }
    if (bj != k) {
      int tmp = cp[k];
      cp[k] = cp[bj], cp[bj] = tmp;
      for (i = 0; i < n; i++) {
        double s = Q[(size_t)i * n + k];
        Q[(size_t)i * n + k] = Q[(size_t)i * n + bj], Q[(size_t)i * n + bj] = s;
      }
    }
    for (i = k + 1; i < n; i++) { /* rows i and k: distinct */
      double *restrict qi = Q + (size_t)i * n;
      const double *restrict qk = Q + (size_t)k * n;
      const double f = qi[k] / qk[k];
      qi[k] = f;
      for (j = k + 1; j < n; j++) qi[j] -= f * qk[j];
    }
    rank++;
  }
  return rank;
}

/* solves column c of R in place (basic solution: dependent unknowns 0);
 * s: n scratch */
static void lu_solve_col(const double *Q, int n, int rank, const int *rp, const int *cp, double *R, int ncol,
                         int c, double *s) {
  int i, j;
  for (i = 0; i < n; i++) s[i] = R[(size_t)rp[i] * (size_t)ncol + c];
  for (i = 0; i < rank; i++)
    for (j = 0; j < i; j++) s[i] -= Q[(size_t)i * n + j] * s[j];
  for (i = rank - 1; i >= 0; i--) {
    for (j = i + 1; j < rank; j++) s[i] -= Q[(size_t)i * n + j] * s[j];
    s[i] /= Q[(size_t)i * n + i];
  }
  for (i = rank; i < n; i++) s[i] = 0.0;
  for (i = 0; i < n; i++) R[(size_t)cp[i] * (size_t)ncol + c] = s[i];
}

/* solves Q dx = R in place, R's rows in pivot order (row rq[i] holds
 * clamped row i's right side): on return row cq[j] holds unknown j (basic
 * solution: the rows from the rank on are 0) */
static void lu_solve_rows(tg *g, int n, int rank) {
  const double *Q = g->Q;
  size_t ld = (size_t)g->ncol;
  int i, c, m, mr = g->mr = span(g->R, n, ld, g->ncol); /* the columns past mr: 0, and their solution */
  for (i = 1; i < rank; i++) {
    m = nonzeros(g, Q + (size_t)i * (size_t)n, i, -1.0);
    add_rows(g->R + (size_t)i * ld, g->R, ld, g->idx, g->coef, m, mr);
  }
  for (i = rank - 1; i >= 0; i--) {
    double *si = g->R + (size_t)i * ld, d = Q[(size_t)i * (size_t)n + i];
    m = nonzeros(g, Q + (size_t)i * (size_t)n + (i + 1), rank - i - 1, -1.0);
    for (c = 0; c < m; c++) g->idx[c] += i + 1;
    add_rows(si, g->R, ld, g->idx, g->coef, m, mr);
    for (c = 0; c < mr; c++) si[c] /= d;
  }
  for (i = rank; i < n; i++) memset(g->R + (size_t)i * ld, 0, sizeof(double) * ld);
}

/* the live columns' row b into the caller's row out (its dead columns 0:
 * the row zeroed first when there are gaps, one call) */
static void scatter(const tg *g, const double *b, double *out) {
  int j, c;
  if (g->ncol < g->ncol0) memset(out, 0, sizeof(double) * (size_t)g->ncol0);
  for (j = 0; j < g->nrun; j++) {
    const int c0 = g->rs[j], c1 = g->rs[j + 1];
    double *d = out + (g->cm[c0] - c0);
    if (c1 - c0 >= 8) memcpy(d + c0, b + c0, sizeof(double) * (size_t)(c1 - c0));
    else
      for (c = c0; c < c1; c++) d[c] = b[c];
  }
}

/* dv' = dw + G dx_C; dx (rows C: dx_C, U: s mu dx_n (+ s x_n on its mu
 * column), others 0; the impacts' dl on the normals); dx_C: lu_solve_rows' */
static void results(tg *g, int n, int rank) {
  const diagc_contact_problem *p = g->p;
  diagc_contact_tangent *t = g->t;
  int nv = g->nv, ncol = g->ncol, r, i, j, c;
  for (i = 0; i < nv; i++) { /* Tw's row i += G_i dx_C, the unknowns in order */
    const double *gi = g->G + (size_t)i * (size_t)n;
    double *tw = g->Tw + (size_t)i * (size_t)ncol;
    int m = 0;
    for (j = 0; j < n; j++)
      if (gi[j] != 0.0 && g->cq[j] < rank) g->idx[m] = g->cq[j], g->coef[m++] = gi[j];
    add_rows(tw, g->R, (size_t)ncol, g->idx, g->coef, m, g->mr);
    scatter(g, tw, t->Tv_next + (size_t)i * (size_t)g->ncol0);
  }
  if (!t->Tx) return;
  for (r = 0; r < g->n3; r++) { /* contact k's three rows in DJ (free here), turned back, then out */
    int k = r / 3, rn = 3 * k;
    double *row = g->DJ + (size_t)(r - rn) * (size_t)ncol;
    if (g->pos[r] >= 0) {
      const double *s = g->R + (size_t)g->cq[g->pos[r]] * (size_t)ncol;
      for (c = 0; c < ncol; c++) row[c] = s[c];
    } else if (g->cls[r] == DIAGC_ROW_UPPER_BOUND && g->pos[rn] >= 0) {
      const double f = sgn(g->xl[r]), *s = g->R + (size_t)g->cq[g->pos[rn]] * (size_t)ncol;
      for (c = 0; c < ncol; c++) row[c] = f * p->mu[k] * s[c];
      if (g->mc[k] >= 0) row[g->mc[k]] += f * g->xl[rn];
    } else {
      for (c = 0; c < ncol; c++) row[c] = 0.0;
    }
    if (r == rn && g->impacted) /* Tlam: zero without an impact */
      for (c = 0; c < ncol; c++) row[c] += g->Tlam[(size_t)k * (size_t)ncol + c];
    if (r - rn < 2) continue;
    frame_results(g, k, g->DJ + (size_t)ncol, g->DJ + 2 * (size_t)ncol);
    for (j = 0; j < 3; j++) scatter(g, g->DJ + (size_t)j * (size_t)ncol, t->Tx + (size_t)(rn + j) * (size_t)g->ncol0);
  }
}

/* w = J v' + cfm x - target of every row, into g->xr (kept: refine_classes
 * and count_kinks read it) */
static void row_velocities(tg *g, const diagc_contact_problem *p2) {
  const diagc_contact_problem *p = g->p;
  int r;
  for (r = 0; r < g->n3; r++) {
    double tgt = r % 3 == 0 ? diagc__contact_normal_target(p2, g->o, r / 3, NULL) : 0.0;
    g->xr[r] = dot(p->J + (size_t)r * (size_t)g->nv, g->vn, g->nv) + g->o->cfm * g->xl[r] - tgt;
  }
}

/* g->mn: 1 for a row whose impulse column M^-1 J_r^T is below the class
 * tolerance */
static void rows_moving_nothing(tg *g) {
  double *cn = g->xd; /* scratch here */
  int i, r;
  for (r = 0; r < g->n3; r++) cn[r] = 0.0;
  for (i = 0; i < g->nv; i++) {
    const double *m = g->p->MinvJT + (size_t)i * (size_t)g->n3;
    for (r = 0; r < g->n3; r++) cn[r] += m[r] * m[r];
  }
  for (r = 0; r < g->n3; r++) g->mn[r] = sqrt(cn[r]) < DIAGC_CLASS_COLUMN_TOL;
}

static int moves_nothing(const tg *g, int r) { return g->mn[r]; }

/* The classes by complementarity where the impulse thresholds of
 * diagc_contact_classify cannot tell (impulses of the order of the
 * thresholds, as a light body's resting impulses per step are): a normal
 * row with x > 0 and w = 0 clamps, with x = 0 it does not; a friction row
 * of a clamping normal strictly inside its bound with w = 0 sticks
 * (clamps), at its bound with w != 0 slides (upper bound).  A row at its
 * bound with w = 0 keeps its class (a stick/slip tie: count_kinks). */
static void refine_classes(tg *g) {
  const diagc_contact_problem *p = g->p;
  int r;
  for (r = 0; r < g->n3; r++) {
    int k = r / 3, rn = 3 * k;
    double w = g->xr[r], x = g->xl[r], bound;
    if (r != rn && !(p->mu[k] > 0.0)) continue;
    if (moves_nothing(g, r)) continue; /* not clamping */
    if (r == rn) {
      if (x > 0.0 && fabs(w) <= KINK_TOL && g->cls[r] == DIAGC_ROW_NOT_CLAMPING && x < DIAGC_CLASS_INSIDE_TOL)
        g->cls[r] = DIAGC_ROW_CLAMPING;
      else if (x == 0.0)
        g->cls[r] = DIAGC_ROW_NOT_CLAMPING;
      continue;
    }
    if (g->cls[rn] != DIAGC_ROW_CLAMPING) {
      g->cls[r] = DIAGC_ROW_NOT_CLAMPING;
      continue;
    }
    bound = p->mu[k] * g->xl[rn];
    if (fabs(w) <= KINK_TOL && fabs(x) < bound * (1.0 - BOUND_TOL)) g->cls[r] = DIAGC_ROW_CLAMPING;
    else if (fabs(w) > KINK_TOL && fabs(x) >= bound * (1.0 - BOUND_TOL)) g->cls[r] = DIAGC_ROW_UPPER_BOUND;
  }
}

/* 1 when contact k is a bilateral row (diagc_contact_problem.bound) */
static int is_bilateral(const tg *g, int k) { return g->p0->bound && g->p0->bound[k] > 0.0; }

/* The classes of the bilateral rows (a joint's Coulomb friction, an
 * equality): strictly inside their constant bounds they clamp (w = 0
 * held, a stuck joint included, whatever its x); at a bound they keep
 * x = +-bound, a constant (UPPER_BOUND: no column of the clamped
 * system). */
static void bilateral_classes(tg *g) {
  int k;
  for (k = 0; k < g->nc; k++) {
    double bd, x = g->xl[3 * k];
    if (!is_bilateral(g, k)) continue;
    bd = g->p0->bound[k];
    if (moves_nothing(g, 3 * k)) g->cls[3 * k] = DIAGC_ROW_NOT_CLAMPING;
    else g->cls[3 * k] = fabs(x) < bd * (1.0 - BOUND_TOL) ? DIAGC_ROW_CLAMPING : DIAGC_ROW_UPPER_BOUND;
  }
}

/* rows at a class boundary: zero impulse with zero w, or at the friction
 * bound with zero w (stick/slip); normal targets at a tie of terms */
static int count_kinks(const tg *g) {
  const diagc_contact_problem *p = g->p;
  int r, k, kinks = 0;
  for (r = 0; r < g->n3; r++) { /* w: row_velocities' (g->xr) */
    int k3 = r / 3, cl = g->cls[r];
    if ((r % 3 != 0 && !(p->mu[k3] > 0.0)) || moves_nothing(g, r) || (r % 3 == 2 && g->held[k3])) continue;
    if ((cl == DIAGC_ROW_NOT_CLAMPING || cl == DIAGC_ROW_UPPER_BOUND) && fabs(g->xr[r]) <= KINK_TOL) kinks++;
  }
  for (k = 0; k < g->nc; k++) {
    double d = p->depth[k];
    if (is_bilateral(g, k)) continue; /* one target term: no tie */
    if (fabs(d) <= KINK_TOL || fabs(d - g->o->allowed_penetration) <= KINK_TOL) kinks++;
  }
  return kinks;
}

static int check_args(const diagc_contact_problem *p, const diagc_contact_options *o, const double *x,
                      const double *v_next, const diagc_step_ops *ops, const diagc_contact_tangent *t) {
  int i;
  if (!p || !o || !x || !v_next || !t || p->nv < 0 || p->nc < 0) return 0;
  if (t->ncol < 0 || t->nq < 0 || t->nq > t->ncol || !t->Tv || !t->Tvstar || !t->Tv_next) return 0;
  if (p->nc > 0 && (!p->J || !p->MinvJT || !p->v || !p->vstar || !p->depth || !p->mu || !t->Tdepth)) return 0;
  if (t->nq > 0 && (!ops || !ops->dJy || !ops->dJTx || !ops->dMy || !ops->solve)) return 0;
  for (i = 0; i < 3 * p->nc; i++)
    if (!isfinite(x[i])) return 0;
  for (i = 0; i < p->nv; i++)
    if (!isfinite(v_next[i])) return 0;
  return 1;
}

int diagc_contact_tangent_solve(const diagc_contact_problem *p, const diagc_contact_options *o,
                                const double *x, const double *v_next, const diagc_step_ops *ops,
                                diagc_contact_tangent *t, void *ws, size_t ws_size) {
  tg g;
  diagc_contact_problem p2;
  int n, r, i, k;
  if (!check_args(p, o, x, v_next, ops, t)) return DIAGC_CONTACT_E_ARG;
  if (!ws || ws_size < diagc_contact_tangent_workspace_size(p->nv, p->nc, t->ncol))
    return DIAGC_CONTACT_E_WORKSPACE;
  memset(&g, 0, sizeof g);
  g.p = g.p0 = p, g.o = o, g.ops = g.uops = ops, g.t = t;
  g.nv = p->nv, g.nc = p->nc, g.n3 = 3 * p->nc, g.ncol0 = g.ncol = t->ncol, g.nq = t->nq;
  carve(&g, ws);
  live_columns(&g);
  t->clamped = t->rank = t->kinks = 0;
  if (t->bounce)
    for (k = 0; k < g.nc; k++) t->bounce[k] = 0;
  impacts(&g);
  /* from here on the LCP's rows: turned (g.p, g.ops) */
  turn_problem(&g);
  /* the LCP's own impulses, velocity change and classes */
  for (r = 0; r < g.n3; r++) g.xl[r] = x[r] - (r % 3 == 0 ? g.lam[r / 3] : 0.0);
  diagc__friction_turn(g.fr, g.nc, g.xl, 0);
  for (i = 0; i < g.nv; i++) {
    double s = 0.0;
    for (r = 0; r < g.n3; r++) s += g.Mt[(size_t)i * (size_t)g.n3 + r] * g.xl[r];
    g.dv[i] = s, g.vn[i] = g.vs[i] + s;
  }
  if (g.nc > 0 && diagc_contact_classify(g.nv, g.nc, g.Mt, g.xl, p->mu, g.cls) < 0) return DIAGC_CONTACT_E_ARG;
  p2 = *g.p, p2.v = g.u, p2.vstar = g.vs;
  rows_moving_nothing(&g);
  row_velocities(&g, &p2);
  refine_classes(&g);
  held_classes(&g);
  bilateral_classes(&g);
  frame_derivatives(&g);
  for (k = 0; k < g.nc; k++) diagc__contact_normal_target(&p2, o, k, &g.branch[k]);
  n = clamped_system(&g);
  for (i = 0; i < n; i++) g.pri[i] = g.xl[g.C[i]] != 0.0;
  t->rank = lu_complete(g.Q, n, g.rp, g.cp, g.pri, g.xd);
  for (i = 0; i < n; i++) g.rq[g.rp[i]] = i, g.cq[g.cp[i]] = i;
  held_impulse_velocity(&g);
  frame_velocity(&g);
  clamped_rhs(&g, n);
  frame_rhs(&g, n);
  lu_solve_rows(&g, n, t->rank);
  results(&g, n, t->rank);
  t->clamped = n;
  t->kinks = count_kinks(&g);
  /* dependent clamped rows with friction at its bound: the impulses'
     split, hence the friction and v', are not unique (hard contact with
     Coulomb friction); the basic solution is one of them */
  for (r = 0; r < g.n3; r++)
    if (g.cls[r] == DIAGC_ROW_UPPER_BOUND && t->rank < n) {
      t->kinks += n - t->rank;
      break;
    }
  for (k = 0; k < g.nc; k++) {
    if (t->bounce && g.cls[3 * k] == DIAGC_ROW_CLAMPING && g.branch[k] == DIAGC__TARGET_RESTITUTION) t->bounce[k] = 1;
  }
  if (t->cls) memcpy(t->cls, g.cls, sizeof(int) * (size_t)g.n3);
  if (t->target) memcpy(t->target, g.branch, sizeof(int) * (size_t)g.nc);
  return DIAGC_OK;
}

/* ---- DiffDART's bounce factor ---- */

int diagc_bounce_matrix(int nv, int m, const double *J, const double *e, double *B, double *ws) {
  double *K = ws, *c = ws + (size_t)m * (size_t)m, *s = c + m;
  int *rp = (int *)(s + m), *cp = rp + m, i, j, k, rank;
  if (nv < 0 || m < 0 || !B || (m > 0 && (!J || !e || !ws))) return DIAGC_CONTACT_E_ARG;
  for (i = 0; i < nv * nv; i++) B[i] = 0.0;
  for (i = 0; i < nv; i++) B[(size_t)i * nv + i] = 1.0;
  if (m == 0) return DIAGC_OK;
  for (j = 0; j < m; j++) {
    const double *a = J + (size_t)j * nv;
    double na = sqrt(dot(a, a, nv));
    if (!(na > 0.0) || !isfinite(na)) return DIAGC_CONTACT_E_ARG;
    for (k = 0; k < m; k++) {
      const double *b = J + (size_t)k * nv;
      double ab = dot(a, b, nv) / (na * sqrt(dot(b, b, nv)));
      K[(size_t)j * m + k] = ab * ab;
    }
    c[j] = -(1.0 + e[j]);
  }
  rank = lu_complete(K, m, rp, cp, NULL, s);
  lu_solve_col(K, m, rank, rp, cp, c, 1, 0, s);
  for (k = 0; k < m; k++) {
    const double *a = J + (size_t)k * nv;
    double n2 = dot(a, a, nv);
    for (i = 0; i < nv; i++)
      for (j = 0; j < nv; j++) B[(size_t)i * nv + j] += c[k] * a[i] * a[j] / n2;
  }
  return DIAGC_OK;
}
