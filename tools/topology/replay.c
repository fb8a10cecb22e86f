/* replay.c: iRobot topology replay (see replay.h). */
#define _GNU_SOURCE /* pthread_setaffinity_np for the stall probe */
#include "replay.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "json.h"

#define NAME_MAX_LEN 63

typedef struct pub_spec {
  char topic[NAME_MAX_LEN + 1], type[NAME_MAX_LEN + 1];
  double period_ms;
  size_t bytes; /* whole message: header + payload */
} pub_spec;

typedef struct sub_spec {
  char topic[NAME_MAX_LEN + 1], type[NAME_MAX_LEN + 1];
  int depth;
} sub_spec;

typedef struct node_spec {
  char name[NAME_MAX_LEN + 1];
  int executor_id, number;
  int npubs, nsubs;
  pub_spec *pubs;
  sub_spec *subs;
} node_spec;

struct replay_topology {
  int nnodes;
  node_spec *nodes;
};

/* The stamped header every message starts with. */
typedef struct msg_header {
  int64_t stamp_ns;
  uint64_t tracking;
  uint32_t frequency_mhz;
  uint32_t size;
  uint32_t publisher; /* index among the topic's publishers */
  uint32_t reserved;
} msg_header;

/* ---- loading ---------------------------------------------------------------- */

static int errf(char *err, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, n, fmt, ap);
  va_end(ap);
  return -1;
}

/* Payload bytes of a message type; 0 and a message on error. */
static size_t payload_bytes(const char *type, const json *msg_size, char *err, size_t n) {
  const char *t = type;
  if (strncmp(t, "stamped", 7) != 0) {
    errf(err, n, "unknown msg_type \"%s\" (expected stamped...)", type);
    return 0;
  }
  t += 7;
  if (strcmp(t, "_vector") == 0) {
    if (!msg_size || msg_size->kind != JSON_NUMBER || msg_size->number < 0 || msg_size->number > 64e6 ||
        msg_size->number != floor(msg_size->number)) {
      errf(err, n, "msg_type stamped_vector needs an integer msg_size in [0, 64e6]");
      return 0;
    }
    return (size_t)msg_size->number + 1; /* +1: an empty vector still occupies a slot byte */
  }
  char *endp;
  unsigned long count = 1;
  if (isdigit((unsigned char)*t)) {
    count = strtoul(t, &endp, 10);
    t = endp;
  }
  if (strcmp(t, "b") == 0) return count;
  if (strcmp(t, "kb") == 0) return count * 1024;
  if (strcmp(t, "mb") == 0) return count * 1024 * 1024;
  static const struct { const char *s; size_t sz; } scalars[] = {
    { "_int8", 1 }, { "_uint8", 1 }, { "_int16", 2 }, { "_uint16", 2 }, { "_int32", 4 }, { "_uint32", 4 },
    { "_float32", 4 }, { "_int64", 8 }, { "_uint64", 8 }, { "_float64", 8 },
  };
  for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
    if (strcmp(t, scalars[i].s) == 0) return count * scalars[i].sz;
  errf(err, n, "unknown msg_type \"%s\"", type);
  return 0;
}

static int get_name(const json *obj, const char *key, char *out, const char *what, char *err, size_t n) {
  const json *v = json_get(obj, key);
  if (!v || v->kind != JSON_STRING || !v->string[0])
    return errf(err, n, "line %d: %s needs a non-empty string \"%s\"", obj->line, what, key);
  if (strlen(v->string) > NAME_MAX_LEN)
    return errf(err, n, "line %d: %s \"%s\" is longer than %d characters", v->line, key, v->string, NAME_MAX_LEN);
  strcpy(out, v->string);
  return 0;
}

static int check_keys(const json *obj, const char *const *allowed, const char *what, char *err, size_t n) {
  for (size_t i = 0; i < obj->n; i++) {
    int ok = strncmp(obj->keys[i], "qos_", 4) == 0;
    for (const char *const *a = allowed; !ok && *a; a++) ok = strcmp(obj->keys[i], *a) == 0;
    if (!ok) return errf(err, n, "line %d: unknown key \"%s\" in %s", obj->items[i]->line, obj->keys[i], what);
  }
  return 0;
}

static int get_depth(const json *obj, int *depth, char *err, size_t n) {
  const json *d = json_get(obj, "qos_depth");
  *depth = 10;
  if (!d) return 0;
  if (d->kind != JSON_NUMBER || d->number < 1 || d->number > 100000 || d->number != floor(d->number))
    return errf(err, n, "line %d: qos_depth must be an integer in [1, 100000]", d->line);
  *depth = (int)d->number;
  return 0;
}

