/* SUNDIALS CVODE (BDF) as a stepper of diagc's simulator: diagc/cvode.h.
 *
 * CVODE's right-hand side is the model's calc_derivatives at the
 * simulator's context; its Jacobian the model's generated sparse
 * d xcdot / d xc (KLU on a CSC SUNSparseMatrix, or scattered into a dense
 * one) or its own difference quotients.  One step() is one CV_ONE_STEP
 * call with the stop time at the simulator's next event.  Built with
 * -DDIAGC_CVODE_WITH_KLU when sunlinsol_klu is available.  C99. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_config.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#ifdef DIAGC_CVODE_WITH_KLU
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>
#endif

#include "diagc/cvode.h"

typedef struct cv_stepper {
  const diagc_model *m;
  void *ctx;           /* the simulator's context */
  int n;
  SUNContext sctx;
  void *mem;
  N_Vector y;          /* the state CVODE returned last (and the
                          restart's initial state) */
  SUNMatrix A;
  SUNLinearSolver LS;
  int model_jac;       /* 1: the model's generated Jacobian */
  int klu;             /* 1: sparse matrix and KLU */
  /* the generated Jacobian: its values, and where each goes in the
   * augmented CSC pattern (generated nonzeros plus the diagonal) */
  double *nz;
  N_Vector ewt;        /* CVODE's error weights (difference quotients) */
  int priming;         /* 1: the setup's step, on y' = 0 (see prime()) */
  int *nz_at;          /* generated nonzero k -> augmented position */
  sunindextype *colptr, *rowind; /* augmented pattern */
  int nnz_aug;
  /* tolerances and limits as set in CVODE (NaN: not yet) */
  double rtol_opt, atol_opt;
  double rtol, atol, hmax, hmin;
  int max_order;
  double t_last;       /* time of the state last written to the context */
  int started;         /* a step was taken since the last (re)init */
  /* CVODE's counters at the last read (reset by CVodeReInit) */
  long netf, ncfn, nni, nsetups, nje;
  long rhs_evals;      /* right-hand side calls since the last read */
  int calc_rc;         /* the failed calc's status (0: none) */
  double calc_t;
  char msg[200];       /* CVODE's last error message */
} cv_stepper;

static void put_xc(const diagc_model *m, void *ctx, const double *x) {
  if (m->set_xc)
    m->set_xc(ctx, x);
  else
    memcpy(m->mutable_xc(ctx), x, (size_t)m->nxc * sizeof(double));
}

static double ctx_time(const cv_stepper *c) {
  double t;
  memcpy(&t, (const char *)c->ctx + c->m->time_offset, sizeof t);
  return t;
}

static const double *ctx_xc(const cv_stepper *c) {
  return (const double *)(const void *)((const char *)c->ctx +
                                        c->m->xc_offset);
}

/* CVRhsFn: xcdot at (t, y), evaluated in the simulator's context. */
static int cv_rhs(sunrealtype t, N_Vector y, N_Vector yd, void *u) {
  cv_stepper *c = (cv_stepper *)u;
  const double *d = NULL;
  int rc;
  if (c->priming) {
    N_VConst(0, yd);
    return 0;
  }
  c->m->set_time(c->ctx, t);
  put_xc(c->m, c->ctx, N_VGetArrayPointer(y));
  c->rhs_evals++;
  rc = c->m->calc_derivatives(c->ctx, &d);
  if (rc != 0 || !d) {
    c->calc_rc = rc != 0 ? rc : -1;
    c->calc_t = t;
    return -1; /* unrecoverable: the run stops with the calc's status */
  }
  memcpy(N_VGetArrayPointer(yd), d, (size_t)c->n * sizeof(double));
  return 0;
}

/* The model's generated Jacobian at (t, y) into c->nz. */
static int eval_model_jac(cv_stepper *c, sunrealtype t, N_Vector y) {
  int rc;
  if (c->priming) {
    memset(c->nz, 0, (size_t)c->m->jac_xc_nnz * sizeof *c->nz);
    return 0;
  }
  c->m->set_time(c->ctx, t);
  put_xc(c->m, c->ctx, N_VGetArrayPointer(y));
  rc = c->m->jac_xc(c->ctx, c->nz);
  if (rc != 0) {
    c->calc_rc = rc;
    c->calc_t = t;
    return -1;
  }
  return 0;
}

