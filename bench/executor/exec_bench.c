/* exec_bench.c: diagc's executor against the baseline (baseline.c).
 *
 *   exec_bench micro SCALE         spin_some 10x1 / 10x10, wait 1 of 100,
 *                                  group per pair, cascade, per-event cost
 *   exec_bench topo FILE THREADS SECONDS diagc|baseline
 *   exec_bench slow SECONDS THREADS diagc|baseline
 *
 * Prints one "RESULT case impl value..." line per measurement.  malloc,
 * calloc and realloc are interposed: every timed region reports how many
 * allocations happened inside it (must be 0 for diagc). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "baseline.h"
#include "diagc/executor.h"
#include "replay.h"

/* ---- allocation counting ------------------------------------------------ */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
static atomic_long n_alloc;
static atomic_int counting;
void *malloc(size_t n) {
  if (atomic_load_explicit(&counting, memory_order_relaxed)) atomic_fetch_add(&n_alloc, 1);
  return __libc_malloc(n);
}
void *calloc(size_t a, size_t b) {
  if (atomic_load_explicit(&counting, memory_order_relaxed)) atomic_fetch_add(&n_alloc, 1);
  return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n) {
  if (atomic_load_explicit(&counting, memory_order_relaxed)) atomic_fetch_add(&n_alloc, 1);
  return __libc_realloc(p, n);
}
static void count_on(void) {
  atomic_store(&n_alloc, 0);
  atomic_store(&counting, 1);
}
static long count_off(void) {
  atomic_store(&counting, 0);
  return atomic_load(&n_alloc);
}

static double now_s(void) { return (double)diagc_monotonic_ns() / 1e9; }

/* ---- a common facade over both executors --------------------------------- */

typedef struct ex_t {
  int base;
  diagc_exec *d;
  base_exec *b;
} ex_t;

static ex_t mk(int base, int threads) {
  ex_t e = { base, NULL, NULL };
  if (base) {
    e.b = base_create(threads, 4096);
  } else {
    diagc_exec_config c;
    diagc_exec_config_init(&c);
    c.threads = threads;
    c.max_groups = 1024;
    c.max_entities = 4096;
    e.d = diagc_exec_create(&c);
  }
  return e;
}
static int x_group(ex_t *e) { return e->base ? base_add_group(e->b) : diagc_exec_add_group(e->d, DIAGC_GROUP_EXCLUSIVE); }
static int x_sub(ex_t *e, int g, size_t sz, int depth, diagc_exec_fn fn, void *u) {
  return e->base ? base_add_subscription(e->b, g, sz, depth, fn, u)
                 : diagc_exec_add_subscription(e->d, g, sz, depth, DIAGC_OVERFLOW_DROP_OLDEST, fn, u);
}
static int x_timer(ex_t *e, int g, int64_t p, int64_t o, diagc_exec_fn fn, void *u) {
  return e->base ? base_add_timer(e->b, g, p, o, fn, u) : diagc_exec_add_timer(e->d, g, p, o, fn, u);
}
static int x_guard(ex_t *e, int g, diagc_exec_fn fn, void *u) {
  return e->base ? base_add_guard(e->b, g, fn, u) : diagc_exec_add_guard(e->d, g, fn, u);
}
static void x_prepare(ex_t *e) { if (e->base) base_prepare(e->b); else diagc_exec_prepare(e->d); }
static void x_deliver(ex_t *e, int s, const void *m, size_t n) {
  if (e->base) base_deliver(e->b, s, m, n); else diagc_exec_deliver(e->d, s, m, n);
}
static void x_trigger(ex_t *e, int g) { if (e->base) base_trigger(e->b, g); else diagc_exec_trigger(e->d, g); }
static void x_spin_some(ex_t *e) { if (e->base) base_spin_some(e->b); else diagc_exec_spin_some(e->d); }
static void x_spin(ex_t *e) { if (e->base) base_spin(e->b); else diagc_exec_spin(e->d); }
static void x_shutdown(ex_t *e) {
  uint64_t p = 0, d = 0;
  if (e->base) base_shutdown(e->b, &p, &d); else diagc_exec_shutdown(e->d, NULL);
}
static void x_destroy(ex_t *e) { if (e->base) base_destroy(e->b); else diagc_exec_destroy(e->d); }
static int x_idle(ex_t *e) { return e->base ? base_idle(e->b) : diagc_exec_idle(e->d); }

