/* lcp.c: boxed LCP with friction index (see diagc/lcp.h, docs/lcp.md).
 *
 * Coupled incremental pivoting ("coupled", lcp_coupled.c): Dantzig/Baraff
 * pivoting on the coupled problem itself, with an updated inverse of the
 * clamped block in which friction rows at a bound fold into their normal's
 * column.  The default path: up to CP_ORDERS attempts (the method can stop
 * on Painleve-like configurations or cycles; the first takes the friction
 * rows widest box first, later attempts process first the rows at which
 * earlier ones stopped, friction rows otherwise in turn and in reverse by
 * turns), each verified with the true coupled violation and, if it does not
 * verify, polished by a few active-set steps on its index sets.
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
 *
 * For symmetric A, an incremental Dantzig (Baraff) pass solves the problem
 * with the friction bounds frozen at lo/hi times the normal impulses of the
 * normal-only phase, with an LDL^T factor of the clamped block updated per
 * pivot (O(k^2)); its states seed the active-set iteration on the coupled
 * problem, and it is re-run (up to DZ_REPS times) with the bounds taken
 * from the newest normals.  (The first fallback after the coupled
 * pivoting.)
 *
 * Lemke's method on an equivalent standard LCP (friction rows split as in
 * the Stewart-Trinkle / Anitescu-Potra formulations), lexicographic ratio
 * test; its answer is polished by one active-set solve on its active set.
 *
 * Continuation in mu for huge friction coefficients (sliding contacts
 * whose normal impulses are of order 1/mu).
 *
 * PGS: projected Gauss-Seidel with the friction bounds taken from the
 * current normal values, warm-started, its stopping test the violation.
 *
 * AUTO: (a warm start: active set from it;) coupled pivoting; then, if
 * the violation is still above tol: Dantzig pass + active set; active set
 * from the best point; a few PGS sweeps and the active set again; PGS
 * from the starting point in doubling rounds, the active set after each
 * (start_pgs_stage); Lemke (up to 4 variants); continuation in mu; rounds of PGS + active set; and
 * if all that fails, the point-dependent stages once more from the
 * starting point.  The best point seen is returned.
 */
#include "diagc/lcp.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "lcp_internal.h"

#define DZ_REPS 2 /* Dantzig passes re-run with the friction bounds updated */
#define DZ_PIV 3  /* coupled active-set steps after each of them but the last */
#define DROP_REL 1e-11 /* pivot below DROP_REL * max|diag|: dependent column */
#define ALIGN 64
#define NOPROG 12     /* active-set steps without halving the violation: stop */
#define EARLY_PGS 40  /* AUTO: PGS sweeps before the first re-pivot          */
#define EARLY_PIV 15  /* AUTO: active-set steps after those sweeps           */
#define CP_POLISH 3   /* active-set steps polishing the coupled pivoting     */
#define START_PGS 1000 /* AUTO: PGS sweeps from the start point, at most     */
#define START_PGS0 25  /* ... in the first round (doubled per round)         */
#define START_STALL 0.8 /* ... stop when a round does not cut its violation
                           below this share of the previous round's        */
#ifndef CP_ORDERS
#define CP_ORDERS 8   /* coupled pivoting: attempts at most                  */
#endif
#ifndef CP_BUDGET0
#define CP_BUDGET0 2  /* coupled pivoting: pivots per row, first attempt   */
#endif
#ifndef CP_BUDGET1
#define CP_BUDGET1 1  /* ... and in the attempts with other orders         */
#endif

/* Workspace: a shared big region (the reduced matrix K of the active-set
 * method, n*n, the coupled pivoting's inverse and scratch, 2n*n + 16n, or
 * the Lemke tableau, N*(N+1) + N with N <= 4n LCP variables), N_DBL_VECS
 * vectors of n doubles, N_INT_VECS vectors of n ints
 * and the Lemke labels (6 vectors of N ints, plus one). */
#define N_DBL_VECS 12
#define N_INT_VECS 6

static size_t big_doubles(size_t n) {
  size_t lemke = 4 * n * (4 * n + 1) + 4 * n, cp = DIAGC__CP_WORK_DOUBLES(n);
  return lemke > cp ? lemke : cp;
}

size_t diagc_lcp_workspace_size(int n) {
  size_t nn;
  if (n < 0) return 0;
  nn = (size_t)n;
  if (nn > 4096) { /* overflow guard: 16 n^2 doubles must fit in size_t */
    if (nn > ((size_t)1 << (sizeof(size_t) * 4 - 4))) return 0;
  }
  return big_doubles(nn) * sizeof(double) + N_DBL_VECS * nn * sizeof(double) +
         (N_INT_VECS * nn + 6 * 4 * nn + 1) * sizeof(int) + 2 * ALIGN;
}

void diagc_lcp_options_init(diagc_lcp_options *opt, void *workspace,
                            size_t workspace_size) {
  if (!opt) return;
  memset(opt, 0, sizeof *opt);
  opt->method = DIAGC_LCP_AUTO;
  opt->tol = 1e-9;
  opt->accept_tol = 1e-6;
  opt->cfm = 0.0;
  opt->max_pivot_iter = 0;
  opt->max_pgs_iter = 10000;
  opt->fallback_rounds = 4;
  opt->fallback_sweeps = 50;
  opt->warm_start = 1;
  opt->workspace = workspace;
  opt->workspace_size = workspace_size;
}

/* ------------------------------------------------------------------------ */

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
  double *cinv;  /* n 1/(A_ii+cfm) or 0 (set on first use: need_cinv) */
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
  int states_ok; /* the states of the last pivot_run verified */
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
} ctx;

