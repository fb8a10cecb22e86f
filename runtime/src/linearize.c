/* linearize.c: A, B, C, D of a generated model at an operating point
 * (diagc/linearize.h), from its generated d(xcdot, y) / d(xc, u) or by
 * central differences on a copy of the context; a sampled loop (xc under
 * one periodic discrete update) exactly in discrete time at its period,
 * the continuous part discretized by the matrix exponential (expm.c).
 * The evaluations and the Jacobian are shared with trim.c
 * (lin_internal.h). */
#include "diagc/linearize.h"

#include "lin_internal.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(int code, char *err, size_t errlen, const char *fmt, ...) {
  if (err && errlen > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return code;
}

void diagc_linearize_options_init(diagc_linearize_options *o) {
  if (!o) return;
  o->mode = DIAGC_LINEARIZE;
  o->input = DIAGC_LIN_ALL;
  o->output = DIAGC_LIN_ALL;
  o->jacobian = DIAGC_JACOBIAN_MODEL;
  o->equilibrium_tolerance = 1e-6;
}

static int port_range(int sel, int n, int *first, int *count) {
  if (sel == DIAGC_LIN_ALL) { *first = 0; *count = n; return 0; }
  if (sel == DIAGC_LIN_NONE) { *first = 0; *count = 0; return 0; }
  if (sel < 0 || sel >= n) return -1;
  *first = sel;
  *count = 1;
  return 0;
}

static int in_size(const diagc_model *m, int k) { return m->sources[m->lin_inputs[k]].size; }
static int out_size(const diagc_model *m, int k) { return m->outputs[m->lin_outputs[k]].size; }

/* What failed in an evaluation of the derivatives (or x[n+1]) and the
 * chosen outputs: the part, and its status */
typedef struct lin_fail {
  int part;   /* LF_DERIV, LF_UPDATE (event = the update), LF_OUTPUT (k = lin_outputs index) */
  int index;  /* the event or the output block */
  int status; /* the eval's status, or the update handler's (LF_UPDATE) */
} lin_fail;
enum { LF_DERIV, LF_UPDATE, LF_OUTPUT };

/* "name" or "name[i]" of element i of a port or group of `size` */
static void element(char *buf, size_t n, const char *name, int size, int i) {
  if (size == 1) snprintf(buf, n, "%s", name);
  else snprintf(buf, n, "%s[%d]", name, i);
}

/* the name of state element i (xc or xd), between `pre` and `post` */
static void state_name(const diagc_model *m, const lin_sel *s, int i, char *buf, size_t n,
                       const char *pre, const char *post) {
  int disc = i >= s->nc;
  const char *const *names = disc ? m->xd_names : m->xc_names;
  if (disc) i -= s->nc;
  if (names) snprintf(buf, n, "%s%s%s", pre, names[i], post);
  else snprintf(buf, n, "%s%s[%d]%s", pre, disc ? "xd" : "xc", i, post);
}

/* the name of row r of (xcdot or x[n+1], y): "d/dt pend.omega",
 * "ctl.x[n+1]", "theta", "y[1]" */
void diagc__lin_row_name(const diagc_model *m, const lin_sel *s, int r, char *buf, size_t n) {
  int k;
  if (r < s->nx) {
    if (r >= s->nc) state_name(m, s, r, buf, n, "", "[n+1]");
    else state_name(m, s, r, buf, n, "d/dt ", "");
    return;
  }
  r -= s->nx;
  for (k = s->out_first; k < s->out_first + s->out_count; k++) {
    int size = out_size(m, k);
    if (r < size) {
      const diagc_value_desc *o = &m->outputs[m->lin_outputs[k]];
      if (o->elements) snprintf(buf, n, "%s.%s", o->name, o->elements[r]);
      else element(buf, n, o->name, size, r);
      return;
    }
    r -= size;
  }
  snprintf(buf, n, "?");
}