/* CVLsJacFn, dense: the compressed columns scattered into J. */
static int cv_jac_dense(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J,
                        void *u, N_Vector t1, N_Vector t2, N_Vector t3) {
  cv_stepper *c = (cv_stepper *)u;
  const diagc_model *m = c->m;
  int col, k;
  (void)fy;
  (void)t1;
  (void)t2;
  (void)t3;
  if (eval_model_jac(c, t, y) != 0) return -1;
  SUNMatZero(J);
  for (col = 0; col < c->n; col++) {
    sunrealtype *cj = SM_COLUMN_D(J, col);
    for (k = m->jac_xc_colptr[col]; k < m->jac_xc_colptr[col + 1]; k++)
      cj[m->jac_xc_rowind[k]] = c->nz[k];
  }
  return 0;
}

/* CVLsJacFn, difference quotients: CVODE's own (cvLsDenseDQJac, the same
 * increments and formula), here because SUNDIALS' version allocates a
 * vector header at every call. */
static int cv_jac_dq(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J,
                     void *u, N_Vector tmp1, N_Vector t2, N_Vector t3) {
  cv_stepper *c = (cv_stepper *)u;
  double *yv = N_VGetArrayPointer(y);
  const double *fv = N_VGetArrayPointer(fy), *ft = N_VGetArrayPointer(tmp1);
  const double *ewt = N_VGetArrayPointer(c->ewt);
  const double srur = sqrt(DBL_EPSILON);
  sunrealtype h = 0;
  double fnorm, min_inc;
  int i, j;
  (void)t2;
  (void)t3;
  CVodeGetErrWeights(c->mem, c->ewt);
  CVodeGetCurrentStep(c->mem, &h);
  fnorm = N_VWrmsNorm(fy, c->ewt);
  min_inc = fnorm != 0 ? 1000 * fabs(h) * DBL_EPSILON * c->n * fnorm : 1;
  for (j = 0; j < c->n; j++) {
    sunrealtype *col = SM_COLUMN_D(J, j);
    const double yj = yv[j];
    const double inc = fmax(srur * fabs(yj), min_inc / ewt[j]);
    int rc;
    yv[j] += inc;
    rc = cv_rhs(t, y, tmp1, c);
    yv[j] = yj;
    if (rc != 0) return rc;
    for (i = 0; i < c->n; i++) col[i] = (ft[i] - fv[i]) * (1 / inc);
  }
  return 0;
}

#ifdef DIAGC_CVODE_WITH_KLU
/* CVLsJacFn, sparse: the augmented pattern (CVODE zeroes the matrix's
 * structure before calling) and the values at their places. */
static int cv_jac_sparse(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J,
                         void *u, N_Vector t1, N_Vector t2, N_Vector t3) {
  cv_stepper *c = (cv_stepper *)u;
  sunrealtype *data = SM_DATA_S(J);
  int k, nnz = c->m->jac_xc_nnz;
  (void)fy;
  (void)t1;
  (void)t2;
  (void)t3;
  if (eval_model_jac(c, t, y) != 0) return -1;
  memcpy(SM_INDEXPTRS_S(J), c->colptr, (size_t)(c->n + 1) * sizeof *c->colptr);
  memcpy(SM_INDEXVALS_S(J), c->rowind, (size_t)c->nnz_aug * sizeof *c->rowind);
  for (k = 0; k < c->nnz_aug; k++) data[k] = 0;
  for (k = 0; k < nnz; k++) data[c->nz_at[k]] = c->nz[k];
  return 0;
}

/* SUNLinSol_KLU's initialize asks for a new symbolic analysis (and so new
 * allocations) at every CVodeReInit; the pattern never changes here, so
 * the analysis is kept once made and only the numeric refactorization
 * runs after a restart. */
static int klu_initialize_once(SUNLinearSolver S) {
  if (SUNLinSol_KLUGetSymbolic(S) != NULL) return SUNLS_SUCCESS;
  return SUNLinSolInitialize_KLU(S);
}
#endif

/* CVODE's messages go into c->msg (reported with the failure). */
static void cv_err(int code, const char *module, const char *function,
                   char *msg, void *u) {
  cv_stepper *c = (cv_stepper *)u;
  (void)code;
  (void)module;
  snprintf(c->msg, sizeof c->msg, "%s: %s", function, msg);
}

static void cv_free(void *self) {
  cv_stepper *c = (cv_stepper *)self;
  if (!c) return;
  if (c->mem) CVodeFree(&c->mem);
  if (c->LS) SUNLinSolFree(c->LS);
  if (c->A) SUNMatDestroy(c->A);
  if (c->y) N_VDestroy(c->y);
  if (c->ewt) N_VDestroy(c->ewt);
  if (c->sctx) SUNContext_Free(&c->sctx);
  free(c->nz);
  free(c->nz_at);
  free(c->colptr);
  free(c->rowind);
  free(c);
}

