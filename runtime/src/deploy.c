/* deploy.c: generated models on the executor (see diagc/deploy.h). */
#define _POSIX_C_SOURCE 200809L
#include "diagc/deploy.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A topic message: this header, then `n` doubles. */
typedef struct deploy_msg {
  int64_t stamp_ns;
  uint64_t seq;
  double t;
  int32_t n;
  int32_t reserved;
} deploy_msg;

typedef struct dep_timer {
  struct dep_model *m;
  double period, offset;
  int64_t period_ns, offset_ns;
  int entity;
  uint64_t runs;
  double late_sum_us, late_max_us;
} dep_timer;

typedef struct dep_out {
  int output, topic, size;
  uint64_t seq;
} dep_out;

typedef struct dep_model {
  struct diagc_deploy *d;
  const diagc_deploy_model *spec;
  diagc_sim *sim;
  int group;
  dep_out *outs;
  unsigned char *buf; /* one message of the largest output */
  uint64_t steps;
  int failed;
} dep_model;

typedef struct dep_sub {
  dep_model *m;
  int source, size, topic, entity;
  const char *port;
  uint64_t received;
  double lat_sum_us, lat_max_us;
} dep_sub;

struct diagc_deploy {
  diagc_exec *ex;
  diagc_bus *bus;
  int n, ntimers, nsubs;
  dep_model *models;
  dep_timer *timers;
  dep_sub *subs;
  int64_t epoch;
  double duration;
  char err[256];
};

static void seterr(char *err, size_t n, const char *fmt, ...) {
  if (!err || !n) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, n, fmt, ap);
  va_end(ap);
}

/* Publishes the mapped outputs of a model (in its group's callback). */
static void publish_outputs(dep_model *m, double t) {
  void *ctx = diagc_sim_context(m->sim);
  for (int i = 0; i < m->spec->n_outputs; i++) {
    dep_out *o = &m->outs[i];
    const double *v = NULL;
    if (m->spec->model->eval_output(ctx, o->output, &v) != DIAGC_OK || !v) {
      m->failed = 1;
      continue;
    }
    deploy_msg h = { diagc_monotonic_ns(), ++o->seq, t, o->size, 0 };
    memcpy(m->buf, &h, sizeof h);
    memcpy(m->buf + sizeof h, v, (size_t)o->size * sizeof(double));
    diagc_bus_publish(m->d->bus, o->topic, m->buf, sizeof h + (size_t)o->size * sizeof(double));
  }
}

static void timer_cb(void *user, const diagc_exec_event *ev) {
  dep_timer *tm = user;
  dep_model *m = tm->m;
  double late = (double)(diagc_monotonic_ns() - ev->time_ns) / 1000.0;
  tm->runs++;
  tm->late_sum_us += late;
  if (late > tm->late_max_us) tm->late_max_us = late;
  if (m->failed) return;
  /* model time of this firing: offset + k * period, exactly as the
   * simulator computes its event times */
  int64_t k = (ev->time_ns - m->d->epoch - tm->offset_ns + tm->period_ns / 2) / tm->period_ns;
  double t = tm->offset + (double)k * tm->period;
  double now = diagc_sim_time(m->sim);
  if (t < now) t = now;
  /* advance to t, then one step at t applies the updates due at t */
  int rc = diagc_sim_advance_to(m->sim, t);
  if (rc >= 0) rc = diagc_sim_advance_to(m->sim, t);
  if (rc < 0) {
    m->failed = 1;
    return;
  }
  m->steps++;
  publish_outputs(m, t);
}

static void sub_cb(void *user, const diagc_exec_event *ev) {
  dep_sub *s = user;
  deploy_msg h;
  if (ev->size < sizeof h) return;
  memcpy(&h, ev->data, sizeof h);
  double lat = (double)(diagc_monotonic_ns() - h.stamp_ns) / 1000.0;
  s->received++;
  s->lat_sum_us += lat;
  if (lat > s->lat_max_us) s->lat_max_us = lat;
  if (h.n != s->size || ev->size < sizeof h + (size_t)s->size * sizeof(double)) return;
  double vals[64];
  double *v = s->size <= 64 ? vals : NULL;
  if (!v) return;
  memcpy(v, (const unsigned char *)ev->data + sizeof h, (size_t)s->size * sizeof(double));
  s->m->spec->model->set_source(diagc_sim_context(s->m->sim), s->source, v);
}

