/* Internal to the runtime: the integration methods, as integrators.c's
 * method table (diagc_integrators) calls them.  Each stepper takes one
 * step of h from the context's (t0, xc) and leaves the context at
 * t0 + h: the step's start in s->x0, the derivative there in s->k0, and,
 * for the methods with an error estimate, |error| in s->errv (infinite
 * when an implicit method's Newton iteration failed, so that error
 * control shrinks the step).  Returns 0 or a negative DIAGC_SIM_E_* with
 * the message set.
 *
 * The methods call down only: the explicit ones (explicit.c) the context
 * and the derivatives (sim_internal.h); the implicit ones
 * (implicit_euler.c, radau.c, radau5.c) also their Newton core (newton.h)
 * and the linear algebra (implicit.h).  Nothing here calls integrators.c. */
#ifndef DIAGC_METHODS_H
#define DIAGC_METHODS_H

struct diagc_sim;

/* explicit.c */
int diagc_step_euler(struct diagc_sim *s, double h);
int diagc_step_rk2(struct diagc_sim *s, double h);
int diagc_step_rk3(struct diagc_sim *s, double h);
int diagc_step_rk4(struct diagc_sim *s, double h);
int diagc_step_semi_euler(struct diagc_sim *s, double h);
int diagc_step_bs3(struct diagc_sim *s, double h);
int diagc_step_dp54(struct diagc_sim *s, double h);
/* After a rejected step of bogacki_shampine3 or dormand_prince54, with the
 * context back at the step's start (t0, s->x0): the retry reuses the
 * derivative the rejected attempt evaluated there. */
void diagc_fsal_rejected(struct diagc_sim *s, double t0);
/* h |lambda| (lambda the stiff eigenvalue) estimated from the last step's
 * stages, NaN if they do not tell (stiffness.c's test). */
double diagc_hlambda_rk2(const struct diagc_sim *s);
double diagc_hlambda_rk3(const struct diagc_sim *s);
double diagc_hlambda_rk4(const struct diagc_sim *s);
double diagc_hlambda_bs3(const struct diagc_sim *s);
double diagc_hlambda_dp54(const struct diagc_sim *s);

/* implicit_euler.c */
int diagc_step_implicit_euler(struct diagc_sim *s, double h);

/* radau.c: radau3 */
int diagc_step_radau3(struct diagc_sim *s, double h);

/* radau5.c: radau5's step, and its step-size controller (Gustafsson's):
 * after a step of h with error estimate err (infinity norm; infinite
 * after a Newton failure), *ok = 1 to accept it, and the next step to try
 * (accepted) or the retry's (rejected), before max_step and the minimum
 * step apply (integrators.c). */
int diagc_step_radau5(struct diagc_sim *s, double h);
void diagc_radau5_propose(struct diagc_sim *s, double err, double h, int *ok,
                          double *hn);

#endif
