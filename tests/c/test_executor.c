/* test_executor.c: the callback-group executor (diagc/executor.h).
 *
 * Deterministic checks use the manual clock and 1 worker; threaded checks
 * assert only orders and counts, never durations.  Expected values come
 * from the arrival sequences the tests build, not from the executor.
 * tests/cli/executor_tsan.sh runs this file under ThreadSanitizer too. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diagc/executor.h"

#include "check.h"

static diagc_exec *make(int threads, int ordering, int clock) {
  diagc_exec_config c;
  diagc_exec_config_init(&c);
  c.threads = threads;
  c.ordering = ordering;
  c.clock = clock;
  return diagc_exec_create(&c);
}

/* ---- a log of (group, entity, payload) records --------------------------- */

#define LOGMAX 4096
typedef struct logrec { int group, entity, payload; } logrec;
typedef struct tlog {
  pthread_mutex_t mu;
  logrec r[LOGMAX];
  int n;
} tlog;

typedef struct ectx {
  tlog *log;
  int group;
  diagc_exec *ex;
  int64_t advance_ns; /* timers: move the manual clock (a slow callback) */
} ectx;

static void log_cb(void *user, const diagc_exec_event *ev) {
  ectx *c = user;
  int payload = -1;
  if (ev->kind != DIAGC_ENT_TIMER && ev->kind != DIAGC_ENT_GUARD && ev->size >= sizeof(int))
    memcpy(&payload, ev->data, sizeof payload);
  if (ev->kind == DIAGC_ENT_TIMER) payload = (int)(ev->time_ns / 1000000);
  pthread_mutex_lock(&c->log->mu);
  if (c->log->n < LOGMAX) c->log->r[c->log->n++] = (logrec){ c->group, ev->entity, payload };
  pthread_mutex_unlock(&c->log->mu);
  if (c->advance_ns > 0) diagc_exec_advance_clock(c->ex, diagc_exec_now(c->ex) + c->advance_ns);
}

static void tlog_init(tlog *l) {
  memset(l, 0, sizeof *l);
  pthread_mutex_init(&l->mu, NULL);
}

/* ---- FIFO inside a group ---------------------------------------------------- */

static void test_fifo(void) {
  diagc_exec *ex = make(1, DIAGC_EXEC_FIFO, DIAGC_CLOCK_MANUAL);
  tlog *L = malloc(sizeof *L);
  tlog_init(L);
  ectx c = { L, 0, ex, 0 };
  int g = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
  int s[3];
  for (int i = 0; i < 3; i++) s[i] = diagc_exec_add_subscription(ex, g, sizeof(int), 8, DIAGC_OVERFLOW_REJECT, log_cb, &c);
  diagc_exec_prepare(ex);
  /* arrival: (sub, payload) */
  static const int seq[][2] = { {0, 1}, {1, 2}, {0, 3}, {2, 4}, {1, 5}, {2, 6}, {0, 7} };
  int n = (int)(sizeof seq / sizeof seq[0]);
  for (int i = 0; i < n; i++) diagc_exec_deliver(ex, s[seq[i][0]], &seq[i][1], sizeof(int));
  diagc_exec_spin_some(ex);
  int ok = L->n == n;
  for (int i = 0; ok && i < n; i++) ok = L->r[i].entity == s[seq[i][0]] && L->r[i].payload == seq[i][1];
  check(ok, "executor_fifo_within_group", "ran %d of %d, order differs from arrival", L->n, n);
  diagc_exec_destroy(ex);
  free(L);
}

/* ---- fairness across ready groups ------------------------------------------- */

static void test_fairness(void) {
  diagc_exec *ex = make(1, DIAGC_EXEC_FIFO, DIAGC_CLOCK_MANUAL);
  tlog *L = malloc(sizeof *L);
  tlog_init(L);
  enum { G = 4, M = 20 };
  ectx c[G];
  int sub[G];
  for (int g = 0; g < G; g++) {
    c[g] = (ectx){ L, g, ex, 0 };
    int gid = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
    sub[g] = diagc_exec_add_subscription(ex, gid, sizeof(int), M, DIAGC_OVERFLOW_REJECT, log_cb, &c[g]);
  }
  diagc_exec_prepare(ex);
  /* group 0 gets all its messages first: a burst must not monopolise */
  for (int g = 0; g < G; g++)
    for (int i = 0; i < M; i++) diagc_exec_deliver(ex, sub[g], &i, sizeof i);
  diagc_exec_spin_some(ex);
  int count[G] = { 0 }, worst = 0;
  for (int i = 0; i < L->n; i++) {
    count[L->r[i].group]++;
    int lo = M, hi = 0;
    for (int g = 0; g < G; g++) {
      if (count[g] < lo) lo = count[g];
      if (count[g] > hi) hi = count[g];
    }
    /* once every group has been served once, they stay within one service */
    if (i >= G && hi - lo > worst) worst = hi - lo;
  }
  check(L->n == G * M && worst <= 1, "executor_fairness_round_robin",
        "ran %d of %d, largest service gap %d (want <= 1)", L->n, G * M, worst);
  diagc_exec_destroy(ex);
  free(L);
}

/* ---- identical per-group order with 1 and 4 threads ----------------------- */

enum { OG = 6 };

