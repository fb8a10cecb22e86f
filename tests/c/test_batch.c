/* diagc_batch (diagc/batch.h): a batch is N single runs.
 *
 *   - A forced spring (q' = v, v' = -k q + u, k a parameter, u an input
 *     sequence, error-controlled runge_kutta3 and radau5): every run's
 *     log, status, end time and final state are bit for bit those of a
 *     fresh simulator running it alone (the reference below, written
 *     against diagc/simulator.h only), with 1, 2 and 4 threads, and a
 *     second job on the same batch gives the same again (no history
 *     kept between runs).
 *   - Failures stay in their run: a NaN initial state (NONFINITE), a step
 *     budget (max_steps) and too many rows (BATCH_E_ROWS), the other runs
 *     unchanged.
 *   - VJP on x+ = a x + b u (one periodic update with its Jacobian):
 *     grad_state = a^K lambda, grad_inputs[k] = b a^(K-1-k) lambda,
 *     analytically.
 *   - Bad jobs are refused before anything runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagc/batch.h"
#include "models/check.h"
#include "models/forced_spring.h"

/* ---- x+ = a x + b u, h = 0.1 -------------------------------------------- */
#define LA 0.9
#define LB 0.5
typedef struct ln_ctx {
  double t, accuracy;
  double xd[1];
  double u;
  double y[1];
} ln_ctx;
static void ln_init(void *c) {
  memset(c, 0, sizeof(ln_ctx));
  ((ln_ctx *)c)->accuracy = 1e-4;
  ((ln_ctx *)c)->xd[0] = 1;
}
static void ln_set_time(void *c, double t) { ((ln_ctx *)c)->t = t; }
static void ln_set_state(void *c, const void *st) { memcpy(((ln_ctx *)c)->xd, st, sizeof(double)); }
static int ln_eval_output(void *c, int i, const double **v) {
  ln_ctx *x = (ln_ctx *)c;
  if (i != 0) return DIAGC_E_INDEX;
  x->y[0] = x->xd[0];
  *v = x->y;
  return DIAGC_OK;
}
static int ln_update(void *c, void *buf) {
  const ln_ctx *x = (const ln_ctx *)c;
  ((double *)buf)[0] = LA * x->xd[0] + LB * x->u;
  return DIAGC_SUCCEEDED;
}
static void ln_apply(void *c, const void *buf) { memcpy(((ln_ctx *)c)->xd, buf, sizeof(double)); }
static void ln_set_source(void *c, int i, const void *v) {
  if (i == 0) memcpy(((ln_ctx *)c)->xd, v, sizeof(double));
  if (i == 1) memcpy(&((ln_ctx *)c)->u, v, sizeof(double));
}
static int ln_jac(void *c, double *nz) {
  (void)c;
  nz[0] = LA;
  nz[1] = LB;
  return DIAGC_OK;
}
static const int ln_colptr[] = {0, 1, 2};
static const int ln_rowind[] = {0, 0};
static const char *const ln_xd_names[] = {"l.x[0]"};
static const char *const ln_leaf_names[] = {"l"};
static const diagc_value_desc ln_outputs[] = {{"l.y", 1, NULL}};
static const diagc_source_desc ln_sources[] = {
    {"l.x", DIAGC_SRC_XD, 1, offsetof(ln_ctx, xd), sizeof(double)},
    {"u", DIAGC_SRC_INPUT, 1, offsetof(ln_ctx, u), sizeof(double)}};
static const int ln_lin_inputs[] = {1};
static const diagc_event_desc ln_events[] = {
    {"l.update", 0, DIAGC_TRIGGER_PERIODIC, DIAGC_DISCRETE_UPDATE, 0.1, 0., ln_update, ln_apply}};
static const diagc_logger_desc ln_loggers[] = {{"l.y", 0, 1, 0.1}};
static const diagc_jac_update_desc ln_jac_updates[] = {
    {"jac_update0", 0.1, 0., 1, 2, 2, ln_colptr, ln_rowind, ln_jac}};