/* ---- one step ------------------------------------------------------------ */

static void add_counters(cv_stepper *c, diagc_sim_statistics *st) {
  long netf = 0, ncfn = 0, nni = 0, nsetups = 0, nje = 0;
  CVodeGetNumErrTestFails(c->mem, &netf);
  CVodeGetNumNonlinSolvConvFails(c->mem, &ncfn);
  CVodeGetNumNonlinSolvIters(c->mem, &nni);
  CVodeGetNumLinSolvSetups(c->mem, &nsetups);
  CVodeGetNumJacEvals(c->mem, &nje);
  st->rejected_steps += netf - c->netf;
  st->newton_failures += ncfn - c->ncfn;
  st->newton_iterations += nni - c->nni;
  st->lu_factorizations += nsetups - c->nsetups;
  st->jacobian_evals += nje - c->nje;
  st->derivative_evals += c->rhs_evals;
  c->netf = netf;
  c->ncfn = ncfn;
  c->nni = nni;
  c->nsetups = nsetups;
  c->nje = nje;
  c->rhs_evals = 0;
}

/* The context still holds exactly what the last step left there. */
static int context_unchanged(const cv_stepper *c) {
  return c->started && ctx_time(c) == c->t_last &&
         memcmp(ctx_xc(c), N_VGetArrayPointer(c->y),
                (size_t)c->n * sizeof(double)) == 0;
}

/* Tolerances and step limits, set in CVODE when they change. */
static int apply_limits(cv_stepper *c, const diagc_sim_step_request *req) {
  const double rtol = c->rtol_opt > 0 ? c->rtol_opt : req->accuracy;
  const double atol = c->atol_opt > 0 ? c->atol_opt : req->accuracy;
  int rc = CV_SUCCESS;
  if (rtol != c->rtol || atol != c->atol) {
    rc = CVodeSStolerances(c->mem, rtol, atol);
    c->rtol = rtol;
    c->atol = atol;
  }
  if (rc == CV_SUCCESS && req->max_step != c->hmax) {
    rc = CVodeSetMaxStep(c->mem, req->max_step);
    c->hmax = req->max_step;
  }
  if (rc == CV_SUCCESS && req->min_step != c->hmin) {
    rc = CVodeSetMinStep(c->mem, req->min_step);
    c->hmin = req->min_step;
  }
  return rc;
}

static const char *flag_name(int flag) {
  switch (flag) {
    case CV_TOO_MUCH_WORK: return "CV_TOO_MUCH_WORK";
    case CV_TOO_MUCH_ACC: return "CV_TOO_MUCH_ACC";
    case CV_ERR_FAILURE: return "CV_ERR_FAILURE";
    case CV_CONV_FAILURE: return "CV_CONV_FAILURE";
    case CV_LINIT_FAIL: return "CV_LINIT_FAIL";
    case CV_LSETUP_FAIL: return "CV_LSETUP_FAIL";
    case CV_LSOLVE_FAIL: return "CV_LSOLVE_FAIL";
    case CV_RHSFUNC_FAIL: return "CV_RHSFUNC_FAIL";
    case CV_ILL_INPUT: return "CV_ILL_INPUT";
    default: return "CVODE error";
  }
}

/* A step too short for CVODE to start (CV_TOO_CLOSE: a few roundoffs to
 * the stop time): one explicit Euler step lands on it. */
static int sliver_step(cv_stepper *c, double t0, double t1) {
  double *x = N_VGetArrayPointer(c->y);
  const double *d = NULL;
  int i, rc;
  c->rhs_evals++;
  rc = c->m->calc_derivatives(c->ctx, &d);
  if (rc != 0 || !d) {
    c->calc_rc = rc != 0 ? rc : -1;
    c->calc_t = t0;
    return -1;
  }
  for (i = 0; i < c->n; i++) x[i] = ctx_xc(c)[i] + (t1 - t0) * d[i];
  c->started = 0; /* CVODE's own state did not move: restart next time */
  return 0;
}

