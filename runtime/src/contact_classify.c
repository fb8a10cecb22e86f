/* contact_classify.c: the row classes of a solved contact step (clamping,
 * at the friction bound, not clamping), after the thresholds of
 * diagc/world.h: the clamping set a linearized (differentiable) step
 * holds fixed. */
#include <math.h>

#include "diagc/world.h"

/* the norm of column c of the nv x ncol row-major matrix A */
static double column_norm(int nv, int ncol, const double *A, int c) {
  double s = 0.0;
  int k;
  for (k = 0; k < nv; k++) s += A[(size_t)k * (size_t)ncol + c] * A[(size_t)k * (size_t)ncol + c];
  return sqrt(s);
}

static int normal_class(double xn) {
  if (fabs(xn) < DIAGC_CLASS_ZERO_TOL) return DIAGC_ROW_NOT_CLAMPING;
  if (xn > DIAGC_CLASS_INSIDE_TOL || xn < -DIAGC_CLASS_OUTSIDE_TOL) return DIAGC_ROW_CLAMPING;
  return DIAGC_ROW_NOT_CLAMPING;
}

static int friction_class(double xt, double xn, double mu, int normal) {
  double hi = mu * xn, lo = -hi;
  if (fabs(xt) < DIAGC_CLASS_ZERO_TOL)
    return fabs(xn) >= DIAGC_CLASS_ZERO_TOL ? DIAGC_ROW_CLAMPING : DIAGC_ROW_NOT_CLAMPING;
  if ((xt > lo + DIAGC_CLASS_INSIDE_TOL && xt < hi - DIAGC_CLASS_INSIDE_TOL) ||
      xt > hi + DIAGC_CLASS_OUTSIDE_TOL || xt < lo - DIAGC_CLASS_OUTSIDE_TOL)
    return DIAGC_ROW_CLAMPING;
  /* left: within INSIDE_TOL of a bound, or outside by at most OUTSIDE_TOL */
  if (normal == DIAGC_ROW_CLAMPING) return DIAGC_ROW_UPPER_BOUND;
  return DIAGC_ROW_NOT_CLAMPING;
}

static int valid(int nv, int nc, const double *MinvJT, const double *x, const double *mu, const int *cls) {
  int i;
  if (nv < 0 || nc < 0 || (nc > 0 && (!MinvJT || !x || !mu || !cls))) return 0;
  for (i = 0; i < 3 * nc; i++)
    if (!isfinite(x[i])) return 0;
  for (i = 0; i < nc; i++)
    if (!(mu[i] >= 0.0) || !isfinite(mu[i])) return 0;
  for (i = 0; i < nv * 3 * nc; i++)
    if (!isfinite(MinvJT[i])) return 0;
  return 1;
}

int diagc_contact_classify(int nv, int nc, const double *MinvJT, const double *x, const double *mu,
                           int *cls) {
  int c, t, clamping = 0, ncol = 3 * nc;
  if (!valid(nv, nc, MinvJT, x, mu, cls)) return DIAGC_CONTACT_E_ARG;
  for (c = 0; c < nc; c++) {
    int n = 3 * c;
    cls[n] = column_norm(nv, ncol, MinvJT, n) < DIAGC_CLASS_COLUMN_TOL ? DIAGC_ROW_NOT_CLAMPING
                                                                        : normal_class(x[n]);
    for (t = 1; t <= 2; t++) /* frictionless: no tangent rows in the LCP */
      cls[n + t] = (!(mu[c] > 0.0) || column_norm(nv, ncol, MinvJT, n + t) < DIAGC_CLASS_COLUMN_TOL)
                       ? DIAGC_ROW_NOT_CLAMPING
                       : friction_class(x[n + t], x[n], mu[c], cls[n]);
    for (t = 0; t < 3; t++) clamping += cls[n + t] == DIAGC_ROW_CLAMPING;
  }
  return clamping;
}