static void bounds(const ctx *c, int i, const double *x, double *L, double *H) {
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

static double row_viol(double xi, double wi, double L, double H, double t) {
  if (!(xi == xi) || !(wi == wi)) return INFINITY;
  if (xi < L - t) return L - xi;
  if (xi > H + t) return xi - H;
  if (H - L < t) return 0.0;
  if (xi <= L + t && (xi - L) <= (H - xi)) return wi < 0 ? -wi : 0.0;
  if (xi >= H - t) return wi > 0 ? wi : 0.0;
  return fabs(wi);
}

/* w = A x + cfm x - b */
/* A_i x - b_i with four partial sums (the same order wherever w is
 * computed for the metric: the same bits as diagc_lcp_violation) */
static double row_res(int n, const double *Ai, const double *x, double bi) {
  return diagc__dot4(n, Ai, x) - bi;
}

static void residual(const ctx *c, const double *x, double *w) {
  int n = c->n, i;
  for (i = 0; i < n; i++) w[i] = row_res(n, c->A + (size_t)i * n, x, c->b[i]) + c->cfm * x[i];
}

static double violation_w(const ctx *c, const double *x, const double *w) {
  int i;
  double v = 0.0;
  for (i = 0; i < c->n; i++) {
    double L, H, r;
    bounds(c, i, x, &L, &H);
    r = row_viol(x[i], w[i], L, H, DIAGC_LCP_BOUND_TOL);
    if (!(r <= v)) v = r; /* also catches NaN -> inf below */
  }
  return v == v ? v : INFINITY;
}

static int all_finite(const double *x, int n) {
  int i;
  for (i = 0; i < n; i++)
    if (!isfinite(x[i])) return 0;
  return 1;
}

static void keep_best(ctx *c, const double *x, double v) {
  if (c->stage) { /* a capped stage: its own best, not the answer's */
    if (v < c->sbest_v) {
      memcpy(c->sx, x, sizeof(double) * (size_t)c->n);
      c->sbest_v = v;
    }
    return;
  }
  if (!c->have_best || v < c->best_v) {
    memcpy(c->best, x, sizeof(double) * (size_t)c->n);
    c->best_v = v;
    c->have_best = 1;
  }
}

/* Scores x: fills c->w with its residual, keeps x if it is the best so far
 * and returns its violation. */
static double score(ctx *c, const double *x) {
  double v;
  residual(c, x, c->w);
  v = violation_w(c, x, c->w);
  keep_best(c, x, v);
  return v;
}

/* ------------------------------------------------------------------------ */
/* The linear system of a state assignment. */

/* Sets c->mult for bound rows from the state and the current x (used for
 * the sign of the normal).  Constant rows: the bound value; friction rows:
 * the multiplier s with x_i = s x_j. */
static void set_mult(ctx *c, int i, const double *x) {
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

/* Solves the system of the current states into c->xc.  Returns 0, or -1
 * when the result is not finite. */
static int solve_states(ctx *c) {
  int n = c->n, m = 0, i, k, r, col, rank;
  double *K = c->K, *rhs = c->rhs, *x = c->xc, *sol = c->sol;
  const double *A = c->A;

  for (i = 0; i < n; i++) {
    if (c->state[i] == ST_FREE) {
      c->pos[i] = m;
      c->freel[m++] = i;
    } else {
      c->pos[i] = -1;
    }
  }
  /* values of bound rows: constants first, then friction rows (their
     normals have constant bounds, so x_j is free or a constant) */
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
  /* K = A_FF (+cfm) + sum over linked rows k of mult_k A_{F,k} e_{pos j}^T;
     rhs = b_F - A_{F,const bound} x */
  for (r = 0; r < m; r++) {
    int ir = c->freel[r];
    const double *Ai = A + (size_t)ir * n;
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
  /* Gaussian elimination with row pivoting; dependent columns dropped */
  rank = 0;
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
  for (r = 0; r < m; r++) x[c->freel[r]] = sol[r];
  for (i = 0; i < n; i++)
    if (c->linked[i]) x[i] = c->mult[i] * x[c->fx[i]];
  if (!all_finite(x, n)) return -1;
  return 0;
}

/* The state a row should take at (x, w): the projection rule. */
static int want_state(const ctx *c, int i, const double *x, const double *w,
                      const int *nstate) {
  double L, H, y;
  bounds(c, i, x, &L, &H);
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
static int near_state(const ctx *c, int i, const double *x, const double *w,
                      const int *nstate) {
  double L, H, d = 1e-9 * (1.0 + fabs(x[i]));
  if (c->fx && c->fx[i] >= 0 && x[c->fx[i]] == 0.0) return want_state(c, i, x, w, nstate);
  bounds(c, i, x, &L, &H);
  if (H - L > 2 * d) {
    if (x[i] - L <= d) return ST_LO;
    if (H - x[i] <= d) return ST_HI;
  }
  return want_state(c, i, x, w, nstate);
}

/* Assigns the states from the point x (with residual w). */
static void init_states(ctx *c, const double *x, const double *w, int near) {
  int n = c->n, i;
  for (i = 0; i < n; i++)
    if (!c->fx || c->fx[i] < 0)
      c->state[i] = near ? near_state(c, i, x, w, c->state) : want_state(c, i, x, w, c->state);
  for (i = 0; i < n; i++)
    if (c->fx && c->fx[i] >= 0)
      c->state[i] = near ? near_state(c, i, x, w, c->state) : want_state(c, i, x, w, c->state);
  for (i = 0; i < n; i++) set_mult(c, i, x);
}

/* c->cinv, computed when a method first needs it (the coupled pivoting
 * does not). */
static void need_cinv(ctx *c) {
  int i;
  if (c->cinv_ok) return;
  for (i = 0; i < c->n; i++) {
    double d = c->A[(size_t)i * c->n + i] + c->cfm;
    c->cinv[i] = d > c->droptol ? 1.0 / d : 0.0;
  }
  c->cinv_ok = 1;
}

/* The pivoting method from the point x0 (its residual in w0).  Returns the
 * best violation reached (the point is in c->best when it improved). */
static double pivot_run(ctx *c, const double *x0, const double *w0, int maxit, int near) {
  int n = c->n, it, i, nchg, best_nchg = n + 1, stall = 0, single = 0, noprog = 0;
  double v, run_best = INFINITY;
  /* near: 0 states from the projection rule at x0, 1 the same but rows
     within round-off of a bound sit at it, 2 keep the current states
     (they solved a neighbouring problem) */
  need_cinv(c);
  if (near == 2) {
    for (i = 0; i < n; i++) set_mult(c, i, x0);
  } else {
    init_states(c, x0, w0, near);
  }
  c->states_ok = 0;
  for (it = 0; it < maxit; it++) {
    c->iters++;
    if (solve_states(c) != 0) break;
    v = score(c, c->xc);
    if (v < 0.5 * run_best) {
      noprog = 0;
    } else if (++noprog > NOPROG) {
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

/* ------------------------------------------------------------------------ */
/* Incremental Dantzig (Baraff) pass on the frozen-bounds problem.
 *
 * For symmetric A: the rows are taken one at a time (constant-bound rows
 * first, then friction rows with their bounds frozen at lo/hi times the
 * normal's value at that moment, as DART/ODE do).  Each processed row is
 * clamped (w_i = 0, in the set C) or at a bound; the current row is driven
 * toward complementarity along dx_C = -A_CC^-1 A_Ci, with a ratio test
 * that moves blocking rows into or out of C.  A_CC (+cfm) is kept as an
 * LDL^T factor updated per pivot: append a row (O(k^2)) or remove one
 * (a rank-one update of the trailing block, O(k^2)).  A row whose Schur
 * complement is below the drop tolerance (a numerically dependent column)
 * is never added to C, so rank-deficient A needs no regularization.
 *
 * Its states (C: free, others at their bound) seed the exact coupled
 * active-set iteration, which usually verifies in one solve. */

typedef struct {
  int n, k;
  double *L, *D;    /* LDL^T of A_CC: L row-major with stride n (k x k) */
  double *dx, *dw, *x, *w, *flo, *fhi, *tmp;
  int *cl;          /* C members by position */
  int *st;          /* -1 unprocessed, ST_FREE (in C), ST_LO, ST_HI */
} dz;

/* y = A_CC^-1 r (r and y may alias), both in C-position order */
static void dz_solve(const dz *z, const double *r, double *y) {
  int k = z->k, a, m;
  for (a = 0; a < k; a++) {
    const double *La = z->L + (size_t)a * z->n;
    double s = r[a];
    for (m = 0; m < a; m++) s -= La[m] * y[m];
    y[a] = s;
  }
  for (a = 0; a < k; a++) y[a] /= z->D[a];
  for (a = k - 1; a >= 0; a--) {
    double s = y[a];
    for (m = a + 1; m < k; m++) s -= z->L[(size_t)m * z->n + a] * y[m];
    y[a] = s;
  }
}

/* Adds row j to C when its Schur complement exceeds droptol; returns 1 if
 * added. */
static int dz_add(const ctx *c, dz *z, int j) {
  int k = z->k, a, m;
  const double *Aj = c->A + (size_t)j * c->n;
  double *Lk = z->L + (size_t)k * z->n, d = Aj[j] + c->cfm;
  for (a = 0; a < k; a++) { /* L D l = A_Cj: forward solve, then scale */
    const double *La = z->L + (size_t)a * z->n;
    double s = Aj[z->cl[a]];
    for (m = 0; m < a; m++) s -= La[m] * Lk[m];
    Lk[a] = s;
  }
  for (a = 0; a < k; a++) {
    double l = Lk[a] / z->D[a];
    d -= l * Lk[a];
    Lk[a] = l;
  }
  if (!(d > c->droptol)) return 0;
  Lk[k] = 1.0;
  z->D[k] = d;
  z->cl[k] = j;
  z->k = k + 1;
  return 1;
}

/* Removes the member at position r from C. */
static void dz_remove(dz *z, int r) {
  int k = z->k, a, m, n = z->n;
  double alpha = z->D[r];
  double *v = z->tmp;
  for (a = r + 1; a < k; a++) v[a] = z->L[(size_t)a * n + r];
  /* trailing block += D_r v v^T (rank-one update, method C1 of Gill,
     Golub, Murray and Saunders) */
  for (a = r + 1; a < k; a++) {
    double p = v[a], da = z->D[a], dbar = da + alpha * p * p, beta;
    if (p == 0.0) continue;
    beta = p * alpha / dbar;
    alpha = alpha * da / dbar;
    z->D[a] = dbar;
    for (m = a + 1; m < k; m++) {
      double *Lma = z->L + (size_t)m * n + a;
      v[m] -= p * *Lma;
      *Lma += beta * v[m];
    }
  }
  /* delete row r and column r */
  for (a = r; a < k - 1; a++) {
    double *dst = z->L + (size_t)a * n;
    const double *src = z->L + (size_t)(a + 1) * n;
    for (m = 0; m < r; m++) dst[m] = src[m];
    for (m = r; m <= a; m++) dst[m] = src[m + 1];
    z->D[a] = z->D[a + 1];
    z->cl[a] = z->cl[a + 1];
  }
  z->k = k - 1;
}

/* w += s * A dx over the support (C and row i) */
static void dz_step(const ctx *c, dz *z, int i, double s) {
  int n = c->n, a, r;
  for (a = 0; a < z->k; a++) z->x[z->cl[a]] += s * z->dx[a];
  z->x[i] += s * z->dx[z->k];
  for (r = 0; r < n; r++) z->w[r] += s * z->dw[r];
}

/* Drives row i to complementarity.  Returns 0, or -1 (no blocking step:
 * an unbounded ray, or too many steps). */
static int dz_drive(ctx *c, dz *z, int i, int *budget) {
  int n = c->n, a, r;
  const double eps = 1e-13;
  double dir, tolw = 1e-13 * (1.0 + fabs(c->b[i]));
  /* where it starts: at a bound already satisfied, or inside with w = 0 */
  if (z->st[i] == ST_LO && !(z->w[i] < 0.0)) return 0;
  if (z->st[i] == ST_HI && !(z->w[i] > 0.0)) return 0;
  if (fabs(z->w[i]) <= tolw && z->st[i] == ST_FREE) {
    z->w[i] = 0.0;
    dz_add(c, z, i);
    return 0; /* in C, or (dependent) inside with w = 0 */
  }
  dir = z->w[i] < 0.0 ? 1.0 : -1.0;
  for (;;) {
    double xi = z->x[i], wi = z->w[i], s, sb;
    int kind = 0, who = -1; /* 1 i's w reaches 0, 2 i at bound, 3 C member at bound, 4 N member's w reaches 0 */
    if (--*budget < 0) return -1;
    /* dx_C = -A_CC^-1 A_Ci dir */
    for (a = 0; a < z->k; a++) z->dx[a] = -dir * c->A[(size_t)z->cl[a] * n + i];
    dz_solve(z, z->dx, z->dx);
    z->dx[z->k] = dir;
    for (r = 0; r < n; r++) {
      const double *Ar = c->A + (size_t)r * n;
      double s2 = dir * (Ar[i] + (r == i ? c->cfm : 0.0));
      for (a = 0; a < z->k; a++) s2 += Ar[z->cl[a]] * z->dx[a];
      z->dw[r] = s2;
    }
    for (a = 0; a < z->k; a++) z->dw[z->cl[a]] = 0.0;
    /* ratio test */
    s = INFINITY;
    if (z->dw[i] * dir > c->droptol) {
      s = -wi / z->dw[i];
      kind = 1;
    } else {
      z->dw[i] = 0.0; /* a dependent column: w_i does not move */
    }
    sb = dir > 0 ? z->fhi[i] - xi : xi - z->flo[i];
    if (sb < 0) sb = 0;
    if (sb <= s) s = sb, kind = 2;
    for (a = 0; a < z->k; a++) {
      int j = z->cl[a];
      double d = z->dx[a], t;
      if (d > eps) {
        t = (z->fhi[j] - z->x[j]) / d;
        if (t < s) s = t < 0 ? 0 : t, kind = 3, who = a;
      } else if (d < -eps) {
        t = (z->flo[j] - z->x[j]) / d;
        if (t < s) s = t < 0 ? 0 : t, kind = 3, who = a;
      }
    }
    for (r = 0; r < n; r++) {
      double d = z->dw[r], t;
      int sr = z->st[r];
      if (r == i || sr < 0 || sr == ST_FREE || !(z->fhi[r] > z->flo[r])) continue;
      if (sr == ST_LO && d < -eps) {
        t = -z->w[r] / d;
        if (t < s) s = t < 0 ? 0 : t, kind = 4, who = r;
      } else if (sr == ST_HI && d > eps) {
        t = -z->w[r] / d;
        if (t < s) s = t < 0 ? 0 : t, kind = 4, who = r;
      }
    }
    if (!(s < INFINITY)) return -1;
    dz_step(c, z, i, s);
    c->pivots++;
    if (kind == 1) {
      z->w[i] = 0.0;
      z->st[i] = ST_FREE;
      dz_add(c, z, i); /* if dependent: inside, w_i = 0, not in C */
      return 0;
    } else if (kind == 2) {
      z->x[i] = dir > 0 ? z->fhi[i] : z->flo[i];
      z->st[i] = dir > 0 ? ST_HI : ST_LO;
      return 0;
    } else if (kind == 3) {
      int j = z->cl[who];
      z->x[j] = z->dx[who] > 0 ? z->fhi[j] : z->flo[j];
      z->st[j] = z->dx[who] > 0 ? ST_HI : ST_LO;
      dz_remove(z, who);
    } else {
      z->w[who] = 0.0;
      z->st[who] = ST_FREE; /* in C; or dependent: w stays 0 with C's */
      dz_add(c, z, who);
    }
  }
}

/* The Dantzig pass; on success its point is in c->xc and its states in
 * c->state.  Returns 0, or -1 (no symmetric A, or the pass failed). */
static int dz_run(ctx *c, const double *fb) {
  int n = c->n, i, phase, budget = 6 * n + 20;
  size_t nn = (size_t)n;
  dz z;
  double *p = c->K;
  z.n = n, z.k = 0;
  z.L = p, p += nn * nn;
  z.D = p, p += nn + 1;
  z.dx = p, p += nn + 1;
  z.dw = p, p += nn + 1;
  z.x = p, p += nn + 1;
  z.w = p, p += nn + 1;
  z.flo = p, p += nn + 1;
  z.fhi = p, p += nn + 1;
  z.tmp = p;
  z.cl = c->basic;
  z.st = c->vrow;
  for (i = 0; i < n; i++) {
    int fr = c->fx && c->fx[i] >= 0;
    z.flo[i] = fr ? 0.0 : c->lo[i];
    z.fhi[i] = fr ? 0.0 : c->hi[i];
    z.x[i] = z.flo[i] > 0 ? z.flo[i] : z.fhi[i] < 0 ? z.fhi[i] : 0.0;
    z.st[i] = -1;
  }
  residual(c, z.x, z.w);
  for (phase = 0; phase < 2; phase++) {
    for (i = 0; i < n; i++) {
      int fr = c->fx && c->fx[i] >= 0;
      if (fr != phase) continue;
      if (fr) {
        bounds(c, i, fb ? fb : z.x, &z.flo[i], &z.fhi[i]);
        if (!isfinite(z.flo[i])) z.flo[i] = -INFINITY;
        if (!isfinite(z.fhi[i])) z.fhi[i] = INFINITY;
      }
      /* x_i is 0 or the bound nearest 0: at a bound or inside */
      z.st[i] = z.x[i] <= z.flo[i] ? ST_LO : z.x[i] >= z.fhi[i] ? ST_HI : ST_FREE;
      if (z.flo[i] == z.fhi[i]) { z.st[i] = ST_LO; continue; }
      if (dz_drive(c, &z, i, &budget) != 0) return -1;
    }
  }
  c->iters++;
  for (i = 0; i < n; i++) {
    c->xc[i] = z.x[i];
    c->state[i] = z.st[i];
  }
  return all_finite(c->xc, n) ? 0 : -1;
}

/* ------------------------------------------------------------------------ */
/* Lemke's method on an equivalent standard LCP (z >= 0, q + M z >= 0, z'(q + M z) = 0).
 *
 * Variables (x = x0 + sum over x-type variables a of vsgn[a] z_a):
 *   [lo, inf)        z = x - lo            row  w
 *   (-inf, hi]       z = hi - x            row -w
 *   [lo, hi]         z = x - lo            row  w + s,   s: row (hi-lo) - z
 *   (-inf, inf)      z+ - z-               rows w, -w
 *   lo = hi          fixed, no variable
 *   friction [l xn, h xn]: x = p+ - p-, p+ row w + g+, p- row -w + g-,
 *                    g+ row h xn - p+, g- row -l xn - p-  (as in the
 *                    Stewart-Trinkle / Anitescu-Potra formulations; the
 *                    matrix is copositive for PSD A)
 * vrow[a]: the x row of an x-type variable, or -1 - (index of the variable
 * it bounds) for a dual g/s variable; vlink[a]: the dual of an x-type
 * variable (-1 if none); vsgn[a]: +-1 (x-type); for g-variables vsgn holds
 * the kind (+1: h, -1: -l, 0: constant box).
 * Returns the number of variables. */
static int lemke_vars(ctx *c) {
  int n = c->n, i, N = 0;
  for (i = 0; i < n; i++) {
    int j = c->fx ? c->fx[i] : -1;
    double lo = c->lo[i], hi = c->hi[i];
    if (j >= 0) {
      c->x0[i] = 0.0;
      if (hi > 0) {
        int a = N++, g = N++;
        c->vrow[a] = i, c->vsgn[a] = 1, c->vlink[a] = g;
        c->vrow[g] = -1 - a, c->vsgn[g] = 1, c->vlink[g] = -1;
      }
      if (lo < 0) {
        int a = N++, g = N++;
        c->vrow[a] = i, c->vsgn[a] = -1, c->vlink[a] = g;
        c->vrow[g] = -1 - a, c->vsgn[g] = -1, c->vlink[g] = -1;
      }
    } else if (lo == hi) {
      c->x0[i] = lo;
    } else if (isfinite(lo) && isfinite(hi)) {
      int a = N++, g = N++;
      c->x0[i] = lo;
      c->vrow[a] = i, c->vsgn[a] = 1, c->vlink[a] = g;
      c->vrow[g] = -1 - a, c->vsgn[g] = 0, c->vlink[g] = -1;
    } else if (isfinite(lo)) {
      int a = N++;
      c->x0[i] = lo;
      c->vrow[a] = i, c->vsgn[a] = 1, c->vlink[a] = -1;
    } else if (isfinite(hi)) {
      int a = N++;
      c->x0[i] = hi;
      c->vrow[a] = i, c->vsgn[a] = -1, c->vlink[a] = -1;
    } else {
      int a = N++, d = N++;
      c->x0[i] = 0.0;
      c->vrow[a] = i, c->vsgn[a] = 1, c->vlink[a] = -1;
      c->vrow[d] = i, c->vsgn[d] = -1, c->vlink[d] = -1;
    }
  }
  return N;
}

/* Lemke's ratio test for the entering column: the lexicographic minimum
 * of (t_r, row r of B^-1) / -T[r][enter] over rows with T[r][enter] < 0,
 * z0 preferred at the first level.  Returns the row, or -1 (a ray). */
static int lemke_ratio(ctx *c, const double *T, const double *t, int N, int W,
                       int enter, int z0lab, double *best_out) {
  int r, nt = 0, j, k;
  double colmax = 0.0, eps, best = INFINITY, tol;
  int *ties = c->ties;
  for (r = 0; r < N; r++) {
    double a = fabs(T[(size_t)r * W + enter]);
    if (a > colmax) colmax = a;
  }
  eps = 1e-15 * colmax;
  for (r = 0; r < N; r++) {
    double cf = T[(size_t)r * W + enter];
    if (cf < -eps) {
      double ratio = t[r] / -cf;
      if (ratio < 0) ratio = 0;
      if (ratio < best) best = ratio;
    }
  }
  *best_out = best;
  if (best == INFINITY) return -1;
  tol = 1e-11 * (1.0 + best);
  for (r = 0; r < N; r++) {
    double cf = T[(size_t)r * W + enter];
    if (cf < -eps) {
      double ratio = t[r] / -cf;
      if (ratio < 0) ratio = 0;
      if (ratio <= best + tol) {
        if (c->basic[r] == z0lab) return r;
        ties[nt++] = r;
      }
    }
  }
  /* lexicographic refinement over the columns of B^-1: column j is e_row
     if w_j is basic, else minus the tableau column of w_j */
  for (j = 0; j < N && nt > 1; j++) {
    int col = -1, brow = -1, m = 0;
    double mn = INFINITY;
    for (k = 0; k <= N; k++)
      if (c->nonb[k] == j) col = k;
    if (col < 0)
      for (k = 0; k < N; k++)
        if (c->basic[k] == j) brow = k;
    for (k = 0; k < nt; k++) {
      int rr = ties[k];
      double cf = -T[(size_t)rr * W + enter];
      double val = (col >= 0 ? -T[(size_t)rr * W + col] : (rr == brow ? 1.0 : 0.0)) / cf;
      if (val < mn) mn = val;
    }
    tol = 1e-11 * (1.0 + fabs(mn));
    for (k = 0; k < nt; k++) {
      int rr = ties[k];
      double cf = -T[(size_t)rr * W + enter];
      double val = (col >= 0 ? -T[(size_t)rr * W + col] : (rr == brow ? 1.0 : 0.0)) / cf;
      if (val <= mn + tol) ties[m++] = rr;
    }
    nt = m;
  }
  if (nt == 1) return ties[0];
  { /* still tied: the largest pivot */
    int bestr = ties[0];
    for (k = 1; k < nt; k++)
      if (T[(size_t)ties[k] * W + enter] < T[(size_t)bestr * W + enter]) bestr = ties[k];
    return bestr;
  }
}

/* y += a x (distinct rows of the tableau) */
static void row_axpy(int m, double a, const double *restrict xv, double *restrict yv) {
  int k;
  for (k = 0; k + 1 < m; k += 2) {
    yv[k] += a * xv[k];
    yv[k + 1] += a * xv[k + 1];
  }
  if (k < m) yv[k] += a * xv[k];
}

/* Runs Lemke's method; on success writes x into c->xc and returns 0. */
static int lemke_run(ctx *c, int maxpiv, int variant) {
  int n = c->n, N = lemke_vars(c), W = 0, a, b, r, k, it;
  double *T, *t, *xw = c->w;
  int enter, leave_row, z0lab;
  if (N == 0) {
    memcpy(c->xc, c->x0, sizeof(double) * (size_t)n);
    return 0;
  }
  W = N + 1; /* tableau columns: z_1..z_N, z0 */
  T = c->K;
  t = c->K + (size_t)N * W;
  /* xw = A x0 - b (+ cfm x0) */
  residual(c, c->x0, xw);
  for (a = 0; a < N; a++) {
    double *Ta = T + (size_t)a * W;
    int ia = c->vrow[a];
    memset(Ta, 0, sizeof(double) * (size_t)W);
    /* covering vector: ones, or (retries) a fixed pseudo-random positive one */
    Ta[N] = variant < 2 ? 1.0 : 1.0 + (double)(((unsigned)a * 2654435761u + (unsigned)variant * 40503u) % 1024u) / 1024.0;
    if (ia >= 0) {
      const double *Ai = c->A + (size_t)ia * n;
      double sa = c->vsgn[a];
      t[a] = sa * xw[ia];
      for (b = 0; b < N; b++) {
        int ib = c->vrow[b];
        if (ib >= 0) Ta[b] = sa * c->vsgn[b] * (Ai[ib] + (ib == ia ? c->cfm : 0.0));
      }
      if (c->vlink[a] >= 0) Ta[c->vlink[a]] = 1.0;
    } else {
      int xa = -1 - ia, row = c->vrow[xa];
      int kind = c->vsgn[a];
      Ta[xa] = -1.0;
      if (kind == 0) {
        t[a] = c->hi[row] - c->lo[row];
      } else {
        /* the row coef*x_n - p, scaled by 1/coef (a positive row scaling
           keeps the complementarity; it keeps huge mu out of the tableau) */
        int jn = c->fx[row];
        double coef = kind > 0 ? c->hi[row] : -c->lo[row];
        double sc = (variant & 1) ? 1.0 : 1.0 / coef;
        Ta[xa] = -sc;
        t[a] = coef * sc * c->x0[jn];
        for (b = 0; b < N; b++)
          if (c->vrow[b] == jn) Ta[b] += coef * sc * c->vsgn[b];
      }
    }
  }
  /* labels: w_a = a, z_a = N + a, z0 = 2N */
  z0lab = 2 * N;
  for (a = 0; a < N; a++) c->basic[a] = a;
  for (b = 0; b < N; b++) c->nonb[b] = N + b;
  c->nonb[N] = z0lab;
  /* trivial solution */
  {
    double mn = 0.0;
    leave_row = -1;
    for (a = 0; a < N; a++) {
      double ra = t[a] / T[(size_t)a * W + N];
      if (ra < mn) mn = ra, leave_row = a;
    }
    if (leave_row < 0) {
      memcpy(c->xc, c->x0, sizeof(double) * (size_t)n);
      return 0;
    }
  }
  enter = N; /* column of z0 */
  for (it = 0; it < maxpiv; it++) {
    int col = enter, lab;
    double p, *Tr = T + (size_t)leave_row * W;
    /* Jordan exchange at (leave_row, col) */
    p = Tr[col];
    if (p == 0.0 || !isfinite(p)) return -1;
    for (k = 0; k < W; k++) Tr[k] = k == col ? 1.0 / p : -Tr[k] / p;
    t[leave_row] = -t[leave_row] / p;
    for (r = 0; r < N; r++) {
      double *Ti, f;
      if (r == leave_row) continue;
      Ti = T + (size_t)r * W;
      f = Ti[col];
      if (f == 0.0) continue;
      row_axpy(W, f, Tr, Ti);
      Ti[col] = f * Tr[col];
      t[r] += f * t[leave_row];
    }
    lab = c->basic[leave_row];
    c->basic[leave_row] = c->nonb[col];
    c->nonb[col] = lab;
    c->lemke_pivots++;
    if (lab == z0lab) break; /* z0 left: a solution */
    /* entering: the complement of the variable that left */
    {
      int comp = lab < N ? lab + N : lab - N;
      double best = INFINITY;
      enter = -1;
      for (k = 0; k < W; k++)
        if (c->nonb[k] == comp) enter = k;
      if (enter < 0) return -1;
      leave_row = lemke_ratio(c, T, t, N, W, enter, z0lab, &best);
      if (leave_row < 0) return -1; /* secondary ray */
    }
  }
  if (it == maxpiv) return -1;
  /* x from the basic z variables */
  memcpy(c->xc, c->x0, sizeof(double) * (size_t)n);
  for (r = 0; r < N; r++) {
    int lab = c->basic[r];
    if (lab >= N && lab < 2 * N) {
      int v = lab - N, row = c->vrow[v];
      if (row >= 0) c->xc[row] += c->vsgn[v] * (t[r] > 0 ? t[r] : 0.0);
    }
  }
  return all_finite(c->xc, n) ? 0 : -1;
}

/* Lemke on the equivalent standard LCP, then polish its active set.  The
 * tableau can lose accuracy on badly scaled problems (huge mu): variants
 * differ in the scaling of the friction-bound rows and in the covering
 * vector, and are tried until one verifies. */
static double *cur_best_v(ctx *c) { return c->stage ? &c->sbest_v : &c->best_v; }

static void lemke_attempts(ctx *c, int maxit, int *used) {
  int n = c->n, variant, maxpiv = 25 * n + 50;
  size_t nn = (size_t)n;
  /* Lemke's method does not depend on the starting point: on the problem
     itself, running the variants again would repeat the same pivots */
  if (!c->stage) {
    if (c->lemke_tried) return;
    c->lemke_tried = 1;
  }
  for (variant = 0; variant < (c->stage ? 1 : 4) && *cur_best_v(c) > c->tol; variant++) {
    if (lemke_run(c, maxpiv, variant) != 0) continue;
    score(c, c->xc);
    if (!c->stage) *used = DIAGC_LCP_LEMKE;
    /* polish: the tableau accumulates round-off; an exact solve on its
       active set removes it (kept only if better) */
    memcpy(c->sol, c->xc, sizeof(double) * nn);
    memcpy(c->rhs, c->w, sizeof(double) * nn);
    pivot_run(c, c->sol, c->rhs, maxit, 1);
  }
}

/* Continuation in the friction coefficient: solve with the friction
 * multipliers capped at 1, 10, 100, ... (each stage started from the
 * previous stage's answer), ending with the problem itself (there without
 * Lemke's method, already tried on it: lemke_attempts).  Sliding
 * contacts under a huge mu carry normal impulses of order 1/mu that the
 * active-set iteration finds easily by following them down. */
static void mu_continuation(ctx *c, int maxit, int *used) {
  int n = c->n, i;
  size_t nn = (size_t)n;
  const double *lo0 = c->lo, *hi0 = c->hi;
  double maxmu = 0.0, cap = 1.0;
  if (!c->fx) return;
  for (i = 0; i < n; i++)
    if (c->fx[i] >= 0) {
      if (-lo0[i] > maxmu) maxmu = -lo0[i];
      if (hi0[i] > maxmu) maxmu = hi0[i];
    }
  if (!(maxmu > 10.0)) return;
  memset(c->sx, 0, sizeof(double) * nn);
  for (;;) {
    int final = !(cap < maxmu);
    if (final) {
      c->lo = lo0, c->hi = hi0, c->stage = 0;
    } else {
      for (i = 0; i < n; i++) {
        int fr = c->fx[i] >= 0;
        c->slo[i] = fr && lo0[i] < -cap ? -cap : lo0[i];
        c->shi[i] = fr && hi0[i] > cap ? cap : hi0[i];
      }
      c->lo = c->slo, c->hi = c->shi, c->stage = 1;
      c->sbest_v = INFINITY;
    }
    memcpy(c->sol, c->sx, sizeof(double) * nn);
    residual(c, c->sol, c->rhs);
    /* from the previous stage's active set when it verified */
    pivot_run(c, c->sol, c->rhs, maxit, (cap > 1.0 && c->states_ok) ? 2 : 0);
    if (*cur_best_v(c) > c->tol) lemke_attempts(c, maxit, used);
    if (final) break;
    cap *= 10.0;
  }
  if (c->best_v <= c->tol) *used = DIAGC_LCP_CONTINUATION;
}

/* Projected Gauss-Seidel on x for up to `sweeps` sweeps; tests the
 * violation every few sweeps and stops at tol.  Returns the last
 * violation computed (w holds the residual at x on return). */
static double pgs_run(ctx *c, double *x, int sweeps) {
  int n = c->n, s, i, k, every = n <= 30 ? 4 : 2;
  double v = INFINITY;
  need_cinv(c);
  for (s = 1; s <= sweeps; s++) {
    for (i = 0; i < n; i++) {
      const double *Ai = c->A + (size_t)i * n;
      double r = c->b[i] - c->cfm * x[i], L, H, xi;
      for (k = 0; k < n; k++) r -= Ai[k] * x[k];
      if (c->cinv[i] != 0.0)
        xi = x[i] + c->cinv[i] * r;
      else
        xi = x[i];
      bounds(c, i, x, &L, &H);
      if (xi < L) xi = L;
      if (xi > H) xi = H;
      if (isfinite(xi)) x[i] = xi;
    }
    c->sweeps++;
    c->iters++;
    if (s % every == 0 || s == sweeps) {
      v = score(c, x);
      if (v <= c->tol) break;
    }
  }
  return v;
}

/* ------------------------------------------------------------------------ */

/* AUTO, before Lemke's method: PGS from the starting point (not from the
 * best point so far: the points where pivoting stopped can sit in a region
 * where PGS stalls), in rounds of doubling length, each followed by a few
 * active-set steps from the PGS iterate (which carries on unchanged).  On
 * degenerate problems (rank-deficient A, a large mu) where every pivoting
 * attempt stops, PGS often still converges, and the active set of its
 * iterate verifies long before PGS reaches the tolerance by itself.  A
 * round that does not cut the PGS violation to START_STALL of the previous
 * round's ends the stage (PGS stalls on such problems when mu ~ 1). */
static void start_pgs_stage(ctx *c, int *used) {
  int n = c->n, sweeps = START_PGS0, total = 0;
  size_t nn = (size_t)n;
  double *xs = c->sx, prev = INFINITY;
  memcpy(xs, c->alt, sizeof(double) * nn);
  while (total < START_PGS && c->best_v > c->tol) {
    double v;
    if (sweeps > START_PGS - total) sweeps = START_PGS - total;
    v = pgs_run(c, xs, sweeps);
    total += sweeps;
    if (c->best_v <= c->tol) break;
    memcpy(c->sol, xs, sizeof(double) * nn);
    residual(c, c->sol, c->rhs);
    pivot_run(c, c->sol, c->rhs, EARLY_PIV, 0);
    if (!(v <= START_STALL * prev)) break;
    prev = v;
    sweeps *= 2;
  }
  if (c->best_v <= c->tol) *used = DIAGC_LCP_PIVOT_AFTER_PGS;
}

/* The AUTO stages that start from the best point so far: the active set
 * from it, a few PGS sweeps then the active set (part 0); rounds of PGS
 * and the active set with growing sweep counts (part 1). */
static void seeded_stages(ctx *c, int method, int maxit, int *used_out, int part, int extra) {
  int used = *used_out;
  if (part == 0) {
    if (c->best_v > c->tol && method != DIAGC_LCP_COUPLED) {
      memcpy(c->sol, c->best, sizeof(double) * (size_t)c->n);
      residual(c, c->sol, c->rhs);
      /* pivot_run reads (x0, w0) = (sol, rhs) once, before overwriting them */
      pivot_run(c, c->sol, c->rhs, maxit, 0);
    }
    if (c->best_v > c->tol && method == DIAGC_LCP_AUTO) {
      /* a few PGS sweeps usually land near the right active set, from
         which the active-set iteration converges in a few steps: much
         cheaper than Lemke's method when it works */
      memcpy(c->sol, c->best, sizeof(double) * (size_t)c->n);
      pgs_run(c, c->sol, EARLY_PGS);
      if (c->best_v > c->tol) {
        residual(c, c->sol, c->rhs);
        pivot_run(c, c->sol, c->rhs, EARLY_PIV, 0);
      }
      if (c->best_v <= c->tol) used = DIAGC_LCP_PIVOT_AFTER_PGS;
    }
  } else {
    if (c->best_v > c->tol && method == DIAGC_LCP_AUTO) {
      int round, sweeps = c->opt->fallback_sweeps > 0 ? c->opt->fallback_sweeps : 50;
      for (round = 0; round < c->opt->fallback_rounds + extra && c->best_v > c->tol; round++) {
        double *xp = c->sol; /* the PGS iterate (pivot_run reads it first) */
        memcpy(xp, c->best, sizeof(double) * (size_t)c->n);
        pgs_run(c, xp, sweeps);
        used = DIAGC_LCP_PIVOT_AFTER_PGS;
        if (c->best_v <= c->tol) break;
        residual(c, xp, c->w);
        memcpy(c->rhs, c->w, sizeof(double) * (size_t)c->n);
        pivot_run(c, xp, c->rhs, maxit, 0);
        sweeps *= 2;
      }
    }
  }
  *used_out = used;
}

/* Checks the arguments (0: invalid).  Also sets *maxdiag = max |A_ii + cfm|
 * and *sym: A symmetric to 1e-12 maxdiag. */
static int check_args(int n, const double *A, const double *b, const double *lo,
                      const double *hi, const int *fx, const double *x, double cfm,
                      double *maxdiag, int *sym) {
  int i;
  *maxdiag = 0.0;
  *sym = 1;
  if (n < 0) return 0;
  if (n == 0) return 1;
  if (!A || !b || !lo || !hi || !x) return 0;
  {
    size_t nn = (size_t)n, k;
    double md = 0.0, tol;
    for (i = 0; i < n; i++) {
      double a = A[(size_t)i * nn + i];
      if (!isfinite(a)) return 0;
      a = fabs(a + cfm);
      if (a > md) md = a;
    }
    *maxdiag = md;
    tol = 1e-12 * md;
    /* the pairs (A_ik, A_ki) in 2 x 2 blocks; first the common case, a
       symmetric A: per pair of rows, the sum of |A_ik - A_ki| is at most
       tol (then each is: the order of the sum does not matter; a NaN or
       an infinity fails it: A_ik - A_ki is not finite when either is
       not), one test per pair of rows */
    for (i = 0; i + 1 < n; i += 2) { /* rows i, i + 1 against columns i, i + 1 */
      const double *R0 = A + (size_t)i * nn, *R1 = R0 + nn;
      double s0 = fabs(R1[i] - R0[i + 1]), s1 = 0.0;
#ifdef __SSE2__ /* the 2 x 2 blocks in registers: row i's pair against
                   column i's (unpacklo), row i + 1's against i + 1's */
      __m128d a0 = _mm_setzero_pd(), a1 = a0, a2 = a0, a3 = a0, acc;
      __m128d am = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
      double h[2];
      for (k = 0; k + 2 < (size_t)i; k += 4) { /* two blocks: four sums */
        const double *C0 = A + k * nn + i, *C2 = C0 + 2 * nn;
        __m128d c0 = _mm_loadu_pd(C0), c1 = _mm_loadu_pd(C0 + nn);
        __m128d c2 = _mm_loadu_pd(C2), c3 = _mm_loadu_pd(C2 + nn);
        a0 = _mm_add_pd(a0, _mm_and_pd(_mm_sub_pd(_mm_loadu_pd(R0 + k), _mm_unpacklo_pd(c0, c1)), am));
        a1 = _mm_add_pd(a1, _mm_and_pd(_mm_sub_pd(_mm_loadu_pd(R1 + k), _mm_unpackhi_pd(c0, c1)), am));
        a2 = _mm_add_pd(a2, _mm_and_pd(_mm_sub_pd(_mm_loadu_pd(R0 + k + 2), _mm_unpacklo_pd(c2, c3)), am));
        a3 = _mm_add_pd(a3, _mm_and_pd(_mm_sub_pd(_mm_loadu_pd(R1 + k + 2), _mm_unpackhi_pd(c2, c3)), am));
      }
      if (k < (size_t)i) {
        const double *C0 = A + k * nn + i;
        __m128d c0 = _mm_loadu_pd(C0), c1 = _mm_loadu_pd(C0 + nn);
        a0 = _mm_add_pd(a0, _mm_and_pd(_mm_sub_pd(_mm_loadu_pd(R0 + k), _mm_unpacklo_pd(c0, c1)), am));
        a1 = _mm_add_pd(a1, _mm_and_pd(_mm_sub_pd(_mm_loadu_pd(R1 + k), _mm_unpackhi_pd(c0, c1)), am));
      }
      acc = _mm_add_pd(_mm_add_pd(a0, a1), _mm_add_pd(a2, a3));
      _mm_storeu_pd(h, acc);
      s1 = h[0] + h[1];
#else
      for (k = 0; k < (size_t)i; k += 2) { /* i even: k + 1 < i */
        const double *C0 = A + k * nn + i, *C1 = C0 + nn;
        s0 += fabs(R0[k] - C0[0]) + fabs(R0[k + 1] - C1[0]);
        s1 += fabs(R1[k] - C0[1]) + fabs(R1[k + 1] - C1[1]);
      }
#endif
      if (!(s0 + s1 <= tol)) goto full;
    }
    if (i < n) { /* the last row of an odd n */
      const double *Ai = A + (size_t)i * nn;
      double s0 = 0.0;
      for (k = 0; k < (size_t)i; k++) s0 += fabs(Ai[k] - A[k * nn + i]);
      if (!(s0 <= tol)) goto full;
    }
    goto done;
  full: {
    /* d = A_ik - A_ki is not finite when either is not (inf - inf, NaN:
       NaN) or when it overflows, and d * 0 is then NaN (one branch for all
       of A); max |d| says whether A is symmetric */
    double z0 = 0.0, z1 = 0.0, m0 = 0.0, m1 = 0.0;
    for (i = 0; i + 1 < n; i += 2) {
      const double *R0 = A + (size_t)i * nn, *R1 = R0 + nn;
      double d;
      for (k = 0; k < (size_t)i; k += 2) {
        const double *C0 = A + k * nn + i, *C1 = C0 + nn;
        double d00 = R0[k] - C0[0], d01 = R0[k + 1] - C1[0];
        double d10 = R1[k] - C0[1], d11 = R1[k + 1] - C1[1];
        z0 += d00 * 0.0 + d01 * 0.0;
        z1 += d10 * 0.0 + d11 * 0.0;
        d00 = fabs(d00), d01 = fabs(d01), d10 = fabs(d10), d11 = fabs(d11);
        d00 = d00 > d01 ? d00 : d01;
        d10 = d10 > d11 ? d10 : d11;
        m0 = d00 > m0 ? d00 : m0;
        m1 = d10 > m1 ? d10 : m1;
      }
      d = R1[i] - R0[i + 1];
      z0 += d * 0.0;
      d = fabs(d);
      m0 = d > m0 ? d : m0;
    }
    if (i < n) {
      const double *Ai = A + (size_t)i * nn;
      for (k = 0; k < (size_t)i; k++) {
        double d = Ai[k] - A[k * nn + i];
        z1 += d * 0.0;
        d = fabs(d);
        m1 = d > m1 ? d : m1;
      }
    }
    z0 += z1;
    if (z0 != z0) { /* a difference is not finite: an entry, or an overflow
                       (A_ik = 1e308, A_ki = -1e308: finite, not symmetric) */
      for (k = 0; k < nn * nn; k++)
        if (!isfinite(A[k])) return 0;
      *sym = 0;
    } else {
      *sym = (m0 > m1 ? m0 : m1) <= tol;
    }
  }
  done:;
  }
  for (i = 0; i < n; i++) {
    int j = fx ? fx[i] : -1;
    if (!isfinite(b[i])) return 0;
    if (lo[i] != lo[i] || hi[i] != hi[i]) return 0;
    if (j < 0) {
      if (j != -1) return 0;
      if (!(lo[i] <= hi[i]) || lo[i] == INFINITY || hi[i] == -INFINITY) return 0;
    } else {
      if (j >= n || j == i || fx[j] != -1) return 0;
      if (!(lo[i] <= 0.0) || !(hi[i] >= 0.0)) return 0;
    }
  }
  return 1;
}

int diagc_lcp_solve(int n, const double *A, const double *b, const double *lo,
                    const double *hi, const int *findex, double *x,
                    const diagc_lcp_options *opt, diagc_lcp_stats *stats) {
  ctx c;
  char *p;
  size_t nn;
  int i, method, status, used = DIAGC_LCP_PIVOT, maxit, sym = 1, warm;
  double maxdiag = 0.0, v;

  if (stats) memset(stats, 0, sizeof *stats);
  if (!opt || !opt->workspace) return DIAGC_LCP_NO_WORKSPACE;
  if (!check_args(n, A, b, lo, hi, findex, x, opt->cfm, &maxdiag, &sym)) return DIAGC_LCP_BAD_ARG;
  if (!(opt->tol >= 0) || !(opt->cfm >= 0) || !isfinite(opt->cfm)) return DIAGC_LCP_BAD_ARG;
  method = opt->method;
  if (method != DIAGC_LCP_AUTO && method != DIAGC_LCP_PIVOT && method != DIAGC_LCP_PGS &&
      method != DIAGC_LCP_COUPLED)
    return DIAGC_LCP_BAD_ARG;
  if (opt->workspace_size < diagc_lcp_workspace_size(n)) return DIAGC_LCP_NO_WORKSPACE;
  if (method == DIAGC_LCP_COUPLED) used = DIAGC_LCP_COUPLED;
  if (n == 0) {
    if (stats) stats->method = method == DIAGC_LCP_PGS ? DIAGC_LCP_PGS : used;
    return DIAGC_LCP_SOLVED;
  }

  memset(&c, 0, sizeof c);
  c.n = n;
  c.A = A;
  c.b = b;
  c.lo = lo;
  c.hi = hi;
  c.fx = findex;
  c.cfm = opt->cfm;
  c.tol = opt->tol;
  c.opt = opt;
  nn = (size_t)n;
  p = (char *)opt->workspace;
  p += (ALIGN - (uintptr_t)p % ALIGN) % ALIGN;
  c.K = (double *)p;
  p += big_doubles(nn) * sizeof(double);
  c.rhs = (double *)p, p += nn * sizeof(double);
  c.xc = (double *)p, p += nn * sizeof(double);
  c.w = (double *)p, p += nn * sizeof(double);
  c.best = (double *)p, p += nn * sizeof(double);
  c.cinv = (double *)p, p += nn * sizeof(double);
  c.mult = (double *)p, p += nn * sizeof(double);
  c.sol = (double *)p, p += nn * sizeof(double);
  c.x0 = (double *)p, p += nn * sizeof(double);
  c.slo = (double *)p, p += nn * sizeof(double);
  c.shi = (double *)p, p += nn * sizeof(double);
  c.sx = (double *)p, p += nn * sizeof(double);
  c.alt = (double *)p, p += nn * sizeof(double);
  c.state = (int *)p, p += nn * sizeof(int);
  c.pos = (int *)p, p += nn * sizeof(int);
  c.freel = (int *)p, p += nn * sizeof(int);
  c.pivcol = (int *)p, p += nn * sizeof(int);
  c.chg = (int *)p, p += nn * sizeof(int);
  c.linked = (int *)p, p += nn * sizeof(int);
  c.basic = (int *)p, p += 4 * nn * sizeof(int);
  c.nonb = (int *)p, p += (4 * nn + 1) * sizeof(int);
  c.vrow = (int *)p, p += 4 * nn * sizeof(int);
  c.vsgn = (int *)p, p += 4 * nn * sizeof(int);
  c.vlink = (int *)p, p += 4 * nn * sizeof(int);
  c.ties = (int *)p;

  c.droptol = DROP_REL * (maxdiag > 0 ? maxdiag : 1.0); /* maxdiag, sym: check_args */
  maxit = opt->max_pivot_iter > 0 ? opt->max_pivot_iter : 40 + n / 5;

  /* starting point: the warm start (non-finite entries read as 0) */
  {
    int zero = 1;
    if (opt->warm_start)
      for (i = 0; i < n; i++) {
        double xi = isfinite(x[i]) ? x[i] : 0.0;
        c.xc[i] = xi;
        if (xi != 0.0) zero = 0;
      }
    else
      memset(c.xc, 0, sizeof(double) * nn);
    warm = !zero;
    memcpy(c.alt, c.xc, sizeof(double) * nn);
    if (zero && method != DIAGC_LCP_PGS) {
      /* x = 0: the coupled pivoting starts there anyway (and solves a
         problem that x = 0 solves at once); its violation is computed
         only if it is still the best point at the end */
      memcpy(c.best, c.xc, sizeof(double) * nn);
      c.best_v = INFINITY;
      c.have_best = 1;
      c.alt_v = -1.0; /* not computed */
    } else {
      v = score(&c, c.xc);
      c.alt_v = v;
    }
  }

  if (method == DIAGC_LCP_PGS) {
    used = DIAGC_LCP_PGS;
    memcpy(c.sol, c.xc, sizeof(double) * nn); /* sol: the PGS iterate */
    if (c.best_v > c.tol) pgs_run(&c, c.sol, opt->max_pgs_iter > 0 ? opt->max_pgs_iter : 1);
  } else if (c.best_v > c.tol) {
    if (warm) { /* a warm start near a solution: the active set from it */
      memcpy(c.sol, c.xc, sizeof(double) * nn);
      memcpy(c.rhs, c.w, sizeof(double) * nn);
      pivot_run(&c, c.sol, c.rhs, maxit, 0);
    }
    if (c.best_v > c.tol) {
      /* coupled incremental pivoting (lcp_coupled.c), polished by a few
         active-set steps on its index sets when it does not verify */
      diagc__cp_args a;
      int leads[CP_ORDERS], nlead = 0, frow = -1, att, tried[3] = {-1, -1, -1};
      a.n = n, a.A = A, a.b = b, a.lo = lo, a.hi = hi, a.fx = findex;
      a.lead = leads, a.nlead = 0, a.fail_row = &frow;
      a.cfm = c.cfm, a.droptol = c.droptol;
      /* driven rows: |w| below a tenth of tol (at most 1e-10) is zero */
      a.wtol = 0.1 * c.tol < 1e-10 ? 0.1 * c.tol : 1e-10;
      a.max_pivots = opt->max_pivot_iter > 0 ? opt->max_pivot_iter * 4 : CP_BUDGET0 * n + 20;
      a.work = c.K, a.iwork = c.basic, a.sym = sym;
      for (att = 0; att < CP_ORDERS && c.best_v > c.tol; att++) {
        int rc;
        /* attempt 0: friction rows the widest box first; then the rows
           at which attempts stopped go first, the friction rows in turn
           and in reverse by turns */
        a.order = att == 0 ? 2 : (att & 1) ^ 1;
        if (tried[a.order] == nlead) a.order ^= 1; /* it would repeat itself */
        if (tried[a.order] == nlead) break;         /* nothing new to try */
        tried[a.order] = nlead;
        a.nlead = nlead;
        c.iters++;
        if (att == 1) a.max_pivots = opt->max_pivot_iter > 0 ? opt->max_pivot_iter * 4 : CP_BUDGET1 * n + 20;
        rc = diagc__lcp_cp(&a, c.xc, c.state, &c.pivots);
        if (rc == -2) break; /* not applicable */
        if (rc != 0 && frow >= 0) {
          int e, seen = 0;
          for (e = 0; e < nlead; e++) seen |= leads[e] == frow;
          if (!seen && nlead < CP_ORDERS) leads[nlead++] = frow;
        }
        v = score(&c, c.xc);
        if (c.best_v <= c.tol) used = DIAGC_LCP_COUPLED;
        if (rc != 0) continue;
        if (v > c.tol) { /* polish: active-set steps from its index sets */
          memcpy(c.sol, c.xc, sizeof(double) * nn);
          memcpy(c.rhs, c.w, sizeof(double) * nn);
          pivot_run(&c, c.sol, c.rhs, method == DIAGC_LCP_COUPLED ? maxit : CP_POLISH, 2);
        }
        if (c.best_v <= c.tol) used = DIAGC_LCP_COUPLED;
      }
    }
    if (method == DIAGC_LCP_COUPLED) {
      /* that method alone */
    } else if (c.best_v > c.tol && sym && dz_run(&c, NULL) == 0) {
      /* the incremental Dantzig pass, then the coupled active set from
         its states */
      int rep;
      v = score(&c, c.xc);
      for (rep = 0; v > c.tol; rep++) {
        memcpy(c.sol, c.xc, sizeof(double) * nn);
        memcpy(c.rhs, c.w, sizeof(double) * nn);
        memcpy(c.x0, c.xc, sizeof(double) * nn);
        pivot_run(&c, c.sol, c.rhs, rep < DZ_REPS ? DZ_PIV : maxit, 2);
        if (c.best_v <= c.tol || rep >= DZ_REPS) break;
        if (dz_run(&c, c.x0) != 0) break;
        v = score(&c, c.xc);
      }
    }
    if (method != DIAGC_LCP_COUPLED) seeded_stages(&c, method, maxit, &used, 0, 0);
    if (c.best_v > c.tol && method == DIAGC_LCP_AUTO) start_pgs_stage(&c, &used);
    if (c.best_v > c.tol && method != DIAGC_LCP_COUPLED) {
      lemke_attempts(&c, maxit, &used);
      if (c.best_v > c.tol) mu_continuation(&c, maxit, &used);
    }
    if (c.best_v > c.tol && method == DIAGC_LCP_AUTO) seeded_stages(&c, method, maxit, &used, 1, 0);
    if (c.best_v > c.tol && method == DIAGC_LCP_AUTO && c.alt_v < 0.0) {
      residual(&c, c.alt, c.w);
      c.alt_v = violation_w(&c, c.alt, c.w);
    }
    if (c.best_v > c.tol && method == DIAGC_LCP_AUTO && c.alt_v < INFINITY) {
      /* second chance: the same stages from the starting point, in case
         the points seen so far (a coupled attempt that stopped near a
         solution) mislead them */
      double bv = c.best_v;
      memcpy(c.x0, c.best, sizeof(double) * nn);
      memcpy(c.best, c.alt, sizeof(double) * nn);
      c.best_v = c.alt_v;
      seeded_stages(&c, method, maxit, &used, 0, 0);
      if (c.best_v > c.tol) seeded_stages(&c, method, maxit, &used, 1, 2);
      if (!(c.best_v < bv)) { /* not better: keep the first answer */
        memcpy(c.best, c.x0, sizeof(double) * nn);
        c.best_v = bv;
      }
    }
  }

  /* the answer: the best point seen (always finite) */
  if (!(c.best_v < INFINITY)) { /* still the start, never scored */
    residual(&c, c.best, c.w);
    c.best_v = violation_w(&c, c.best, c.w);
  }
  memcpy(x, c.best, sizeof(double) * nn);
  v = c.best_v;
  if (v <= opt->tol)
    status = DIAGC_LCP_SOLVED;
  else if (v <= opt->accept_tol)
    status = DIAGC_LCP_SOLVED_TOL;
  else
    status = DIAGC_LCP_FAILED;
  if (stats) {
    stats->method = used;
    stats->iterations = c.iters;
    stats->pivots = c.pivots + c.lemke_pivots;
    stats->pgs_sweeps = c.sweeps;
    stats->rank_drops = c.rank_drops;
    stats->violation = v;
  }
  return status;
}

double diagc_lcp_violation(int n, const double *A, const double *b,
                           const double *lo, const double *hi,
                           const int *findex, const double *x) {
  ctx c;
  int i;
  double v = 0.0;
  if (n <= 0) return 0.0;
  memset(&c, 0, sizeof c);
  c.n = n;
  c.lo = lo;
  c.hi = hi;
  c.fx = findex;
  for (i = 0; i < n; i++) {
    double w = row_res(n, A + (size_t)i * n, x, b[i]), L, H, r;
    bounds(&c, i, x, &L, &H);
    r = row_viol(x[i], w, L, H, DIAGC_LCP_BOUND_TOL);
    if (!(r <= v)) v = r;
  }
  return v == v ? v : INFINITY;
}