static int load_node(const json *o, node_spec *nd, char *err, size_t n) {
  static const char *const node_keys[] = { "node_name", "executor_id", "number", "publishers", "subscribers",
                                           "servers", "clients", NULL };
  static const char *const pub_keys[] = { "topic_name", "msg_type", "period_ms", "freq_hz", "msg_size",
                                          "msg_pass_by", NULL };
  static const char *const sub_keys[] = { "topic_name", "msg_type", "msg_pass_by", NULL };
  if (o->kind != JSON_OBJECT) return errf(err, n, "line %d: a node must be an object", o->line);
  if (check_keys(o, node_keys, "a node", err, n)) return -1;
  if (get_name(o, "node_name", nd->name, "a node", err, n)) return -1;
  const json *v = json_get(o, "executor_id");
  nd->executor_id = 0;
  if (v) {
    if (v->kind != JSON_NUMBER || v->number < 0 || v->number > 1e6 || v->number != floor(v->number))
      return errf(err, n, "line %d: executor_id must be a non-negative integer", v->line);
    nd->executor_id = (int)v->number;
  }
  v = json_get(o, "number");
  nd->number = 1;
  if (v) {
    if (v->kind != JSON_NUMBER || v->number < 1 || v->number > 1000 || v->number != floor(v->number))
      return errf(err, n, "line %d: number must be an integer in [1, 1000]", v->line);
    nd->number = (int)v->number;
  }
  if (json_get(o, "servers") || json_get(o, "clients"))
    return errf(err, n, "line %d: node \"%s\": servers and clients are not supported by this replay", o->line,
                nd->name);
  const json *pubs = json_get(o, "publishers"), *subs = json_get(o, "subscribers");
  if (pubs && pubs->kind != JSON_ARRAY) return errf(err, n, "line %d: publishers must be an array", pubs->line);
  if (subs && subs->kind != JSON_ARRAY) return errf(err, n, "line %d: subscribers must be an array", subs->line);
  nd->npubs = pubs ? (int)pubs->n : 0;
  nd->nsubs = subs ? (int)subs->n : 0;
  nd->pubs = calloc((size_t)nd->npubs + 1, sizeof *nd->pubs);
  nd->subs = calloc((size_t)nd->nsubs + 1, sizeof *nd->subs);
  if (!nd->pubs || !nd->subs) return errf(err, n, "out of memory");
  for (int i = 0; i < nd->npubs; i++) {
    const json *p = pubs->items[i];
    pub_spec *ps = &nd->pubs[i];
    if (p->kind != JSON_OBJECT) return errf(err, n, "line %d: a publisher must be an object", p->line);
    if (check_keys(p, pub_keys, "a publisher", err, n)) return -1;
    if (get_name(p, "topic_name", ps->topic, "a publisher", err, n)) return -1;
    if (get_name(p, "msg_type", ps->type, "a publisher", err, n)) return -1;
    const json *per = json_get(p, "period_ms"), *f = json_get(p, "freq_hz");
    if ((per != NULL) == (f != NULL))
      return errf(err, n, "line %d: publisher of \"%s\" needs exactly one of period_ms and freq_hz", p->line,
                  ps->topic);
    const json *x = per ? per : f;
    if (x->kind != JSON_NUMBER || !(x->number > 0) || x->number > 1e7)
      return errf(err, n, "line %d: %s must be a positive number", x->line, per ? "period_ms" : "freq_hz");
    ps->period_ms = per ? per->number : 1000.0 / f->number;
    if (ps->period_ms < 0.01) return errf(err, n, "line %d: period below 10 us", x->line);
    size_t pb = payload_bytes(ps->type, json_get(p, "msg_size"), err, n);
    if (!pb) return errf(err, n, "line %d: %s", p->line, err[0] ? err : "bad msg_type");
    ps->bytes = sizeof(msg_header) + pb;
  }
  for (int i = 0; i < nd->nsubs; i++) {
    const json *s = subs->items[i];
    sub_spec *ss = &nd->subs[i];
    if (s->kind != JSON_OBJECT) return errf(err, n, "line %d: a subscriber must be an object", s->line);
    if (check_keys(s, sub_keys, "a subscriber", err, n)) return -1;
    if (get_name(s, "topic_name", ss->topic, "a subscriber", err, n)) return -1;
    if (get_name(s, "msg_type", ss->type, "a subscriber", err, n)) return -1;
    if (get_depth(s, &ss->depth, err, n)) return -1;
  }
  return 0;
}

