/* lcp_active_set.c: the active-set method of the boxed LCP solver (lcp.c).
 *
 * Active-set method ("pivot"): a block principal pivoting iteration on the
 * coupled problem.  Each row is FREE (w_i = 0), at LO or at HI.  For a
 * friction row at a bound the bound is s_i * x_j with x_j the unknown
 * normal, a linear equation, so every choice of states gives a square
 * linear system; it is reduced to the FREE unknowns (bound friction rows
 * fold into their normal's column) and solved by Gaussian elimination
 * with row pivoting, which drops (sets to zero) numerically dependent
 * columns, so duplicated contacts and rank-deficient A do not break it.
 * The states are then updated from y_i = x_i - w_i / A_ii against the
 * bounds at the new x (the semismooth-Newton / primal-dual active-set
 * rule); when the number of rows changing state stops decreasing, only
 * the lowest-numbered one is changed per step (Murty's rule).  It stops
 * when the coupled violation is at most tol, or after NOPROG steps
 * without progress.
 */
#include <math.h>

#include "lcp_internal.h"

#define NOPROG 12     /* active-set steps without halving the violation: stop */

/* ------------------------------------------------------------------------ */
/* The linear system of a state assignment. */

/* Sets c->mult for bound rows from the state and the current x (used for
 * the sign of the normal).  Constant rows: the bound value; friction rows:
 * the multiplier s with x_i = s x_j. */
static void set_mult(diagc__lcp_ctx *c, int i, const double *x) {
  int j = c->fx ? c->fx[i] : -1;
  int st = c->state[i];
  if (st == ST_FREE) return;
  if (j < 0) {
    c->mult[i] = st == ST_LO ? c->lo[i] : c->hi[i];
  } else {
    int neg = x[j] < 0;
    if (st == ST_LO)
      c->mult[i] = neg ? c->hi[i] : c->lo[i];
    else
      c->mult[i] = neg ? c->lo[i] : c->hi[i];
    /* infinite multiplier: the row cannot be at that bound unless x_j = 0;
       treat as free (sticking) */
    if (!isfinite(c->mult[i])) c->state[i] = ST_FREE;
  }
}

/* Numbers the FREE rows (c->pos, c->freel); returns how many. */
static int index_free(diagc__lcp_ctx *c) {
  int n = c->n, m = 0, i;
  for (i = 0; i < n; i++) {
    if (c->state[i] == ST_FREE) {
      c->pos[i] = m;
      c->freel[m++] = i;
    } else {
      c->pos[i] = -1;
    }
  }
  return m;
}

/* Values of bound rows into c->xc: constants first, then friction rows
 * (their normals have constant bounds, so x_j is free or a constant);
 * friction rows whose normal is FREE are marked linked. */
static void bound_values(diagc__lcp_ctx *c) {
  int n = c->n, i;
  double *x = c->xc;
  for (i = 0; i < n; i++) {
    int j = c->fx ? c->fx[i] : -1;
    c->linked[i] = 0;
    if (c->state[i] == ST_FREE) continue;
    if (j < 0) x[i] = c->mult[i];
  }
  for (i = 0; i < n; i++) {
    int j = c->fx ? c->fx[i] : -1;
    if (c->state[i] == ST_FREE || j < 0) continue;
    if (c->pos[j] < 0)
      x[i] = c->mult[i] * x[j];
    else
      c->linked[i] = 1;
  }
}

/* The reduced system (m FREE rows): K = A_FF (+cfm) + sum over linked rows
 * k of mult_k A_{F,k} e_{pos j}^T; rhs = b_F - A_{F,const bound} x. */
static void build_system(diagc__lcp_ctx *c, int m) {
  int n = c->n, r, col, k;
  double *K = c->K, *rhs = c->rhs, *x = c->xc;
  for (r = 0; r < m; r++) {
    int ir = c->freel[r];
    const double *Ai = c->A + (size_t)ir * n;
    double *Kr = K + (size_t)r * m;
    double s = c->b[ir];
    for (col = 0; col < m; col++) Kr[col] = Ai[c->freel[col]];
    Kr[r] += c->cfm;
    for (k = 0; k < n; k++) {
      if (c->state[k] == ST_FREE) continue;
      if (c->linked[k])
        Kr[c->pos[c->fx[k]]] += c->mult[k] * Ai[k];
      else
        s -= Ai[k] * x[k];
    }
    rhs[r] = s;
  }
}

