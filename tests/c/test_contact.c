/* Tests of the contact solve (diagc/world.h, "Contact solve") and of the
 * LCP work budget (diagc/lcp.h, work_budget).
 *
 * Scenes are built by hand: J (rows n, t1, t2 per contact) and M^-1 J^T of
 * point masses (nv = 3) and of a box (nv = 6: the velocity of its centre
 * and its angular velocity, both in world axes; a point r from the centre
 * moves at v + w x r, so a direction d's row is [d, r x d]).  Expected
 * values are analytic (impulses m g dt, mu m g dt, e v_in, ...), never the
 * solver's own output. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "diagc/lcp.h"
#include "diagc/world.h"
#include "lcp/gen.h"

#define G 9.81
#define DT 1e-3
#define MAXC 64
#define MAXV 160

static _Alignas(64) unsigned char ws[1 << 22];

/* A scene: up to MAXC contacts on nv velocities. */
typedef struct {
  int nv, nc;
  double J[3 * MAXC * MAXV / 8]; /* 3 nc x nv (small scenes) */
  double MinvJT[MAXV / 8 * 3 * MAXC];
  double minv[MAXV];            /* diagonal M^-1 */
  double v[MAXV], vstar[MAXV], vnext[MAXV];
  double depth[MAXC], mu[MAXC], e[MAXC];
  int tree[2 * MAXC];
  double x[3 * MAXC];
} scene;

static void scene_init(scene *s, int nv) {
  memset(s, 0, sizeof *s);
  s->nv = nv;
}

/* Adds contact k's three rows (directions n, t1, t2 at lever r from the
 * centre of body `body` of a scene of 3-dof point masses (lever ignored)
 * or of one 6-dof body); returns its index. */
static int add_contact(scene *s, int body, int dof, const double *r, const double n[3],
                       const double t1[3], const double t2[3], double depth, double mu, double e) {
  int k = s->nc++, i, d;
  const double *dirs[3];
  dirs[0] = n, dirs[1] = t1, dirs[2] = t2;
  for (i = 0; i < 3; i++) {
    double *row = s->J + (size_t)(3 * k + i) * s->nv + dof * body;
    for (d = 0; d < 3; d++) row[d] = dirs[i][d];
    if (dof == 6) {
      row[3] = r[1] * dirs[i][2] - r[2] * dirs[i][1];
      row[4] = r[2] * dirs[i][0] - r[0] * dirs[i][2];
      row[5] = r[0] * dirs[i][1] - r[1] * dirs[i][0];
    }
  }
  s->depth[k] = depth, s->mu[k] = mu, s->e[k] = e;
  s->tree[2 * k] = body, s->tree[2 * k + 1] = -1;
  return k;
}

/* M^-1 J^T from the diagonal M^-1. */
static void finish_scene(scene *s) {
  int i, c, ncol = 3 * s->nc;
  for (i = 0; i < s->nv; i++)
    for (c = 0; c < ncol; c++) s->MinvJT[(size_t)i * ncol + c] = s->minv[i] * s->J[(size_t)c * s->nv + i];
}

static void problem_of(const scene *s, diagc_contact_problem *p) {
  memset(p, 0, sizeof *p);
  p->nv = s->nv, p->nc = s->nc, p->J = s->J, p->MinvJT = s->MinvJT, p->v = s->v;
  p->vstar = s->vstar, p->depth = s->depth, p->mu = s->mu, p->restitution = s->e;
  p->tree = s->tree, p->dt = DT;
}

static int solve(scene *s, const diagc_contact_options *o, diagc_contact_stats *st) {
  diagc_contact_problem p;
  problem_of(s, &p);
  return diagc_contact_solve(&p, o, s->x, s->vnext, ws, sizeof ws, st);
}

static const double EZ[3] = {0, 0, 1}, EX[3] = {1, 0, 0}, EY[3] = {0, 1, 0};

static int all_finite(const double *a, int n) {
  int i;
  for (i = 0; i < n; i++)
    if (!isfinite(a[i])) return 0;
  return 1;
}

/* ------------------------------------------------------------------------ */

/* A point mass on the plane z = 0 (nv = 3): 10000 steps of 1 ms with a
 * semi-implicit position update; every step's normal impulse is m g dt to
 * 1e-12, the height never moves. */
static void test_point_resting(void) {
  scene s;
  double m = 2.5, z = 0.0, worst = 0.0, drift = 0.0;
  int step, i, bad = 0;
  diagc_contact_stats st;
  scene_init(&s, 3);
  for (i = 0; i < 3; i++) s.minv[i] = 1.0 / m;
  add_contact(&s, 0, 3, NULL, EZ, EX, EY, 0.0, 0.5, 0.0);
  finish_scene(&s);
  for (step = 0; step < 10000; step++) {
    int rc;
    s.depth[0] = -z;
    for (i = 0; i < 3; i++) s.vstar[i] = s.v[i];
    s.vstar[2] -= G * DT;
    rc = solve(&s, NULL, &st);
    if (rc != DIAGC_OK || !all_finite(s.vnext, 3)) bad++;
    {
      double rel = fabs(s.x[0] - m * G * DT) / (m * G * DT);
      if (rel > worst) worst = rel;
    }
    for (i = 0; i < 3; i++) s.v[i] = s.vnext[i];
    z += DT * s.v[2];
    if (fabs(z) > drift) drift = fabs(z);
  }
  check(bad == 0, "contact.point_resting_status", "%d steps not DIAGC_OK", bad);
  check(worst <= 1e-12, "contact.point_resting_impulse_mgdt", "worst relative error %.3g", worst);
  check(drift <= 1e-12 && s.x[1] == 0.0 && s.x[2] == 0.0, "contact.point_resting_no_drift",
        "drift %.3g m, friction %g %g", drift, s.x[1], s.x[2]);
}

/* Sliding: tangential velocity 1 m/s, mu = 0.3: the friction impulse is
 * mu m g dt against the motion, the velocity drops by mu g dt. Sticking:
 * a push below mu times the normal impulse leaves the mass at rest. */