static const diagc_model ln_model = {
    .abi_version = DIAGC_ABI_VERSION, .name = "ln", .context_size = sizeof(ln_ctx),
    .state_offset = offsetof(ln_ctx, xd), .state_size = sizeof(double),
    .time_offset = offsetof(ln_ctx, t), .xc_offset = offsetof(ln_ctx, xd),
    .xd_offset = offsetof(ln_ctx, xd), .nxd = 1, .xd_names = ln_xd_names,
    .n_leaves = 1, .leaf_names = ln_leaf_names, .n_outputs = 1, .outputs = ln_outputs,
    .n_sources = 2, .sources = ln_sources, .n_events = 1, .events = ln_events,
    .n_loggers = 1, .loggers = ln_loggers, .default_accuracy = 1e-4,
    .init = ln_init, .set_time = ln_set_time, .set_accuracy = sp_set_accuracy,
    .set_state = ln_set_state, .set_caching = sp_nop_int, .freeze_cache = sp_nop_int,
    .invalidate_all = sp_nop, .set_source = ln_set_source, .eval_output = ln_eval_output,
    .n_lin_inputs = 1, .lin_inputs = ln_lin_inputs,
    .n_jac_updates = 1, .jac_updates = ln_jac_updates,
};

/* ---- the reference: one fresh simulator per run ------------------------- */
enum { N = 23, ROWS = 150, NS = 5 };
#define T_FINAL 2.0
#define PERIOD 0.3

typedef struct out {
  double t[N * ROWS], v[N * ROWS * 2], end[N], fs[N * 2];
  int rows[N], status[N];
  char msg[N * DIAGC_BATCH_MESSAGE];
} out;

typedef struct ref_log {
  out *o;
  int run, n;
} ref_log;
static void ref_row(void *user, double t, const unsigned char *fired, const double *const *values) {
  ref_log *r = (ref_log *)user;
  if (r->n < ROWS) {
    size_t row = (size_t)r->run * ROWS + (size_t)r->n;
    r->o->t[row] = t;
    r->o->v[2 * row] = fired[0] ? values[0][0] : NAN;
    r->o->v[2 * row + 1] = fired[0] ? values[0][1] : NAN;
  }
  r->n++;
}

static double set_vals[N * 2], seq_vals[N * NS];
static const int SET[] = {2, 0}, SEQ[] = {3};

static void reference(const diagc_sim_options *opt, out *o) {
  int i, k;
  memset(o, 0, sizeof *o);
  for (i = 0; i < N; i++) {
    diagc_sim *s = diagc_sim_create(&sp_model, opt);
    void *ctx = diagc_sim_context(s);
    ref_log r = {o, i, 0};
    int rc;
    diagc_sim_set_log_callback(s, ref_row, &r);
    sp_model.set_source(ctx, 2, &set_vals[2 * i]);
    sp_model.set_source(ctx, 0, &set_vals[2 * i + 1]);
    sp_model.set_source(ctx, 3, &seq_vals[NS * i]);
    rc = diagc_sim_initialize(s);
    for (k = 1; rc == 0 && k < NS && k * PERIOD < T_FINAL; k++) {
      rc = diagc_sim_advance_to(s, k * PERIOD);
      if (rc == 0) sp_model.set_source(ctx, 3, &seq_vals[NS * i + k]);
    }
    if (rc == 0) rc = diagc_sim_advance_to(s, T_FINAL);
    if (rc == 0 && r.n > ROWS) rc = DIAGC_BATCH_E_ROWS;
    o->rows[i] = r.n < ROWS ? r.n : ROWS;
    o->status[i] = rc;
    o->end[i] = diagc_sim_time(s);
    memcpy(&o->fs[2 * i], (char *)ctx + sp_model.xc_offset, 2 * sizeof(double));
    diagc_sim_destroy(s);
  }
}

static int run_batch(const diagc_sim_options *opt, int jobs, out *o, int times) {
  char err[256];
  diagc_batch *b = diagc_batch_create(&sp_model, opt, jobs, err, sizeof err);
  diagc_batch_job j;
  int rc = 0, n;
  if (!b) {
    printf("FAIL batch_create: %s\n", err);
    return -1;
  }
  memset(&j, 0, sizeof j);
  j.n_runs = N;
  j.t_final = T_FINAL;
  j.n_set = 2; j.set = SET; j.set_values = set_vals;
  j.n_seq = 1; j.seq = SEQ; j.n_samples = NS; j.sample_period = PERIOD; j.seq_values = seq_vals;
  j.max_rows = ROWS; j.t = o->t; j.values = o->v; j.rows = o->rows;
  j.status = o->status; j.messages = o->msg; j.end_time = o->end; j.final_state = o->fs;
  for (n = 0; n < times && rc == 0; n++) {
    memset(o, 0, sizeof *o);
    rc = diagc_batch_run(b, &j, err, sizeof err);
  }
  if (rc) printf("FAIL batch_run: %s\n", err);
  diagc_batch_destroy(b);
  return rc;
}