diagc_exec *diagc_deploy_executor(diagc_deploy *d) { return d->ex; }
const char *diagc_deploy_error(const diagc_deploy *d) { return d->err; }

void diagc_deploy_destroy(diagc_deploy *d) {
  if (!d) return;
  diagc_exec_destroy(d->ex);
  diagc_bus_destroy(d->bus);
  for (int i = 0; d->models && i < d->n; i++) {
    diagc_sim_destroy(d->models[i].sim);
    free(d->models[i].outs);
    free(d->models[i].buf);
  }
  free(d->models);
  free(d->timers);
  free(d->subs);
  free(d);
}

/* Checks the models' ABI and counts the timers, subscriptions and outputs
 * to make room for.  0, or -1 with a message in err. */
static int count_capacity(const diagc_deploy_model *models, int n, int *maxtimers, int *maxsubs,
                          int *maxouts, char *err, size_t errlen) {
  for (int i = 0; i < n; i++) {
    if (!models[i].model || models[i].model->abi_version != DIAGC_ABI_VERSION) {
      seterr(err, errlen, "model %d (%s): missing model or ABI version mismatch", i, models[i].name ? models[i].name : "?");
      return -1;
    }
    *maxtimers += models[i].model->n_events;
    *maxsubs += models[i].n_inputs;
    *maxouts += models[i].n_outputs;
  }
  return 0;
}

/* The tables, the bus and the executor.  0, or -1 with a message in err. */
static int alloc_tables(diagc_deploy *d, int n, int threads, int maxtimers, int maxsubs, int maxouts,
                        char *err, size_t errlen) {
  d->n = n;
  d->models = calloc((size_t)n, sizeof *d->models);
  d->timers = calloc((size_t)maxtimers + 1, sizeof *d->timers);
  d->subs = calloc((size_t)maxsubs + 1, sizeof *d->subs);
  d->bus = diagc_bus_create(maxouts + maxsubs + 1, maxsubs + 1);
  diagc_exec_config cfg;
  diagc_exec_config_init(&cfg);
  cfg.threads = threads;
  cfg.max_groups = n;
  cfg.max_entities = maxtimers + maxsubs + 1;
  d->ex = diagc_exec_create(&cfg);
  if (!d->models || !d->timers || !d->subs || !d->bus || !d->ex) {
    seterr(err, errlen, "out of memory (or bad thread count %d)", threads);
    return -1;
  }
  return 0;
}

/* The model's mapped output ports: their indices and topics, and a message
 * buffer for the largest.  0, or -1 with a message in err. */
static int bind_outputs(diagc_deploy *d, dep_model *m, char *err, size_t errlen) {
  const diagc_deploy_model *spec = m->spec;
  const diagc_model *md = spec->model;
  m->outs = calloc((size_t)spec->n_outputs + 1, sizeof *m->outs);
  size_t maxsize = 0;
  for (int j = 0; m->outs && j < spec->n_outputs; j++) {
    int idx = -1;
    for (int k = 0; k < md->n_outputs; k++)
      if (strcmp(md->outputs[k].name, spec->outputs[j].port) == 0) idx = k;
    if (idx < 0 || md->outputs[idx].size <= 0) {
      seterr(err, errlen, "model %s has no numeric output port '%s'", spec->name, spec->outputs[j].port);
      return -1;
    }
    m->outs[j].output = idx;
    m->outs[j].size = md->outputs[idx].size;
    m->outs[j].topic = diagc_bus_topic(d->bus, spec->outputs[j].topic);
    if ((size_t)md->outputs[idx].size > maxsize) maxsize = (size_t)md->outputs[idx].size;
  }
  m->buf = calloc(1, sizeof(deploy_msg) + maxsize * sizeof(double));
  if (!m->outs || !m->buf) {
    seterr(err, errlen, "out of memory");
    return -1;
  }
  return 0;
}

