/* implicit_euler: x1 = x0 + h f(t0 + h, x1), solved by Newton's method on
 * g(x) = x - x0 - h f(t0 + h, x) with the iteration matrix I - h J, where J
 * comes from the Jacobian source (implicit.h: forward differences, or the
 * model's sparse Jacobian).  J is formed at (t0, x0) once per
 * step; if Newton does not converge it is re-formed at the last iterate
 * and the solve is retried once.  Error control takes the step as one step
 * of h and two of h/2 and propagates the two half steps (step doubling).
 *
 * Called by integrators.c (the method table); the convergence test and
 * failure handling are the Newton core's (newton.c), the dense LU
 * implicit.c's. */
#include <math.h>
#include <string.h>

#include "methods.h"
#include "newton.h"
#include "sim_internal.h"

/* at most 10 corrections; converged when |dx| <= tol, diverging when |dx|
 * grows after the second */
static const diagc_newton_rule RULE = {10, 1, 0, 0};

static void put_time(diagc_sim *s, double t) { s->m->set_time(s->ctx, t); }

/* iter_m = LU(I - h J) with partial pivoting; 0, or -1 if singular. */
static int factor_iteration_matrix(diagc_sim *s, double h) {
  int i, j, n = s->nxc;
  double *a = s->imp.iter_m;
  const double *jac = s->imp.jac;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      a[(size_t)i * n + j] = (i == j ? 1.0 : 0.0) - h * jac[(size_t)i * n + j];
  s->st.lu_factorizations++;
  return diagc_lu_factor(a, n, s->imp.piv);
}

/* Newton iterations for one implicit Euler step of h from xs into xr
 * (which holds the initial guess), ending at time t1.  Sets *conv; the
 * context is left at (t1, xr) when converged. */
static int newton_ie(diagc_sim *s, double t1, const double *xs, double h,
                     double *xr, int *conv) {
  int i, n = s->nxc, rc, v;
  diagc_newton nt;
  *conv = 0;
  diagc_newton_start(s, &nt, &RULE, diagc_newton_tol(s, 1e-2));
  put_time(s, t1);
  do {
    double nrm = 0;
    diagc_sim_put_xc(s, xr);
    if ((rc = diagc_sim_eval_xcdot(s, s->fx)) != 0) return rc;
    for (i = 0; i < n; i++) s->dx[i] = -(xr[i] - xs[i] - h * s->fx[i]);
    diagc_lu_solve(s->imp.iter_m, n, s->imp.piv, s->dx);
    for (i = 0; i < n; i++) {
      double r = fabs(s->dx[i]) / (1 + fabs(xr[i]));
      xr[i] += s->dx[i];
      if (!(r <= nrm)) nrm = r; /* NaN propagates */
    }
    v = diagc_newton_judge(s, &nt, nrm);
  } while (v == DIAGC_NEWTON_CONTINUE);
  if (v == DIAGC_NEWTON_CONVERGED) {
    diagc_sim_put_xc(s, xr);
    *conv = 1;
  }
  return 0;
}

/* One implicit Euler step of h from xs (where the derivative is f0) into
 * xr, ending exactly at time t1 (so that no evaluation falls past an event
 * time by rounding), with the Jacobian in s->jac. */
static int ie_substep(diagc_sim *s, double t1, const double *xs,
                      const double *f0, double h, double *xr, int *conv) {
  int rc, i, n = s->nxc, attempt;
  for (attempt = 0; attempt < 2; attempt++) {
    if (factor_iteration_matrix(s, h) == 0) {
      /* explicit Euler predictor */
      for (i = 0; i < n; i++) xr[i] = xs[i] + h * f0[i];
      if ((rc = newton_ie(s, t1, xs, h, xr, conv)) != 0) return rc;
      if (*conv) return 0;
    }
    diagc_newton_failure(s);
    if (attempt == 0) {
      /* re-form the Jacobian at the last iterate (x0 if not finite) */
      for (i = 0; i < n; i++)
        if (!isfinite(xr[i])) {
          memcpy(xr, xs, (size_t)n * sizeof(double));
          break;
        }
      put_time(s, t1);
      diagc_sim_put_xc(s, xr);
      if ((rc = diagc_sim_eval_xcdot(s, s->k2)) != 0) return rc;
      if ((rc = diagc_form_jacobian(s, s->k2)) != 0) return rc;
    }
  }
  *conv = 0;
  return 0;
}

int diagc_step_implicit_euler(diagc_sim *s, double h) {
  int i, n = s->nxc, rc, conv;
  const double t0 = diagc_sim_ctx_time(s);
  diagc_vcopy(s->x0, diagc_sim_xc(s), n);
  if ((rc = diagc_sim_eval_xcdot(s, s->k0)) != 0) return rc;
  if ((rc = diagc_form_jacobian(s, s->k0)) != 0) return rc;
  if (s->fixed_mode) {
    if ((rc = ie_substep(s, t0 + h, s->x0, s->k0, h, s->xt, &conv)) != 0)
      return rc;
    return conv ? 0 : diagc_newton_give_up(s, "implicit_euler", t0, h);
  }
  /* one full step into xa */
  if ((rc = ie_substep(s, t0 + h, s->x0, s->k0, h, s->xa, &conv)) != 0)
    return rc;
  if (conv) {
    /* two half steps into xt (same Jacobian, new iteration matrix) */
    put_time(s, t0);
    diagc_sim_put_xc(s, s->x0);
    if ((rc = ie_substep(s, t0 + h / 2, s->x0, s->k0, h / 2, s->k1, &conv)) != 0)
      return rc;
    if (conv) {
      if ((rc = diagc_sim_eval_xcdot(s, s->k3)) != 0) return rc;
      if ((rc = ie_substep(s, t0 + h, s->k1, s->k3, h / 2, s->xt, &conv)) != 0)
        return rc;
    }
  }
  if (!conv) return diagc_newton_give_up(s, "implicit_euler", t0, h);
  for (i = 0; i < n; i++) s->errv[i] = fabs(s->xa[i] - s->xt[i]);
  put_time(s, t0 + h);
  diagc_sim_put_xc(s, s->xt);
  return 0;
}