static void test_point_friction(void) {
  scene s;
  double m = 1.5, mu = 0.3, dv;
  int i, rc;
  diagc_contact_stats st;
  scene_init(&s, 3);
  for (i = 0; i < 3; i++) s.minv[i] = 1.0 / m;
  add_contact(&s, 0, 3, NULL, EZ, EX, EY, 0.0, mu, 0.0);
  finish_scene(&s);
  s.v[0] = 1.0;
  s.vstar[0] = 1.0, s.vstar[2] = -G * DT;
  rc = solve(&s, NULL, &st);
  dv = s.vnext[0] - 1.0;
  check(rc == DIAGC_OK && fabs(dv + mu * G * DT) <= 1e-14 && fabs(s.x[1] + mu * m * G * DT) <= 1e-14 &&
            fabs(s.vnext[2]) <= 1e-15 && fabs(s.vnext[1]) <= 1e-15,
        "contact.point_sliding_mu_g_dt", "rc %d dv %.17g (want %.17g) x_t %.17g", rc, dv,
        -mu * G * DT, s.x[1]);
  /* a diagonal slide: Coulomb's cone, mu m g dt against the motion (a
     friction box in the default tangents would give mu m g dt along each
     axis, sqrt 2 times it) */
  s.v[0] = 1.0, s.v[1] = 1.0, s.vstar[0] = 1.0, s.vstar[1] = 1.0;
  memset(s.x, 0, sizeof s.x);
  rc = solve(&s, NULL, &st);
  check(rc == DIAGC_OK && fabs(s.vnext[0] - (1.0 - mu * G * DT / sqrt(2.0))) <= 1e-14 &&
            fabs(s.vnext[1] - (1.0 - mu * G * DT / sqrt(2.0))) <= 1e-14 &&
            fabs(hypot(s.x[1], s.x[2]) - mu * s.x[0]) <= 1e-15 * s.x[0] && st.friction_turned == 1 &&
            st.friction_outside == 0,
        "contact.point_sliding_diagonal_coulomb", "rc %d v %.17g %.17g", rc, s.vnext[0], s.vnext[1]);
  /* sticking: a push of 0.9 mu m g (vstar_x = 0.9 mu g dt from rest) */
  memset(s.v, 0, sizeof s.v);
  memset(s.x, 0, sizeof s.x);
  s.vstar[0] = 0.9 * mu * G * DT, s.vstar[1] = 0.0, s.vstar[2] = -G * DT;
  rc = solve(&s, NULL, &st);
  check(rc == DIAGC_OK && fabs(s.vnext[0]) <= 1e-16 && fabs(s.x[1] + 0.9 * mu * m * G * DT) <= 1e-15 &&
            fabs(s.x[1]) < mu * s.x[0],
        "contact.point_sticking", "rc %d v_x %.3g x_t %.17g x_n %.17g", rc, s.vnext[0], s.x[1], s.x[0]);
  /* just above the limit: slides with (1.1 - 1) mu g dt */
  s.vstar[0] = 1.1 * mu * G * DT;
  rc = solve(&s, NULL, &st);
  check(rc == DIAGC_OK && fabs(s.vnext[0] - 0.1 * mu * G * DT) <= 1e-15, "contact.point_push_above_limit_slides",
        "rc %d v_x %.17g want %.17g", rc, s.vnext[0], 0.1 * mu * G * DT);
  /* mu = 0: no tangent rows, no tangential impulse, no singularity */
  s.mu[0] = 0.0, s.x[1] = 5.0, s.x[2] = -5.0; /* a stale warm start */
  rc = solve(&s, NULL, &st);
  check(rc == DIAGC_OK && s.x[1] == 0.0 && s.x[2] == 0.0 && st.rows == 1 &&
            fabs(s.vnext[0] - 1.1 * mu * G * DT) <= 1e-16,
        "contact.frictionless_rows_dropped", "rc %d rows %d x_t %g %g", rc, st.rows, s.x[1], s.x[2]);
}

/* A point mass on an incline of 30 degrees (normal (-sin, 0, cos), t1 up
 * the slope (cos, 0, sin)), 1000 steps from rest: with mu = 0.3 < tan 30
 * it slides with a = g (sin - mu cos) (per step exactly: the velocity
 * along the slope after k steps is -k g dt (sin - mu cos)), and never
 * leaves the plane; with mu = 0.7 it sticks. */
static void test_incline(void) {
  scene s;
  double th = atan(1.0) * 4.0 / 6.0, sn = sin(th), cs = cos(th), m = 2.0, mus[2] = {0.3, 0.7};
  double n[3] = {-sn, 0, cs}, t1[3] = {cs, 0, sn};
  int im, step, i;
  for (im = 0; im < 2; im++) {
    double mu = mus[im], worst = 0.0, vn = 0.0, want;
    int bad = 0;
    diagc_contact_stats st;
    scene_init(&s, 3);
    for (i = 0; i < 3; i++) s.minv[i] = 1.0 / m;
    add_contact(&s, 0, 3, NULL, n, t1, EY, 0.0, mu, 0.0);
    finish_scene(&s);
    for (step = 1; step <= 1000; step++) {
      double vt;
      for (i = 0; i < 3; i++) s.vstar[i] = s.v[i];
      s.vstar[2] -= G * DT;
      if (solve(&s, NULL, &st) != DIAGC_OK) bad++;
      for (i = 0; i < 3; i++) s.v[i] = s.vnext[i];
      vt = s.v[0] * cs + s.v[2] * sn;
      want = mu < tan(th) ? -step * G * DT * (sn - mu * cs) : 0.0;
      if (fabs(vt - want) / (1.0 + fabs(want)) > worst) worst = fabs(vt - want) / (1.0 + fabs(want));
      if (fabs(-s.v[0] * sn + s.v[2] * cs) > vn) vn = fabs(-s.v[0] * sn + s.v[2] * cs);
    }
    check(bad == 0 && worst <= 1e-12 && vn <= 1e-12, im == 0 ? "contact.incline_slides" : "contact.incline_sticks",
          "%d not OK, relative v_t error %.3g, |v_n| %.3g", bad, worst, vn);
  }
}

/* Restitution: an impact at 2 m/s with e = 0.5 leaves at 1 m/s; an
 * approach slower than the bounce threshold is inelastic; a penetration
 * beyond the allowance is pushed out at erp (depth - allowance) / dt,
 * capped; a separated contact acts only if the step closes its gap. */
static void test_point_targets(void) {
  scene s;
  double m = 0.7;
  int i, rc;
  diagc_contact_options o;
  diagc_contact_stats st;
  diagc_contact_options_init(&o);
  scene_init(&s, 3);
  for (i = 0; i < 3; i++) s.minv[i] = 1.0 / m;
  add_contact(&s, 0, 3, NULL, EZ, EX, EY, 0.0, 0.4, 0.5);
  finish_scene(&s);
  s.v[2] = -2.0, s.vstar[2] = -2.0 - G * DT;
  rc = solve(&s, NULL, &st);
  check(rc == DIAGC_OK && fabs(s.vnext[2] - 1.0) <= 1e-15 && fabs(s.x[0] - m * (3.0 + G * DT)) <= 1e-14,
        "contact.restitution_e_v_in", "rc %d v_out %.17g x_n %.17g", rc, s.vnext[2], s.x[0]);
  /* sequential impacts: the bounce at the step's midpoint velocity
     u = -2 - g dt / 2 (x_n = m (1 + e) |u| = m (3 + 3 g dt / 4), leaving
     at e |u|), then the step's other half of gravity (the LCP finds the
     contact separating): v' = 1 - g dt / 4 */
  o.restitution_passes = 4;
  memset(s.x, 0, sizeof s.x);
  rc = solve(&s, &o, &st);
  check(rc == DIAGC_OK && fabs(s.vnext[2] - (1.0 - 0.25 * G * DT)) <= 1e-15 &&
            fabs(s.x[0] - m * (3.0 + 0.75 * G * DT)) <= 1e-14 &&
            st.impacts == 1 && st.impact_passes == 2,
        "contact.restitution_sequential", "rc %d v_out %.17g x_n %.17g impacts %d passes %d", rc, s.vnext[2],
        s.x[0], st.impacts, st.impact_passes);
  o.restitution_passes = 0;
  s.v[2] = -0.5 * o.bounce_threshold, s.vstar[2] = s.v[2] - G * DT;
  rc = solve(&s, NULL, &st);
  check(rc == DIAGC_OK && fabs(s.vnext[2]) <= 1e-16, "contact.restitution_below_threshold_inelastic",
        "rc %d v_out %.3g", rc, s.vnext[2]);
  s.e[0] = 0.0;
  s.v[2] = 0.0, s.vstar[2] = -G * DT;
  s.depth[0] = 2e-3; /* erp (2e-3 - 1e-4) / 1e-3 = 0.38 m/s */
  rc = solve(&s, &o, &st);
  check(rc == DIAGC_OK && fabs(s.vnext[2] - o.erp * (2e-3 - o.allowed_penetration) / DT) <= 1e-14,
        "contact.erp_correction", "rc %d v %.17g", rc, s.vnext[2]);
  s.depth[0] = 0.5; /* 99.98 m/s: capped at 1 m/s */
  rc = solve(&s, &o, &st);
  check(rc == DIAGC_OK && fabs(s.vnext[2] - o.max_correction_speed) <= 1e-14, "contact.erp_capped",
        "rc %d v %.17g", rc, s.vnext[2]);
  s.depth[0] = 0.5 * o.allowed_penetration;
  rc = solve(&s, &o, &st);
  check(rc == DIAGC_OK && fabs(s.vnext[2]) <= 1e-16, "contact.within_allowance_no_correction",
        "rc %d v %.3g", rc, s.vnext[2]);
  /* separated by 1 cm at 1 ms: approaching at 5 m/s does not close it */
  s.depth[0] = -0.01, s.v[2] = -5.0, s.vstar[2] = -5.0 - G * DT;
  memset(s.x, 0, sizeof s.x);
  rc = solve(&s, &o, &st);
  check(rc == DIAGC_OK && s.x[0] == 0.0 && s.vnext[2] == s.vstar[2], "contact.speculative_open",
        "rc %d x_n %g", rc, s.x[0]);
  /* at 20 m/s it would: the step ends touching (v = -gap / dt) */
  s.v[2] = -20.0, s.vstar[2] = -20.0 - G * DT;
  rc = solve(&s, &o, &st);
  check(rc == DIAGC_OK && fabs(s.vnext[2] + 10.0) <= 1e-13 && s.x[0] > 0, "contact.speculative_closing",
        "rc %d v %.17g", rc, s.vnext[2]);
}