/* the name of column c of (x, u): a state element or an input element */
void diagc__lin_col_name(const diagc_model *m, const lin_sel *s, int c, char *buf, size_t n) {
  int k;
  if (c < s->nx) {
    state_name(m, s, c, buf, n, "", "");
    return;
  }
  c -= s->nx;
  for (k = s->in_first; k < s->in_first + s->in_count; k++) {
    int size = in_size(m, k);
    if (c < size) {
      element(buf, n, m->sources[m->lin_inputs[k]].name, size, c);
      return;
    }
    c -= size;
  }
  snprintf(buf, n, "?");
}

/* "the derivatives failed with status -11 (...)" and the like */
static void fail_text(const diagc_model *m, const lin_sel *s, const lin_fail *f, char *buf, size_t n) {
  if (f->part == LF_UPDATE && f->status < 0)
    snprintf(buf, n, "the discrete update '%s' failed: %s", m->events[f->index].name,
             diagc_status_message(f->status));
  else if (f->part == LF_UPDATE)
    snprintf(buf, n, "the discrete update '%s' failed", m->events[f->index].name);
  else if (f->part == LF_OUTPUT)
    snprintf(buf, n, "output '%s' failed with status %d (%s)", m->outputs[m->lin_outputs[f->index]].name,
             f->status, diagc_status_message(f->status));
  else
    snprintf(buf, n, "the %s failed with status %d (%s)", s->nc == 0 ? "discrete update" : "derivatives",
             f->status, diagc_status_message(f->status));
}

/* "NaN", "inf", "-inf" */
static const char *nonfinite_text(double v) { return isnan(v) ? "NaN" : v > 0 ? "inf" : "-inf"; }

int diagc__lin_select(const diagc_model *m, int input, int output, lin_sel *s) {
  int k;
  memset(s, 0, sizeof *s);
  if (port_range(input, m->n_lin_inputs, &s->in_first, &s->in_count) != 0) return -1;
  if (port_range(output, m->n_lin_outputs, &s->out_first, &s->out_count) != 0) return -1;
  s->discrete = m->lin_time_period > 0 && m->nxc == 0;
  s->sampled = m->lin_time_period > 0 && m->nxc > 0 && m->nxd > 0;
  s->nc = s->discrete ? 0 : m->nxc;
  s->nd = s->discrete || s->sampled ? m->nxd : 0;
  s->nx = s->nc + s->nd;
  s->col0 = s->nx;
  s->row0 = s->sampled ? s->nc : s->nx; /* jac_lin's state rows: xcdot, or x[n+1] */
  for (k = 0; k < s->in_first; k++) s->col0 += in_size(m, k);
  for (k = 0; k < s->out_first; k++) s->row0 += out_size(m, k);
  for (k = s->in_first; k < s->in_first + s->in_count; k++) s->nu += in_size(m, k);
  for (k = s->out_first; k < s->out_first + s->out_count; k++) s->ny += out_size(m, k);
  return 0;
}

int diagc_linearize_sizes(const diagc_model *m, const diagc_linearize_options *o, int *nx,
                          int *nu, int *ny) {
  diagc_linearize_options d;
  lin_sel s;
  if (!m) return DIAGC_LIN_E_ARG;
  if (!o) { diagc_linearize_options_init(&d); o = &d; }
  if (diagc__lin_select(m, o->input, o->output, &s) != 0) return DIAGC_LIN_E_ARG;
  if (nx) *nx = s.nx;
  if (nu) *nu = s.nu;
  if (ny) *ny = s.ny;
  return DIAGC_OK;
}

/* ------------------------------------------------------------------ */
/* values at a context: xcdot or x[n+1] (nx), then the chosen outputs (ny) */

/* x[n+1]: every discrete update handler reads the context and writes its
   groups into one state block preloaded with the state (Drake's unique
   periodic update of a diagram) */
