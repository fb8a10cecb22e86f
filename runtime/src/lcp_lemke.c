/* lcp_lemke.c: Lemke's method for the boxed LCP solver (lcp.c).
 *
 * Lemke's method on an equivalent standard LCP (friction rows split as in
 * the Stewart-Trinkle / Anitescu-Potra formulations), lexicographic ratio
 * test; its answer is polished by one active-set solve on its active set.
 */
#include <math.h>
#include <string.h>

#include "lcp_internal.h"

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
static int lemke_vars(diagc__lcp_ctx *c) {
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
static int lemke_ratio(diagc__lcp_ctx *c, const double *T, const double *t, int N, int W,
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

/* The tableau [T | t] (N rows of W = N + 1 columns: z_1..z_N, z0) of the
 * standard LCP equivalent to the problem around c->x0, in c->K. */
static void lemke_tableau(diagc__lcp_ctx *c, int N, int variant) {
  int n = c->n, W = N + 1, a, b;
  double *T = c->K, *t = c->K + (size_t)N * W, *xw = c->w;
  /* xw = A x0 - b (+ cfm x0) */
  diagc__lcp_residual(c, c->x0, xw);
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
}

/* The Jordan exchange at (leave_row, col), and the swap of their labels.
 * Returns the label that left the basis, or -1 on a zero or non-finite
 * pivot. */
static int lemke_exchange(diagc__lcp_ctx *c, double *T, double *t, int N, int leave_row, int col) {
  int W = N + 1, k, r, lab;
  double p, *Tr = T + (size_t)leave_row * W;
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
  return lab;
}

/* x = x0 + the basic z variables, into c->xc.  0, or -1 if not finite. */
static int lemke_solution(diagc__lcp_ctx *c, const double *t, int N) {
  int n = c->n, r;
  memcpy(c->xc, c->x0, sizeof(double) * (size_t)n);
  for (r = 0; r < N; r++) {
    int lab = c->basic[r];
    if (lab >= N && lab < 2 * N) {
      int v = lab - N, row = c->vrow[v];
      if (row >= 0) c->xc[row] += c->vsgn[v] * (t[r] > 0 ? t[r] : 0.0);
    }
  }
  return diagc__lcp_all_finite(c->xc, n) ? 0 : -1;
}

/* Runs Lemke's method; on success writes x into c->xc and returns 0. */
static int lemke_run(diagc__lcp_ctx *c, int maxpiv, int variant) {
  int n = c->n, N = lemke_vars(c), W, a, b, k, it;
  double *T, *t, mn = 0.0;
  int enter, leave_row = -1, z0lab;
  if (N == 0) {
    memcpy(c->xc, c->x0, sizeof(double) * (size_t)n);
    return 0;
  }
  W = N + 1;
  T = c->K;
  t = c->K + (size_t)N * W;
  /* the work: the tableau, then N (N + 1) per pivot, in n^2 units */
  if (diagc__lcp_charge(c, (double)N * W / ((double)n * n))) return -1;
  lemke_tableau(c, N, variant);
  /* labels: w_a = a, z_a = N + a, z0 = 2N */
  z0lab = 2 * N;
  for (a = 0; a < N; a++) c->basic[a] = a;
  for (b = 0; b < N; b++) c->nonb[b] = N + b;
  c->nonb[N] = z0lab;
  /* trivial solution */
  for (a = 0; a < N; a++) {
    double ra = t[a] / T[(size_t)a * W + N];
    if (ra < mn) mn = ra, leave_row = a;
  }
  if (leave_row < 0) {
    memcpy(c->xc, c->x0, sizeof(double) * (size_t)n);
    return 0;
  }
  enter = N; /* column of z0 */
  for (it = 0; it < maxpiv; it++) {
    int lab, comp;
    double best = INFINITY;
    if (diagc__lcp_charge(c, (double)N * W / ((double)n * n))) return -1;
    lab = lemke_exchange(c, T, t, N, leave_row, enter);
    if (lab < 0) return -1;
    if (lab == z0lab) break; /* z0 left: a solution */
    /* entering: the complement of the variable that left */
    comp = lab < N ? lab + N : lab - N;
    enter = -1;
    for (k = 0; k < W; k++)
      if (c->nonb[k] == comp) enter = k;
    if (enter < 0) return -1;
    leave_row = lemke_ratio(c, T, t, N, W, enter, z0lab, &best);
    if (leave_row < 0) return -1; /* secondary ray */
  }
  if (it == maxpiv) return -1;
  return lemke_solution(c, t, N);
}

/* Lemke on the equivalent standard LCP, then polish its active set.  The
 * tableau can lose accuracy on badly scaled problems (huge mu): variants
 * differ in the scaling of the friction-bound rows and in the covering
 * vector, and are tried until one verifies. */
void diagc__lcp_lemke_attempts(diagc__lcp_ctx *c, int maxit, int *used) {
  int n = c->n, variant, maxpiv = 25 * n + 50;
  size_t nn = (size_t)n;
  /* Lemke's method does not depend on the starting point: on the problem
     itself, running the variants again would repeat the same pivots */
  if (!c->stage) {
    if (c->lemke_tried) return;
    c->lemke_tried = 1;
  }
  for (variant = 0; variant < (c->stage ? 1 : 4) && *diagc__lcp_cur_best_v(c) > c->tol && !c->spent;
       variant++) {
    if (lemke_run(c, maxpiv, variant) != 0) continue;
    diagc__lcp_score(c, c->xc);
    if (!c->stage) *used = DIAGC_LCP_LEMKE;
    /* polish: the tableau accumulates round-off; an exact solve on its
       active set removes it (kept only if better) */
    memcpy(c->sol, c->xc, sizeof(double) * nn);
    memcpy(c->rhs, c->w, sizeof(double) * nn);
    diagc__lcp_pivot_run(c, c->sol, c->rhs, maxit, 1);
  }
}
