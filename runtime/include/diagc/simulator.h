/* diagc/simulator.h: a model-agnostic hybrid simulator over diagc_model.
 *
 * Reproduces the semantics of Drake's Simulator (systems/analysis/
 * simulator.cc, integrator_base.cc):
 *
 *  - diagc_sim_initialize(): initialization events (unrestricted updates,
 *    then discrete updates), then only the publishes of the initialization,
 *    per-step and t0-timed events.  Updates of per-step and t0-timed events
 *    run at the start of the first step.
 *  - diagc_sim_advance_to(t_max): steps until t >= t_max.  Each step runs the
 *    pending unrestricted then discrete updates, computes the next timed
 *    event time t_e (periodic events and loggers, next_update_time calcs:
 *    Drake's CalcNextUpdateTime), integrates toward min(t_e, t_max), landing
 *    on it exactly (ties: update, then
 *    publish, then boundary), then runs the per-step and reached timed
 *    publishes on x-(t).  At t_max publishes fire and due updates stay
 *    pending for the next call; advance_to(now) takes one step.
 *  - Loggers (diagc_model.loggers) behave like Drake's VectorLogSink and are
 *    delivered through a callback, one call per publish instant in which at
 *    least one logger fired.
 *  - With options.check_finite (default), the first NaN or infinity in the
 *    initial state, a state an update wrote, the continuous state after a
 *    step or a logged value stops the run (DIAGC_SIM_E_NONFINITE) with a
 *    message naming the element, the time and the event that wrote it.
 *
 * All memory is allocated by diagc_sim_create(); initialize and advance_to
 * never allocate.  A simulator is not thread-safe, but separate simulators
 * are independent (the runtime has no global mutable state).
 *
 * C99.
 */
#ifndef DIAGC_SIMULATOR_H
#define DIAGC_SIMULATOR_H

#include <stddef.h>
#include <stdint.h>

#include "diagc/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes (diagc/status.h).  DIAGC_OK is success;
 * DIAGC_SIM_TERMINATED (positive) means a handler returned
 * DIAGC_REACHED_TERMINATION and the simulation stopped early (not an
 * error: diagc_sim_error() names the event, and advance_to may be called
 * again); the negative DIAGC_SIM_E_* codes are errors, described by
 * diagc_sim_error().  After an error other than DIAGC_SIM_E_ARG and
 * DIAGC_SIM_E_TIME, advance_to returns DIAGC_SIM_E_STATE until
 * diagc_sim_initialize() is called again. */

/* The implicit integrators' Jacobian source (diagc_sim_options.jacobian,
 * diagc_sim_statistics.jacobian_source). */
#define DIAGC_JACOBIAN_MODEL 0 /* the model's generated d xcdot / d xc
                                  (diagc_model.jac_xc) when it has one,
                                  finite differences otherwise */
#define DIAGC_JACOBIAN_FD 1    /* forward finite differences (nxc
                                  derivative evaluations per Jacobian) */

/* The default of diagc_sim_options.max_steps. */
#define DIAGC_SIM_MAX_STEPS 1000000000

