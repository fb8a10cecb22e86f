/* lcp_dantzig.c: the incremental Dantzig (Baraff) pass of the boxed LCP
 * solver (lcp.c).
 *
 * For symmetric A, an incremental Dantzig (Baraff) pass solves the problem
 * with the friction bounds frozen at lo/hi times the normal impulses of the
 * normal-only phase, with an LDL^T factor of the clamped block updated per
 * pivot (O(k^2)); its states seed the active-set iteration on the coupled
 * problem, and it is re-run (up to DZ_REPS times) with the bounds taken
 * from the newest normals.  (The first fallback after the coupled
 * pivoting.)
 */
#include <math.h>

#include "lcp_internal.h"

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
static int dz_add(const diagc__lcp_ctx *c, dz *z, int j) {
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
static void dz_step(const diagc__lcp_ctx *c, dz *z, int i, double s) {
  int n = c->n, a, r;
  for (a = 0; a < z->k; a++) z->x[z->cl[a]] += s * z->dx[a];
  z->x[i] += s * z->dx[z->k];
  for (r = 0; r < n; r++) z->w[r] += s * z->dw[r];
}

/* Drives row i to complementarity.  Returns 0, or -1 (no blocking step:
 * an unbounded ray, or too many steps). */
static int dz_drive(diagc__lcp_ctx *c, dz *z, int i, int *budget) {
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
int diagc__lcp_dz_run(diagc__lcp_ctx *c, const double *fb) {
  int n = c->n, i, phase, budget = 6 * n + 20, piv0 = c->pivots, rc = 0;
  double left = diagc__lcp_work_left(c) - 1.0; /* a pivot: 1 unit */
  size_t nn = (size_t)n;
  dz z;
  double *p = c->K;
  if (left < 1.0) {
    diagc__lcp_charge(c, left + 2.0); /* spent */
    return -1;
  }
  if (left < budget) budget = (int)left;
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
  diagc__lcp_residual(c, z.x, z.w);
  for (phase = 0; phase < 2 && rc == 0; phase++) {
    for (i = 0; i < n; i++) {
      int fr = c->fx && c->fx[i] >= 0;
      if (fr != phase) continue;
      if (fr) {
        diagc__lcp_bounds(c, i, fb ? fb : z.x, &z.flo[i], &z.fhi[i]);
        if (!isfinite(z.flo[i])) z.flo[i] = -INFINITY;
        if (!isfinite(z.fhi[i])) z.fhi[i] = INFINITY;
      }
      /* x_i is 0 or the bound nearest 0: at a bound or inside */
      z.st[i] = z.x[i] <= z.flo[i] ? ST_LO : z.x[i] >= z.fhi[i] ? ST_HI : ST_FREE;
      if (z.flo[i] == z.fhi[i]) { z.st[i] = ST_LO; continue; }
      if (dz_drive(c, &z, i, &budget) != 0) {
        rc = -1;
        break;
      }
    }
  }
  /* the work: O(n k + k^2) per pivot (1 unit), the factor updates */
  diagc__lcp_charge(c, (double)(c->pivots - piv0) + 1.0);
  if (rc != 0) return -1;
  c->iters++;
  for (i = 0; i < n; i++) {
    c->xc[i] = z.x[i];
    c->state[i] = z.st[i];
  }
  return diagc__lcp_all_finite(c->xc, n) ? 0 : -1;
}