/* A box (half extents a, b, c; nv = 6) on the plane: contacts at its 4
 * bottom corners, 4 bottom edge midpoints and the 4 corners again (12
 * contacts, 36 rows, A of rank 6): no NaN, total normal impulse m g dt,
 * at rest after the step; 10000 steps do not move it. */
static void test_box_redundant(void) {
  static scene s;
  double m = 3.0, a = 0.2, b = 0.1, c = 0.05, I[3], z = c, sumw = 0.0, drift = 0.0, worst = 0.0;
  double pts[12][3];
  int i, k, step, bad = 0, nan = 0;
  diagc_contact_stats st;
  diagc_contact_options o;
  scene_init(&s, 6);
  I[0] = m * (b * b + c * c) / 3.0, I[1] = m * (a * a + c * c) / 3.0, I[2] = m * (a * a + b * b) / 3.0;
  for (i = 0; i < 3; i++) s.minv[i] = 1.0 / m, s.minv[3 + i] = 1.0 / I[i];
  for (k = 0; k < 4; k++) {
    pts[k][0] = (k & 1) ? a : -a, pts[k][1] = (k & 2) ? b : -b, pts[k][2] = -c;
    pts[8 + k][0] = pts[k][0], pts[8 + k][1] = pts[k][1], pts[8 + k][2] = -c;
  }
  pts[4][0] = a, pts[4][1] = 0, pts[5][0] = -a, pts[5][1] = 0;
  pts[6][0] = 0, pts[6][1] = b, pts[7][0] = 0, pts[7][1] = -b;
  for (k = 4; k < 8; k++) pts[k][2] = -c;
  for (k = 0; k < 12; k++) add_contact(&s, 0, 6, pts[k], EZ, EX, EY, 0.0, 0.6, 0.0);
  finish_scene(&s);
  diagc_contact_options_init(&o);
  o.check = 1;
  for (step = 0; step < 10000; step++) {
    int rc;
    double sum = 0.0;
    for (k = 0; k < 12; k++) s.depth[k] = c - z;
    for (i = 0; i < 6; i++) s.vstar[i] = s.v[i];
    s.vstar[2] -= G * DT;
    rc = solve(&s, &o, &st);
    if (!all_finite(s.x, 36) || !all_finite(s.vnext, 6)) nan++;
    if (rc != DIAGC_OK) bad++;
    for (k = 0; k < 12; k++) sum += s.x[3 * k];
    if (fabs(sum - m * G * DT) / (m * G * DT) > worst) worst = fabs(sum - m * G * DT) / (m * G * DT);
    sumw = 0.0;
    for (i = 3; i < 6; i++) sumw += fabs(s.vnext[i]);
    for (i = 0; i < 6; i++) s.v[i] = s.vnext[i];
    z += DT * s.v[2];
    if (fabs(z - c) > drift) drift = fabs(z - c);
  }
  check(nan == 0 && bad == 0, "contact.box_redundant_no_nan", "%d steps with NaN, %d not OK", nan, bad);
  check(worst <= 1e-9, "contact.box_redundant_total_impulse", "worst relative error %.3g", worst);
  check(drift < 1e-6 && sumw <= 1e-12, "contact.box_redundant_drift", "drift %.3g m, |w| %.3g", drift, sumw);
  check(st.checked == 1 && st.check_violation <= 1e-9 && st.islands == 1 && st.largest == 36,
        "contact.box_redundant_checked", "checked %d violation %.3g islands %d largest %d", st.checked,
        st.check_violation, st.islands, st.largest);
}

/* Random scenes of free bodies (6 dof, diagonal M^-1), contacts on one body
 * (against the world) or two, frictionless (the velocities are then
 * unique): the islands' solve equals the joint one (tree = NULL). */
static void random_scene(scene *s, int nb, int nc, double mu, unsigned long long seed) {
  uint64_t r = seed * 0x9E3779B97F4A7C15ull + 7;
  int k, i;
  scene_init(s, 6 * nb);
  for (i = 0; i < nb; i++) {
    double mm = lcpg_range(&r, 0.5, 2.0);
    int d;
    for (d = 0; d < 3; d++) s->minv[6 * i + d] = 1.0 / mm;
    for (d = 3; d < 6; d++) s->minv[6 * i + d] = 1.0 / (mm * lcpg_range(&r, 0.05, 0.3));
    for (d = 0; d < 6; d++) s->vstar[6 * i + d] = s->v[6 * i + d] = lcpg_range(&r, -1, 1);
  }
  for (k = 0; k < nc; k++) {
    double n[3], t1[3], t2[3], tmp[3], rr[3], q;
    int b0 = (int)(lcpg_next(&r) % (uint64_t)nb), d, j;
    lcpg_unit(&r, n);
    tmp[0] = fabs(n[0]) < 0.6 ? 1.0 : 0.0, tmp[1] = 1.0 - tmp[0], tmp[2] = 0.0;
    lcpg_cross(n, tmp, t1);
    q = sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
    for (d = 0; d < 3; d++) t1[d] /= q;
    lcpg_cross(n, t1, t2);
    for (d = 0; d < 3; d++) rr[d] = lcpg_range(&r, -0.5, 0.5);
    add_contact(s, b0, 6, rr, n, t1, t2, lcpg_range(&r, -1e-3, 1e-3), mu, 0.0);
    if (nb > 1 && lcpg_unif(&r) < 0.3) { /* a second body: minus its rows */
      int b1 = (b0 + 1 + (int)(lcpg_next(&r) % (uint64_t)(nb - 1))) % nb;
      const double *dirs[3];
      dirs[0] = n, dirs[1] = t1, dirs[2] = t2;
      for (d = 0; d < 3; d++) rr[d] = lcpg_range(&r, -0.5, 0.5);
      for (j = 0; j < 3; j++) {
        double *row = s->J + (size_t)(3 * k + j) * s->nv + 6 * b1, cr[3];
        lcpg_cross(rr, dirs[j], cr);
        for (d = 0; d < 3; d++) row[d] -= dirs[j][d], row[3 + d] -= cr[d];
      }
      s->tree[2 * k + 1] = b1;
    }
  }
  finish_scene(s);
}