/* Runs a fixed arrival script; fills per-group logs. */
static void run_script(int threads, int out[OG][512], int outn[OG]) {
  diagc_exec *ex = make(threads, DIAGC_EXEC_FIFO, DIAGC_CLOCK_MANUAL);
  tlog *L = malloc(sizeof *L);
  tlog_init(L);
  ectx c[OG];
  int sub[OG][2];
  for (int g = 0; g < OG; g++) {
    c[g] = (ectx){ L, g, ex, 0 };
    int gid = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
    diagc_exec_add_timer(ex, gid, (g + 1) * 1000000, 0, log_cb, &c[g]);
    sub[g][0] = diagc_exec_add_subscription(ex, gid, sizeof(int), 64, DIAGC_OVERFLOW_REJECT, log_cb, &c[g]);
    sub[g][1] = diagc_exec_add_subscription(ex, gid, sizeof(int), 64, DIAGC_OVERFLOW_REJECT, log_cb, &c[g]);
  }
  diagc_exec_prepare(ex);
  unsigned r = 12345;
  int payload = 0;
  for (int step = 1; step <= 20; step++) {
    for (int k = 0; k < 8; k++) {
      r = r * 1103515245u + 12345u;
      int g = (int)((r >> 8) % OG), which = (int)((r >> 4) & 1);
      payload++;
      diagc_exec_deliver(ex, sub[g][which], &payload, sizeof payload);
    }
    diagc_exec_advance_clock(ex, (int64_t)step * 1000000);
    diagc_exec_spin_some(ex);
  }
  /* timer items queued by the last re-arms are newer than its snapshot */
  diagc_exec_stop_timers(ex);
  while (!diagc_exec_idle(ex)) diagc_exec_spin_some(ex);
  for (int g = 0; g < OG; g++) outn[g] = 0;
  for (int i = 0; i < L->n; i++) {
    int g = L->r[i].group;
    if (outn[g] < 512) out[g][outn[g]++] = L->r[i].entity * 100000 + L->r[i].payload;
  }
  diagc_exec_destroy(ex);
  free(L);
}

static void test_same_order_threads(void) {
  static int a[OG][512], b[OG][512], c8[OG][512];
  int an[OG], bn[OG], cn[OG];
  run_script(1, a, an);
  run_script(4, b, bn);
  run_script(8, c8, cn);
  int same = 1, total = 0;
  for (int g = 0; g < OG; g++) {
    total += an[g];
    if (an[g] != bn[g] || an[g] != cn[g]) same = 0;
    for (int i = 0; same && i < an[g]; i++) same = a[g][i] == b[g][i] && a[g][i] == c8[g][i];
  }
  /* 160 messages + timer firings at 0..20 ms: sum over g of (20/(g+1) + 1) */
  int timers = 0;
  for (int g = 0; g < OG; g++) timers += 20 / (g + 1) + 1;
  check(same && total == 160 + timers, "executor_same_group_order_1_4_8_threads",
        "same=%d total=%d (want %d)", same, total, 160 + timers);
}

/* ---- mutual exclusion and reentrancy ------------------------------------- */

typedef struct conc {
  atomic_int active, max_active, calls;
  atomic_int arrived;
  atomic_int met;
} conc;

static void me_cb(void *user, const diagc_exec_event *ev) {
  (void)ev;
  conc *c = user;
  int a = atomic_fetch_add(&c->active, 1) + 1;
  int m = atomic_load(&c->max_active);
  while (a > m && !atomic_compare_exchange_weak(&c->max_active, &m, a)) {}
  for (volatile int i = 0; i < 2000; i++) {}
  atomic_fetch_add(&c->calls, 1);
  atomic_fetch_sub(&c->active, 1);
}

/* A barrier with a timeout: returns 1 if `n` callbacks were inside at once. */
static void barrier_cb(void *user, const diagc_exec_event *ev) {
  (void)ev;
  conc *c = user;
  atomic_fetch_add(&c->arrived, 1);
  for (int i = 0; i < 20000 && atomic_load(&c->arrived) < 2; i++) sleep_us(250); /* <= 5 s */
  if (atomic_load(&c->arrived) >= 2) atomic_store(&c->met, 1);
  atomic_fetch_add(&c->calls, 1);
}

static void test_exclusive_and_reentrant(void) {
  diagc_exec *ex = make(4, DIAGC_EXEC_FIFO, DIAGC_CLOCK_MONOTONIC);
  conc *me = calloc(1, sizeof *me);
  conc *re = calloc(1, sizeof *re);
  int g = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
  int subs[4];
  for (int i = 0; i < 4; i++) subs[i] = diagc_exec_add_subscription(ex, g, sizeof(int), 100, DIAGC_OVERFLOW_REJECT, me_cb, me);
  int gr = diagc_exec_add_group(ex, DIAGC_GROUP_REENTRANT);
  int rsub = diagc_exec_add_subscription(ex, gr, sizeof(int), 8, DIAGC_OVERFLOW_REJECT, barrier_cb, re);
  diagc_exec_prepare(ex);
  for (int k = 0; k < 100; k++)
    for (int i = 0; i < 4; i++) diagc_exec_deliver(ex, subs[i], &k, sizeof k);
  diagc_exec_spin_some(ex);
  check(atomic_load(&me->calls) == 400 && atomic_load(&me->max_active) == 1,
        "executor_exclusive_group_never_concurrent", "calls %d, max concurrent %d",
        atomic_load(&me->calls), atomic_load(&me->max_active));
  int one = 1;
  diagc_exec_deliver(ex, rsub, &one, sizeof one);
  diagc_exec_deliver(ex, rsub, &one, sizeof one);
  diagc_exec_spin_some(ex);
  check(atomic_load(&re->met) == 1 && atomic_load(&re->calls) == 2, "executor_reentrant_group_concurrent",
        "two callbacks of a reentrant group never overlapped (calls %d)", atomic_load(&re->calls));
  diagc_exec_destroy(ex);
  free(me);
  free(re);
}

