/* executor.c: the callback-group executor (see diagc/executor.h).
 *
 * Holds the executor core: groups and entities (timers, guard conditions,
 * subscriptions, services, clients), the message slots, the ready queues,
 * the worker and timer-keeper threads, spinning and shutdown.  The topic
 * bus that links executors lives in topic_bus.c.
 *
 * Implements the diagc_exec_* functions and diagc_monotonic_ns. */
#define _POSIX_C_SOURCE 200809L
#include "diagc/executor.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct exec_item {
  uint64_t seq;
  int ent;
} exec_item;

/* A FIFO of items (ring). */
typedef struct item_ring {
  exec_item *v;
  int cap, head, count;
} item_ring;

typedef struct exec_ent {
  int kind, group;
  diagc_exec_fn fn;
  void *user;
  /* timers */
  int64_t period, offset, due, sched;
  int armed, queued_timer;
  /* guards */
  int guard_pending;
  /* queues (subscription, service, client): a pool of nslots slots of
   * slot_size bytes; `ring` holds the indices of queued slots (oldest first),
   * `freel` the free ones.  A slot taken by a running callback is in neither
   * until the callback returns, so a delivery never overwrites it. */
  size_t msg_size, resp_size, slot_size;
  int depth, nslots, overflow;
  unsigned char *slots;
  int64_t *arrival;
  size_t *len;
  int *src; /* service: the client of each request slot */
  int *ring, rhead, rcount;
  int *freel, nfree;
  int writing;        /* slots reserved by producers copying outside the lock */
  int service; /* client: its service */
  /* statistics */
  int high_water;
  uint64_t offered, accepted, rejected, dropped, coalesced, run, missed;
} exec_ent;

typedef struct exec_group {
  int kind;
  int cap_timers, cap_other;
  item_ring tq, oq;  /* timer items, other items */
  int running;       /* callbacks of this group running now */
  int in_ready, parked;
} exec_group;

enum { S_NONE = 0, S_SPIN, S_SOME, S_UNTIL };

struct diagc_exec {
  diagc_exec_config cfg;
  int nthreads;
  pthread_mutex_t mu;
  pthread_cond_t work_cv, timer_cv, done_cv;
  exec_ent *ents;
  int nents;
  exec_group *groups;
  int ngroups;
  int *ready, rhead, rcount;
  uint64_t seq;
  int prepared, shut, destroying, timers_stopped;
  /* session */
  int session, session_done, cancel;
  uint64_t limit, remaining;
  diagc_exec_pred pred;
  void *pred_user;
  int64_t deadline;
  int in_callback, nidle, searching;
  /* timers: there is no timer thread.  next_due is the earliest due time of
   * an armed timer (NO_DUE: none).  During spin and spin_until one idle
   * worker, the keeper, sleeps on timer_cv until next_due (the others sleep
   * on work_cv without a timeout) and queues the due timers itself; every
   * delivery, trigger and finished callback also queues the timers that are
   * due, so a timer's item gets its sequence number at its due time, as if
   * a timer thread had queued it, whenever a worker or a producer is awake. */
  int64_t next_due, keeper_until;
  int keeper;
  /* threads */
  pthread_t *helpers;
  int nhelpers;
  int64_t manual_now, epoch;
  unsigned char **scratch;
  size_t scratch_size;
  diagc_exec_overflow_fn hook;
  void *hook_user;
};

static _Thread_local diagc_exec *tl_in_callback;

#define NO_DUE INT64_MAX

int64_t diagc_monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t now_locked(diagc_exec *ex) {
  return ex->cfg.clock == DIAGC_CLOCK_MANUAL ? ex->manual_now : diagc_monotonic_ns();
}

int64_t diagc_exec_now(diagc_exec *ex) {
  if (ex->cfg.clock != DIAGC_CLOCK_MANUAL) return diagc_monotonic_ns();
  pthread_mutex_lock(&ex->mu);
  int64_t t = ex->manual_now;
  pthread_mutex_unlock(&ex->mu);
  return t;
}

int64_t diagc_exec_epoch(diagc_exec *ex) {
  pthread_mutex_lock(&ex->mu);
  int64_t t = ex->epoch;
  pthread_mutex_unlock(&ex->mu);
  return t;
}

int diagc_exec_threads(const diagc_exec *ex) { return ex->nthreads; }

void diagc_exec_config_init(diagc_exec_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->threads = 1;
  cfg->ordering = DIAGC_EXEC_FIFO;
  cfg->clock = DIAGC_CLOCK_MONOTONIC;
  cfg->max_groups = 64;
  cfg->max_entities = 256;
}

/* Starts a thread; with prio > 0, under SCHED_FIFO at that priority.
 * Returns 0, DIAGC_EXEC_E_SCHED (not permitted) or DIAGC_EXEC_E_THREAD. */
static int start_thread(pthread_t *t, void *(*fn)(void *), void *arg, int prio) {
  pthread_attr_t a;
  struct sched_param sp;
  int rc;
  if (prio <= 0) return pthread_create(t, NULL, fn, arg) == 0 ? 0 : DIAGC_EXEC_E_THREAD;
  if (prio > 99) prio = 99;
  memset(&sp, 0, sizeof sp);
  sp.sched_priority = prio;
  pthread_attr_init(&a);
  pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
  pthread_attr_setschedpolicy(&a, SCHED_FIFO);
  pthread_attr_setschedparam(&a, &sp);
  rc = pthread_create(t, &a, fn, arg);
  pthread_attr_destroy(&a);
  if (rc == 0) return 0;
  return rc == EPERM ? DIAGC_EXEC_E_SCHED : DIAGC_EXEC_E_THREAD;
}

static void abs_deadline(struct timespec *ts, int64_t t_ns) {
  if (t_ns < 0) t_ns = 0;
  ts->tv_sec = (time_t)(t_ns / 1000000000);
  ts->tv_nsec = (long)(t_ns % 1000000000);
}