static int same(const out *a, const out *b) {
  int i;
  for (i = 0; i < N; i++)
    if (a->rows[i] != b->rows[i] || a->status[i] != b->status[i] || a->end[i] != b->end[i] ||
        memcmp(a->t + i * ROWS, b->t + i * ROWS, ROWS * sizeof(double)) ||
        memcmp(a->fs + 2 * i, b->fs + 2 * i, 2 * sizeof(double))) {
      printf("run %d: rows %d/%d status %d/%d end %.17g/%.17g fs %.17g/%.17g\n", i, a->rows[i],
             b->rows[i], a->status[i], b->status[i], a->end[i], b->end[i], a->fs[2 * i], b->fs[2 * i]);
      break;
    }
  return memcmp(a->t, b->t, sizeof a->t) == 0 && memcmp(a->v, b->v, sizeof a->v) == 0 &&
         memcmp(a->rows, b->rows, sizeof a->rows) == 0 &&
         memcmp(a->status, b->status, sizeof a->status) == 0 &&
         memcmp(a->end, b->end, sizeof a->end) == 0 && memcmp(a->fs, b->fs, sizeof a->fs) == 0;
}

static out ref, got;

static void test_identical(const char *integ, int64_t max_steps) {
  diagc_sim_options opt;
  int jobs[] = {1, 2, 4}, n, i, ok_runs = 0, fails = 0;
  char name[96];
  diagc_sim_options_init(&opt);
  opt.integrator = integ;
  opt.max_steps = max_steps;
  reference(&opt, &ref);
  for (i = 0; i < N; i++) ok_runs += ref.status[i] == 0, fails += ref.status[i] < 0;
  (void)ok_runs;
  for (n = 0; n < 3; n++) {
    int rc = run_batch(&opt, jobs[n], &got, 2);
    snprintf(name, sizeof name, "batch_identical.%s.jobs%d", integ, jobs[n]);
    check(rc == 0 && same(&ref, &got), name, "differs from %d single runs", N);
  }
  snprintf(name, sizeof name, "batch_identical.%s.outcomes", integ);
  /* the failures below are the job's, and leave the other runs alone */
  check(fails == 3 && got.status[5] == DIAGC_SIM_E_NONFINITE &&
            got.status[11] == (max_steps ? DIAGC_SIM_E_STEP : DIAGC_BATCH_E_ROWS) &&
            got.status[17] == DIAGC_BATCH_E_ROWS && strstr(got.msg + 5 * DIAGC_BATCH_MESSAGE, "s.q") &&
            strstr(got.msg + 17 * DIAGC_BATCH_MESSAGE, "max_rows = 150") && got.msg[0] == 0,
        name, "ok %d failed %d; run 5: %d %s; run 11: %d; run 17: %d %s", ok_runs, fails,
        got.status[5], got.msg + 5 * DIAGC_BATCH_MESSAGE, got.status[11], got.status[17],
        got.msg + 17 * DIAGC_BATCH_MESSAGE);
}

