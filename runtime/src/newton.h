/* Internal to the runtime: the Newton core of the implicit methods
 * (implicit_euler.c, radau.c, radau5.c), in newton.c.
 *
 * Each implicit step solves its stage equations by a simplified Newton
 * iteration whose matrix comes from a Jacobian J of the derivatives.  What
 * the methods share is here: when J is formed anew (at the step's start,
 * kept while Newton contracts fast), whether a factored iteration matrix
 * still serves a new step size, Hairer's convergence-rate test (and the
 * plain test of implicit_euler), what a failed solve does (counted; an
 * error with fixed steps, an infinite error estimate under error control),
 * and the collocation methods' stage evaluation, predictor and accepted
 * step.  The methods keep their coefficients, their iteration matrices
 * and their error estimates.
 *
 * Calls go down only: the methods call this core; the core calls the
 * Jacobian source and the linear algebra (implicit.h, band.c) and the
 * model through the context (sim_internal.h), never a method or
 * integrators.c.  So each method writes its own iteration loop around
 * diagc_newton_judge() (no callbacks):
 *
 *   diagc_newton_start(s, &nt, &RULE, tol);
 *   do {
 *     ... evaluate the stages, solve for the correction dz ...
 *     v = diagc_newton_judge(s, &nt, scaled norm of dz);
 *   } while (v == DIAGC_NEWTON_CONTINUE);
 */
#ifndef DIAGC_NEWTON_H
#define DIAGC_NEWTON_H

#include "implicit.h"

struct diagc_sim;

/* How a method judges its Newton iterations. */
typedef struct diagc_newton_rule {
  int max_its;      /* at most this many corrections */
  int plain;        /* 1: converged when |dz| <= tol, diverging when |dz|
                       grows after the second correction (implicit_euler);
                       0: Hairer's rate test below */
  double theta_max; /* rate test: diverging when the contraction
                       theta = |dz_k| / |dz_k-1| >= theta_max */
  int predict;      /* rate test: also give up as soon as the rate
                       predicts no convergence within max_its, suggesting
                       a step reduction (imp.newton_fac) */
} diagc_newton_rule;

/* One Newton solve in progress. */
typedef struct diagc_newton {
  const diagc_newton_rule *rule;
  double tol;
  int it;           /* corrections judged */
  double eta, prev; /* eta = theta / (1 - theta); the last |dz| */
} diagc_newton;

enum { DIAGC_NEWTON_CONTINUE, DIAGC_NEWTON_CONVERGED, DIAGC_NEWTON_FAILED };

/* The tolerance max(kappa accuracy, 1e-13) on the scaled corrections. */
double diagc_newton_tol(const struct diagc_sim *s, double kappa);

/* Starts a solve: eta carried over from the last converged solve
 * (imp.eta^0.8, at least eps^0.8), imp.theta = 0, imp.newton_fac = 0.5. */
void diagc_newton_start(struct diagc_sim *s, diagc_newton *nt,
                        const diagc_newton_rule *rule, double tol);
/* Judges one correction of scaled norm nrm (NaN or infinite: failed):
 * counts the iteration, updates imp.theta (the contraction) and
 * imp.newton_its, and on convergence of the rate test keeps eta in
 * imp.eta for the next solve. */
int diagc_newton_judge(struct diagc_sim *s, diagc_newton *nt, double nrm);

/* A solve that failed: counted in newton_failures, imp.eta = 1 (the next
 * solve starts from a slow rate) and imp.newton_failed = 1. */
void diagc_newton_failure(struct diagc_sim *s);
/* Gives the step of h from (t0, s->x0) up after a failed solve: with fixed
 * steps, DIAGC_SIM_E_STEP with a message naming the method and the
 * context back at (t0, x0); under error control, 0 with an infinite error
 * estimate (s->errv) and the context at (t0 + h, x0), so that error
 * control retries a shorter step. */
int diagc_newton_give_up(struct diagc_sim *s, const char *method, double t0,
                         double h);

/* ---- J and the factored iteration matrices ------------------------------ */

/* J anew at the step's start (t0, s->x0), where the derivative is s->k0,
 * and the band ordering of its nonzeros (imp.perm, inv, kl, ku); the
 * factored matrices become stale.  Leaves the context at (t0, x0).  0 or
 * DIAGC_SIM_E_EVAL. */
int diagc_newton_refresh_jacobian(struct diagc_sim *s, double t0);
/* 1 if J is usable and was formed at this step's start (t0, s->x0). */
int diagc_newton_jacobian_current(const struct diagc_sim *s, double t0);
/* 1 if a matrix factored for the step formed_h serves the step h: within
 * the ratio keep either way (keep = 1: the same step only; NaN formed_h,
 * a stale matrix: no). */
int diagc_newton_lu_usable(double formed_h, double h, double keep);
/* Solves lu y = r in place for r over the nxc states, lu (with piv)
 * factored in J's band ordering (an nxc x nxc banded LU, band.c). */
void diagc_newton_band_solve(struct diagc_sim *s, const double *lu,
                             const int *piv, double *r);

/* ---- collocation methods (radau3, radau5) -------------------------------
 * Stage increments Z_i = X_i - x0 in imp.z (stage i at i nxc), at the
 * nodes c_1 < ... < c_s = 1. */

/* Z from the last step's collocation polynomial (through 0 and its Z_i
 * at its nodes, in units of its step), extrapolated to this step's nodes,
 * when `use` and this step starts where that one ended (same time and
 * state: no rejection, update or snap since); else Z = 0.  1 if
 * extrapolated. */
int diagc_newton_predict(struct diagc_sim *s, double t0, double h,
                         const double *c, int stages, int use);
/* F_i = f(t0 + c_i h, x0 + Z_i) into imp.f (the last stage at exactly
 * t0 + h).  0 or DIAGC_SIM_E_EVAL. */
int diagc_newton_eval_stages(struct diagc_sim *s, double t0, double h,
                             const double *c, int stages);
/* The derivative at (t0, x0 + s->xa) into s->fx (the context left there):
 * the refinement of an error estimate e = s->xa that would reject. */
int diagc_newton_eval_at_error(struct diagc_sim *s, double t0);
/* Ends a converged step: x1 = x0 + Z_s into s->xt and the context at
 * t0 + h; Z, x1 and h kept for the next step's predictor. */
void diagc_newton_accept(struct diagc_sim *s, double t0, double h,
                         int stages);

#endif