diagc_exec *diagc_exec_create(const diagc_exec_config *cfg_in) {
  diagc_exec_config cfg;
  if (cfg_in) cfg = *cfg_in; else diagc_exec_config_init(&cfg);
  if (cfg.threads < 0 || cfg.max_groups <= 0 || cfg.max_entities <= 0) return NULL;
  if (cfg.ordering != DIAGC_EXEC_FIFO && cfg.ordering != DIAGC_EXEC_TIMERS_FIRST) return NULL;
  if (cfg.clock != DIAGC_CLOCK_MONOTONIC && cfg.clock != DIAGC_CLOCK_MANUAL) return NULL;
  if (cfg.rt_priority < 0 || cfg.rt_priority > 99) return NULL;
  diagc_exec *ex = calloc(1, sizeof *ex);
  if (!ex) return NULL;
  ex->cfg = cfg;
  ex->next_due = NO_DUE;
  if (cfg.threads == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    ex->nthreads = n < 2 ? 2 : (int)n;
  } else {
    ex->nthreads = cfg.threads;
  }
  ex->ents = calloc((size_t)cfg.max_entities, sizeof *ex->ents);
  ex->groups = calloc((size_t)cfg.max_groups, sizeof *ex->groups);
  ex->ready = calloc((size_t)cfg.max_groups, sizeof *ex->ready);
  if (!ex->ents || !ex->groups || !ex->ready) {
    free(ex->ents); free(ex->groups); free(ex->ready); free(ex);
    return NULL;
  }
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_mutex_init(&ex->mu, NULL);
  pthread_cond_init(&ex->work_cv, &ca);
  pthread_cond_init(&ex->timer_cv, &ca);
  pthread_cond_init(&ex->done_cv, &ca);
  pthread_condattr_destroy(&ca);
  return ex;
}

/* ---- setup ------------------------------------------------------------- */

int diagc_exec_add_group(diagc_exec *ex, int kind) {
  if (!ex || (kind != DIAGC_GROUP_EXCLUSIVE && kind != DIAGC_GROUP_REENTRANT)) return DIAGC_EXEC_E_ARG;
  pthread_mutex_lock(&ex->mu);
  int rc;
  if (ex->prepared) rc = DIAGC_EXEC_E_STATE;
  else if (ex->ngroups >= ex->cfg.max_groups) rc = DIAGC_EXEC_E_FULL;
  else {
    rc = ex->ngroups++;
    ex->groups[rc].kind = kind;
  }
  pthread_mutex_unlock(&ex->mu);
  return rc;
}

/* Reserves an entity slot (lock held). */
static int new_ent(diagc_exec *ex, int group, int kind, diagc_exec_fn fn, void *user) {
  if (ex->prepared) return DIAGC_EXEC_E_STATE;
  if (group < 0 || group >= ex->ngroups || !fn) return DIAGC_EXEC_E_ARG;
  if (ex->nents >= ex->cfg.max_entities) return DIAGC_EXEC_E_FULL;
  int id = ex->nents;
  exec_ent *e = &ex->ents[id];
  memset(e, 0, sizeof *e);
  e->kind = kind;
  e->group = group;
  e->fn = fn;
  e->user = user;
  e->service = -1;
  return id;
}

int diagc_exec_add_timer(diagc_exec *ex, int group, int64_t period_ns,
                         int64_t offset_ns, diagc_exec_fn fn, void *user) {
  if (!ex || period_ns <= 0 || offset_ns < 0) return DIAGC_EXEC_E_ARG;
  pthread_mutex_lock(&ex->mu);
  int id = new_ent(ex, group, DIAGC_ENT_TIMER, fn, user);
  if (id >= 0) {
    exec_ent *e = &ex->ents[id];
    e->period = period_ns;
    e->offset = offset_ns;
    e->depth = 1;
    ex->groups[group].cap_timers++;
    ex->nents++;
  }
  pthread_mutex_unlock(&ex->mu);
  return id;
}

int diagc_exec_add_guard(diagc_exec *ex, int group, diagc_exec_fn fn, void *user) {
  if (!ex) return DIAGC_EXEC_E_ARG;
  pthread_mutex_lock(&ex->mu);
  int id = new_ent(ex, group, DIAGC_ENT_GUARD, fn, user);
  if (id >= 0) {
    ex->ents[id].depth = 1;
    ex->groups[group].cap_other++;
    ex->nents++;
  }
  pthread_mutex_unlock(&ex->mu);
  return id;
}

/* A queue entity (lock held). */
static int add_queue(diagc_exec *ex, int group, int kind, size_t msg_size,
                     size_t resp_size, int depth, int overflow,
                     diagc_exec_fn fn, void *user) {
  if (depth <= 0 || depth > (1 << 24)) return DIAGC_EXEC_E_ARG;
  if (overflow != DIAGC_OVERFLOW_DROP_OLDEST && overflow != DIAGC_OVERFLOW_REJECT) return DIAGC_EXEC_E_ARG;
  int id = new_ent(ex, group, kind, fn, user);
  if (id < 0) return id;
  exec_ent *e = &ex->ents[id];
  /* one slot per queued message, plus one per worker that may hold one */
  int extra = ex->groups[group].kind == DIAGC_GROUP_REENTRANT ? ex->nthreads : 1;
  e->msg_size = msg_size;
  e->resp_size = resp_size;
  e->slot_size = msg_size ? (msg_size + 15) / 16 * 16 : 16;
  e->depth = depth;
  e->nslots = depth + extra;
  e->overflow = overflow;
  e->slots = malloc((size_t)e->nslots * e->slot_size);
  e->arrival = calloc((size_t)e->nslots, sizeof *e->arrival);
  e->len = calloc((size_t)e->nslots, sizeof *e->len);
  e->src = calloc((size_t)e->nslots, sizeof *e->src);
  e->ring = calloc((size_t)depth, sizeof *e->ring);
  e->freel = calloc((size_t)e->nslots, sizeof *e->freel);
  if (!e->slots || !e->arrival || !e->len || !e->src || !e->ring || !e->freel) {
    free(e->slots); free(e->arrival); free(e->len); free(e->src); free(e->ring); free(e->freel);
    memset(e, 0, sizeof *e);
    return DIAGC_EXEC_E_NOMEM;
  }
  for (int i = 0; i < e->nslots; i++) e->freel[i] = e->nslots - 1 - i;
  e->nfree = e->nslots;
  ex->groups[group].cap_other += depth;
  if (resp_size > ex->scratch_size) ex->scratch_size = resp_size;
  ex->nents++;
  return id;
}

