/* The bottom of the implicit methods (implicit.h): their workspace, the
 * Jacobian source (finite differences or a sparse Jacobian provided with
 * the model) and the dense LU.  Called by the methods, their Newton core
 * (newton.c) and integrators.c (the workspace); calls only the model
 * through the context and the error message (sim_internal.h). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

void diagc_implicit_free(diagc_implicit *w) {
  free(w->jac);
  free(w->iter_m);
  free(w->piv);
  free(w->iter_e);
  free(w->piv_e);
  free(w->z);
  free(w->perm);
  free(w->nz);
  w->jac = w->iter_m = w->iter_e = w->z = w->f = w->dz = w->nz = NULL;
  w->zp = w->xend = w->pb = w->wv = w->jac_x = NULL;
  w->perm = w->inv = w->deg = NULL;
  w->piv = w->piv_e = NULL;
  w->stages = 0;
  w->has_src = 0;
}

void diagc_implicit_reset(diagc_implicit *w) {
  w->jac_valid = 0;
  w->lu_h = w->lue_h = NAN;
  w->eta = 1.0;
  w->tend = NAN;
  w->jac_t = NAN;
  w->theta = 0;
  w->newton_fac = 0.5;
  w->newton_its = w->newton_failed = w->rejected = 0;
  w->hacc = NAN;
  w->erracc = 1;
}

/* Frees the matrices (not the sparse source's values). */
static void free_matrices(diagc_implicit *w) {
  double *nz = w->nz;
  int has_src = w->has_src;
  w->nz = NULL;
  diagc_implicit_free(w);
  w->nz = nz;
  w->has_src = has_src;
}

int diagc_implicit_alloc(diagc_sim *s, int stages) {
  diagc_implicit *w = &s->imp;
  const size_t n = (size_t)(s->nxc > 0 ? s->nxc : 1);
  const size_t ns = n * (size_t)stages;
  /* radau5 factors one real and one complex nxc x nxc matrix */
  const size_t nm = stages == 3 ? 3 * n * n : ns * ns;
  if (w->stages == stages) return 0;
  free_matrices(w);
  w->jac = (double *)calloc(n * n, sizeof(double));
  w->iter_m = (double *)calloc(nm, sizeof(double));
  w->piv = (int *)calloc(ns, sizeof(int));
  if (!w->jac || !w->iter_m || !w->piv) goto oom;
  if (stages == 2) {
    w->iter_e = (double *)calloc(n * n, sizeof(double));
    w->piv_e = (int *)calloc(n, sizeof(int));
    if (!w->iter_e || !w->piv_e) goto oom;
  }
  if (stages > 1) {
    w->z = (double *)calloc(6 * ns + 2 * n, sizeof(double));
    w->perm = (int *)calloc(3 * n, sizeof(int));
    if (!w->z || !w->perm) goto oom;
    w->inv = w->perm + n;
    w->deg = w->inv + n;
    w->f = w->z + ns;
    w->dz = w->f + ns;
    w->zp = w->dz + ns;
    w->xend = w->zp + ns;
    w->pb = w->xend + n;
    w->wv = w->pb + ns;
    w->jac_x = w->wv + ns;
  }
  w->stages = stages;
  diagc_implicit_reset(w);
  return 0;
oom:
  free_matrices(w);
  return DIAGC_SIM_E_NOMEM;
}

/* ---- the Jacobian source ----------------------------------------------- */

static int check_pattern(const diagc_sim *s, const diagc_xc_jacobian *j) {
  int c, k, n = s->nxc;
  if (!j->jac_xc || !j->colptr || j->nnz < 0 || (j->nnz > 0 && !j->rowind))
    return -1;
  if (j->colptr[0] != 0 || j->colptr[n] != j->nnz) return -1;
  for (c = 0; c < n; c++) {
    if (j->colptr[c + 1] < j->colptr[c]) return -1;
    for (k = j->colptr[c]; k < j->colptr[c + 1]; k++) {
      if (j->rowind[k] < 0 || j->rowind[k] >= n) return -1;
      if (k > j->colptr[c] && j->rowind[k] <= j->rowind[k - 1]) return -1;
    }
  }
  return 0;
}