typedef struct diagc_sim_options {
  /* "runge_kutta3" (default, error-controlled), "explicit_euler",
   * "semi_explicit_euler", "runge_kutta2", "runge_kutta4" (fixed step),
   * "bogacki_shampine3", "dormand_prince54" (error-controlled) or
   * "implicit_euler" (Newton iterations on the Jacobian chosen by
   * `jacobian`; error control by step doubling) or "radau3" (3rd-order Radau IIA, L-
   * stable, simplified Newton with the Jacobian kept while convergence is
   * fast; embedded error estimate) or "radau5" (5th-order, three-stage
   * Radau IIA as Hairer & Wanner's RADAU5: one real and one complex
   * iteration matrix, embedded error estimate, Gustafsson's step-size
   * controller), or the name of an installed stepper
   * (diagc_sim_set_stepper: "cvode_bdf" after diagc_sim_use_cvode(),
   * diagc/cvode.h).  The string is only read by create/set_options. */
  const char *integrator;
  double accuracy;       /* target accuracy, default 1e-4 */
  double max_step;       /* maximum step size, default 0.1 */
  int error_control;     /* 1 (default): error-controlled stepping for
                            integrators that estimate errors (runge_kutta3);
                            0: fixed steps of `fixed_step` */
  double fixed_step;     /* step of fixed-step integration; 0 (default)
                            means "same as max_step" */
  double initial_step;   /* initial step size target for error control,
                            default 1e-4; 0 or NaN means max_step / 10.
                            Clamped to max_step. */
  double min_step;       /* requested minimum step (error control), default
                            0: the working minimum max(1e-14, 1e-14 |t|) */
  int suppress_initialization_events; /* default 0 */
  int check_finite;      /* 1 (default): fail with DIAGC_SIM_E_NONFINITE on
                            the first NaN or infinity in the initial state,
                            the state an update wrote (continuous and
                            discrete), the continuous state after each step
                            and every logged output value (before it is
                            logged); 0: skip these checks, for speed */
  int jacobian;          /* implicit_euler, radau3, radau5: DIAGC_JACOBIAN_MODEL
                            (default: the model's generated Jacobian when
                            it has one) or DIAGC_JACOBIAN_FD (finite
                            differences, e.g. to compare); other values are
                            rejected by create/set_options */
  int64_t max_steps;     /* the most integration steps (accepted and
                            rejected, every integrator) one advance_to call
                            may take, default 1e9 (0: the default; < 0 is
                            rejected).  The call stops with
                            DIAGC_SIM_E_STEP and a message naming the
                            integrator, the limit and the evidence when the
                            steps taken exceed it, or as soon as the steps
                            of two successive windows of 65536, continued
                            at their average size to the target, would */
} diagc_sim_options;

typedef struct diagc_sim_statistics {
  int64_t steps;               /* simulator steps (Drake num_steps_taken),
                                  including steps that did not move time */
  int64_t integrator_steps;    /* accepted integration steps */
  int64_t rejected_steps;      /* step-size shrinkages from error control */
  int64_t derivative_evals;    /* calls to calc_derivatives */
  int64_t discrete_updates;    /* applied discrete update rounds */
  int64_t unrestricted_updates;/* applied unrestricted update rounds */
  int64_t publishes;           /* publish rounds that did something */
  int64_t log_rows;            /* publish instants with a logger sample
                                  (= log callback invocations) */
  double initial_step;         /* first accepted integration step, NaN if none */
  double smallest_step;        /* smallest accepted step > 0, NaN if none */
  double largest_step;         /* largest accepted step, NaN if none */
  double smallest_adapted_step;/* Drake's smallest step chosen by error
                                  control, NaN if none */
  int64_t witness_triggers;    /* steps ended by an isolated witness
                                  crossing */
  int64_t newton_failures;     /* implicit_euler, radau3, radau5: Newton solves
                                  that did not converge (step retried) */
  int64_t jacobian_evals;      /* implicit_euler, radau3, radau5: Jacobians formed
                                  (by finite differences: nxc derivative
                                  evaluations each, counted above too) */
  int64_t lu_factorizations;   /* implicit_euler, radau3, radau5: iteration
                                  matrices factored (radau5: 2 each time) */
  int64_t newton_iterations;   /* implicit_euler, radau3, radau5: Newton
                                  iterations (each one linear solve) */
  int jacobian_source;         /* the implicit integrators' Jacobian source
                                  in use: DIAGC_JACOBIAN_MODEL (a sparse
                                  Jacobian of the model) or
                                  DIAGC_JACOBIAN_FD */
  /* The explicit integrators' stiffness evidence (docs/simulator.md,
   * "Stiffness"): Hairer's test, an estimate of h |lambda| (lambda the
   * dominant eigenvalue of the Jacobian along the step's error) from
   * derivatives the step evaluated anyway, on steps 1, 3, 7, 15, ... (gaps
   * doubling up to 1000 steps), and every step while one of the last six
   * reached the limit.  It never changes a result. */
  int64_t stiffness_tests;     /* steps whose h |lambda| was estimated */
  int64_t stiffness_hits;      /* ... above 0.98 stability_limit */
  double stability_limit;      /* the integrator's largest stable h |lambda|
                                  on the negative real axis (2 for
                                  explicit_euler); NaN for the implicit
                                  integrators and steppers */
  double stiff_time;           /* when the evidence became conclusive (15
                                  hits, a hit above 10 times the limit
                                  counting 5, without 6 tests in a row
                                  below the limit), NaN if it did not */
  double stiff_step;           /* the step h then and h |lambda| then, */
  double stiff_hlambda;        /* geometric means over the tests since the
                                  first of those hits (NaN if none); the
                                  estimate of |lambda| is their ratio */
} diagc_sim_statistics;