replay_topology *replay_load(const char *path, char *err, size_t n) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    errf(err, n, "cannot read '%s'", path);
    return NULL;
  }
  size_t cap = 1 << 16, len = 0;
  char *text = malloc(cap);
  size_t got;
  while (text && (got = fread(text + len, 1, cap - len, f)) > 0) {
    len += got;
    if (len == cap) {
      char *nt = realloc(text, cap *= 2);
      if (!nt) {
        free(text);
        text = NULL;
      } else {
        text = nt;
      }
    }
  }
  fclose(f);
  if (!text) {
    errf(err, n, "out of memory");
    return NULL;
  }
  char jerr[200];
  json *doc = json_parse(text, len, jerr, sizeof jerr);
  free(text);
  if (!doc) {
    errf(err, n, "%s: invalid JSON: %s", path, jerr);
    return NULL;
  }
  replay_topology *t = calloc(1, sizeof *t);
  const json *nodes = json_get(doc, "nodes");
  char why[300] = "";
  int bad = 0;
  if (!t) {
    bad = errf(why, sizeof why, "out of memory");
  } else if (doc->kind != JSON_OBJECT || !nodes || nodes->kind != JSON_ARRAY || nodes->n == 0) {
    bad = errf(why, sizeof why, "expected an object with a non-empty \"nodes\" array");
  } else if (doc->n != 1) {
    bad = errf(why, sizeof why, "unknown top-level key (only \"nodes\" is allowed)");
  } else {
    t->nodes = calloc(nodes->n, sizeof *t->nodes);
    if (!t->nodes) bad = errf(why, sizeof why, "out of memory");
    for (size_t i = 0; !bad && i < nodes->n; i++) {
      t->nnodes++;
      bad = load_node(nodes->items[i], &t->nodes[i], why, sizeof why);
    }
  }
  /* every subscriber's type must match its topic's publishers */
  for (int a = 0; !bad && a < t->nnodes; a++)
    for (int i = 0; !bad && i < t->nodes[a].nsubs; i++)
      for (int b = 0; !bad && b < t->nnodes; b++)
        for (int j = 0; !bad && j < t->nodes[b].npubs; j++)
          if (strcmp(t->nodes[a].subs[i].topic, t->nodes[b].pubs[j].topic) == 0 &&
              strcmp(t->nodes[a].subs[i].type, t->nodes[b].pubs[j].type) != 0)
            bad = errf(why, sizeof why, "topic \"%s\": subscriber of node \"%s\" expects %s, publisher of \"%s\" sends %s",
                       t->nodes[a].subs[i].topic, t->nodes[a].name, t->nodes[a].subs[i].type, t->nodes[b].name,
                       t->nodes[b].pubs[j].type);
  json_free(doc);
  if (bad) {
    errf(err, n, "%s: %s", path, why);
    replay_free(t);
    return NULL;
  }
  return t;
}

void replay_free(replay_topology *t) {
  if (!t) return;
  for (int i = 0; i < t->nnodes; i++) {
    free(t->nodes[i].pubs);
    free(t->nodes[i].subs);
  }
  free(t->nodes);
  free(t);
}

/* ---- running ----------------------------------------------------------------- */

typedef struct topic_link { void *ex; int sub; } topic_link;

typedef struct topic_rt {
  char name[NAME_MAX_LEN + 1];
  double period_ms;
  size_t bytes;
  int npubs, nlinks;
  topic_link *links;
} topic_rt;

/* Virtual mode: stamps and receive times come from the executor's clock. */
static diagc_exec *virtual_ex;
static int64_t stamp_now(void) { return virtual_ex ? diagc_exec_now(virtual_ex) : diagc_monotonic_ns(); }

typedef struct pub_rt {
  const replay_backend *be;
  topic_rt *topic;
  uint32_t index;
  unsigned char *buf;
  size_t bytes;
  uint64_t tracking, offered;
} pub_rt;

/* Late messages, recorded for the stall probe: [stamp, receive time] of
 * each (late_iv[2i], late_iv[2i + 1]); preallocated, so receiving does not
 * allocate. */
static int64_t *late_iv;
static int late_cap;
static atomic_int late_n;

typedef struct sub_rt {
  topic_rt *topic;
  double late_ns, too_late_ns;
  uint64_t *last; /* per publisher of the topic */
  uint64_t received, late, too_late, lost, scored;
  double sum, sumsq, min, max; /* microseconds */
} sub_rt;