int diagc_sim_set_xc_jacobian(diagc_sim *s, const diagc_xc_jacobian *jac) {
  diagc_implicit *w = &s->imp;
  free(w->nz);
  w->nz = NULL;
  w->has_src = 0;
  diagc_implicit_reset(w);
  if (!jac) return 0;
  if (check_pattern(s, jac) != 0) {
    diagc_sim_set_err(s, "invalid sparse Jacobian pattern (compressed "
                         "columns over %d states)", s->nxc);
    return DIAGC_SIM_E_ARG;
  }
  w->nz = (double *)calloc((size_t)(jac->nnz > 0 ? jac->nnz : 1),
                           sizeof(double));
  if (!w->nz) return DIAGC_SIM_E_NOMEM;
  w->src = *jac;
  w->has_src = 1;
  return 0;
}

/* Forward differences, one column per perturbed state (the step
 * sqrt(eps) max(1, |x_j|), rounded to a representable difference). */
static int jacobian_fd(diagc_sim *s, const double *f0) {
  int i, j, n = s->nxc, rc;
  const double sq = sqrt(DBL_EPSILON);
  double *xb = s->xb, *fx = s->fx, *jac = s->imp.jac;
  memcpy(xb, diagc_sim_xc(s), (size_t)n * sizeof(double));
  for (j = 0; j < n; j++) {
    const double xj = xb[j];
    double d = sq * (fabs(xj) > 1 ? fabs(xj) : 1);
    volatile double xp = xj + d; /* representable difference */
    d = xp - xj;
    xb[j] = xp;
    diagc_sim_put_xc(s, xb);
    if ((rc = diagc_sim_eval_xcdot(s, fx)) != 0) return rc;
    for (i = 0; i < n; i++) jac[(size_t)i * n + j] = (fx[i] - f0[i]) / d;
    xb[j] = xj;
  }
  diagc_sim_put_xc(s, xb);
  return 0;
}

/* The model's sparse Jacobian, scattered into the dense J. */
static int jacobian_sparse(diagc_sim *s) {
  const diagc_xc_jacobian *src = &s->imp.src;
  int c, k, n = s->nxc, rc;
  double *jac = s->imp.jac;
  rc = src->jac_xc(s->ctx, s->imp.nz);
  if (rc != 0) {
    diagc_sim_set_err(s, "the Jacobian of the derivatives failed (status %d)"
                         " at t = %.17g", rc, diagc_sim_ctx_time(s));
    return DIAGC_SIM_E_EVAL;
  }
  memset(jac, 0, (size_t)n * (size_t)n * sizeof(double));
  for (c = 0; c < n; c++)
    for (k = src->colptr[c]; k < src->colptr[c + 1]; k++)
      jac[(size_t)src->rowind[k] * n + c] = s->imp.nz[k];
  return 0;
}

int diagc_form_jacobian(diagc_sim *s, const double *f0) {
  s->st.jacobian_evals++;
  return s->imp.has_src ? jacobian_sparse(s) : jacobian_fd(s, f0);
}

/* ---- dense LU ------------------------------------------------------------ */

static void swap_rows(double *a, int n, int k, int p) {
  int j;
  for (j = 0; j < n; j++) {
    double t = a[(size_t)k * n + j];
    a[(size_t)k * n + j] = a[(size_t)p * n + j];
    a[(size_t)p * n + j] = t;
  }
}

int diagc_lu_factor(double *a, int n, int *piv) {
  int i, j, k;
  for (k = 0; k < n; k++) {
    int p = k;
    double best = fabs(a[(size_t)k * n + k]);
    for (i = k + 1; i < n; i++) {
      double v = fabs(a[(size_t)i * n + k]);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    piv[k] = p;
    if (!(best > 0) || !isfinite(best)) return -1;
    if (p != k) swap_rows(a, n, k, p);
    for (i = k + 1; i < n; i++) {
      double l = a[(size_t)i * n + k] / a[(size_t)k * n + k];
      a[(size_t)i * n + k] = l;
      if (l != 0)
        for (j = k + 1; j < n; j++) a[(size_t)i * n + j] -= l * a[(size_t)k * n + j];
    }
  }
  return 0;
}

void diagc_lu_solve(const double *a, int n, const int *piv, double *b) {
  int i, j;
  for (i = 0; i < n; i++) {
    int p = piv[i];
    if (p != i) {
      double t = b[i];
      b[i] = b[p];
      b[p] = t;
    }
  }
  for (i = 1; i < n; i++) {
    double acc = b[i];
    for (j = 0; j < i; j++) acc -= a[(size_t)i * n + j] * b[j];
    b[i] = acc;
  }
  for (i = n - 1; i >= 0; i--) {
    double acc = b[i];
    for (j = i + 1; j < n; j++) acc -= a[(size_t)i * n + j] * b[j];
    b[i] = acc / a[(size_t)i * n + i];
  }
}