/* Gaussian elimination of [K | rhs] with row pivoting; columns whose pivot
 * is at most droptol are dropped (c->pivcol = -1, counted in
 * c->rank_drops). */
static void eliminate(diagc__lcp_ctx *c, int m) {
  int rank = 0, col, r, k;
  double *K = c->K, *rhs = c->rhs;
  c->rank_drops = 0;
  for (col = 0; col < m; col++) {
    int p = -1;
    double big = c->droptol, piv;
    for (r = rank; r < m; r++) {
      double a = fabs(K[(size_t)r * m + col]);
      if (a > big) {
        big = a;
        p = r;
      }
    }
    if (p < 0) {
      c->pivcol[col] = -1; /* dropped: sol = 0 */
      c->rank_drops++;
      continue;
    }
    if (p != rank) {
      double *Rp = K + (size_t)p * m, *Rr = K + (size_t)rank * m, t;
      for (k = col; k < m; k++) {
        t = Rp[k];
        Rp[k] = Rr[k];
        Rr[k] = t;
      }
      t = rhs[p];
      rhs[p] = rhs[rank];
      rhs[rank] = t;
    }
    c->pivcol[col] = rank;
    piv = K[(size_t)rank * m + col];
    {
      const double *Rr = K + (size_t)rank * m;
      for (r = rank + 1; r < m; r++) {
        double *Rq = K + (size_t)r * m;
        double f = Rq[col] / piv;
        if (f == 0.0) continue;
        Rq[col] = 0.0;
        for (k = col + 1; k < m; k++) Rq[k] -= f * Rr[k];
        rhs[r] -= f * rhs[rank];
      }
    }
    rank++;
  }
}

/* Back substitution into c->sol (dropped columns: 0). */
static void back_substitute(diagc__lcp_ctx *c, int m) {
  int col, k;
  const double *K = c->K, *rhs = c->rhs;
  double *sol = c->sol;
  for (col = m - 1; col >= 0; col--) {
    int pr = c->pivcol[col];
    const double *Rr;
    double s;
    if (pr < 0) {
      sol[col] = 0.0;
      continue;
    }
    Rr = K + (size_t)pr * m;
    s = rhs[pr];
    for (k = col + 1; k < m; k++) s -= Rr[k] * sol[k];
    sol[col] = s / Rr[col];
  }
}

/* Solves the system of the current states into c->xc.  Returns 0, or -1
 * when the result is not finite. */
static int solve_states(diagc__lcp_ctx *c) {
  int n = c->n, m, r, i;
  double *x = c->xc;
  m = index_free(c);
  /* the work: the system (m n), its elimination (m^3 / 3), in n^2 units */
  diagc__lcp_charge(c, ((double)m * n + (double)m * m * m / 3.0) / ((double)n * n));
  bound_values(c);
  build_system(c, m);
  eliminate(c, m);
  back_substitute(c, m);
  for (r = 0; r < m; r++) x[c->freel[r]] = c->sol[r];
  for (i = 0; i < n; i++)
    if (c->linked[i]) x[i] = c->mult[i] * x[c->fx[i]];
  if (!diagc__lcp_all_finite(x, n)) return -1;
  return 0;
}

/* The state a row should take at (x, w): the projection rule. */
static int want_state(const diagc__lcp_ctx *c, int i, const double *x, const double *w,
                      const int *nstate) {
  double L, H, y;
  diagc__lcp_bounds(c, i, x, &L, &H);
  y = x[i] - c->cinv[i] * w[i];
  if (c->fx && c->fx[i] >= 0 && x[c->fx[i]] == 0.0) {
    /* collapsed friction box: stick if the normal is free (its value will
       move), otherwise sit at the bound */
    if (nstate[c->fx[i]] == ST_FREE) return ST_FREE;
    return y > 0 ? ST_HI : ST_LO;
  }
  if (H - L <= 0.0) return y > L ? ST_HI : ST_LO;
  if (y <= L) return ST_LO;
  if (y >= H) return ST_HI;
  return ST_FREE;
}

