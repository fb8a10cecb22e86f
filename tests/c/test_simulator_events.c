/* Event semantics of Initialize / AdvanceTo (drake-semantics.md section 4
 * and checklist items 23-34), with counting handlers. */
#include <math.h>
#include <string.h>

#include "diagc/simulator.h"
#include "models/check.h"
#include "models/event_model.c"

#define T_INIT DIAGC_TRIGGER_INITIALIZATION
#define T_STEP DIAGC_TRIGGER_PER_STEP
#define T_PER DIAGC_TRIGGER_PERIODIC
#define K_PUB DIAGC_PUBLISH
#define K_DU DIAGC_DISCRETE_UPDATE
#define K_UU DIAGC_UNRESTRICTED_UPDATE

static diagc_model M; /* the descriptor of the current test */

static diagc_sim *make(int nxc, const diagc_sim_options *o) {
  diagc_sim *sim;
  char err[200];
  M = em_model(nxc, 0, NULL);
  sim = diagc_sim_create_ex(&M, o, err, sizeof err);
  if (!sim) printf("# create failed: %s\n", err);
  return sim;
}

static em_ctx *ctx_of(diagc_sim *sim) {
  return (em_ctx *)diagc_sim_context(sim);
}

static diagc_sim_statistics stats_of(diagc_sim *sim) {
  diagc_sim_statistics st;
  diagc_sim_stats(sim, &st);
  return st;
}

/* The trace as a compact string "H0 A0 H1 ..." for messages and checks. */
static const char *trace_str(void) {
  static char buf[512];
  long k;
  size_t n = 0;
  buf[0] = 0;
  for (k = 0; k < em_ntrace && k < EM_MAX_TRACE && n + 8 < sizeof buf; k++)
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%c%d", k ? " " : "",
                          em_trace[k].what, em_trace[k].ev);
  return buf;
}

/* 23, 25: Initialize runs unrestricted, then discrete initialization
 * updates, then only publishes (initialization, per-step, t0-timed, in
 * that order within a leaf); per-step and t0-timed updates wait for the
 * first step. */
static void test_init_order(void) {
  diagc_sim *sim;
  int rc;
  em_reset();
  em_add_update("a.u_init", 0, T_INIT, K_UU, 0, 0, 0, 0, 1, 5); /* 0 */
  em_add_update("a.d_init", 0, T_INIT, K_DU, 0, 0, 1, 0, 1, 1); /* 1 */
  em_add("a.p_per", 0, T_PER, K_PUB, 0.5, 0);                  /* 2 */
  em_add("a.p_step", 0, T_STEP, K_PUB, 0, 0);                   /* 3 */
  em_add("a.p_init", 0, T_INIT, K_PUB, 0, 0);                   /* 4 */
  em_add_update("a.d_step", 0, T_STEP, K_DU, 0, 0, 2, 2, 1, 1); /* 5 */
  em_add_update("a.d_per", 0, T_PER, K_DU, 0.5, 0, 3, 3, 1, 1); /* 6 */
  em_add("b.p_per", 1, T_PER, K_PUB, 0.5, 0);                   /* 7 */
  sim = make(0, NULL);
  rc = diagc_sim_initialize(sim);
  check(rc == 0, "init.rc", "rc %d: %s", rc, diagc_sim_error(sim));
  check(strcmp(trace_str(), "H0 A0 H1 A1 H4 H3 H2 H7") == 0, "init.order",
        "trace '%s'", trace_str());
  check(em_trace[2].ctx_src == 5, "init.discrete_sees_unrestricted",
        "d_init read xd0 = %g", em_trace[2].ctx_src);
  check(ctx_of(sim)->xd[0] == 5 && ctx_of(sim)->xd[1] == 6 &&
            ctx_of(sim)->xd[2] == 0 && ctx_of(sim)->xd[3] == 0,
        "init.state", "xd = %g %g %g %g", ctx_of(sim)->xd[0],
        ctx_of(sim)->xd[1], ctx_of(sim)->xd[2], ctx_of(sim)->xd[3]);
  check(em_trace[4].xd[0] == 5 && em_trace[4].xd[1] == 6,
        "init.publish_sees_updated", "xd %g %g", em_trace[4].xd[0],
        em_trace[4].xd[1]);
  /* AdvanceTo(now): the per-step and t0-timed updates run (per-step first),
   * then the per-step publish; the timed publish does not repeat. */
  em_clear_trace();
  rc = diagc_sim_advance_to(sim, 0);
  check(rc == 0 && strcmp(trace_str(), "H5 H6 A5 A6 H3") == 0 &&
            diagc_sim_time(sim) == 0 && stats_of(sim).steps == 1,
        "init.t0_updates_at_step1", "rc %d trace '%s' t %g steps %lld", rc,
        trace_str(), diagc_sim_time(sim), (long long)stats_of(sim).steps);
  check(ctx_of(sim)->xd[2] == 1 && ctx_of(sim)->xd[3] == 1,
        "init.t0_updates_applied", "xd2 %g xd3 %g", ctx_of(sim)->xd[2],
        ctx_of(sim)->xd[3]);
  diagc_sim_destroy(sim);
}

