/* Tests of an island of one tree solved on its support contacts
 * (runtime/src/contact_tree.c; docs/world.md, "Contact solve",
 * "Redundant contacts"): a humanoid's two flat soles.
 *
 * One tree of 12 dofs (a free base, 6, and two 3-dof legs), a random SPD
 * mass matrix; each foot a body whose world-frame spatial Jacobian is
 * random on the base's and its leg's dofs; eight sole points per foot on
 * two lines (as the Atlas's: four corners, four points on the long
 * edges), the ground's normal +z; and two frictionless one-dof rows (joint
 * limits).  The test forms J from the points, M^-1 by its own Cholesky, A
 * = J M^-1 J^T and b from world.h's targets, and scores the impulses of
 * both methods on that whole LCP (diagc_lcp_violation, 1e-9), with the
 * tangent rows turned along each contact's sliding velocity as world.h
 * says.  Expected: the sparse method solves the island on its 4 + 4
 * corners and the limits (26 rows of 50: stats.rows), and where the
 * depths are not affine in the point (a point pressed in deeper) it
 * solves the whole island (50 rows); both satisfy the whole LCP. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "diagc/lcp.h"
#include "diagc/world.h"

#define NV 12
#define NC 18 /* 16 sole points, 2 limit rows */
#define N3 (3 * NC)
#define DT 1e-3

static _Alignas(64) unsigned char ws[1 << 22];

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double urand(void) { /* [-1, 1) */
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}

typedef struct {
  double Minv[NV * NV];
  double JB[2][6 * NV]; /* each foot's [w; v_o] = JB qdot */
  double J[N3 * NV];    /* the rows, default frames */
  double Jc[N3 * NV], MJc[N3 * NV];
  double v[NV], vstar[NV], vnext[NV];
  double depth[NC], mu[NC], x[N3];
  int tree[2 * NC];
} scene;

static const int dof0[2] = {0, NV};
static const int dofs[NV] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};

/* M^-1 of M = R R^T + 2 I by Cholesky (the test's own) */
static void make_mass(scene *s) {
  double M[NV * NV], L[NV * NV], R[NV * NV];
  int i, j, k;
  for (i = 0; i < NV * NV; i++) R[i] = urand();
  for (i = 0; i < NV; i++)
    for (j = 0; j < NV; j++) {
      double a = i == j ? 2.0 : 0.0;
      for (k = 0; k < NV; k++) a += R[i * NV + k] * R[j * NV + k];
      M[i * NV + j] = a;
    }
  for (i = 0; i < NV; i++)
    for (j = 0; j <= i; j++) {
      double a = M[i * NV + j];
      for (k = 0; k < j; k++) a -= L[i * NV + k] * L[j * NV + k];
      L[i * NV + j] = i == j ? sqrt(a) : a / L[j * NV + j];
    }
  for (j = 0; j < NV; j++) { /* column j of M^-1: L L^T y = e_j */
    double y[NV];
    for (i = 0; i < NV; i++) {
      double a = i == j ? 1.0 : 0.0;
      for (k = 0; k < i; k++) a -= L[i * NV + k] * y[k];
      y[i] = a / L[i * NV + i];
    }
    for (i = NV - 1; i >= 0; i--) {
      double a = y[i];
      for (k = i + 1; k < NV; k++) a -= L[k * NV + i] * y[k];
      y[i] = a / L[i * NV + i];
    }
    for (i = 0; i < NV; i++) s->Minv[i * NV + j] = y[i];
  }
}

/* A scene: both feet flat on the ground (depth d0 + gx x + gy y at the
 * point (x, y)), the limit rows on dofs 7 and 10. */
static void make(scene *s) {
  static const double px[4] = {-0.0876, -0.0008, 0.086, 0.1728}, py[2] = {0.066, -0.0626};
  int f, i, j, k, c = 0;
  memset(s, 0, sizeof *s);
  make_mass(s);
  for (f = 0; f < 2; f++)
    for (i = 0; i < 6; i++)
      for (j = 0; j < NV; j++)
        s->JB[f][i * NV + j] = (j < 6 || (j >= 6 + 3 * f && j < 9 + 3 * f)) ? urand() : 0.0;
  for (f = 0; f < 2; f++)
    for (i = 0; i < 4; i++)
      for (j = 0; j < 2; j++, c++) {
        const double p[3] = {px[i], py[j] + (f ? -0.25 : 0.25), 0.0}, n[3] = {0.0, 0.0, 1.0};
        double F[9];
        for (k = 0; k < 3; k++) F[k] = n[k];
        diagc_contact_frame(n, F + 3, F + 6);
        for (k = 0; k < 3; k++) { /* d . (v_o + w x p) = d . v_o + (p x d) . w */
          const double *d = F + 3 * k;
          const double pxd[3] = {p[1] * d[2] - p[2] * d[1], p[2] * d[0] - p[0] * d[2], p[0] * d[1] - p[1] * d[0]};
          int q;
          for (q = 0; q < NV; q++) {
            double a = 0.0;
            int e;
            for (e = 0; e < 3; e++) a += pxd[e] * s->JB[f][e * NV + q] + d[e] * s->JB[f][(3 + e) * NV + q];
            s->J[(3 * c + k) * NV + q] = a;
          }
        }
        s->mu[c] = 1.0;
        s->tree[2 * c] = 0, s->tree[2 * c + 1] = -1;
      }
  for (i = 0; i < 2; i++, c++) { /* a joint at its limit: one frictionless row */
    s->J[(3 * c) * NV + (i ? 10 : 7)] = 1.0;
    s->mu[c] = 0.0;
    s->tree[2 * c] = 0, s->tree[2 * c + 1] = -1;
  }
  for (i = 0; i < N3; i++)
    for (j = 0; j < NV; j++) {
      double a = 0.0;
      for (k = 0; k < NV; k++) a += s->Minv[j * NV + k] * s->J[i * NV + k];
      s->Jc[i * NV + j] = s->J[i * NV + j], s->MJc[i * NV + j] = a;
    }
}