static int cv_step(void *self, diagc_sim *sim, diagc_sim_step_request *req) {
  cv_stepper *c = (cv_stepper *)self;
  const double t0 = ctx_time(c);
  const int want_model = req->jacobian == DIAGC_JACOBIAN_MODEL &&
                         c->m->jac_xc != NULL;
  sunrealtype tret = t0;
  int flag;
  (void)sim;
  if (want_model != c->model_jac) {
    snprintf(req->err, req->errlen,
             "cvode_bdf: options.jacobian changed after "
             "diagc_sim_use_cvode(); call it again to set CVODE up for the "
             "other Jacobian source");
    return DIAGC_SIM_E_ARG;
  }
  c->calc_rc = 0;
  c->msg[0] = 0;
  if (req->restart || !context_unchanged(c)) {
    memcpy(N_VGetArrayPointer(c->y), ctx_xc(c), (size_t)c->n * sizeof(double));
    flag = CVodeReInit(c->mem, t0, c->y);
    c->netf = c->ncfn = c->nni = c->nsetups = c->nje = 0;
    c->started = 0;
    if (flag != CV_SUCCESS) goto fail;
  }
  if ((flag = apply_limits(c, req)) != CV_SUCCESS) goto fail;
  if ((flag = CVodeSetStopTime(c->mem, req->t_stop)) != CV_SUCCESS) goto fail;
  flag = CVode(c->mem, req->t_stop, c->y, &tret, CV_ONE_STEP);
  if (flag == CV_TOO_CLOSE) {
    if (sliver_step(c, t0, req->t_stop) != 0) {
      flag = CV_RHSFUNC_FAIL;
      goto fail;
    }
    tret = req->t_stop;
    flag = CV_SUCCESS;
  } else if (flag < 0) {
    goto fail;
  } else {
    c->started = 1;
  }
  if (!(tret > t0)) {
    /* the step size underflowed: CVODE returns without moving time */
    sunrealtype h = 0;
    CVodeGetCurrentStep(c->mem, &h);
    add_counters(c, req->stats);
    c->started = 0;
    snprintf(req->err, req->errlen,
             "cvode_bdf failed at t = %.17g: the step size fell to %g and "
             "time no longer advances (tolerances too loose for this "
             "problem? a smaller accuracy or diagc_cvode_options.atol)",
             t0, (double)h);
    return DIAGC_SIM_E_STEP;
  }
  /* CVODE ends exactly on the stop time (CV_TSTOP_RETURN) or short of it */
  if (tret > req->t_stop) tret = req->t_stop;
  c->m->set_time(c->ctx, tret);
  put_xc(c->m, c->ctx, N_VGetArrayPointer(c->y));
  c->t_last = tret;
  add_counters(c, req->stats);
  return 0;

fail:
  add_counters(c, req->stats);
  c->started = 0;
  if (c->calc_rc != 0) {
    snprintf(req->err, req->errlen,
             "calc_derivatives failed (status %d) at t = %.17g", c->calc_rc,
             c->calc_t);
    return DIAGC_SIM_E_EVAL;
  }
  snprintf(req->err, req->errlen, "cvode_bdf failed at t = %.17g: %s%s%s",
           (double)tret, flag_name(flag), c->msg[0] ? ": " : "", c->msg);
  return DIAGC_SIM_E_STEP;
}

/* ---- setup --------------------------------------------------------------- */

void diagc_cvode_options_init(diagc_cvode_options *opt) {
  if (!opt) return;
  memset(opt, 0, sizeof *opt);
  opt->linear_solver = DIAGC_CVODE_AUTO;
}

int diagc_cvode_has_klu(void) {
#ifdef DIAGC_CVODE_WITH_KLU
  return 1;
#else
  return 0;
#endif
}

const char *diagc_cvode_sundials_version(void) { return SUNDIALS_VERSION; }

/* The generated pattern with the diagonal added (CVODE forms
 * I - gamma J in place only when every diagonal entry is in the
 * pattern), and where each generated nonzero goes.  0 or -1 (memory). */
static int augment_pattern(cv_stepper *c) {
  const diagc_model *m = c->m;
  const int n = c->n, nnz = m->jac_xc_nnz;
  int col, k, at = 0;
  c->colptr = (sunindextype *)calloc((size_t)n + 1, sizeof *c->colptr);
  c->rowind = (sunindextype *)calloc((size_t)(nnz + n), sizeof *c->rowind);
  c->nz_at = (int *)calloc((size_t)(nnz > 0 ? nnz : 1), sizeof *c->nz_at);
  if (!c->colptr || !c->rowind || !c->nz_at) return -1;
  for (col = 0; col < n; col++) {
    int diag_done = 0;
    c->colptr[col] = at;
    for (k = m->jac_xc_colptr[col]; k < m->jac_xc_colptr[col + 1]; k++) {
      const int row = m->jac_xc_rowind[k];
      if (!diag_done && row >= col) {
        if (row > col) c->rowind[at++] = col;
        diag_done = 1;
      }
      c->nz_at[k] = at;
      c->rowind[at++] = row;
    }
    if (!diag_done) c->rowind[at++] = col;
  }
  c->colptr[n] = at;
  c->nnz_aug = at;
  return 0;
}

