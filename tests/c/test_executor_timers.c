/* test_executor_timers.c: timers of the callback-group executor without a
 * timer thread (an idle worker waits for the next deadline and fires the
 * timers itself; see diagc/executor.h).
 *
 * Only orders, counts and the scheduled times (epoch + offset + k x period,
 * computed here) are asserted, never durations; waits for progress have a
 * generous liveness bound.  tests/cli/executor_tsan.sh runs this file under
 * ThreadSanitizer too. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diagc/executor.h"

#include "check.h"

/* Liveness bound for waits on progress (not a timing assertion). */
#define PATIENCE_NS 20000000000LL

static diagc_exec *make(int threads, int clock) {
  diagc_exec_config c;
  diagc_exec_config_init(&c);
  c.threads = threads;
  c.clock = clock;
  return diagc_exec_create(&c);
}

static void *spin_main(void *arg) {
  diagc_exec_spin(arg);
  return NULL;
}

/* ---- several executors, each firing its own timers ------------------------ */

#define NEX 5
#define NTIM 2
#define FIRINGS 40

typedef struct tim_rec {
  atomic_int count;
  atomic_int bad_phase, early, overlap, active;
  int64_t period, offset;
  diagc_exec *ex;
  int64_t last_sched;
  atomic_int order_bad;   /* 1-thread executors: scheduled times never go back */
  int64_t *ex_last;       /* shared by the timers of one 1-thread executor */
} tim_rec;

static void tim_cb(void *user, const diagc_exec_event *ev) {
  tim_rec *t = user;
  if (atomic_fetch_add(&t->active, 1) != 0) atomic_store(&t->overlap, 1);
  int64_t now = diagc_monotonic_ns();
  int64_t epoch = diagc_exec_epoch(t->ex);
  int64_t rel = ev->time_ns - epoch - t->offset;
  if (rel < 0 || rel % t->period != 0) atomic_store(&t->bad_phase, 1);
  if (t->last_sched && ev->time_ns <= t->last_sched) atomic_store(&t->bad_phase, 1);
  t->last_sched = ev->time_ns;
  if (now < ev->time_ns) atomic_store(&t->early, 1);
  if (t->ex_last) {
    if (ev->time_ns < *t->ex_last) atomic_store(&t->order_bad, 1);
    *t->ex_last = ev->time_ns;
  }
  atomic_fetch_add(&t->count, 1);
  atomic_fetch_sub(&t->active, 1);
}

static void test_several_executors(void) {
  diagc_exec *ex[NEX];
  tim_rec tr[NEX][NTIM];
  int64_t ex_last[NEX];
  pthread_t th[NEX];
  int ids[NEX][NTIM];
  memset(tr, 0, sizeof tr);
  memset(ex_last, 0, sizeof ex_last);
  for (int e = 0; e < NEX; e++) {
    int threads = e % 2 ? 2 : 1;
    ex[e] = make(threads, DIAGC_CLOCK_MONOTONIC);
    int g = diagc_exec_add_group(ex[e], DIAGC_GROUP_EXCLUSIVE);
    for (int k = 0; k < NTIM; k++) {
      tim_rec *t = &tr[e][k];
      t->period = (2 + k + e) * 1000000LL; /* 2..7 ms */
      t->offset = (int64_t)k * 500000;
      t->ex = ex[e];
      t->ex_last = threads == 1 ? &ex_last[e] : NULL;
      ids[e][k] = diagc_exec_add_timer(ex[e], g, t->period, t->offset, tim_cb, t);
    }
    diagc_exec_prepare(ex[e]);
  }
  /* one epoch for all, a little ahead: the timers run in phase */
  int64_t start = diagc_monotonic_ns() + 2000000;
  int epoch_rc = 0;
  for (int e = 0; e < NEX; e++) epoch_rc |= diagc_exec_set_epoch(ex[e], start);
  for (int e = 0; e < NEX; e++) pthread_create(&th[e], NULL, spin_main, ex[e]);
  int64_t limit = diagc_monotonic_ns() + PATIENCE_NS;
  for (;;) {
    int done = 1;
    for (int e = 0; e < NEX; e++)
      for (int k = 0; k < NTIM; k++)
        if (atomic_load(&tr[e][k].count) < FIRINGS) done = 0;
    if (done || diagc_monotonic_ns() > limit) break;
    sleep_us(1000);
  }
  diagc_exec_report rep[NEX];
  for (int e = 0; e < NEX; e++) diagc_exec_shutdown(ex[e], &rep[e]);
  for (int e = 0; e < NEX; e++) pthread_join(th[e], NULL);
  int short_of = 0, bad_phase = 0, early = 0, overlap = 0, order_bad = 0, acct = 0, epoch_bad = 0;
  for (int e = 0; e < NEX; e++) {
    if (diagc_exec_epoch(ex[e]) != start) epoch_bad++;
    for (int k = 0; k < NTIM; k++) {
      tim_rec *t = &tr[e][k];
      if (atomic_load(&t->count) < FIRINGS) short_of++;
      bad_phase += atomic_load(&t->bad_phase);
      early += atomic_load(&t->early);
      overlap += atomic_load(&t->overlap);
      order_bad += atomic_load(&t->order_bad);
      diagc_exec_entity_stats st;
      diagc_exec_get_stats(ex[e], ids[e][k], &st);
      /* every period from the first firing to the last one run was either
       * run or skipped (counted); every firing was run or is pending */
      int64_t span = (t->last_sched - (start + t->offset)) / t->period + 1;
      if ((int64_t)(st.run + st.missed_periods) < span || st.run != (uint64_t)atomic_load(&t->count) ||
          st.offered != st.run + (uint64_t)st.queued)
        acct++;
    }
    if (rep[e].offered != rep[e].run + rep[e].pending) acct++;
  }
  check(epoch_rc == 0 && epoch_bad == 0, "timers_set_epoch_shared", "rc %d, %d executors off the common epoch",
        epoch_rc, epoch_bad);
  check(short_of == 0, "timers_several_executors_fire", "%d of %d timers fired fewer than %d times", short_of,
        NEX * NTIM, FIRINGS);
  check(bad_phase == 0 && early == 0, "timers_several_executors_schedule",
        "%d timers off their epoch + offset + k x period grid, %d ran before their scheduled time", bad_phase, early);
  check(order_bad == 0, "timers_ordered_by_due_time", "%d one-thread executors ran a later timer first", order_bad);
  check(overlap == 0, "timers_never_overlap_themselves", "%d timers ran twice at once", overlap);
  check(acct == 0, "timers_accounting", "%d timers/executors with run + missed < periods elapsed or offered != run "
        "+ pending", acct);
  for (int e = 0; e < NEX; e++) diagc_exec_destroy(ex[e]);
}