int diagc_exec_add_subscription(diagc_exec *ex, int group, size_t msg_size,
                                int depth, int overflow, diagc_exec_fn fn, void *user) {
  if (!ex) return DIAGC_EXEC_E_ARG;
  pthread_mutex_lock(&ex->mu);
  int id = add_queue(ex, group, DIAGC_ENT_SUBSCRIPTION, msg_size, 0, depth, overflow, fn, user);
  pthread_mutex_unlock(&ex->mu);
  return id;
}

int diagc_exec_add_service(diagc_exec *ex, int group, size_t req_size, size_t response_size,
                           int depth, int overflow, diagc_exec_fn fn, void *user) {
  if (!ex) return DIAGC_EXEC_E_ARG;
  pthread_mutex_lock(&ex->mu);
  int id = add_queue(ex, group, DIAGC_ENT_SERVICE, req_size, response_size, depth, overflow, fn, user);
  pthread_mutex_unlock(&ex->mu);
  return id;
}

int diagc_exec_add_client(diagc_exec *ex, int group, int service, int depth, int overflow,
                          diagc_exec_fn fn, void *user) {
  if (!ex) return DIAGC_EXEC_E_ARG;
  pthread_mutex_lock(&ex->mu);
  int id;
  if (service < 0 || service >= ex->nents || ex->ents[service].kind != DIAGC_ENT_SERVICE) {
    id = DIAGC_EXEC_E_ARG;
  } else {
    id = add_queue(ex, group, DIAGC_ENT_CLIENT, ex->ents[service].resp_size, 0, depth,
                   overflow, fn, user);
    if (id >= 0) ex->ents[id].service = service;
  }
  pthread_mutex_unlock(&ex->mu);
  return id;
}

void diagc_exec_set_overflow_hook(diagc_exec *ex, diagc_exec_overflow_fn fn, void *user) {
  pthread_mutex_lock(&ex->mu);
  ex->hook = fn;
  ex->hook_user = user;
  pthread_mutex_unlock(&ex->mu);
}

/* ---- the scheduler (lock held) ----------------------------------------- */

static void ring_push(item_ring *r, exec_item it) {
  /* capacities are the sum of the entities' depths: never full */
  r->v[(r->head + r->count) % r->cap] = it;
  r->count++;
}

static exec_item ring_pop(item_ring *r) {
  exec_item it = r->v[r->head];
  r->head = (r->head + 1) % r->cap;
  r->count--;
  return it;
}

/* Wakes one idle worker ("searching": one is already on its way).  The
 * keeper is woken only when no other worker is idle. */
static void wake_one(diagc_exec *ex) {
  if (ex->searching) return;
  if (ex->nidle > 0) {
    ex->searching = 1;
    pthread_cond_signal(&ex->work_cv);
  } else if (ex->keeper) {
    ex->searching = 1;
    pthread_cond_signal(&ex->timer_cv);
  }
}

/* Wakes every waiting thread, the keeper included (session end, cancel,
 * shutdown). */
static void wake_all(diagc_exec *ex) {
  pthread_cond_broadcast(&ex->work_cv);
  pthread_cond_broadcast(&ex->timer_cv);
}

/* 1 if the current session keeps the timers running (spin, spin_until on
 * the monotonic clock). */
static int keeps_timers(const diagc_exec *ex) {
  return ex->cfg.clock == DIAGC_CLOCK_MONOTONIC && (ex->session == S_SPIN || ex->session == S_UNTIL) &&
         !ex->session_done && !ex->cancel && !ex->shut;
}

/* If timers are armed and no worker keeps them, wakes an idle one: it will
 * find no work and become the keeper.  Called before a worker runs a
 * callback, so that timers stay on time while it is busy. */
static void ensure_keeper(diagc_exec *ex) {
  if (!ex->keeper && ex->next_due != NO_DUE && ex->nidle > 0 && keeps_timers(ex)) wake_one(ex);
}

static void ready_push(diagc_exec *ex, int g) {
  ex->ready[(ex->rhead + ex->rcount) % ex->cfg.max_groups] = g;
  ex->rcount++;
  ex->groups[g].in_ready = 1;
  wake_one(ex);
}

static int group_has_work(const exec_group *g) { return g->tq.count + g->oq.count > 0; }

/* Makes g ready if it has work and may be scheduled. */
static void group_check(diagc_exec *ex, int gi) {
  exec_group *g = &ex->groups[gi];
  if (g->in_ready || g->parked || !group_has_work(g)) return;
  if (g->kind == DIAGC_GROUP_EXCLUSIVE && g->running) return;
  ready_push(ex, gi);
}

static void enqueue(diagc_exec *ex, int ent) {
  exec_ent *e = &ex->ents[ent];
  exec_group *g = &ex->groups[e->group];
  exec_item it = { ++ex->seq, ent };
  ring_push(e->kind == DIAGC_ENT_TIMER ? &g->tq : &g->oq, it);
  group_check(ex, e->group);
}

static int queued_count(const exec_ent *e) {
  switch (e->kind) {
  case DIAGC_ENT_TIMER: return e->queued_timer;
  case DIAGC_ENT_GUARD: return e->guard_pending;
  default: return e->rcount;
  }
}

