/* lcp_score.c: how every LCP method measures a point (docs/lcp.md): the
 * residual w = A x + cfm x - b, the violation of the complementarity
 * conditions under the (friction-scaled) bounds, the best point kept so
 * far, the inverse diagonal some methods need, and the public
 * diagc_lcp_violation.  Used by lcp.c (the driver) and by every method
 * file; uses nothing of them.
 */
#include "diagc/lcp.h"

#include <math.h>
#include <string.h>

#include "lcp_internal.h"


/* w = A x + cfm x - b */
/* A_i x - b_i with four partial sums (the same order wherever w is
 * computed for the metric: the same bits as diagc_lcp_violation) */
static double row_res(int n, const double *Ai, const double *x, double bi) {
  return diagc__dot4(n, Ai, x) - bi;
}

void diagc__lcp_residual(const diagc__lcp_ctx *c, const double *x, double *w) {
  int n = c->n, i;
  for (i = 0; i < n; i++) w[i] = row_res(n, c->A + (size_t)i * n, x, c->b[i]) + c->cfm * x[i];
}

double diagc__lcp_violation_w(const diagc__lcp_ctx *c, const double *x, const double *w) {
  int i;
  double v = 0.0;
  for (i = 0; i < c->n; i++) {
    double L, H, r;
    diagc__lcp_bounds(c, i, x, &L, &H);
    r = diagc__lcp_row_viol(x[i], w[i], L, H, DIAGC_LCP_BOUND_TOL);
    if (!(r <= v)) v = r; /* also catches NaN -> inf below */
  }
  return v == v ? v : INFINITY;
}

static void keep_best(diagc__lcp_ctx *c, const double *x, double v) {
  if (!diagc__lcp_all_finite(x, c->n)) return; /* never a candidate */
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
 * (and finite) and returns its violation; charges one unit of work. */
double diagc__lcp_score(diagc__lcp_ctx *c, const double *x) {
  double v;
  diagc__lcp_charge(c, 1.0);
  diagc__lcp_residual(c, x, c->w);
  v = diagc__lcp_violation_w(c, x, c->w);
  keep_best(c, x, v);
  return v;
}

/* c->cinv, computed when a method first needs it (the coupled pivoting
 * does not). */
void diagc__lcp_need_cinv(diagc__lcp_ctx *c) {
  int i;
  if (c->cinv_ok) return;
  for (i = 0; i < c->n; i++) {
    double d = c->A[(size_t)i * c->n + i] + c->cfm;
    c->cinv[i] = d > c->droptol ? 1.0 / d : 0.0;
  }
  c->cinv_ok = 1;
}

double diagc_lcp_violation(int n, const double *A, const double *b,
                           const double *lo, const double *hi,
                           const int *findex, const double *x) {
  diagc__lcp_ctx c;
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
    diagc__lcp_bounds(&c, i, x, &L, &H);
    r = diagc__lcp_row_viol(x[i], w, L, H, DIAGC_LCP_BOUND_TOL);
    if (!(r <= v)) v = r;
  }
  return v == v ? v : INFINITY;
}