/* One timer per distinct (period, offset) of the model's periodic events;
 * a model without one is an error.  0, or -1 with a message in err. */
static int add_timers(diagc_deploy *d, dep_model *m, char *err, size_t errlen) {
  const diagc_deploy_model *spec = m->spec;
  const diagc_model *md = spec->model;
  int first = d->ntimers;
  for (int e = 0; e < md->n_events; e++) {
    const diagc_event_desc *ev = &md->events[e];
    if (ev->trigger != DIAGC_TRIGGER_PERIODIC) continue;
    int dup = 0;
    for (int k = first; k < d->ntimers; k++)
      if (d->timers[k].period == ev->period && d->timers[k].offset == ev->offset) dup = 1;
    if (dup) continue;
    dep_timer *tm = &d->timers[d->ntimers];
    tm->m = m;
    tm->period = ev->period;
    tm->offset = ev->offset;
    tm->period_ns = (int64_t)llround(ev->period * 1e9);
    tm->offset_ns = (int64_t)llround(ev->offset * 1e9);
    if (tm->period_ns <= 0) {
      seterr(err, errlen, "model %s: event %s has a period below 1 ns", spec->name, ev->name);
      return -1;
    }
    int id = diagc_exec_add_timer(d->ex, m->group, tm->period_ns, tm->offset_ns, timer_cb, tm);
    if (id < 0) {
      seterr(err, errlen, "model %s: cannot add a timer: %s", spec->name, diagc_status_message(id));
      return -1;
    }
    tm->entity = id;
    d->ntimers++;
  }
  if (d->ntimers == first) {
    seterr(err, errlen, "model %s has no periodic event, so nothing would ever advance it; "
           "declare one (e.g. a periodic_publish at the rate it should run)", spec->name);
    return -1;
  }
  return 0;
}

/* The model's mapped exported inputs: one subscription each, linked to its
 * topic.  0, or -1 with a message in err. */
static int bind_inputs(diagc_deploy *d, dep_model *m, char *err, size_t errlen) {
  const diagc_deploy_model *spec = m->spec;
  const diagc_model *md = spec->model;
  for (int j = 0; j < spec->n_inputs; j++) {
    int src = -1;
    for (int k = 0; k < md->n_sources; k++)
      if (md->sources[k].kind == DIAGC_SRC_INPUT && strcmp(md->sources[k].name, spec->inputs[j].port) == 0) src = k;
    if (src < 0) {
      seterr(err, errlen, "model %s has no exported input '%s'", spec->name, spec->inputs[j].port);
      return -1;
    }
    if (md->sources[src].size <= 0 || md->sources[src].size > 64) {
      seterr(err, errlen, "model %s: input '%s' must have 1..64 values", spec->name, spec->inputs[j].port);
      return -1;
    }
    dep_sub *s = &d->subs[d->nsubs];
    s->m = m;
    s->source = src;
    s->size = md->sources[src].size;
    s->port = spec->inputs[j].port;
    s->topic = diagc_bus_topic(d->bus, spec->inputs[j].topic);
    s->entity = diagc_exec_add_subscription(d->ex, m->group, sizeof(deploy_msg) + (size_t)s->size * sizeof(double),
                                            4, DIAGC_OVERFLOW_DROP_OLDEST, sub_cb, s);
    if (s->topic < 0 || s->entity < 0 || diagc_bus_subscribe(d->bus, s->topic, d->ex, s->entity) != 0) {
      seterr(err, errlen, "model %s: cannot subscribe '%s' to topic '%s'", spec->name, s->port, spec->inputs[j].topic);
      return -1;
    }
    d->nsubs++;
  }
  return 0;
}

/* Model i: its simulator, group, outputs, timers and inputs, then its
 * initialization.  0, or -1 with a message in err. */
