/* diagc/lcp.h: a boxed linear complementarity solver with friction index.
 *
 * Solves, for x in R^n, with w = A x - b (A dense, row-major, n x n):
 *
 *   x_i = L_i  =>  w_i >= 0,    x_i = H_i  =>  w_i <= 0,
 *   L_i < x_i < H_i  =>  w_i = 0,
 *
 * where [L_i, H_i] = [lo[i], hi[i]] for rows with findex[i] = -1 (or
 * findex == NULL), and [lo[i] x_j, hi[i] x_j] for friction rows with
 * findex[i] = j >= 0: the bounds move with the solution (the "coupled"
 * problem, solved as such, not with the bounds frozen at a first guess).
 *
 * Methods: coupled incremental pivoting (Dantzig/Baraff-style pivoting on
 * the coupled problem, friction rows at a bound folded into their normal's
 * column, an updated inverse of the clamped block), pivoting (an
 * active-set iteration on the coupled problem, exact to round-off, seeded
 * by the coupled pivoting or a frozen-bounds Dantzig pass, backed by
 * Lemke's method and, for huge friction coefficients, continuation in mu),
 * projected Gauss-Seidel, and the default automatic mode (coupled
 * pivoting, verify the true coupled conditions, fall back through the
 * active set, PGS-started pivoting, Lemke, continuation and PGS rounds
 * until one verifies).
 * No heap allocation: the caller owns the workspace.  Inputs are never
 * modified; x never holds NaN or infinity on return.  See docs/lcp.md.
 *
 * C99.
 */
#ifndef DIAGC_LCP_H
#define DIAGC_LCP_H

#include <stddef.h>

#include "diagc/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Return values of diagc_lcp_solve (diagc/status.h):
 *   DIAGC_OK               violation <= opt->tol
 *   DIAGC_LCP_SOLVED_TOL   opt->tol < violation <= opt->accept_tol
 *   DIAGC_LCP_BUDGET       the work budget (opt->work_budget) ran out before
 *                          a point within accept_tol was found; x is the
 *                          best point seen (finite; stats.violation)
 *   DIAGC_LCP_E_UNSOLVED   no such x found; x is the best one seen (finite;
 *                          its violation is in the stats)
 *   DIAGC_LCP_E_ARG        invalid argument; x is left unchanged
 *   DIAGC_LCP_E_WORKSPACE  workspace missing or smaller than needed; x is
 *                          left unchanged */

/* Methods (diagc_lcp_options.method; diagc_lcp_stats.method). */
enum {
  DIAGC_LCP_AUTO = 0,  /* pivoting with PGS-assisted fallbacks (default)      */
  DIAGC_LCP_PIVOT = 1, /* pivoting only: active set, Lemke, continuation      */
  DIAGC_LCP_PGS = 2,   /* projected Gauss-Seidel only                         */
  DIAGC_LCP_PIVOT_AFTER_PGS = 3, /* stats only: AUTO needed the PGS fallback  */
  DIAGC_LCP_LEMKE = 4, /* stats only: the active-set iteration did not settle
                          and Lemke's method (then active-set polish) did   */
  DIAGC_LCP_CONTINUATION = 5, /* stats only: solved by continuation in mu
                          (friction capped at 1, 10, ..., then uncapped)    */
  DIAGC_LCP_COUPLED = 6 /* coupled incremental pivoting (an updated inverse
                          of the clamped block, friction rows at a bound
                          folded into their normal's column), polished by
                          active-set steps; as a method: that alone, no
                          fallbacks.  In stats: AUTO/PIVOT verified there */
};

typedef struct diagc_lcp_options {
  int method;          /* DIAGC_LCP_AUTO, _PIVOT, _PGS or _COUPLED          */
  double tol;          /* DIAGC_OK when violation <= tol (default 1e-9)     */
  double accept_tol;   /* SOLVED_TOL when violation <= this (default 1e-6)  */
  double cfm;          /* constraint force mixing: solve with A + cfm*I
                          (default 0; the violation is then that of the
                          regularized problem)                              */
  int max_pivot_iter;  /* active-set iterations per pivoting run
                          (default 0: 40 + n/5); if set, also a quarter of
                          the pivot budget of each coupled-pivoting attempt
                          (default 0: 2n + 20, then n + 20)                 */
  int max_pgs_iter;    /* PGS sweeps (PGS method; default 10000)            */
  int fallback_rounds; /* AUTO: PGS + re-pivot rounds (default 4)           */
  int fallback_sweeps; /* AUTO: PGS sweeps in the first round, doubled in
                          each later one (default 50)                       */
  int warm_start;      /* 1 (default): x on entry is the starting point;
                          0: start from x = 0                               */
  double work_budget;  /* bound on the work of one solve, in units of n^2
                          multiply-adds (W below); every method and fallback
                          stops once it is spent and the best point seen
                          is returned (DIAGC_LCP_BUDGET, stats.budget_hit).
                          0 (default): diagc_lcp_work_budget(n, 0) =
                          max(DIAGC_LCP_WORK_FLOOR / n^2,
                              DIAGC_LCP_WORK_CUBIC n);
                          > 0: that many units; < 0 or +inf: unlimited;
                          NaN: DIAGC_LCP_E_ARG                              */
  void *workspace;     /* caller-owned, diagc_lcp_workspace_size(n) bytes,
                          aligned for double                                */
  size_t workspace_size;
} diagc_lcp_options;

