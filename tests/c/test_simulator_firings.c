/* The event-firing hook (diagc_sim_set_event_callback) and the firings
 * writer of diagc run's side file (diagc/csv.h): every handler run is
 * reported once, at the time the handler saw, for witness, timed and
 * periodic events; the writer skips periodic events, caps the rows per
 * event and counts the rest. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diagc/csv.h"
#include "diagc/simulator.h"
#include "models/bouncing.c"
#include "models/check.h"
#include "models/timed.c"

#define REC_MAX 256
typedef struct rec {
  int n;
  double t[REC_MAX];
  int ev[REC_MAX];
} rec;

static void record(void *user, double t, int event) {
  rec *r = (rec *)user;
  if (r->n < REC_MAX) {
    r->t[r->n] = t;
    r->ev[r->n] = event;
  }
  r->n++;
}

/* The bouncing ball's two witness events: the reported times are the
 * times their handlers recorded (bounce: an unrestricted update, apex: a
 * publish), in order. */
static void witness_firings(void) {
  static rec r;
  diagc_sim *sim;
  int i, nb = 0, na = 0, ok = 1, rc;
  bb_n_bounce = bb_n_apex = 0;
  r.n = 0;
  sim = diagc_sim_create(&bb_model, NULL);
  diagc_sim_set_event_callback(sim, record, &r);
  rc = diagc_sim_advance_to(sim, 3.0);
  for (i = 0; i < r.n && i < REC_MAX; i++) {
    if (r.ev[i] == 0) ok = ok && nb < BB_MAX && r.t[i] == bb_bounce_t[nb++];
    else ok = ok && na < BB_MAX && r.t[i] == bb_apex_t[na++];
    if (i > 0) ok = ok && r.t[i] >= r.t[i - 1];
  }
  check(rc == 0 && ok && nb == bb_n_bounce && na == bb_n_apex && nb >= 6,
        "firings.witness", "rc %d ok %d bounces %d/%d apexes %d/%d", rc, ok,
        nb, bb_n_bounce, na, bb_n_apex);
  /* removed: nothing more is reported */
  diagc_sim_set_event_callback(sim, NULL, NULL);
  r.n = 0;
  rc = diagc_sim_advance_to(sim, 3.5);
  check(rc == 0 && r.n == 0, "firings.removed", "rc %d n %d", rc, r.n);
  diagc_sim_destroy(sim);
}

/* The timed model to t = 10: w.wake at 1, 2, 4, 8 (2^n), w.tick every
 * second from 0; the updates due at 10 are pending, not fired. */
static void timed_firings(void) {
  static rec r;
  diagc_sim *sim;
  int i, nw = 0, nt = 0, ok = 1, rc;
  r.n = 0;
  sim = diagc_sim_create(&timed_model, NULL);
  diagc_sim_set_event_callback(sim, record, &r);
  rc = diagc_sim_advance_to(sim, 10.0);
  for (i = 0; i < r.n && i < REC_MAX; i++) {
    if (r.ev[i] == 0) ok = ok && r.t[i] == ldexp(1.0, nw++);
    else ok = ok && r.t[i] == (double)nt++;
  }
  check(rc == 0 && ok && nw == 4 && nt == 10, "firings.timed_and_periodic",
        "rc %d ok %d wakes %d ticks %d", rc, ok, nw, nt);
  diagc_sim_destroy(sim);
}

/* The writer with 2 rows per event: the first two wake-ups, then the
 * count of the other two; no periodic tick. */
static void writer(void) {
  char text[512];
  size_t len;
  long long counts[2];
  diagc_firings_writer w;
  diagc_sim *sim;
  FILE *f = tmpfile();
  int rc;
  const char *want = "# diagc firings t0=0 t_end=10\nt,event\n1,w.wake\n"
                     "2,w.wake\n# omitted w.wake 2\n";
  if (!f) {
    check(0, "firings.writer", "tmpfile failed");
    return;
  }
  sim = diagc_sim_create(&timed_model, NULL);
  diagc_firings_writer_init(&w, &timed_model, f, counts, 2);
  rc = diagc_firings_write_header(&w, 0, 10);
  diagc_sim_set_event_callback(sim, diagc_firings_callback, &w);
  rc = rc || diagc_sim_advance_to(sim, 10.0);
  rc = rc || diagc_firings_write_omitted(&w);
  rewind(f);
  len = fread(text, 1, sizeof text - 1, f);
  text[len] = 0;
  check(rc == 0 && strcmp(text, want) == 0 && w.rows == 2 && counts[0] == 4 &&
            counts[1] == 0,
        "firings.writer", "rc %d rows %lld counts %lld %lld text '%s'", rc,
        w.rows, counts[0], counts[1], text);
  fclose(f);
  diagc_sim_destroy(sim);
}

int main(void) {
  witness_firings();
  timed_firings();
  writer();
  return check_exit();
}
