/* Internal to the simulator (simulator.c) and its integrators.
 *
 * Calls go one way: simulator.c -> integrators.c (the method table,
 * dispatch and step-size control) -> the methods (explicit.c,
 * implicit_euler.c, radau.c, radau5.c; methods.h) -> the implicit methods'
 * Newton core (newton.c; newton.h) -> the Jacobian source, the workspace
 * and the linear algebra (implicit.c, band.c; implicit.h) -> the error
 * message (sim_error.c).  What they all share at the bottom (context
 * access, derivative evaluation) is inline here. */
#ifndef DIAGC_SIM_INTERNAL_H
#define DIAGC_SIM_INTERNAL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagc/simulator.h"
#include "implicit.h"

/* Integrators. */
enum {
  DIAGC_INT_EULER,
  DIAGC_INT_RK2,
  DIAGC_INT_RK3,
  DIAGC_INT_RK4,
  DIAGC_INT_SEMI_EULER,
  DIAGC_INT_BS3,
  DIAGC_INT_DP54,
  DIAGC_INT_IMPLICIT_EULER,
  DIAGC_INT_RADAU3,
  DIAGC_INT_RADAU5,
  DIAGC_N_INTEGRATORS
};
/* s->integ of the installed stepper (diagc_sim_set_stepper) */
#define DIAGC_INT_EXTERNAL DIAGC_N_INTEGRATORS

struct diagc_sim;

typedef struct diagc_integrator_desc {
  const char *name;
  int supports_error_estimation;
  int error_order;
  /* one step of h (methods.h) */
  int (*step)(struct diagc_sim *s, double h);
  /* explicit methods: the largest stable h |lambda| on the negative real
   * axis (0 for the implicit ones), and h |lambda| estimated from the
   * last step's stages (methods.h; NULL: from two successive steps,
   * stiffness.c) */
  double stability_limit;
  double (*hlambda)(const struct diagc_sim *s);
} diagc_integrator_desc;

/* Results of diagc_integrate_no_further_than (Drake's StepResult). */
enum {
  DIAGC_STEP_REACHED_PUBLISH,
  DIAGC_STEP_REACHED_UPDATE,
  DIAGC_STEP_REACHED_BOUNDARY,
  DIAGC_STEP_TIME_ADVANCED
};

/* An event of the model (index < m->n_events) or a logger (index
 * m->n_events + i), as the simulator schedules it. */
typedef struct diagc_sim_event {
  int kind;      /* DIAGC_PUBLISH / _DISCRETE_UPDATE / _UNRESTRICTED_UPDATE */
  int trigger;   /* DIAGC_TRIGGER_* */
  int leaf;      /* loggers: n_leaves (after every leaf) */
  int group;     /* periodic timing group, -1 otherwise */
  int timed;     /* next_update_time item (model->timed index) for
                    DIAGC_TRIGGER_TIMED events, -1 otherwise */
} diagc_sim_event;

struct diagc_sim {
  const diagc_model *m;
  unsigned char *ctx;
  unsigned char *state_buf;   /* state_size bytes (>= 1) */
  int nxc;
  /* integrator scratch, nxc doubles each */
  double *xsave, *x0, *xt, *k0, *k1, *k2, *k3, *errv;
  double *k4, *k5, *k6, *xa, *xb, *g, *dx, *fx;
  /* first-same-as-last: the derivative at the end of the last step of an
   * FSAL integrator (bogacki_shampine3, dormand_prince54), valid while
   * nothing but that integrator touched the context */
  double *fsal_k, *fsal_x;
  double fsal_t;
  int fsal_valid;
  /* implicit_euler, radau3, radau5: the Jacobian source, the Jacobian and the
   * iteration matrices; allocated when the integrator is selected (never
   * during advance_to) */
  diagc_implicit imp;

  /* an integrator from outside the runtime (diagc_sim_set_stepper); its
   * history is invalid (restart) after anything but it changed the context */
  diagc_sim_stepper ext;
  int has_ext;
  int ext_restart;

  /* witness functions */
  int n_wit;
  double *w0, *w1;           /* values at the step start and end */
  double *wx0;               /* continuous state at the step start */
  unsigned char *wit_ev_fired; /* n_ev: event's witness triggered in the
                                  last step */
  int wit_any_fired;          /* some wit_ev_fired entry is set */