static void test_islands(void) {
  static scene s, t;
  diagc_contact_stats st, st2;
  int seed, bad = 0, nisl = 0, rc1, rc2, i, k;
  double worst = 0.0;
  for (seed = 0; seed < 20; seed++) {
    diagc_contact_problem p;
    random_scene(&s, 6, 10, 0.0, (unsigned long long)seed);
    t = s;
    rc1 = solve(&s, NULL, &st);
    problem_of(&t, &p);
    p.tree = NULL; /* one joint LCP */
    rc2 = diagc_contact_solve(&p, NULL, t.x, t.vnext, ws, sizeof ws, &st2);
    if (rc1 != DIAGC_OK || rc2 != DIAGC_OK || st2.islands != 1) bad++;
    if (st.islands > 1) nisl++;
    for (i = 0; i < s.nv; i++)
      if (fabs(s.vnext[i] - t.vnext[i]) > worst) worst = fabs(s.vnext[i] - t.vnext[i]);
  }
  check(bad == 0 && nisl >= 10 && worst <= 1e-12, "contact.islands_equal_joint_solve",
        "%d bad, %d of 20 scenes with several islands, worst |dv| %.3g", bad, nisl, worst);
  /* two point masses resting with friction (trees 0 and 1): two islands,
     each m g dt; a contact between them joins them into one */
  scene_init(&s, 6);
  for (i = 0; i < 3; i++) s.minv[i] = 1.0, s.minv[3 + i] = 0.5;
  add_contact(&s, 0, 3, NULL, EZ, EX, EY, 0.0, 0.5, 0.0);
  add_contact(&s, 1, 3, NULL, EZ, EX, EY, 0.0, 0.5, 0.0);
  finish_scene(&s);
  s.vstar[2] = s.vstar[5] = -G * DT;
  s.vstar[0] = 0.2; /* body 0 slides */
  rc1 = solve(&s, NULL, &st);
  check(rc1 == DIAGC_OK && st.islands == 2 && st.largest == 3 && fabs(s.x[0] - G * DT) <= 1e-15 &&
            fabs(s.x[3] - 2.0 * G * DT) <= 1e-15 && fabs(s.x[1] + 0.5 * G * DT) <= 1e-15,
        "contact.two_islands", "rc %d islands %d x_n %.17g %.17g", rc1, st.islands, s.x[0], s.x[3]);
  t = s;
  t.tree[1] = 1; /* contact 0 now also touches tree 1 */
  memset(t.x, 0, sizeof t.x);
  rc2 = solve(&t, NULL, &st2);
  check(rc2 == DIAGC_OK && st2.islands == 1 && st2.largest == 6 && fabs(t.x[0] - s.x[0]) <= 1e-15,
        "contact.shared_tree_one_island", "rc %d islands %d", rc2, st2.islands);
  /* the world (-1 on both sides of every contact) couples nothing */
  for (k = 0; k < 2; k++) t.tree[2 * k] = t.tree[2 * k + 1] = -1;
  rc2 = solve(&t, NULL, &st2);
  check(rc2 == DIAGC_OK && st2.islands == 2, "contact.world_couples_nothing", "islands %d", st2.islands);
}

/* Warm start: from the previous answer the same impulses (bitwise equal
 * velocities for a unique solution), from a wrong guess the same too. */
static void test_warm_start(void) {
  static scene s;
  double x0[3 * MAXC], v0[MAXV], worst = 0.0, worstx = 0.0;
  diagc_contact_stats st, st2;
  int rc, i, seed, bad = 0;
  for (seed = 0; seed < 10; seed++) {
    random_scene(&s, 4, 8, 0.5, 100u + (unsigned)seed);
    rc = solve(&s, NULL, &st);
    memcpy(x0, s.x, sizeof x0);
    memcpy(v0, s.vnext, sizeof v0);
    if (rc != DIAGC_OK) bad++;
    rc = solve(&s, NULL, &st2); /* warm: from its own answer */
    if (rc != DIAGC_OK) bad++;
    for (i = 0; i < 3 * s.nc; i++)
      if (fabs(s.x[i] - x0[i]) > worstx) worstx = fabs(s.x[i] - x0[i]);
    for (i = 0; i < 3 * s.nc; i++) s.x[i] = (i % 3 == 0) ? 1.0 : -0.3; /* wrong guess */
    rc = solve(&s, NULL, &st2);
    if (rc != DIAGC_OK) bad++;
    for (i = 0; i < s.nv; i++)
      if (fabs(s.vnext[i] - v0[i]) > worst) worst = fabs(s.vnext[i] - v0[i]);
  }
  check(bad == 0 && worstx <= 1e-12, "contact.warm_start_same_answer", "%d not OK, |dx| %.3g", bad, worstx);
  check(worst <= 1e-9, "contact.warm_start_wrong_guess", "|dv| %.3g", worst);
}

/* Newton's cradle: 5 balls of radius 0.05 in a row on a line (nv = 5),
 * touching, the first struck at 1 m/s toward the others, e = 1, no
 * gravity.  Contact k joins balls k and k + 1 (normal from k to k + 1:
 * J_n = e_{k+1} - e_k), contacts listed in order or reversed.
 * Simultaneous restitution (the default) conserves momentum and energy
 * but sends the row off together; the sequential impact phase hands the
 * velocity on: the last ball leaves at 1 m/s, the others stop. */
static double cradle(int passes, int reversed, double *vfinal, double *dp, double *de) {
  static scene s;
  diagc_contact_options o;
  diagc_contact_stats st;
  double pos[5], r = 0.05, p0 = 1.0, e0 = 0.5;
  int k, i, step, worst_rc = 0;
  diagc_contact_options_init(&o);
  o.restitution_passes = passes;
  scene_init(&s, 5);
  for (i = 0; i < 5; i++) s.minv[i] = 1.0, pos[i] = 2.0 * r * i;
  for (k = 0; k < 4; k++) {
    int c = reversed ? 3 - k : k, row = 3 * k;
    s.J[(size_t)row * 5 + c + 1] = 1.0, s.J[(size_t)row * 5 + c] = -1.0;
    s.J[(size_t)(row + 1) * 5 + c + 1] = 0.0; /* tangents: none (mu = 0) */
    s.mu[k] = 0.0, s.e[k] = 1.0, s.tree[2 * k] = c + 1, s.tree[2 * k + 1] = c;
  }
  s.nc = 4;
  finish_scene(&s);
  s.v[0] = 1.0;
  *dp = *de = 0.0;
  for (step = 0; step < 1000; step++) { /* 1 s */
    double P = 0.0, E = 0.0;
    int rc;
    for (k = 0; k < 4; k++) {
      int c = reversed ? 3 - k : k;
      s.depth[k] = 2.0 * r - (pos[c + 1] - pos[c]);
    }
    for (i = 0; i < 5; i++) s.vstar[i] = s.v[i];
    rc = solve(&s, &o, &st);
    if (rc != DIAGC_OK) worst_rc = rc;
    for (i = 0; i < 5; i++) {
      s.v[i] = s.vnext[i];
      pos[i] += DT * s.v[i];
      P += s.v[i];
      E += 0.5 * s.v[i] * s.v[i];
    }
    if (fabs(P - p0) > *dp) *dp = fabs(P - p0);
    if (fabs(E - e0) / e0 > *de) *de = fabs(E - e0) / e0;
  }
  for (i = 0; i < 5; i++) vfinal[i] = s.v[i];
  return worst_rc;
}