typedef struct diagc_lcp_stats {
  int method;          /* method that produced x (DIAGC_LCP_COUPLED, _PIVOT,
                          _PGS, _PIVOT_AFTER_PGS, _LEMKE, _CONTINUATION)     */
  int iterations;      /* coupled-pivoting attempts + Dantzig passes +
                          active-set iterations + PGS sweeps                */
  int pivots;          /* coupled and Dantzig pivots, row state changes
                          (active-set method) and Lemke pivots              */
  int pgs_sweeps;      /* PGS sweeps                                         */
  int rank_drops;      /* dependent columns dropped in the last factorization */
  double violation;    /* diagc_lcp_violation of the returned x (with cfm)   */
  double work;         /* work spent, in units of n^2 multiply-adds (W)     */
  int budget_hit;      /* 1 when the work budget ran out (the methods were
                          stopped; x is the best point seen)                */
} diagc_lcp_stats;

/* The work budget (W = n^2 multiply-adds per unit), counted by operation,
 * never by a clock, so that a solve is reproducible.  Charges (nominal
 * costs): a residual or violation score 1; a PGS sweep 1; a coupled or
 * Dantzig pivot 1 (its O(n k + k^2) updates, k <= n clamped rows) and 1
 * per attempt; an active-set step (m n + m^3 / 3) / n^2 with m free rows
 * (its system and elimination) plus its score; a Lemke pivot N (N + 1) / n^2
 * on its N <= 4n variables, and as much for the tableau.  Each method
 * checks the budget after every step, so a solve overruns it by at most
 * one step (at most n/3 + 17 units).  The default is max(1e7, 3 n^3)
 * multiply-adds: 2778 units at n = 60, 450 at n = 150 (about 4 ms of CPU
 * on a 2-core EPYC, where a coupled-pivoting solve of a contact problem
 * takes 60 to 300 units, 0.1 to 0.7 ms, and Lemke's method on a degenerate
 * one about 34000 units, 0.35 s), 3n from n = 150 on (a pivoting solve
 * costs about n to 2n units).  Under AUTO with a finite budget the
 * pivoting stages get 3/4 of it; if they spend that without a solution,
 * PGS sweeps from the best point seen use the rest.  docs/lcp.md, section 3. */
#define DIAGC_LCP_WORK_FLOOR 1e7
#define DIAGC_LCP_WORK_CUBIC 3.0

/* The budget in units for n unknowns and the option value work_budget
 * (0: the default above; < 0 or +inf: INFINITY, unlimited). */
double diagc_lcp_work_budget(int n, double work_budget);

/* Bytes of workspace diagc_lcp_solve needs for n unknowns (0 if n < 0 or
 * the size would overflow). */
size_t diagc_lcp_workspace_size(int n);

/* Fills *opt with the defaults and the given workspace. */
void diagc_lcp_options_init(diagc_lcp_options *opt, void *workspace,
                            size_t workspace_size);

/* Solves the problem.  x: warm start on entry (zeros allowed), solution on
 * return.  findex may be NULL (all rows have constant bounds).  opt must
 * not be NULL (it carries the workspace): without one the call returns
 * DIAGC_LCP_E_WORKSPACE.  stats may be NULL.
 *
 * Requirements (else DIAGC_LCP_E_ARG): n >= 0; A and b finite; for
 * constant rows lo[i] <= hi[i], lo[i] < +inf, hi[i] > -inf; for friction
 * rows lo[i] <= 0 <= hi[i] and findex[i] = j with 0 <= j < n, j != i and
 * findex[j] = -1 (friction rows point at constant-bound rows). */
int diagc_lcp_solve(int n, const double *A, const double *b, const double *lo,
                    const double *hi, const int *findex, double *x,
                    const diagc_lcp_options *opt, diagc_lcp_stats *stats);

/* The violation of the coupled conditions at x (0 for an exact solution),
 * scored against the given arrays; findex may be NULL.  Per row, with
 * w_i = A_i x - b_i and [L, H] the bounds (scaled by x_j for friction
 * rows; swapped if x_j < 0; [0, 0] if x_j = 0):
 *   x outside [L - t, H + t]  ->  its distance to [L, H]
 *   H - L < t                 ->  0
 *   x <= L + t (at L)         ->  max(0, -w_i)
 *   x >= H - t (at H)         ->  max(0,  w_i)
 *   otherwise                 ->  |w_i|
 * with t = DIAGC_LCP_BOUND_TOL; the result is the maximum over rows (NaN
 * anywhere gives +inf). */
#define DIAGC_LCP_BOUND_TOL 1e-7
double diagc_lcp_violation(int n, const double *A, const double *b,
                           const double *lo, const double *hi,
                           const int *findex, const double *x);

#ifdef __cplusplus
}
#endif

#endif /* DIAGC_LCP_H */
