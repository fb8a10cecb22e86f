/* test_status.c: the runtime's one family of status codes (diagc/status.h,
 * docs/runtime-api.md "Status codes"): every code has a distinct value, a
 * name and a non-empty message; unknown values get the generic message;
 * and a representative failure of each module returns its documented
 * code. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagc/csv.h"
#include "diagc/deploy.h"
#include "diagc/executor.h"
#include "diagc/lcp.h"
#include "diagc/simulator.h"
#include "diagc/status.h"
#include "models/check.h"
#include "models/decay.c"
#include "models/event_model.c"

#define CODE(c) { c, #c }
static const struct { int code; const char *name; } CODES[] = {
  CODE(DIAGC_OK), CODE(DIAGC_E_FROZEN), CODE(DIAGC_E_CALC), CODE(DIAGC_E_INDEX),
  CODE(DIAGC_SIM_TERMINATED), CODE(DIAGC_LCP_SOLVED_TOL),
  CODE(DIAGC_SIM_E_ARG), CODE(DIAGC_SIM_E_MODEL), CODE(DIAGC_SIM_E_NOMEM),
  CODE(DIAGC_SIM_E_EVENT), CODE(DIAGC_SIM_E_EVAL), CODE(DIAGC_SIM_E_NONFINITE),
  CODE(DIAGC_SIM_E_STEP), CODE(DIAGC_SIM_E_TIME), CODE(DIAGC_SIM_E_STATE),
  CODE(DIAGC_CSV_E_IO), CODE(DIAGC_CSV_E_BUFFER),
  CODE(DIAGC_LCP_E_ARG), CODE(DIAGC_LCP_E_WORKSPACE), CODE(DIAGC_LCP_E_UNSOLVED),
  CODE(DIAGC_EXEC_E_ARG), CODE(DIAGC_EXEC_E_FULL), CODE(DIAGC_EXEC_E_NOMEM),
  CODE(DIAGC_EXEC_E_STATE), CODE(DIAGC_EXEC_E_SHUTDOWN), CODE(DIAGC_EXEC_E_REJECTED),
  CODE(DIAGC_EXEC_E_THREAD), CODE(DIAGC_EXEC_E_SCHED),
  CODE(DIAGC_DEPLOY_E_MODEL),
  CODE(DIAGC_LIN_E_ARG), CODE(DIAGC_LIN_E_MODEL), CODE(DIAGC_LIN_E_EQUILIBRIUM), CODE(DIAGC_LIN_E_EVAL),
  CODE(DIAGC_LIN_E_NOMEM),
  CODE(DIAGC_TRIM_E_NO_POINT),
  CODE(DIAGC_TRIM_E_SINGULAR),
  CODE(DIAGC_LCP_BUDGET), CODE(DIAGC_CONTACT_INEXACT),
  CODE(DIAGC_CONTACT_E_ARG), CODE(DIAGC_CONTACT_E_WORKSPACE), CODE(DIAGC_CONTACT_E_CHECK),
  CODE(DIAGC_CONTACT_E_NUMERIC), CODE(DIAGC_WORLD_E_NONFINITE), CODE(DIAGC_WORLD_E_CONTACTS),
  CODE(DIAGC_BATCH_E_ARG), CODE(DIAGC_BATCH_E_NOMEM), CODE(DIAGC_BATCH_E_ROWS), CODE(DIAGC_BATCH_E_THREAD),
};
#define N_CODES ((int)(sizeof CODES / sizeof CODES[0]))

/* Distinct values and messages, names that match the enum, and no value
 * in the library's table that this list lacks. */
