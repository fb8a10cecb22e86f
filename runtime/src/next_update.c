/* Drake's System::CalcNextUpdateTime over a diagc_model descriptor: the
 * earliest timed event (periodic events, periodic loggers and the one-shot
 * events of next_update_time items) strictly after the context's time.
 * The simulator computes the same times through its periodic timing
 * groups (simulator.c) and calls diagc_timed_calc for the one-shot ones. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sim_internal.h"

static void set_msg(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void set_msg(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  if (!err || errlen == 0) return;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

int diagc_timed_calc(const diagc_model *m, void *ctx, int i, double t,
                     double t_report, double *t_next, char *err,
                     size_t errlen) {
  const diagc_timed_desc *d = &m->timed[i];
  const char *nm = d->name ? d->name : "?";
  double tn = INFINITY;
  int rc = d->calc(ctx, &tn);
  *t_next = INFINITY;
  if (rc != 0) {
    set_msg(err, errlen, "next_update_time '%s' failed (status %d) at t = %s",
            nm, rc, diagc_fmt_num(t_report).s);
    return DIAGC_SIM_E_EVAL;
  }
  if (isnan(tn)) {
    set_msg(err, errlen, "next_update_time '%s' returned NaN at t = %s", nm,
            diagc_fmt_num(t_report).s);
    return DIAGC_SIM_E_NONFINITE;
  }
  if (!(tn > t)) {
    set_msg(err, errlen,
            "next_update_time '%s' returned t_next = %s, not after "
            "t = %s (return a later time, or INFINITY for no event)",
            nm, diagc_fmt_num(tn).s, diagc_fmt_num(t_report).s);
    return DIAGC_SIM_E_EVAL;
  }
  *t_next = tn;
  return 0;
}

/* The time of model event i (periodic) or logger j = i - n_events (period
 * > 0) after t; INFINITY for other events.  DIAGC_SIM_E_TIME when the next
 * sample time is no longer representable after t. */
static int periodic_next(const diagc_model *m, int i, double t, double *tn,
                         char *err, size_t errlen) {
  double period, offset;
  *tn = INFINITY;
  if (i < m->n_events) {
    if (m->events[i].trigger != DIAGC_TRIGGER_PERIODIC) return 0;
    period = m->events[i].period;
    offset = m->events[i].offset;
  } else {
    period = m->loggers[i - m->n_events].period;
    offset = 0;
    if (!(period > 0)) return 0;
  }
  *tn = diagc_next_sample_time(period, offset, t);
  if (!(*tn > t)) {
    set_msg(err, errlen,
            "at t = %.17g the next time of period %g, offset %g is no longer "
            "representable",
            t, period, offset);
    return DIAGC_SIM_E_TIME;
  }
  return 0;
}

int diagc_calc_next_update_time(const diagc_model *m, void *ctx,
                                double *t_next, unsigned char *due,
                                char *err, size_t errlen) {
  const int n_ev = m ? m->n_events + m->n_loggers : 0;
  double t, tmin = INFINITY, tn;
  int i, rc, n_due = 0;

  if (err && errlen) err[0] = 0;
  if (!m || !ctx || !t_next) {
    set_msg(err, errlen, "diagc_calc_next_update_time: NULL argument");
    return DIAGC_SIM_E_ARG;
  }
  memcpy(&t, (const unsigned char *)ctx + m->time_offset, sizeof t);
  *t_next = INFINITY;
  if (due && n_ev > 0) memset(due, 0, (size_t)n_ev);
  /* two passes (earliest time, then the events due at it), so that no
   * scratch is needed; calcs are cached, so the second call is cheap */
  for (i = 0; i < n_ev; i++) {
    if ((rc = periodic_next(m, i, t, &tn, err, errlen)) != 0) return rc;
    if (tn < tmin) tmin = tn;
  }
  for (i = 0; i < m->n_timed; i++) {
    if ((rc = diagc_timed_calc(m, ctx, i, t, t, &tn, err, errlen)) != 0)
      return rc;
    if (tn < tmin) tmin = tn;
  }
  *t_next = tmin;
  if (tmin == INFINITY) return 0;
  for (i = 0; i < n_ev; i++) {
    (void)periodic_next(m, i, t, &tn, NULL, 0);
    if (tn == tmin) {
      if (due) due[i] = 1;
      n_due++;
    }
  }
  for (i = 0; i < m->n_timed; i++) {
    if ((rc = diagc_timed_calc(m, ctx, i, t, t, &tn, err, errlen)) != 0)
      return rc;
    if (tn == tmin) { /* each item has its own event */
      if (due) due[m->timed[i].event] = 1;
      n_due++;
    }
  }
  return n_due;
}

int diagc_sim_next_update_time(diagc_sim *s, double *t_next,
                               unsigned char *due) {
  if (!s) return DIAGC_SIM_E_ARG;
  return diagc_calc_next_update_time(s->m, s->ctx, t_next, due, s->err,
                                     sizeof s->err);
}