/* ---- slow timers do not starve anything ------------------------------------ */

static void slow_timer_case(int threads, const char *name) {
  diagc_exec *ex = make(threads, DIAGC_EXEC_FIFO, DIAGC_CLOCK_MANUAL);
  tlog *L = malloc(sizeof *L);
  tlog_init(L);
  int g1 = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
  int g2 = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
  /* two timers of 10 ms whose callbacks take 25 ms (they move the clock),
   * a subscription in the same group, a timer and a subscription elsewhere */
  ectx slow1 = { L, 0, ex, 25000000 }, slow2 = { L, 0, ex, 25000000 };
  ectx same = { L, 0, ex, 0 }, other = { L, 1, ex, 0 };
  int t1 = diagc_exec_add_timer(ex, g1, 10000000, 0, log_cb, &slow1);
  int t2 = diagc_exec_add_timer(ex, g1, 10000000, 0, log_cb, &slow2);
  int s1 = diagc_exec_add_subscription(ex, g1, sizeof(int), 400, DIAGC_OVERFLOW_REJECT, log_cb, &same);
  int t3 = diagc_exec_add_timer(ex, g2, 10000000, 5000000, log_cb, &other);
  int s2 = diagc_exec_add_subscription(ex, g2, sizeof(int), 400, DIAGC_OVERFLOW_REJECT, log_cb, &other);
  diagc_exec_prepare(ex);
  for (int k = 0; k < 200; k++) {
    int64_t t = (int64_t)k * 10000000;
    if (t > diagc_exec_now(ex)) diagc_exec_advance_clock(ex, t);
    diagc_exec_deliver(ex, s1, &k, sizeof k);
    diagc_exec_deliver(ex, s2, &k, sizeof k);
    diagc_exec_spin_some(ex);
  }
  diagc_exec_stop_timers(ex);
  while (!diagc_exec_idle(ex)) diagc_exec_spin_some(ex);
  diagc_exec_entity_stats st1, st2, ts1, ts2, ts3;
  diagc_exec_get_stats(ex, s1, &st1);
  diagc_exec_get_stats(ex, s2, &st2);
  diagc_exec_get_stats(ex, t1, &ts1);
  diagc_exec_get_stats(ex, t2, &ts2);
  diagc_exec_get_stats(ex, t3, &ts3);
  /* in-group order: each subscription message ran before any timer event
   * queued after it... checked through counts: every message ran */
  char n1[96];
  snprintf(n1, sizeof n1, "%s_subscriptions_served", name);
  check(st1.run == 200 && st2.run == 200 && st1.dropped + st1.rejected + st2.dropped + st2.rejected == 0, n1,
        "same-group sub ran %llu/200, other-group sub ran %llu/200",
        (unsigned long long)st1.run, (unsigned long long)st2.run);
  snprintf(n1, sizeof n1, "%s_both_overrunning_timers_run", name);
  check(ts1.run >= 10 && ts2.run >= 10 && ts3.run >= 10, n1, "timer runs %llu %llu %llu",
        (unsigned long long)ts1.run, (unsigned long long)ts2.run, (unsigned long long)ts3.run);
  snprintf(n1, sizeof n1, "%s_at_most_one_pending_timer_event", name);
  check(ts1.high_water == 1 && ts2.high_water == 1 && ts1.missed_periods > 0, n1,
        "high water %d %d, missed periods %llu", ts1.high_water, ts2.high_water,
        (unsigned long long)ts1.missed_periods);
  /* latency bound: a message waits at most for the callbacks queued before
   * it in its group (here two 25 ms timers), measured in manual time by the
   * order: between two consecutive subscription runs of group 0 there are at
   * most 2 timer runs */
  int worst = 0, since = 0;
  for (int i = 0; i < L->n; i++) {
    if (L->r[i].group != 0) continue;
    if (L->r[i].entity == s1) since = 0;
    else if (++since > worst) worst = since;
  }
  snprintf(n1, sizeof n1, "%s_bounded_wait_behind_timers", name);
  check(worst <= 2 || st1.run < 200, n1, "%d timer runs in a row in the subscription's group", worst);
  diagc_exec_destroy(ex);
  free(L);
}

/* ---- ordering policies -------------------------------------------------------- */