/* ---- the re-arm rule: an overrunning timer never has a pending event ------- */

typedef struct slow_rec {
  diagc_exec *ex;
  int id;
  atomic_int active, overlap, queued_seen, runs;
} slow_rec;

static void slow_cb(void *user, const diagc_exec_event *ev) {
  (void)ev;
  slow_rec *s = user;
  if (atomic_fetch_add(&s->active, 1) != 0) atomic_store(&s->overlap, 1);
  sleep_us(5000); /* five periods */
  diagc_exec_entity_stats st;
  diagc_exec_get_stats(s->ex, s->id, &st);
  if (st.queued != 0) atomic_store(&s->queued_seen, 1);
  atomic_fetch_sub(&s->active, 1);
  atomic_fetch_add(&s->runs, 1);
}

static int slow_done(void *user) { return atomic_load(&((slow_rec *)user)->runs) >= 6; }

static void test_rearm_rule(void) {
  /* a reentrant group and 3 workers: only the re-arm rule keeps the timer
   * from running on two workers at once */
  diagc_exec *ex = make(3, DIAGC_CLOCK_MONOTONIC);
  int g = diagc_exec_add_group(ex, DIAGC_GROUP_REENTRANT);
  slow_rec s;
  memset(&s, 0, sizeof s);
  s.ex = ex;
  s.id = diagc_exec_add_timer(ex, g, 1000000, 0, slow_cb, &s);
  int held = diagc_exec_spin_until(ex, slow_done, &s, diagc_monotonic_ns() + PATIENCE_NS);
  diagc_exec_report rep;
  diagc_exec_shutdown(ex, &rep);
  diagc_exec_entity_stats st;
  diagc_exec_get_stats(ex, s.id, &st);
  int runs = atomic_load(&s.runs);
  check(held == 1 && atomic_load(&s.overlap) == 0 && atomic_load(&s.queued_seen) == 0, "timers_rearm_after_callback",
        "held %d, overlap %d, an event was queued during the callback: %d", held, atomic_load(&s.overlap),
        atomic_load(&s.queued_seen));
  /* each run lasted >= 5 periods: every re-arm skipped >= 4 of them */
  check(st.high_water == 1 && st.missed_periods >= (uint64_t)(4 * (runs - 1)) && rep.pending <= 1,
        "timers_overrun_skips_periods", "high water %d, missed %llu after %d runs, pending %llu", st.high_water,
        (unsigned long long)st.missed_periods, runs, (unsigned long long)rep.pending);
  diagc_exec_destroy(ex);
}

/* ---- an idle worker keeps the timers while another runs a long callback --- */

typedef struct keep_rec {
  atomic_int fast;  /* firings of the fast timer */
  atomic_int waited_ok, slow_runs;
} keep_rec;

static void fast_cb(void *user, const diagc_exec_event *ev) {
  (void)ev;
  atomic_fetch_add(&((keep_rec *)user)->fast, 1);
}