/* Fires every due timer (ordered by due time, then id). */
static void poll_timers(diagc_exec *ex, int64_t now) {
  if (ex->timers_stopped || ex->shut) {
    ex->next_due = NO_DUE;
    return;
  }
  for (;;) {
    int best = -1;
    int64_t next = NO_DUE;
    for (int i = 0; i < ex->nents; i++) {
      exec_ent *e = &ex->ents[i];
      if (e->kind != DIAGC_ENT_TIMER || !e->armed) continue;
      if (e->due <= now && (best < 0 || e->due < ex->ents[best].due)) best = i;
      else if (e->due > now && e->due < next) next = e->due;
    }
    if (best < 0) {
      ex->next_due = next;
      return;
    }
    exec_ent *e = &ex->ents[best];
    e->armed = 0;
    e->sched = e->due;
    e->offered++;
    e->accepted++;
    e->queued_timer = 1;
    if (e->high_water < 1) e->high_water = 1;
    enqueue(ex, best);
  }
}

/* Re-arms a timer after its callback (lock held). */
static void rearm(diagc_exec *ex, exec_ent *e) {
  if (ex->timers_stopped || ex->shut) return;
  int64_t now = now_locked(ex);
  int64_t next = e->sched + e->period;
  if (next < now) {
    int64_t k = (now - e->sched + e->period - 1) / e->period; /* next >= now */
    e->missed += (uint64_t)(k - 1);
    next = e->sched + k * e->period;
  }
  e->due = next;
  e->armed = 1;
  if (next < ex->next_due) ex->next_due = next;
  if (ex->cfg.clock == DIAGC_CLOCK_MANUAL) poll_timers(ex, now);
  else if (ex->keeper && next < ex->keeper_until) pthread_cond_signal(&ex->timer_cv);
}

/* Queues the timers that are due on the monotonic clock (lock held).  A
 * worker of this executor (`worker` = 1) is awake and about to take work:
 * no other worker is woken for the first item.  Other callers (producers,
 * introspection) wake workers as usual. */
static void catch_up_timers(diagc_exec *ex, int worker) {
  if (ex->cfg.clock != DIAGC_CLOCK_MONOTONIC || ex->next_due == NO_DUE) return;
  int64_t now = diagc_monotonic_ns();
  if (now < ex->next_due) return;
  if (!worker) {
    poll_timers(ex, now);
    return;
  }
  int searching = ex->searching;
  ex->searching = 1;
  poll_timers(ex, now);
  ex->searching = searching;
}

/* Waits for work (lock held) until signalled or `deadline` (< 0: none).  An
 * idle worker of a session that keeps timers becomes the keeper if there is
 * none: it waits on timer_cv until the next due time as well, then returns
 * to queue the due timers and run the first itself (no wake-up hop). */
static void idle_wait(diagc_exec *ex, int64_t deadline) {
  struct timespec ts;
  if (!ex->keeper && ex->next_due != NO_DUE && keeps_timers(ex)) {
    int64_t until = ex->next_due;
    if (deadline >= 0 && deadline < until) until = deadline;
    ex->keeper = 1;
    ex->keeper_until = until;
    abs_deadline(&ts, until);
    pthread_cond_timedwait(&ex->timer_cv, &ex->mu, &ts);
    ex->keeper = 0;
  } else {
    ex->nidle++;
    if (deadline >= 0) {
      abs_deadline(&ts, deadline);
      pthread_cond_timedwait(&ex->work_cv, &ex->mu, &ts);
    } else {
      pthread_cond_wait(&ex->work_cv, &ex->mu);
    }
    ex->nidle--;
  }
  ex->searching = 0;
}

/* Picks the next item of the session (lock held).  Returns 0 if none. */
static int take(diagc_exec *ex, exec_item *out) {
  int n = ex->rcount;
  while (n-- > 0 && ex->rcount > 0) {
    int gi = ex->ready[ex->rhead];
    ex->rhead = (ex->rhead + 1) % ex->cfg.max_groups;
    ex->rcount--;
    exec_group *g = &ex->groups[gi];
    g->in_ready = 0;
    item_ring *first, *second;
    if (ex->cfg.ordering == DIAGC_EXEC_TIMERS_FIRST) {
      first = &g->tq;
      second = &g->oq;
    } else if (g->tq.count && (!g->oq.count || g->tq.v[g->tq.head].seq < g->oq.v[g->oq.head].seq)) {
      first = &g->tq;
      second = &g->oq;
    } else {
      first = &g->oq;
      second = &g->tq;
    }
    item_ring *q = NULL;
    if (first->count && (ex->session != S_SOME || first->v[first->head].seq <= ex->limit)) q = first;
    else if (second->count && (ex->session != S_SOME || second->v[second->head].seq <= ex->limit)) q = second;
    if (!q) {
      if (group_has_work(g)) g->parked = 1; /* only items newer than the spin_some snapshot */
      continue;
    }
    *out = ring_pop(q);
    g->running++;
    if (g->kind == DIAGC_GROUP_REENTRANT) group_check(ex, gi);
    return 1;
  }
  return 0;
}

static void unpark_all(diagc_exec *ex) {
  for (int i = 0; i < ex->ngroups; i++) {
    if (ex->groups[i].parked) {
      ex->groups[i].parked = 0;
      group_check(ex, i);
    }
  }
}