static void ordering_case(int ordering, const char *name, const int *want, int nwant) {
  diagc_exec *ex = make(1, ordering, DIAGC_CLOCK_MANUAL);
  tlog *L = malloc(sizeof *L);
  tlog_init(L);
  ectx c = { L, 0, ex, 0 };
  int g = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
  int s = diagc_exec_add_subscription(ex, g, sizeof(int), 8, DIAGC_OVERFLOW_REJECT, log_cb, &c);
  int t = diagc_exec_add_timer(ex, g, 5000000, 5000000, log_cb, &c);
  diagc_exec_prepare(ex);
  for (int i = 1; i <= 3; i++) diagc_exec_deliver(ex, s, &i, sizeof i);
  diagc_exec_advance_clock(ex, 5000000); /* the timer's item comes after */
  int four = 4;
  diagc_exec_deliver(ex, s, &four, sizeof four);
  diagc_exec_spin_some(ex);
  int ok = L->n == nwant;
  for (int i = 0; ok && i < nwant; i++) ok = (want[i] < 0 ? L->r[i].entity == t : L->r[i].payload == want[i]);
  check(ok, name, "ran %d items, order differs", L->n);
  diagc_exec_destroy(ex);
  free(L);
}

/* ---- overflow policies ----------------------------------------------------- */

static atomic_int hook_drops, hook_rejects;
static void hook(void *user, int ent, int rejected) {
  (void)user;
  (void)ent;
  atomic_fetch_add(rejected ? &hook_rejects : &hook_drops, 1);
}

static void test_overflow(int policy, const char *name) {
  diagc_exec *ex = make(1, DIAGC_EXEC_FIFO, DIAGC_CLOCK_MANUAL);
  tlog *L = malloc(sizeof *L);
  tlog_init(L);
  ectx c = { L, 0, ex, 0 };
  int g = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
  int s = diagc_exec_add_subscription(ex, g, sizeof(int), 4, policy, log_cb, &c);
  atomic_store(&hook_drops, 0);
  atomic_store(&hook_rejects, 0);
  diagc_exec_set_overflow_hook(ex, hook, NULL);
  diagc_exec_prepare(ex);
  int refused = 0;
  for (int i = 0; i < 10; i++) refused += diagc_exec_deliver(ex, s, &i, sizeof i) == DIAGC_EXEC_E_REJECTED;
  diagc_exec_entity_stats st;
  diagc_exec_get_stats(ex, s, &st);
  diagc_exec_spin_some(ex);
  int first = policy == DIAGC_OVERFLOW_DROP_OLDEST ? 6 : 0;
  int ok = L->n == 4;
  for (int i = 0; ok && i < 4; i++) ok = L->r[i].payload == first + i;
  if (policy == DIAGC_OVERFLOW_DROP_OLDEST)
    ok = ok && st.accepted == 10 && st.dropped == 6 && st.rejected == 0 && refused == 0 && atomic_load(&hook_drops) == 6;
  else
    ok = ok && st.accepted == 4 && st.rejected == 6 && st.dropped == 0 && refused == 6 && atomic_load(&hook_rejects) == 6;
  ok = ok && st.high_water == 4 && st.queued == 4 && st.offered == 10;
  check(ok, name, "ran %d, accepted %llu dropped %llu rejected %llu high water %d", L->n,
        (unsigned long long)st.accepted, (unsigned long long)st.dropped, (unsigned long long)st.rejected,
        st.high_water);
  diagc_exec_destroy(ex);
  free(L);
}

/* ---- shutdown under load --------------------------------------------------------- */

typedef struct load {
  diagc_exec *ex;
  int subs[8];
  atomic_int stop;
  atomic_long ran[8];
  atomic_long sent;
} load;

typedef struct subctx { load *ld; int i; } subctx;

static void load_cb(void *user, const diagc_exec_event *ev) {
  (void)ev;
  subctx *c = user;
  for (volatile int i = 0; i < 500; i++) {}
  atomic_fetch_add(&c->ld->ran[c->i], 1);
}

static void *publisher(void *arg) {
  load *ld = arg;
  int k = 0;
  while (!atomic_load(&ld->stop)) {
    for (int i = 0; i < 8; i++) diagc_exec_deliver(ld->ex, ld->subs[i], &k, sizeof k);
    atomic_fetch_add(&ld->sent, 8);
    k++;
    if ((k & 63) == 0) sleep_us(50);
  }
  return NULL;
}

static void *spinner(void *arg) {
  diagc_exec_spin(arg);
  return NULL;
}