static atomic_long delivered_count;
static void count_cb(void *u, const diagc_exec_event *ev) {
  (void)u;
  (void)ev;
  atomic_fetch_add_explicit(&delivered_count, 1, memory_order_relaxed);
}

static const char *IMPL[2] = { "diagc", "baseline" };

/* N groups x M pub/sub pairs (group_per_pair: one group per pair);
 * publish one message per pair (untimed), time spin_some. */
static void bench_spin_some(const char *name, int N, int M, int group_per_pair, int iters) {
  for (int base = 0; base < 2; base++) {
    ex_t e = mk(base, 1);
    int subs[1000], ns = 0;
    for (int n = 0; n < N; n++) {
      int g = x_group(&e);
      for (int m = 0; m < M; m++) {
        if (group_per_pair && m > 0) g = x_group(&e);
        subs[ns++] = x_sub(&e, g, 8, 10, count_cb, NULL);
      }
    }
    x_prepare(&e);
    double t = 0;
    long allocs = 0;
    uint64_t msg = 0;
    atomic_store(&delivered_count, 0);
    for (int it = 0; it < iters; it++) {
      for (int s = 0; s < ns; s++) x_deliver(&e, subs[s], &msg, sizeof msg);
      count_on();
      double t0 = now_s();
      x_spin_some(&e);
      t += now_s() - t0;
      allocs += count_off();
    }
    long got = atomic_load(&delivered_count);
    printf("RESULT %s %s %.3f us %.1f ns/event allocs=%ld delivered=%ld/%ld\n", name, IMPL[base], 1e6 * t / iters,
           1e9 * t / ((double)iters * ns), allocs, got, (long)iters * ns);
    x_destroy(&e);
  }
}

/* 100 entities (10 x 10), 1 ready per wait. */
static void bench_wait(int iters) {
  for (int base = 0; base < 2; base++) {
    ex_t e = mk(base, 1);
    int subs[100];
    for (int n = 0; n < 10; n++) {
      int g = x_group(&e);
      for (int m = 0; m < 10; m++) subs[n * 10 + m] = x_sub(&e, g, 8, 10, count_cb, NULL);
    }
    x_prepare(&e);
    double t = 0;
    long allocs = 0;
    uint64_t msg = 0;
    for (int it = 0; it < iters; it++) {
      x_deliver(&e, subs[(it * 37) % 100], &msg, sizeof msg);
      count_on();
      double t0 = now_s();
      x_spin_some(&e);
      t += now_s() - t0;
      allocs += count_off();
    }
    printf("RESULT wait_1_of_100 %s %.3f us allocs=%ld\n", IMPL[base], 1e6 * t / iters, allocs);
    x_destroy(&e);
  }
}

/* Per-event dispatch cost: one subscription with 1000 queued messages,
 * drained (diagc: one spin_some; baseline: one message per pass). */
static void bench_batch(int iters) {
  for (int base = 0; base < 2; base++) {
    ex_t e = mk(base, 1);
    int g = x_group(&e);
    int s = x_sub(&e, g, 8, 1000, count_cb, NULL);
    x_prepare(&e);
    double t = 0;
    long allocs = 0;
    uint64_t msg = 0;
    atomic_store(&delivered_count, 0);
    for (int it = 0; it < iters; it++) {
      for (int k = 0; k < 1000; k++) x_deliver(&e, s, &msg, sizeof msg);
      count_on();
      double t0 = now_s();
      while (!x_idle(&e)) x_spin_some(&e);
      t += now_s() - t0;
      allocs += count_off();
    }
    printf("RESULT per_event %s %.1f ns/event allocs=%ld delivered=%ld/%ld\n", IMPL[base],
           1e9 * t / (1000.0 * iters), allocs, atomic_load(&delivered_count), 1000L * iters);
    x_destroy(&e);
  }
}

