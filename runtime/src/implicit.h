/* Internal to the runtime: the bottom of the implicit methods
 * (implicit_euler.c, radau.c, radau5.c) and their Newton core (newton.c):
 * the workspace, the Jacobian source and the linear algebra (implicit.c,
 * band.c).  Nothing here calls a method, the core or integrators.c.
 *
 * The Jacobian source.  Every Newton iteration matrix needs
 * J = d(xcdot)/d(xc) at some (t, x); diagc_form_jacobian() gets it, with
 * the context at (t, x), from one of two sources:
 *   - finite differences (the default): nxc + 0 extra calc_derivatives
 *     calls (forward differences, one per column, with the derivative at
 *     (t, x) given);
 *   - a sparse Jacobian provided with the model: a function that writes
 *     the structural nonzeros at the context, in the order of a
 *     compressed-column (CSC) pattern (CasADi's convention: colptr has
 *     nxc + 1 entries, colptr[0] = 0, colptr[nxc] = nnz; rowind[k] is the
 *     row of nonzero k; rows sorted within a column).  A generated model
 *     provides it through the descriptor (diagc_model.jac_xc*), installed
 *     at create; tests install hand-written ones with
 *     diagc_sim_set_xc_jacobian().
 *
 * Linear algebra: J is kept dense (row-major).  implicit_euler factors
 * I - h J by a dense LU with partial pivoting (O(nxc^3)).  radau3 orders
 * the states to narrow J's band (reverse Cuthill-McKee on J's nonzeros),
 * interleaves the two stages, and factors I - h (A (x) J) by a banded LU
 * over dense storage (band.c; radau5 its real and complex matrices the
 * same way): O(nxc b^2) for bandwidth b, the dense cost
 * when J is dense.  Storage stays (2 nxc)^2, fine up to a few hundred
 * states; a general sparse LU (fill-reducing ordering, sparse storage) is
 * future work. */
#ifndef DIAGC_IMPLICIT_H
#define DIAGC_IMPLICIT_H

#include "diagc/simulator.h"

/* A model-provided sparse Jacobian of xcdot with respect to xc: the
 * descriptor's fields jac_xc_nnz, jac_xc_colptr, jac_xc_rowind, jac_xc. */
typedef struct diagc_xc_jacobian {
  int nnz;
  const int *colptr;   /* nxc + 1 */
  const int *rowind;   /* nnz */
  /* Writes the nnz values at the context's (t, xc); returns DIAGC_OK or a
   * nonzero status (a failed evaluation). */
  int (*jac_xc)(void *ctx, double *nz);
} diagc_xc_jacobian;

/* Installs jac (copied; its arrays must outlive the simulator) as the
 * Jacobian source of the implicit integrators, or, with jac == NULL,
 * returns to finite differences.  Validates the pattern; allocates (call
 * it outside advance_to).  Returns 0, DIAGC_SIM_E_ARG (bad pattern, with
 * the reason in diagc_sim_error) or DIAGC_SIM_E_NOMEM. */
int diagc_sim_set_xc_jacobian(diagc_sim *s, const diagc_xc_jacobian *jac);

/* The implicit integrators' workspace, in the simulator. */
typedef struct diagc_implicit {
  int stages;          /* matrices allocated for: 0 none, 1, 2 or 3 stages */
  double *jac;         /* nxc * nxc, row-major */
  double *iter_m;      /* (stages nxc)^2: LU of the iteration matrix;
                          radau5: its real (nxc^2) and complex (2 nxc^2)
                          matrices */
  int *piv;            /* stages * nxc */
  double *iter_e;      /* radau3: LU of I - h gamma0 J (nxc^2) */
  int *piv_e;
  double *z, *f, *dz;  /* radau3: stage increments, derivatives, Newton
                          corrections (2 nxc each) */
  double *zp, *xend;   /* radau3: the last converged step's increments (2
                          nxc) and end state (nxc), for the predictor */
  double *wv;          /* radau5: the transformed increments (3 nxc) */
  double *jac_x;       /* radau5: the state J was formed at (nxc) ... */
  double jac_t;        /* ... and its time */
  double tend, hp;     /* ... its end time and step; tend NaN: none */
  double *pb;          /* radau3: a right-hand side in band order (2 nxc) */
  int *perm, *inv, *deg; /* radau3: the band ordering of the states (new ->
                          old, old -> new) and scratch (nxc each) */
  int kl, ku;          /* ... and J's bandwidths in that ordering */
  double *nz;          /* the sparse source's values (nnz) */
  diagc_xc_jacobian src;
  int has_src;
  /* radau3's reuse state: J is usable (formed at an earlier point), the
   * steps the LUs were formed for (NaN: stale), and Hairer's convergence
   * factor estimate carried between steps */
  int jac_valid;
  double lu_h, lue_h;
  double eta;
  /* radau5: the last Newton solve (contraction, iterations, failed and
   * the step reduction it suggests), whether the last step was rejected,
   * and Gustafsson's history: the last accepted step and its error
   * relative to the accuracy (hacc NaN: none since the reset) */
  double theta, newton_fac;
  int newton_its, newton_failed, rejected;
  double hacc, erracc;
} diagc_implicit;

struct diagc_sim;

/* Allocates the workspace for `stages` stages (1: implicit_euler, 2:
 * radau3, 3: radau5) if not yet; 0 or DIAGC_SIM_E_NOMEM. */
int diagc_implicit_alloc(struct diagc_sim *s, int stages);
void diagc_implicit_free(diagc_implicit *w);
/* Forgets the Jacobian and the step history (radau3 and radau5 form a
 * new J at their next step). */
void diagc_implicit_reset(diagc_implicit *w);

/* Forms J into w->jac at the context's (t, x), where the derivative is f0
 * (used by finite differences).  Leaves the context at (t, x).  0 or
 * DIAGC_SIM_E_EVAL. */
int diagc_form_jacobian(struct diagc_sim *s, const double *f0);

/* Dense LU with partial pivoting of the n x n row-major a, in place; 0, or
 * -1 if singular (or not finite). */
int diagc_lu_factor(double *a, int n, int *piv);
/* Solves LU y = b in place. */
void diagc_lu_solve(const double *a, int n, const int *piv, double *b);

/* band.c: the band ordering of J's nonzeros (symmetrized): perm (new ->
 * old), inv (old -> new), deg scratch (n each); the bandwidths kl (below)
 * and ku (above the diagonal) of J in that ordering. */
void diagc_band_order(const double *jac, int n, int *perm, int *inv,
                      int *deg, int *kl, int *ku);
/* LU with partial pivoting of the n x n row-major a with kl sub- and ku
 * super-diagonals, touching only the band (and U's kl more); 0 or -1 if
 * singular. */
int diagc_band_lu_factor(double *a, int n, int kl, int ku, int *piv);
void diagc_band_lu_solve(const double *a, int n, int kl, int ku,
                         const int *piv, double *b);
/* The same for a complex matrix: entry (i, j) at a[2 (i n + j)], its
 * imaginary part next; b holds n complex pairs (radau5). */
int diagc_cband_lu_factor(double *a, int n, int kl, int ku, int *piv);
void diagc_cband_lu_solve(const double *a, int n, int kl, int ku,
                          const int *piv, double *b);

#endif