static void publish_cb(void *user, const diagc_exec_event *ev) {
  (void)ev;
  pub_rt *p = user;
  msg_header h;
  h.stamp_ns = stamp_now();
  h.tracking = ++p->tracking;
  h.frequency_mhz = (uint32_t)(1e6 / p->topic->period_ms);
  h.size = (uint32_t)p->bytes;
  h.publisher = p->index;
  h.reserved = 0;
  memcpy(p->buf, &h, sizeof h);
  for (int i = 0; i < p->topic->nlinks; i++) {
    p->be->deliver(p->topic->links[i].ex, p->topic->links[i].sub, p->buf, p->bytes);
    p->offered++;
  }
}

static void receive_cb(void *user, const diagc_exec_event *ev) {
  int64_t now = stamp_now();
  sub_rt *s = user;
  msg_header h;
  memcpy(&h, ev->data, sizeof h);
  double lat = (double)(now - h.stamp_ns);
  s->received++;
  if (h.publisher < (uint32_t)s->topic->npubs) {
    uint64_t *last = &s->last[h.publisher];
    if (h.tracking > *last + 1) s->lost += h.tracking - *last - 1;
    if (h.tracking > *last) *last = h.tracking;
  }
  if (lat > s->late_ns && late_iv) {
    int i = atomic_fetch_add(&late_n, 1);
    if (i < late_cap) {
      late_iv[2 * i] = h.stamp_ns;
      late_iv[2 * i + 1] = now;
    }
  }
  if (lat > s->too_late_ns) {
    s->too_late++;
    return; /* excluded from the latency statistics */
  }
  if (lat > s->late_ns) s->late++;
  double us = lat / 1000.0;
  if (s->scored == 0 || us < s->min) s->min = us;
  if (s->scored == 0 || us > s->max) s->max = us;
  s->scored++;
  s->sum += us;
  s->sumsq += us * us;
}

typedef struct spin_arg { const replay_backend *be; void *ex; } spin_arg;
static void *spin_main(void *arg) {
  spin_arg *a = arg;
  a->be->spin(a->ex);
  return NULL;
}

static void sleep_s(double s) {
  struct timespec ts;
  ts.tv_sec = (time_t)s;
  ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
  nanosleep(&ts, NULL);
}

static double cpu_seconds(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
         ru.ru_stime.tv_usec / 1e6;
}

/* Time from the end of preparation to the common start of the timers:
 * enough to start one spin thread per executor. */
#define START_MARGIN_NS 20000000

/* ---- the stall probe ---------------------------------------------------------
 * One thread per CPU, pinned, at the highest SCHED_FIFO priority where that
 * is permitted (else with the scheduling of the replay's threads), wakes
 * every PROBE_PERIOD_NS on an absolute CLOCK_MONOTONIC deadline and
 * measures how late it woke.  A wake-up late by at least PROBE_STALL_NS is
 * a stall: for that long, that CPU ran no thread of this process, whatever
 * its priority.  At the top priority nothing in the process can cause
 * that: the hypervisor did not run the virtual CPU, or the kernel held it. */
#define PROBE_PERIOD_NS 1000000
#define PROBE_STALL_NS 500000

typedef struct probe_rt {
  pthread_t th;
  int cpu, started;
  int64_t end;
  int64_t *iv; /* stalls: [due, woke] pairs */
  int cap, n;
  uint64_t wakeups, stalls;
  int64_t max_late, stalled;
  int top_priority; /* runs at the highest SCHED_FIFO priority */
} probe_rt;

static void *probe_main(void *arg) {
  probe_rt *p = arg;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(p->cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  struct sched_param sp;
  memset(&sp, 0, sizeof sp);
  sp.sched_priority = sched_get_priority_max(SCHED_FIFO);
  p->top_priority = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
  int64_t next = diagc_monotonic_ns();
  while (next < p->end) {
    next += PROBE_PERIOD_NS;
    struct timespec ts = { (time_t)(next / 1000000000), (long)(next % 1000000000) };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {
    }
    int64_t late = diagc_monotonic_ns() - next;
    p->wakeups++;
    if (late > p->max_late) p->max_late = late;
    if (late >= PROBE_STALL_NS) {
      p->stalls++;
      p->stalled += late;
      if (p->n < p->cap) {
        p->iv[2 * p->n] = next;
        p->iv[2 * p->n + 1] = next + late;
        p->n++;
      }
    }
  }
  return NULL;
}

static int find_topic(topic_rt *topics, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(topics[i].name, name) == 0) return i;
  return -1;
}