static int setup_model(diagc_deploy *d, const diagc_deploy_model *spec, int i, char *err, size_t errlen) {
  dep_model *m = &d->models[i];
  m->d = d;
  m->spec = spec;
  char serr[200];
  m->sim = diagc_sim_create_ex(spec->model, NULL, serr, sizeof serr);
  if (!m->sim) {
    seterr(err, errlen, "model %s: %s", spec->name, serr);
    return -1;
  }
  m->group = diagc_exec_add_group(d->ex, DIAGC_GROUP_EXCLUSIVE);
  if (bind_outputs(d, m, err, errlen) != 0 || add_timers(d, m, err, errlen) != 0 ||
      bind_inputs(d, m, err, errlen) != 0)
    return -1;
  int rc = diagc_sim_initialize(m->sim);
  if (rc < 0) {
    seterr(err, errlen, "model %s: initialization failed: %s", spec->name, diagc_sim_error(m->sim));
    return -1;
  }
  return 0;
}

/* A subscription's size must match what is published on its topic.  0, or
 * -1 with a message in err. */
static int check_topic_sizes(const diagc_deploy *d, const diagc_deploy_model *models, int n, char *err,
                             size_t errlen) {
  for (int s = 0; s < d->nsubs; s++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < models[i].n_outputs; j++)
        if (d->models[i].outs[j].topic == d->subs[s].topic && d->models[i].outs[j].size != d->subs[s].size) {
          seterr(err, errlen, "topic '%s': %s publishes %d values but %s.%s expects %d",
                 diagc_bus_topic_name(d->bus, d->subs[s].topic), models[i].name, d->models[i].outs[j].size,
                 d->subs[s].m->spec->name, d->subs[s].port, d->subs[s].size);
          return -1;
        }
  return 0;
}

diagc_deploy *diagc_deploy_create(const diagc_deploy_model *models, int n, int threads, char *err, size_t errlen) {
  if (!models || n <= 0) {
    seterr(err, errlen, "no models to deploy");
    return NULL;
  }
  int maxtimers = 0, maxsubs = 0, maxouts = 0;
  if (count_capacity(models, n, &maxtimers, &maxsubs, &maxouts, err, errlen) != 0) return NULL;
  diagc_deploy *d = calloc(1, sizeof *d);
  if (!d) {
    seterr(err, errlen, "out of memory");
    return NULL;
  }
  int ok = alloc_tables(d, n, threads, maxtimers, maxsubs, maxouts, err, errlen) == 0;
  for (int i = 0; ok && i < n; i++) ok = setup_model(d, &models[i], i, err, errlen) == 0;
  if (ok) ok = check_topic_sizes(d, models, n, err, errlen) == 0;
  if (ok) return d;
  diagc_deploy_destroy(d);
  return NULL;
}

static void sleep_s(double s) {
  struct timespec ts;
  ts.tv_sec = (time_t)s;
  ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
  nanosleep(&ts, NULL);
}

int diagc_deploy_run(diagc_deploy *d, double duration_s) {
  int rc = diagc_exec_prepare(d->ex);
  if (rc) {
    seterr(d->err, sizeof d->err, "cannot start the executor: %s", diagc_status_message(rc));
    return rc;
  }
  d->epoch = diagc_exec_epoch(d->ex);
  d->duration = duration_s;
  /* the caller's thread is worker 0 until the deadline */
  diagc_exec_spin_until(d->ex, NULL, NULL, d->epoch + (int64_t)llround(duration_s * 1e9));
  diagc_exec_stop_timers(d->ex);
  while (!diagc_exec_idle(d->ex)) {
    diagc_exec_spin_some(d->ex);
    sleep_s(0.0001);
  }
  diagc_exec_shutdown(d->ex, NULL);
  for (int i = 0; i < d->n; i++)
    if (d->models[i].failed) {
      const char *why = diagc_sim_error(d->models[i].sim);
      seterr(d->err, sizeof d->err, "model %s failed: %s", d->models[i].spec->name,
             why && why[0] ? why : "an output evaluation failed");
      return DIAGC_DEPLOY_E_MODEL;
    }
  return DIAGC_OK;
}