/* Runs until the fast timer (another group) has fired 5 more times: that
 * needs a second worker to wait for the timers while this one is busy. */
static void long_cb(void *user, const diagc_exec_event *ev) {
  (void)ev;
  keep_rec *k = user;
  int base = atomic_load(&k->fast);
  int64_t limit = diagc_monotonic_ns() + PATIENCE_NS;
  while (atomic_load(&k->fast) < base + 5 && diagc_monotonic_ns() < limit) sleep_us(200);
  if (atomic_load(&k->fast) >= base + 5) atomic_fetch_add(&k->waited_ok, 1);
  atomic_fetch_add(&k->slow_runs, 1);
}

static int keep_done(void *user) { return atomic_load(&((keep_rec *)user)->slow_runs) >= 3; }

static void test_keeper_handoff(void) {
  diagc_exec *ex = make(2, DIAGC_CLOCK_MONOTONIC);
  int g1 = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
  int g2 = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
  keep_rec k;
  memset(&k, 0, sizeof k);
  /* the long callback is itself a timer: the worker that woke for it hands
   * the timers over to the other one */
  diagc_exec_add_timer(ex, g1, 1000000, 0, long_cb, &k);
  diagc_exec_add_timer(ex, g2, 1000000, 500000, fast_cb, &k);
  int held = diagc_exec_spin_until(ex, keep_done, &k, diagc_monotonic_ns() + 3 * PATIENCE_NS);
  diagc_exec_shutdown(ex, NULL);
  check(held == 1 && atomic_load(&k.waited_ok) == atomic_load(&k.slow_runs), "timers_fire_while_a_worker_is_busy",
        "held %d; the other group's timer kept firing during %d of %d long callbacks", held,
        atomic_load(&k.waited_ok), atomic_load(&k.slow_runs));
  diagc_exec_destroy(ex);
}

/* ---- shutting one executor down leaves the others running ----------------- */

static void count_cb(void *user, const diagc_exec_event *ev) {
  (void)ev;
  atomic_fetch_add((atomic_int *)user, 1);
}

static void test_shutdown_one(void) {
  enum { N = 3 };
  diagc_exec *ex[N];
  atomic_int cnt[N];
  pthread_t th[N];
  for (int e = 0; e < N; e++) {
    atomic_init(&cnt[e], 0);
    ex[e] = make(e == 2 ? 2 : 1, DIAGC_CLOCK_MONOTONIC);
    int g = diagc_exec_add_group(ex[e], DIAGC_GROUP_EXCLUSIVE);
    diagc_exec_add_timer(ex[e], g, 1000000, 0, count_cb, &cnt[e]);
    pthread_create(&th[e], NULL, spin_main, ex[e]);
  }
  int64_t limit = diagc_monotonic_ns() + PATIENCE_NS;
  while (atomic_load(&cnt[0]) < 5 && diagc_monotonic_ns() < limit) sleep_us(500);
  diagc_exec_report r0;
  diagc_exec_shutdown(ex[0], &r0);
  pthread_join(th[0], NULL);
  int frozen = atomic_load(&cnt[0]);
  int base1 = atomic_load(&cnt[1]), base2 = atomic_load(&cnt[2]);
  limit = diagc_monotonic_ns() + PATIENCE_NS;
  while ((atomic_load(&cnt[1]) < base1 + 20 || atomic_load(&cnt[2]) < base2 + 20) && diagc_monotonic_ns() < limit)
    sleep_us(500);
  int after1 = atomic_load(&cnt[1]) - base1, after2 = atomic_load(&cnt[2]) - base2;
  for (int e = 1; e < N; e++) diagc_exec_shutdown(ex[e], NULL);
  for (int e = 1; e < N; e++) pthread_join(th[e], NULL);
  check(frozen >= 5 && atomic_load(&cnt[0]) == frozen && r0.run == (uint64_t)frozen,
        "timers_shutdown_stops_one_executor", "fired %d, then %d after shutdown (report: run %llu)", frozen,
        atomic_load(&cnt[0]), (unsigned long long)r0.run);
  check(after1 >= 20 && after2 >= 20, "timers_shutdown_leaves_others", "after the shutdown the others fired %d and %d",
        after1, after2);
  for (int e = 0; e < N; e++) diagc_exec_destroy(ex[e]);
}

/* ---- a due timer is ordered before a later delivery, even between spins -- */

typedef struct order_rec {
  int kinds[8];
  int n;
} order_rec;

static void order_cb(void *user, const diagc_exec_event *ev) {
  order_rec *o = user;
  if (o->n < 8) o->kinds[o->n++] = ev->kind;
}

