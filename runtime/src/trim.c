/* trim.c: an operating point where chosen derivatives and outputs take
 * chosen values (diagc/trim.h): Newton's method with a backtracking line
 * search, Gauss-Newton or minimum-norm steps when the numbers of unknowns
 * and equations differ, over the evaluations and the Jacobian shared with
 * linearize.c (lin_internal.h). */
#include "diagc/trim.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lin_internal.h"

#define RANK_TOL 1e-11 /* |R_kk| below this times the largest: rank deficient */
#define STALL_STEPS 8    /* the residual must shrink over this many iterations */
#define STALL_RATIO 0.99 /* by at least 1 %, or the iteration stalls */

void diagc_trim_problem_init(diagc_trim_problem *p) {
  if (!p) return;
  memset(p, 0, sizeof *p);
  p->n_free = DIAGC_TRIM_STATES;
  p->n_eq = DIAGC_TRIM_STATES;
  p->jacobian = DIAGC_JACOBIAN_MODEL;
  p->tolerance = 1e-10;
  p->max_iterations = 50;
}

static int fail(int code, char *err, size_t errlen, const char *fmt, ...) {
  if (err && errlen > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return code;
}

typedef struct trim_ws {
  const diagc_model *m;
  void *ctx;
  lin_sel s;
  int nfree, neq, ncols, nrows;
  int *free, *eq;
  double *target;
  double *x, *u, *f, *y; /* the point and its values */
  double *r, *J, *Jr, *dz, *z0, *hv, *bv, *rv;
  int nmax;
} trim_ws;

/* the name of an unknown (a column) or an equation (a row) */
static void col_text(const trim_ws *w, int c, char *buf, size_t n) { diagc__lin_col_name(w->m, &w->s, c, buf, n); }
static void row_text(const trim_ws *w, int r, char *buf, size_t n) {
  char nm[200];
  if (r >= w->s.nc && r < w->s.nx) {
    diagc__lin_col_name(w->m, &w->s, r, nm, sizeof nm);
    snprintf(buf, n, "%.90s[n+1] - %.90s[n]", nm, nm);
  } else {
    diagc__lin_row_name(w->m, &w->s, r, buf, n);
  }
}

static double *zvalue(trim_ws *w, int c) { return c < w->s.nx ? &w->x[c] : &w->u[c - w->s.nx]; }

/* r at the point in w (written into ctx); max |r| into *norm; -1 when an
   evaluation fails */
static int residual(trim_ws *w, double *norm, char *err, size_t errlen) {
  int k;
  diagc__lin_write(w->m, w->ctx, &w->s, w->x, w->u);
  if (diagc__lin_values(w->m, w->ctx, &w->s, w->f, w->y, err, errlen) != DIAGC_OK) return -1;
  *norm = 0.0;
  for (k = 0; k < w->neq; k++) {
    int row = w->eq[k];
    double v = row < w->s.nc ? w->f[row] : row < w->s.nx ? w->f[row] - w->x[row] : w->y[row - w->s.nx];
    w->r[k] = v - w->target[k];
    if (!isfinite(w->r[k])) return -1;
    if (fabs(w->r[k]) > *norm) *norm = fabs(w->r[k]);
  }
  return 0;
}

/* Householder QR of the m x n row-major Q (m >= n) in place: R above the
   diagonal and on it (diag), the reflectors' vectors below with v_k[k]
   in hv[k]; the index of the first column whose |R_kk| is negligible, or
   -1 */
static int householder(int m, int n, double *Q, double *diag, double *hv) {
  int i, j, k, bad = -1;
  double big = 0.0;
  for (k = 0; k < n; k++) {
    double nrm = 0.0;
    for (i = k; i < m; i++) nrm = hypot(nrm, Q[i * n + k]);
    double a = Q[k * n + k] > 0 ? -nrm : nrm;
    diag[k] = a;
    if (nrm == 0.0) { hv[k] = 0.0; continue; }
    Q[k * n + k] -= a; /* v = x - a e1, |v|^2 = 2 nrm (nrm + |x_k|) */
    hv[k] = Q[k * n + k];
    double vv = 0.0;
    for (i = k; i < m; i++) vv += Q[i * n + k] * Q[i * n + k];
    for (j = k + 1; j < n; j++) {
      double d = 0.0;
      for (i = k; i < m; i++) d += Q[i * n + k] * Q[i * n + j];
      d = 2.0 * d / vv;
      for (i = k; i < m; i++) Q[i * n + j] -= d * Q[i * n + k];
    }
  }
  for (k = 0; k < n; k++) big = fmax(big, fabs(diag[k]));
  for (k = 0; k < n && bad < 0; k++)
    if (!(fabs(diag[k]) > RANK_TOL * big)) bad = k;
  return bad;
}

/* applies reflector k of Q (m x n) to the vector b (length m) */
static void reflect(int m, int n, const double *Q, int k, double *b) {
  double vv = 0.0, d = 0.0;
  for (int i = k; i < m; i++) {
    vv += Q[i * n + k] * Q[i * n + k];
    d += Q[i * n + k] * b[i];
  }
  if (vv == 0.0) return;
  d = 2.0 * d / vv;
  for (int i = k; i < m; i++) b[i] -= d * Q[i * n + k];
}

/* x (n) minimizing |Q x - rhs| for the m x n row-major Q (m >= n,
   destroyed), by Householder QR; b: m scratch; the first rank-deficient
   column, or -1 */
static int lsq(int m, int n, double *Q, const double *rhs, double *x, double *diag, double *hv,
               double *b) {
  int bad = householder(m, n, Q, diag, hv), i, j, k;
  if (bad >= 0) return bad;
  for (i = 0; i < m; i++) b[i] = rhs[i];
  for (k = 0; k < n; k++) reflect(m, n, Q, k, b);
  for (k = n - 1; k >= 0; k--) {
    double v = b[k];
    for (j = k + 1; j < n; j++) v -= Q[k * n + j] * x[j];
    x[k] = v / diag[k];
  }
  return -1;
}

/* dz with Jr dz = -r: as many or more equations than unknowns, the
   least-squares solution; fewer, the least-norm one.  When Jr is rank
   deficient, the Levenberg-Marquardt step of a small damping instead (the
   least-squares solution of [Jr; mu I] dz = [-r; 0], mu^2 = 1e-10 |Jr|^2),
   which moves only along directions that reduce |r|, and *bad_col or
   *bad_row names the unknown or equation at fault; -1 when Jr is zero */
static int step(trim_ws *w, int *bad_col, int *bad_row) {
  int m = w->neq, n = w->nfree, i, j, k, bad;
  double *T = w->J, *diag = w->hv, *hv = w->hv + (w->nmax > n ? w->nmax : n), *b = w->bv, *rhs = w->rv;
  *bad_col = *bad_row = -1;
  for (i = 0; i < m; i++) rhs[i] = -w->r[i];
  if (m >= n) {
    memcpy(T, w->Jr, (size_t)m * (size_t)n * sizeof(double));
    if ((bad = lsq(m, n, T, rhs, w->dz, diag, hv, b)) < 0) return 0;
    *bad_col = bad;
  } else {
    /* Jr' = Q R (n x m): Jr = R' Q', dz = Q [R'^-1 (-r); 0] */
    for (i = 0; i < m; i++)
      for (j = 0; j < n; j++) T[j * m + i] = w->Jr[i * n + j];
    bad = householder(n, m, T, diag, hv);
    if (bad < 0) {
      for (k = 0; k < m; k++) {
        double v = rhs[k];
        for (j = 0; j < k; j++) v -= T[j * m + k] * w->dz[j];
        w->dz[k] = v / diag[k];
      }
      for (k = m; k < n; k++) w->dz[k] = 0.0;
      for (k = m - 1; k >= 0; k--) reflect(n, m, T, k, w->dz);
      return 0;
    }
    *bad_row = bad;
  }
  double f2 = 0.0;
  for (i = 0; i < m * n; i++) f2 += w->Jr[i] * w->Jr[i];
  if (!(f2 > 0.0)) return -1;
  double mu = sqrt(1e-10 * f2);
  memcpy(T, w->Jr, (size_t)m * (size_t)n * sizeof(double));
  memset(T + (size_t)m * n, 0, (size_t)n * (size_t)n * sizeof(double));
  for (j = 0; j < n; j++) T[(m + j) * n + j] = mu;
  for (j = 0; j < n; j++) rhs[m + j] = 0.0;
  return lsq(m + n, n, T, rhs, w->dz, diag, hv, b) < 0 ? 0 : -1;
}

static int check_problem(trim_ws *w, const diagc_trim_problem *p, char *err, size_t errlen) {
  int k, j;
  char nm[200];
  if (p->n_free < 0 && p->n_free != DIAGC_TRIM_STATES)
    return fail(DIAGC_LIN_E_ARG, err, errlen, "n_free %d is negative", p->n_free);
  if (p->n_eq < 0 && p->n_eq != DIAGC_TRIM_STATES)
    return fail(DIAGC_LIN_E_ARG, err, errlen, "n_eq %d is negative", p->n_eq);
  if ((p->n_free > 0 && !p->free) || (p->n_eq > 0 && !p->eq))
    return fail(DIAGC_LIN_E_ARG, err, errlen, "free or eq is NULL");
  if (p->jacobian != DIAGC_JACOBIAN_MODEL && p->jacobian != DIAGC_JACOBIAN_FD)
    return fail(DIAGC_LIN_E_ARG, err, errlen, "unknown jacobian %d", p->jacobian);
  if (!(p->tolerance > 0.0) || !isfinite(p->tolerance))
    return fail(DIAGC_LIN_E_ARG, err, errlen, "tolerance %g: give a finite number > 0", p->tolerance);
  if (p->max_iterations < 1)
    return fail(DIAGC_LIN_E_ARG, err, errlen, "max_iterations %d: give at least 1", p->max_iterations);
  for (k = 0; k < w->nfree; k++) {
    if (w->free[k] < 0 || w->free[k] >= w->ncols)
      return fail(DIAGC_LIN_E_ARG, err, errlen, "free[%d] = %d is outside [0, %d)", k, w->free[k], w->ncols);
    for (j = 0; j < k; j++)
      if (w->free[j] == w->free[k]) {
        col_text(w, w->free[k], nm, sizeof nm);
        return fail(DIAGC_LIN_E_ARG, err, errlen, "the unknown %s is free twice", nm);
      }
  }
  for (k = 0; k < w->neq; k++) {
    if (w->eq[k] < 0 || w->eq[k] >= w->nrows)
      return fail(DIAGC_LIN_E_ARG, err, errlen, "eq[%d] = %d is outside [0, %d)", k, w->eq[k], w->nrows);
    if (!isfinite(w->target[k]))
      return fail(DIAGC_LIN_E_ARG, err, errlen, "target[%d] is not finite", k);
    for (j = 0; j < k; j++)
      if (w->eq[j] == w->eq[k]) {
        row_text(w, w->eq[k], nm, sizeof nm);
        return fail(DIAGC_LIN_E_ARG, err, errlen, "the equation on %s is given twice", nm);
      }
  }
  if (w->nfree == 0) return fail(DIAGC_LIN_E_ARG, err, errlen, "no unknown is free");
  if (w->neq == 0) return fail(DIAGC_LIN_E_ARG, err, errlen, "no equation is asked for");
  return DIAGC_OK;
}

static int alloc_ws(trim_ws *w, const diagc_trim_problem *p) {
  int nf = p->n_free == DIAGC_TRIM_STATES ? w->s.nx : p->n_free;
  int ne = p->n_eq == DIAGC_TRIM_STATES ? w->s.nx : p->n_eq;
  size_t nmax = (size_t)(w->ncols > w->nrows ? w->ncols : w->nrows) + 1;
  size_t nv = 2 * (size_t)(nf + ne) + nmax + 4;            /* any vector */
  size_t big = (size_t)(nf + ne + 1) * (size_t)(nf + 1) + (size_t)w->nrows * (size_t)w->ncols + 1;
  w->free = malloc((size_t)(nf + 1) * sizeof(int));
  w->eq = malloc((size_t)(ne + 1) * sizeof(int));
  w->target = malloc((size_t)(ne + 1) * sizeof(double));
  w->x = malloc((4 * nmax + 7 * nv + 2 * big) * sizeof(double));
  if (!w->free || !w->eq || !w->target || !w->x) return -1;
  w->nmax = (int)nmax;
  w->u = w->x + nmax;
  w->f = w->u + nmax;
  w->y = w->f + nmax;
  w->hv = w->y + nmax; /* 2 nv: diag, then the reflectors' heads */
  w->r = w->hv + 2 * nv;
  w->dz = w->r + nv;
  w->z0 = w->dz + nv;
  w->bv = w->z0 + nv;
  w->rv = w->bv + nv;
  w->J = w->rv + nv;   /* the Jacobian, then the QR scratch */
  w->Jr = w->J + big;
  w->nfree = nf;
  w->neq = ne;
  for (int k = 0; k < nf; k++) w->free[k] = p->n_free == DIAGC_TRIM_STATES ? k : p->free[k];
  for (int k = 0; k < ne; k++) {
    w->eq[k] = p->n_eq == DIAGC_TRIM_STATES ? k : p->eq[k];
    w->target[k] = p->n_eq != DIAGC_TRIM_STATES && p->target ? p->target[k] : 0.0;
  }
  return 0;
}

static void free_ws(trim_ws *w) {
  free(w->free);
  free(w->eq);
  free(w->target);
  free(w->x);
  diagc__lin_close(&w->s);
}

static int solve(trim_ws *w, const diagc_trim_problem *p, diagc_trim_result *res, char *err,
                 size_t errlen) {
  int it, k, j, jac = p->jacobian;
  double norm, phi;
  char nm[200], nm2[200], why[400];
  /* the model's Jacobian when it has every one needed (a discrete state
     without one periodic update is held, so its own refusal does not apply) */
  if (jac == DIAGC_JACOBIAN_MODEL &&
      (!w->m->jac_lin || (w->s.sampled && (w->m->n_jac_updates < 1 || !w->m->jac_updates[0].jac))))
    jac = DIAGC_JACOBIAN_FD;
  if (jac == DIAGC_JACOBIAN_FD) res->used_fd = 1;
  if (residual(w, &norm, why, sizeof why) != 0)
    return fail(DIAGC_LIN_E_EVAL, err, errlen, "%s at the starting point", why[0] ? why : "a residual is not finite");
  double hist[STALL_STEPS]; /* max |r| of the last STALL_STEPS iterates */
  for (it = 0;; it++) {
    res->iterations = it;
    res->residual = norm;
    if (it >= STALL_STEPS && norm > STALL_RATIO * hist[it % STALL_STEPS] && norm > p->tolerance) {
      row_text(w, w->eq[res->worst], nm, sizeof nm);
      return fail(DIAGC_TRIM_E_NO_POINT, err, errlen, "no trim point: the residual stalls at %.3g (on %s) "
                  "after %d iterations (less than %g%% smaller than %d iterations before: no values of "
                  "the free unknowns near here make the equations hold; a target out of reach, or an "
                  "input at a limit?)", norm, nm, it, 100 * (1 - STALL_RATIO), STALL_STEPS);
    }
    hist[it % STALL_STEPS] = norm;
    res->worst = 0;
    for (k = 1; k < w->neq; k++)
      if (fabs(w->r[k]) > fabs(w->r[res->worst])) res->worst = k;
    if (norm <= p->tolerance) return DIAGC_OK;
    row_text(w, w->eq[res->worst], nm, sizeof nm);
    if (it == p->max_iterations)
      return fail(DIAGC_TRIM_E_NO_POINT, err, errlen, "no trim point: the residual is still %.3g (on %s) "
                  "after %d iteration%s (tolerance %g)", norm, nm, it, it == 1 ? "" : "s", p->tolerance);
    int rc = diagc__lin_jacobian(w->m, w->ctx, &w->s, jac, w->x, w->u, w->J, why, sizeof why);
    if (rc != DIAGC_OK) return fail(rc, err, errlen, "%s (iteration %d)", why, it);
    for (k = 0; k < w->neq; k++)
      for (j = 0; j < w->nfree; j++) {
        int row = w->eq[k], col = w->free[j];
        double v = w->J[row * w->ncols + col];
        if (row >= w->s.nc && row < w->s.nx && col == row) v -= 1.0; /* x[n+1] - x[n] */
        w->Jr[k * w->nfree + j] = v;
      }
    int bc, br, st = step(w, &bc, &br);
    char sing[400] = "";
    if (bc >= 0) {
      col_text(w, w->free[bc], nm2, sizeof nm2);
      snprintf(sing, sizeof sing, "the equations do not determine the free %s there (it has no effect "
               "independent of the other unknowns); fix it, or free another unknown", nm2);
    } else if (br >= 0) {
      row_text(w, w->eq[br], nm2, sizeof nm2);
      snprintf(sing, sizeof sing, "no free unknown moves %s independently of the other equations "
               "there; free another unknown, or drop that equation", nm2);
    }
    if (st != 0)
      return fail(DIAGC_TRIM_E_SINGULAR, err, errlen, "the trim Jacobian is zero at iteration %d (residual "
                  "%.3g on %s): no free unknown moves any equation there", it, norm, nm);
    /* the line search on phi = |r|^2 / 2: slope = r' Jr dz */
    double slope = 0.0, dmax = 0.0, zmax = 0.0, alpha = 1.0;
    phi = 0.0;
    for (k = 0; k < w->neq; k++) {
      double jd = 0.0;
      for (j = 0; j < w->nfree; j++) jd += w->Jr[k * w->nfree + j] * w->dz[j];
      slope += w->r[k] * jd;
      phi += 0.5 * w->r[k] * w->r[k];
    }
    for (j = 0; j < w->nfree; j++) {
      w->z0[j] = *zvalue(w, w->free[j]);
      dmax = fmax(dmax, fabs(w->dz[j]));
      zmax = fmax(zmax, fabs(w->z0[j]));
    }
    if ((!(slope < 0.0) || dmax <= 4 * DBL_EPSILON * fmax(1.0, zmax)) && sing[0])
      return fail(DIAGC_TRIM_E_SINGULAR, err, errlen, "the trim Jacobian is singular at iteration %d and the "
                  "residual stalls at %.3g (on %s): %s", it, norm, nm, sing);
    if (!(slope < 0.0) || dmax <= 4 * DBL_EPSILON * fmax(1.0, zmax))
      return fail(DIAGC_TRIM_E_NO_POINT, err, errlen, "no trim point: the residual stalls at %.3g (on %s) "
                  "after %d iteration%s, a least-squares minimum above the tolerance %g: the equations "
                  "cannot all hold with these unknowns", norm, nm, it, it == 1 ? "" : "s", p->tolerance);
    for (;;) {
      double n2, phi2 = 0.0;
      for (j = 0; j < w->nfree; j++) *zvalue(w, w->free[j]) = w->z0[j] + alpha * w->dz[j];
      if (residual(w, &n2, why, sizeof why) == 0) {
        for (k = 0; k < w->neq; k++) phi2 += 0.5 * w->r[k] * w->r[k];
        if (phi2 <= phi + 1e-4 * alpha * slope) {
          norm = n2;
          break;
        }
      }
      alpha *= 0.5;
      if (alpha < 1e-10) {
        for (j = 0; j < w->nfree; j++) *zvalue(w, w->free[j]) = w->z0[j];
        residual(w, &n2, why, sizeof why);
        if (sing[0])
          return fail(DIAGC_TRIM_E_SINGULAR, err, errlen, "the trim Jacobian is singular at iteration %d and "
                      "the residual stalls at %.3g (on %s): %s", it, norm, nm, sing);
        return fail(DIAGC_TRIM_E_NO_POINT, err, errlen, "no trim point: the residual stalls at %.3g (on "
                    "%s) after %d iteration%s (the line search cannot reduce it: no values of the free "
                    "unknowns near here make the equations hold; a target out of reach, or an input "
                    "at a limit?)", norm, nm, it, it == 1 ? "" : "s");
      }
    }
  }
}

int diagc_trim(const diagc_model *m, void *ctx, const diagc_trim_problem *p, diagc_trim_result *r,
               char *err, size_t errlen) {
  trim_ws w;
  diagc_trim_problem d;
  diagc_trim_result rd;
  int rc;
  if (err && errlen) err[0] = '\0';
  if (!m || !ctx) return fail(DIAGC_LIN_E_ARG, err, errlen, "model or context missing");
  if (!p) { diagc_trim_problem_init(&d); p = &d; }
  if (!r) r = &rd;
  memset(r, 0, sizeof *r);
  memset(&w, 0, sizeof w);
  w.m = m;
  w.ctx = ctx;
  diagc__lin_select(m, DIAGC_LIN_ALL, DIAGC_LIN_ALL, &w.s);
  for (int i = 0; i < m->n_sources; i++)
    if (m->sources[i].kind == DIAGC_SRC_XA)
      return fail(DIAGC_LIN_E_MODEL, err, errlen, "model %s has abstract state (%s): it cannot be trimmed",
                  m->name, m->sources[i].name);
  w.ncols = w.s.nx + w.s.nu;
  w.nrows = w.s.nx + w.s.ny;
  if (diagc__lin_open(m, &w.s) != DIAGC_OK || alloc_ws(&w, p) != 0) {
    free_ws(&w);
    return fail(DIAGC_LIN_E_NOMEM, err, errlen, "out of memory");
  }
  diagc__lin_read(m, ctx, &w.s, w.x, w.u);
  rc = check_problem(&w, p, err, errlen);
  if (rc == DIAGC_OK) rc = solve(&w, p, r, err, errlen);
  free_ws(&w);
  return rc;
}
