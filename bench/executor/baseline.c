/* baseline.c: see baseline.h. */
#define _POSIX_C_SOURCE 200809L
#include "baseline.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct bent {
  int kind, group;
  diagc_exec_fn fn;
  void *user;
  int64_t period, due, offset;
  int armed;
  int guard;
  size_t msg_size, slot;
  int depth, head, count;
  unsigned char *buf;   /* depth slots */
  unsigned char *work;  /* the message being processed (one at a time: ME) */
  int64_t *arrival;
  uint64_t dropped, accepted, run;
} bent;

struct base_exec {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int threads, max, n, ngroups;
  bent *e;
  int *busy;       /* per group: a callback of this ME group runs */
  int *harvest, nharvest, hpos;
  int shut, stopped, running;
  uint64_t seq;
};

base_exec *base_create(int threads, int max_entities) {
  base_exec *ex = calloc(1, sizeof *ex);
  if (!ex) return NULL;
  ex->threads = threads < 1 ? 2 : threads;
  ex->max = max_entities;
  ex->e = calloc((size_t)max_entities, sizeof *ex->e);
  ex->busy = calloc((size_t)max_entities, sizeof *ex->busy);
  ex->harvest = calloc((size_t)max_entities, sizeof *ex->harvest);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_mutex_init(&ex->mu, NULL);
  pthread_cond_init(&ex->cv, &ca);
  pthread_condattr_destroy(&ca);
  return ex;
}

int base_add_group(base_exec *ex) { return ex->ngroups < ex->max ? ex->ngroups++ : -1; }

static int add(base_exec *ex, int kind, int group, diagc_exec_fn fn, void *user) {
  if (ex->n >= ex->max || group < 0 || group >= ex->ngroups) return -1;
  bent *e = &ex->e[ex->n];
  e->kind = kind;
  e->group = group;
  e->fn = fn;
  e->user = user;
  return ex->n++;
}

int base_add_timer(base_exec *ex, int group, int64_t period_ns, int64_t offset_ns, diagc_exec_fn fn, void *user) {
  int id = add(ex, DIAGC_ENT_TIMER, group, fn, user);
  if (id >= 0) {
    ex->e[id].period = period_ns;
    ex->e[id].due = offset_ns; /* relative until prepare */
  }
  return id;
}

int base_add_subscription(base_exec *ex, int group, size_t msg_size, int depth, diagc_exec_fn fn, void *user) {
  int id = add(ex, DIAGC_ENT_SUBSCRIPTION, group, fn, user);
  if (id < 0) return id;
  bent *e = &ex->e[id];
  e->msg_size = msg_size;
  e->slot = (msg_size + 15) / 16 * 16;
  e->depth = depth;
  e->buf = malloc((size_t)depth * e->slot);
  e->work = malloc(e->slot);
  e->arrival = calloc((size_t)depth, sizeof *e->arrival);
  return id;
}

int base_add_guard(base_exec *ex, int group, diagc_exec_fn fn, void *user) {
  return add(ex, DIAGC_ENT_GUARD, group, fn, user);
}

int base_prepare(base_exec *ex) {
  int64_t now = diagc_monotonic_ns();
  for (int i = 0; i < ex->n; i++)
    if (ex->e[i].kind == DIAGC_ENT_TIMER) {
      ex->e[i].offset = ex->e[i].due;
      ex->e[i].due += now;
      ex->e[i].armed = 1;
    }
  return 0;
}

void base_set_epoch(base_exec *ex, int64_t epoch_ns) {
  pthread_mutex_lock(&ex->mu);
  for (int i = 0; i < ex->n; i++)
    if (ex->e[i].kind == DIAGC_ENT_TIMER) ex->e[i].due = epoch_ns + ex->e[i].offset;
  pthread_cond_broadcast(&ex->cv);
  pthread_mutex_unlock(&ex->mu);
}

int base_deliver(base_exec *ex, int sub, const void *msg, size_t size) {
  pthread_mutex_lock(&ex->mu);
  bent *e = &ex->e[sub];
  if (ex->shut) {
    e->dropped++;
    pthread_mutex_unlock(&ex->mu);
    return -1;
  }
  if (e->count == e->depth) {
    e->head = (e->head + 1) % e->depth;
    e->count--;
    e->dropped++;
  }
  int slot = (e->head + e->count) % e->depth;
  memcpy(e->buf + (size_t)slot * e->slot, msg, size);
  e->arrival[slot] = diagc_monotonic_ns();
  e->count++;
  e->accepted++;
  /* the wait set's guard condition: wake the waiters */
  pthread_cond_broadcast(&ex->cv);
  pthread_mutex_unlock(&ex->mu);
  return 0;
}

int base_trigger(base_exec *ex, int guard) {
  pthread_mutex_lock(&ex->mu);
  ex->e[guard].guard = 1;
  pthread_cond_broadcast(&ex->cv);
  pthread_mutex_unlock(&ex->mu);
  return 0;
}

static int ready(const bent *e, int64_t now) {
  switch (e->kind) {
  case DIAGC_ENT_TIMER: return e->armed && e->due <= now;
  case DIAGC_ENT_GUARD: return e->guard;
  default: return e->count > 0;
  }
}

/* The rebuild: scan every entity, timers first, then subscriptions, then
 * guards; entities of busy groups are masked (lock held). */