static void test_shutdown_under_load(void) {
  load *ld = calloc(1, sizeof *ld);
  ld->ex = make(4, DIAGC_EXEC_FIFO, DIAGC_CLOCK_MONOTONIC);
  subctx sc[8];
  for (int i = 0; i < 8; i++) {
    int g = diagc_exec_add_group(ld->ex, i % 2 ? DIAGC_GROUP_REENTRANT : DIAGC_GROUP_EXCLUSIVE);
    sc[i] = (subctx){ ld, i };
    ld->subs[i] = diagc_exec_add_subscription(ld->ex, g, sizeof(int), 16,
                                              i % 4 < 2 ? DIAGC_OVERFLOW_REJECT : DIAGC_OVERFLOW_DROP_OLDEST,
                                              load_cb, &sc[i]);
  }
  diagc_exec_prepare(ld->ex);
  pthread_t sp, pub[2];
  pthread_create(&sp, NULL, spinner, ld->ex);
  pthread_create(&pub[0], NULL, publisher, ld);
  pthread_create(&pub[1], NULL, publisher, ld);
  while (atomic_load(&ld->sent) < 20000) sleep_us(200);
  diagc_exec_report rep;
  diagc_exec_shutdown(ld->ex, &rep);
  long ran_at_shutdown = 0;
  for (int i = 0; i < 8; i++) ran_at_shutdown += atomic_load(&ld->ran[i]);
  atomic_store(&ld->stop, 1);
  pthread_join(pub[0], NULL);
  pthread_join(pub[1], NULL);
  pthread_join(sp, NULL);
  long ran_total = 0;
  for (int i = 0; i < 8; i++) ran_total += atomic_load(&ld->ran[i]);
  check(rep.accepted == rep.run + rep.pending + rep.dropped && (long)rep.run == ran_at_shutdown,
        "executor_shutdown_accepted_equals_run_plus_pending",
        "accepted %llu, run %llu, pending %llu, dropped %llu, callbacks seen %ld",
        (unsigned long long)rep.accepted, (unsigned long long)rep.run, (unsigned long long)rep.pending,
        (unsigned long long)rep.dropped, ran_at_shutdown);
  check(ran_total == ran_at_shutdown, "executor_nothing_runs_after_shutdown", "%ld callbacks after shutdown",
        ran_total - ran_at_shutdown);
  int per_ok = 1;
  diagc_exec_report after;
  diagc_exec_report_totals(ld->ex, &after);
  for (int i = 0; i < 8; i++) {
    diagc_exec_entity_stats st;
    diagc_exec_get_stats(ld->ex, ld->subs[i], &st);
    if (st.offered != st.accepted + st.rejected) per_ok = 0;
    if (st.accepted != st.run + (uint64_t)st.queued + st.dropped) per_ok = 0;
    if ((long)st.run != atomic_load(&ld->ran[i])) per_ok = 0;
    if (st.high_water > st.capacity) per_ok = 0;
  }
  check(per_ok && after.offered == (uint64_t)atomic_load(&ld->sent) && after.rejected > 0,
        "executor_shutdown_per_queue_accounting", "offered %llu vs sent %ld, rejected %llu",
        (unsigned long long)after.offered, atomic_load(&ld->sent), (unsigned long long)after.rejected);
  diagc_exec_destroy(ld->ex);
  free(ld);
}

/* ---- spin_some snapshot, spin_until ----------------------------------------- */

typedef struct chain { diagc_exec *ex; int sub; atomic_int runs; } chain;
static void chain_cb(void *user, const diagc_exec_event *ev) {
  chain *c = user;
  atomic_fetch_add(&c->runs, 1);
  diagc_exec_deliver(c->ex, c->sub, ev->data, ev->size); /* re-queues itself */
}

static void test_spin_some_snapshot(int threads, const char *name) {
  chain *c = calloc(1, sizeof *c);
  c->ex = make(threads, DIAGC_EXEC_FIFO, DIAGC_CLOCK_MANUAL);
  int g = diagc_exec_add_group(c->ex, DIAGC_GROUP_REENTRANT);
  c->sub = diagc_exec_add_subscription(c->ex, g, sizeof(int), 16, DIAGC_OVERFLOW_REJECT, chain_cb, c);
  diagc_exec_prepare(c->ex);
  for (int i = 0; i < 3; i++) diagc_exec_deliver(c->ex, c->sub, &i, sizeof i);
  diagc_exec_spin_some(c->ex);
  int first = atomic_load(&c->runs);
  diagc_exec_spin_some(c->ex);
  int second = atomic_load(&c->runs) - first;
  check(first == 3 && second == 3, name, "runs %d then %d (want 3, 3)", first, second);
  diagc_exec_destroy(c->ex);
  free(c);
}

static atomic_int ticks;
static void tick_cb(void *user, const diagc_exec_event *ev) {
  (void)user;
  (void)ev;
  atomic_fetch_add(&ticks, 1);
}
static int five_ticks(void *user) {
  (void)user;
  return atomic_load(&ticks) >= 5;
}

static void test_spin_until(void) {
  diagc_exec *ex = make(1, DIAGC_EXEC_FIFO, DIAGC_CLOCK_MANUAL);
  int g = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
  diagc_exec_add_timer(ex, g, 1000000, 0, tick_cb, NULL);
  atomic_store(&ticks, 0);
  diagc_exec_prepare(ex);
  /* timer fires at 0, 1, 2, 3, 4 ms: the 5th tick happens at 4 ms */
  int r = diagc_exec_spin_until(ex, five_ticks, NULL, 1000000000);
  int64_t t = diagc_exec_now(ex);
  check(r == 1 && atomic_load(&ticks) == 5 && t == 4000000, "executor_spin_until_predicate",
        "returned %d with %d ticks at %lld ns", r, atomic_load(&ticks), (long long)t);
  /* deadline 14 ms: events strictly before it (5..13 ms) run, 9 more */
  r = diagc_exec_spin_until(ex, NULL, NULL, 14000000);
  t = diagc_exec_now(ex);
  check(r == 0 && atomic_load(&ticks) == 14 && t == 14000000, "executor_spin_until_deadline",
        "returned %d with %d ticks at %lld ns", r, atomic_load(&ticks), (long long)t);
  diagc_exec_destroy(ex);
}