/* 24: suppressed initialization runs no initialization handler. */
static void test_init_suppressed(void) {
  diagc_sim_options o;
  diagc_sim *sim;
  int rc;
  em_reset();
  em_add_update("a.u_init", 0, T_INIT, K_UU, 0, 0, 0, 0, 1, 5); /* 0 */
  em_add_update("a.d_init", 0, T_INIT, K_DU, 0, 0, 1, 0, 1, 1); /* 1 */
  em_add("a.p_init", 0, T_INIT, K_PUB, 0, 0);                   /* 2 */
  em_add("a.p_step", 0, T_STEP, K_PUB, 0, 0);                   /* 3 */
  em_add("a.p_per", 0, T_PER, K_PUB, 0.5, 0);                   /* 4 */
  diagc_sim_options_init(&o);
  o.suppress_initialization_events = 1;
  sim = make(0, &o);
  rc = diagc_sim_initialize(sim);
  check(rc == 0 && strcmp(trace_str(), "H3 H4") == 0 &&
            ctx_of(sim)->xd[0] == 0 && ctx_of(sim)->xd[1] == 0,
        "init.suppressed", "rc %d trace '%s'", rc, trace_str());
  rc = diagc_sim_advance_to(sim, 1.0);
  check(rc == 0 && em_count(0, 'H') == 0 && em_count(1, 'H') == 0 &&
            em_count(2, 'H') == 0,
        "init.suppressed_never_later", "trace '%s'", trace_str());
  diagc_sim_destroy(sim);
}

/* 26 and per-step counts. */
static void test_per_step(void) {
  diagc_sim_options o;
  diagc_sim *sim;
  diagc_sim_statistics st;
  int rc, ps, pu, ok;
  long k;
  /* Without continuous state or timed events one step jumps to t_max. */
  em_reset();
  ps = em_add("a.p_step", 0, T_STEP, K_PUB, 0, 0);
  pu = em_add_update("a.d_step", 0, T_STEP, K_DU, 0, 0, 0, 0, 1, 1);
  sim = make(0, NULL);
  rc = diagc_sim_advance_to(sim, 1.0);
  st = stats_of(sim);
  check(rc == 0 && st.steps == 1 && em_count(ps, 'H') == 2 &&
            em_count(pu, 'H') == 1 && diagc_sim_time(sim) == 1.0,
        "per_step.jump_no_xc", "rc %d steps %lld pub %d upd %d", rc,
        (long long)st.steps, em_count(ps, 'H'), em_count(pu, 'H'));
  rc = diagc_sim_advance_to(sim, 2.0);
  check(rc == 0 && stats_of(sim).steps == 2 && em_count(ps, 'H') == 3 &&
            ctx_of(sim)->xd[0] == 2,
        "per_step.second_call", "rc %d", rc);
  diagc_sim_destroy(sim);

  /* With continuous state: each step = updates, integration, publishes. */
  em_reset();
  ps = em_add("a.p_step", 0, T_STEP, K_PUB, 0, 0);
  pu = em_add_update("a.d_step", 0, T_STEP, K_DU, 0, 0, 0, 0, 1, 1);
  diagc_sim_options_init(&o);
  o.integrator = "runge_kutta2";
  sim = make(1, &o);
  rc = diagc_sim_advance_to(sim, 1.0);
  st = stats_of(sim);
  check(rc == 0 && st.steps >= 10 && em_count(ps, 'H') == st.steps + 1 &&
            em_count(pu, 'H') == st.steps &&
            ctx_of(sim)->xd[0] == (double)st.steps,
        "per_step.counts", "rc %d steps %lld pub %d upd %d", rc,
        (long long)st.steps, em_count(ps, 'H'), em_count(pu, 'H'));
  /* Order within each step: update handler, apply, (integration), publish;
   * the publish sees the updated xd and the integrated x. */
  ok = 1;
  for (k = 1; k + 2 < em_ntrace && k + 2 < EM_MAX_TRACE; k += 3) {
    const em_rec *h = &em_trace[k], *a = &em_trace[k + 1],
                 *p = &em_trace[k + 2];
    if (!(h->ev == pu && h->what == 'H' && a->ev == pu && a->what == 'A' &&
          p->ev == ps && p->what == 'H' && p->t > h->t &&
          p->xd[0] == h->xd[0] + 1 && fabs(p->xc - p->t) < 1e-12))
      ok = 0;
  }
  check(ok, "per_step.update_integrate_publish", "trace '%s'", trace_str());
  check(diagc_sim_time(sim) == 1.0 && st.integrator_steps == st.steps,
        "per_step.lands_on_tmax", "t %.17g", diagc_sim_time(sim));
  diagc_sim_destroy(sim);
}

