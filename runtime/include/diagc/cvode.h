/* diagc/cvode.h: SUNDIALS CVODE (variable-order BDF, Newton) as an
 * integrator of diagc's simulator, "cvode_bdf".
 *
 * An optional library, lib/libdiagc_cvode.{a,so}, built by make only when
 * the SUNDIALS headers are installed (Debian libsundials-dev:
 * scripts/install-deps.sh libsundials-dev).  libdiagc itself stays free of
 * dependencies: this library plugs CVODE into the simulator as a stepper
 * (diagc_sim_set_stepper in diagc/simulator.h).  The simulator keeps
 * everything else, exactly as with its own integrators: pending updates,
 * the next timed event (CVODE stops on it: CVodeSetStopTime, never
 * stepping past it), witness isolation by bisection (re-integrating from
 * the step's start), loggers, the non-finite checks, the statistics.
 * Link: -ldiagc_cvode -ldiagc -lsundials_cvode -lsundials_nvecserial
 * -lsundials_sunlinsolklu -lklu (when built with KLU) -lm -lpthread.
 *
 * Each simulator step is one internal CVODE step (CV_ONE_STEP) toward the
 * next event time, at most options.max_step long.  CVODE's history (order,
 * step size, Nordsieck array) is kept from step to step and dropped
 * (CVodeReInit from the context) whenever something else changed the
 * context: an update, a witness re-integration, initialize, advance_to
 * (inputs or parameters may have changed between calls), new options.
 * So a run with frequent events restarts CVODE at order 1 after each one.
 *
 * The Jacobian: with options.jacobian = DIAGC_JACOBIAN_MODEL (default) and
 * a model that has its generated d xcdot / d xc (diagc_model.jac_xc),
 * CVODE's Jacobian function evaluates it: into a compressed-column
 * SUNSparseMatrix factored by KLU when the library was built with KLU
 * (libsuitesparse-dev; the pattern is the generated one plus the
 * diagonal, so CVODE forms I - gamma J in place), else scattered into a
 * dense matrix (dense LU).  With DIAGC_JACOBIAN_FD, or a model without a
 * generated Jacobian, CVODE forms its own difference quotients (dense).
 *
 * Tolerances: rtol and atol default to the simulator's accuracy (its
 * own error control is absolute in the infinity norm; CVODE's is a
 * weighted RMS norm, so equal accuracies are not equal errors).
 *
 * Memory: everything (CVODE's memory, vectors, matrices, the linear
 * solver and KLU's symbolic analysis and first factorization) is
 * allocated by diagc_sim_use_cvode(); restarts reuse it (KLU keeps its
 * analysis, the pattern never changes).  KLU allocates again only if a
 * refactorization turns out ill-conditioned (it then factors afresh).
 *
 * C99.
 */
#ifndef DIAGC_CVODE_H
#define DIAGC_CVODE_H

#include "diagc/simulator.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The integrator's name (diagc_sim_options.integrator). */
#define DIAGC_CVODE_NAME "cvode_bdf"

/* diagc_cvode_options.linear_solver */
#define DIAGC_CVODE_AUTO 0  /* KLU with the model's Jacobian when built with
                               KLU, dense otherwise */
#define DIAGC_CVODE_DENSE 1 /* dense LU (SUNLinSol_Dense) */
#define DIAGC_CVODE_KLU 2   /* sparse LU (SUNLinSol_KLU): needs KLU and the
                               model's generated Jacobian */

typedef struct diagc_cvode_options {
  double rtol;       /* relative tolerance; 0 (default): the simulator's
                        accuracy */
  double atol;       /* absolute tolerance (all states); 0 (default): the
                        simulator's accuracy */
  int max_order;     /* BDF order limit 1..5; 0 (default): 5 */
  int linear_solver; /* DIAGC_CVODE_AUTO (default), _DENSE or _KLU */
} diagc_cvode_options;

void diagc_cvode_options_init(diagc_cvode_options *opt);

/* Sets CVODE up for sim's model and current options (the Jacobian source
 * is options.jacobian at this call; changing it later is an error at the
 * next step: call this again) and selects it as sim's integrator
 * (DIAGC_CVODE_NAME).  opt may be NULL for defaults.  Call outside
 * advance_to.  Returns 0, DIAGC_SIM_E_ARG (bad options, KLU asked for but
 * not available) or DIAGC_SIM_E_NOMEM, with diagc_sim_error() saying why. */
int diagc_sim_use_cvode(diagc_sim *sim, const diagc_cvode_options *opt);

/* 1 if this library was built with KLU (sparse LU), else 0. */
int diagc_cvode_has_klu(void);

/* The SUNDIALS version it was built with, e.g. "6.4.1". */
const char *diagc_cvode_sundials_version(void);

#ifdef __cplusplus
}
#endif
#endif