static void test_spin_until_monotonic(void) {
  /* wall-clock deadline: only checks that it returns 0 without the predicate */
  diagc_exec *ex = make(2, DIAGC_EXEC_FIFO, DIAGC_CLOCK_MONOTONIC);
  int g = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
  diagc_exec_add_timer(ex, g, 1000000, 0, tick_cb, NULL);
  atomic_store(&ticks, 0);
  diagc_exec_prepare(ex);
  int r = diagc_exec_spin_until(ex, five_ticks, NULL, diagc_exec_now(ex) + 60LL * 1000000000);
  int r2 = diagc_exec_spin_until(ex, NULL, NULL, diagc_exec_now(ex) + 3000000);
  check(r == 1 && atomic_load(&ticks) >= 5 && r2 == 0, "executor_spin_until_wall_clock",
        "returned %d, %d with %d ticks", r, r2, atomic_load(&ticks));
  diagc_exec_destroy(ex);
}

/* ---- services, guards, config --------------------------------------------------- */

static void service_cb(void *user, const diagc_exec_event *ev) {
  (void)user;
  int x;
  memcpy(&x, ev->data, sizeof x);
  x *= 2;
  memcpy(ev->response, &x, sizeof x);
}
static int responses[8], nresp;
static void client_cb(void *user, const diagc_exec_event *ev) {
  (void)user;
  if (nresp < 8) memcpy(&responses[nresp++], ev->data, sizeof(int));
}

static void test_service_client(void) {
  diagc_exec *ex = make(1, DIAGC_EXEC_FIFO, DIAGC_CLOCK_MANUAL);
  int g1 = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
  int g2 = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
  int srv = diagc_exec_add_service(ex, g1, sizeof(int), sizeof(int), 4, DIAGC_OVERFLOW_REJECT, service_cb, NULL);
  int cli = diagc_exec_add_client(ex, g2, srv, 4, DIAGC_OVERFLOW_REJECT, client_cb, NULL);
  diagc_exec_prepare(ex);
  for (int i = 1; i <= 3; i++) diagc_exec_call(ex, cli, &i, sizeof i);
  diagc_exec_spin_some(ex); /* requests */
  diagc_exec_spin_some(ex); /* responses */
  check(nresp == 3 && responses[0] == 2 && responses[1] == 4 && responses[2] == 6, "executor_service_client",
        "%d responses", nresp);
  diagc_exec_destroy(ex);
}

static void test_guard(void) {
  diagc_exec *ex = make(1, DIAGC_EXEC_FIFO, DIAGC_CLOCK_MANUAL);
  int g = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
  atomic_store(&ticks, 0);
  int gd = diagc_exec_add_guard(ex, g, tick_cb, NULL);
  diagc_exec_prepare(ex);
  for (int i = 0; i < 3; i++) diagc_exec_trigger(ex, gd);
  diagc_exec_spin_some(ex);
  diagc_exec_trigger(ex, gd);
  diagc_exec_spin_some(ex);
  diagc_exec_entity_stats st;
  diagc_exec_get_stats(ex, gd, &st);
  check(atomic_load(&ticks) == 2 && st.coalesced == 2 && st.accepted == 2 && st.offered == 4,
        "executor_guard_coalesces", "runs %d coalesced %llu", atomic_load(&ticks), (unsigned long long)st.coalesced);
  diagc_exec_destroy(ex);
}

static void test_config_and_errors(void) {
  diagc_exec *ex = make(0, DIAGC_EXEC_FIFO, DIAGC_CLOCK_MANUAL);
  int g = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
  int bad1 = diagc_exec_add_timer(ex, g, 0, 0, tick_cb, NULL);
  int bad2 = diagc_exec_add_subscription(ex, 99, 4, 4, DIAGC_OVERFLOW_REJECT, tick_cb, NULL);
  int s = diagc_exec_add_subscription(ex, g, 4, 4, DIAGC_OVERFLOW_REJECT, tick_cb, NULL);
  int before = diagc_exec_deliver(ex, s, "abc", 4); /* not prepared yet: rejected */
  diagc_exec_prepare(ex);
  int late = diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE);
  int big = diagc_exec_deliver(ex, s, "abcdefgh", 8);
  diagc_exec_shutdown(ex, NULL);
  int after = diagc_exec_deliver(ex, s, "abc", 4);
  int spin = diagc_exec_spin_some(ex);
  check(diagc_exec_threads(ex) >= 2 && bad1 == DIAGC_EXEC_E_ARG && bad2 == DIAGC_EXEC_E_ARG &&
        before == DIAGC_EXEC_E_REJECTED && late == DIAGC_EXEC_E_STATE && big == DIAGC_EXEC_E_ARG &&
        after == DIAGC_EXEC_E_REJECTED && spin == DIAGC_EXEC_E_SHUTDOWN,
        "executor_config_and_errors", "threads %d, codes %d %d %d %d %d %d %d", diagc_exec_threads(ex), bad1,
        bad2, before, late, big, after, spin);
  diagc_exec_destroy(ex);
}

/* ---- no lost wakeups --------------------------------------------------------- */

typedef struct race { diagc_exec *ex; int sub; atomic_int got; int n; } race;
static void race_cb(void *user, const diagc_exec_event *ev) {
  (void)ev;
  race *r = user;
  atomic_fetch_add(&r->got, 1);
}
static int race_done(void *user) {
  race *r = user;
  return atomic_load(&r->got) >= r->n;
}
static void *race_pub(void *arg) {
  race *r = arg;
  for (int i = 0; i < r->n; i++) {
    while (diagc_exec_deliver(r->ex, r->sub, &i, sizeof i) != DIAGC_OK) sleep_us(10);
    if ((i & 255) == 0) sleep_us(20);
  }
  return NULL;
}

