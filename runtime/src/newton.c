/* The Newton core of the implicit methods (newton.h): the convergence
 * tests, failure handling, J's refresh and the factored matrices' reuse,
 * and the collocation methods' stages, predictor and accepted step.
 *
 * Called by the methods (implicit_euler.c, radau.c, radau5.c); calls only
 * the Jacobian source (implicit.c), the banded LU (band.c), the model
 * through the context and the error message (sim_internal.h). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "newton.h"
#include "sim_internal.h"

double diagc_newton_tol(const diagc_sim *s, double kappa) {
  const double tol = kappa * s->accuracy_in_use;
  return tol > 1e-13 ? tol : 1e-13;
}

/* ---- the convergence test ------------------------------------------------ */

void diagc_newton_start(diagc_sim *s, diagc_newton *nt,
                        const diagc_newton_rule *rule, double tol) {
  diagc_implicit *w = &s->imp;
  nt->rule = rule;
  nt->tol = tol;
  nt->it = 0;
  nt->prev = 0;
  nt->eta = rule->plain ? 0
                        : pow(w->eta > DBL_EPSILON ? w->eta : DBL_EPSILON, 0.8);
  w->theta = 0;
  w->newton_fac = 0.5;
}

/* Hairer's rate test (Solving ODEs II, sec. IV.8): with theta the
 * contraction of successive corrections and eta = theta / (1 - theta)
 * (carried over from the last solve for the first correction), converged
 * when eta |dz| <= tol; diverging when theta >= theta_max; with `predict`,
 * hopeless when the error predicted after the remaining iterations,
 * eta |dz| theta^(max_its - 1 - it) / tol, is still >= 1, and then the
 * step should shrink by 0.8 q^(-1 / (4 + max_its - 1 - it)) (q that ratio,
 * clamped to [1e-4, 20]). */
static int rate_test(diagc_sim *s, diagc_newton *nt, int it, double nrm) {
  const diagc_newton_rule *r = nt->rule;
  diagc_implicit *w = &s->imp;
  if (it > 0) {
    const double theta = nt->prev > 0 ? nrm / nt->prev : 0;
    w->theta = theta;
    if (theta >= r->theta_max) return DIAGC_NEWTON_FAILED;
    nt->eta = theta / (1 - theta);
    if (r->predict && it < r->max_its - 1) {
      const double pred =
          nt->eta * nrm * pow(theta, r->max_its - 1 - it) / nt->tol;
      if (pred >= 1) {
        const double q = pred < 1e-4 ? 1e-4 : (pred > 20 ? 20 : pred);
        w->newton_fac = 0.8 * pow(q, -1.0 / (4 + r->max_its - 1 - it));
        return DIAGC_NEWTON_FAILED;
      }
    }
  }
  if (nt->eta * nrm <= nt->tol || nrm == 0) {
    w->eta = nt->eta;
    return DIAGC_NEWTON_CONVERGED;
  }
  return DIAGC_NEWTON_CONTINUE;
}

int diagc_newton_judge(diagc_sim *s, diagc_newton *nt, double nrm) {
  const int it = nt->it++;
  int v;
  s->st.newton_iterations++;
  s->imp.newton_its = it + 1;
  if (!isfinite(nrm)) return DIAGC_NEWTON_FAILED;
  if (nt->rule->plain) {
    if (nrm <= nt->tol) return DIAGC_NEWTON_CONVERGED;
    v = it >= 2 && nrm > nt->prev ? DIAGC_NEWTON_FAILED : DIAGC_NEWTON_CONTINUE;
  } else {
    v = rate_test(s, nt, it, nrm);
  }
  if (v != DIAGC_NEWTON_CONTINUE) return v;
  nt->prev = nrm;
  return nt->it < nt->rule->max_its ? DIAGC_NEWTON_CONTINUE
                                    : DIAGC_NEWTON_FAILED;
}

/* ---- failures ------------------------------------------------------------- */

void diagc_newton_failure(diagc_sim *s) {
  s->st.newton_failures++;
  s->imp.eta = 1.0;
  s->imp.newton_failed = 1;
}

int diagc_newton_give_up(diagc_sim *s, const char *method, double t0,
                         double h) {
  int i;
  if (s->fixed_mode) {
    s->m->set_time(s->ctx, t0);
    diagc_sim_put_xc(s, s->x0);
    diagc_sim_set_err(s,
                      "%s: Newton's method did not converge at "
                      "t = %.17g with step %g",
                      method, t0, h);
    return DIAGC_SIM_E_STEP;
  }
  /* an infinite error makes error control shrink the step */
  for (i = 0; i < s->nxc; i++) s->errv[i] = INFINITY;
  s->m->set_time(s->ctx, t0 + h);
  diagc_sim_put_xc(s, s->x0);
  return 0;
}

