/* SUNDIALS CVODE (BDF, Newton, dense linear solver) on a diagc_model: the
 * right-hand side is the model's calc_derivatives, so CVODE and diagc's
 * integrators evaluate the same generated code.  The Jacobian is CVODE's
 * own difference quotients (cvm_run) or the model's generated sparse
 * d xcdot / d xc scattered into CVODE's dense matrix (cvm_run_ex with
 * use_jac = 1).  Header-only (static functions), for
 * bench/stiff/stiff_bench.c and tests/cli/cvode_stiff.c. */
#ifndef DIAGC_CVODE_MODEL_H
#define DIAGC_CVODE_MODEL_H

#include <stdlib.h>
#include <string.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "diagc/model.h"

typedef struct cvm_user {
  const diagc_model *m;
  void *ctx;
  long evals;
  long jacs;  /* calls of the Jacobian function */
  double *nz; /* the generated Jacobian's nonzeros (m->jac_xc_nnz) */
} cvm_user;

static void cvm_put_xc(const diagc_model *m, void *ctx, const double *x) {
  if (m->set_xc)
    m->set_xc(ctx, x);
  else
    memcpy(m->mutable_xc(ctx), x, (size_t)m->nxc * sizeof(double));
}

/* CVODE's messages (step failures at loose tolerances) are not printed:
 * a failed run is reported by its return value. */
static void cvm_quiet(int code, const char *module, const char *function,
                      char *msg, void *user) {
  (void)code;
  (void)module;
  (void)function;
  (void)msg;
  (void)user;
}

static int cvm_rhs(sunrealtype t, N_Vector y, N_Vector yd, void *u) {
  cvm_user *c = (cvm_user *)u;
  const double *d = NULL;
  c->m->set_time(c->ctx, t);
  cvm_put_xc(c->m, c->ctx, N_VGetArrayPointer(y));
  c->evals++;
  if (c->m->calc_derivatives(c->ctx, &d) != 0 || !d) return -1;
  memcpy(N_VGetArrayPointer(yd), d, (size_t)c->m->nxc * sizeof(double));
  return 0;
}

/* CVLsJacFn: the model's generated Jacobian at (t, y), its compressed
 * columns scattered into CVODE's dense matrix. */
static int cvm_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J,
                   void *u, N_Vector t1, N_Vector t2, N_Vector t3) {
  cvm_user *c = (cvm_user *)u;
  const diagc_model *m = c->m;
  int col, k;
  (void)fy;
  (void)t1;
  (void)t2;
  (void)t3;
  c->m->set_time(c->ctx, t);
  cvm_put_xc(m, c->ctx, N_VGetArrayPointer(y));
  c->jacs++;
  if (m->jac_xc(c->ctx, c->nz) != 0) return -1;
  SUNMatZero(J);
  for (col = 0; col < m->nxc; col++) {
    sunrealtype *cj = SM_COLUMN_D(J, col);
    for (k = m->jac_xc_colptr[col]; k < m->jac_xc_colptr[col + 1]; k++)
      cj[m->jac_xc_rowind[k]] = c->nz[k];
  }
  return 0;
}

/* Integrates m from its initial state (m->init) to T; x gets the state at
 * T.  With use_jac (and a model that has jac_xc) CVODE uses the generated
 * Jacobian.  Returns 0, or -1 if CVODE failed (or use_jac without a
 * generated Jacobian).  *steps, *evals (right-hand side calls, those of
 * the difference-quotient Jacobian included) and *jacs (Jacobians CVODE
 * formed: its linear solver's count). */
static int cvm_run_ex(const diagc_model *m, double T, double rtol,
                      double atol, int use_jac, double *x, long *steps,
                      long *evals, long *jacs) {
  SUNContext sctx;
  N_Vector y;
  SUNMatrix A;
  SUNLinearSolver LS;
  cvm_user u;
  void *mem;
  sunrealtype tret;
  long ns = 0;
  int rc = 0, n = m->nxc;
  u.m = m;
  u.ctx = calloc(1, m->context_size);
  u.evals = u.jacs = 0;
  u.nz = NULL;
  if (use_jac && !m->jac_xc) return -1;
  if (use_jac)
    u.nz = (double *)calloc((size_t)(m->jac_xc_nnz > 0 ? m->jac_xc_nnz : 1),
                            sizeof(double));
  if (!u.ctx || (use_jac && !u.nz) || SUNContext_Create(NULL, &sctx) != 0)
    return -1;
  m->init(u.ctx);
  y = N_VNew_Serial(n, sctx);
  memcpy(N_VGetArrayPointer(y), (const char *)u.ctx + m->xc_offset,
         (size_t)n * sizeof(double));
  mem = CVodeCreate(CV_BDF, sctx);
  CVodeInit(mem, cvm_rhs, 0.0, y);
  CVodeSStolerances(mem, rtol, atol);
  CVodeSetUserData(mem, &u);
  CVodeSetErrHandlerFn(mem, cvm_quiet, NULL);
  CVodeSetMaxNumSteps(mem, 100000000L);
  CVodeSetStopTime(mem, T);
  A = SUNDenseMatrix(n, n, sctx);
  LS = SUNLinSol_Dense(y, A, sctx);
  CVodeSetLinearSolver(mem, LS, A);
  if (use_jac) CVodeSetJacFn(mem, cvm_jac);
  if (CVode(mem, T, y, &tret, CV_NORMAL) < 0) rc = -1;
  memcpy(x, N_VGetArrayPointer(y), (size_t)n * sizeof(double));
  CVodeGetNumSteps(mem, &ns);
  *steps = ns;
  *evals = u.evals;
  CVodeGetNumJacEvals(mem, &ns);
  *jacs = ns;
  CVodeFree(&mem);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroy(y);
  SUNContext_Free(&sctx);
  free(u.ctx);
  free(u.nz);
  return rc;
}

/* cvm_run_ex with CVODE's own difference-quotient Jacobian. */
static int cvm_run(const diagc_model *m, double T, double rtol, double atol,
                   double *x, long *steps, long *evals) {
  long jacs;
  return cvm_run_ex(m, T, rtol, atol, 0, x, steps, evals, &jacs);
}

#endif
