/* diagc/linearize.h: linear and affine models of a generated model at an
 * operating point, with Drake's semantics (Linearize and
 * FirstOrderTaylorApproximation; docs/jacobians.md, "Linearization").
 *
 * The operating point is a context: its state x0, the values u0 of the
 * chosen exported inputs, and everything else (time, parameters, other
 * inputs) as it holds them.  With n = nxc states, the chosen inputs u and
 * outputs y:
 *
 *   DIAGC_LINEARIZE            deviation coordinates, at an equilibrium:
 *                                d/dt (x - x0) = A (x - x0) + B (u - u0)
 *                                y - y0        = C (x - x0) + D (u - u0)
 *                              every element of xcdot at the operating
 *                              point must be within equilibrium_tolerance
 *                              of zero (Drake: 1e-6), else
 *                              DIAGC_LIN_E_EQUILIBRIUM; f0 is set to zero
 *                              and y0 to y(x0, u0).
 *   DIAGC_FIRST_ORDER_TAYLOR   affine, at any operating point:
 *                                dx/dt = A x + B u + f0
 *                                y     = C x + D u + y0
 *                              f0 = xcdot0 - A x0 - B u0,
 *                              y0 = y(x0, u0) - C x0 - D u0.
 *
 * Discrete time: a purely discrete model with one periodic discrete update
 * of period h (diagc_model.lin_time_period > 0) is linearized in x = xd
 * with x[n+1] in place of dx/dt: A, B map x[n], u[n] to x[n+1]; linearize
 * needs x[n+1] = x[n] within the tolerance (a fixed point), and f0 =
 * x[n+1](x0, u0) - A x0 - B u0 in first_order_taylor mode.
 *
 * Sampled loops: a model with continuous state xc under one periodic
 * discrete update of period h (and any offset) is linearized exactly in
 * discrete time at h, in x = (xc, xd) sampled just before the update:
 * x[n] is the state at t_n- = (offset + n h)-, and x[n+1] at t_(n+1)-.  At
 * t_n the update sets xd+ = g(xc, xd, u) (xc is continuous); over [t_n,
 * t_n + h) xc follows xcdot = f(xc, xd+, u) with xd+ and u held (zero-order
 * hold).  A = [[Phi + Gam_d Gc, Gam_d Gd], [Gc, Gd]], B = [[Gam_u + Gam_d
 * Gu], [Gu]] with exp(h [[Ac, Ad, Bc], [0, 0, 0]]) = [[Phi, Gam_d, Gam_u],
 * [0, I, 0]] (Ac, Ad, Bc: d xcdot / d(xc, xd, u); Gc, Gd, Gu: d xd+ /
 * d(xc, xd, u)); C, D are those of y(xc, xd, u) at t_n-.  Only the
 * linearize mode, at an equilibrium: xcdot = 0 and xd+ = xd within the
 * tolerance.  Any other model with discrete state, and any with abstract
 * state, is refused (DIAGC_LIN_E_MODEL).  A, B, C, D come from the model's
 * generated d(xcdot, y) / d(xc, u) (diagc_model.jac_lin; a sampled
 * loop's also from its update's jac_updates[0]) with
 * DIAGC_JACOBIAN_MODEL, or from central differences of the derivatives
 * and outputs with DIAGC_JACOBIAN_FD.  The caller's context is left as it
 * was (finite differences work on a copy; its cache may be filled).
 *
 * C99.  diagc_linearize allocates scratch space (the dense Jacobian or a
 * context copy) and frees it before returning.
 */
#ifndef DIAGC_LINEARIZE_H
#define DIAGC_LINEARIZE_H

#include <stddef.h>

#include "diagc/model.h"
#include "diagc/simulator.h" /* DIAGC_JACOBIAN_MODEL, DIAGC_JACOBIAN_FD */