static int next_state(const diagc_model *m, void *ctx, const lin_sel *s, double *f, lin_fail *why) {
  int i;
  memcpy(s->sbuf, (const char *)ctx + m->state_offset, m->state_size);
  for (i = 0; i < m->n_events; i++) {
    const diagc_event_desc *e = &m->events[i];
    int st;
    if (e->kind != DIAGC_DISCRETE_UPDATE) continue;
    st = e->handler(ctx, s->sbuf);
    /* as the simulator: any status outside DID_NOTHING .. FAILED fails */
    if (st < DIAGC_DID_NOTHING || st >= DIAGC_FAILED) {
      why->part = LF_UPDATE;
      why->index = i;
      why->status = st; /* < 0: the handler's reason (diagc/model.h) */
      return -1;
    }
  }
  memcpy(f, (const char *)s->sbuf + (m->xd_offset - m->state_offset), (size_t)s->nd * sizeof(double));
  return 0;
}

/* f = (xcdot (nc), x[n+1] of xd (nd)), y = the chosen outputs */
static int eval_point(const diagc_model *m, void *ctx, const lin_sel *s, double *f, double *y,
                      lin_fail *why) {
  const double *v = NULL;
  int k, off = 0, rc;
  if (s->nc > 0) {
    rc = m->calc_derivatives(ctx, &v);
    if (rc != DIAGC_OK || !v) {
      why->part = LF_DERIV;
      why->status = rc != DIAGC_OK ? rc : DIAGC_E_CALC;
      return -1;
    }
    memcpy(f, v, (size_t)s->nc * sizeof(double));
  }
  if (s->nd > 0 && next_state(m, ctx, s, f + s->nc, why) != 0) return -1;
  for (k = s->out_first; k < s->out_first + s->out_count; k++) {
    int n = out_size(m, k);
    rc = m->eval_output(ctx, m->lin_outputs[k], &v);
    if (rc != DIAGC_OK || (n > 0 && !v)) {
      why->part = LF_OUTPUT;
      why->index = k;
      why->status = rc != DIAGC_OK ? rc : DIAGC_E_CALC;
      return -1;
    }
    if (n > 0) memcpy(y + off, v, (size_t)n * sizeof(double));
    off += n;
  }
  return 0;
}

/* the first non-finite element of v[0 .. n), or -1 */
static long first_nonfinite(const double *v, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    if (!isfinite(v[i])) return (long)i;
  return -1;
}

/* the chosen inputs' values, in column order */
static void read_inputs(const diagc_model *m, const void *ctx, const lin_sel *s, double *u) {
  int k, off = 0;
  for (k = s->in_first; k < s->in_first + s->in_count; k++) {
    const diagc_source_desc *src = &m->sources[m->lin_inputs[k]];
    memcpy(u + off, (const char *)ctx + src->offset, (size_t)src->size * sizeof(double));
    off += src->size;
  }
}

/* the state x = (xc (nc), xd (nd)) */
static void read_state(const diagc_model *m, const void *ctx, const lin_sel *s, double *x) {
  if (s->nc) memcpy(x, (const char *)ctx + m->xc_offset, (size_t)s->nc * sizeof(double));
  if (s->nd) memcpy(x + s->nc, (const char *)ctx + m->xd_offset, (size_t)s->nd * sizeof(double));
}

void diagc__lin_read(const diagc_model *m, const void *ctx, const lin_sel *s, double *x, double *u) {
  read_state(m, ctx, s, x);
  read_inputs(m, ctx, s, u);
}

void diagc__lin_write(const diagc_model *m, void *ctx, const lin_sel *s, const double *x,
                      const double *u) {
  int k, off = 0;
  if (s->nc) m->set_xc(ctx, x);
  if (s->nd) {
    memcpy((char *)ctx + m->xd_offset, x + s->nc, (size_t)s->nd * sizeof(double));
    m->invalidate_all(ctx);
  }
  for (k = s->in_first; k < s->in_first + s->in_count; k++) {
    m->set_source(ctx, m->lin_inputs[k], u + off);
    off += in_size(m, k);
  }
}

/* ------------------------------------------------------------------ */
/* the Jacobian of (xcdot, y) by columns: J[row * ncols + col], rows nx + ny,
   columns nx + nu (the chosen ones) */