static void test_no_lost_wakeup(void) {
  race *r = calloc(1, sizeof *r);
  r->n = 20000;
  r->ex = make(2, DIAGC_EXEC_FIFO, DIAGC_CLOCK_MONOTONIC);
  int g = diagc_exec_add_group(r->ex, DIAGC_GROUP_EXCLUSIVE);
  r->sub = diagc_exec_add_subscription(r->ex, g, sizeof(int), 4, DIAGC_OVERFLOW_REJECT, race_cb, r);
  diagc_exec_prepare(r->ex);
  pthread_t p;
  pthread_create(&p, NULL, race_pub, r);
  /* a generous hang guard (2 minutes), not a timing assertion */
  int ok = diagc_exec_spin_until(r->ex, race_done, r, diagc_exec_now(r->ex) + 120LL * 1000000000);
  pthread_join(p, NULL);
  check(ok == 1 && atomic_load(&r->got) == r->n, "executor_no_lost_wakeup", "got %d of %d",
        atomic_load(&r->got), r->n);
  diagc_exec_destroy(r->ex);
  free(r);
}

/* ---- bus fan-out across executors ----------------------------------------- */

static void test_bus(void) {
  diagc_exec *a = make(1, DIAGC_EXEC_FIFO, DIAGC_CLOCK_MANUAL);
  diagc_exec *b = make(1, DIAGC_EXEC_FIFO, DIAGC_CLOCK_MANUAL);
  tlog *L = malloc(sizeof *L);
  tlog_init(L);
  ectx ca = { L, 0, a, 0 }, cb = { L, 1, b, 0 };
  int sa = diagc_exec_add_subscription(a, diagc_exec_add_group(a, DIAGC_GROUP_EXCLUSIVE), sizeof(int), 4,
                                       DIAGC_OVERFLOW_REJECT, log_cb, &ca);
  int sb = diagc_exec_add_subscription(b, diagc_exec_add_group(b, DIAGC_GROUP_EXCLUSIVE), sizeof(int), 4,
                                       DIAGC_OVERFLOW_REJECT, log_cb, &cb);
  diagc_bus *bus = diagc_bus_create(4, 4);
  int t1 = diagc_bus_topic(bus, "x");
  int t2 = diagc_bus_topic(bus, "y");
  int t1again = diagc_bus_topic(bus, "x");
  diagc_bus_subscribe(bus, t2, b, sb);
  diagc_bus_subscribe(bus, t1, a, sa);
  diagc_bus_subscribe(bus, t1, b, sb);
  diagc_exec_prepare(a);
  diagc_exec_prepare(b);
  int v = 7, w = 8;
  int n1 = diagc_bus_publish(bus, t1, &v, sizeof v);
  int n2 = diagc_bus_publish(bus, t2, &w, sizeof w);
  diagc_exec_spin_some(a);
  diagc_exec_spin_some(b);
  check(t1again == t1 && n1 == 2 && n2 == 1 && L->n == 3 && strcmp(diagc_bus_topic_name(bus, t2), "y") == 0,
        "executor_bus_fan_out", "delivered %d and %d, ran %d", n1, n2, L->n);
  diagc_bus_destroy(bus);
  diagc_exec_destroy(a);
  diagc_exec_destroy(b);
  free(L);
}

/* ---- large messages: copied outside the lock, concurrently ------------------ */

#define BIG 8192
static atomic_int big_bad, big_runs;
static void big_cb(void *user, const diagc_exec_event *ev) {
  (void)user;
  const unsigned char *d = ev->data;
  int ok = ev->size == BIG;
  for (size_t i = 1; ok && i < ev->size; i++) ok = d[i] == d[0];
  if (!ok) atomic_fetch_add(&big_bad, 1);
  atomic_fetch_add(&big_runs, 1);
}
typedef struct big_prod { diagc_exec *ex; int sub, id, n; } big_prod;
static void *big_producer(void *arg) {
  big_prod *p = arg;
  static _Thread_local unsigned char buf[BIG];
  for (int k = 0; k < p->n; k++) {
    memset(buf, (unsigned char)(p->id * 31 + k), sizeof buf);
    diagc_exec_deliver(p->ex, p->sub, buf, sizeof buf);
  }
  return NULL;
}
static void *big_stopper(void *arg) {
  diagc_exec *ex = arg;
  sleep_us(200000);
  diagc_exec_cancel(ex);
  return NULL;
}

/* Four producers deliver 8 KB messages (copied into their slots outside the
 * executor's lock) to one reentrant subscription of depth 4 while 4 workers
 * consume: every message arrives whole, and offered = accepted + rejected,
 * accepted = run + dropped + queued. */