void diagc_deploy_report(diagc_deploy *d, FILE *f) {
  fprintf(f, "deploy: %d models, %d threads, %.3f s\n", d->n, diagc_exec_threads(d->ex), d->duration);
  for (int k = 0; k < d->ntimers; k++) {
    dep_timer *tm = &d->timers[k];
    diagc_exec_entity_stats st;
    diagc_exec_get_stats(d->ex, tm->entity, &st);
    fprintf(f, "model %s: timer %g Hz: %llu steps, %llu periods skipped, start lateness mean %.1f us, max %.1f us\n",
            tm->m->spec->name, 1.0 / tm->period, (unsigned long long)tm->runs,
            (unsigned long long)st.missed_periods, tm->runs ? tm->late_sum_us / (double)tm->runs : 0.0,
            tm->late_max_us);
  }
  for (int s = 0; s < d->nsubs; s++) {
    dep_sub *sb = &d->subs[s];
    diagc_exec_entity_stats st;
    diagc_exec_get_stats(d->ex, sb->entity, &st);
    fprintf(f, "topic %s -> %s.%s: received %llu, latency mean %.1f us, max %.1f us, dropped %llu\n",
            diagc_bus_topic_name(d->bus, sb->topic), sb->m->spec->name, sb->port, (unsigned long long)sb->received,
            sb->received ? sb->lat_sum_us / (double)sb->received : 0.0, sb->lat_max_us,
            (unsigned long long)(st.dropped + st.rejected));
  }
  for (int i = 0; i < d->n; i++) {
    dep_model *m = &d->models[i];
    void *ctx = diagc_sim_context(m->sim);
    for (int j = 0; j < m->spec->n_outputs; j++) {
      int dup = 0;
      for (int k = 0; k < j; k++) dup |= m->outs[k].output == m->outs[j].output;
      if (dup) continue;
      const diagc_value_desc *o = &m->spec->model->outputs[m->outs[j].output];
      const double *v = NULL;
      if (m->spec->model->eval_output(ctx, m->outs[j].output, &v) != DIAGC_OK || !v) continue;
      fprintf(f, "final %s.%s at t = %.6f:", m->spec->name, o->name, diagc_sim_time(m->sim));
      for (int k = 0; k < o->size; k++) fprintf(f, " %.9g", v[k]);
      fprintf(f, "\n");
    }
  }
}

int diagc_deploy_main(const diagc_deploy_model *models, int n, int argc, char **argv) {
  double duration = 2.0;
  int threads = 2;
  const char *prog = argc > 0 ? argv[0] : "app";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    char *end = NULL;
    if (strcmp(a, "--help") == 0) {
      printf("usage: %s [--duration S] [--threads N]\n", prog);
      return 0;
    } else if (strcmp(a, "--duration") == 0 && i + 1 < argc) {
      duration = strtod(argv[++i], &end);
      if (!end || *end || !(duration > 0 && duration <= 1e6)) {
        fprintf(stderr, "%s: --duration expects seconds > 0, got '%s'\n", prog, argv[i]);
        return 2;
      }
    } else if (strcmp(a, "--threads") == 0 && i + 1 < argc) {
      long t = strtol(argv[++i], &end, 10);
      if (!end || *end || t < 0 || t > 256) {
        fprintf(stderr, "%s: --threads expects an integer in [0, 256], got '%s'\n", prog, argv[i]);
        return 2;
      }
      threads = (int)t;
    } else {
      fprintf(stderr, "%s: unknown argument '%s' (usage: %s [--duration S] [--threads N])\n", prog, a, prog);
      return 2;
    }
  }
  char err[256];
  diagc_deploy *d = diagc_deploy_create(models, n, threads, err, sizeof err);
  if (!d) {
    fprintf(stderr, "%s: %s\n", prog, err);
    return 2;
  }
  int rc = diagc_deploy_run(d, duration);
  diagc_deploy_report(d, stdout);
  if (rc != DIAGC_OK) fprintf(stderr, "%s: %s\n", prog, diagc_deploy_error(d));
  diagc_deploy_destroy(d);
  return rc != DIAGC_OK ? 1 : 0;
}