/* jac_lin's rows (xcdot or x[n+1], then the outputs) and, for a sampled
   loop, jac_update0's xd rows, into J's rows (f, y) */
static int jac_model(const diagc_model *m, void *ctx, const lin_sel *s, double *J, char *err,
                     size_t errlen) {
  int ncols = s->nx + s->nu, col, k, rc;
  const diagc_jac_update_desc *up = s->sampled ? &m->jac_updates[0] : NULL;
  int nnz = m->jac_lin_nnz > (up ? up->nnz : 0) ? m->jac_lin_nnz : (up ? up->nnz : 0);
  double *nz = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(double));
  int lin_rows = s->sampled ? s->nc : s->nx, out0 = s->row0;
  if (!nz) return fail(DIAGC_LIN_E_NOMEM, err, errlen, "out of memory");
  if ((rc = m->jac_lin(ctx, nz)) != DIAGC_OK) {
    free(nz);
    return fail(DIAGC_LIN_E_EVAL, err, errlen, "the model's generated Jacobian (jac_lin) failed with "
                "status %d (%s) at the operating point", rc, diagc_status_message(rc));
  }
  for (col = 0; col < ncols; col++) {
    int jc = col < s->nx ? col : s->col0 + (col - s->nx);
    for (k = m->jac_lin_colptr[jc]; k < m->jac_lin_colptr[jc + 1]; k++) {
      int r = m->jac_lin_rowind[k];
      if (r < lin_rows) J[r * ncols + col] = nz[k];
      else if (r >= out0 && r < out0 + s->ny) J[(s->nx + r - out0) * ncols + col] = nz[k];
    }
  }
  if (up && (rc = up->jac(ctx, nz)) != DIAGC_OK) {
    free(nz);
    return fail(DIAGC_LIN_E_EVAL, err, errlen, "the model's generated Jacobian of its update (%s) "
                "failed with status %d (%s) at the operating point", up->name, rc, diagc_status_message(rc));
  }
  for (col = 0; up && col < ncols; col++) { /* rows xc then xd, columns xc, xd, u */
    int jc = col < s->nx ? col : s->col0 + (col - s->nx);
    for (k = up->colptr[jc]; k < up->colptr[jc + 1]; k++) {
      int r = up->rowind[k];
      if (r >= s->nc && r < s->nx) J[r * ncols + col] = nz[k];
    }
  }
  free(nz);
  return DIAGC_OK;
}

/* the copy `work` of ctx with column col moved by h; values into f, y */
static int eval_moved(const diagc_model *m, const void *ctx, void *work, const lin_sel *s,
                      int col, double h, double *vec, double *f, double *y, lin_fail *why) {
  memcpy(work, ctx, m->context_size);
  if (col < s->nx && col >= s->nc) {
    ((double *)(void *)((char *)work + m->xd_offset))[col - s->nc] += h;
    m->invalidate_all(work);
  } else if (col < s->nx) {
    memcpy(vec, (const char *)ctx + m->xc_offset, (size_t)s->nc * sizeof(double));
    vec[col] += h;
    m->set_xc(work, vec);
  } else {
    int k = s->in_first, j = col - s->nx;
    while (j >= in_size(m, k)) j -= in_size(m, k++);
    const diagc_source_desc *src = &m->sources[m->lin_inputs[k]];
    memcpy(vec, (const char *)ctx + src->offset, (size_t)src->size * sizeof(double));
    vec[j] += h;
    m->set_source(work, m->lin_inputs[k], vec);
  }
  return eval_point(m, work, s, f, y, why);
}