/* 29, 31: periodic times are exactly offset + k*period, after t; without
 * continuous state each step jumps to the next event. */
static void test_offsets(void) {
  diagc_sim *sim;
  int rc, p, d, ok, k;
  em_reset();
  p = em_add("a.p", 0, T_PER, K_PUB, 0.25, 0.1);
  d = em_add_update("a.d", 0, T_PER, K_DU, 0.5, 0.2, 0, 0, 1, 1);
  sim = make(0, NULL);
  rc = diagc_sim_advance_to(sim, 1.0);
  ok = rc == 0 && em_count(p, 'H') == 4 && em_count(d, 'H') == 2;
  for (k = 0; ok && k < 4; k++)
    ok = em_trace[em_find(p, 'H', k)].t == 0.1 + k * 0.25;
  for (k = 0; ok && k < 2; k++)
    ok = em_trace[em_find(d, 'H', k)].t == 0.2 + k * 0.5;
  check(ok, "offsets.exact_times", "rc %d trace '%s'", rc, trace_str());
  /* step ends: .1 .2 .35 .6 .7 .85 1 */
  check(stats_of(sim).steps == 7 && diagc_sim_time(sim) == 1.0,
        "offsets.jumps", "steps %lld", (long long)stats_of(sim).steps);
  check(em_trace[em_find(p, 'H', 2)].xd[0] == 1 &&
            em_trace[em_find(p, 'H', 3)].xd[0] == 2,
        "offsets.publish_sees_held_state", "xd0 at .6: %g, at .85: %g",
        em_trace[em_find(p, 'H', 2)].xd[0], em_trace[em_find(p, 'H', 3)].xd[0]);
  diagc_sim_destroy(sim);
}

/* 27, 28: at t_max publishes fire and updates stay pending; AdvanceTo(now)
 * takes one step and flushes them. */
static void test_pending(void) {
  diagc_sim *sim;
  int rc, d, ps;
  em_reset();
  d = em_add_update("a.d", 0, T_PER, K_DU, 0.5, 0, 0, 0, 1, 1);
  ps = em_add("a.p_step", 0, T_STEP, K_PUB, 0, 0);
  sim = make(0, NULL);
  rc = diagc_sim_advance_to(sim, 0.5);
  check(rc == 0 && em_count(d, 'H') == 1 && ctx_of(sim)->xd[0] == 1 &&
            diagc_sim_time(sim) == 0.5 && em_count(ps, 'H') == 2 &&
            em_trace[em_find(ps, 'H', 1)].xd[0] == 1,
        "pending.at_tmax", "rc %d upd %d xd0 %g trace '%s'", rc,
        em_count(d, 'H'), ctx_of(sim)->xd[0], trace_str());
  rc = diagc_sim_advance_to(sim, 0.5);
  check(rc == 0 && em_count(d, 'H') == 2 && ctx_of(sim)->xd[0] == 2 &&
            diagc_sim_time(sim) == 0.5 && stats_of(sim).steps == 2 &&
            em_count(ps, 'H') == 3 && em_trace[em_find(ps, 'H', 2)].xd[0] == 2,
        "pending.advance_to_now_flushes", "rc %d upd %d xd0 %g steps %lld",
        rc, em_count(d, 'H'), ctx_of(sim)->xd[0],
        (long long)stats_of(sim).steps);
  rc = diagc_sim_advance_to(sim, 0.5);
  check(rc == 0 && em_count(d, 'H') == 2 && stats_of(sim).steps == 3,
        "pending.nothing_left", "upd %d", em_count(d, 'H'));
  rc = diagc_sim_advance_to(sim, 1.0);
  check(rc == 0 && em_count(d, 'H') == 2 && ctx_of(sim)->xd[0] == 2,
        "pending.next_call_pending_again", "upd %d", em_count(d, 'H'));
  rc = diagc_sim_advance_to(sim, 2.0);
  check(rc == 0 && em_count(d, 'H') == 4 &&
            em_trace[em_find(d, 'H', 2)].t == 1.0 &&
            em_trace[em_find(d, 'H', 3)].t == 1.5,
        "pending.runs_on_next_call", "upd %d", em_count(d, 'H'));
  diagc_sim_destroy(sim);
}