/* ---- J and the factored matrices ---------------------------------------- */

int diagc_newton_refresh_jacobian(diagc_sim *s, double t0) {
  diagc_implicit *w = &s->imp;
  int rc;
  s->m->set_time(s->ctx, t0);
  diagc_sim_put_xc(s, s->x0);
  w->jac_valid = 1;
  w->jac_t = t0;
  w->lu_h = w->lue_h = NAN;
  if ((rc = diagc_form_jacobian(s, s->k0)) != 0) return rc;
  diagc_band_order(w->jac, s->nxc, w->perm, w->inv, w->deg, &w->kl, &w->ku);
  memcpy(w->jac_x, s->x0, (size_t)s->nxc * sizeof(double));
  return 0;
}

int diagc_newton_jacobian_current(const diagc_sim *s, double t0) {
  const diagc_implicit *w = &s->imp;
  return w->jac_valid && w->jac_t == t0 &&
         memcmp(w->jac_x, s->x0, (size_t)s->nxc * sizeof(double)) == 0;
}

int diagc_newton_lu_usable(double formed_h, double h, double keep) {
  return h <= formed_h * keep && h * keep >= formed_h; /* NaN: no */
}

void diagc_newton_band_solve(diagc_sim *s, const double *lu, const int *piv,
                             double *r) {
  const diagc_implicit *w = &s->imp;
  const int n = s->nxc;
  int i;
  for (i = 0; i < n; i++) w->pb[w->inv[i]] = r[i];
  diagc_band_lu_solve(lu, n, w->kl, w->ku, piv, w->pb);
  for (i = 0; i < n; i++) r[i] = w->pb[w->inv[i]];
}

/* ---- collocation methods --------------------------------------------------- */

int diagc_newton_predict(diagc_sim *s, double t0, double h, const double *c,
                         int stages, int use) {
  const int n = s->nxc;
  const diagc_implicit *w = &s->imp;
  const double *zp = w->zp;
  int st, i, k, j;
  if (!use || !(w->tend == t0) ||
      memcmp(w->xend, s->x0, (size_t)n * sizeof(double)) != 0) {
    memset(w->z, 0, (size_t)(stages * n) * sizeof(double));
    return 0;
  }
  for (st = 0; st < stages; st++) {
    /* the Lagrange basis through 0, c_1, ..., c_s at u (each product
     * formed left to right, node 0 first) */
    const double u = 1 + c[st] * h / w->hp;
    double l[4];
    for (k = 0; k < stages; k++) {
      double num = u, den = c[k];
      for (j = 0; j < stages; j++) {
        if (j == k) continue;
        num *= u - c[j];
        den *= c[k] - c[j];
      }
      l[k] = num / den;
    }
    for (i = 0; i < n; i++) {
      double v = l[0] * zp[i];
      for (k = 1; k < stages; k++) v += l[k] * zp[k * n + i];
      w->z[st * n + i] = v - zp[(stages - 1) * n + i];
    }
  }
  return 1;
}

int diagc_newton_eval_stages(diagc_sim *s, double t0, double h,
                             const double *c, int stages) {
  const int n = s->nxc;
  const double *z = s->imp.z;
  int st, i, rc;
  for (st = 0; st < stages; st++) {
    s->m->set_time(s->ctx, st == stages - 1 ? t0 + h : t0 + c[st] * h);
    for (i = 0; i < n; i++) s->xt[i] = s->x0[i] + z[st * n + i];
    diagc_sim_put_xc(s, s->xt);
    if ((rc = diagc_sim_eval_xcdot(s, s->imp.f + st * n)) != 0) return rc;
  }
  return 0;
}

int diagc_newton_eval_at_error(diagc_sim *s, double t0) {
  const int n = s->nxc;
  int i;
  s->m->set_time(s->ctx, t0);
  for (i = 0; i < n; i++) s->xb[i] = s->x0[i] + s->xa[i];
  diagc_sim_put_xc(s, s->xb);
  return diagc_sim_eval_xcdot(s, s->fx);
}

void diagc_newton_accept(diagc_sim *s, double t0, double h, int stages) {
  const int n = s->nxc;
  diagc_implicit *w = &s->imp;
  int i;
  for (i = 0; i < n; i++) s->xt[i] = s->x0[i] + w->z[(stages - 1) * n + i];
  memcpy(w->zp, w->z, (size_t)(stages * n) * sizeof(double));
  memcpy(w->xend, s->xt, (size_t)n * sizeof(double));
  w->tend = t0 + h;
  w->hp = h;
  s->m->set_time(s->ctx, t0 + h);
  diagc_sim_put_xc(s, s->xt);
}