/* central differences, h = cbrt(eps) * max(1, |value|) */
static int jac_fd(const diagc_model *m, void *ctx, const lin_sel *s, const double *x0,
                  const double *u0, double *J, char *err, size_t errlen) {
  int ncols = s->nx + s->nu, nrows = s->nx + s->ny, col, r, rc = DIAGC_OK;
  size_t nvec = (size_t)(s->nx > s->nu ? s->nx : s->nu) + 1;
  void *work = malloc(m->context_size);
  double *buf = malloc((2 * (size_t)nrows + nvec) * sizeof(double));
  if (!work || !buf) {
    free(work);
    free(buf);
    return fail(DIAGC_LIN_E_NOMEM, err, errlen, "out of memory");
  }
  double *plus = buf, *minus = buf + nrows, *vec = buf + 2 * nrows;
  for (col = 0; col < ncols && rc == DIAGC_OK; col++) {
    double v = col < s->nx ? x0[col] : u0[col - s->nx];
    double h = cbrt(DBL_EPSILON) * fmax(1.0, fabs(v));
    lin_fail why;
    int side = 1;
    if (eval_moved(m, ctx, work, s, col, h, vec, plus, plus + s->nx, &why) != 0 ||
        (side = -1, eval_moved(m, ctx, work, s, col, -h, vec, minus, minus + s->nx, &why) != 0)) {
      char what[300], cn[200];
      fail_text(m, s, &why, what, sizeof what);
      diagc__lin_col_name(m, s, col, cn, sizeof cn);
      rc = fail(DIAGC_LIN_E_EVAL, err, errlen, "%s at the operating point with %s moved by %.3g "
                "(central differences)", what, cn, side * h);
      break;
    }
    for (r = 0; r < nrows; r++) J[r * ncols + col] = (plus[r] - minus[r]) / (2 * h);
  }
  free(work);
  free(buf);
  return rc;
}

/* ------------------------------------------------------------------ */

static void split(const lin_sel *s, const double *J, diagc_linear_system *out) {
  int ncols = s->nx + s->nu, i, j;
  for (i = 0; i < s->nx + s->ny; i++) {
    for (j = 0; j < ncols; j++) {
      double v = J[i * ncols + j];
      if (i < s->nx && j < s->nx) out->A[i * s->nx + j] = v;
      else if (i < s->nx) out->B[i * s->nu + (j - s->nx)] = v;
      else if (j < s->nx) out->C[(i - s->nx) * s->nx + j] = v;
      else out->D[(i - s->nx) * s->nu + (j - s->nx)] = v;
    }
  }
}

/* f0, y0 of the chosen mode from xcdot0 = f0, y(x0, u0) = y0 on entry */
static void affine_terms(const lin_sel *s, int mode, diagc_linear_system *out) {
  int i, j;
  if (mode == DIAGC_LINEARIZE) {
    for (i = 0; i < s->nx; i++) out->f0[i] = 0.0;
    return;
  }
  for (i = 0; i < s->nx; i++) {
    for (j = 0; j < s->nx; j++) out->f0[i] -= out->A[i * s->nx + j] * out->x0[j];
    for (j = 0; j < s->nu; j++) out->f0[i] -= out->B[i * s->nu + j] * out->u0[j];
  }
  for (i = 0; i < s->ny; i++) {
    for (j = 0; j < s->nx; j++) out->y0[i] -= out->C[i * s->nx + j] * out->x0[j];
    for (j = 0; j < s->nu; j++) out->y0[i] -= out->D[i * s->nu + j] * out->u0[j];
  }
}

static int check_model(const diagc_model *m, const lin_sel *s, int jacobian, char *err,
                       size_t errlen);