/* 30: ties (update, publish, boundary at one instant) land exactly on the
 * event; publish sees x-, unrestricted then discrete updates follow. */
static void test_ties(void) {
  diagc_sim *sim;
  int rc, u, d, p, ok;
  double st0[1 + EM_NXD] = {0, 1, 0, 0, 0};
  em_reset();
  p = em_add("a.p", 0, T_PER, K_PUB, 0.5, 0);
  d = em_add_update("a.d", 0, T_PER, K_DU, 0.5, 0, 1, 0, 1, 0); /* xd1=xd0 */
  u = em_add_update("a.u", 0, T_PER, K_UU, 0.5, 0, 0, 0, 10, 0); /* xd0*=10 */
  sim = make(1, NULL); /* runge_kutta3, error control, x' = 1 */
  M.set_state(diagc_sim_context(sim), st0);
  rc = diagc_sim_advance_to(sim, 1.0);
  ok = rc == 0 && em_count(p, 'H') == 3 && em_count(u, 'H') == 2 &&
       em_count(d, 'H') == 2;
  check(ok, "ties.counts", "rc %d trace '%s'", rc, trace_str());
  ok = ok && em_trace[em_find(p, 'H', 1)].t == 0.5 &&
       em_trace[em_find(p, 'H', 2)].t == 1.0;
  check(ok, "ties.land_exactly", "publish times %.17g %.17g",
        em_trace[em_find(p, 'H', 1)].t, em_trace[em_find(p, 'H', 2)].t);
  ok = em_trace[em_find(p, 'H', 0)].xd[0] == 1 &&
       em_trace[em_find(p, 'H', 1)].xd[0] == 10 &&
       em_trace[em_find(p, 'H', 2)].xd[0] == 100 &&
       em_trace[em_find(p, 'H', 2)].xd[1] == 100;
  check(ok, "ties.publish_sees_x_minus", "xd0 at 0, .5, 1: %g %g %g",
        em_trace[em_find(p, 'H', 0)].xd[0], em_trace[em_find(p, 'H', 1)].xd[0],
        em_trace[em_find(p, 'H', 2)].xd[0]);
  /* unrestricted first, and discrete reads its result */
  ok = em_find(u, 'A', 1) < em_find(d, 'H', 1) &&
       em_trace[em_find(d, 'H', 1)].ctx_src == 100 &&
       em_trace[em_find(d, 'H', 0)].ctx_src == 10;
  check(ok, "ties.unrestricted_then_discrete", "trace '%s'", trace_str());
  ok = fabs(em_trace[em_find(p, 'H', 1)].xc - 0.5) < 1e-12 &&
       fabs(ctx_of(sim)->xc[0] - 1.0) < 1e-12;
  check(ok, "ties.integrated", "x(1) = %.17g", ctx_of(sim)->xc[0]);
  check(ctx_of(sim)->xd[0] == 100 && diagc_sim_time(sim) == 1.0,
        "ties.updates_pending_at_tmax", "xd0 %g", ctx_of(sim)->xd[0]);
  /* Publish-only tie with the boundary: the publish fires at t_max. */
  rc = diagc_sim_advance_to(sim, 1.5);
  check(rc == 0 && em_count(p, 'H') == 4 &&
            em_trace[em_find(p, 'H', 3)].t == 1.5,
        "ties.publish_at_boundary", "rc %d", rc);
  diagc_sim_destroy(sim);
}