/* Called once per publish instant in which at least one logger fired.
 * fired[i] (i < model->n_loggers) is 1 if logger i sampled at t;
 * values[i] points at its logger.size doubles (valid during the call only),
 * or is NULL when it did not fire. */
typedef void (*diagc_log_fn)(void *user, double t, const unsigned char *fired,
                             const double *const *values);

/* Called after every simulator step (also steps that did not move time)
 * with the time reached.  For progress display; it must not modify the
 * simulator or its context. */
typedef void (*diagc_progress_fn)(void *user, double t);

/* Called once per event firing: each time the simulator runs the handler
 * of model event `event` (an index into m->events, whose name, kind and
 * trigger say what fired), with the context's time t, in the order the
 * handlers run.  Every trigger is reported: initialization, per-step,
 * periodic, timed (next_update_time) and witness events.  An update fires
 * when its handler runs: pending updates run at the start of the step
 * after the one that reached their time (at that same time), and updates
 * due exactly at advance_to's target run in the next call, so they are
 * reported then.  Loggers are not events here (diagc_log_fn delivers
 * them).  The hook runs inside initialize/advance_to: it must not modify
 * the simulator or its context, and it is the caller's to bound what it
 * keeps (the simulator stores nothing per firing). */
typedef void (*diagc_event_fn)(void *user, double t, int event);

typedef struct diagc_sim diagc_sim;

/* Fills the defaults listed above. */
void diagc_sim_options_init(diagc_sim_options *opt);

/* Allocates a simulator and its context (m->context_size bytes, initialized
 * with m->init).  opt may be NULL for defaults.  Returns NULL on an invalid
 * model, invalid options or out of memory; diagc_sim_create_ex() also
 * reports why in err (if err != NULL and errlen > 0). */
diagc_sim *diagc_sim_create(const diagc_model *m, const diagc_sim_options *opt);
diagc_sim *diagc_sim_create_ex(const diagc_model *m,
                               const diagc_sim_options *opt,
                               char *err, size_t errlen);
void diagc_sim_destroy(diagc_sim *sim);

/* Selects the integrator by name; nonzero (DIAGC_SIM_E_ARG) if unknown.
 * The integrator's step-size history is reset. */
int diagc_sim_set_integrator(diagc_sim *sim, const char *name);
const char *diagc_sim_integrator(const diagc_sim *sim);
/* Replaces all options (validated as by create); takes effect on the next
 * step.  Changing the integrator resets its step-size history. */
int diagc_sim_set_options(diagc_sim *sim, const diagc_sim_options *opt);
/* Returns 1 if `name` is a known integrator. */
int diagc_integrator_known(const char *name);

const diagc_model *diagc_sim_model(const diagc_sim *sim);
/* The context: the caller may set sources through the descriptor, e.g.
 * m->set_xc(diagc_sim_context(sim), x0), before diagc_sim_initialize(). */
void *diagc_sim_context(diagc_sim *sim);
double diagc_sim_time(const diagc_sim *sim);

void diagc_sim_set_log_callback(diagc_sim *sim, diagc_log_fn fn, void *user);
/* Installs (fn != NULL) or removes the progress hook. */
void diagc_sim_set_progress_callback(diagc_sim *sim, diagc_progress_fn fn,
                                     void *user);
/* Installs (fn != NULL) or removes the event-firing hook. */
void diagc_sim_set_event_callback(diagc_sim *sim, diagc_event_fn fn,
                                  void *user);

int diagc_sim_initialize(diagc_sim *sim);
int diagc_sim_advance_to(diagc_sim *sim, double t_max);