/* The pattern as the simulator validates it (diagc_sim_set_xc_jacobian):
 * here only what the scatter relies on. */
static int pattern_ok(const diagc_model *m) {
  int col, k;
  if (m->jac_xc_nnz < 0 || !m->jac_xc_colptr || (m->jac_xc_nnz > 0 && !m->jac_xc_rowind))
    return 0;
  if (m->jac_xc_colptr[0] != 0 || m->jac_xc_colptr[m->nxc] != m->jac_xc_nnz)
    return 0;
  for (col = 0; col < m->nxc; col++) {
    if (m->jac_xc_colptr[col + 1] < m->jac_xc_colptr[col]) return 0;
    for (k = m->jac_xc_colptr[col]; k < m->jac_xc_colptr[col + 1]; k++) {
      const int r = m->jac_xc_rowind[k];
      if (r < 0 || r >= m->nxc) return 0;
      if (k > m->jac_xc_colptr[col] && r <= m->jac_xc_rowind[k - 1]) return 0;
    }
  }
  return 1;
}

/* The linear solver: sets c->klu, c->A, c->LS.  0, or a message. */
static const char *setup_linear_solver(cv_stepper *c, int which) {
  const int n = c->n;
  if (which == DIAGC_CVODE_KLU && !c->model_jac)
    return "linear_solver KLU needs the model's generated Jacobian "
           "(options.jacobian = DIAGC_JACOBIAN_MODEL and a model with "
           "jac_xc)";
#ifndef DIAGC_CVODE_WITH_KLU
  if (which == DIAGC_CVODE_KLU)
    return "linear_solver KLU: this libdiagc_cvode was built without KLU "
           "(install libsuitesparse-dev and rebuild)";
#else
  if (c->model_jac && which != DIAGC_CVODE_DENSE) {
    if (augment_pattern(c) != 0) return NULL;
    c->klu = 1;
    c->A = SUNSparseMatrix(n, n, c->nnz_aug, CSC_MAT, c->sctx);
    if (c->A) c->LS = SUNLinSol_KLU(c->y, c->A, c->sctx);
    if (c->LS) c->LS->ops->initialize = klu_initialize_once;
    return NULL;
  }
#endif
  c->A = SUNDenseMatrix(n, n, c->sctx);
  if (c->A) c->LS = SUNLinSol_Dense(c->y, c->A, c->sctx);
  return NULL;
}

/* One step on y' = 0 from the context's time (no model evaluation):
 * CVODE allocates its saved Jacobian and KLU makes its symbolic analysis
 * and first factorization at the first step after CVodeInit; done here,
 * the simulator's steps allocate nothing.  0 or -1. */
static int prime(cv_stepper *c) {
  const double t0 = ctx_time(c), t1 = t0 + fmax(1.0, fabs(t0));
  sunrealtype tret;
  int flag;
  c->priming = 1;
  flag = CVodeSetStopTime(c->mem, t1);
  if (flag == CV_SUCCESS) flag = CVode(c->mem, t1, c->y, &tret, CV_ONE_STEP);
  c->priming = 0;
  c->rhs_evals = 0;
  return flag < 0 ? -1 : 0;
}

static int fail_setup(diagc_sim *sim, cv_stepper *c, int code,
                      const char *why) {
  char msg[256];
  snprintf(msg, sizeof msg, "cvode_bdf: %s", why);
  cv_free(c);
  diagc_sim_set_error_message(sim, msg);
  return code;
}