/* Runs one item; called and returns with the lock held. */
static void run_item(diagc_exec *ex, int worker, exec_item it) {
  exec_ent *e = &ex->ents[it.ent];
  diagc_exec_event ev;
  memset(&ev, 0, sizeof ev);
  ev.entity = it.ent;
  ev.kind = e->kind;
  ev.worker = worker;
  ev.seq = it.seq;
  int slot = -1;
  switch (e->kind) {
  case DIAGC_ENT_TIMER:
    e->queued_timer = 0;
    ev.time_ns = e->sched;
    break;
  case DIAGC_ENT_GUARD:
    e->guard_pending = 0;
    ev.time_ns = now_locked(ex);
    break;
  default:
    slot = e->ring[e->rhead];
    e->rhead = (e->rhead + 1) % e->depth;
    e->rcount--;
    ev.time_ns = e->arrival[slot];
    ev.data = e->slots + (size_t)slot * e->slot_size;
    ev.size = e->len[slot];
    if (e->kind == DIAGC_ENT_SERVICE) {
      ev.response = ex->scratch[worker];
      ev.response_size = e->resp_size;
      memset(ev.response, 0, e->resp_size);
    }
    break;
  }
  /* another group is ready: let one more worker look for it */
  if (ex->rcount > 0) wake_one(ex);
  ensure_keeper(ex);
  ex->in_callback++;
  diagc_exec_pred pred = ex->session == S_UNTIL ? ex->pred : NULL;
  void *pred_user = ex->pred_user;
  pthread_mutex_unlock(&ex->mu);

  diagc_exec *prev = tl_in_callback;
  tl_in_callback = ex;
  e->fn(e->user, &ev);
  tl_in_callback = prev;
  if (e->kind == DIAGC_ENT_SERVICE) {
    int client = e->src[slot];
    diagc_exec_deliver(ex, client, ev.response, e->resp_size);
  }
  int pred_true = pred ? pred(pred_user) != 0 : 0;

  pthread_mutex_lock(&ex->mu);
  ex->in_callback--;
  e->run++;
  if (slot >= 0) e->freel[e->nfree++] = slot;
  exec_group *g = &ex->groups[e->group];
  g->running--;
  if (e->kind == DIAGC_ENT_TIMER) rearm(ex, e);
  group_check(ex, e->group);
  if (ex->session == S_SOME && it.seq <= ex->limit && --ex->remaining == 0) {
    ex->session_done = 1;
    wake_all(ex);
  }
  if (pred_true && ex->session == S_UNTIL) {
    ex->session_done = 2;
    wake_all(ex);
  }
  if (ex->in_callback == 0) pthread_cond_broadcast(&ex->done_cv);
}

static void *helper_main(void *arg) {
  diagc_exec *ex = arg;
  pthread_mutex_lock(&ex->mu);
  int worker = -1;
  for (int i = 0; i < ex->nhelpers; i++)
    if (pthread_equal(ex->helpers[i], pthread_self())) worker = i + 1;
  while (!ex->destroying) {
    exec_item it;
    if (ex->session != S_NONE && !ex->session_done && !ex->shut) {
      catch_up_timers(ex, 1);
      if (take(ex, &it)) {
        ex->searching = 0;
        run_item(ex, worker < 0 ? 1 : worker, it);
        continue;
      }
    }
    idle_wait(ex, -1);
  }
  pthread_mutex_unlock(&ex->mu);
  return NULL;
}

int diagc_exec_prepare(diagc_exec *ex) {
  if (!ex) return DIAGC_EXEC_E_ARG;
  pthread_mutex_lock(&ex->mu);
  if (ex->prepared) {
    pthread_mutex_unlock(&ex->mu);
    return DIAGC_OK;
  }
  int rc = DIAGC_OK;
  for (int i = 0; i < ex->ngroups && rc == 0; i++) {
    exec_group *g = &ex->groups[i];
    g->tq.cap = g->cap_timers > 0 ? g->cap_timers : 1;
    g->oq.cap = g->cap_other > 0 ? g->cap_other : 1;
    g->tq.v = calloc((size_t)g->tq.cap, sizeof(exec_item));
    g->oq.v = calloc((size_t)g->oq.cap, sizeof(exec_item));
    if (!g->tq.v || !g->oq.v) rc = DIAGC_EXEC_E_NOMEM;
  }
  /* touch every message slot now: a first write to a fresh page faults,
   * and a burst of faults (megabytes of big-message slots) would otherwise
   * land on the first deliveries as a millisecond stall */
  for (int i = 0; i < ex->nents && rc == 0; i++) {
    exec_ent *e = &ex->ents[i];
    if (e->slots) memset(e->slots, 0, (size_t)e->nslots * e->slot_size);
  }
  if (rc == 0) {
    ex->scratch = calloc((size_t)ex->nthreads, sizeof *ex->scratch);
    if (!ex->scratch) rc = DIAGC_EXEC_E_NOMEM;
    for (int i = 0; rc == 0 && i < ex->nthreads; i++) {
      ex->scratch[i] = calloc(1, ex->scratch_size ? ex->scratch_size : 1);
      if (!ex->scratch[i]) rc = DIAGC_EXEC_E_NOMEM;
    }
  }
  if (rc == 0 && ex->nthreads > 1) {
    ex->helpers = calloc((size_t)(ex->nthreads - 1), sizeof *ex->helpers);
    if (!ex->helpers) rc = DIAGC_EXEC_E_NOMEM;
  }
  if (rc == 0) {
    ex->epoch = now_locked(ex);
    ex->next_due = NO_DUE;
    for (int i = 0; i < ex->nents; i++) {
      exec_ent *e = &ex->ents[i];
      if (e->kind == DIAGC_ENT_TIMER) {
        e->due = ex->epoch + e->offset;
        e->armed = 1;
        if (e->due < ex->next_due) ex->next_due = e->due;
      }
    }
    ex->prepared = 1;
    for (int i = 0; i < ex->nthreads - 1; i++) {
      rc = start_thread(&ex->helpers[i], helper_main, ex, ex->cfg.rt_priority);
      if (rc != 0) break;
      ex->nhelpers++;
    }
    if (ex->cfg.clock == DIAGC_CLOCK_MANUAL) poll_timers(ex, ex->manual_now);
  }
  pthread_mutex_unlock(&ex->mu);
  return rc;
}

