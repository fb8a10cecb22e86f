/* The hybrid simulator: Drake's Simulator::Initialize / AdvanceTo over a
 * diagc_model descriptor (see diagc/simulator.h).  Integrators and step-size
 * control live in integrators.c. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/* Lets GCC vectorize the per-step scan of the state (integer operations:
 * no result depends on it). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* Which events a round selects. */
enum {
  PHASE_INIT_UPDATE,  /* initialization updates */
  PHASE_INIT_PUBLISH, /* initialization + per-step + t0-timed publishes */
  PHASE_STEP          /* per-step + (if triggered) timed events */
};

/* Drake's EventStatus accumulation: the first event of the highest
 * severity wins. */
typedef struct acc_t {
  int sev;     /* DIAGC_DID_NOTHING .. DIAGC_FAILED */
  int ev;      /* event index (model events, then loggers), -1 if none */
  int raw;     /* the status the handler returned / eval's return code */
} acc_t;

static void keep_more_severe(acc_t *a, int sev, int ev, int raw) {
  if (sev > a->sev) {
    a->sev = sev;
    a->ev = ev;
    a->raw = raw;
  }
}

/* ---- small helpers ------------------------------------------------------ */

static void set_errbuf(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void set_errbuf(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  if (!err || errlen == 0) return;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static const char *event_name(const diagc_sim *s, int e) {
  const char *nm;
  if (e < 0) return "?";
  if (e < s->m->n_events) {
    nm = s->m->events[e].name;
  } else {
    nm = s->m->loggers[e - s->m->n_events].name;
  }
  return nm ? nm : "(unnamed)";
}

static const char *kind_name(int kind) {
  switch (kind) {
    case DIAGC_PUBLISH: return "publish";
    case DIAGC_DISCRETE_UPDATE: return "discrete update";
    default: return "unrestricted update";
  }
}

/* Drake's GetPreviousNormalizedValue. */
static double previous_normalized(double t) {
  if (t > -DBL_MIN && t <= DBL_MIN) return -DBL_MIN;
  return nextafter(t, -INFINITY);
}

/* ---- options ----------------------------------------------------------- */

void diagc_sim_options_init(diagc_sim_options *opt) {
  if (!opt) return;
  memset(opt, 0, sizeof *opt);
  opt->integrator = "runge_kutta3";
  opt->accuracy = 1e-4;
  opt->max_step = 0.1;
  opt->error_control = 1;
  opt->fixed_step = 0;
  opt->initial_step = 1e-4;
  opt->min_step = 0;
  opt->suppress_initialization_events = 0;
  opt->check_finite = 1;
  opt->max_steps = DIAGC_SIM_MAX_STEPS;
}

int diagc_integrator_known(const char *name) {
  return diagc_find_integrator(name) >= 0;
}

/* For the name of the optional CVODE backend's integrator, where it
 * comes from. */
/* The integrators a simulator knows, for "unknown integrator" messages:
 * the runtime's, then the installed stepper's name, or how to get the
 * optional CVODE backend's. */
static void known_integrators(const diagc_sim *s, char *buf, size_t n) {
  snprintf(buf, n, "explicit_euler, semi_explicit_euler, runge_kutta2, "
           "runge_kutta3, runge_kutta4, bogacki_shampine3, dormand_prince54, "
           "implicit_euler, radau3, radau5, %s",
           s->has_ext ? s->ext.name
                       : "cvode_bdf after diagc_sim_use_cvode() (diagc/cvode.h, "
                         "lib/libdiagc_cvode)");
}

/* Validates opt and installs it into s (which is untouched on failure). */
static int apply_options(diagc_sim *s, const diagc_sim_options *opt,
                         char *err, size_t errlen) {
  diagc_sim_options o;
  int integ;
  double acc;

  if (opt) {
    o = *opt;
  } else {
    diagc_sim_options_init(&o);
  }
  if (!o.integrator) o.integrator = "runge_kutta3";
  integ = diagc_find_integrator(o.integrator);
  if (integ < 0 && s->has_ext && strcmp(o.integrator, s->ext.name) == 0)
    integ = DIAGC_INT_EXTERNAL;
  if (integ < 0) {
    char known[256];
    known_integrators(s, known, sizeof known);
    set_errbuf(err, errlen, "unknown integrator '%s' (known: %s)",
               o.integrator, known);
    return DIAGC_SIM_E_ARG;
  }
  if (integ == DIAGC_INT_EXTERNAL && !o.error_control) {
    set_errbuf(err, errlen,
               "%s chooses its own steps: error_control = 0 (fixed steps) "
               "is not available with it",
               o.integrator);
    return DIAGC_SIM_E_ARG;
  }
  if (!(o.max_step > 0) || isinf(o.max_step)) {
    set_errbuf(err, errlen, "max_step must be positive and finite (%g)",
               o.max_step);
    return DIAGC_SIM_E_ARG;
  }
  if (!(o.fixed_step >= 0) || isinf(o.fixed_step)) {
    set_errbuf(err, errlen, "fixed_step must be >= 0 and finite (%g)",
               o.fixed_step);
    return DIAGC_SIM_E_ARG;
  }
  if (o.accuracy <= 0) {
    set_errbuf(err, errlen, "accuracy must be positive (%g)", o.accuracy);
    return DIAGC_SIM_E_ARG;
  }
  if (o.initial_step < 0 || isinf(o.initial_step)) {
    set_errbuf(err, errlen, "initial_step must be >= 0 and finite (%g)",
               o.initial_step);
    return DIAGC_SIM_E_ARG;
  }
  if (!(o.min_step >= 0) || isinf(o.min_step)) {
    set_errbuf(err, errlen, "min_step must be >= 0 and finite (%g)",
               o.min_step);
    return DIAGC_SIM_E_ARG;
  }
  if (o.max_steps < 0) {
    set_errbuf(err, errlen, "max_steps must be >= 0 (0: the default %lld); "
               "it was %lld", (long long)DIAGC_SIM_MAX_STEPS,
               (long long)o.max_steps);
    return DIAGC_SIM_E_ARG;
  }
  if (o.max_steps == 0) o.max_steps = DIAGC_SIM_MAX_STEPS;
  if (o.jacobian != DIAGC_JACOBIAN_MODEL && o.jacobian != DIAGC_JACOBIAN_FD) {
    set_errbuf(err, errlen,
               "unknown jacobian source %d (known: DIAGC_JACOBIAN_MODEL, "
               "DIAGC_JACOBIAN_FD)", o.jacobian);
    return DIAGC_SIM_E_ARG;
  }

  /* static storage (the stepper's name outlives it) */
  o.integrator = integ == DIAGC_INT_EXTERNAL ? s->ext.name
                                             : diagc_integrators[integ].name;
  if (integ != s->integ) {
    s->ideal_next = NAN;
    diagc_stiffness_reset(s, integ == DIAGC_INT_EXTERNAL
                                 ? NULL
                                 : &diagc_integrators[integ]);
  }
  s->integ = integ;
  s->opt = o;
  s->ext_restart = 1;
  /* a stepper controls its own steps */
  s->fixed_mode = integ != DIAGC_INT_EXTERNAL &&
                  (!diagc_integrators[integ].supports_error_estimation ||
                   !o.error_control);
  if (s->fixed_mode) {
    s->max_step_in_use = o.fixed_step > 0 ? o.fixed_step : o.max_step;
  } else {
    s->max_step_in_use = o.max_step;
  }
  /* RK3's DoInitialize: NaN -> 1e-3, looser than 0.1 -> 0.1. */
  acc = o.accuracy;
  if (isnan(acc)) acc = 1e-3;
  if (acc > 1e-1) acc = 1e-1;
  s->accuracy_in_use = acc;
  s->initial_target = (isnan(o.initial_step) || o.initial_step == 0)
                          ? o.max_step * 0.1
                          : o.initial_step;
  if (s->initial_target > s->max_step_in_use)
    s->initial_target = s->max_step_in_use;
  return 0;
}

static int install_jacobian_source(diagc_sim *s, char *err, size_t errlen);

int diagc_sim_set_options(diagc_sim *s, const diagc_sim_options *opt) {
  int rc = apply_options(s, opt, s->err, sizeof s->err);
  if (rc == 0 && (rc = diagc_integrator_alloc(s)) != 0)
    diagc_sim_set_err(s, "out of memory for the integrator's matrices");
  if (rc == 0) {
    char err[sizeof s->err];
    rc = install_jacobian_source(s, err, sizeof err);
    if (rc != 0) diagc_sim_set_err(s, "%s", err);
  }
  return rc;
}

int diagc_sim_set_integrator(diagc_sim *s, const char *name) {
  diagc_sim_options o = s->opt;
  o.integrator = name;
  if (diagc_find_integrator(name) < 0 &&
      !(name && s->has_ext && strcmp(name, s->ext.name) == 0)) {
    char known[256];
    known_integrators(s, known, sizeof known);
    diagc_sim_set_err(s, "unknown integrator '%s' (known: %s)",
                      name ? name : "(null)", known);
    return DIAGC_SIM_E_ARG;
  }
  s->ideal_next = NAN;
  return diagc_sim_set_options(s, &o);
}

const char *diagc_sim_integrator(const diagc_sim *s) {
  return s->opt.integrator;
}

int diagc_sim_get_options(const diagc_sim *s, diagc_sim_options *opt) {
  if (!s || !opt) return DIAGC_SIM_E_ARG;
  *opt = s->opt;
  return 0;
}

void diagc_sim_set_error_message(diagc_sim *s, const char *msg) {
  if (s) diagc_sim_set_err(s, "%s", msg ? msg : "");
}

static void drop_stepper(diagc_sim *s) {
  if (s->has_ext && s->ext.destroy) s->ext.destroy(s->ext.self);
  memset(&s->ext, 0, sizeof s->ext);
  s->has_ext = 0;
}

int diagc_sim_set_stepper(diagc_sim *s, const diagc_sim_stepper *stepper) {
  diagc_sim_options o;
  if (!s) return DIAGC_SIM_E_ARG;
  if (stepper && (!stepper->name || !stepper->step ||
                  diagc_find_integrator(stepper->name) >= 0)) {
    diagc_sim_set_err(s, "stepper: %s",
                      !stepper->step ? "no step function"
                                     : "needs a name that is not a built-in "
                                       "integrator's");
    return DIAGC_SIM_E_ARG;
  }
  o = s->opt;
  if (s->integ == DIAGC_INT_EXTERNAL) {
    /* leave the stepper before it goes: runge_kutta3 takes over */
    o.integrator = "runge_kutta3";
    if (apply_options(s, &o, s->err, sizeof s->err) != 0) return DIAGC_SIM_E_ARG;
  }
  drop_stepper(s);
  if (!stepper) return diagc_integrator_alloc(s);
  s->ext = *stepper;
  s->has_ext = 1;
  o.integrator = stepper->name;
  return diagc_sim_set_options(s, &o);
}

/* ---- create / destroy -------------------------------------------------- */

/* The checks of validate_model, one per part of the descriptor: each
 * returns 0 or DIAGC_SIM_E_MODEL with a message in err. */
#define BAD(...)                          \
  do {                                    \
    set_errbuf(err, errlen, __VA_ARGS__); \
    return DIAGC_SIM_E_MODEL;             \
  } while (0)

static int validate_layout(const diagc_model *m, char *err, size_t errlen) {
  if (m->context_size == 0) BAD("model: context_size is 0");
  if (!m->init || !m->set_time) BAD("model: init and set_time are required");
  if (m->time_offset + sizeof(double) > m->context_size)
    BAD("model: time_offset out of range");
  if (m->state_offset + m->state_size > m->context_size)
    BAD("model: state block out of range");
  if (m->nxc < 0 || m->nxd < 0 || m->n_events < 0 || m->n_loggers < 0 ||
      m->n_outputs < 0)
    BAD("model: negative count");
  if (m->nxc > 0) {
    if (!m->calc_derivatives) BAD("model: nxc > 0 needs calc_derivatives");
    if (!m->set_xc && !m->mutable_xc)
      BAD("model: nxc > 0 needs set_xc or mutable_xc");
    if (m->xc_offset + (size_t)m->nxc * sizeof(double) > m->context_size)
      BAD("model: xc out of range");
    if (m->xc_offset % sizeof(double) != 0) BAD("model: xc is misaligned");
  }
  return 0;
}

static int validate_events(const diagc_model *m, char *err, size_t errlen) {
  int i;
  if (m->n_events > 0 && !m->events) BAD("model: events missing");
  for (i = 0; i < m->n_events; i++) {
    const diagc_event_desc *e = &m->events[i];
    const char *nm = e->name ? e->name : "?";
    if (e->kind < DIAGC_PUBLISH || e->kind > DIAGC_UNRESTRICTED_UPDATE)
      BAD("model: event %d (%s): bad kind %d", i, nm, e->kind);
    if (e->trigger < DIAGC_TRIGGER_INITIALIZATION ||
        e->trigger > DIAGC_TRIGGER_TIMED)
      BAD("model: event %d (%s): bad trigger %d", i, nm, e->trigger);
    if (!e->handler) BAD("model: event %d (%s): no handler", i, nm);
    if (e->kind != DIAGC_PUBLISH && !e->apply)
      BAD("model: event %d (%s): update without apply", i, nm);
    if (e->leaf < 0 || (m->n_leaves > 0 && e->leaf >= m->n_leaves))
      BAD("model: event %d (%s): bad leaf %d", i, nm, e->leaf);
    if (e->trigger == DIAGC_TRIGGER_PERIODIC &&
        (!(e->period > 0) || isinf(e->period) || !(e->offset >= 0) ||
         isinf(e->offset)))
      BAD("model: event %d (%s): bad period %g / offset %g", i, nm,
          e->period, e->offset);
  }
  return 0;
}

/* The tables and their index-based functions (ABI 6): a table with
 * entries needs its array and its function. */
static int validate_tables(const diagc_model *m, char *err, size_t errlen) {
  if (m->n_sources < 0 || m->n_cache < 0)
    BAD("model: negative count");
  if (m->n_sources > 0 && (!m->sources || !m->set_source))
    BAD("model: n_sources > 0 needs sources and set_source");
  if (m->n_outputs > 0 && (!m->outputs || !m->eval_output))
    BAD("model: n_outputs > 0 needs outputs and eval_output");
  if (m->n_cache > 0 && (!m->cache || !m->eval_cache))
    BAD("model: n_cache > 0 needs cache and eval_cache");
  return 0;
}

static int validate_loggers(const diagc_model *m, char *err, size_t errlen) {
  int i;
  if (m->n_loggers > 0 && !m->loggers) BAD("model: loggers missing");
  for (i = 0; i < m->n_loggers; i++) {
    const diagc_logger_desc *l = &m->loggers[i];
    const char *nm = l->name ? l->name : "?";
    if (l->output < 0 || l->output >= m->n_outputs || !m->outputs)
      BAD("model: logger %d (%s): bad output %d", i, nm, l->output);
    if (l->size < 0 || l->size != m->outputs[l->output].size)
      BAD("model: logger %d (%s): size %d != output size %d", i, nm, l->size,
          m->outputs[l->output].size);
    if (!(l->period >= 0) || isinf(l->period))
      BAD("model: logger %d (%s): bad period %g", i, nm, l->period);
  }
  return 0;
}

static int validate_witnesses(const diagc_model *m, char *err, size_t errlen) {
  int i;
  if (m->n_witnesses < 0 || (m->n_witnesses > 0 && !m->witnesses))
    BAD("model: witnesses missing");
  for (i = 0; i < m->n_witnesses; i++) {
    const diagc_witness_desc *w = &m->witnesses[i];
    const char *nm = w->name ? w->name : "?";
    if (!w->calc) BAD("model: witness %d (%s): no calc", i, nm);
    if (w->direction < DIAGC_WITNESS_POSITIVE_TO_NONPOSITIVE ||
        w->direction > DIAGC_WITNESS_CROSSING)
      BAD("model: witness %d (%s): bad direction %d", i, nm, w->direction);
    if (w->event < -1 || w->event >= m->n_events)
      BAD("model: witness %d (%s): bad event %d", i, nm, w->event);
    if (w->event >= 0 &&
        m->events[w->event].trigger != DIAGC_TRIGGER_WITNESS)
      BAD("model: witness %d (%s): event %d is not a witness event", i, nm,
          w->event);
  }
  return 0;
}

static int validate_timed(const diagc_model *m, char *err, size_t errlen) {
  int i;
  if (m->n_timed < 0 || (m->n_timed > 0 && !m->timed))
    BAD("model: next_update_time items missing");
  for (i = 0; i < m->n_timed; i++) {
    const diagc_timed_desc *d = &m->timed[i];
    const char *nm = d->name ? d->name : "?";
    if (!d->calc) BAD("model: next_update_time %d (%s): no calc", i, nm);
    if (d->event < 0 || d->event >= m->n_events)
      BAD("model: next_update_time %d (%s): bad event %d", i, nm, d->event);
    if (m->events[d->event].trigger != DIAGC_TRIGGER_TIMED)
      BAD("model: next_update_time %d (%s): event %d is not a timed event", i,
          nm, d->event);
  }
  return 0;
}
#undef BAD

/* The descriptor: 0, or DIAGC_SIM_E_MODEL with a message in err. */
static int validate_model(const diagc_model *m, char *err, size_t errlen) {
  if (!m) {
    set_errbuf(err, errlen, "no model");
    return DIAGC_SIM_E_MODEL;
  }
  if (m->abi_version != DIAGC_ABI_VERSION) {
    set_errbuf(err, errlen, "model '%s': ABI version %d, runtime expects %d",
               m->name ? m->name : "?", m->abi_version, DIAGC_ABI_VERSION);
    return DIAGC_SIM_E_MODEL;
  }
  if (validate_layout(m, err, errlen) != 0 || validate_tables(m, err, errlen) != 0 ||
      validate_events(m, err, errlen) != 0 || validate_loggers(m, err, errlen) != 0 ||
      validate_witnesses(m, err, errlen) != 0 || validate_timed(m, err, errlen) != 0)
    return DIAGC_SIM_E_MODEL;
  return 0;
}

typedef struct sort_key {
  int leaf, trigger, idx;
} sort_key;

static int cmp_key(const void *pa, const void *pb) {
  const sort_key *a = (const sort_key *)pa, *b = (const sort_key *)pb;
  if (a->leaf != b->leaf) return a->leaf < b->leaf ? -1 : 1;
  if (a->trigger != b->trigger) return a->trigger < b->trigger ? -1 : 1;
  return a->idx < b->idx ? -1 : (a->idx > b->idx);
}

diagc_sim *diagc_sim_create(const diagc_model *m,
                            const diagc_sim_options *opt) {
  return diagc_sim_create_ex(m, opt, NULL, 0);
}

/* The simulator's buffers (freed by diagc_sim_destroy).  0, or -1 when an
 * allocation failed. */
static int alloc_buffers(diagc_sim *s) {
  const diagc_model *m = s->m;
  int k, n_ev = s->n_ev, nx = m->nxc > 0 ? m->nxc : 1;
  s->ctx = (unsigned char *)calloc(1, m->context_size);
  s->state_buf =
      (unsigned char *)calloc(1, m->state_size > 0 ? m->state_size : 1);
  s->xsave = (double *)calloc((size_t)nx * 21, sizeof(double));
  s->n_wit = m->n_witnesses;
  s->w0 = (double *)calloc((size_t)(s->n_wit > 0 ? s->n_wit : 1) * 2,
                           sizeof(double));
  s->wit_ev_fired =
      (unsigned char *)calloc((size_t)(n_ev > 0 ? n_ev : 1), 1);
  s->ev = (diagc_sim_event *)calloc((size_t)(n_ev > 0 ? n_ev : 1),
                                    sizeof *s->ev);
  for (k = 0; k < 3; k++)
    s->order[k] = (int *)calloc((size_t)(n_ev > 0 ? n_ev : 1), sizeof(int));
  s->g_period = (double *)calloc((size_t)(n_ev > 0 ? n_ev : 1), sizeof(double));
  s->g_offset = (double *)calloc((size_t)(n_ev > 0 ? n_ev : 1), sizeof(double));
  s->g_next = (double *)calloc((size_t)(n_ev > 0 ? n_ev : 1), sizeof(double));
  s->g_kinds = (unsigned char *)calloc((size_t)(n_ev > 0 ? n_ev : 1), 1);
  s->g_fired = (unsigned char *)calloc((size_t)(n_ev > 0 ? n_ev : 1), 1);
  s->sel = (unsigned char *)calloc((size_t)(n_ev > 0 ? n_ev : 1), 1);
  s->log_fired =
      (unsigned char *)calloc((size_t)(m->n_loggers > 0 ? m->n_loggers : 1), 1);
  s->log_vals = (const double **)calloc(
      (size_t)(m->n_loggers > 0 ? m->n_loggers : 1), sizeof(double *));
  s->n_timed = m->n_timed;
  s->td_next = (double *)calloc((size_t)(s->n_timed > 0 ? s->n_timed : 1),
                                sizeof(double));
  s->td_fired =
      (unsigned char *)calloc((size_t)(s->n_timed > 0 ? s->n_timed : 1), 1);
  if (!s->ctx || !s->state_buf || !s->xsave || !s->ev || !s->order[0] ||
      !s->order[1] || !s->order[2] || !s->g_period || !s->g_offset || !s->g_next ||
      !s->g_kinds || !s->g_fired || !s->sel || !s->log_fired ||
      !s->log_vals || !s->w0 || !s->wit_ev_fired || !s->td_next ||
      !s->td_fired)
    return -1;
  s->w1 = s->w0 + (s->n_wit > 0 ? s->n_wit : 1);
  return 0;
}

/* The integrators' vectors of nx doubles, in s->xsave. */
static void carve_vectors(diagc_sim *s) {
  int nx = s->m->nxc > 0 ? s->m->nxc : 1;
  s->x0 = s->xsave + nx;
  s->xt = s->xsave + 2 * nx;
  s->k0 = s->xsave + 3 * nx;
  s->k1 = s->xsave + 4 * nx;
  s->k2 = s->xsave + 5 * nx;
  s->k3 = s->xsave + 6 * nx;
  s->errv = s->xsave + 7 * nx;
  s->k4 = s->xsave + 8 * nx;
  s->k5 = s->xsave + 9 * nx;
  s->k6 = s->xsave + 10 * nx;
  s->xa = s->xsave + 11 * nx;
  s->xb = s->xsave + 12 * nx;
  s->g = s->xsave + 13 * nx;
  s->dx = s->xsave + 14 * nx;
  s->fx = s->xsave + 15 * nx;
  s->wx0 = s->xsave + 16 * nx;
  s->fsal_k = s->xsave + 17 * nx;
  s->fsal_x = s->xsave + 18 * nx;
  s->sk_x = s->xsave + 19 * nx;
  s->sk_f = s->xsave + 20 * nx;
}

/* Events and loggers (one diagc_sim_event each), with periodic timing
 * groups (one per distinct period and offset) and per-step counts. */
static void setup_events(diagc_sim *s) {
  const diagc_model *m = s->m;
  int i;
  for (i = 0; i < s->n_ev; i++) {
    diagc_sim_event *e = &s->ev[i];
    double period = 0, offset = 0;
    if (i < m->n_events) {
      const diagc_event_desc *d = &m->events[i];
      e->kind = d->kind;
      e->trigger = d->trigger;
      e->leaf = d->leaf;
      period = d->period;
      offset = d->offset;
    } else {
      const diagc_logger_desc *l = &m->loggers[i - m->n_events];
      e->kind = DIAGC_PUBLISH;
      e->trigger =
          l->period > 0 ? DIAGC_TRIGGER_PERIODIC : DIAGC_TRIGGER_PER_STEP;
      e->leaf = INT_MAX; /* a log sink added after every other system */
      period = l->period;
      offset = 0;
    }
    e->group = -1;
    e->timed = -1;
    if (e->trigger == DIAGC_TRIGGER_PERIODIC) {
      int g;
      for (g = 0; g < s->n_groups; g++)
        if (s->g_period[g] == period && s->g_offset[g] == offset) break;
      if (g == s->n_groups) {
        s->g_period[g] = period;
        s->g_offset[g] = offset;
        s->n_groups++;
      }
      s->g_kinds[g] |= (unsigned char)(1u << e->kind);
      e->group = g;
    }
    if (e->trigger == DIAGC_TRIGGER_PER_STEP) s->n_per_step[e->kind]++;
  }
  for (i = 0; i < m->n_timed; i++) s->ev[m->timed[i].event].timed = i;
}

/* Per-kind dispatch order: leaf, then initialization / per-step / timed,
 * then declaration order (Drake's merged event collections).  0, or -1
 * when an allocation failed. */
static int order_events(diagc_sim *s) {
  int i, k, n_ev = s->n_ev;
  sort_key *keys = (sort_key *)calloc((size_t)(n_ev > 0 ? n_ev : 1), sizeof *keys);
  if (!keys) return -1;
  for (k = 0; k < 3; k++) {
    int n = 0;
    for (i = 0; i < n_ev; i++) {
      if (s->ev[i].kind != k) continue;
      keys[n].leaf = s->ev[i].leaf;
      keys[n].trigger = s->ev[i].trigger;
      keys[n].idx = i;
      n++;
    }
    if (n > 1) qsort(keys, (size_t)n, sizeof *keys, cmp_key);
    for (i = 0; i < n; i++) s->order[k][i] = keys[i].idx;
    s->n_order[k] = n;
  }
  free(keys);
  return 0;
}

/* The implicit integrators' Jacobian source, per options.jacobian: with
 * DIAGC_JACOBIAN_MODEL the model's generated d xcdot / d xc
 * (diagc_model.jac_xc) when it has one (a model without it stays on finite
 * differences); with DIAGC_JACOBIAN_FD finite differences.  A source that
 * is already in place is kept (its factorization stays valid). */
static int install_jacobian_source(diagc_sim *s, char *err, size_t errlen) {
  const diagc_model *m = s->m;
  diagc_xc_jacobian j;
  int rc;
  if (s->opt.jacobian == DIAGC_JACOBIAN_FD) {
    return s->imp.has_src ? diagc_sim_set_xc_jacobian(s, NULL) : 0;
  }
  if (!m->jac_xc || s->imp.has_src) return 0;
  j.nnz = m->jac_xc_nnz;
  j.colptr = m->jac_xc_colptr;
  j.rowind = m->jac_xc_rowind;
  j.jac_xc = m->jac_xc;
  rc = diagc_sim_set_xc_jacobian(s, &j);
  if (rc != 0) set_errbuf(err, errlen, "model '%s': %s", m->name, s->err);
  return rc;
}

diagc_sim *diagc_sim_create_ex(const diagc_model *m,
                               const diagc_sim_options *opt, char *err,
                               size_t errlen) {
  diagc_sim *s;

  if (err && errlen) err[0] = 0;
  if (validate_model(m, err, errlen) != 0) return NULL;

  s = (diagc_sim *)calloc(1, sizeof *s);
  if (!s) goto oom;
  s->m = m;
  s->nxc = m->nxc;
  s->integ = -1;
  s->ideal_next = NAN;
  if (apply_options(s, opt, err, errlen) != 0) {
    free(s);
    return NULL;
  }
  if (diagc_integrator_alloc(s) != 0) goto oom;
  s->n_ev = m->n_events + m->n_loggers;
  if (alloc_buffers(s) != 0) goto oom;
  carve_vectors(s);
  setup_events(s);
  if (order_events(s) != 0) goto oom;

  m->init(s->ctx);
  diagc_sim_reset_integrator_stats(s);
  if (install_jacobian_source(s, err, errlen) != 0) {
    diagc_sim_destroy(s);
    return NULL;
  }
  return s;

oom:
  set_errbuf(err, errlen, "out of memory");
  diagc_sim_destroy(s);
  return NULL;
}

void diagc_sim_destroy(diagc_sim *s) {
  int k;
  if (!s) return;
  free(s->ctx);
  free(s->state_buf);
  free(s->xsave);
  free(s->ev);
  for (k = 0; k < 3; k++) free(s->order[k]);
  free(s->g_period);
  free(s->g_offset);
  free(s->g_next);
  free(s->g_kinds);
  free(s->g_fired);
  free(s->sel);
  free(s->log_fired);
  free(s->log_vals);
  diagc_implicit_free(&s->imp);
  drop_stepper(s);
  free(s->w0);
  free(s->wit_ev_fired);
  free(s->td_next);
  free(s->td_fired);
  free(s);
}

/* ---- accessors --------------------------------------------------------- */

const diagc_model *diagc_sim_model(const diagc_sim *s) { return s->m; }
void *diagc_sim_context(diagc_sim *s) { return s->ctx; }
double diagc_sim_time(const diagc_sim *s) { return diagc_sim_ctx_time(s); }
const char *diagc_sim_error(const diagc_sim *s) { return s->err; }

void diagc_sim_set_log_callback(diagc_sim *s, diagc_log_fn fn, void *user) {
  s->log_fn = fn;
  s->log_user = user;
}

void diagc_sim_set_progress_callback(diagc_sim *s, diagc_progress_fn fn,
                                     void *user) {
  s->progress_fn = fn;
  s->progress_user = user;
}

void diagc_sim_set_event_callback(diagc_sim *s, diagc_event_fn fn,
                                  void *user) {
  s->event_fn = fn;
  s->event_user = user;
}

int diagc_sim_stats(const diagc_sim *s, diagc_sim_statistics *out) {
  if (!s || !out) return DIAGC_SIM_E_ARG;
  *out = s->st;
  out->jacobian_source =
      s->imp.has_src ? DIAGC_JACOBIAN_MODEL : DIAGC_JACOBIAN_FD;
  return 0;
}

/* ---- events ------------------------------------------------------------ */

static int selected(const diagc_sim *s, int e, int phase) {
  const diagc_sim_event *ev = &s->ev[e];
  switch (ev->trigger) {
    case DIAGC_TRIGGER_INITIALIZATION:
      return (phase == PHASE_INIT_UPDATE || phase == PHASE_INIT_PUBLISH) &&
             !s->opt.suppress_initialization_events;
    case DIAGC_TRIGGER_PER_STEP:
      return phase != PHASE_INIT_UPDATE;
    case DIAGC_TRIGGER_WITNESS:
      return phase == PHASE_STEP && s->wit_ev_fired[e];
    case DIAGC_TRIGGER_TIMED:
      return phase != PHASE_INIT_UPDATE && s->timed_triggered &&
             ev->timed >= 0 && s->td_fired[ev->timed];
    default:
      return phase != PHASE_INIT_UPDATE && s->timed_triggered &&
             s->g_fired[ev->group];
  }
}

/* Whether a round of PHASE_STEP may select an event of this kind: cheap
 * guards for the common step at which nothing is due.  When it returns 0,
 * selected() is 0 for every event of the kind (initialization events are
 * never selected in PHASE_STEP, timed ones need timed_triggered, witness
 * ones a set wit_ev_fired entry). */
static int step_may_select(const diagc_sim *s, int kind) {
  return s->n_per_step[kind] > 0 || s->timed_triggered || s->wit_any_fired;
}

static int normalize_status(int st) {
  return (st >= DIAGC_DID_NOTHING && st <= DIAGC_FAILED) ? st : DIAGC_FAILED;
}

/* Computes the next timed event time after t (Drake's CalcNextUpdateTime:
 * periodic groups and next_update_time calcs, evaluated at the context,
 * whose time is t), marks the due groups and items and returns the kinds
 * due. */
static int calc_next_update_time(diagc_sim *s, double t, double t_report,
                                 double *t_next, unsigned *kinds) {
  int g, i;
  double tmin = INFINITY;
  *kinds = 0;
  for (i = 0; i < s->n_timed; i++) {
    int rc = diagc_timed_calc(s->m, s->ctx, i, t, t_report, &s->td_next[i],
                              s->err, sizeof s->err);
    if (rc != 0) return rc;
    if (s->td_next[i] < tmin) tmin = s->td_next[i];
  }
  for (g = 0; g < s->n_groups; g++) {
    double tn = diagc_next_sample_time(s->g_period[g], s->g_offset[g], t);
    if (!(tn > t)) {
      diagc_sim_set_err(s,
                        "at t = %.17g the next time of period %g, offset %g "
                        "is no longer representable",
                        t, s->g_period[g], s->g_offset[g]);
      return DIAGC_SIM_E_TIME;
    }
    s->g_next[g] = tn;
    if (tn < tmin) tmin = tn;
  }
  for (g = 0; g < s->n_groups; g++) {
    s->g_fired[g] = (unsigned char)(s->g_next[g] == tmin);
    if (s->g_fired[g]) *kinds |= s->g_kinds[g];
  }
  for (i = 0; i < s->n_timed; i++) {
    s->td_fired[i] = (unsigned char)(s->td_next[i] == tmin && tmin < INFINITY);
    if (s->td_fired[i])
      *kinds |= 1u << s->m->events[s->m->timed[i].event].kind;
  }
  *t_next = tmin;
  return 0;
}

/* ---- finite checks ---------------------------------------------------- */

/* Index of the first NaN or infinity among x[0..n), or -1.  One
 * branch-free pass in the common case: (bits & exponent mask) plus one
 * exponent unit carries into the sign bit exactly when the exponent is all
 * ones (infinity or NaN).  Then the search for the culprit. */
static int first_nonfinite(const double *x, int n) {
  int i;
  uint64_t any = 0;
  for (i = 0; i < n; i++) {
    uint64_t u;
    memcpy(&u, &x[i], sizeof u);
    any |= (u & UINT64_C(0x7ff0000000000000)) + UINT64_C(0x0010000000000000);
  }
  if (!(any >> 63)) return -1;
  for (i = 0; i < n; i++)
    if (!isfinite(x[i])) return i;
  return -1;
}

static const double *ctx_xc(const diagc_sim *s) {
  return (const double *)(const void *)(s->ctx + s->m->xc_offset);
}
static const double *ctx_xd(const diagc_sim *s) {
  return (const double *)(const void *)(s->ctx + s->m->xd_offset);
}

static const char *trigger_word(int trigger) {
  switch (trigger) {
    case DIAGC_TRIGGER_INITIALIZATION: return "initialization";
    case DIAGC_TRIGGER_PER_STEP: return "per-step";
    case DIAGC_TRIGGER_PERIODIC: return "periodic";
    case DIAGC_TRIGGER_WITNESS: return "witness";
    default: return "timed";
  }
}

/* "continuous state 'pend.theta' (xc[0])" / "discrete state 'c.x[1]'" */
static void state_slot_name(const diagc_sim *s, int is_xd, int i, char *buf,
                            size_t len) {
  const char *const *names = is_xd ? s->m->xd_names : s->m->xc_names;
  const char *nm = names ? names[i] : NULL;
  snprintf(buf, len, "%s state '%s' (%s[%d])", is_xd ? "discrete" : "continuous",
           nm ? nm : "(unnamed)", is_xd ? "xd" : "xc", i);
}

/* Fails on the first non-finite continuous or discrete state element, with
 * `when` ("initial state", ...) in the message.  0 if all are finite. */
static int check_state(diagc_sim *s, const char *when) {
  char nm[192];
  int i;
  int is_xd = 0;
  double v;
  diagc_numbuf vb, tb;
  if (!s->opt.check_finite) return 0;
  i = first_nonfinite(ctx_xc(s), s->nxc);
  if (i < 0) {
    is_xd = 1;
    i = first_nonfinite(ctx_xd(s), s->m->nxd);
  }
  if (i < 0) return 0;
  v = is_xd ? ctx_xd(s)[i] : ctx_xc(s)[i];
  state_slot_name(s, is_xd, i, nm, sizeof nm);
  vb = diagc_fmt_num(v);
  tb = diagc_fmt_num(diagc_sim_ctx_time(s));
  diagc_sim_set_err(s, "non-finite value in %s = %s at t = %s (%s)", nm, vb.s,
                    tb.s, when);
  s->broken = 1;
  return DIAGC_SIM_E_NONFINITE;
}

/* The continuous state after a step (the check made since the first
 * release: its message names the element as before). */
static int check_finite_xc(diagc_sim *s) {
  int i;
  const double *x = ctx_xc(s);
  if (!s->opt.check_finite) return 0;
  i = first_nonfinite(x, s->nxc);
  if (i < 0) return 0;
  {
    const char *nm = s->m->xc_names ? s->m->xc_names[i] : NULL;
    diagc_sim_set_err(s,
                      "non-finite continuous state %s (xc[%d]) = %g at "
                      "t = %.17g",
                      nm ? nm : "(unnamed)", i, x[i], diagc_sim_ctx_time(s));
  }
  s->broken = 1;
  return DIAGC_SIM_E_NONFINITE;
}

/* Which selected update event of `kind` wrote the non-finite value at
 * `slot` (a double of the context's state): each event's apply copies only
 * its declared writes, so re-apply them one by one over a finite
 * placeholder.  The context ends as the round left it.  -1 if none did. */
static int blame_update(diagc_sim *s, int kind, unsigned char *slot) {
  const int *ord = s->order[kind];
  const int n = s->n_order[kind];
  const double zero = 0;
  double orig, v;
  int j;
  memcpy(&orig, slot, sizeof orig);
  for (j = 0; j < n; j++) {
    const int e = ord[j];
    if (!s->sel[e]) continue;
    memcpy(slot, &zero, sizeof zero);
    s->m->events[e].apply(s->ctx, s->state_buf);
    memcpy(&v, slot, sizeof v);
    if (!isfinite(v)) return e;
  }
  memcpy(slot, &orig, sizeof orig);
  return -1;
}

/* After a round of updates of `kind` was applied: the first non-finite
 * state element it left, named with the event that wrote it. */
static int check_updated_state(diagc_sim *s, int kind) {
  char nm[192];
  int i, e, is_xd = 0;
  double v;
  unsigned char *slot;
  diagc_numbuf vb, tb;
  i = kind == DIAGC_UNRESTRICTED_UPDATE ? first_nonfinite(ctx_xc(s), s->nxc)
                                         : -1;
  if (i < 0) {
    is_xd = 1;
    i = first_nonfinite(ctx_xd(s), s->m->nxd);
  }
  if (i < 0) return 0;
  slot = s->ctx + (is_xd ? s->m->xd_offset : s->m->xc_offset) +
         (size_t)i * sizeof(double);
  memcpy(&v, slot, sizeof v);
  state_slot_name(s, is_xd, i, nm, sizeof nm);
  e = blame_update(s, kind, slot);
  vb = diagc_fmt_num(v);
  tb = diagc_fmt_num(diagc_sim_ctx_time(s));
  if (e >= 0) {
    diagc_sim_set_err(s, "non-finite value in %s = %s at t = %s (after %s %s "
                      "'%s')",
                      nm, vb.s, tb.s, trigger_word(s->ev[e].trigger),
                      kind_name(kind), event_name(s, e));
  } else {
    diagc_sim_set_err(s, "non-finite value in %s = %s at t = %s (before "
                      "the %ss at this time)",
                      nm, vb.s, tb.s, kind_name(kind));
  }
  s->broken = 1;
  return DIAGC_SIM_E_NONFINITE;
}

/* Runs the selected update events of one kind: preload the state buffer,
 * call the handlers (stop at the first failure), then, unless every
 * handler did nothing or one failed, apply the fired events in order. */
static int handle_updates(diagc_sim *s, int kind, int phase, acc_t *outer) {
  const diagc_model *m = s->m;
  const int *ord = s->order[kind];
  const int n = s->n_order[kind];
  acc_t a = {DIAGC_DID_NOTHING, -1, 0};
  int j, any = 0;

  if (n == 0) return 0;
  for (j = 0; j < n; j++) {
    int e = ord[j];
    s->sel[e] = (unsigned char)selected(s, e, phase);
    any |= s->sel[e];
  }
  if (!any) return 0;
  memcpy(s->state_buf, s->ctx + m->state_offset, m->state_size);
  for (j = 0; j < n; j++) {
    int e = ord[j], st;
    if (!s->sel[e]) continue;
    st = m->events[e].handler(s->ctx, s->state_buf);
    if (s->event_fn) s->event_fn(s->event_user, diagc_sim_ctx_time(s), e);
    keep_more_severe(&a, normalize_status(st), e, st);
    if (a.sev == DIAGC_FAILED) break;
  }
  keep_more_severe(outer, a.sev, a.ev, a.raw);
  if (a.sev == DIAGC_DID_NOTHING || a.sev == DIAGC_FAILED) return 0;
  for (j = 0; j < n; j++) {
    int e = ord[j];
    if (s->sel[e]) m->events[e].apply(s->ctx, s->state_buf);
  }
  diagc_sim_context_changed(s);
  s->ext_restart = 1;
  if (kind == DIAGC_DISCRETE_UPDATE)
    s->st.discrete_updates++;
  else
    s->st.unrestricted_updates++;
  return s->opt.check_finite ? check_updated_state(s, kind) : 0;
}

/* Runs every selected publish (all of them, even after a failure), samples
 * the loggers among them and delivers one log row. */
static int handle_publishes(diagc_sim *s, int phase, acc_t *outer) {
  const diagc_model *m = s->m;
  const int *ord = s->order[DIAGC_PUBLISH];
  const int n = s->n_order[DIAGC_PUBLISH];
  acc_t a = {DIAGC_DID_NOTHING, -1, 0};
  int j, logged = 0, any = 0, bad = 0;

  if (n == 0) return 0;
  for (j = 0; j < n; j++) {
    int e = ord[j], st;
    if (!selected(s, e, phase)) continue;
    if (!any) {
      any = 1;
      if (m->n_loggers > 0) {
        memset(s->log_fired, 0, (size_t)m->n_loggers);
        memset((void *)s->log_vals, 0,
               (size_t)m->n_loggers * sizeof(double *));
      }
    }
    if (e < m->n_events) {
      st = m->events[e].handler(s->ctx, NULL);
      if (s->event_fn) s->event_fn(s->event_user, diagc_sim_ctx_time(s), e);
      keep_more_severe(&a, normalize_status(st), e, st);
    } else {
      const int li = e - m->n_events;
      const diagc_logger_desc *l = &m->loggers[li];
      const double *v = NULL;
      int rc = m->eval_output(s->ctx, l->output, &v);
      if (rc != 0 || (v == NULL && l->size > 0)) {
        keep_more_severe(&a, DIAGC_FAILED, e, rc);
      } else if (s->opt.check_finite && first_nonfinite(v, l->size) >= 0) {
        /* not logged; the first such value is reported */
        if (!bad) {
          const int k = first_nonfinite(v, l->size);
          const char *on = m->outputs[l->output].name;
          const char *ln = event_name(s, e);
          const diagc_numbuf vb = diagc_fmt_num(v[k]);
          const diagc_numbuf tb = diagc_fmt_num(diagc_sim_ctx_time(s));
          char idx[32] = "";
          int other;
          if (l->size > 1) snprintf(idx, sizeof idx, "[%d]", k);
          on = on ? on : "?";
          other = strcmp(on, ln) != 0; /* a log column named otherwise */
          diagc_sim_set_err(s,
                            "non-finite value in logged output '%s'%s = %s "
                            "at t = %s%s%s%s",
                            on, idx, vb.s, tb.s, other ? " (logger '" : "",
                            other ? ln : "", other ? "')" : "");
        }
        bad = 1;
      } else {
        s->log_fired[li] = 1;
        s->log_vals[li] = v;
        logged = 1;
        keep_more_severe(&a, DIAGC_SUCCEEDED, e, DIAGC_SUCCEEDED);
      }
    }
  }
  if (bad) {
    s->broken = 1;
    return DIAGC_SIM_E_NONFINITE;
  }
  if (logged) {
    s->st.log_rows++;
    if (s->log_fn)
      s->log_fn(s->log_user, diagc_sim_ctx_time(s), s->log_fired,
                (const double *const *)s->log_vals);
  }
  if (a.sev != DIAGC_DID_NOTHING && a.sev != DIAGC_FAILED) s->st.publishes++;
  keep_more_severe(outer, a.sev, a.ev, a.raw);
  return 0;
}

/* Formats the message for a failed or terminating status. */
static void report_status(diagc_sim *s, const acc_t *a) {
  const double t = diagc_sim_ctx_time(s);
  const int e = a->ev;
  if (e >= s->m->n_events) {
    const diagc_logger_desc *l = &s->m->loggers[e - s->m->n_events];
    const char *on = s->m->outputs[l->output].name;
    diagc_sim_set_err(s,
                      "logger '%s': eval of output '%s' failed (status %d) "
                      "at t = %.17g",
                      event_name(s, e), on ? on : "?", a->raw, t);
    return;
  }
  if (a->sev == DIAGC_REACHED_TERMINATION) {
    diagc_sim_set_err(s, "%s event '%s' reached termination at t = %.17g",
                      kind_name(s->ev[e].kind), event_name(s, e), t);
  } else if (a->raw < 0 && diagc_status_name(a->raw)) {
    /* a failure that says why (diagc/model.h) */
    diagc_sim_set_err(s, "%s event '%s' failed at t = %.17g: %s",
                      kind_name(s->ev[e].kind), event_name(s, e), t,
                      diagc_status_message(a->raw));
  } else if (a->raw != DIAGC_FAILED) {
    diagc_sim_set_err(s,
                      "%s event '%s' returned an invalid status %d at "
                      "t = %.17g",
                      kind_name(s->ev[e].kind), event_name(s, e), a->raw, t);
  } else {
    diagc_sim_set_err(s, "%s event '%s' failed at t = %.17g",
                      kind_name(s->ev[e].kind), event_name(s, e), t);
  }
}

static int fail_event(diagc_sim *s, const acc_t *a) {
  report_status(s, a);
  s->broken = 1;
  return a->ev >= s->m->n_events ? DIAGC_SIM_E_EVAL : DIAGC_SIM_E_EVENT;
}

/* ---- witness functions (Drake's IntegrateContinuousState and
 * IsolateWitnessTriggers) ------------------------------------------------ */

static int eval_witnesses(diagc_sim *s, double *w) {
  int i;
  for (i = 0; i < s->n_wit; i++) {
    const diagc_witness_desc *d = &s->m->witnesses[i];
    int rc = d->calc(s->ctx, &w[i]);
    if (rc != 0) {
      diagc_sim_set_err(s, "witness '%s' failed (status %d) at t = %.17g",
                        d->name ? d->name : "?", rc, diagc_sim_ctx_time(s));
      return DIAGC_SIM_E_EVAL;
    }
    if (isnan(w[i])) {
      diagc_sim_set_err(s, "witness '%s' is NaN at t = %.17g",
                        d->name ? d->name : "?", diagc_sim_ctx_time(s));
      return DIAGC_SIM_E_NONFINITE;
    }
  }
  return 0;
}

static int witness_triggers(int direction, double w0, double w1) {
  const int down = w0 > 0 && w1 <= 0, up = w0 < 0 && w1 >= 0;
  switch (direction) {
    case DIAGC_WITNESS_POSITIVE_TO_NONPOSITIVE: return down;
    case DIAGC_WITNESS_NEGATIVE_TO_NONNEGATIVE: return up;
    default: return down || up;
  }
}

static int any_witness_triggers(const diagc_sim *s, const double *w) {
  int i;
  for (i = 0; i < s->n_wit; i++)
    if (witness_triggers(s->m->witnesses[i].direction, s->w0[i], w[i]))
      return 1;
  return 0;
}

/* Restores (t0, wx0) and integrates to exactly t (Drake's integrate_forward
 * inside IsolateWitnessTriggers). */
static int integrate_from_start_to(diagc_sim *s, double t0, double t) {
  int rc, r;
  diagc_sim_context_changed(s);
  s->ext_restart = 1;
  s->m->set_time(s->ctx, t0);
  if (s->nxc > 0) {
    if (s->m->set_xc) {
      s->m->set_xc(s->ctx, s->wx0);
    } else {
      memcpy(s->m->mutable_xc(s->ctx), s->wx0,
             (size_t)s->nxc * sizeof(double));
    }
  }
  while (diagc_sim_ctx_time(s) < t) {
    rc = diagc_integrate_no_further_than(s, INFINITY, INFINITY, t, &r);
    if (rc != 0) return rc;
  }
  return 0;
}

/* Integrates one step (as diagc_integrate_no_further_than), then ends it
 * early at an isolated witness crossing.  Marks the events of triggered
 * witnesses in wit_ev_fired. */
static int integrate_step(diagc_sim *s, double next_publish,
                          double next_update, double t_max, int *result) {
  const diagc_model *m = s->m;
  double t0, t1, a, b, iso, wmin;
  int rc, i, reached;

  if (s->n_wit == 0)
    return diagc_integrate_no_further_than(s, next_publish, next_update,
                                           t_max, result);
  memset(s->wit_ev_fired, 0, (size_t)(s->n_ev > 0 ? s->n_ev : 1));
  s->wit_any_fired = 0;
  t0 = diagc_sim_ctx_time(s);
  if (s->nxc > 0)
    memcpy(s->wx0, s->ctx + m->xc_offset, (size_t)s->nxc * sizeof(double));
  if ((rc = eval_witnesses(s, s->w0)) != 0) return rc;
  rc = diagc_integrate_no_further_than(s, next_publish, next_update, t_max,
                                       result);
  if (rc != 0) return rc;
  if ((rc = eval_witnesses(s, s->w1)) != 0) return rc;
  if (!any_witness_triggers(s, s->w1)) return 0;
  reached = *result, t1 = diagc_sim_ctx_time(s);

  /* Isolate by bisection, re-integrating from t0, to 1% of the accuracy
   * (Drake's witness isolation length with a characteristic time of 1). */
  *result = DIAGC_STEP_TIME_ADVANCED;
  wmin = fabs(diagc_sim_ctx_time(s)) * 1e-14;
  if (wmin < 1e-14) wmin = 1e-14;
  if (wmin < s->opt.min_step) wmin = s->opt.min_step;
  iso = 0.01 * s->accuracy_in_use;
  if (iso < wmin) iso = wmin;
  a = t0;
  b = diagc_sim_ctx_time(s);
  for (;;) {
    const double c = (a + b) / 2;
    if ((rc = integrate_from_start_to(s, t0, c)) != 0) return rc;
    if ((rc = eval_witnesses(s, s->w1)) != 0) return rc;
    if (!any_witness_triggers(s, s->w1)) return 0; /* the step ends at c */
    b = c;
    if (b - a < iso || !(c > a)) break;
  }
  /* a crossing isolated at the very end of the step, which was a timed
     event's time, leaves that event due: both fire there (a witness that
     crosses exactly on a log time keeps the log row) */
  if (diagc_sim_ctx_time(s) == t1) *result = reached;
  for (i = 0; i < s->n_wit; i++) {
    const diagc_witness_desc *d = &m->witnesses[i];
    if (d->event >= 0 &&
        witness_triggers(d->direction, s->w0[i], s->w1[i])) {
      s->wit_ev_fired[d->event] = 1;
      s->wit_any_fired = 1;
    }
  }
  s->st.witness_triggers++;
  return 0;
}

/* ---- Initialize / AdvanceTo -------------------------------------------- */

int diagc_sim_initialize(diagc_sim *s) {
  const double t0 = diagc_sim_ctx_time(s);
  acc_t acc = {DIAGC_DID_NOTHING, -1, 0};
  int rc;

  s->initialized = 0;
  s->broken = 0;
  diagc_sim_context_changed(s);
  s->ext_restart = 1;
  s->err[0] = 0;
  s->timed_triggered = 0;
  memset(s->wit_ev_fired, 0, (size_t)(s->n_ev > 0 ? s->n_ev : 1));
  s->wit_any_fired = 0;
  /* Reset statistics (the integrator's step-size history is kept, as in
   * Drake, where IntegratorBase::Initialize leaves the ideal next step). */
  memset(&s->st, 0, sizeof s->st);
  diagc_sim_reset_integrator_stats(s);

  if ((rc = check_state(s, "initial state")) != 0) return rc;
  if (!s->opt.suppress_initialization_events) {
    rc = handle_updates(s, DIAGC_UNRESTRICTED_UPDATE, PHASE_INIT_UPDATE, &acc);
    if (acc.sev == DIAGC_FAILED) return fail_event(s, &acc);
    if (rc != 0) return rc;
    rc = handle_updates(s, DIAGC_DISCRETE_UPDATE, PHASE_INIT_UPDATE, &acc);
    if (acc.sev == DIAGC_FAILED) return fail_event(s, &acc);
    if (rc != 0) return rc;
  }

  if (acc.sev != DIAGC_REACHED_TERMINATION) {
    /* Timed events due now: query from the double just below t0 (Drake
     * perturbs the context time, then restores it). */
    const double tp = previous_normalized(t0);
    unsigned kinds;
    double te = INFINITY;
    s->m->set_time(s->ctx, tp);
    rc = calc_next_update_time(s, tp, t0, &te, &kinds);
    s->m->set_time(s->ctx, t0);
    if (rc != 0) {
      s->broken = 1;
      return rc;
    }
    s->timed_triggered = (te == t0);
    /* Only publishes; the updates run at the start of the first step. */
    rc = handle_publishes(s, PHASE_INIT_PUBLISH, &acc);
    if (acc.sev == DIAGC_FAILED) return fail_event(s, &acc);
    if (rc != 0) return rc;
  }

  s->last_known_time = diagc_sim_ctx_time(s);
  s->initialized = 1;
  if (acc.sev == DIAGC_REACHED_TERMINATION) {
    report_status(s, &acc);
    return DIAGC_SIM_TERMINATED;
  }
  return DIAGC_OK;
}

/* advance_to's preconditions: not broken, time not changed outside,
 * t_max not before t.  DIAGC_OK or the error (with its message). */
static int check_advance(diagc_sim *s, double t_max) {
  double t;
  if (s->broken) {
    diagc_sim_set_err(s,
                      "the simulator stopped on an error; call "
                      "diagc_sim_initialize() before advancing again");
    return DIAGC_SIM_E_STATE;
  }
  t = diagc_sim_ctx_time(s);
  if (!(t == s->last_known_time)) {
    diagc_sim_set_err(s,
                      "simulation time has changed (%.17g -> %.17g) since "
                      "the last initialize/advance_to; resetting time "
                      "requires diagc_sim_initialize()",
                      s->last_known_time, t);
    return DIAGC_SIM_E_TIME;
  }
  if (isnan(t_max) || t_max < t) {
    diagc_sim_set_err(s, "advance_to(%.17g): target is before t = %.17g",
                      t_max, t);
    return DIAGC_SIM_E_ARG;
  }
  return DIAGC_OK;
}

/* Step 1: the pending updates, unrestricted then discrete. */
static int pending_updates(diagc_sim *s, acc_t *acc) {
  int rc;
  if (step_may_select(s, DIAGC_UNRESTRICTED_UPDATE)) {
    rc = handle_updates(s, DIAGC_UNRESTRICTED_UPDATE, PHASE_STEP, acc);
    if (acc->sev == DIAGC_FAILED) return fail_event(s, acc);
    if (rc != 0) return rc;
  }
  if (step_may_select(s, DIAGC_DISCRETE_UPDATE)) {
    rc = handle_updates(s, DIAGC_DISCRETE_UPDATE, PHASE_STEP, acc);
    if (acc->sev == DIAGC_FAILED) return fail_event(s, acc);
    if (rc != 0) return rc;
  }
  return DIAGC_OK;
}

/* Steps 2 to 5: the next timed event, integrate toward it (or t_max),
 * count the step, then the per-step, reached timed and witness publishes
 * on x-(t). */
static int integrate_and_publish(diagc_sim *s, double t_max, acc_t *acc) {
  unsigned kinds;
  double te, next_update = INFINITY, next_publish = INFINITY;
  int result, rc;

  /* 2. next timed event (none without periodic events) */
  te = INFINITY;
  kinds = 0;
  if (s->n_groups > 0 || s->n_timed > 0) {
    rc = calc_next_update_time(s, diagc_sim_ctx_time(s),
                               diagc_sim_ctx_time(s), &te, &kinds);
    if (rc != 0) {
      s->broken = 1;
      return rc;
    }
  }
  if (kinds & ((1u << DIAGC_DISCRETE_UPDATE) |
               (1u << DIAGC_UNRESTRICTED_UPDATE)))
    next_update = te;
  if (kinds & (1u << DIAGC_PUBLISH)) next_publish = te;

  /* 3. integrate (or jump) */
  rc = integrate_step(s, next_publish, next_update, t_max, &result);
  if (rc != 0) {
    s->broken = 1;
    return rc;
  }
  s->timed_triggered = (result == DIAGC_STEP_REACHED_UPDATE ||
                        result == DIAGC_STEP_REACHED_PUBLISH);
  /* 4. count the step */
  s->st.steps++;
  if ((rc = check_finite_xc(s)) != 0) return rc;

  /* 5. per-step, reached timed and witness publishes on x-(t) */
  if (step_may_select(s, DIAGC_PUBLISH)) {
    rc = handle_publishes(s, PHASE_STEP, acc);
    if (acc->sev == DIAGC_FAILED) return fail_event(s, acc);
    if (rc != 0) return rc;
  }
  if (s->progress_fn) s->progress_fn(s->progress_user, diagc_sim_ctx_time(s));
  return DIAGC_OK;
}

int diagc_sim_advance_to(diagc_sim *s, double t_max) {
  int rc;

  if (!s->initialized) {
    rc = diagc_sim_initialize(s);
    if (rc != DIAGC_OK) return rc;
  }
  if ((rc = check_advance(s, t_max)) != DIAGC_OK) return rc;
  s->err[0] = 0;
  /* the caller may have changed parameters or inputs since the last call */
  diagc_sim_context_changed(s);
  s->ext_restart = 1;
  if ((rc = check_state(s, "set before advance_to")) != 0) return rc;
  diagc_step_limit_start(s, t_max);

  for (;;) {
    acc_t acc = {DIAGC_DID_NOTHING, -1, 0};
    if ((rc = pending_updates(s, &acc)) != DIAGC_OK) return rc;
    if (acc.sev != DIAGC_REACHED_TERMINATION &&
        (rc = integrate_and_publish(s, t_max, &acc)) != DIAGC_OK)
      return rc;
    if (acc.sev == DIAGC_REACHED_TERMINATION) {
      report_status(s, &acc);
      s->last_known_time = diagc_sim_ctx_time(s);
      return DIAGC_SIM_TERMINATED;
    }
    /* 6. done? */
    if (diagc_sim_ctx_time(s) >= t_max) break;
  }
  s->last_known_time = diagc_sim_ctx_time(s);
  return DIAGC_OK;
}