int diagc_sim_use_cvode(diagc_sim *sim, const diagc_cvode_options *opt) {
  diagc_cvode_options o;
  diagc_sim_options so;
  diagc_sim_stepper st;
  const diagc_model *m;
  cv_stepper *c;
  const char *why;
  int which;
  if (!sim) return DIAGC_SIM_E_ARG;
  if (opt)
    o = *opt;
  else
    diagc_cvode_options_init(&o);
  m = diagc_sim_model(sim);
  diagc_sim_get_options(sim, &so);
  which = o.linear_solver;
  if (which != DIAGC_CVODE_AUTO && which != DIAGC_CVODE_DENSE &&
      which != DIAGC_CVODE_KLU)
    return fail_setup(sim, NULL, DIAGC_SIM_E_ARG, "unknown linear_solver");
  if (!(o.rtol >= 0) || !(o.atol >= 0) || isinf(o.rtol) || isinf(o.atol) ||
      o.max_order < 0 || o.max_order > 5)
    return fail_setup(sim, NULL, DIAGC_SIM_E_ARG,
                      "rtol and atol must be >= 0 and finite, max_order in "
                      "0..5");
  c = (cv_stepper *)calloc(1, sizeof *c);
  if (!c) return fail_setup(sim, NULL, DIAGC_SIM_E_NOMEM, "out of memory");
  c->m = m;
  c->ctx = diagc_sim_context(sim);
  c->n = m->nxc > 0 ? m->nxc : 1;
  c->rtol_opt = o.rtol;
  c->atol_opt = o.atol;
  c->rtol = c->atol = c->hmax = c->hmin = NAN;
  c->max_order = o.max_order > 0 ? o.max_order : 5;
  c->model_jac = so.jacobian == DIAGC_JACOBIAN_MODEL && m->jac_xc != NULL;
  if (c->model_jac && !pattern_ok(m))
    return fail_setup(sim, c, DIAGC_SIM_E_ARG,
                      "the model's Jacobian pattern is malformed");
  if (SUNContext_Create(NULL, &c->sctx) != 0)
    return fail_setup(sim, c, DIAGC_SIM_E_NOMEM, "out of memory");
  c->y = N_VNew_Serial(c->n, c->sctx);
  c->ewt = N_VNew_Serial(c->n, c->sctx);
  c->nz = (double *)calloc((size_t)(m->jac_xc_nnz > 0 ? m->jac_xc_nnz : 1),
                           sizeof(double));
  if (!c->y || !c->ewt || !c->nz)
    return fail_setup(sim, c, DIAGC_SIM_E_NOMEM, "out of memory");
  if (m->nxc > 0)
    memcpy(N_VGetArrayPointer(c->y), ctx_xc(c), (size_t)m->nxc * sizeof(double));
  else
    N_VConst(0, c->y);
  c->mem = CVodeCreate(CV_BDF, c->sctx);
  if (!c->mem) return fail_setup(sim, c, DIAGC_SIM_E_NOMEM, "out of memory");
  if (CVodeInit(c->mem, cv_rhs, ctx_time(c), c->y) != CV_SUCCESS ||
      CVodeSetUserData(c->mem, c) != CV_SUCCESS ||
      CVodeSetErrHandlerFn(c->mem, cv_err, c) != CV_SUCCESS ||
      CVodeSetMaxOrd(c->mem, c->max_order) != CV_SUCCESS ||
      CVodeSetMaxNumSteps(c->mem, -1) != CV_SUCCESS ||
      CVodeSStolerances(c->mem, 1e-4, 1e-4) != CV_SUCCESS)
    return fail_setup(sim, c, DIAGC_SIM_E_NOMEM, "CVODE setup failed");
  why = setup_linear_solver(c, which);
  if (why) return fail_setup(sim, c, DIAGC_SIM_E_ARG, why);
  if (!c->A || !c->LS)
    return fail_setup(sim, c, DIAGC_SIM_E_NOMEM, "out of memory");
  if (CVodeSetLinearSolver(c->mem, c->LS, c->A) != CVLS_SUCCESS)
    return fail_setup(sim, c, DIAGC_SIM_E_NOMEM, "CVODE linear solver setup failed");
  {
#ifdef DIAGC_CVODE_WITH_KLU
    CVLsJacFn jf = c->klu ? cv_jac_sparse : cv_jac_dense;
#else
    CVLsJacFn jf = cv_jac_dense;
#endif
    if (CVodeSetJacFn(c->mem, c->model_jac ? jf : cv_jac_dq) != CVLS_SUCCESS)
      return fail_setup(sim, c, DIAGC_SIM_E_ARG, "CVodeSetJacFn failed");
  }
  if (prime(c) != 0)
    return fail_setup(sim, c, DIAGC_SIM_E_ARG,
                      c->msg[0] ? c->msg : "CVODE's first step failed");
  st.name = DIAGC_CVODE_NAME;
  st.self = c;
  st.step = cv_step;
  st.destroy = cv_free;
  return diagc_sim_set_stepper(sim, &st);
}
