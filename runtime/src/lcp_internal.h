/* lcp_internal.h: declarations shared by the LCP solver's files (not
 * installed): lcp.c (API, AUTO driver), lcp_score.c, lcp_active_set.c, lcp_dantzig.c,
 * lcp_lemke.c, lcp_pgs.c and lcp_coupled.c. */
#ifndef DIAGC_LCP_INTERNAL_H
#define DIAGC_LCP_INTERNAL_H

#include <math.h>
#include <stddef.h>

#include "diagc/lcp.h"

/* x . y over m entries with four partial sums, combined as
 * (s0 + s1) + (s2 + s3): one summation order wherever a residual or a
 * direction is computed (the residual then has the same bits as
 * diagc_lcp_violation's). */
static inline double diagc__dot4(int m, const double *restrict xv, const double *restrict yv) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  int i;
  for (i = 0; i + 3 < m; i += 4) {
    s0 += xv[i] * yv[i];
    s1 += xv[i + 1] * yv[i + 1];
    s2 += xv[i + 2] * yv[i + 2];
    s3 += xv[i + 3] * yv[i + 3];
  }
  for (; i < m; i++) s0 += xv[i] * yv[i];
  return (s0 + s1) + (s2 + s3);
}

/* The violation of one row (diagc_lcp_violation's rule): x_i against
 * its bounds [L, H], and w_i at a bound or inside; t the bound tolerance.
 * Also the contact solve's sparse method's (contact_sparse.c). */
static inline double diagc__lcp_row_viol(double xi, double wi, double L, double H, double t) {
  if (!(xi == xi) || !(wi == wi)) return INFINITY;
  if (xi < L - t) return L - xi;
  if (xi > H + t) return xi - H;
  if (H - L < t) return 0.0;
  if (xi <= L + t && (xi - L) <= (H - xi)) return wi < 0 ? -wi : 0.0;
  if (xi >= H - t) return wi > 0 ? wi : 0.0;
  return fabs(wi);
}

/* Row states shared by the pivoting methods. */
enum { ST_FREE = 0, ST_LO = 1, ST_HI = 2 };

/* Coupled incremental pivoting (lcp_coupled.c). */
typedef struct {
  int n;
  const double *A, *b, *lo, *hi;
  const int *fx;   /* may be NULL */
  double cfm;
  double droptol;  /* Schur complements below this: dependent column */
  double wtol;     /* a driven row with |w_i| <= wtol (1 + |b_i|) is
                      complementary (at least 1e-13 is used) */
  int max_pivots;  /* pivot budget */
  int sym;         /* A symmetric (rows serve as columns) */
  int order;       /* 0: rows in order; 1: friction rows in reverse order;
                      2: friction rows by their box's width, widest first */
  const int *lead; /* rows processed first in their phase (may be NULL) */
  int nlead;
  int *fail_row;   /* if not NULL: the row being processed when it failed
                      (-1 when it did not fail) */
  double *work;    /* DIAGC__CP_WORK_DOUBLES(n) doubles */
  int *iwork;      /* 15 n + 1 ints */
} diagc__cp_args;

#define DIAGC__CP_WORK_DOUBLES(n) (2 * (size_t)(n) * (size_t)(n) + 16 * (size_t)(n) + 16)

/* Runs the method from x = 0.  On return x holds its point and state[] the
 * row states (ST_FREE for clamped rows and rows not processed).  Returns 0
 * when every row was processed; -1 when it failed (budget, cycling,
 * unbounded ray, singular update: x and state are where it stopped); -2
 * when it is not applicable (a friction row whose normal may be negative,
 * infinite friction multipliers) or x is not finite (x, state unusable).
 * *pivots is incremented per pivot. */
int diagc__lcp_cp(const diagc__cp_args *a, double *x, int *state, int *pivots);

/* ------------------------------------------------------------------------ */
/* The solver's state (one call of diagc_lcp_solve), shared by the methods. */