static void test_cradle(void) {
  double v[5], dp, de;
  int rc, rev;
  rc = (int)cradle(0, 0, v, &dp, &de);
  check(rc == DIAGC_OK && dp <= 1e-9 && de <= 1e-9 && fabs(v[0] + 0.6) <= 1e-9 && fabs(v[4] - 0.4) <= 1e-9,
        "contact.cradle_simultaneous_wrong_propagation", "rc %d dp %.3g dE %.3g v0 %.17g v4 %.17g", rc, dp, de,
        v[0], v[4]);
  for (rev = 0; rev < 2; rev++) {
    rc = (int)cradle(8, rev, v, &dp, &de);
    /* (the balls at rest: within the LCP's tol, warm-started from the
       impacts' impulses) */
    check(rc == DIAGC_OK && dp <= 1e-9 && de <= 1e-9 && fabs(v[4] - 1.0) <= 1e-9 && fabs(v[0]) <= 1e-9 &&
              fabs(v[1]) <= 1e-9 && fabs(v[2]) <= 1e-9 && fabs(v[3]) <= 1e-9,
          rev ? "contact.cradle_sequential_reversed_order" : "contact.cradle_sequential",
          "rc %d dp %.3g dE %.3g v = %.3g %.3g %.3g %.3g %.17g", rc, dp, de, v[0], v[1], v[2], v[3], v[4]);
  }
  /* too few passes for the reversed order (each pass moves the impulse
     one ball on): the rest is simultaneous, still conservative */
  rc = (int)cradle(2, 1, v, &dp, &de);
  check(rc == DIAGC_OK && dp <= 1e-9 && !(fabs(v[4] - 1.0) <= 1e-6), "contact.cradle_passes_bound",
        "rc %d v4 %.17g", rc, v[4]);
}

/* ------------------------------------------------------------------------ */
/* The work budget. */

/* The benchmark's degenerate n = 150 problem (bench/lcp: 50 contacts on 13
 * bodies, mu = 100, problem 5): Lemke's method reaches it after some
 * 34000 units of work (0.35 s of CPU at -O2) without a budget. */
static int degenerate_150(lcpg_problem *g, lcpg_scene *sc) {
  lcpg_spec sp;
  memset(&sp, 0, sizeof sp);
  sp.nc = 50, sp.nb = 13, sp.mu = 100.0, sp.scene = sc;
  return lcpg_make(g, &sp, 1000003ull * 150 + 5);
}

/* One contact step of the scene of g (all contacts touching, mu of g,
 * one island) with the given step budget (0: the default) and check on:
 * 0 when its work is within *w_bound multiply-adds and the outcome is
 * consistent (solved; or DIAGC_LCP_BUDGET with the flag, a finite step and
 * the residual the check computed, then ++*hits); 1 over the bound; 2 a
 * bad outcome. */
static int budget_step(const lcpg_problem *g, const lcpg_scene *sc, double budget, const double *w_bound,
                       int *hits) {
  int nv = sc->ndof, n = g->n, nc = g->nc, c, i, rc, res = 0;
  double *MinvJT = malloc(sizeof(double) * (size_t)nv * n), *xs = calloc((size_t)n, sizeof(double));
  double *vn = malloc(sizeof(double) * (size_t)nv), *dep = calloc((size_t)nc, sizeof(double));
  double *mu = malloc(sizeof(double) * (size_t)nc), *v0 = calloc((size_t)nv, sizeof(double));
  size_t cws = diagc_contact_workspace_size(nv, nc);
  void *cw = malloc(cws);
  diagc_contact_problem p;
  diagc_contact_options co;
  diagc_contact_stats cs;
  if (!MinvJT || !xs || !vn || !dep || !mu || !v0 || !cw) {
    res = 2;
    goto out;
  }
  for (i = 0; i < nv; i++)
    for (c = 0; c < n; c++) MinvJT[(size_t)i * n + c] = sc->minv[i] * sc->J[(size_t)c * nv + i];
  for (c = 0; c < nc; c++) mu[c] = g->hi[3 * c + 1];
  memset(&p, 0, sizeof p);
  /* v = 0: nothing slid at the start of the step, so no contact is held
     (contact_friction.c) and the step is one LCP */
  p.nv = nv, p.nc = nc, p.J = sc->J, p.MinvJT = MinvJT, p.v = v0, p.vstar = sc->vstar;
  p.depth = dep, p.mu = mu, p.dt = DT; /* no tags: one island */
  diagc_contact_options_init(&co);
  co.check = 1;
  co.lcp.work_budget = budget;
  rc = diagc_contact_solve(&p, &co, xs, vn, cw, cws, &cs);
  if (!(cs.work <= *w_bound)) res = 1;
  else if (!all_finite(xs, n) || !all_finite(vn, nv) || cs.islands != 1 || cs.largest != n ||
           cs.residual != cs.check_violation)
    res = 2;
  else if (rc == DIAGC_LCP_BUDGET) {
    if (cs.budget_hit != 1 || cs.inexact != 1 || !(cs.residual > co.lcp.accept_tol)) res = 2;
    ++*hits;
  } else if (rc != DIAGC_OK && rc != DIAGC_LCP_SOLVED_TOL)
    res = 2;
  printf("  step: budget %g: rc %d, work %.0f units of n^2, residual %.3g\n", budget, rc,
         cs.work / ((double)n * n), cs.residual);
out:
  free(MinvJT), free(xs), free(vn), free(dep), free(mu), free(v0), free(cw);
  return res;
}

