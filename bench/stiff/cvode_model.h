/* SUNDIALS CVODE (BDF, Newton, dense linear solver with CVODE's own
 * difference-quotient Jacobian) on a diagc_model: the right-hand side is
 * the model's calc_derivatives, so CVODE and diagc's integrators evaluate
 * the same generated code.  Header-only (static functions), for
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

/* Integrates m from its initial state (m->init) to T; x gets the state at
 * T.  Returns 0, or -1 if CVODE failed.  *steps and *evals (right-hand
 * side calls, those of the difference-quotient Jacobian included). */
static int cvm_run(const diagc_model *m, double T, double rtol, double atol,
                   double *x, long *steps, long *evals) {
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
  u.evals = 0;
  if (!u.ctx || SUNContext_Create(NULL, &sctx) != 0) return -1;
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
  if (CVode(mem, T, y, &tret, CV_NORMAL) < 0) rc = -1;
  memcpy(x, N_VGetArrayPointer(y), (size_t)n * sizeof(double));
  CVodeGetNumSteps(mem, &ns);
  *steps = ns;
  *evals = u.evals;
  CVodeFree(&mem);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroy(y);
  SUNContext_Free(&sctx);
  free(u.ctx);
  return rc;
}

#endif