static int check_args(const diagc_model *m, void *ctx, const diagc_linearize_options *o,
                      const diagc_linear_system *out, const lin_sel *s, char *err, size_t errlen) {
  if (o->mode != DIAGC_LINEARIZE && o->mode != DIAGC_FIRST_ORDER_TAYLOR)
    return fail(DIAGC_LIN_E_ARG, err, errlen, "unknown mode %d", o->mode);
  if (o->jacobian != DIAGC_JACOBIAN_MODEL && o->jacobian != DIAGC_JACOBIAN_FD)
    return fail(DIAGC_LIN_E_ARG, err, errlen, "unknown jacobian %d", o->jacobian);
  if (out->nx != s->nx || out->nu != s->nu || out->ny != s->ny)
    return fail(DIAGC_LIN_E_ARG, err, errlen, "sizes %d, %d, %d given, %d, %d, %d needed", out->nx,
                out->nu, out->ny, s->nx, s->nu, s->ny);
  if ((s->nx && (!out->A || !out->f0 || !out->x0)) || (s->nx && s->nu && !out->B) ||
      (s->ny && s->nx && !out->C) || (s->ny && s->nu && !out->D) || (s->ny && !out->y0) ||
      (s->nu && !out->u0) || !ctx)
    return fail(DIAGC_LIN_E_ARG, err, errlen, "an array of nonzero size is NULL");
  if (s->sampled && o->mode != DIAGC_LINEARIZE)
    return fail(DIAGC_LIN_E_MODEL, err, errlen,
                "model %s is a sampled loop (continuous state under a periodic discrete update): "
                "it is linearized at an equilibrium only (mode linearize; diagc trim finds one), "
                "first_order_taylor is not available", m->name);
  return check_model(m, s, o->jacobian, err, errlen);
}

static int check_model(const diagc_model *m, const lin_sel *s, int jacobian, char *err,
                       size_t errlen) {
  for (int i = 0; i < m->n_sources; i++)
    if ((m->sources[i].kind == DIAGC_SRC_XD && s->nd == 0) || m->sources[i].kind == DIAGC_SRC_XA)
      return fail(DIAGC_LIN_E_MODEL, err, errlen,
                  "model %s has %s state (%s): only purely continuous models, purely discrete ones "
                  "and continuous ones under one periodic discrete update (one period and offset, no "
                  "other event writing state) can be linearized", m->name,
                  m->sources[i].kind == DIAGC_SRC_XA ? "abstract" : "discrete", m->sources[i].name);
  if (jacobian == DIAGC_JACOBIAN_MODEL && !m->jac_lin)
    return fail(DIAGC_LIN_E_MODEL, err, errlen,
                "model %s has no generated Jacobian (a calc is outside the differentiable "
                "subset): use finite differences", m->name);
  if (jacobian == DIAGC_JACOBIAN_MODEL && s->sampled &&
      (m->n_jac_updates < 1 || !m->jac_updates[0].jac))
    return fail(DIAGC_LIN_E_MODEL, err, errlen,
                "model %s has no generated Jacobian of its periodic update (a calc is outside the "
                "differentiable subset): use finite differences", m->name);
  return DIAGC_OK;
}

/* continuous: xcdot = f0 must vanish; discrete: x[n+1] = f0 must equal x0 */
static int check_equilibrium(const diagc_model *m, const lin_sel *s, double tol,
                             const double *f0, const double *x0, char *err, size_t errlen) {
  int i, worst = -1;
  double dw = 0;
  char name[200];
  for (i = 0; i < s->nx; i++) {
    double d = i >= s->nc ? f0[i] - x0[i] : f0[i];
    if (!(fabs(d) <= tol) && (worst < 0 || fabs(d) > dw)) worst = i, dw = fabs(d);
  }
  if (worst < 0) return DIAGC_OK;
  if (worst >= s->nc) {
    state_name(m, s, worst, name, sizeof name, "", "");
    return fail(DIAGC_LIN_E_EQUILIBRIUM, err, errlen,
                "not an equilibrium: %s[n+1] - %s[n] = %.9g (tolerance %g); linearize needs "
                "x[n+1] = x[n]%s", name, name, f0[worst] - x0[worst], tol,
                s->sampled ? " and xcdot = 0 (diagc trim finds such a point)"
                           : ", first_order_taylor works at any point");
  }
  state_name(m, s, worst, name, sizeof name, "", "");
  return fail(DIAGC_LIN_E_EQUILIBRIUM, err, errlen,
              "not an equilibrium: d/dt %s = %.9g (tolerance %g); linearize needs xcdot = 0%s",
              name, f0[worst], tol, s->sampled ? " and x[n+1] = x[n] (diagc trim finds such a point)"
                                              : ", first_order_taylor works at any point");
}