static void test_table(void) {
  int i, j, dup = 0, bad_name = 0, empty = 0, known = 0, v;
  for (i = 0; i < N_CODES; i++) {
    const char *msg = diagc_status_message(CODES[i].code);
    const char *name = diagc_status_name(CODES[i].code);
    if (!msg || !msg[0] || strcmp(msg, "unknown status code") == 0) empty++;
    if (!name || strcmp(name, CODES[i].name) != 0) bad_name++;
    for (j = 0; j < i; j++)
      if (CODES[j].code == CODES[i].code ||
          strcmp(diagc_status_message(CODES[j].code), msg) == 0) dup++;
  }
  check(dup == 0, "status.distinct_values_and_messages", "%d duplicates", dup);
  check(bad_name == 0, "status.names", "%d codes without their name", bad_name);
  check(empty == 0, "status.messages_not_empty", "%d codes without a message", empty);
  for (v = -1000; v <= 1000; v++)
    if (diagc_status_name(v)) known++;
  check(known == N_CODES, "status.table_complete", "the library knows %d codes, the test %d",
        known, N_CODES);
  /* the model ABI's values (generated C returns them) */
  check(DIAGC_OK == 0 && DIAGC_E_FROZEN == -10 && DIAGC_E_CALC == -11 &&
            DIAGC_E_INDEX == -12 && DIAGC_ABI_VERSION == 8,
        "status.model_abi_values", "OK %d FROZEN %d CALC %d INDEX %d ABI %d", DIAGC_OK,
        DIAGC_E_FROZEN, DIAGC_E_CALC, DIAGC_E_INDEX, DIAGC_ABI_VERSION);
  check(strcmp(diagc_status_message(DIAGC_E_INDEX),
               "model: no output or cache entry of that index") == 0,
        "status.index_message", "'%s'", diagc_status_message(DIAGC_E_INDEX));
  /* failures negative, outcomes positive */
  check(DIAGC_SIM_TERMINATED > 0 && DIAGC_LCP_SOLVED_TOL > 0 && DIAGC_SIM_E_ARG < 0 &&
            DIAGC_E_FROZEN < 0 && DIAGC_E_CALC < 0 && DIAGC_E_INDEX < 0 &&
            DIAGC_CSV_E_IO < 0 && DIAGC_LCP_E_UNSOLVED < 0 && DIAGC_EXEC_E_SCHED < 0 &&
            DIAGC_DEPLOY_E_MODEL < 0 && DIAGC_LIN_E_ARG < 0 && DIAGC_LIN_E_NOMEM < 0,
        "status.signs", "a failure is not negative or an outcome not positive");
}

static void test_unknown(void) {
  const int vals[] = { 5, 99, -13, -1000, 1 << 30, -(1 << 30) };
  int i, bad = 0;
  for (i = 0; i < (int)(sizeof vals / sizeof vals[0]); i++)
    if (strcmp(diagc_status_message(vals[i]), "unknown status code") != 0 ||
        diagc_status_name(vals[i]) != NULL) bad++;
  check(bad == 0, "status.unknown_code_generic_message", "%d values", bad);
}

/* simulator: a NaN time, a failing handler, then use without re-init */
static void test_simulator(void) {
  diagc_model m;
  diagc_sim *sim;
  int rc0, rc1, rc2, rc3;
  em_reset();
  em_add("a.fail", 0, DIAGC_TRIGGER_PERIODIC, DIAGC_PUBLISH, 0.5, 0.5);
  em_specs[0].status = DIAGC_FAILED;
  m = em_model(0, 0, NULL);
  sim = diagc_sim_create(&m, NULL);
  if (!check(sim != NULL, "status.sim_create", "NULL")) return;
  rc0 = diagc_sim_initialize(sim);
  rc1 = diagc_sim_advance_to(sim, NAN);
  rc2 = diagc_sim_advance_to(sim, 1.0);
  rc3 = diagc_sim_advance_to(sim, 2.0);
  check(rc0 == DIAGC_OK && rc1 == DIAGC_SIM_E_ARG && rc2 == DIAGC_SIM_E_EVENT &&
            rc3 == DIAGC_SIM_E_STATE,
        "status.simulator", "init %d (%s), NaN %d, failing handler %d, after the error %d", rc0,
        diagc_status_name(rc0), rc1, rc2, rc3);
  check(diagc_sim_set_integrator(sim, "no_such_integrator") == DIAGC_SIM_E_ARG,
        "status.simulator_unknown_integrator", "not DIAGC_SIM_E_ARG");
  diagc_sim_destroy(sim);
  check(diagc_run_csv(NULL, NULL, 1.0, stdout, NULL, 0) == DIAGC_SIM_E_MODEL,
        "status.run_csv_no_model", "not DIAGC_SIM_E_MODEL");
}

/* model ABI 6: the index-based functions of hand-written models answer an
 * index outside their tables with DIAGC_E_INDEX (evals) or do nothing
 * (set_source) */