static int run_impl(const replay_topology *t, const replay_backend *be, int threads, double duration_s,
                    int virtual_clock, int probe, replay_result *res, char *err, size_t errlen) {
  memset(res, 0, sizeof *res);
  int rc = 0;
  int nprobes = 0;
  probe_rt *probes = NULL;
  /* instances: node copies */
  int ninst = 0, maxpubs = 0, maxsubs = 0;
  for (int i = 0; i < t->nnodes; i++) {
    ninst += t->nodes[i].number;
    maxpubs += t->nodes[i].number * t->nodes[i].npubs;
    maxsubs += t->nodes[i].number * t->nodes[i].nsubs;
  }
  int *exec_ids = calloc((size_t)ninst, sizeof *exec_ids);
  void **execs = calloc((size_t)ninst, sizeof *execs);
  topic_rt *topics = calloc((size_t)(maxpubs + maxsubs + 1), sizeof *topics);
  pub_rt *pubs = calloc((size_t)maxpubs + 1, sizeof *pubs);
  sub_rt *subs = calloc((size_t)maxsubs + 1, sizeof *subs);
  int *sub_exec = calloc((size_t)maxsubs + 1, sizeof *sub_exec);
  int *sub_id = calloc((size_t)maxsubs + 1, sizeof *sub_id);
  pthread_t *th = calloc((size_t)ninst, sizeof *th);
  spin_arg *sa = calloc((size_t)ninst, sizeof *sa);
  int nexec = 0, ntopics = 0, npubs = 0, nsubs = 0;
  if (!exec_ids || !execs || !topics || !pubs || !subs || !sub_exec || !sub_id || !th || !sa) {
    rc = errf(err, errlen, "out of memory");
    goto out;
  }
  /* executors */
  for (int i = 0; i < t->nnodes; i++) {
    int k;
    for (k = 0; k < nexec; k++)
      if (virtual_clock || exec_ids[k] == t->nodes[i].executor_id) break;
    if (k == nexec) {
      exec_ids[nexec] = t->nodes[i].executor_id;
      if (virtual_clock) {
        diagc_exec_config c;
        diagc_exec_config_init(&c);
        c.threads = 1;
        c.clock = DIAGC_CLOCK_MANUAL;
        c.max_groups = 1024;
        c.max_entities = 4096;
        execs[nexec] = diagc_exec_create(&c);
        virtual_ex = execs[nexec];
      } else {
        execs[nexec] = be->create(threads);
      }
      if (!execs[nexec]) {
        rc = errf(err, errlen, "cannot create an executor");
        goto out;
      }
      nexec++;
    }
  }
  /* topics, with their publishers' period and size */
  for (int i = 0; i < t->nnodes; i++)
    for (int c = 0; c < t->nodes[i].number; c++)
      for (int j = 0; j < t->nodes[i].npubs; j++) {
        const pub_spec *ps = &t->nodes[i].pubs[j];
        int k = find_topic(topics, ntopics, ps->topic);
        if (k < 0) {
          k = ntopics++;
          strcpy(topics[k].name, ps->topic);
          topics[k].period_ms = ps->period_ms;
          topics[k].bytes = ps->bytes;
        } else if (topics[k].bytes != ps->bytes) {
          rc = errf(err, errlen, "topic \"%s\": publishers disagree on the message size", ps->topic);
          goto out;
        } else if (ps->period_ms < topics[k].period_ms) {
          topics[k].period_ms = ps->period_ms;
        }
        topics[k].npubs++;
      }
  for (int i = 0; i < t->nnodes; i++)
    for (int j = 0; j < t->nodes[i].nsubs; j++) {
      const sub_spec *ss = &t->nodes[i].subs[j];
      int k = find_topic(topics, ntopics, ss->topic);
      if (k < 0) {
        /* no publisher: scored as an empty topic (nothing can arrive) */
        k = ntopics++;
        strcpy(topics[k].name, ss->topic);
        topics[k].period_ms = 0;
        topics[k].bytes = sizeof(msg_header);
      }
      topics[k].nlinks += t->nodes[i].number;
    }
  for (int k = 0; k < ntopics; k++) {
    topics[k].links = calloc((size_t)topics[k].nlinks + 1, sizeof(topic_link));
    if (!topics[k].links) {
      rc = errf(err, errlen, "out of memory");
      goto out;
    }
    topics[k].nlinks = 0;
  }
  /* groups and entities */
  for (int i = 0; i < t->nnodes; i++) {
    const node_spec *nd = &t->nodes[i];
    int e = 0;
    if (!virtual_clock)
      while (exec_ids[e] != nd->executor_id) e++;
    void *ex = execs[e];
    for (int c = 0; c < nd->number; c++) {
      int g = be->add_group(ex);
      if (g < 0) {
        rc = errf(err, errlen, "cannot add node \"%s\" (error %d)", nd->name, g);
        goto out;
      }
      for (int j = 0; j < nd->nsubs; j++) {
        sub_rt *s = &subs[nsubs];
        topic_rt *tp = &topics[find_topic(topics, ntopics, nd->subs[j].topic)];
        s->topic = tp;
        double p_ns = tp->period_ms * 1e6;
        s->late_ns = fmin(0.2 * p_ns, 5e6);
        s->too_late_ns = fmin(p_ns, 50e6);
        s->last = calloc((size_t)tp->npubs + 1, sizeof *s->last);
        if (!s->last) {
          rc = errf(err, errlen, "out of memory");
          goto out;
        }
        int id = be->add_subscription(ex, g, tp->bytes, nd->subs[j].depth, receive_cb, s);
        if (id < 0) {
          rc = errf(err, errlen, "cannot add a subscription of \"%s\" (error %d)", nd->name, id);
          goto out;
        }
        tp->links[tp->nlinks].ex = ex;
        tp->links[tp->nlinks].sub = id;
        tp->nlinks++;
        sub_exec[nsubs] = e;
        sub_id[nsubs] = id;
        nsubs++;
      }
      for (int j = 0; j < nd->npubs; j++) {
        pub_rt *p = &pubs[npubs];
        topic_rt *tp = &topics[find_topic(topics, ntopics, nd->pubs[j].topic)];
        p->be = be;
        p->topic = tp;
        p->bytes = nd->pubs[j].bytes;
        p->buf = calloc(1, p->bytes);
        if (!p->buf) {
          rc = errf(err, errlen, "out of memory");
          goto out;
        }
        for (size_t b = sizeof(msg_header); b < p->bytes; b++) p->buf[b] = (unsigned char)b;
        int64_t period = (int64_t)llround(nd->pubs[j].period_ms * 1e6);
        int id = be->add_timer(ex, g, period, period, publish_cb, p);
        if (id < 0) {
          rc = errf(err, errlen, "cannot add a publisher of \"%s\" (error %d)", nd->name, id);
          goto out;
        }
        npubs++;
      }
    }
  }
  /* publisher indices per topic */
  for (int k = 0; k < ntopics; k++) {
    uint32_t idx = 0;
    for (int j = 0; j < npubs; j++)
      if (pubs[j].topic == &topics[k]) pubs[j].index = idx++;
  }
  for (int e = 0; e < nexec; e++) {
    if (be->prepare(execs[e]) != 0) {
      rc = errf(err, errlen, "cannot start executor %d", exec_ids[e]);
      goto out;
    }
  }
  if (probe && !virtual_clock) {
    /* the probes' and the late messages' records, before any thread runs */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    nprobes = ncpu < 1 ? 1 : ncpu > 256 ? 256 : (int)ncpu;
    int cap = (int)(duration_s * 1e9 / PROBE_PERIOD_NS) + 16;
    late_cap = 65536;
    late_iv = calloc((size_t)late_cap * 2, sizeof *late_iv);
    probes = calloc((size_t)nprobes, sizeof *probes);
    if (!late_iv || !probes) {
      rc = errf(err, errlen, "out of memory");
      goto out;
    }
    for (int i = 0; i < nprobes; i++) {
      probes[i].cpu = i;
      probes[i].cap = cap;
      probes[i].iv = calloc((size_t)cap * 2, sizeof *probes[i].iv);
      if (!probes[i].iv) {
        rc = errf(err, errlen, "out of memory");
        goto out;
      }
    }
  }
  if (!virtual_clock) {
    /* preparing touches every message slot (megabytes for the big topics),
     * so the executors are ready at different times: start every timer
     * clock at one instant, after the spin threads below have started */
    int64_t start = diagc_monotonic_ns() + START_MARGIN_NS;
    for (int e = 0; e < nexec; e++) be->start_at(execs[e], start);
  }
  double cpu0 = cpu_seconds();
  int64_t t0 = diagc_monotonic_ns();
  int started = 0;
  uint64_t pending = 0, dropped = 0;
  if (virtual_clock) {
    /* one executor, driven from this thread: virtual time jumps from
     * timer to timer */
    diagc_exec *vx = execs[0];
    diagc_exec_spin_until(vx, NULL, NULL, diagc_exec_epoch(vx) + (int64_t)llround(duration_s * 1e9));
    diagc_exec_stop_timers(vx);
    while (!diagc_exec_idle(vx)) diagc_exec_spin_some(vx);
    be->shutdown(vx, &pending, &dropped);
    started = nexec;
  } else {
    for (int e = 0; e < nexec; e++) {
      sa[e].be = be;
      sa[e].ex = execs[e];
      if (pthread_create(&th[e], NULL, spin_main, &sa[e]) != 0) break;
      started++;
    }
    for (int i = 0; probes && started == nexec && i < nprobes; i++) {
      probes[i].end = t0 + (int64_t)llround(duration_s * 1e9);
      if (probes[i].iv && pthread_create(&probes[i].th, NULL, probe_main, &probes[i]) == 0) probes[i].started = 1;
    }
    if (started == nexec) sleep_s(duration_s);
    for (int i = 0; probes && i < nprobes; i++)
      if (probes[i].started) pthread_join(probes[i].th, NULL);
    /* stop publishing, drain (messages in flight may still cascade) */
    for (int e = 0; e < nexec; e++) be->stop_timers(execs[e]);
    for (int quiet = 0, spins = 0; quiet < 3 && spins < 20000; spins++) {
      int idle = 1;
      for (int e = 0; e < nexec && idle; e++) idle = be->idle(execs[e]);
      quiet = idle ? quiet + 1 : 0;
      sleep_s(0.0005);
    }
    for (int e = 0; e < nexec; e++) be->shutdown(execs[e], &pending, &dropped);
    for (int e = 0; e < started; e++) pthread_join(th[e], NULL);
  }
  res->duration_s = (double)(diagc_monotonic_ns() - t0) / 1e9;
  res->cpu_percent = 100.0 * (cpu_seconds() - cpu0) / res->duration_s;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  res->max_rss_kb = ru.ru_maxrss;
  if (started != nexec) {
    rc = errf(err, errlen, "cannot start the spin threads");
    goto out;
  }
  /* scoring */
  res->ntopics = ntopics;
  res->executors = nexec;
  res->threads = threads;
  res->topics = calloc((size_t)ntopics + 1, sizeof *res->topics);
  if (!res->topics) {
    rc = errf(err, errlen, "out of memory");
    goto out;
  }
  double tsum = 0;
  uint64_t tscored = 0;
  for (int k = 0; k < ntopics; k++) {
    replay_topic_stats *ts = &res->topics[k];
    snprintf(ts->name, sizeof ts->name, "%s", topics[k].name);
    ts->period_ms = topics[k].period_ms;
    ts->msg_bytes = topics[k].bytes;
    ts->subscribers = topics[k].nlinks;
    double sum = 0, sumsq = 0;
    uint64_t scored = 0;
    for (int j = 0; j < npubs; j++)
      if (pubs[j].topic == &topics[k]) ts->published += pubs[j].offered;
    for (int j = 0; j < nsubs; j++) {
      sub_rt *s = &subs[j];
      if (s->topic != &topics[k]) continue;
      ts->received += s->received;
      ts->late += s->late;
      ts->too_late += s->too_late;
      ts->lost += s->lost;
      if (s->scored) {
        if (scored == 0 || s->min < ts->min_us) ts->min_us = s->min;
        if (s->max > ts->max_us) ts->max_us = s->max;
      }
      scored += s->scored;
      sum += s->sum;
      sumsq += s->sumsq;
    }
    ts->dropped = ts->published > ts->received ? ts->published - ts->received : 0;
    ts->mean_us = scored ? sum / (double)scored : 0;
    ts->sd_us = scored ? sqrt(fmax(0, sumsq / (double)scored - ts->mean_us * ts->mean_us)) : 0;
    res->published += ts->published;
    res->received += ts->received;
    res->late += ts->late;
    res->too_late += ts->too_late;
    res->lost += ts->lost;
    if (ts->max_us > res->max_us) res->max_us = ts->max_us;
    tsum += sum;
    tscored += scored;
  }
  res->mean_us = tscored ? tsum / (double)tscored : 0;
  if (probes) {
    /* the stalls, and the late messages in flight during one */
    res->probe = 1;
    for (int i = 0; i < nprobes; i++) {
      if (!probes[i].started) continue;
      res->probe_cpus++;
      res->probe_top_priority += probes[i].top_priority;
      res->probe_wakeups += probes[i].wakeups;
      res->probe_stalls += probes[i].stalls;
      res->probe_stalled_ms += (double)probes[i].stalled / 1e6;
      if ((double)probes[i].max_late / 1e3 > res->probe_max_us) res->probe_max_us = (double)probes[i].max_late / 1e3;
    }
    int nl = atomic_load(&late_n);
    res->late_recorded = (uint64_t)(nl < late_cap ? nl : late_cap);
    for (uint64_t k = 0; k < res->late_recorded; k++) {
      int64_t a = late_iv[2 * k], b = late_iv[2 * k + 1];
      int hit = 0;
      for (int i = 0; i < nprobes && !hit; i++)
        for (int j = 0; j < probes[i].n && !hit; j++)
          hit = probes[i].iv[2 * j] < b && probes[i].iv[2 * j + 1] > a;
      res->late_in_stall += (uint64_t)hit;
    }
  }
  res->pending = pending;
  res->dropped = dropped;
  if (res->published != res->received + res->dropped + res->pending)
    rc = errf(err, errlen, "accounting mismatch: published %llu != received %llu + dropped %llu + pending %llu",
              (unsigned long long)res->published, (unsigned long long)res->received,
              (unsigned long long)res->dropped, (unsigned long long)res->pending);
out:
  for (int e = 0; e < nexec; e++) be->destroy(execs[e]);
  virtual_ex = NULL;
  for (int i = 0; probes && i < nprobes; i++) free(probes[i].iv);
  free(probes);
  free(late_iv);
  late_iv = NULL;
  late_cap = 0;
  atomic_store(&late_n, 0);
  for (int k = 0; topics && k < ntopics; k++) free(topics[k].links);
  for (int j = 0; pubs && j < npubs; j++) free(pubs[j].buf);
  if (pubs && npubs < maxpubs) free(pubs[npubs].buf);
  for (int j = 0; subs && j <= nsubs && j < maxsubs + 1; j++) free(subs[j].last);
  free(exec_ids);
  free(execs);
  free(topics);
  free(pubs);
  free(subs);
  free(sub_exec);
  free(sub_id);
  free(th);
  free(sa);
  return rc;
}