/* Cascade: 10 guard hops in 10 groups under a background spin(). */
typedef struct hop { ex_t *e; int next; sem_t *done; } hop;
static void hop_cb(void *u, const diagc_exec_event *ev) {
  (void)ev;
  hop *h = u;
  if (h->next >= 0) x_trigger(h->e, h->next);
  else sem_post(h->done);
}
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static void *spin_thread(void *arg) {
  x_spin(arg);
  return NULL;
}
static void bench_cascade(int iters) {
  for (int base = 0; base < 2; base++) {
    ex_t e = mk(base, 1);
    sem_t done;
    sem_init(&done, 0, 0);
    hop hops[10];
    int guards[10];
    for (int i = 0; i < 10; i++) {
      int g = x_group(&e);
      guards[i] = x_guard(&e, g, hop_cb, &hops[i]);
    }
    for (int i = 0; i < 10; i++) hops[i] = (hop){ &e, i + 1 < 10 ? guards[i + 1] : -1, &done };
    x_prepare(&e);
    pthread_t th;
    pthread_create(&th, NULL, spin_thread, &e);
    /* warm up */
    x_trigger(&e, guards[0]);
    sem_wait(&done);
    /* the median: each cascade includes two thread wake-ups, whose cost on
     * a loaded machine has a long tail */
    static double samples[100000];
    int ns = iters < 100000 ? iters : 100000;
    count_on();
    for (int it = 0; it < ns; it++) {
      double t0 = now_s();
      x_trigger(&e, guards[0]);
      while (sem_wait(&done) != 0 && errno == EINTR) {}
      samples[it] = now_s() - t0;
    }
    long allocs = count_off();
    x_shutdown(&e);
    pthread_join(th, NULL);
    qsort(samples, (size_t)ns, sizeof samples[0], cmp_double);
    printf("RESULT cascade_10 %s %.3f us allocs=%ld\n", IMPL[base], 1e6 * samples[ns / 2], allocs);
    sem_destroy(&done);
    x_destroy(&e);
  }
}

/* ---- slow timer --------------------------------------------------------------- */

typedef struct slow_sub { double sum, max; long n; } slow_sub;
static void slow_timer_cb(void *u, const diagc_exec_event *ev) {
  (void)u;
  (void)ev;
  int64_t end = diagc_monotonic_ns() + 12000000; /* 12 ms of work, period 10 ms */
  while (diagc_monotonic_ns() < end) {}
}
static void slow_sub_cb(void *u, const diagc_exec_event *ev) {
  slow_sub *s = u;
  int64_t stamp;
  memcpy(&stamp, ev->data, sizeof stamp);
  double lat = (double)(diagc_monotonic_ns() - stamp) / 1000.0;
  s->sum += lat;
  if (lat > s->max) s->max = lat;
  s->n++;
}
typedef struct pubarg { ex_t *e; int sub; double seconds; long sent; } pubarg;
static void *slow_publisher(void *arg) {
  pubarg *p = arg;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  long n = (long)(p->seconds * 100);
  for (long i = 0; i < n; i++) {
    ts.tv_nsec += 10000000;
    if (ts.tv_nsec >= 1000000000) {
      ts.tv_nsec -= 1000000000;
      ts.tv_sec++;
    }
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    int64_t stamp = diagc_monotonic_ns();
    x_deliver(p->e, p->sub, &stamp, sizeof stamp);
    p->sent++;
  }
  return NULL;
}
static int bench_slow(double seconds, int threads, int base) {
  ex_t e = mk(base, threads);
  slow_sub s = { 0, 0, 0 };
  int g = x_group(&e);
  x_timer(&e, g, 10000000, 0, slow_timer_cb, NULL);
  int sub = x_sub(&e, g, 8, 10, slow_sub_cb, &s);
  x_prepare(&e);
  pthread_t th, pt;
  pubarg pa = { &e, sub, seconds, 0 };
  pthread_create(&th, NULL, spin_thread, &e);
  pthread_create(&pt, NULL, slow_publisher, &pa);
  pthread_join(pt, NULL);
  struct timespec ts = { 0, 50000000 };
  nanosleep(&ts, NULL);
  x_shutdown(&e);
  pthread_join(th, NULL);
  printf("RESULT slow_timer %s threads=%d received=%ld/%ld mean_us=%.1f max_us=%.1f\n", IMPL[base], threads, s.n,
         pa.sent, s.n ? s.sum / (double)s.n : -1.0, s.max);
  x_destroy(&e);
  return 0;
}