  /* the explicit methods' stiffness test (stiffness.c): the countdown to
   * the next test, Hairer's counts of hits and of calm tests in a row,
   * and for the test across two steps the first one's start (sk_x), its
   * derivative (sk_f), step and end time (sk_t NaN: none pending) */
  int64_t sk_countdown;
  int sk_hits, sk_calm;
  double sk_loghl, sk_logh; /* sums of log(h |lambda|) and log(h) since
                               the first hit, */
  int sk_logn;              /* over this many tests */
  double *sk_x, *sk_f;
  double sk_h, sk_t;

  /* the step-count limit (integrators.c): the advance_to target; the
   * steps taken when the call began, when its window began (at time
   * lim_t) and at the next check; windows in a row whose projection
   * exceeded the limit */
  double run_end;
  int64_t lim_start, lim_n, lim_next;
  double lim_t;
  int lim_strikes;

  /* progress hook */
  diagc_progress_fn progress_fn;
  void *progress_user;
  /* event-firing hook */
  diagc_event_fn event_fn;
  void *event_user;

  /* options */
  diagc_sim_options opt;      /* opt.integrator points at a static name */
  int integ;
  int fixed_mode;             /* 1: fixed steps */
  double max_step_in_use;     /* max_step, or fixed_step in fixed mode */
  double accuracy_in_use;
  double initial_target;
  double ideal_next;          /* NaN until error control chose a step */

  /* events */
  int n_ev;                   /* n_events + n_loggers */
  diagc_sim_event *ev;
  int *order[3];              /* per kind, indices sorted by (leaf, trigger,
                                 index) */
  int n_order[3];
  int n_groups;
  double *g_period, *g_offset, *g_next;
  unsigned char *g_kinds;     /* bit (1 << kind) for each kind in the group */
  unsigned char *g_fired;     /* groups due at the last computed time */
  int timed_triggered;        /* the fired groups are merged */
  unsigned char *sel;         /* n_ev scratch flags: selected for this round */
  int n_per_step[3];          /* per kind: per-step events (publishes:
                                 with per-step loggers), which a simulator
                                 step always selects */

  /* next_update_time items (model->timed): their last computed times and
   * which are due at the last computed event time */
  int n_timed;
  double *td_next;
  unsigned char *td_fired;

  /* loggers */
  diagc_log_fn log_fn;
  void *log_user;
  unsigned char *log_fired;
  const double **log_vals;

  /* state */
  int initialized;
  int broken;
  double last_known_time;
  diagc_sim_statistics st;
  char err[512];
};

extern const diagc_integrator_desc diagc_integrators[DIAGC_N_INTEGRATORS];

/* integrators.c */
int diagc_find_integrator(const char *name);
void diagc_sim_reset_integrator_stats(diagc_sim *s);
/* Allocates the scratch the selected integrator needs beyond the common
 * vectors (the implicit methods' matrices).  Called by create /
 * set_options. */
int diagc_integrator_alloc(diagc_sim *s);
/* Starts the step-count limit of an advance_to call to t_max. */
void diagc_step_limit_start(diagc_sim *s, double t_max);
/* Takes one step no further than min(publish, update, boundary) (Drake's
 * IntegrateNoFurtherThanTime).  Returns 0 or a negative DIAGC_SIM_E_*;
 * *result gets a DIAGC_STEP_*. */
int diagc_integrate_no_further_than(diagc_sim *s, double publish_time,
                                    double update_time, double boundary_time,
                                    int *result);

/* The context's continuous state, and setting it (through set_xc or
 * mutable_xc, which invalidate). */
static inline const double *diagc_sim_xc(const diagc_sim *s) {
  return (const double *)(const void *)(s->ctx + s->m->xc_offset);
}
static inline void diagc_sim_put_xc(diagc_sim *s, const double *x) {
  if (s->m->set_xc) {
    s->m->set_xc(s->ctx, x);
  } else {
    memcpy(s->m->mutable_xc(s->ctx), x, (size_t)s->nxc * sizeof(double));
  }
}

/* The context's time (inline: read several times per integration step). */
static inline double diagc_sim_ctx_time(const diagc_sim *s) {
  double t;
  memcpy(&t, s->ctx + s->m->time_offset, sizeof t);
  return t;
}

