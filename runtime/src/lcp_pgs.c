/* lcp_pgs.c: projected Gauss-Seidel for the boxed LCP solver (lcp.c).
 *
 * PGS: projected Gauss-Seidel with the friction bounds taken from the
 * current normal values, warm-started, its stopping test the violation.
 */
#include <math.h>

#include "lcp_internal.h"

/* Projected Gauss-Seidel on x for up to `sweeps` sweeps; tests the
 * violation every few sweeps and stops at tol or when the work budget
 * is spent.  Returns the last
 * violation computed (w holds the residual at x on return). */
double diagc__lcp_pgs_run(diagc__lcp_ctx *c, double *x, int sweeps) {
  int n = c->n, s, i, k, every = n <= 30 ? 4 : 2;
  double v = INFINITY;
  diagc__lcp_need_cinv(c);
  for (s = 1; s <= sweeps; s++) {
    for (i = 0; i < n; i++) {
      const double *Ai = c->A + (size_t)i * n;
      double r = c->b[i] - c->cfm * x[i], L, H, xi;
      for (k = 0; k < n; k++) r -= Ai[k] * x[k];
      if (c->cinv[i] != 0.0)
        xi = x[i] + c->cinv[i] * r;
      else
        xi = x[i];
      diagc__lcp_bounds(c, i, x, &L, &H);
      if (xi < L) xi = L;
      if (xi > H) xi = H;
      if (isfinite(xi)) x[i] = xi;
    }
    c->sweeps++;
    c->iters++;
    diagc__lcp_charge(c, 1.0); /* a sweep: n^2 multiply-adds */
    if (s % every == 0 || s == sweeps || c->spent) {
      v = diagc__lcp_score(c, x);
      if (v <= c->tol || c->spent) break;
    }
  }
  return v;
}