static void test_lcp_budget(void) {
  lcpg_problem g;
  static const int methods[] = {DIAGC_LCP_AUTO, DIAGC_LCP_PIVOT, DIAGC_LCP_PGS, DIAGC_LCP_COUPLED};
  static const char *mname[] = {"auto", "pivot", "pgs", "coupled"};
  size_t wsz = diagc_lcp_workspace_size(150);
  unsigned char *lws = malloc(wsz);
  double x[150], v0, bud = diagc_lcp_work_budget(150, 0.0);
  int mi, rc, i;
  diagc_lcp_options o;
  diagc_lcp_stats st;
  char name[96];
  lcpg_scene sc;
  if (!lws || degenerate_150(&g, &sc) != 0) {
    check(0, "lcp_budget.setup", "out of memory");
    free(lws);
    return;
  }
  check(bud == 450.0 && diagc_lcp_work_budget(300, 0) == 900.0 &&
            diagc_lcp_work_budget(10, -1) == INFINITY && diagc_lcp_work_budget(10, 7.0) == 7.0,
        "lcp_budget.default", "n = 150: %g units", bud);
  memset(x, 0, sizeof x);
  v0 = diagc_lcp_violation(150, g.A, g.b, g.lo, g.hi, g.findex, x);
  for (mi = 0; mi < 4; mi++) {
    diagc_lcp_options_init(&o, lws, wsz);
    o.method = methods[mi];
    memset(x, 0, sizeof x);
    rc = diagc_lcp_solve(150, g.A, g.b, g.lo, g.hi, g.findex, x, &o, &st);
    snprintf(name, sizeof name, "lcp_budget.degenerate_n150_%s_default", mname[mi]);
    check(rc == DIAGC_LCP_BUDGET && st.budget_hit == 1 && st.work <= bud + 150 / 3 + 17 && all_finite(x, 150) &&
              st.violation == diagc_lcp_violation(150, g.A, g.b, g.lo, g.hi, g.findex, x) &&
              st.violation <= v0,
          name, "rc %d hit %d work %.1f (budget %.1f) violation %.3g (x = 0: %.3g)", rc, st.budget_hit, st.work,
          bud, st.violation, v0);
    /* a small explicit budget, from a warm start */
    for (i = 0; i < 150; i++) x[i] = i % 3 == 0 ? 0.01 : 0.0;
    o.work_budget = 40.0;
    rc = diagc_lcp_solve(150, g.A, g.b, g.lo, g.hi, g.findex, x, &o, &st);
    snprintf(name, sizeof name, "lcp_budget.degenerate_n150_%s_40_units", mname[mi]);
    check(rc == DIAGC_LCP_BUDGET && st.work <= 40.0 + 150 / 3 + 17 && all_finite(x, 150), name,
          "rc %d work %.1f", rc, st.work);
  }
  /* unlimited: the AUTO path solves it (the budget cut something real) */
  diagc_lcp_options_init(&o, lws, wsz);
  o.work_budget = -1.0;
  memset(x, 0, sizeof x);
  rc = diagc_lcp_solve(150, g.A, g.b, g.lo, g.hi, g.findex, x, &o, &st);
  check(rc == DIAGC_OK && st.budget_hit == 0 && st.work > 10 * bud, "lcp_budget.degenerate_n150_unlimited",
        "rc %d work %.1f", rc, st.work);
  diagc_lcp_options_init(&o, lws, wsz);
  o.work_budget = NAN;
  rc = diagc_lcp_solve(150, g.A, g.b, g.lo, g.hi, g.findex, x, &o, &st);
  check(rc == DIAGC_LCP_E_ARG, "lcp_budget.nan_rejected", "rc %d", rc);
  lcpg_free(&g);
  lcpg_scene_free(&sc);
  /* the same kind of scene as contact steps (J, M^-1 J^T of the scene;
     the step's A is the same up to round-off, which can change the
     pivoting path): bench problems 5, 11, 29 (mu = 100, 13 bodies) */
  {
    static const int ks[] = {5, 11, 29};
    int hits = 0, bad = 0, ki;
    for (ki = 0; ki < 3; ki++) {
      double w_bound = (bud + 150 / 3 + 17) * 150.0 * 150.0;
      lcpg_spec sp;
      memset(&sp, 0, sizeof sp);
      sp.nc = 50, sp.nb = 13, sp.mu = 100.0, sp.scene = &sc;
      if (lcpg_make(&g, &sp, 1000003ull * 150 + (unsigned long long)ks[ki]) != 0) {
        bad++;
        continue;
      }
      rc = budget_step(&g, &sc, 0.0, &w_bound, &hits);
      if (rc != 0) {
        printf("  problem %d: %s\n", ks[ki], rc == 1 ? "over its budget" : "bad outcome");
        bad++;
      }
      w_bound = (100.0 + 150 / 3 + 17) * 150.0 * 150.0;
      rc = budget_step(&g, &sc, 100.0, &w_bound, &hits);
      if (rc != 0 || hits < 1) bad++;
      lcpg_free(&g);
      lcpg_scene_free(&sc);
    }
    /* two copies of problem 29 as two islands (trees 0 and 1): the step's
       budget (N = 300 rows; a quarter of the default, which the problem in
       its turned friction frames does not exhaust) bounds both together,
       each gets its share */
    {
      lcpg_spec sp;
      memset(&sp, 0, sizeof sp);
      sp.nc = 50, sp.nb = 13, sp.mu = 100.0, sp.scene = &sc;
      if (lcpg_make(&g, &sp, 1000003ull * 150 + 29) == 0) {
        int nv = 2 * sc.ndof, n2 = 300, c, j;
        double *J2 = calloc((size_t)n2 * nv, sizeof(double)), *M2 = calloc((size_t)nv * n2, sizeof(double));
        double *x2 = calloc((size_t)n2, sizeof(double)), *v2 = calloc((size_t)nv, sizeof(double));
        double *z2 = calloc((size_t)nv, sizeof(double)); /* v = 0: nothing held */
        double *vn2 = malloc(sizeof(double) * (size_t)nv), dep2[100], mu2[100];
        int tree2[200];
        size_t cws = diagc_contact_workspace_size(nv, 100);
        void *cw = malloc(cws);
        diagc_contact_problem p2;
        diagc_contact_options co;
        diagc_contact_stats cs;
        double units = diagc_lcp_work_budget(300, 0) / 4.0;
        double step_bound = (units + 2 * (150 / 3 + 17)) * 300.0 * 300.0;
        for (j = 0; j < 2; j++) {
          for (c = 0; c < 150; c++)
            for (i = 0; i < sc.ndof; i++) {
              J2[(size_t)(150 * j + c) * nv + j * sc.ndof + i] = sc.J[(size_t)c * sc.ndof + i];
              M2[(size_t)(j * sc.ndof + i) * n2 + 150 * j + c] = sc.minv[i] * sc.J[(size_t)c * sc.ndof + i];
            }
          for (i = 0; i < sc.ndof; i++) v2[j * sc.ndof + i] = sc.vstar[i];
          for (c = 0; c < 50; c++)
            dep2[50 * j + c] = 0.0, mu2[50 * j + c] = 100.0, tree2[2 * (50 * j + c)] = j,
                        tree2[2 * (50 * j + c) + 1] = -1;
        }
        memset(&p2, 0, sizeof p2);
        p2.nv = nv, p2.nc = 100, p2.J = J2, p2.MinvJT = M2, p2.v = z2, p2.vstar = v2;
        p2.depth = dep2, p2.mu = mu2, p2.tree = tree2, p2.dt = DT;
        diagc_contact_options_init(&co);
        co.lcp.work_budget = units;
        rc = diagc_contact_solve(&p2, &co, x2, vn2, cw, cws, &cs);
        check(rc == DIAGC_LCP_BUDGET && cs.islands == 2 && cs.largest == 150 && cs.work <= step_bound &&
                  cs.inexact == 2 && all_finite(x2, n2) && all_finite(vn2, nv),
              "contact.budget_shared_by_islands", "rc %d islands %d inexact %d work %.3g (bound %.3g)", rc,
              cs.islands, cs.inexact, cs.work, step_bound);
        free(J2), free(M2), free(x2), free(v2), free(z2), free(vn2), free(cw);
        lcpg_free(&g);
        lcpg_scene_free(&sc);
      }
    }
    check(bad == 0 && hits >= 4, "contact.budget_degenerate_n150",
          "%d bad outcomes, %d budget hits (3 with 100 units, at least 1 with the default)", bad, hits);
  }
  free(lws);
}

/* ------------------------------------------------------------------------ */
/* Status paths. */