/* For a nearly exact point (from Lemke): rows within round-off of a bound
 * sit at it, the others follow the projection rule. */
static int near_state(const diagc__lcp_ctx *c, int i, const double *x, const double *w,
                      const int *nstate) {
  double L, H, d = 1e-9 * (1.0 + fabs(x[i]));
  if (c->fx && c->fx[i] >= 0 && x[c->fx[i]] == 0.0) return want_state(c, i, x, w, nstate);
  diagc__lcp_bounds(c, i, x, &L, &H);
  if (H - L > 2 * d) {
    if (x[i] - L <= d) return ST_LO;
    if (H - x[i] <= d) return ST_HI;
  }
  return want_state(c, i, x, w, nstate);
}

/* Assigns the states from the point x (with residual w). */
static void init_states(diagc__lcp_ctx *c, const double *x, const double *w, int near) {
  int n = c->n, i;
  for (i = 0; i < n; i++)
    if (!c->fx || c->fx[i] < 0)
      c->state[i] = near ? near_state(c, i, x, w, c->state) : want_state(c, i, x, w, c->state);
  for (i = 0; i < n; i++)
    if (c->fx && c->fx[i] >= 0)
      c->state[i] = near ? near_state(c, i, x, w, c->state) : want_state(c, i, x, w, c->state);
  for (i = 0; i < n; i++) set_mult(c, i, x);
}

/* The pivoting method from the point x0 (its residual in w0).  Returns the
 * best violation reached (the point is in c->best when it improved). */
double diagc__lcp_pivot_run(diagc__lcp_ctx *c, const double *x0, const double *w0, int maxit,
                            int near) {
  int n = c->n, it, i, nchg, best_nchg = n + 1, stall = 0, single = 0, noprog = 0;
  double v, run_best = INFINITY;
  /* near: 0 states from the projection rule at x0, 1 the same but rows
     within round-off of a bound sit at it, 2 keep the current states
     (they solved a neighbouring problem) */
  diagc__lcp_need_cinv(c);
  if (near == 2) {
    for (i = 0; i < n; i++) set_mult(c, i, x0);
  } else {
    init_states(c, x0, w0, near);
  }
  c->states_ok = 0;
  for (it = 0; it < maxit && !c->spent; it++) {
    c->iters++;
    if (solve_states(c) != 0) break;
    v = diagc__lcp_score(c, c->xc);
    if (v < 0.5 * run_best) {
      noprog = 0;
    } else if (++noprog > (c->noprog > 0 ? c->noprog : NOPROG)) {
      break; /* not converging: let the caller fall back */
    }
    if (v < run_best) run_best = v;
    if (v <= c->tol) {
      c->states_ok = 1;
      break;
    }
    /* new states, normals first (friction rows read their normal's state) */
    nchg = 0;
    for (i = 0; i < n; i++)
      if (!c->fx || c->fx[i] < 0) c->chg[i] = want_state(c, i, c->xc, c->w, c->chg);
    for (i = 0; i < n; i++)
      if (c->fx && c->fx[i] >= 0) c->chg[i] = want_state(c, i, c->xc, c->w, c->chg);
    for (i = 0; i < n; i++)
      if (c->chg[i] != c->state[i]) nchg++;
    if (nchg == 0) break; /* a fixed point that does not verify */
    if (nchg < best_nchg) {
      best_nchg = nchg;
      stall = 0;
    } else if (++stall >= 3) {
      single = 1;
    }
    if (single) {
      for (i = 0; i < n; i++)
        if (c->chg[i] != c->state[i]) {
          c->state[i] = c->chg[i];
          c->pivots++;
          break;
        }
    } else {
      for (i = 0; i < n; i++)
        if (c->chg[i] != c->state[i]) {
          c->state[i] = c->chg[i];
          c->pivots++;
        }
    }
    for (i = 0; i < n; i++) set_mult(c, i, c->xc);
  }
  return run_best;
}