int diagc_exec_set_epoch(diagc_exec *ex, int64_t epoch_ns) {
  if (!ex || epoch_ns < 0) return DIAGC_EXEC_E_ARG;
  pthread_mutex_lock(&ex->mu);
  int rc = DIAGC_OK;
  if (!ex->prepared) rc = DIAGC_EXEC_E_STATE;
  else if (ex->shut) rc = DIAGC_EXEC_E_SHUTDOWN;
  else {
    ex->epoch = epoch_ns;
    ex->next_due = NO_DUE;
    for (int i = 0; i < ex->nents; i++) {
      exec_ent *e = &ex->ents[i];
      if (e->kind != DIAGC_ENT_TIMER || !e->armed) continue;
      e->due = epoch_ns + e->offset;
      if (e->due < ex->next_due) ex->next_due = e->due;
    }
    if (ex->timers_stopped) ex->next_due = NO_DUE;
    if (ex->cfg.clock == DIAGC_CLOCK_MANUAL) poll_timers(ex, ex->manual_now);
    else pthread_cond_broadcast(&ex->timer_cv); /* the keeper sleeps until the new time */
  }
  pthread_mutex_unlock(&ex->mu);
  return rc;
}

/* ---- events ------------------------------------------------------------- */

static void commit_locked(diagc_exec *ex, int ent, int slot, size_t size, int src, int dropped);

/* Puts a message into a queue entity (lock held).  Returns 0, or
 * DIAGC_EXEC_E_REJECTED; *dropped is set when the oldest was evicted. */
static int put_locked(diagc_exec *ex, int ent, const void *msg, size_t size, int src, int *dropped) {
  exec_ent *e = &ex->ents[ent];
  e->offered++;
  if (ex->shut || !ex->prepared) {
    e->rejected++;
    return DIAGC_EXEC_E_REJECTED;
  }
  int slot;
  if (e->rcount + e->writing >= e->depth) {
    /* full (messages being copied in count): with drop-oldest, evict the
     * oldest queued one; if every place is taken by a copy in progress
     * (as many concurrent producers as the depth), refuse this one */
    if (e->overflow == DIAGC_OVERFLOW_REJECT || e->rcount == 0) {
      e->rejected++;
      return DIAGC_EXEC_E_REJECTED;
    }
    /* evict the oldest; its group item now stands for the next message */
    slot = e->ring[e->rhead];
    e->rhead = (e->rhead + 1) % e->depth;
    e->rcount--;
    e->dropped++;
    *dropped = 1;
  } else {
    slot = e->freel[--e->nfree];
  }
  memcpy(e->slots + (size_t)slot * e->slot_size, msg, size);
  commit_locked(ex, ent, slot, size, src, *dropped);
  return DIAGC_OK;
}

/* Queues a message already copied into `slot` (lock held). */
static void commit_locked(diagc_exec *ex, int ent, int slot, size_t size, int src, int dropped) {
  exec_ent *e = &ex->ents[ent];
  e->len[slot] = size;
  e->src[slot] = src;
  e->arrival[slot] = now_locked(ex);
  e->ring[(e->rhead + e->rcount) % e->depth] = slot;
  e->rcount++;
  e->accepted++;
  if (e->rcount > e->high_water) e->high_water = e->rcount;
  if (!dropped) enqueue(ex, ent);
}

/* Messages at least this large are copied into their slot outside the
 * executor's lock, so that a big message (a point cloud) does not stall
 * every other thread of the executor while it is copied. */
#define COPY_OUTSIDE_LOCK_MIN 4096

static int deliver(diagc_exec *ex, int ent, int kind, const void *msg, size_t size, int src) {
  if (!ex || ent < 0) return DIAGC_EXEC_E_ARG;
  pthread_mutex_lock(&ex->mu);
  if (ent < ex->nents && kind == DIAGC_ENT_SUBSCRIPTION && ex->ents[ent].kind == DIAGC_ENT_CLIENT)
    kind = DIAGC_ENT_CLIENT; /* responses use the same path */
  if (ent >= ex->nents || ex->ents[ent].kind != kind || size > ex->ents[ent].msg_size ||
      (size > 0 && !msg)) {
    pthread_mutex_unlock(&ex->mu);
    return DIAGC_EXEC_E_ARG;
  }
  int dropped = 0, rc;
  exec_ent *e = &ex->ents[ent];
  catch_up_timers(ex, 0); /* a timer due before this message is queued before it */
  if (size >= COPY_OUTSIDE_LOCK_MIN && !ex->shut && ex->prepared &&
      e->rcount + e->writing < e->depth) {
    /* reserve a free slot (there is one: slots = depth + one per worker
     * that may hold one), copy without the lock, then queue it */
    int slot = e->freel[--e->nfree];
    e->offered++;
    e->writing++;
    pthread_mutex_unlock(&ex->mu);
    memcpy(e->slots + (size_t)slot * e->slot_size, msg, size);
    pthread_mutex_lock(&ex->mu);
    e->writing--;
    if (ex->shut) {
      e->freel[e->nfree++] = slot;
      e->rejected++;
      rc = DIAGC_EXEC_E_REJECTED;
    } else {
      commit_locked(ex, ent, slot, size, src, 0);
      rc = DIAGC_OK;
    }
  } else {
    rc = put_locked(ex, ent, msg, size, src, &dropped);
  }
  diagc_exec_overflow_fn hook = ex->hook;
  void *hu = ex->hook_user;
  pthread_mutex_unlock(&ex->mu);
  if (hook && (dropped || rc == DIAGC_EXEC_E_REJECTED)) hook(hu, ent, rc == DIAGC_EXEC_E_REJECTED);
  return rc;
}

int diagc_exec_deliver(diagc_exec *ex, int sub, const void *msg, size_t size) {
  return deliver(ex, sub, DIAGC_ENT_SUBSCRIPTION, msg, size, -1);
}