/* One step's data: a tilt of the soles (depth affine in the point), v at
 * rest, v* pulled into the ground with a random part (slide: its size). */
static void step_data(scene *s, double slide) {
  const double gx = 1e-3 * urand(), gy = 1e-3 * urand();
  int c, j;
  for (c = 0; c < 16; c++) {
    const double x = c / 2 % 4 == 0 ? -0.0876 : c / 2 % 4 == 1 ? -0.0008 : c / 2 % 4 == 2 ? 0.086 : 0.1728;
    const double y = c % 2 == 0 ? 0.066 : -0.0626;
    s->depth[c] = 3e-4 + gx * x + gy * y;
  }
  s->depth[16] = s->depth[17] = 1e-4 * urand();
  for (j = 0; j < NV; j++) s->v[j] = 0.0;
  double u[NV] = {0.0}, un = 0.0;
  for (j = 0; j < NV; j++) s->vstar[j] = slide * urand();
  /* pulled into the ground: along -M^-1 J_n^T summed over the soles,
     scaled to -g dt at the first point */
  for (c = 0; c < 16; c++)
    for (j = 0; j < NV; j++) u[j] += s->MJc[(3 * c) * NV + j];
  for (j = 0; j < NV; j++) un += s->J[j] * u[j];
  for (j = 0; j < NV; j++) s->vstar[j] -= 9.81 * DT * u[j] / un;
}

/* The whole island's LCP violation at s->x, formed here (world.h's rows
 * and targets; the tangent rows turned along J_t v* when it exceeds 1e-7
 * m/s; v = 0, so no contact is held). */
static double violation(const scene *s) {
  static double A[N3 * N3];
  double Jt[N3 * NV], b[N3], lo[N3], hi[N3], x[N3], MJ[N3 * NV];
  int fx[N3], i, j, k;
  diagc_contact_options o;
  diagc_contact_options_init(&o);
  memcpy(Jt, s->J, sizeof Jt);
  memcpy(x, s->x, sizeof x);
  for (k = 0; k < NC; k++) {
    double u1 = 0.0, u2 = 0.0, r;
    if (!(s->mu[k] > 0.0)) continue;
    for (j = 0; j < NV; j++) u1 += s->J[(3 * k + 1) * NV + j] * s->vstar[j], u2 += s->J[(3 * k + 2) * NV + j] * s->vstar[j];
    r = hypot(u1, u2);
    if (!(r > 1e-7)) continue;
    for (j = 0; j < NV; j++) {
      double a = s->J[(3 * k + 1) * NV + j], c = s->J[(3 * k + 2) * NV + j];
      Jt[(3 * k + 1) * NV + j] = (u1 * a + u2 * c) / r;
      Jt[(3 * k + 2) * NV + j] = (-u2 * a + u1 * c) / r;
    }
    x[3 * k + 1] = (u1 * s->x[3 * k + 1] + u2 * s->x[3 * k + 2]) / r;
    x[3 * k + 2] = (-u2 * s->x[3 * k + 1] + u1 * s->x[3 * k + 2]) / r;
  }
  for (i = 0; i < N3; i++)
    for (j = 0; j < NV; j++) {
      double a = 0.0;
      for (k = 0; k < NV; k++) a += s->Minv[j * NV + k] * Jt[i * NV + k];
      MJ[i * NV + j] = a;
    }
  for (i = 0; i < N3; i++) {
    double jv = 0.0;
    for (j = 0; j < NV; j++) jv += Jt[i * NV + j] * s->vstar[j];
    for (j = 0; j < N3; j++) {
      double a = 0.0;
      for (k = 0; k < NV; k++) a += Jt[i * NV + k] * MJ[j * NV + k];
      A[i * N3 + j] = a;
    }
    if (i % 3 == 0) {
      double d = s->depth[i / 3], t = 0.0;
      if (d < 0.0) t = d / DT;
      else if (d > o.allowed_penetration) t = fmin(o.erp * (d - o.allowed_penetration) / DT, o.max_correction_speed);
      b[i] = t - jv, lo[i] = 0.0, hi[i] = INFINITY, fx[i] = -1;
    } else {
      b[i] = -jv, lo[i] = -s->mu[i / 3], hi[i] = s->mu[i / 3], fx[i] = i - i % 3;
    }
  }
  return diagc_lcp_violation(N3, A, b, lo, hi, fx, x);
}