static void test_statuses(void) {
  static scene s;
  diagc_contact_problem p;
  diagc_contact_options o;
  diagc_contact_stats st;
  double keep;
  int rc, i;
  (void)keep;
  scene_init(&s, 3);
  for (i = 0; i < 3; i++) s.minv[i] = 1.0;
  add_contact(&s, 0, 3, NULL, EZ, EX, EY, 0.0, 0.5, 0.0);
  add_contact(&s, 0, 3, NULL, EZ, EY, EX, 0.0, 0.5, 0.0); /* the same point again */
  finish_scene(&s);
  s.vstar[0] = 0.3, s.vstar[2] = -G * DT;
  problem_of(&s, &p);
#define EXPECT(name, call, want)                                                        \
  do {                                                                                  \
    rc = (call);                                                                        \
    check(rc == (want), "contact.status_" name, "rc %d (%s), want %d", rc,              \
          diagc_status_name(rc) ? diagc_status_name(rc) : "?", (int)(want));            \
  } while (0)
  EXPECT("ok", diagc_contact_solve(&p, NULL, s.x, s.vnext, ws, sizeof ws, &st), DIAGC_OK);
  EXPECT("null_problem", diagc_contact_solve(NULL, NULL, s.x, s.vnext, ws, sizeof ws, &st), DIAGC_CONTACT_E_ARG);
  EXPECT("null_x", diagc_contact_solve(&p, NULL, NULL, s.vnext, ws, sizeof ws, &st), DIAGC_CONTACT_E_ARG);
  EXPECT("null_vnext", diagc_contact_solve(&p, NULL, s.x, NULL, ws, sizeof ws, &st), DIAGC_CONTACT_E_ARG);
  p.dt = 0.0;
  EXPECT("dt_zero", diagc_contact_solve(&p, NULL, s.x, s.vnext, ws, sizeof ws, &st), DIAGC_CONTACT_E_ARG);
  p.dt = DT;
  keep = s.J[4], s.J[4] = NAN;
  EXPECT("nan_in_J", diagc_contact_solve(&p, NULL, s.x, s.vnext, ws, sizeof ws, &st), DIAGC_CONTACT_E_ARG);
  s.J[4] = keep;
  s.mu[1] = -0.1;
  EXPECT("negative_mu", diagc_contact_solve(&p, NULL, s.x, s.vnext, ws, sizeof ws, &st), DIAGC_CONTACT_E_ARG);
  s.mu[1] = 0.5, s.e[0] = 1.5;
  EXPECT("restitution_above_1", diagc_contact_solve(&p, NULL, s.x, s.vnext, ws, sizeof ws, &st),
         DIAGC_CONTACT_E_ARG);
  s.e[0] = 0.0, s.tree[1] = -2;
  EXPECT("bad_tag", diagc_contact_solve(&p, NULL, s.x, s.vnext, ws, sizeof ws, &st), DIAGC_CONTACT_E_ARG);
  s.tree[1] = -1;
  diagc_contact_options_init(&o);
  o.erp = 1.5;
  EXPECT("bad_erp", diagc_contact_solve(&p, &o, s.x, s.vnext, ws, sizeof ws, &st), DIAGC_CONTACT_E_ARG);
  diagc_contact_options_init(&o);
  o.restitution_passes = -1;
  EXPECT("bad_passes", diagc_contact_solve(&p, &o, s.x, s.vnext, ws, sizeof ws, &st), DIAGC_CONTACT_E_ARG);
  diagc_contact_options_init(&o);
  o.lcp.method = 99;
  EXPECT("bad_method", diagc_contact_solve(&p, &o, s.x, s.vnext, ws, sizeof ws, &st), DIAGC_CONTACT_E_ARG);
  EXPECT("no_workspace", diagc_contact_solve(&p, NULL, s.x, s.vnext, NULL, sizeof ws, &st),
         DIAGC_CONTACT_E_WORKSPACE);
  EXPECT("small_workspace",
         diagc_contact_solve(&p, NULL, s.x, s.vnext, ws, diagc_contact_workspace_size(3, 2) - 1, &st),
         DIAGC_CONTACT_E_WORKSPACE);
  EXPECT("exact_workspace",
         diagc_contact_solve(&p, NULL, s.x, s.vnext, ws, diagc_contact_workspace_size(3, 2), &st), DIAGC_OK);
  /* overflow: A = J M^-1 J^T is not finite: zero impulses */
  for (i = 0; i < 18; i++) s.MinvJT[i] *= 1e300, s.J[i] *= 1e300;
  s.x[0] = 1.0;
  EXPECT("numeric", diagc_contact_solve(&p, NULL, s.x, s.vnext, ws, sizeof ws, &st), DIAGC_CONTACT_E_NUMERIC);
  check(s.x[0] == 0.0 && s.vnext[0] == s.vstar[0] && s.vnext[2] == s.vstar[2], "contact.numeric_zero_impulses",
        "x %g", s.x[0]);
  /* no contacts: v_next = v* */
  p.nc = 0;
  s.vnext[0] = 99.0;
  EXPECT("no_contacts", diagc_contact_solve(&p, NULL, NULL, s.vnext, ws, sizeof ws, &st), DIAGC_OK);
  check(s.vnext[0] == s.vstar[0] && st.islands == 0, "contact.no_contacts_vstar", "v %g", s.vnext[0]);
  /* a random scene (several islands): PGS for 2 sweeps is above tol = 0,
     within accept_tol = 1e3 */
  random_scene(&s, 4, 8, 0.5, 7);
  problem_of(&s, &p);
  diagc_contact_options_init(&o);
  o.lcp.method = DIAGC_LCP_PGS, o.lcp.max_pgs_iter = 2, o.lcp.tol = 0.0, o.lcp.accept_tol = 1e3;
  EXPECT("solved_tol", diagc_contact_solve(&p, &o, s.x, s.vnext, ws, sizeof ws, &st), DIAGC_LCP_SOLVED_TOL);
  /* ... and above accept_tol (unsolved, not for lack of work): inexact */
  o.lcp.accept_tol = 0.0, o.lcp.work_budget = -1.0;
  memset(s.x, 0, sizeof s.x);
  EXPECT("inexact", diagc_contact_solve(&p, &o, s.x, s.vnext, ws, sizeof ws, &st), DIAGC_CONTACT_INEXACT);
  check(st.inexact >= 1 && st.residual > 0 && all_finite(s.x, 24), "contact.inexact_stats", "inexact %d",
        st.inexact);
  /* the check: a solve accepted at tol 1e3 that is above accept_tol
     1e-300 when scored again */
  o.lcp.tol = 1e3, o.lcp.accept_tol = 1e-300, o.check = 1;
  memset(s.x, 0, sizeof s.x);
  EXPECT("check", diagc_contact_solve(&p, &o, s.x, s.vnext, ws, sizeof ws, &st), DIAGC_CONTACT_E_CHECK);
  check(st.checked == st.islands && st.check_violation > 1e-300 && all_finite(s.vnext, 3), "contact.check_stats",
        "checked %d violation %.3g", st.checked, st.check_violation);
  /* budget: one unit for the step */
  diagc_contact_options_init(&o);
  o.lcp.work_budget = 1e-9;
  memset(s.x, 0, sizeof s.x);
  EXPECT("budget", diagc_contact_solve(&p, &o, s.x, s.vnext, ws, sizeof ws, &st), DIAGC_LCP_BUDGET);
  check(st.budget_hit == 1 && all_finite(s.x, 24) && all_finite(s.vnext, 24), "contact.budget_stats",
        "hit %d", st.budget_hit);
  check(diagc_contact_workspace_size(-1, 2) == 0 && diagc_contact_workspace_size(3, -1) == 0,
        "contact.workspace_size_bad_args", "not 0");
#undef EXPECT
}