int replay_run(const replay_topology *t, const replay_backend *be, int threads, double duration_s, int probe,
               replay_result *res, char *err, size_t errlen) {
  return run_impl(t, be, threads, duration_s, 0, probe, res, err, errlen);
}

int replay_run_virtual(const replay_topology *t, double duration_s, replay_result *res, char *err, size_t errlen) {
  return run_impl(t, &replay_diagc_backend, 1, duration_s, 1, 0, res, err, errlen);
}

void replay_result_free(replay_result *res) {
  free(res->topics);
  res->topics = NULL;
}

/* ---- the diagc backend ------------------------------------------------------- */

static void *d_create(int threads) {
  diagc_exec_config c;
  diagc_exec_config_init(&c);
  c.threads = threads;
  c.max_groups = 1024;
  c.max_entities = 4096;
  return diagc_exec_create(&c);
}
static int d_add_group(void *ex) { return diagc_exec_add_group(ex, DIAGC_GROUP_EXCLUSIVE); }
static int d_add_timer(void *ex, int g, int64_t p, int64_t o, diagc_exec_fn fn, void *u) {
  return diagc_exec_add_timer(ex, g, p, o, fn, u);
}
static int d_add_sub(void *ex, int g, size_t size, int depth, diagc_exec_fn fn, void *u) {
  return diagc_exec_add_subscription(ex, g, size, depth, DIAGC_OVERFLOW_DROP_OLDEST, fn, u);
}
static int d_prepare(void *ex) { return diagc_exec_prepare(ex); }
static int d_deliver(void *ex, int sub, const void *m, size_t n) { return diagc_exec_deliver(ex, sub, m, n); }
static void d_spin(void *ex) { diagc_exec_spin(ex); }
static void d_stop_timers(void *ex) { diagc_exec_stop_timers(ex); }
static int d_idle(void *ex) { return diagc_exec_idle(ex); }
static void d_shutdown(void *ex, uint64_t *pending, uint64_t *dropped) {
  diagc_exec_report r;
  diagc_exec_shutdown(ex, &r);
  *pending += r.pending;
  *dropped += r.dropped + r.rejected;
}
static void d_destroy(void *ex) { diagc_exec_destroy(ex); }
static void d_start_at(void *ex, int64_t t) { diagc_exec_set_epoch(ex, t); }

const replay_backend replay_diagc_backend = {
  "diagc", d_create, d_add_group, d_add_timer, d_add_sub, d_prepare, d_deliver,
  d_spin, d_stop_timers, d_idle, d_shutdown, d_destroy, d_start_at,
};