/* |v_next - (v* + M^-1 J^T x)| */
static double velocity_error(const scene *s) {
  double worst = 0.0;
  int i, j;
  for (j = 0; j < NV; j++) {
    double v = s->vstar[j];
    for (i = 0; i < N3; i++) v += s->MJc[i * NV + j] * s->x[i];
    if (fabs(v - s->vnext[j]) > worst) worst = fabs(v - s->vnext[j]);
  }
  return worst;
}

static int solve(scene *s, int method, diagc_contact_stats *st) {
  diagc_contact_problem p;
  diagc_contact_options o;
  memset(&p, 0, sizeof p);
  p.nv = NV, p.nc = NC, p.v = s->v, p.vstar = s->vstar, p.depth = s->depth, p.mu = s->mu, p.tree = s->tree;
  p.dt = DT, p.width = NV, p.Jc = s->Jc, p.MJc = s->MJc, p.ntrees = 1, p.tree_dof0 = dof0, p.tree_dofs = dofs;
  diagc_contact_options_init(&o);
  o.method = method;
  o.lcp.tol = 1e-12;
  return diagc_contact_solve(&p, &o, s->x, s->vnext, ws, sizeof ws, st);
}

/* 40 steps each of resting (slide 1e-6) and sliding (1e-2) soles, warm
 * started from the step before; then pressed points (not affine). */
static void test_soles(void) {
  static scene s, d;
  double worst = 0.0, dworst = 0.0, verr = 0.0;
  int k, j, i, bad = 0, reduced = 0, whole = 0, steps = 0, loaded = 0;
  make(&s);
  for (k = 0; k < 80; k++) {
    diagc_contact_stats st, dst;
    double xs[N3];
    int rc;
    step_data(&s, k < 40 ? 1e-6 : 1e-2);
    memcpy(xs, s.x, sizeof xs);
    d = s;
    rc = solve(&s, DIAGC_CONTACT_SPARSE, &st);
    bad += rc != DIAGC_OK && rc != DIAGC_LCP_SOLVED_TOL;
    worst = fmax(worst, violation(&s));
    verr = fmax(verr, velocity_error(&s));
    reduced += st.islands == 1 && st.rows == 26;
    for (j = 0, i = 0; j < 16; j++) i += s.x[3 * j] > 0.0;
    loaded += i > 0;
    memcpy(d.x, xs, sizeof xs); /* the dense reference from the same warm start */
    rc = solve(&d, DIAGC_CONTACT_DENSE, &dst);
    bad += rc != DIAGC_OK && rc != DIAGC_LCP_SOLVED_TOL;
    dworst = fmax(dworst, violation(&d));
    steps++;
  }
  check(bad == 0, "tree_soles_status", "%d solves failed", bad);
  check(worst <= 1e-9, "tree_soles_lcp", "whole LCP violated by %g (dense: %g)", worst, dworst);
  check(dworst <= 1e-9, "tree_soles_dense_lcp", "the dense reference violates it by %g", dworst);
  check(verr <= 1e-12, "tree_soles_velocity", "v_next off v* + M^-1 J^T x by %g", verr);
  check(loaded == steps, "tree_soles_loaded", "%d of %d steps with a sole point loaded", loaded, steps);
  check(reduced == steps, "tree_soles_support", "%d of %d steps solved on the 8 corners and 2 limits", reduced,
        steps);
  /* a point between two corners pressed 2 mm deeper: the support's point
     leaves it penetrating, so the whole island is solved */
  for (k = 0; k < 10; k++) {
    diagc_contact_stats st;
    step_data(&s, 1e-6);
    s.depth[2] += 2e-3;
    solve(&s, DIAGC_CONTACT_SPARSE, &st);
    worst = fmax(worst, violation(&s));
    whole += st.islands == 1 && st.rows == 3 * 16 + 2;
  }
  check(worst <= 1e-9, "tree_pressed_lcp", "whole LCP violated by %g", worst);
  check(whole == 10, "tree_pressed_whole", "%d of 10 steps solved the whole island", whole);
}

int main(void) {
  (void)sleep_us; /* check.h's helper this file does not use */
  test_soles();
  return failures != 0;
}