typedef struct {
  int n;
  const double *A, *b, *lo, *hi;
  const int *fx; /* may be NULL */
  double cfm;
  double tol;
  double droptol;
  /* workspace */
  double *K;     /* n*n reduced matrix */
  double *rhs;   /* n */
  double *xc;    /* n candidate x */
  double *w;     /* n w at xc */
  double *best;  /* n best x so far */
  double *cinv;  /* n 1/(A_ii+cfm) or 0 (set on first use: diagc__lcp_need_cinv) */
  int cinv_ok;
  double *mult;  /* n bound multiplier (friction) or value (constant) */
  double *sol;   /* n reduced solution */
  int *state, *pos, *freel, *pivcol, *chg, *linked;
  double *x0;    /* n Lemke: x = x0 + sum of signed variables */
  double *slo, *shi, *sx; /* n continuation: capped bounds, stage point */
  double *alt;   /* n AUTO: the starting point (second chance) */
  double alt_v;
  const diagc_lcp_options *opt;
  int stage;     /* 1 while solving a capped continuation stage */
  int states_ok; /* the states of the last diagc__lcp_pivot_run verified */
  double sbest_v;
  int *basic, *nonb, *vrow, *vsgn, *vlink, *ties; /* Lemke labels, variables */
  int lemke_pivots;
  int lemke_tried; /* Lemke's variants ran on the problem itself (not a stage) */
  double best_v;
  int have_best;
  int rank_drops;
  int pivots;
  int iters;
  int sweeps;
  double work;     /* work spent, in units of n^2 multiply-adds */
  double work_max; /* the budget in the same units (INFINITY: none) */
  int spent;       /* 1 once work >= work_max: every method stops */
  int noprog;      /* active-set steps without halving the violation
                      before it stops (0: NOPROG, lcp_active_set.c) */
} diagc__lcp_ctx;

/* Charges `units` (of n^2 multiply-adds) of work; returns 1 when the
 * budget is spent (c->spent: every method and stage then stops at its
 * next check, and the best point seen is the answer). */
static inline int diagc__lcp_charge(diagc__lcp_ctx *c, double units) {
  c->work += units;
  if (c->work >= c->work_max) c->spent = 1;
  return c->spent;
}

/* The work left, in units (0 when spent). */
static inline double diagc__lcp_work_left(const diagc__lcp_ctx *c) {
  double r = c->work_max - c->work;
  return c->spent || !(r > 0) ? 0.0 : r;
}

/* 1 while a stage should go on: not solved to tol, budget not spent. */
static inline int diagc__lcp_go(const diagc__lcp_ctx *c) {
  return c->best_v > c->tol && !c->spent;
}

/* Bounds of row i at x (friction rows: their box times x of the normal). */
static inline void diagc__lcp_bounds(const diagc__lcp_ctx *c, int i, const double *x, double *L,
                                     double *H) {
  int j = c->fx ? c->fx[i] : -1;
  if (j < 0) {
    *L = c->lo[i];
    *H = c->hi[i];
  } else {
    double xj = x[j], a, bb;
    if (xj == 0.0) {
      *L = 0.0;
      *H = 0.0;
      return;
    }
    a = c->lo[i] * xj;
    bb = c->hi[i] * xj;
    if (xj > 0) {
      *L = a;
      *H = bb;
    } else {
      *L = bb;
      *H = a;
    }
  }
}

/* 1 when x[0..n) are all finite. */
static inline int diagc__lcp_all_finite(const double *x, int n) {
  int i;
  for (i = 0; i < n; i++)
    if (!isfinite(x[i])) return 0;
  return 1;
}

/* The best violation of the current target: the capped stage's or the
 * answer's. */
static inline double *diagc__lcp_cur_best_v(diagc__lcp_ctx *c) {
  return c->stage ? &c->sbest_v : &c->best_v;
}

/* lcp_score.c: w = A x + cfm x - b */
void diagc__lcp_residual(const diagc__lcp_ctx *c, const double *x, double *w);
/* lcp_score.c: fills c->w with the residual at x, keeps x if it is the best so
 * far and returns its violation. */
double diagc__lcp_score(diagc__lcp_ctx *c, const double *x);
/* lcp_score.c: the violation of x with residual w. */
double diagc__lcp_violation_w(const diagc__lcp_ctx *c, const double *x, const double *w);
/* lcp_score.c: c->cinv, computed on first use. */
void diagc__lcp_need_cinv(diagc__lcp_ctx *c);
/* lcp_active_set.c: the active-set iteration from x0 (residual w0), at
 * most maxit steps; returns the best violation reached.  near: 0 states
 * from the projection rule at x0, 1 rows within round-off of a bound at
 * it, 2 the current states. */
double diagc__lcp_pivot_run(diagc__lcp_ctx *c, const double *x0, const double *w0, int maxit,
                            int near);
/* lcp_dantzig.c: the Dantzig pass, the friction bounds frozen at the
 * normals fb; 0 on success (point in c->xc, states in c->state), -1 when
 * A is not symmetric or the pass failed. */
int diagc__lcp_dz_run(diagc__lcp_ctx *c, const double *fb);
/* lcp_lemke.c: Lemke's variants, each polished by the active set;
 * *used = DIAGC_LCP_LEMKE when one produced a point (not in a stage). */
void diagc__lcp_lemke_attempts(diagc__lcp_ctx *c, int maxit, int *used);
/* lcp_pgs.c: projected Gauss-Seidel on x for up to `sweeps` sweeps;
 * returns the last violation computed (c->w: the residual at x). */
double diagc__lcp_pgs_run(diagc__lcp_ctx *c, double *x, int sweeps);

#endif