/* Max-step stretch: a fixed step may stretch by up to 1% to reach an event,
 * but never past the boundary. */
static void test_stretch(void) {
  diagc_sim_options o;
  diagc_sim *sim;
  int rc, p;
  diagc_sim_options_init(&o);
  o.integrator = "explicit_euler";
  o.max_step = 0.1;

  em_reset();
  p = em_add("a.p", 0, T_PER, K_PUB, 0.1005, 0.1005);
  sim = make(1, &o);
  rc = diagc_sim_advance_to(sim, 0.2);
  check(rc == 0 && em_count(p, 'H') == 1 &&
            em_trace[em_find(p, 'H', 0)].t == 0.1005 &&
            stats_of(sim).steps == 2,
        "stretch.to_event", "rc %d steps %lld trace '%s'", rc,
        (long long)stats_of(sim).steps, trace_str());
  diagc_sim_destroy(sim);

  em_reset();
  p = em_add("a.p", 0, T_PER, K_PUB, 0.102, 0.102);
  sim = make(1, &o);
  rc = diagc_sim_advance_to(sim, 0.102);
  check(rc == 0 && stats_of(sim).steps == 2 && em_count(p, 'H') == 1 &&
            em_trace[em_find(p, 'H', 0)].t == 0.102,
        "stretch.beyond_1_percent", "steps %lld",
        (long long)stats_of(sim).steps);
  diagc_sim_destroy(sim);

  em_reset();
  sim = make(1, &o);
  rc = diagc_sim_advance_to(sim, 0.1005);
  check(rc == 0 && stats_of(sim).steps == 2 &&
            diagc_sim_time(sim) == 0.1005,
        "stretch.never_to_boundary", "steps %lld",
        (long long)stats_of(sim).steps);
  diagc_sim_destroy(sim);
}

/* 29: no drift after 10^6 periods. */
static void test_no_drift(double offset) {
  diagc_sim *sim;
  int rc;
  const double period = 1e-3;
  const long n = 1000000;
  char name[64];
  em_reset();
  em_expect_ev = em_add("a.p", 0, T_PER, K_PUB, period, offset);
  em_expect_period = period;
  em_expect_offset = offset;
  sim = make(0, NULL);
  rc = diagc_sim_advance_to(sim, offset + (double)n * period);
  snprintf(name, sizeof name, "no_drift.offset_%g", offset);
  check(rc == 0 && em_expect_bad == 0 && em_expect_k == n + 1 &&
            diagc_sim_time(sim) == offset + (double)n * period,
        name, "rc %d bad %ld (first at %.17g) calls %ld", rc, em_expect_bad,
        em_expect_first_bad_t, em_expect_k);
  diagc_sim_destroy(sim);
}

/* 32 */
static void test_time_change(void) {
  diagc_sim *sim;
  int rc;
  em_reset();
  em_add("a.p", 0, T_PER, K_PUB, 0.25, 0);
  sim = make(1, NULL);
  rc = diagc_sim_advance_to(sim, 1.0);
  M.set_time(diagc_sim_context(sim), 5.0);
  rc = diagc_sim_advance_to(sim, 6.0);
  check(rc == DIAGC_SIM_E_TIME, "time_change.error", "rc %d", rc);
  rc = diagc_sim_initialize(sim);
  if (rc == 0) rc = diagc_sim_advance_to(sim, 6.0);
  check(rc == 0 && diagc_sim_time(sim) == 6.0,
        "time_change.reinitialize", "rc %d: %s", rc, diagc_sim_error(sim));
  diagc_sim_destroy(sim);
}

/* 34, 22: handlers of one leaf read x- and share one preloaded buffer, later
 * writes win; all-DidNothing rounds apply nothing. */