static void test_model_index(void) {
  static union { decay_ctx d; em_ctx e; } u;
  void *ctx = &u;
  const double one = 1.0, two = 2.0;
  const double *v = NULL, *x = NULL;
  int rc_neg, rc_past, rc_c0, rc_cneg, rc_in, rc_em;
  diagc_model m;
  decay_model.init(ctx);
  rc_neg = decay_model.eval_output(ctx, -1, &v);
  rc_past = decay_model.eval_output(ctx, decay_model.n_outputs, &v);
  rc_c0 = decay_model.eval_cache(ctx, 0, &v);
  rc_cneg = decay_model.eval_cache(ctx, -1, &v);
  check(rc_neg == DIAGC_E_INDEX && rc_past == DIAGC_E_INDEX && rc_c0 == DIAGC_E_INDEX &&
            rc_cneg == DIAGC_E_INDEX,
        "status.model_index_out_of_range", "output -1 %d, output n %d, cache 0 %d, cache -1 %d",
        rc_neg, rc_past, rc_c0, rc_cneg);
  decay_model.set_source(ctx, 0, &two);
  decay_model.set_source(ctx, -1, &one);
  decay_model.set_source(ctx, decay_model.n_sources, &one);
  rc_in = decay_model.eval_output(ctx, 0, &x);
  check(rc_in == DIAGC_OK && x && x[0] == 2.0, "status.model_index_set_source",
        "rc %d x %g (an out-of-range set_source wrote?)", rc_in, x ? x[0] : NAN);
  em_reset();
  m = em_model(0, 0, NULL);
  m.init(ctx);
  rc_em = m.eval_output(ctx, m.n_outputs, &v);
  check(rc_em == DIAGC_E_INDEX && m.eval_output(ctx, 1, &x) == DIAGC_OK,
        "status.model_index_event_model", "rc %d", rc_em);
}

/* CSV: a stream that refuses writes, a buffer too small */
static void test_csv(void) {
  diagc_model m;
  diagc_csv_writer w;
  char small[4];
  FILE *ro = fopen("/dev/null", "r");
  int rc;
  if (!check(ro != NULL, "status.csv_open", "cannot open /dev/null")) return;
  em_reset();
  m = em_model(0, 0, NULL);
  diagc_csv_writer_init(&w, &m, ro);
  rc = diagc_csv_write_header(&w);
  check(rc == DIAGC_CSV_E_IO, "status.csv_write_error", "rc %d", rc);
  fclose(ro);
  rc = diagc_format_double(small, sizeof small, 0.125);
  check(rc == DIAGC_CSV_E_BUFFER, "status.csv_buffer", "rc %d", rc);
}

/* LCP: bad argument, no workspace, an infeasible problem (A = 0, b = 1:
 * w = -1 < 0 wherever x >= 0), and one PGS sweep short of a solution */
static void test_lcp(void) {
  static double ws[4096];
  diagc_lcp_options o;
  diagc_lcp_stats st;
  double A1 = 0.0, b1 = 1.0, lo1 = 0.0, hi1 = INFINITY, x1 = 0.0;
  double A2[4] = { 2, 1, 1, 2 }, b2[2] = { 1, 1 }, lo2[2] = { 0, 0 };
  double hi2[2] = { INFINITY, INFINITY }, x2[2] = { 0, 0 };
  int rc;
  check(diagc_lcp_workspace_size(2) <= sizeof ws, "status.lcp_workspace", "too small");
  diagc_lcp_options_init(&o, ws, sizeof ws);
  rc = diagc_lcp_solve(-1, &A1, &b1, &lo1, &hi1, NULL, &x1, &o, &st);
  check(rc == DIAGC_LCP_E_ARG, "status.lcp_bad_arg", "rc %d", rc);
  rc = diagc_lcp_solve(1, &A1, &b1, &lo1, &hi1, NULL, &x1, NULL, &st);
  check(rc == DIAGC_LCP_E_WORKSPACE, "status.lcp_no_workspace", "rc %d", rc);
  rc = diagc_lcp_solve(1, &A1, &b1, &lo1, &hi1, NULL, &x1, &o, &st);
  check(rc == DIAGC_LCP_E_UNSOLVED && isfinite(x1) && st.violation > o.accept_tol,
        "status.lcp_unsolved_keeps_best_point", "rc %d x %g violation %g", rc, x1,
        st.violation);
  o.method = DIAGC_LCP_PGS;
  o.max_pgs_iter = 1;
  o.accept_tol = 1.0;
  rc = diagc_lcp_solve(2, A2, b2, lo2, hi2, NULL, x2, &o, &st);
  check(rc == DIAGC_LCP_SOLVED_TOL && st.violation > o.tol && st.violation <= o.accept_tol,
        "status.lcp_solved_tol", "rc %d violation %g", rc, st.violation);
}

static void nop_cb(void *user, const diagc_exec_event *ev) {
  (void)user;
  (void)ev;
}

/* executor: unknown kind, a full table, a refused delivery, setup after
 * prepare, moving the epoch after shutdown; topics: a full topic table */