/* A sampled loop's raw J = d(xcdot, xd+, y) / d(xc, xd, u) at an
   equilibrium into the map from just before one update to just before the
   next, h later: xd+ = xd + Gc dxc + Gd dxd + Gu du at the update; then xc
   follows xcdot = Ac xc + Ad xd+ + Bc u for h with xd+ and u held, so
   exp(h [[Ac, Ad, Bc], [0, 0, 0]]) = [[Phi, Gam_d, Gam_u], [0, I, 0]] and
   xc[n+1] = Phi xc + Gam_d xd+ + Gam_u u.  The xd rows stay G; the xc rows
   become (Phi, 0, Gam_u) + Gam_d G. */
static int discretize(const lin_sel *s, double h, double *J, char *err, size_t errlen) {
  int nc = s->nc, nx = s->nx, n = s->nx + s->nu, i, j, k, rc;
  double *M = calloc(2 * (size_t)n * (size_t)n + 1, sizeof(double)), *E = M + (size_t)n * n;
  if (!M) return fail(DIAGC_LIN_E_NOMEM, err, errlen, "out of memory");
  for (i = 0; i < nc; i++)
    for (j = 0; j < n; j++) M[i * n + j] = h * J[i * n + j];
  if ((rc = diagc_expm(n, M, E)) != DIAGC_OK) {
    free(M);
    return fail(DIAGC_LIN_E_EVAL, err, errlen, "the matrix exponential of the continuous part over "
                "the period %g failed (%s)", h, diagc_status_message(rc));
  }
  for (i = 0; i < nc; i++)
    for (j = 0; j < n; j++) {
      double v = (j < nc || j >= nx) ? E[i * n + j] : 0.0;
      for (k = nc; k < nx; k++) v += E[i * n + k] * J[k * n + j];
      J[i * n + j] = v;
    }
  free(M);
  return DIAGC_OK;
}

int diagc__lin_values(const diagc_model *m, void *ctx, const lin_sel *s, double *f, double *y,
                      char *err, size_t errlen) {
  lin_fail why;
  char what[300], rn[200];
  if (eval_point(m, ctx, s, f, y, &why) != 0) {
    fail_text(m, s, &why, what, sizeof what);
    return fail(DIAGC_LIN_E_EVAL, err, errlen, "%s", what);
  }
  for (int i = 0; i < s->nx + s->ny; i++) {
    double v = i < s->nx ? f[i] : y[i - s->nx];
    if (isfinite(v)) continue;
    diagc__lin_row_name(m, s, i, rn, sizeof rn);
    return fail(DIAGC_LIN_E_EVAL, err, errlen, "%s is %s", rn, nonfinite_text(v));
  }
  return DIAGC_OK;
}

int diagc__lin_jacobian(const diagc_model *m, void *ctx, const lin_sel *s, int jacobian,
                        const double *x0, const double *u0, double *J, char *err, size_t errlen) {
  size_t nrows = (size_t)(s->nx + s->ny), ncols = (size_t)(s->nx + s->nu);
  long bad;
  char rn[200], cn[200];
  int rc;
  memset(J, 0, nrows * ncols * sizeof(double));
  rc = jacobian == DIAGC_JACOBIAN_MODEL ? jac_model(m, ctx, s, J, err, errlen)
                                        : jac_fd(m, ctx, s, x0, u0, J, err, errlen);
  /* a non-finite entry (the model is not differentiable there, e.g.
     sqrt or log at 0, or differences across a jump) is an error naming it */
  if (rc == DIAGC_OK && (bad = first_nonfinite(J, nrows * ncols)) >= 0) {
    int r = (int)(bad / (long)ncols), c = (int)(bad % (long)ncols);
    diagc__lin_row_name(m, s, r, rn, sizeof rn);
    diagc__lin_col_name(m, s, c, cn, sizeof cn);
    rc = fail(DIAGC_LIN_E_EVAL, err, errlen, "the entry d(%s)/d(%s) of %s is %s at the operating point "
              "(from %s): the model is not differentiable there", rn, cn,
              r < s->nx ? (c < s->nx ? "A" : "B") : (c < s->nx ? "C" : "D"), nonfinite_text(J[bad]),
              jacobian == DIAGC_JACOBIAN_MODEL ? "the model's generated Jacobian" : "central differences");
  }
  return rc;
}