int diagc_exec_call(diagc_exec *ex, int client, const void *req, size_t size) {
  if (!ex || client < 0) return DIAGC_EXEC_E_ARG;
  pthread_mutex_lock(&ex->mu);
  int service = client < ex->nents && ex->ents[client].kind == DIAGC_ENT_CLIENT ? ex->ents[client].service : -1;
  pthread_mutex_unlock(&ex->mu);
  if (service < 0) return DIAGC_EXEC_E_ARG;
  return deliver(ex, service, DIAGC_ENT_SERVICE, req, size, client);
}

int diagc_exec_trigger(diagc_exec *ex, int guard) {
  if (!ex || guard < 0) return DIAGC_EXEC_E_ARG;
  pthread_mutex_lock(&ex->mu);
  int rc = DIAGC_OK;
  if (guard >= ex->nents || ex->ents[guard].kind != DIAGC_ENT_GUARD) {
    rc = DIAGC_EXEC_E_ARG;
  } else {
    exec_ent *e = &ex->ents[guard];
    catch_up_timers(ex, 0);
    e->offered++;
    if (ex->shut || !ex->prepared) {
      e->rejected++;
      rc = DIAGC_EXEC_E_REJECTED;
    } else if (e->guard_pending) {
      e->coalesced++;
    } else {
      e->guard_pending = 1;
      e->accepted++;
      e->high_water = 1;
      enqueue(ex, guard);
    }
  }
  pthread_mutex_unlock(&ex->mu);
  return rc;
}

int diagc_exec_advance_clock(diagc_exec *ex, int64_t t_ns) {
  if (!ex || ex->cfg.clock != DIAGC_CLOCK_MANUAL) return DIAGC_EXEC_E_ARG;
  pthread_mutex_lock(&ex->mu);
  int rc = DIAGC_OK;
  if (t_ns < ex->manual_now) rc = DIAGC_EXEC_E_ARG;
  else {
    ex->manual_now = t_ns;
    if (ex->prepared) poll_timers(ex, t_ns);
  }
  pthread_mutex_unlock(&ex->mu);
  return rc;
}

/* ---- spinning ------------------------------------------------------------ */

static int begin_session(diagc_exec *ex, int kind) {
  int rc = diagc_exec_prepare(ex);
  if (rc) return rc;
  pthread_mutex_lock(&ex->mu);
  if (ex->shut) {
    pthread_mutex_unlock(&ex->mu);
    return DIAGC_EXEC_E_SHUTDOWN;
  }
  if (ex->session != S_NONE) {
    pthread_mutex_unlock(&ex->mu);
    return DIAGC_EXEC_E_STATE;
  }
  ex->session = kind;
  ex->session_done = 0;
  ex->cancel = 0;
  catch_up_timers(ex, 1);
  return DIAGC_OK; /* lock held */
}

/* The spinning thread's loop (lock held). */
static void session_loop(diagc_exec *ex) {
  for (;;) {
    if (ex->session_done || ex->cancel || ex->shut) break;
    if (ex->session == S_UNTIL && ex->deadline >= 0 && now_locked(ex) >= ex->deadline) break;
    exec_item it;
    catch_up_timers(ex, 1);
    if (take(ex, &it)) {
      ex->searching = 0;
      run_item(ex, 0, it);
      continue;
    }
    if (ex->cfg.clock == DIAGC_CLOCK_MONOTONIC) {
      idle_wait(ex, ex->session == S_UNTIL ? ex->deadline : -1);
      continue;
    }
    /* manual clock */
    if (ex->session == S_UNTIL && ex->deadline >= 0 && ex->in_callback == 0 && ex->rcount == 0) {
      /* idle: jump to the next timer before the deadline (virtual time),
       * or to the deadline and stop */
      int64_t next = -1;
      for (int i = 0; i < ex->nents; i++) {
        exec_ent *e = &ex->ents[i];
        if (e->kind == DIAGC_ENT_TIMER && e->armed && (next < 0 || e->due < next)) next = e->due;
      }
      if (!ex->timers_stopped && next >= 0 && next < ex->deadline) {
        if (next > ex->manual_now) ex->manual_now = next;
        poll_timers(ex, ex->manual_now);
        continue;
      }
      if (ex->manual_now < ex->deadline) ex->manual_now = ex->deadline;
      break;
    }
    idle_wait(ex, -1);
  }
}

static int end_session(diagc_exec *ex) {
  ex->session_done = 3;
  wake_all(ex);
  while (ex->in_callback > 0) pthread_cond_wait(&ex->done_cv, &ex->mu);
  ex->session = S_NONE;
  unpark_all(ex);
  int rc = ex->shut ? DIAGC_EXEC_E_SHUTDOWN : DIAGC_OK;
  pthread_mutex_unlock(&ex->mu);
  return rc;
}

int diagc_exec_spin(diagc_exec *ex) {
  if (!ex) return DIAGC_EXEC_E_ARG;
  int rc = begin_session(ex, S_SPIN);
  if (rc) return rc;
  if (ex->rcount > 0) wake_one(ex);
  session_loop(ex);
  rc = end_session(ex);
  return rc == DIAGC_EXEC_E_SHUTDOWN ? DIAGC_OK : rc;
}

int diagc_exec_spin_some(diagc_exec *ex) {
  if (!ex) return DIAGC_EXEC_E_ARG;
  int rc = begin_session(ex, S_SOME);
  if (rc) return rc;
  poll_timers(ex, now_locked(ex));
  ex->limit = ex->seq;
  uint64_t n = 0;
  for (int i = 0; i < ex->ngroups; i++) n += (uint64_t)(ex->groups[i].tq.count + ex->groups[i].oq.count);
  ex->remaining = n;
  if (n == 0) ex->session_done = 1;
  else if (ex->rcount > 0) wake_one(ex);
  session_loop(ex);
  return end_session(ex);
}