static void test_executor(void) {
  diagc_exec_config cfg;
  diagc_exec *ex;
  diagc_bus *bus;
  int g, sub, rc_kind, rc_full, rc_rej, rc_state, rc_shut;
  char msg[8] = { 0 };
  diagc_exec_config_init(&cfg);
  cfg.threads = 1;
  cfg.clock = DIAGC_CLOCK_MANUAL;
  cfg.max_groups = 1;
  ex = diagc_exec_create(&cfg);
  if (!check(ex != NULL, "status.exec_create", "NULL")) return;
  rc_kind = diagc_exec_add_group(ex, 99);
  g = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
  rc_full = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
  sub = diagc_exec_add_subscription(ex, g, sizeof msg, 1, DIAGC_OVERFLOW_REJECT, nop_cb, NULL);
  diagc_exec_prepare(ex);
  diagc_exec_deliver(ex, sub, msg, sizeof msg);
  rc_rej = diagc_exec_deliver(ex, sub, msg, sizeof msg);
  rc_state = diagc_exec_add_guard(ex, g, nop_cb, NULL);
  diagc_exec_shutdown(ex, NULL);
  rc_shut = diagc_exec_set_epoch(ex, 0);
  check(rc_kind == DIAGC_EXEC_E_ARG && g >= 0 && rc_full == DIAGC_EXEC_E_FULL && sub >= 0 &&
            rc_rej == DIAGC_EXEC_E_REJECTED && rc_state == DIAGC_EXEC_E_STATE &&
            rc_shut == DIAGC_EXEC_E_SHUTDOWN,
        "status.executor", "kind %d, full %d, rejected %d, after prepare %d, after shutdown %d",
        rc_kind, rc_full, rc_rej, rc_state, rc_shut);
  diagc_exec_destroy(ex);
  bus = diagc_bus_create(1, 1);
  if (!check(bus != NULL, "status.bus_create", "NULL")) return;
  diagc_bus_topic(bus, "a");
  rc_full = diagc_bus_topic(bus, "b");
  check(rc_full == DIAGC_EXEC_E_FULL, "status.bus_full", "rc %d", rc_full);
  diagc_bus_destroy(bus);
}

/* deploy: a model whose periodic publish fails */
static void test_deploy(void) {
  static diagc_model m;
  diagc_deploy_model dm;
  diagc_deploy *d;
  char err[256] = "";
  int rc;
  em_reset();
  em_add("a.fail", 0, DIAGC_TRIGGER_PERIODIC, DIAGC_PUBLISH, 0.01, 0.01);
  em_specs[0].status = DIAGC_FAILED;
  m = em_model(0, 0, NULL);
  memset(&dm, 0, sizeof dm);
  dm.name = "failing";
  dm.model = &m;
  d = diagc_deploy_create(&dm, 1, 1, err, sizeof err);
  if (!check(d != NULL, "status.deploy_create", "%s", err)) return;
  rc = diagc_deploy_run(d, 0.05);
  check(rc == DIAGC_DEPLOY_E_MODEL && strstr(diagc_deploy_error(d), "failing") != NULL,
        "status.deploy_model_failed", "rc %d: %s", rc, diagc_deploy_error(d));
  diagc_deploy_destroy(d);
}

/* deploy: create's failures return NULL with a one-line message */
static void test_deploy_create_errors(void) {
  static diagc_model m;
  diagc_deploy_model dm;
  diagc_deploy_port out = { "no.such.port", "topic" };
  char err[256] = "";
  diagc_deploy *d;
  em_reset();
  m = em_model(0, 0, NULL);
  memset(&dm, 0, sizeof dm);
  dm.name = "quiet";
  dm.model = &m;
  d = diagc_deploy_create(&dm, 1, 1, err, sizeof err);
  check(d == NULL && strstr(err, "model quiet has no periodic event") != NULL,
        "status.deploy_no_periodic_event", "%s", err);
  diagc_deploy_destroy(d);
  em_add("a.tick", 0, DIAGC_TRIGGER_PERIODIC, DIAGC_PUBLISH, 0.01, 0.0);
  m = em_model(0, 0, NULL);
  dm.n_outputs = 1;
  dm.outputs = &out;
  d = diagc_deploy_create(&dm, 1, 1, err, sizeof err);
  check(d == NULL && strcmp(err, "model quiet has no numeric output port 'no.such.port'") == 0,
        "status.deploy_missing_port", "%s", err);
  diagc_deploy_destroy(d);
  d = diagc_deploy_create(NULL, 0, 1, err, sizeof err);
  check(d == NULL && strcmp(err, "no models to deploy") == 0, "status.deploy_no_models", "%s", err);
}

int main(void) {
  test_table();
  test_unknown();
  test_simulator();
  test_model_index();
  test_csv();
  test_lcp();
  test_executor();
  test_deploy();
  test_deploy_create_errors();
  return check_exit();
}