static void test_big_messages(int policy, const char *name) {
  diagc_exec *ex = make(4, DIAGC_EXEC_FIFO, DIAGC_CLOCK_MONOTONIC);
  int g = diagc_exec_add_group(ex, DIAGC_GROUP_REENTRANT);
  int sub = diagc_exec_add_subscription(ex, g, BIG, 4, policy, big_cb, NULL);
  atomic_store(&big_bad, 0);
  atomic_store(&big_runs, 0);
  diagc_exec_prepare(ex);
  pthread_t th[4], stop;
  big_prod p[4];
  for (int i = 0; i < 4; i++) {
    p[i] = (big_prod){ ex, sub, i, 2000 };
    pthread_create(&th[i], NULL, big_producer, &p[i]);
  }
  pthread_create(&stop, NULL, big_stopper, ex);
  diagc_exec_spin(ex);
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  pthread_join(stop, NULL);
  diagc_exec_spin_some(ex); /* what is still queued */
  diagc_exec_entity_stats st;
  diagc_exec_get_stats(ex, sub, &st);
  int ok = atomic_load(&big_bad) == 0 && st.offered == 8000 && st.offered == st.accepted + st.rejected &&
           st.accepted == st.run + st.dropped + (uint64_t)st.queued && st.run > 0 && st.high_water <= 4;
  check(ok, name, "bad %d, offered %llu accepted %llu rejected %llu run %llu dropped %llu queued %d hw %d",
        atomic_load(&big_bad), (unsigned long long)st.offered, (unsigned long long)st.accepted,
        (unsigned long long)st.rejected, (unsigned long long)st.run, (unsigned long long)st.dropped,
        st.queued, st.high_water);
  diagc_exec_destroy(ex);
}

/* ---- rt_priority: worker threads under SCHED_FIFO ------------------------- */

static atomic_int fifo_seen, cb_runs;
static void policy_cb(void *user, const diagc_exec_event *ev) {
  (void)user;
  (void)ev;
  int policy;
  struct sched_param sp;
  if (pthread_getschedparam(pthread_self(), &policy, &sp) == 0 && policy == SCHED_FIFO &&
      sp.sched_priority == 10)
    atomic_fetch_add(&fifo_seen, 1);
  atomic_fetch_add(&cb_runs, 1);
  sleep_us(3000); /* keep this thread busy so the other one takes work too */
}
static int twenty_runs(void *user) { (void)user; return atomic_load(&cb_runs) >= 20; }

static void test_rt_priority(void) {
  diagc_exec_config c;
  diagc_exec_config_init(&c);
  c.rt_priority = 100;
  diagc_exec *bad = diagc_exec_create(&c);
  c.rt_priority = -1;
  diagc_exec *bad2 = diagc_exec_create(&c);
  check(!bad && !bad2, "executor_rt_priority_range", "priorities 100 and -1 were accepted");
  if (bad) diagc_exec_destroy(bad);
  if (bad2) diagc_exec_destroy(bad2);

  diagc_exec_config_init(&c);
  c.threads = 2;
  c.rt_priority = 10;
  diagc_exec *ex = diagc_exec_create(&c);
  int g = diagc_exec_add_group(ex, DIAGC_GROUP_REENTRANT);
  diagc_exec_add_timer(ex, g, 1000000, 0, policy_cb, NULL);
  diagc_exec_add_timer(ex, g, 1000000, 500000, policy_cb, NULL);
  atomic_store(&fifo_seen, 0);
  atomic_store(&cb_runs, 0);
  int rc = diagc_exec_prepare(ex);
  if (rc == DIAGC_EXEC_E_SCHED) {
    skip("executor_rt_priority_workers", "%s",
         "SCHED_FIFO is not permitted here (prepare returned DIAGC_EXEC_E_SCHED)");
  } else {
    int r = rc == 0 ? diagc_exec_spin_until(ex, twenty_runs, NULL, diagc_exec_now(ex) + 30LL * 1000000000) : -99;
    check(rc == 0 && r == 1 && atomic_load(&fifo_seen) > 0, "executor_rt_priority_workers",
          "prepare %d, spin %d, %d of %d callbacks ran under SCHED_FIFO 10", rc, r,
          atomic_load(&fifo_seen), atomic_load(&cb_runs));
  }
  diagc_exec_destroy(ex);
}

int main(void) {
  test_fifo();
  test_fairness();
  test_same_order_threads();
  test_exclusive_and_reentrant();
  slow_timer_case(1, "executor_slow_timer_1thread");
  slow_timer_case(4, "executor_slow_timer_4threads");
  {
    static const int fifo[] = { 1, 2, 3, -1, 4 };
    static const int tf[] = { -1, 1, 2, 3, 4 };
    ordering_case(DIAGC_EXEC_FIFO, "executor_order_fifo", fifo, 5);
    ordering_case(DIAGC_EXEC_TIMERS_FIRST, "executor_order_timers_first", tf, 5);
  }
  test_overflow(DIAGC_OVERFLOW_DROP_OLDEST, "executor_overflow_drop_oldest_counted");
  test_overflow(DIAGC_OVERFLOW_REJECT, "executor_overflow_reject_counted");
  test_shutdown_under_load();
  test_spin_some_snapshot(1, "executor_spin_some_snapshot_1thread");
  test_spin_some_snapshot(4, "executor_spin_some_snapshot_4threads");
  test_spin_until();
  test_spin_until_monotonic();
  test_service_client();
  test_guard();
  test_config_and_errors();
  test_no_lost_wakeup();
  test_bus();
  test_rt_priority();
  test_big_messages(DIAGC_OVERFLOW_DROP_OLDEST, "executor_big_messages_drop_oldest");
  test_big_messages(DIAGC_OVERFLOW_REJECT, "executor_big_messages_reject");
  return failures ? 1 : 0;
}
