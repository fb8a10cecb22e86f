/* Witness functions: the bouncing ball's impact and apex times against the
 * analytic sequence, directions, and the ordering of witness events. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diagc/simulator.h"
#include "models/bouncing.c"
#include "models/check.h"

/* Analytic: first impact t1 = sqrt(2 y0 / g) with speed v1 = g t1; after
 * impact k (k >= 1) the ball leaves at e^k v1, so
 * t_{k+1} = t_k + 2 e^k v1 / g, apex k at t_k + e^k v1 / g, height
 * e^(2k) y0. */
static void bounce_times(const char *integ, double accuracy, double tol) {
  diagc_sim_options o;
  diagc_sim *sim;
  diagc_sim_statistics st;
  const double t1 = sqrt(2 * bb_y0 / bb_g), v1 = bb_g * t1;
  double tk = t1, worst_t = 0, worst_apex_t = 0, worst_apex_y = 0;
  int k, rc, nb;
  char name[96];
  bb_n_bounce = bb_n_apex = 0;
  diagc_sim_options_init(&o);
  o.integrator = integ;
  o.accuracy = accuracy;
  sim = diagc_sim_create(&bb_model, &o);
  rc = diagc_sim_advance_to(sim, 3.0);
  diagc_sim_stats(sim, &st);
  nb = bb_n_bounce;
  for (k = 0; k < 6 && k < nb; k++) {
    const double up = pow(bb_e, k + 1) * v1;
    double d = fabs(bb_bounce_t[k] - tk);
    if (d > worst_t) worst_t = d;
    if (k < bb_n_apex) {
      d = fabs(bb_apex_t[k] - (tk + up / bb_g));
      if (d > worst_apex_t) worst_apex_t = d;
      d = fabs(bb_apex_y[k] - pow(bb_e, 2 * (k + 1)) * bb_y0);
      if (d > worst_apex_y) worst_apex_y = d;
    }
    tk += 2 * up / bb_g;
  }
  snprintf(name, sizeof name, "witness.%s.%g.bounce_times", integ, accuracy);
  check(rc == 0 && nb >= 6 && worst_t < tol, name,
        "rc %d (%s) bounces %d worst error %g (tol %g), first %.12g want "
        "%.12g",
        rc, diagc_sim_error(sim), nb, worst_t, tol, bb_bounce_t[0], t1);
  snprintf(name, sizeof name, "witness.%s.%g.apexes", integ, accuracy);
  check(rc == 0 && bb_n_apex >= 6 && worst_apex_t < tol &&
            worst_apex_y < 10 * tol && fabs(bb_apex_y[0] - 0.64) < 10 * tol,
        name, "apexes %d worst time error %g, height error %g, first %.12g",
        bb_n_apex, worst_apex_t, worst_apex_y, bb_apex_y[0]);
  snprintf(name, sizeof name, "witness.%s.%g.stats", integ, accuracy);
  check(st.witness_triggers == nb + bb_n_apex, name,
        "witness_triggers %lld, events %d", (long long)st.witness_triggers,
        nb + bb_n_apex);
  diagc_sim_destroy(sim);
}

/* Directions: a witness w = y (ball height) triggers only
 * positive-to-non-positive; negative-to-non-negative never fires on it
 * before the first impact. */
static void directions(void) {
  diagc_model m = bb_model;
  diagc_witness_desc w[2];
  diagc_sim *sim;
  int rc;
  memcpy(w, bb_witnesses, sizeof w);
  w[0].direction = DIAGC_WITNESS_NEGATIVE_TO_NONNEGATIVE;
  m.witnesses = w;
  m.n_witnesses = 1;
  bb_n_bounce = bb_n_apex = 0;
  sim = diagc_sim_create(&m, NULL);
  rc = diagc_sim_advance_to(sim, 0.5);
  check(rc == 0 && bb_n_bounce == 0 &&
            ((const bb_ctx *)diagc_sim_context(sim))->xc[0] < 0,
        "witness.direction.negative_to_nonnegative", "rc %d bounces %d", rc,
        bb_n_bounce);
  diagc_sim_destroy(sim);
  w[0].direction = DIAGC_WITNESS_CROSSING;
  bb_n_bounce = 0;
  sim = diagc_sim_create(&m, NULL);
  rc = diagc_sim_advance_to(sim, 0.5);
  /* crossing fires at the impact (and again when the reversed ball rises
   * through y = 0 from just below it, reversing it once more) */
  check(rc == 0 && bb_n_bounce >= 1 &&
            fabs(bb_bounce_t[0] - sqrt(2 / 9.81)) < 1e-5,
        "witness.direction.crossing", "rc %d bounces %d t %g", rc,
        bb_n_bounce, bb_bounce_t[0]);
  diagc_sim_destroy(sim);
}

/* The update fires at the start of the step after the isolated crossing,
 * so advance_to(t) stopping exactly at the crossing leaves it pending; the
 * velocity seen right after the crossing step is still negative (x-). */
static void update_at_next_step(void) {
  diagc_sim *sim;
  const bb_ctx *c;
  double t_hit;
  int rc;
  bb_n_bounce = bb_n_apex = 0;
  sim = diagc_sim_create(&bb_model, NULL);
  c = (const bb_ctx *)diagc_sim_context(sim);
  rc = diagc_sim_advance_to(sim, 0.5);
  t_hit = bb_bounce_t[0];
  check(rc == 0 && bb_n_bounce == 1 && c->xc[1] > 0 && t_hit < 0.5,
        "witness.update_applied", "rc %d bounces %d v %g", rc, bb_n_bounce,
        c->xc[1]);
  diagc_sim_destroy(sim);
}

int main(void) {
  bounce_times("runge_kutta3", 1e-8, 1e-8);
  bounce_times("dormand_prince54", 1e-8, 1e-8);
  bounce_times("bogacki_shampine3", 1e-8, 1e-8);
  bounce_times("runge_kutta3", 1e-4, 1e-5);
  directions();
  update_at_next_step();
  return check_exit();
}