int diagc__lin_open(const diagc_model *m, lin_sel *s) {
  s->sbuf = NULL;
  if (s->nd && !(s->sbuf = malloc(m->state_size ? m->state_size : 1))) return DIAGC_LIN_E_NOMEM;
  return DIAGC_OK;
}

void diagc__lin_close(lin_sel *s) {
  free(s->sbuf);
  s->sbuf = NULL;
}

static int linearize_at(const diagc_model *m, void *ctx, const diagc_linearize_options *o,
                        lin_sel *sp, diagc_linear_system *out, char *err, size_t errlen) {
  const lin_sel s = *sp;
  int rc;
  char rn[200];
  read_state(m, ctx, &s, out->x0);
  read_inputs(m, ctx, &s, out->u0);
  if ((rc = diagc__lin_values(m, ctx, &s, out->f0, out->y0, err, errlen)) != DIAGC_OK) {
    size_t k = err ? strlen(err) : 0;
    if (err && k + 1 < errlen) snprintf(err + k, errlen - k, " at the operating point");
    return rc;
  }
  if (o->mode == DIAGC_LINEARIZE &&
      (rc = check_equilibrium(m, &s, o->equilibrium_tolerance, out->f0, out->x0, err, errlen)) != DIAGC_OK)
    return rc;
  size_t nrows = (size_t)(s.nx + s.ny), ncols = (size_t)(s.nx + s.nu);
  double *J = calloc(nrows * ncols + 1, sizeof(double));
  if (!J) return fail(DIAGC_LIN_E_NOMEM, err, errlen, "out of memory");
  rc = diagc__lin_jacobian(m, ctx, &s, o->jacobian, out->x0, out->u0, J, err, errlen);
  if (rc == DIAGC_OK && s.sampled) rc = discretize(&s, m->lin_time_period, J, err, errlen);
  if (rc == DIAGC_OK) {
    split(&s, J, out);
    affine_terms(&s, o->mode, out);
    for (int i = 0; i < s.nx + s.ny && rc == DIAGC_OK; i++) {
      double v = i < s.nx ? out->f0[i] : out->y0[i - s.nx];
      if (isfinite(v)) continue;
      diagc__lin_row_name(m, &s, i, rn, sizeof rn);
      rc = fail(DIAGC_LIN_E_EVAL, err, errlen, "the affine term %s of %s overflows (%s): the operating "
                "point is too far from the origin", i < s.nx ? "f0" : "y0", rn, nonfinite_text(v));
    }
  }
  free(J);
  return rc;
}

int diagc_linearize(const diagc_model *m, void *ctx, const diagc_linearize_options *o,
                    diagc_linear_system *out, char *err, size_t errlen) {
  diagc_linearize_options d;
  lin_sel s;
  int rc;
  if (err && errlen) err[0] = '\0';
  if (!m || !out) return fail(DIAGC_LIN_E_ARG, err, errlen, "model or output missing");
  if (!o) { diagc_linearize_options_init(&d); o = &d; }
  if (diagc__lin_select(m, o->input, o->output, &s) != 0)
    return fail(DIAGC_LIN_E_ARG, err, errlen, "no input port %d / output port %d", o->input, o->output);
  if ((rc = check_args(m, ctx, o, out, &s, err, errlen)) != DIAGC_OK) return rc;
  out->time_period = s.discrete || s.sampled ? m->lin_time_period : 0.0;
  if (diagc__lin_open(m, &s) != DIAGC_OK) return fail(DIAGC_LIN_E_NOMEM, err, errlen, "out of memory");
  rc = linearize_at(m, ctx, o, &s, out, err, errlen);
  diagc__lin_close(&s);
  return rc;
}