static void test_shared_buffer(void) {
  diagc_sim *sim;
  int rc, a, a2, b;
  em_reset();
  a = em_add_update("a.inc", 0, T_PER, K_DU, 0.1, 0, 0, 0, 1, 1);
  b = em_add_update("a.copy", 0, T_PER, K_DU, 0.1, 0, 1, 0, 1, 0);
  a2 = em_add_update("a.inc10", 0, T_PER, K_DU, 0.1, 0, 0, 0, 1, 10);
  sim = make(0, NULL);
  rc = diagc_sim_advance_to(sim, 0);
  check(rc == 0 && em_trace[em_find(b, 'H', 0)].ctx_src == 0 &&
            em_trace[em_find(b, 'H', 0)].buf_src == 1,
        "buffer.reads_x_minus_sees_buffer", "ctx %g buf %g",
        em_trace[em_find(b, 'H', 0)].ctx_src,
        em_trace[em_find(b, 'H', 0)].buf_src);
  check(em_trace[em_find(a2, 'H', 0)].buf_src == 1 &&
            ctx_of(sim)->xd[0] == 10 && ctx_of(sim)->xd[1] == 0,
        "buffer.later_writes_win", "xd0 %g xd1 %g", ctx_of(sim)->xd[0],
        ctx_of(sim)->xd[1]);
  check(strcmp(trace_str(), "H0 H1 H2 A0 A1 A2") == 0, "buffer.apply_after_all",
        "trace '%s'", trace_str());
  (void)a;
  diagc_sim_destroy(sim);

  em_reset();
  a = em_add_update("a.n1", 0, T_PER, K_DU, 0.1, 0, 0, 0, 1, 1);
  b = em_add_update("a.n2", 0, T_PER, K_UU, 0.1, 0, 1, 0, 1, 1);
  em_specs[a].status = DIAGC_DID_NOTHING;
  em_specs[b].status = DIAGC_DID_NOTHING;
  sim = make(0, NULL);
  rc = diagc_sim_advance_to(sim, 0.2);
  check(rc == 0 && em_count(a, 'H') == 2 && em_count(b, 'H') == 2 &&
            em_count(a, 'A') == 0 && em_count(b, 'A') == 0 &&
            ctx_of(sim)->xd[0] == 0 && ctx_of(sim)->xd[1] == 0 &&
            stats_of(sim).discrete_updates == 0 &&
            stats_of(sim).unrestricted_updates == 0,
        "did_nothing.skips_apply", "trace '%s'", trace_str());
  diagc_sim_destroy(sim);

  em_reset();
  a = em_add_update("a.n1", 0, T_PER, K_DU, 0.1, 0, 0, 0, 1, 1);
  b = em_add_update("a.s2", 0, T_PER, K_DU, 0.1, 0, 1, 0, 1, 1);
  em_specs[a].status = DIAGC_DID_NOTHING;
  sim = make(0, NULL);
  rc = diagc_sim_advance_to(sim, 0);
  check(rc == 0 && em_count(a, 'A') == 1 && em_count(b, 'A') == 1 &&
            ctx_of(sim)->xd[0] == 1 && ctx_of(sim)->xd[1] == 1,
        "did_nothing.mixed_applies_all", "trace '%s'", trace_str());
  diagc_sim_destroy(sim);
}

/* Events of several leaves: leaf order, then initialization / per-step /
 * timed, then declaration order. */
static void test_leaf_order(void) {
  diagc_sim *sim;
  int rc;
  em_reset();
  em_add("c.p", 2, T_STEP, K_PUB, 0, 0);      /* 0 */
  em_add("a.per", 0, T_PER, K_PUB, 1, 0);     /* 1 */
  em_add("b.p", 1, T_INIT, K_PUB, 0, 0);      /* 2 */
  em_add("a.step", 0, T_STEP, K_PUB, 0, 0);   /* 3 */
  em_add("a.init", 0, T_INIT, K_PUB, 0, 0);   /* 4 */
  em_add("a.step2", 0, T_STEP, K_PUB, 0, 0);  /* 5 */
  sim = make(0, NULL);
  rc = diagc_sim_initialize(sim);
  check(rc == 0 && strcmp(trace_str(), "H4 H3 H5 H1 H2 H0") == 0,
        "order.leaf_trigger_declaration", "trace '%s'", trace_str());
  diagc_sim_destroy(sim);
}

