/* diagc/trim.h: an operating point of a generated model where chosen
 * derivatives vanish (or take given values) and chosen outputs hit
 * targets, with chosen states and exported inputs free (Simulink's trim;
 * Drake's FixedInputPort and a solve).  docs/jacobians.md, "Trim".
 *
 * The elements are those of diagc_linearize with every port chosen
 * (DIAGC_LIN_ALL; diagc_linearize_sizes gives nx, nu, ny): unknowns are
 * columns of (x, u), x the continuous state xc (then, for a model with one
 * periodic discrete update, the discrete state xd), u the elements of the
 * exported inputs (diagc_model.lin_inputs); equations are rows of (f, y)
 * with f = xcdot for an xc element and f = x[n+1] - x[n] (the update's
 * change) for an xd element, y the elements of the outputs
 * (diagc_model.lin_outputs).  Equation k asks row eq[k] to equal
 * target[k].
 *
 * Newton's method on r(z) = (rows) - target in the free unknowns z, with
 * the Jacobian d(f, y) / d(x, u) from the model (jac_lin, and jac_updates
 * for the xd rows) or, when the model has none or DIAGC_JACOBIAN_FD is
 * asked, central differences; a backtracking (Armijo) line search on
 * phi = |r|^2 / 2.  As many equations as unknowns: the Newton step; more
 * equations: the Gauss-Newton step (the least-squares solution of J dz =
 * -r by Householder QR), which converges only when the equations can all
 * hold; fewer: the minimum-norm step (the unknowns move as little as
 * possible, so the point found is the one nearest the start along the
 * way).  Converged when max |r| <= tolerance.
 *
 * C99.  diagc_trim allocates its scratch and frees it. */
#ifndef DIAGC_TRIM_H
#define DIAGC_TRIM_H

#include <stddef.h>

#include "diagc/linearize.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DIAGC_TRIM_STATES (-1) /* n_free: every state element; n_eq: every
                                  state row with target 0 */

typedef struct diagc_trim_problem {
  int n_free;           /* unknowns, or DIAGC_TRIM_STATES (default) */
  const int *free;      /* n_free columns of (x, u), distinct */
  int n_eq;             /* equations, or DIAGC_TRIM_STATES (default) */
  const int *eq;        /* n_eq rows of (f, y), distinct */
  const double *target; /* n_eq values; NULL: all 0 */
  int jacobian;         /* DIAGC_JACOBIAN_MODEL (default: the model's,
                           central differences when it has none) or
                           DIAGC_JACOBIAN_FD */
  double tolerance;     /* max |r| at the point; default 1e-10 */
  int max_iterations;   /* Newton steps at most; default 50 */
} diagc_trim_problem;

typedef struct diagc_trim_result {
  int iterations;   /* Newton steps taken */
  double residual;  /* max |r| at the point (the best one on failure) */
  int worst;        /* the equation (k) of the largest |r| */
  int used_fd;      /* 1 when the Jacobian came from central differences */
} diagc_trim_result;

void diagc_trim_problem_init(diagc_trim_problem *p);

/* Solves from the point ctx holds and leaves the solution in ctx (its
 * state and inputs; on failure the best point found).  DIAGC_OK,
 * DIAGC_TRIM_E_NO_POINT (the residual stalls above the tolerance: the line
 * search cannot reduce it, the step vanishes, it shrinks by less than 1 %
 * over 8 iterations, or max_iterations pass),
 * DIAGC_TRIM_E_SINGULAR (the Jacobian of the equations with respect to
 * the unknowns is rank deficient at an iterate), DIAGC_LIN_E_ARG (an index
 * out of range or repeated, NULL arrays), DIAGC_LIN_E_MODEL (abstract
 * state, or a discrete state without one periodic update freed),
 * DIAGC_LIN_E_EVAL (an evaluation failed at the start) or
 * DIAGC_LIN_E_NOMEM; a one-line reason in err naming the unknown or the
 * equation at fault. */
int diagc_trim(const diagc_model *m, void *ctx, const diagc_trim_problem *p, diagc_trim_result *r,
               char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