/* Copies and bitwise comparisons of n doubles: inline for small systems,
 * where a library call costs more than the work. */
enum { DIAGC_SMALL_N = 8 };

static inline void diagc_vcopy(double *dst, const double *src, int n) {
  if (n <= DIAGC_SMALL_N) {
    int i;
    for (i = 0; i < n; i++) dst[i] = src[i];
  } else {
    memcpy(dst, src, (size_t)n * sizeof(double));
  }
}

static inline int diagc_vsame(const double *a, const double *b, int n) {
  if (n <= DIAGC_SMALL_N) {
    int i;
    for (i = 0; i < n; i++) {
      uint64_t u, v;
      memcpy(&u, &a[i], sizeof u);
      memcpy(&v, &b[i], sizeof v);
      if (u != v) return 0;
    }
    return 1;
  }
  return memcmp(a, b, (size_t)n * sizeof(double)) == 0;
}

/* sim_error.c: the message of a failed calc_derivatives call (status rc)
 * at the context's time; returns DIAGC_SIM_E_EVAL. */
int diagc_sim_eval_failed(diagc_sim *s, int rc);

/* Evaluates xcdot at the context into out (counted; on failure sets the
 * message and returns DIAGC_SIM_E_EVAL). */
static inline int diagc_sim_eval_xcdot(diagc_sim *s, double *out) {
  const double *d = NULL;
  int rc = s->m->calc_derivatives(s->ctx, &d);
  s->st.derivative_evals++;
  if (rc != 0 || d == NULL) return diagc_sim_eval_failed(s, rc);
  diagc_vcopy(out, d, s->nxc);
  return 0;
}

/* Something other than the integrator changed the context (an update, a
 * witness re-integration from an earlier point, initialize, advance_to):
 * the FSAL integrators' last stage and the stiffness test's pending step
 * (stiffness.c) no longer continue into the next step. */
static inline void diagc_sim_context_changed(diagc_sim *s) {
  s->fsal_valid = 0;
  s->sk_t = NAN;
}

/* Drake's LeafSystem::GetNextSampleTime: exactly offset + k*period,
 * strictly after t, computed from scratch. */
static inline double diagc_next_sample_time(double period, double offset,
                                            double t) {
  double k, next;
  if (t < offset) return offset;
  k = ceil((t - offset) / period);
  next = offset + k * period;
  if (next <= t) next = offset + (k + 1) * period;
  return next;
}

/* The shortest %g form that reads back as t (0.04, not
 * 0.040000000000000001), and "nan" for any NaN (glibc prints "-nan"). */
typedef struct diagc_numbuf {
  char s[40];
} diagc_numbuf;
static inline diagc_numbuf diagc_fmt_num(double x) {
  diagc_numbuf b;
  int p;
  if (isnan(x)) {
    strcpy(b.s, "nan");
    return b;
  }
  for (p = 15; p <= 17; p++) {
    snprintf(b.s, sizeof b.s, "%.*g", p, x);
    if (strtod(b.s, NULL) == x) break;
  }
  return b;
}

/* Calls the next_update_time calc `i` of model m at ctx (context time t):
 * 0 with *t_next > t (or INFINITY), or DIAGC_SIM_E_EVAL / _NONFINITE with
 * a message in err that names the time t_report (the simulator's time
 * when it queries from just before it at initialization).  next_update.c. */
int diagc_timed_calc(const diagc_model *m, void *ctx, int i, double t,
                     double t_report, double *t_next, char *err,
                     size_t errlen);

/* stiffness.c: the explicit methods' stiffness test.  Reset for the
 * method d (NULL: a stepper) at initialize and when the integrator
 * changes; a test after the accepted step of the method d from t0 to t1
 * (s->x0, s->k0: its start and the derivative there) that ends the
 * countdown s->sk_countdown (never for the implicit methods). */
void diagc_stiffness_reset(diagc_sim *s, const diagc_integrator_desc *d);
void diagc_stiffness_test(diagc_sim *s, const diagc_integrator_desc *d,
                          double t0, double t1);

/* sim_error.c */
void diagc_sim_set_err(diagc_sim *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