static void rebuild(base_exec *ex) {
  int64_t now = diagc_monotonic_ns();
  static const int order[] = { DIAGC_ENT_TIMER, DIAGC_ENT_SUBSCRIPTION, DIAGC_ENT_GUARD };
  ex->nharvest = 0;
  ex->hpos = 0;
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < ex->n; i++) {
      bent *e = &ex->e[i];
      if (e->kind == order[k] && !ex->busy[e->group] && ready(e, now)) ex->harvest[ex->nharvest++] = i;
    }
}

/* Next harvested entity whose group is free and which is still ready. */
static int take(base_exec *ex) {
  int64_t now = diagc_monotonic_ns();
  while (ex->hpos < ex->nharvest) {
    int i = ex->harvest[ex->hpos++];
    bent *e = &ex->e[i];
    if (ex->busy[e->group] || !ready(e, now)) continue; /* discarded */
    return i;
  }
  return -1;
}

static void execute(base_exec *ex, int i) {
  bent *e = &ex->e[i];
  diagc_exec_event ev;
  memset(&ev, 0, sizeof ev);
  ev.entity = i;
  ev.kind = e->kind;
  ev.seq = ++ex->seq;
  if (e->kind == DIAGC_ENT_TIMER) {
    ev.time_ns = e->due;
    /* rcl_timer_call: next call time moves past now, skipping missed periods */
    int64_t now = diagc_monotonic_ns();
    e->due += e->period;
    if (e->due <= now) e->due += ((now - e->due) / e->period + 1) * e->period;
  } else if (e->kind == DIAGC_ENT_GUARD) {
    e->guard = 0;
  } else {
    memcpy(e->work, e->buf + (size_t)e->head * e->slot, e->slot);
    ev.time_ns = e->arrival[e->head];
    ev.data = e->work;
    ev.size = e->msg_size;
    e->head = (e->head + 1) % e->depth;
    e->count--;
  }
  ex->busy[e->group] = 1;
  ex->running++;
  pthread_mutex_unlock(&ex->mu);
  e->fn(e->user, &ev);
  pthread_mutex_lock(&ex->mu);
  e->run++;
  ex->busy[e->group] = 0;
  ex->running--;
  pthread_cond_broadcast(&ex->cv); /* wakes waiters to rebuild */
}

int base_spin_some(base_exec *ex) {
  pthread_mutex_lock(&ex->mu);
  rebuild(ex);
  int i;
  while ((i = take(ex)) >= 0) execute(ex, i);
  pthread_mutex_unlock(&ex->mu);
  return 0;
}

static void worker(base_exec *ex) {
  pthread_mutex_lock(&ex->mu);
  while (!ex->shut) {
    int i = take(ex);
    if (i < 0) {
      rebuild(ex);
      i = take(ex);
    }
    if (i >= 0) {
      execute(ex, i);
      continue;
    }
    /* wait for a delivery, a finished callback or the next timer */
    int64_t next = -1;
    for (int k = 0; k < ex->n; k++)
      if (ex->e[k].kind == DIAGC_ENT_TIMER && ex->e[k].armed && (next < 0 || ex->e[k].due < next)) next = ex->e[k].due;
    if (next < 0) {
      pthread_cond_wait(&ex->cv, &ex->mu);
    } else {
      struct timespec ts = { (time_t)(next / 1000000000), (long)(next % 1000000000) };
      pthread_cond_timedwait(&ex->cv, &ex->mu, &ts);
    }
  }
  pthread_mutex_unlock(&ex->mu);
}

static void *helper(void *arg) {
  worker(arg);
  return NULL;
}

int base_spin(base_exec *ex) {
  pthread_t th[64];
  int nh = ex->threads - 1 < 64 ? ex->threads - 1 : 64;
  int started = 0;
  for (int i = 0; i < nh; i++)
    if (pthread_create(&th[i], NULL, helper, ex) == 0) started++;
  worker(ex);
  for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
  return 0;
}

void base_stop_timers(base_exec *ex) {
  pthread_mutex_lock(&ex->mu);
  ex->stopped = 1;
  for (int i = 0; i < ex->n; i++) ex->e[i].armed = 0;
  pthread_mutex_unlock(&ex->mu);
}

int base_idle(base_exec *ex) {
  pthread_mutex_lock(&ex->mu);
  int idle = ex->running == 0;
  for (int i = 0; idle && i < ex->n; i++)
    if ((ex->e[i].kind == DIAGC_ENT_SUBSCRIPTION && ex->e[i].count) || ex->e[i].guard) idle = 0;
  pthread_mutex_unlock(&ex->mu);
  return idle;
}

void base_shutdown(base_exec *ex, uint64_t *pending, uint64_t *dropped) {
  pthread_mutex_lock(&ex->mu);
  ex->shut = 1;
  pthread_cond_broadcast(&ex->cv);
  while (ex->running) {
    pthread_mutex_unlock(&ex->mu);
    struct timespec ts = { 0, 100000 };
    nanosleep(&ts, NULL);
    pthread_mutex_lock(&ex->mu);
  }
  for (int i = 0; i < ex->n; i++) {
    if (ex->e[i].kind == DIAGC_ENT_SUBSCRIPTION) *pending += (uint64_t)ex->e[i].count;
    *dropped += ex->e[i].dropped;
  }
  pthread_mutex_unlock(&ex->mu);
}

void base_destroy(base_exec *ex) {
  for (int i = 0; i < ex->n; i++) {
    free(ex->e[i].buf);
    free(ex->e[i].work);
    free(ex->e[i].arrival);
  }
  free(ex->e);
  free(ex->busy);
  free(ex->harvest);
  pthread_mutex_destroy(&ex->mu);
  pthread_cond_destroy(&ex->cv);
  free(ex);
}