static void test_due_timer_before_delivery(void) {
  diagc_exec *ex = make(1, DIAGC_CLOCK_MONOTONIC);
  int g = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
  order_rec o;
  memset(&o, 0, sizeof o);
  diagc_exec_add_timer(ex, g, 60LL * 1000000000, 1000000, order_cb, &o); /* due 1 ms after the epoch */
  int sub = diagc_exec_add_subscription(ex, g, 4, 4, DIAGC_OVERFLOW_REJECT, order_cb, &o);
  diagc_exec_prepare(ex);
  sleep_us(3000); /* nobody spins: no thread queues the timer when it comes due */
  int v = 7;
  diagc_exec_deliver(ex, sub, &v, sizeof v);
  diagc_exec_spin_some(ex);
  check(o.n == 2 && o.kinds[0] == DIAGC_ENT_TIMER && o.kinds[1] == DIAGC_ENT_SUBSCRIPTION,
        "timers_due_timer_before_later_delivery", "ran %d items, first kind %d", o.n, o.n ? o.kinds[0] : -1);
  diagc_exec_destroy(ex);
}

/* ---- set_epoch on the manual clock ---------------------------------------- */

typedef struct when_rec { int64_t t[4]; int n; } when_rec;
static void when_cb(void *user, const diagc_exec_event *ev) {
  when_rec *w = user;
  if (w->n < 4) w->t[w->n++] = ev->time_ns;
}

static void test_set_epoch_manual(void) {
  diagc_exec *ex = make(1, DIAGC_CLOCK_MANUAL);
  int g = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
  when_rec w;
  memset(&w, 0, sizeof w);
  diagc_exec_add_timer(ex, g, 100, 500, when_cb, &w);
  int before = diagc_exec_set_epoch(ex, 1000);
  diagc_exec_prepare(ex);
  int rc = diagc_exec_set_epoch(ex, 1000);
  diagc_exec_advance_clock(ex, 1499);
  diagc_exec_spin_some(ex);
  int n_before = w.n;
  diagc_exec_advance_clock(ex, 1500);
  diagc_exec_spin_some(ex);
  diagc_exec_advance_clock(ex, 1650);
  diagc_exec_spin_some(ex);
  check(before == DIAGC_EXEC_E_STATE && rc == 0 && diagc_exec_epoch(ex) == 1000 && n_before == 0 && w.n == 2 &&
            w.t[0] == 1500 && w.t[1] == 1600,
        "timers_set_epoch_manual", "rc %d/%d, fired %d before 1500, then %d: %lld %lld", before, rc, n_before, w.n,
        (long long)w.t[0], (long long)w.t[1]);
  diagc_exec_shutdown(ex, NULL);
  check(diagc_exec_set_epoch(ex, 2000) == DIAGC_EXEC_E_SHUTDOWN && diagc_exec_set_epoch(NULL, 0) == DIAGC_EXEC_E_ARG,
        "timers_set_epoch_errors", "after shutdown or with no executor");
  diagc_exec_destroy(ex);
}

/* ---- cancel and spin_until wake a worker that waits for a timer ---------- */

static void *cancel_later(void *arg) {
  sleep_us(20000);
  diagc_exec_cancel(arg);
  return NULL;
}

static void test_cancel_wakes_keeper(void) {
  /* the only timer is due in a minute: the spinning thread waits for it as
   * the keeper, and cancel must still end the spin at once */
  diagc_exec *ex = make(1, DIAGC_CLOCK_MONOTONIC);
  int g = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
  atomic_int c;
  atomic_init(&c, 0);
  diagc_exec_add_timer(ex, g, 60LL * 1000000000, 60LL * 1000000000, count_cb, &c);
  pthread_t th;
  pthread_create(&th, NULL, cancel_later, ex);
  int64_t t0 = diagc_monotonic_ns();
  int rc = diagc_exec_spin(ex);
  int64_t waited = diagc_monotonic_ns() - t0;
  pthread_join(th, NULL);
  /* a bound of 30 s (half the timer's offset) only tells "woken by cancel"
   * from "woken by the timer" */
  check(rc == DIAGC_OK && atomic_load(&c) == 0 && waited < 30LL * 1000000000, "timers_cancel_wakes_keeper",
        "rc %d, fired %d", rc, atomic_load(&c));
  /* spin_until's deadline is earlier than the next timer: it returns 0 */
  int r2 = diagc_exec_spin_until(ex, NULL, NULL, diagc_monotonic_ns() + 5000000);
  check(r2 == 0 && atomic_load(&c) == 0, "timers_spin_until_deadline_before_timer", "returned %d, fired %d", r2,
        atomic_load(&c));
  diagc_exec_destroy(ex);
}

int main(void) {
  test_several_executors();
  test_rearm_rule();
  test_keeper_handoff();
  test_shutdown_one();
  test_due_timer_before_delivery();
  test_set_epoch_manual();
  test_cancel_wakes_keeper();
  return failures ? 1 : 0;
}