/* ---- topology replay on the baseline ------------------------------------------ */

static void *b_create(int threads) { return base_create(threads, 4096); }
static int b_add_group(void *ex) { return base_add_group(ex); }
static int b_add_timer(void *ex, int g, int64_t p, int64_t o, diagc_exec_fn fn, void *u) {
  return base_add_timer(ex, g, p, o, fn, u);
}
static int b_add_sub(void *ex, int g, size_t sz, int depth, diagc_exec_fn fn, void *u) {
  return base_add_subscription(ex, g, sz, depth, fn, u);
}
static int b_prepare(void *ex) { return base_prepare(ex); }
static int b_deliver(void *ex, int s, const void *m, size_t n) { return base_deliver(ex, s, m, n); }
static void b_spin(void *ex) { base_spin(ex); }
static void b_stop(void *ex) { base_stop_timers(ex); }
static int b_idle(void *ex) { return base_idle(ex); }
static void b_shutdown(void *ex, uint64_t *p, uint64_t *d) { base_shutdown(ex, p, d); }
static void b_destroy(void *ex) { base_destroy(ex); }
static void b_start_at(void *ex, int64_t t) { base_set_epoch(ex, t); }
static const replay_backend baseline_backend = {
  "baseline", b_create, b_add_group, b_add_timer, b_add_sub, b_prepare, b_deliver,
  b_spin, b_stop, b_idle, b_shutdown, b_destroy, b_start_at,
};

static int bench_topo(const char *file, int threads, double seconds, const char *impl) {
  char err[512];
  replay_topology *t = replay_load(file, err, sizeof err);
  if (!t) {
    fprintf(stderr, "exec_bench: %s\n", err);
    return 2;
  }
  replay_result r;
  const replay_backend *be = strcmp(impl, "baseline") == 0 ? &baseline_backend : &replay_diagc_backend;
  int rc = replay_run(t, be, threads, seconds, 1, &r, err, sizeof err);
  replay_free(t);
  if (rc) {
    fprintf(stderr, "exec_bench: %s\n", err);
    return 1;
  }
  printf("RESULT topo %s threads=%d received=%llu mean_us=%.1f max_us=%.1f late=%llu too_late=%llu lost=%llu "
         "cpu=%.1f probe_top=%d stalls=%llu stalled_ms=%.1f stall_max_us=%.0f late_in_stall=%llu late_rec=%llu\n",
         be->name, threads, (unsigned long long)r.received, r.mean_us, r.max_us, (unsigned long long)r.late,
         (unsigned long long)r.too_late, (unsigned long long)r.lost, r.cpu_percent,
         r.probe_top_priority == r.probe_cpus, (unsigned long long)r.probe_stalls, r.probe_stalled_ms, r.probe_max_us, (unsigned long long)r.late_in_stall,
         (unsigned long long)r.late_recorded);
  replay_result_free(&r);
  return 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc >= 3 && strcmp(argv[1], "micro") == 0) {
    double scale = atof(argv[2]);
    int it = (int)(2000 * scale) + 1;
    bench_spin_some("spin_some_10x1", 10, 1, 0, it);
    bench_spin_some("spin_some_10x10", 10, 10, 0, it);
    bench_spin_some("group_per_pair_10x10", 10, 10, 1, it);
    bench_wait(it * 5);
    bench_batch(it / 4 + 1);
    bench_cascade(it);
    return 0;
  }
  if (argc == 6 && strcmp(argv[1], "topo") == 0) return bench_topo(argv[2], atoi(argv[3]), atof(argv[4]), argv[5]);
  if (argc == 5 && strcmp(argv[1], "slow") == 0)
    return bench_slow(atof(argv[2]), atoi(argv[3]), strcmp(argv[4], "baseline") == 0);
  fprintf(stderr, "usage: exec_bench micro SCALE | topo FILE THREADS SECONDS IMPL | slow SECONDS THREADS IMPL\n");
  return 2;
}