/* Failures and termination. */
static void test_status(void) {
  diagc_sim *sim;
  int rc, f, s, p1, p2, ps;
  /* An update failure stops at once; nothing is applied. */
  em_reset();
  f = em_add_update("a.fail", 0, T_PER, K_DU, 0.1, 0, 0, 0, 1, 1);
  s = em_add_update("a.ok", 0, T_PER, K_DU, 0.1, 0, 1, 0, 1, 1);
  em_specs[f].status = DIAGC_FAILED;
  sim = make(0, NULL);
  rc = diagc_sim_advance_to(sim, 1.0);
  check(rc == DIAGC_SIM_E_EVENT && em_count(f, 'H') == 1 &&
            em_count(s, 'H') == 0 && em_count(f, 'A') == 0 &&
            ctx_of(sim)->xd[0] == 0 &&
            strstr(diagc_sim_error(sim), "a.fail") != NULL,
        "status.update_failure_stops", "rc %d trace '%s' msg '%s'", rc,
        trace_str(), diagc_sim_error(sim));
  rc = diagc_sim_advance_to(sim, 1.0);
  check(rc == DIAGC_SIM_E_STATE, "status.needs_reinitialize", "rc %d", rc);
  diagc_sim_destroy(sim);

  /* Every publish runs; the worst status is reported. */
  em_reset();
  p1 = em_add("a.p1", 0, T_STEP, K_PUB, 0, 0);
  p2 = em_add("a.p2", 0, T_STEP, K_PUB, 0, 0);
  em_specs[p1].status = DIAGC_FAILED;
  sim = make(0, NULL);
  rc = diagc_sim_initialize(sim);
  check(rc == DIAGC_SIM_E_EVENT && em_count(p1, 'H') == 1 &&
            em_count(p2, 'H') == 1 &&
            strstr(diagc_sim_error(sim), "a.p1") != NULL,
        "status.publish_failure_runs_all", "rc %d trace '%s' msg '%s'", rc,
        trace_str(), diagc_sim_error(sim));
  diagc_sim_destroy(sim);

  /* Termination from a publish stops AdvanceTo at that time; advancing
   * again continues. */
  em_reset();
  p1 = em_add("a.stop", 0, T_PER, K_PUB, 10, 0.3);
  em_specs[p1].status = DIAGC_REACHED_TERMINATION;
  sim = make(1, NULL);
  rc = diagc_sim_advance_to(sim, 1.0);
  check(rc == DIAGC_SIM_TERMINATED && diagc_sim_time(sim) == 0.3 &&
            strstr(diagc_sim_error(sim), "a.stop") != NULL,
        "status.termination", "rc %d t %.17g msg '%s'", rc,
        diagc_sim_time(sim), diagc_sim_error(sim));
  rc = diagc_sim_advance_to(sim, 1.0);
  check(rc == 0 && diagc_sim_time(sim) == 1.0, "status.continue_after_termination",
        "rc %d t %.17g", rc, diagc_sim_time(sim));
  diagc_sim_destroy(sim);

  /* Termination from an initialization update: applied, no publishes. */
  em_reset();
  f = em_add_update("a.init_stop", 0, T_INIT, K_DU, 0, 0, 0, 0, 1, 7);
  ps = em_add("a.p_step", 0, T_STEP, K_PUB, 0, 0);
  em_specs[f].status = DIAGC_REACHED_TERMINATION;
  sim = make(0, NULL);
  rc = diagc_sim_initialize(sim);
  check(rc == DIAGC_SIM_TERMINATED && em_count(f, 'A') == 1 &&
            em_count(ps, 'H') == 0 && ctx_of(sim)->xd[0] == 7,
        "status.init_termination", "rc %d trace '%s'", rc, trace_str());
  diagc_sim_destroy(sim);

  /* A handler returning an unknown status counts as a failure. */
  em_reset();
  f = em_add("a.weird", 0, T_STEP, K_PUB, 0, 0);
  em_specs[f].status = 42;
  sim = make(0, NULL);
  rc = diagc_sim_initialize(sim);
  check(rc == DIAGC_SIM_E_EVENT && strstr(diagc_sim_error(sim), "42") != NULL,
        "status.invalid_status", "rc %d msg '%s'", rc, diagc_sim_error(sim));
  diagc_sim_destroy(sim);
}

int main(void) {
  test_init_order();
  test_init_suppressed();
  test_per_step();
  test_offsets();
  test_pending();
  test_ties();
  test_stretch();
  test_no_drift(0.0);
  test_no_drift(3e-4);
  test_time_change();
  test_shared_buffer();
  test_leaf_order();
  test_status();
  return check_exit();
}