/* Coulomb's cone (isotropic friction: the frames turned along the
 * sliding velocity at v*), on a point mass with the default tangents x, y,
 * in every direction phi of the tangent plane:
 *   sliding at 1 m/s along phi: the friction impulse is mu m g dt exactly
 *   against the motion (a friction box would give up to sqrt 2 of it off
 *   the axes, and turn the velocity toward a diagonal);
 *   a push from rest of f mu m g dt along phi sticks for f = 0.95 and
 *   slides with (f - 1) mu g dt for f = 1.05 (the stick limit is mu in
 *   every direction);
 * and a box (6 dof, four corner contacts: redundant) sliding along the
 * diagonal of its default tangents: its centre slows by mu g dt along the
 * motion and does not turn, every corner's friction inside its cone; and
 * a sliding box that also spins about the normal (its corners slide in
 * different directions) stops both: it does not creep. */
static void test_isotropic_friction(void) {
  static scene s, b;
  const double m = 1.5, mu = 0.3, pi = 3.14159265358979323846;
  const double phis[6] = {0.0, 22.5, 45.0, 67.5, 150.0, 247.5};
  double err_slide = 0.0, err_stick = 0.0, err_over = 0.0, I[3];
  int i, k, step, outside = 0, bad = 0;
  diagc_contact_stats st;
  diagc_contact_options o;
  diagc_contact_options_init(&o);
  o.check = 1;
  scene_init(&s, 3);
  for (i = 0; i < 3; i++) s.minv[i] = 1.0 / m;
  add_contact(&s, 0, 3, NULL, EZ, EX, EY, 0.0, mu, 0.0);
  finish_scene(&s);
  for (k = 0; k < 6; k++) {
    double c = cos(phis[k] * pi / 180.0), sn = sin(phis[k] * pi / 180.0), f;
    int j;
    memset(s.x, 0, sizeof s.x);
    s.v[0] = c, s.v[1] = sn, s.v[2] = 0.0;
    s.vstar[0] = c, s.vstar[1] = sn, s.vstar[2] = -G * DT;
    if (solve(&s, &o, &st) != DIAGC_OK) bad++;
    outside += st.friction_outside;
    f = fmax(fabs(s.x[1] + mu * m * G * DT * c), fabs(s.x[2] + mu * m * G * DT * sn)) / (mu * m * G * DT);
    if (f > err_slide) err_slide = f;
    for (j = 0; j < 2; j++) { /* pushes from rest: below and above the limit */
      double push = j == 0 ? 0.95 : 1.05;
      memset(s.x, 0, sizeof s.x);
      memset(s.v, 0, sizeof s.v);
      s.vstar[0] = push * mu * G * DT * c, s.vstar[1] = push * mu * G * DT * sn, s.vstar[2] = -G * DT;
      if (solve(&s, &o, &st) != DIAGC_OK) bad++;
      outside += st.friction_outside;
      if (j == 0) {
        f = hypot(s.vnext[0], s.vnext[1]) / (G * DT);
        if (f > err_stick) err_stick = f;
      } else {
        f = fmax(fabs(s.vnext[0] - 0.05 * mu * G * DT * c), fabs(s.vnext[1] - 0.05 * mu * G * DT * sn)) / (G * DT);
        if (f > err_over) err_over = f;
      }
    }
  }
  check(bad == 0 && outside == 0, "contact.coulomb_status", "%d not OK, %d outside the cone", bad, outside);
  check(err_slide <= 1e-14, "contact.coulomb_sliding_every_direction", "friction off by %.3g of mu m g dt",
        err_slide);
  check(err_stick <= 1e-14 && err_over <= 1e-14, "contact.coulomb_stick_limit_every_direction",
        "below the limit |v'| %.3g g dt, above off by %.3g g dt", err_stick, err_over);

  /* the box: 0.4 x 0.2 x 0.1, corners at z = -c */
  {
    double a = 0.2, bb = 0.1, c = 0.05, pts[4][3], w = 0.0, want, perr = 0.0;
    int turned = 0;
    scene_init(&b, 6);
    I[0] = m * (bb * bb + c * c) / 3.0, I[1] = m * (a * a + c * c) / 3.0, I[2] = m * (a * a + bb * bb) / 3.0;
    for (i = 0; i < 3; i++) b.minv[i] = 1.0 / m, b.minv[3 + i] = 1.0 / I[i];
    for (k = 0; k < 4; k++) {
      pts[k][0] = (k & 1) ? a : -a, pts[k][1] = (k & 2) ? bb : -bb, pts[k][2] = -c;
      add_contact(&b, 0, 6, pts[k], EZ, EX, EY, 0.0, mu, 0.0);
    }
    finish_scene(&b);
    b.v[0] = b.v[1] = 1.0;
    for (step = 1; step <= 100; step++) {
      for (i = 0; i < 6; i++) b.vstar[i] = b.v[i];
      b.vstar[2] -= G * DT;
      if (solve(&b, &o, &st) != DIAGC_OK) bad++;
      outside += st.friction_outside, turned += st.friction_turned;
      for (i = 0; i < 6; i++) b.v[i] = b.vnext[i];
      want = 1.0 - step * mu * G * DT / sqrt(2.0);
      perr = fmax(perr, fmax(fabs(b.v[0] - want), fabs(b.v[1] - want)));
      for (i = 3; i < 6; i++) w = fmax(w, fabs(b.v[i]));
    }
    check(bad == 0 && outside == 0 && turned == 400 && perr <= 1e-12 && w <= 1e-12,
          "contact.coulomb_box_diagonal_slide", "%d not OK, %d outside, %d turned, velocity off by %.3g, |w| %.3g",
          bad, outside, turned, perr, w);
    /* sliding at 0.5 m/s and spinning at 3 rad/s about z: it stops within
       0.5 / (mu g) s = 0.17 s (friction can only slow it), then rests */
    memset(b.v, 0, sizeof b.v);
    memset(b.x, 0, sizeof b.x);
    b.v[0] = 0.5, b.v[5] = 3.0;
    outside = 0;
    for (step = 1; step <= 400; step++) {
      for (i = 0; i < 6; i++) b.vstar[i] = b.v[i];
      b.vstar[2] -= G * DT;
      if (solve(&b, &o, &st) != DIAGC_OK) bad++;
      outside += st.friction_outside;
      for (i = 0; i < 6; i++) b.v[i] = b.vnext[i];
      if (step == 200) perr = fmax(fabs(b.v[0]), fabs(b.v[1]));
      if (step == 200) w = fabs(b.v[5]);
    }
    printf("# spinning box: %d corner-steps outside the cone while it slid; |v| %.3g, |w_z| %.3g at 0.2 s\n",
           outside, perr, w);
    check(bad == 0 && perr <= 1e-12 && w <= 1e-12 && fabs(b.v[0]) + fabs(b.v[1]) + fabs(b.v[5]) <= 1e-12,
          "contact.coulomb_spinning_box_stops", "%d not OK; at 0.2 s |v| %.3g |w| %.3g", bad, perr, w);
  }
}

int main(void) {
  (void)sleep_us;
  test_point_resting();
  test_point_friction();
  test_isotropic_friction();
  test_incline();
  test_point_targets();
  test_box_redundant();
  test_islands();
  test_warm_start();
  test_cradle();
  test_lcp_budget();
  test_statuses();
  return failures ? 1 : 0;
}