static void test_vjp(void) {
  enum { R = 6, K = 20 };
  double lam[R], x0[R], gs[R], gu[R * K], u[R * K], fs[R];
  int st[R], i, k, rc, bad = 0;
  const int set[] = {0}, seq[] = {1};
  char err[256];
  diagc_batch *b = diagc_batch_create(&ln_model, NULL, 2, err, sizeof err);
  diagc_batch_job j;
  for (i = 0; i < R; i++) {
    lam[i] = 1.0 + i;
    x0[i] = 0.25 * i;
    for (k = 0; k < K; k++) u[i * K + k] = sin(0.3 * k + i);
  }
  memset(&j, 0, sizeof j);
  j.n_runs = R;
  j.t_final = K * 0.1; /* updates at 0, 0.1, ..., 1.9 */
  j.n_set = 1; j.set = set; j.set_values = x0;
  j.n_seq = 1; j.seq = seq; j.n_samples = K; j.sample_period = 0.1; j.seq_values = u;
  j.status = st; j.final_state = fs;
  j.cotangent = lam; j.grad_state = gs; j.grad_inputs = gu; j.vjp_steps = K;
  rc = b ? diagc_batch_run(b, &j, err, sizeof err) : -1;
  for (i = 0; i < R && rc == 0; i++) {
    double x = x0[i];
    if (st[i] != 0) bad++;
    if (fabs(gs[i] - pow(LA, K) * lam[i]) > 1e-14) bad++;
    for (k = 0; k < K; k++) {
      if (fabs(gu[i * K + k] - LB * pow(LA, K - 1 - k) * lam[i]) > 1e-14) bad++;
      x = LA * x + LB * u[i * K + k];
    }
    if (fabs(fs[i] - x) > 1e-12) bad++;
  }
  check(rc == 0 && bad == 0, "batch_vjp.linear", "rc %d (%s), %d mismatches", rc, err, bad);
  /* room for fewer updates than the run has: that run fails, named */
  j.vjp_steps = K - 1;
  j.grad_inputs = NULL;
  rc = diagc_batch_run(b, &j, err, sizeof err);
  check(rc == 0 && st[0] == DIAGC_BATCH_E_ARG && isnan(gs[0]), "batch_vjp.steps", "rc %d st %d", rc, st[0]);
  /* a model without the update Jacobian is refused */
  {
    diagc_batch *c = diagc_batch_create(&sp_model, NULL, 1, err, sizeof err);
    double l2[2];
    double g2[2];
    diagc_batch_job j2;
    memset(&j2, 0, sizeof j2);
    j2.n_runs = 1;
    j2.t_final = 1;
    j2.cotangent = l2;
    j2.grad_state = g2;
    rc = diagc_batch_run(c, &j2, err, sizeof err);
    check(rc == DIAGC_BATCH_E_ARG && strstr(err, "VJP"), "batch_vjp.refused", "rc %d: %s", rc, err);
    diagc_batch_destroy(c);
  }
  diagc_batch_destroy(b);
}

static void test_bad_jobs(void) {
  char err[256];
  diagc_batch *b = diagc_batch_create(&sp_model, NULL, 2, err, sizeof err);
  diagc_batch_job j;
  int bad_idx[] = {9}, rc1, rc2, rc3;
  memset(&j, 0, sizeof j);
  j.n_runs = 3;
  j.t_final = 1;
  j.n_set = 1;
  j.set = bad_idx;
  j.set_values = set_vals;
  rc1 = diagc_batch_run(b, &j, err, sizeof err);
  j.n_set = 0;
  j.t_final = NAN;
  rc2 = diagc_batch_run(b, &j, err, sizeof err);
  j.t_final = 1;
  j.max_rows = 5;
  rc3 = diagc_batch_run(b, &j, err, sizeof err);
  check(rc1 == DIAGC_BATCH_E_ARG && rc2 == DIAGC_BATCH_E_ARG && rc3 == DIAGC_BATCH_E_ARG &&
            strstr(err, "max_rows"),
        "batch_bad_jobs", "%d %d %d: %s", rc1, rc2, rc3, err);
  check(diagc_batch_create(&sp_model, NULL, 257, err, sizeof err) == NULL && strstr(err, "257"),
        "batch_bad_jobs.count", "%s", err);
  check(diagc_batch_jobs(b) == 2 && diagc_batch_log_width(&sp_model) == 2, "batch_sizes", "%d",
        diagc_batch_jobs(b));
  diagc_batch_destroy(b);
}

int main(void) {
  int i, k;
  for (i = 0; i < N; i++) {
    set_vals[2 * i] = 0.5 + 0.37 * i;             /* k */
    set_vals[2 * i + 1] = i == 5 ? NAN : 1 - 0.1 * i; /* q0 */
    for (k = 0; k < NS; k++) seq_vals[NS * i + k] = 0.2 * sin(i + 1.7 * k);
  }
  set_vals[2 * 11] = 4000; /* stiff enough to hit a small step budget */
  set_vals[2 * 17] = 400;  /* to make more rows: see below */
  test_identical("runge_kutta3", 600);
  test_identical("radau5", 0);
  test_vjp();
  test_bad_jobs();
  return check_exit();
}