int diagc_exec_spin_until(diagc_exec *ex, diagc_exec_pred pred, void *user, int64_t deadline_ns) {
  if (!ex) return DIAGC_EXEC_E_ARG;
  int rc = begin_session(ex, S_UNTIL);
  if (rc) return rc;
  ex->pred = pred;
  ex->pred_user = user;
  ex->deadline = deadline_ns;
  int held = 0;
  pthread_mutex_unlock(&ex->mu);
  if (pred && pred(user)) held = 1;
  pthread_mutex_lock(&ex->mu);
  if (held) ex->session_done = 2;
  else if (ex->rcount > 0) wake_one(ex);
  session_loop(ex);
  held = ex->session_done == 2;
  ex->pred = NULL;
  rc = end_session(ex);
  if (rc < 0 && rc != DIAGC_EXEC_E_SHUTDOWN) return rc;
  return held;
}

void diagc_exec_cancel(diagc_exec *ex) {
  pthread_mutex_lock(&ex->mu);
  ex->cancel = 1;
  wake_all(ex);
  pthread_mutex_unlock(&ex->mu);
}

void diagc_exec_stop_timers(diagc_exec *ex) {
  pthread_mutex_lock(&ex->mu);
  ex->timers_stopped = 1;
  for (int i = 0; i < ex->nents; i++)
    if (ex->ents[i].kind == DIAGC_ENT_TIMER) ex->ents[i].armed = 0;
  ex->next_due = NO_DUE;
  pthread_cond_broadcast(&ex->timer_cv);
  pthread_mutex_unlock(&ex->mu);
}

int diagc_exec_idle(diagc_exec *ex) {
  pthread_mutex_lock(&ex->mu);
  catch_up_timers(ex, 0);
  int idle = ex->in_callback == 0;
  for (int i = 0; idle && i < ex->ngroups; i++)
    if (group_has_work(&ex->groups[i])) idle = 0;
  pthread_mutex_unlock(&ex->mu);
  return idle;
}

static void totals_locked(diagc_exec *ex, diagc_exec_report *r) {
  memset(r, 0, sizeof *r);
  for (int i = 0; i < ex->nents; i++) {
    exec_ent *e = &ex->ents[i];
    uint64_t q = (uint64_t)queued_count(e);
    r->offered += e->offered;
    r->accepted += e->accepted;
    r->rejected += e->rejected;
    r->dropped += e->dropped;
    r->coalesced += e->coalesced;
    r->run += e->run;
    r->pending += q;
    r->pending_by_kind[e->kind] += q;
  }
}

int diagc_exec_report_totals(diagc_exec *ex, diagc_exec_report *r) {
  if (!ex || !r) return DIAGC_EXEC_E_ARG;
  pthread_mutex_lock(&ex->mu);
  catch_up_timers(ex, 0);
  totals_locked(ex, r);
  pthread_mutex_unlock(&ex->mu);
  return DIAGC_OK;
}

int diagc_exec_shutdown(diagc_exec *ex, diagc_exec_report *report) {
  if (!ex) return DIAGC_EXEC_E_ARG;
  pthread_mutex_lock(&ex->mu);
  if (!ex->shut) catch_up_timers(ex, 0); /* due timers are pending, not lost */
  ex->shut = 1;
  for (int i = 0; i < ex->nents; i++)
    if (ex->ents[i].kind == DIAGC_ENT_TIMER) ex->ents[i].armed = 0;
  ex->next_due = NO_DUE;
  wake_all(ex);
  if (tl_in_callback != ex) {
    while (ex->in_callback > 0) pthread_cond_wait(&ex->done_cv, &ex->mu);
  }
  if (report) totals_locked(ex, report);
  pthread_mutex_unlock(&ex->mu);
  return DIAGC_OK;
}

int diagc_exec_get_stats(diagc_exec *ex, int ent, diagc_exec_entity_stats *st) {
  if (!ex || !st) return DIAGC_EXEC_E_ARG;
  pthread_mutex_lock(&ex->mu);
  catch_up_timers(ex, 0);
  if (ent < 0 || ent >= ex->nents) {
    pthread_mutex_unlock(&ex->mu);
    return DIAGC_EXEC_E_ARG;
  }
  exec_ent *e = &ex->ents[ent];
  st->kind = e->kind;
  st->group = e->group;
  st->capacity = e->depth;
  st->high_water = e->high_water;
  st->queued = queued_count(e);
  st->offered = e->offered;
  st->accepted = e->accepted;
  st->rejected = e->rejected;
  st->dropped = e->dropped;
  st->coalesced = e->coalesced;
  st->run = e->run;
  st->missed_periods = e->missed;
  pthread_mutex_unlock(&ex->mu);
  return DIAGC_OK;
}

void diagc_exec_destroy(diagc_exec *ex) {
  if (!ex) return;
  diagc_exec_shutdown(ex, NULL);
  pthread_mutex_lock(&ex->mu);
  ex->destroying = 1;
  wake_all(ex);
  pthread_mutex_unlock(&ex->mu);
  for (int i = 0; i < ex->nhelpers; i++) pthread_join(ex->helpers[i], NULL);
  for (int i = 0; i < ex->nents; i++) {
    exec_ent *e = &ex->ents[i];
    free(e->slots); free(e->arrival); free(e->len); free(e->src); free(e->ring); free(e->freel);
  }
  for (int i = 0; i < ex->ngroups; i++) {
    free(ex->groups[i].tq.v);
    free(ex->groups[i].oq.v);
  }
  if (ex->scratch)
    for (int i = 0; i < ex->nthreads; i++) free(ex->scratch[i]);
  free(ex->scratch);
  free(ex->helpers);
  free(ex->ents);
  free(ex->groups);
  free(ex->ready);
  pthread_mutex_destroy(&ex->mu);
  pthread_cond_destroy(&ex->work_cv);
  pthread_cond_destroy(&ex->timer_cv);
  pthread_cond_destroy(&ex->done_cv);
  free(ex);
}