/* Drake's System::CalcNextUpdateTime over the model's timed events
 * (periodic events, next_update_time events and periodic loggers): the
 * earliest event time strictly after the context's time, into *t_next
 * (INFINITY when there is none).  due (if not NULL) gets
 * m->n_events + m->n_loggers flags: due[i] = 1 for model event i, due
 * [m->n_events + j] = 1 for logger j, when it is due at *t_next.  Returns
 * the number of due events (>= 0) or DIAGC_SIM_E_EVAL / _NONFINITE when a
 * next_update_time calc fails, returns NaN or a time not after the
 * context's time (then err, if not NULL and errlen > 0, says why).  The
 * context may be changed only through its cache (calcs run as in any
 * evaluation). */
int diagc_calc_next_update_time(const diagc_model *m, void *ctx,
                                double *t_next, unsigned char *due,
                                char *err, size_t errlen);
/* The same query on the simulator's context (its current time); errors
 * are described by diagc_sim_error() and do not stop the simulator. */
int diagc_sim_next_update_time(diagc_sim *sim, double *t_next,
                               unsigned char *due);

/* The options in use (as validated: options.integrator names the selected
 * integrator).  0, or DIAGC_SIM_E_ARG for a NULL argument. */
int diagc_sim_get_options(const diagc_sim *sim, diagc_sim_options *opt);

/* ---- integrators from outside the runtime --------------------------------
 *
 * An optional integrator that needs a third-party library (the CVODE BDF
 * backend, diagc/cvode.h, lib/libdiagc_cvode) plugs in as a stepper: the
 * simulator keeps its event handling (updates, timed events, witness
 * isolation by re-integration, loggers, checks) and only asks the stepper
 * to advance the continuous state, as it asks its own integrators.  This
 * keeps the runtime free of the dependency and the event semantics in one
 * place.
 *
 * One call of step() advances the context from its (t0, xc) to some
 * t1 with t0 < t1 <= req->t_stop (one internal step of the method, or
 * exactly t_stop when the step reaches it), and leaves the context at
 * (t1, xc(t1)).  Evaluations may visit any time in [t0, t_stop]; never one
 * after t_stop (an update or the end of advance_to is there). */
typedef struct diagc_sim_step_request {
  double t_stop;       /* the step ends at or before it */
  double max_step;     /* options.max_step */
  double min_step;     /* options.min_step (0: the method's own) */
  double accuracy;     /* the accuracy in use (options.accuracy, clamped) */
  int jacobian;        /* options.jacobian */
  int restart;         /* 1: first step, or something other than the
                          stepper changed the context since its last step
                          (an update, a witness re-integration from an
                          earlier point, advance_to or initialize, new
                          options): any history of past steps is invalid,
                          start afresh from the context's (t0, xc) */
  diagc_sim_statistics *stats; /* add to its derivative_evals,
                                  rejected_steps, newton_failures,
                                  jacobian_evals, lu_factorizations and
                                  newton_iterations (the simulator counts
                                  the steps) */
  char *err;           /* a one-line message on failure */
  size_t errlen;
} diagc_sim_step_request;

typedef struct diagc_sim_stepper {
  const char *name;    /* the integrator's name (options.integrator); not
                          a built-in one; must outlive the stepper */
  void *self;
  /* 0, or a negative DIAGC_SIM_E_* (DIAGC_SIM_E_EVAL when the model's
   * calc failed, DIAGC_SIM_E_STEP when the method failed) with req->err */
  int (*step)(void *self, diagc_sim *sim, diagc_sim_step_request *req);
  void (*destroy)(void *self); /* may be NULL */
} diagc_sim_stepper;

/* Installs stepper (copied; the simulator owns self from now on and calls
 * destroy when it is replaced, removed or the simulator is destroyed) and
 * selects it as the integrator; diagc_sim_set_integrator(sim, name) can
 * switch away and back.  stepper == NULL removes it (runge_kutta3 takes
 * over if it was selected).  Returns 0 or DIAGC_SIM_E_ARG (a built-in
 * name, no step function). */
int diagc_sim_set_stepper(diagc_sim *sim, const diagc_sim_stepper *stepper);
/* Sets the message diagc_sim_error() returns (truncated to one line of
 * the simulator's buffer), for a stepper's setup function that fails. */
void diagc_sim_set_error_message(diagc_sim *sim, const char *msg);

/* One-line message about the last error or termination ("" if none). */
const char *diagc_sim_error(const diagc_sim *sim);
int diagc_sim_stats(const diagc_sim *sim, diagc_sim_statistics *stats);

#ifdef __cplusplus
}
#endif
#endif