#ifdef __cplusplus
extern "C" {
#endif

#define DIAGC_LINEARIZE 0
#define DIAGC_FIRST_ORDER_TAYLOR 1

#define DIAGC_LIN_NONE (-1) /* no input (output) port: nu (ny) = 0 */
#define DIAGC_LIN_ALL (-2)  /* every port of diagc_model.lin_inputs (lin_outputs) */

typedef struct diagc_linearize_options {
  int mode;                     /* DIAGC_LINEARIZE (default) or
                                   DIAGC_FIRST_ORDER_TAYLOR */
  int input;                    /* k into diagc_model.lin_inputs (an
                                   exported input), DIAGC_LIN_NONE or
                                   DIAGC_LIN_ALL (default) */
  int output;                   /* k into diagc_model.lin_outputs,
                                   DIAGC_LIN_NONE or DIAGC_LIN_ALL
                                   (default) */
  int jacobian;                 /* DIAGC_JACOBIAN_MODEL (default) or
                                   DIAGC_JACOBIAN_FD */
  double equilibrium_tolerance; /* DIAGC_LINEARIZE only; default 1e-6 */
} diagc_linearize_options;

/* A, B, C, D row-major (A[i * nx + j]); the caller provides every array
 * with the sizes diagc_linearize_sizes gives (any may be NULL when its
 * size is 0).  x0, u0: the operating point. */
typedef struct diagc_linear_system {
  int nx, nu, ny;
  double *A;   /* nx * nx */
  double *B;   /* nx * nu */
  double *C;   /* ny * nx */
  double *D;   /* ny * nu */
  double *f0;  /* nx */
  double *y0;  /* ny */
  double *x0;  /* nx */
  double *u0;  /* nu */
  double time_period; /* set by diagc_linearize: 0 continuous, h > 0
                         discrete (x[n+1] = ...; x is xd) */
} diagc_linear_system;

void diagc_linearize_options_init(diagc_linearize_options *o);

/* The sizes of the chosen ports: DIAGC_OK or DIAGC_LIN_E_ARG. */
int diagc_linearize_sizes(const diagc_model *m, const diagc_linearize_options *o, int *nx,
                          int *nu, int *ny);

/* Fills out (its nx, nu, ny must be those of diagc_linearize_sizes).
 * Returns DIAGC_OK or a DIAGC_LIN_E_* code, with a one-line reason in err
 * (may be NULL) naming the state element or the port at fault.
 * DIAGC_LIN_E_EVAL names what failed: the derivatives, a discrete update
 * (by event name) or an output (by name) with its status, at the operating
 * point or, for central differences, with which element moved by how much;
 * or the first non-finite value: an element of xcdot / x[n+1] or of an
 * output at the operating point ("d/dt pend.omega is NaN"), an entry of
 * A, B, C or D ("the entry d(y)/d(l.x) of C is inf", from the generated
 * Jacobian or central differences), or an affine term.  No result holds a
 * NaN or an infinity. */
int diagc_linearize(const diagc_model *m, void *ctx, const diagc_linearize_options *o,
                    diagc_linear_system *out, char *err, size_t errlen);

/* E = exp(A) for the n x n row-major A (scaling and squaring with the
 * degree-13 Pade approximant, Higham 2005): DIAGC_OK, DIAGC_LIN_E_ARG (a
 * non-finite element, n < 0, NULL) or DIAGC_LIN_E_NOMEM.  E may not alias
 * A.  Allocates its scratch and frees it. */
int diagc_expm(int n, const double *A, double *E);

/* The eigenvalues re[i] + i im[i] of the n x n row-major A (Hessenberg
 * reduction, then the Francis double-shift QR iteration), complex pairs
 * adjacent with the positive imaginary part first: DIAGC_OK,
 * DIAGC_LIN_E_ARG (a non-finite element, n < 0, NULL), DIAGC_LIN_E_NOMEM or
 * DIAGC_LIN_E_EVAL (the iteration did not converge). */
int diagc_eigenvalues(int n, const double *A, double *re, double *im);

#ifdef __cplusplus
}
#endif
#endif
