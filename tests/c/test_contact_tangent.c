/* Tests of the linearized contact step (diagc/world.h, Part 3):
 * diagc_contact_tangent_solve against central differences of
 * diagc_contact_solve itself, on point masses (J and M constant, so the
 * configuration operators are zero and every derivative comes from the
 * LCP, the targets and the impacts): sliding, sticking and frictionless
 * contacts, a penetration correction (d/d depth), a restitution target,
 * sequential impacts (two equal balls: the exchange), a resting chain of
 * two contacts, redundant contacts (singular Q), d/d mu; isotropic friction
 * off the tangent axes (the frames turned along the sliding velocity:
 * their derivative, the held rows, the impulses' derivative in the default
 * tangents); the configuration operators' many-column solve (solve_cols)
 * against the column-by-column one; and diagc_bounce_matrix (its
 * constraints; the two-ball reflection). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "diagc/world.h"

#define MAXV 5
#define MAXC 3
#define H 1e-5

static _Alignas(64) unsigned char ws[1 << 20], tws[1 << 20];

/* A scene: nv point-mass coordinates, nc contacts with constant J. */
typedef struct {
  int nv, nc, passes;
  double m[MAXV], J[3 * MAXC * MAXV], v[MAXV], acc[MAXV], depth[MAXC], mu[MAXC], e[MAXC], dt;
} scene;

/* inputs theta = (v, depth, mu): v* = v + dt acc */
static void build(const scene *s, const double *th, diagc_contact_problem *p, double *v, double *vs, double *d,
                  double *mu, double *MJ) {
  int i, r;
  for (i = 0; i < s->nv; i++) v[i] = th[i], vs[i] = th[i] + s->dt * s->acc[i];
  for (i = 0; i < s->nc; i++) d[i] = th[s->nv + i], mu[i] = th[s->nv + s->nc + i];
  for (i = 0; i < s->nv; i++)
    for (r = 0; r < 3 * s->nc; r++) MJ[i * 3 * s->nc + r] = s->J[r * s->nv + i] / s->m[i];
  memset(p, 0, sizeof *p);
  p->nv = s->nv, p->nc = s->nc, p->J = s->J, p->MinvJT = MJ, p->v = v, p->vstar = vs;
  p->depth = d, p->mu = mu, p->restitution = s->e, p->dt = s->dt;
}

static void options(const scene *s, diagc_contact_options *o) {
  diagc_contact_options_init(o);
  o->restitution_passes = s->passes;
  o->lcp.tol = 1e-14;
}

static int ncols(const scene *s) { return s->nv + 2 * s->nc; }

static void theta0(const scene *s, double *th) {
  int i;
  for (i = 0; i < s->nv; i++) th[i] = s->v[i];
  for (i = 0; i < s->nc; i++) th[s->nv + i] = s->depth[i], th[s->nv + s->nc + i] = s->mu[i];
}

/* v_next (and x) of the step at theta */
static int step(const scene *s, const double *th, double *vn, double *x) {
  diagc_contact_problem p;
  diagc_contact_options o;
  double v[MAXV], vs[MAXV], d[MAXC], mu[MAXC], MJ[3 * MAXC * MAXV];
  build(s, th, &p, v, vs, d, mu, MJ);
  options(s, &o);
  memset(x, 0, sizeof(double) * 3 * (size_t)s->nc);
  return diagc_contact_solve(&p, &o, x, vn, ws, sizeof ws, NULL);
}

static struct {
  const scene *s;
  const double *m;
} cur;

static void zero_rows(void *ctx, const double *y, double *out) { (void)ctx, (void)y, (void)out; }
static void solve_m(void *ctx, double *x) {
  int i;
  (void)ctx;
  for (i = 0; i < cur.s->nv; i++) x[i] /= cur.s->m[i];
}

/* the tangent at theta0 (nq = 0: no configuration columns) */
static int tangent(const scene *s, double *Tvn, double *Tx, diagc_contact_tangent *t) {
  diagc_contact_problem p;
  diagc_contact_options o;
  diagc_step_ops ops = {NULL, zero_rows, zero_rows, zero_rows, solve_m, NULL};
  double th[MAXV + 2 * MAXC], v[MAXV], vs[MAXV], d[MAXC], mu[MAXC], MJ[3 * MAXC * MAXV], vn[MAXV], x[3 * MAXC];
  double Tv[MAXV * (MAXV + 2 * MAXC)], Td[MAXC * (MAXV + 2 * MAXC)];
  int mucol[MAXC], n = ncols(s), i, rc;
  static int cls[3 * MAXC], bounce[MAXC];
  theta0(s, th);
  rc = step(s, th, vn, x);
  if (rc < 0) return rc;
  build(s, th, &p, v, vs, d, mu, MJ);
  options(s, &o);
  memset(Tv, 0, sizeof Tv), memset(Td, 0, sizeof Td);
  for (i = 0; i < s->nv; i++) Tv[i * n + i] = 1.0;
  for (i = 0; i < s->nc; i++) Td[i * n + s->nv + i] = 1.0, mucol[i] = s->nv + s->nc + i;
  cur.s = s;
  memset(t, 0, sizeof *t);
  t->ncol = n, t->nq = 0, t->Tv = Tv, t->Tvstar = Tv, t->Tdepth = Td, t->mu_col = mucol;
  t->Tv_next = Tvn, t->Tx = Tx, t->cls = cls, t->bounce = bounce;
  return diagc_contact_tangent_solve(&p, &o, x, vn, &ops, t, tws, sizeof tws);
}

/* the largest difference between the tangent and central differences */
static double fd_error(const scene *s, const double *Tvn) {
  double th[MAXV + 2 * MAXC], vp[MAXV], vm[MAXV], x[3 * MAXC], err = 0.0;
  int n = ncols(s), c, i;
  for (c = 0; c < n; c++) {
    if (c >= s->nv + s->nc && s->mu[c - s->nv - s->nc] == 0.0) continue; /* mu >= 0: one-sided */
    theta0(s, th);
    th[c] += H;
    step(s, th, vp, x);
    theta0(s, th);
    th[c] -= H;
    step(s, th, vm, x);
    for (i = 0; i < s->nv; i++) {
      double fd = (vp[i] - vm[i]) / (2 * H), e = fabs(fd - Tvn[i * n + c]);
      if (e > err) err = e;
    }
  }
  return err;
}

static void expect_fd(const char *name, const scene *s, double *Tvn_out) {
  double Tvn[MAXV * (MAXV + 2 * MAXC)], Tx[3 * MAXC * (MAXV + 2 * MAXC)], err;
  diagc_contact_tangent t;
  int rc = tangent(s, Tvn, Tx, &t);
  err = rc == 0 ? fd_error(s, Tvn) : INFINITY;
  check(rc == 0 && err < 1e-7, name, "rc %d, |tangent - fd| = %.3g (clamped %d, rank %d)", rc, err, t.clamped,
        t.rank);
  if (Tvn_out) memcpy(Tvn_out, Tvn, sizeof Tvn);
}

/* a particle of mass 2 on the plane z = 0: rows n = z, t1 = x, t2 = y */
static scene particle(double mu, double vx, double vz, double depth) {
  scene s;
  memset(&s, 0, sizeof s);
  s.nv = 3, s.nc = 1, s.dt = 1e-3;
  s.m[0] = s.m[1] = s.m[2] = 2.0;
  s.J[2] = 1.0, s.J[3] = 1.0, s.J[7] = 1.0;
  s.v[0] = vx, s.v[2] = vz, s.acc[2] = -9.81;
  s.depth[0] = depth, s.mu[0] = mu;
  return s;
}

static void particle_tests(void) {
  scene s = particle(0.5, 1.0, -0.05, 5e-5);
  double T[MAXV * (MAXV + 2 * MAXC)];
  int n = ncols(&s);
  expect_fd("tangent.sliding_fd", &s, T);
  /* sliding along x: v'_x = v*_x + mu v*_z (v*_z < 0): d/dv_z = mu, d/dmu = v*_z */
  check(fabs(T[0 * n + 0] - 1.0) < 1e-12 && fabs(T[0 * n + 2] - 0.5) < 1e-12 &&
            fabs(T[0 * n + 4] - (-0.05 - 9.81e-3)) < 1e-12,
        "tangent.sliding_analytic", "dvx/dvx %.17g dvx/dvz %.17g dvx/dmu %.17g", T[0], T[2], T[4]);
  s = particle(1e7, 1.0, -0.05, 5e-5);
  expect_fd("tangent.stuck_fd", &s, T);
  check(fabs(T[0]) < 1e-12 && fabs(T[2 * n + 2]) < 1e-12, "tangent.stuck_analytic", "%g %g", T[0], T[2 * n + 2]);
  s = particle(0.0, 1.0, -0.05, 5e-5);
  expect_fd("tangent.frictionless_fd", &s, T);
  check(fabs(T[0] - 1.0) < 1e-12 && fabs(T[2 * n + 2]) < 1e-12, "tangent.frictionless_analytic", "%g", T[0]);
  s = particle(0.5, 0.0, -0.001, 0.004); /* erp (d - allowed) / dt target */
  expect_fd("tangent.penetration_fd", &s, T);
  check(fabs(T[2 * n + 3] - 0.2 / 1e-3) < 1e-9, "tangent.penetration_analytic", "dvz/ddepth %.17g", T[2 * n + 3]);
  s = particle(0.5, 0.3, -1.0, 0.0);
  s.e[0] = 0.5; /* restitution in the LCP (no impact phase) */
  expect_fd("tangent.restitution_fd", &s, T);
  check(fabs(T[2 * n + 2] + 0.5) < 1e-12, "tangent.restitution_analytic", "dvz/dvz %.17g", T[2 * n + 2]);
  s.passes = 20; /* the same bounce as an impact */
  expect_fd("tangent.impact_fd", &s, T);
}

/* two equal balls on x, b = the left (coordinate 0), a = the right: normal
 * +x from b to a, J_n = (-1, 1); a closing gap, e = 1 */
static void two_balls(void) {
  scene s;
  double T[MAXV * (MAXV + 2 * MAXC)];
  int n;
  memset(&s, 0, sizeof s);
  s.nv = 2, s.nc = 1, s.dt = 1e-3, s.passes = 20;
  s.m[0] = s.m[1] = 1.0;
  s.J[0] = -1.0, s.J[1] = 1.0;
  s.v[0] = 1.0, s.depth[0] = -5e-4, s.e[0] = 1.0;
  n = ncols(&s);
  expect_fd("tangent.two_balls_fd", &s, T);
  check(fabs(T[0]) < 1e-12 && fabs(T[1] - 1.0) < 1e-12 && fabs(T[n] - 1.0) < 1e-12 && fabs(T[n + 1]) < 1e-12,
        "tangent.two_balls_exchange", "dv'/dv = [%g %g; %g %g]", T[0], T[1], T[n], T[n + 1]);
}

/* particle 1 (z0) on the ground, particle 2 (z1) on it: both contacts
 * clamped; and the same ground contact twice (singular Q) */
static void chains(void) {
  scene s;
  diagc_contact_tangent t;
  double T[MAXV * (MAXV + 2 * MAXC)], Tx[3 * MAXC * (MAXV + 2 * MAXC)];
  memset(&s, 0, sizeof s);
  s.nv = 2, s.nc = 2, s.dt = 1e-3;
  s.m[0] = 1.0, s.m[1] = 3.0;
  s.J[0 * 2 + 0] = 1.0;                        /* ground - 1: n row */
  s.J[3 * 2 + 0] = -1.0, s.J[3 * 2 + 1] = 1.0; /* 1 - 2: n row */
  s.v[0] = -0.01, s.v[1] = -0.02, s.acc[0] = s.acc[1] = -9.81;
  s.depth[0] = s.depth[1] = 5e-5; /* inside the allowance: target 0 */
  expect_fd("tangent.chain_fd", &s, T);
  s.J[3 * 2 + 0] = 1.0, s.J[3 * 2 + 1] = 0.0; /* twice the ground contact of 1 */
  s.v[1] = 0.0, s.acc[1] = 0.0;
  expect_fd("tangent.redundant_fd", &s, T);
  {
    int rc = tangent(&s, T, Tx, &t);
    /* the pivoting LCP puts the impulse on one copy: the other sits at
       zero impulse with w = 0, a tie the kink count reports */
    check(rc == 0 && t.rank == t.clamped && t.kinks >= 1, "tangent.redundant_tie", "rc %d clamped %d rank %d kinks %d",
          rc, t.clamped, t.rank, t.kinks);
  }
}

/* central differences of v' and x along column c with step h */
static void fd_column(const scene *s, int c, double h, double *dv, double *dx) {
  double th[MAXV + 2 * MAXC], vp[MAXV], vm[MAXV], xp[3 * MAXC], xm[3 * MAXC];
  int i;
  theta0(s, th);
  th[c] += h;
  step(s, th, vp, xp);
  theta0(s, th);
  th[c] -= h;
  step(s, th, vm, xm);
  for (i = 0; i < s->nv; i++) dv[i] = (vp[i] - vm[i]) / (2 * h);
  for (i = 0; i < 3 * s->nc; i++) dx[i] = (xp[i] - xm[i]) / (2 * h);
}

/* v' and x against central differences, Richardson-extrapolated (steps H
 * and H / 2: fourth order, so that the frames' curvature, of order
 * 1 / |u*|, does not swamp them) */
static void expect_fd_x(const char *name, const scene *s) {
  double Tvn[MAXV * (MAXV + 2 * MAXC)], Tx[3 * MAXC * (MAXV + 2 * MAXC)], ev = 0.0, ex = 0.0;
  double v1[MAXV], v2[MAXV], x1[3 * MAXC], x2[3 * MAXC];
  diagc_contact_tangent t;
  int rc = tangent(s, Tvn, Tx, &t), n = ncols(s), c, i;
  for (c = 0; rc == 0 && c < n; c++) {
    if (c >= s->nv + s->nc && s->mu[c - s->nv - s->nc] == 0.0) continue; /* mu >= 0: one-sided */
    fd_column(s, c, H, v1, x1);
    fd_column(s, c, H / 2, v2, x2);
    for (i = 0; i < s->nv; i++) ev = fmax(ev, fabs((4 * v2[i] - v1[i]) / 3 - Tvn[i * n + c]));
    for (i = 0; i < 3 * s->nc; i++) ex = fmax(ex, fabs((4 * x2[i] - x1[i]) / 3 - Tx[i * n + c]));
  }
  check(rc == 0 && ev < 1e-8 && ex < 1e-10 && t.kinks == 0, name,
        "rc %d, |dv' - fd| = %.3g, |dx - fd| = %.3g (clamped %d, rank %d, kinks %d)", rc, ev, ex, t.clamped, t.rank,
        t.kinks);
}

/* Isotropic friction off the axes (particle of mass 2 on z = 0, default
 * tangents x, y):
 *   sliding at 1 m/s at 30 degrees (held to its frame: x_t = -mu x_n u*);
 *   a push from rest at 30 degrees above the limit (turned, not held: it
 *   did not slide at v) and below it (sticks);
 *   sliding at 1e-3 m/s with a push across that stops it within the step
 *   (held, released, solved again: it sticks);
 * and a body with a spin (dofs x, y, z, spin about z, pitch about y; two
 * contacts at x = +-0.1 whose sliding velocities differ): both held, each
 * along its own u*. */
static void isotropic(void) {
  const double c30 = sqrt(3.0) / 2.0, s30 = 0.5, g = 9.81, mu = 0.5;
  scene s = particle(mu, c30, -0.05, 5e-5);
  s.v[1] = s30;
  expect_fd_x("tangent.coulomb_sliding_30deg", &s);
  s = particle(mu, 0.0, 0.0, 5e-5);
  s.acc[0] = 1.2 * mu * g * c30, s.acc[1] = 1.2 * mu * g * s30;
  expect_fd_x("tangent.coulomb_push_above_limit_30deg", &s);
  s.acc[0] = 0.8 * mu * g * c30, s.acc[1] = 0.8 * mu * g * s30;
  expect_fd_x("tangent.coulomb_push_below_limit_30deg", &s);
  s = particle(mu, 1e-3, 0.0, 5e-5);
  s.acc[1] = 2.0;
  expect_fd_x("tangent.coulomb_stops_released", &s);
  {
    double a = 0.1, T[MAXV * (MAXV + 2 * MAXC)];
    memset(&s, 0, sizeof s);
    s.nv = 5, s.nc = 2, s.dt = 1e-3;
    s.m[0] = s.m[1] = s.m[2] = 1.0, s.m[3] = 4e-3, s.m[4] = 3e-3;
    /* contact k at (+-a, 0, 0): n = z - (+-a) pitch, t1 = x, t2 = y + (+-a) spin */
    s.J[0 * 5 + 2] = 1.0, s.J[0 * 5 + 4] = -a, s.J[1 * 5 + 0] = 1.0, s.J[2 * 5 + 1] = 1.0, s.J[2 * 5 + 3] = a;
    s.J[3 * 5 + 2] = 1.0, s.J[3 * 5 + 4] = a, s.J[4 * 5 + 0] = 1.0, s.J[5 * 5 + 1] = 1.0, s.J[5 * 5 + 3] = -a;
    s.v[0] = 0.3, s.v[1] = 0.1, s.v[2] = -0.05, s.v[3] = 2.0, s.acc[2] = -g;
    s.depth[0] = s.depth[1] = 5e-5, s.mu[0] = s.mu[1] = mu;
    expect_fd("tangent.coulomb_spinning_two_contacts_fd", &s, T);
  }
}

static void bounce_matrix(void) {
  double J[4] = {-1.0, 1.0}, e[2] = {1.0, 0.5}, B[16], bws[64];
  int rc = diagc_bounce_matrix(2, 1, J, e, B, bws);
  check(rc == 0 && fabs(B[0]) < 1e-15 && fabs(B[1] - 1) < 1e-15 && fabs(B[2] - 1) < 1e-15 && fabs(B[3]) < 1e-15,
        "bounce.two_balls_reflection", "B = [%g %g; %g %g]", B[0], B[1], B[2], B[3]);
  {
    double J2[8] = {1.0, 0.2, -0.3, 0.5, 0.1, 1.0, 0.4, -0.2}, worst = 0.0;
    int k, i, j;
    rc = diagc_bounce_matrix(4, 2, J2, e, B, bws);
    for (k = 0; k < 2; k++) {
      double n2 = 0.0, s = 0.0;
      for (i = 0; i < 4; i++) n2 += J2[4 * k + i] * J2[4 * k + i];
      for (i = 0; i < 4; i++)
        for (j = 0; j < 4; j++) s += J2[4 * k + i] * B[4 * i + j] * J2[4 * k + j];
      if (fabs(s / n2 + e[k]) > worst) worst = fabs(s / n2 + e[k]);
    }
    check(rc == 0 && worst < 1e-12, "bounce.constraints", "|a'Ba + e| = %g", worst);
  }
  check(diagc_bounce_matrix(2, 1, J, e, NULL, bws) == DIAGC_CONTACT_E_ARG, "bounce.bad_args", "%s", "");
}

/* Fixed linear maps standing in for the configuration operators (not a
 * scene's derivatives: the columns 0 .. nq-1 are only to exercise the
 * operator paths), and an M^-1 with a coupling (x_i -= x_{i-1} / 4, then
 * / m_i) applied column by column (solve) or to a block (solve_cols, the
 * same arithmetic in the same order) */
#define FAKE_NQ 2
static int ncall_cols;
static double coef(int a, int b, int c) { return 0.1 * sin(1.0 + a + 2.0 * b + 3.0 * c); }
static void fake_dJy(void *ctx, const double *y, double *out) {
  int r, c, i;
  (void)ctx;
  for (r = 0; r < 3 * cur.s->nc; r++)
    for (c = 0; c < FAKE_NQ; c++) {
      double s = 0.0;
      for (i = 0; i < cur.s->nv; i++) s += coef(r, c, i) * y[i];
      out[r * FAKE_NQ + c] = s;
    }
}
static void fake_dJTx(void *ctx, const double *x, double *out) {
  int r, c, i;
  (void)ctx;
  for (i = 0; i < cur.s->nv; i++)
    for (c = 0; c < FAKE_NQ; c++) {
      double s = 0.0;
      for (r = 0; r < 3 * cur.s->nc; r++) s += coef(i + 7, c, r) * x[r];
      out[i * FAKE_NQ + c] = s;
    }
}
static void fake_dMy(void *ctx, const double *y, double *out) {
  int j, c, i;
  (void)ctx;
  for (i = 0; i < cur.s->nv; i++)
    for (c = 0; c < FAKE_NQ; c++) {
      double s = 0.0;
      for (j = 0; j < cur.s->nv; j++) s += coef(i + 13, c + 1, j) * y[j];
      out[i * FAKE_NQ + c] = s;
    }
}
static void coupled_solve(void *ctx, double *x) {
  int i;
  (void)ctx;
  for (i = 0; i < cur.s->nv; i++) x[i] = (x[i] - (i > 0 ? 0.25 * x[i - 1] : 0.0)) / cur.s->m[i];
}
static void coupled_solve_cols(void *ctx, double *X, int ncol, int ld) {
  int i, c;
  (void)ctx;
  ncall_cols++;
  for (i = 0; i < cur.s->nv; i++)
    for (c = 0; c < ncol; c++)
      X[i * ld + c] = (X[i * ld + c] - (i > 0 ? 0.25 * X[(i - 1) * ld + c] : 0.0)) / cur.s->m[i];
}

/* the tangent at theta0 with FAKE_NQ configuration columns in front of the
 * scene's (seeds: some of v's and v*'s), operators as above */
static int tangent_ops(const scene *s, int with_cols, double *Tvn, double *Tx, diagc_contact_tangent *t) {
  diagc_contact_problem p;
  diagc_contact_options o;
  diagc_step_ops ops = {NULL, fake_dJy, fake_dJTx, fake_dMy, coupled_solve, NULL};
  double th[MAXV + 2 * MAXC], v[MAXV], vs[MAXV], d[MAXC], mu[MAXC], MJ[3 * MAXC * MAXV], vn[MAXV], x[3 * MAXC];
  double Tv[MAXV * (FAKE_NQ + MAXV + 2 * MAXC)], Tvs[MAXV * (FAKE_NQ + MAXV + 2 * MAXC)];
  double Td[MAXC * (FAKE_NQ + MAXV + 2 * MAXC)];
  int mucol[MAXC], n = FAKE_NQ + ncols(s), i, rc;
  if (with_cols) ops.solve_cols = coupled_solve_cols;
  theta0(s, th);
  rc = step(s, th, vn, x);
  if (rc < 0) return rc;
  build(s, th, &p, v, vs, d, mu, MJ);
  options(s, &o);
  memset(Tv, 0, sizeof Tv), memset(Tvs, 0, sizeof Tvs), memset(Td, 0, sizeof Td);
  for (i = 0; i < s->nv; i++) {
    Tv[i * n + FAKE_NQ + i] = Tvs[i * n + FAKE_NQ + i] = 1.0;
    Tv[i * n + 0] = coef(i, 5, 0), Tvs[i * n + 1] = coef(i, 6, 1);
  }
  for (i = 0; i < s->nc; i++) Td[i * n + FAKE_NQ + s->nv + i] = 1.0, mucol[i] = FAKE_NQ + s->nv + s->nc + i;
  cur.s = s;
  memset(t, 0, sizeof *t);
  t->ncol = n, t->nq = FAKE_NQ, t->Tv = Tv, t->Tvstar = Tvs, t->Tdepth = Td, t->mu_col = mucol;
  t->Tv_next = Tvn, t->Tx = Tx;
  return diagc_contact_tangent_solve(&p, &o, x, vn, &ops, t, tws, sizeof tws);
}

/* solve_cols (one call for the nq columns) gives the results of the
 * column-by-column solve, bit for bit */
static void expect_same_with_cols(const char *name, const scene *s) {
  enum { NT = FAKE_NQ + MAXV + 2 * MAXC };
  double Tvn0[MAXV * NT], Tx0[3 * MAXC * NT], Tvn1[MAXV * NT], Tx1[3 * MAXC * NT];
  diagc_contact_tangent t0, t1;
  size_t nvn = sizeof(double) * (size_t)(s->nv * (FAKE_NQ + ncols(s)));
  size_t nx = sizeof(double) * (size_t)(3 * s->nc * (FAKE_NQ + ncols(s)));
  int rc0, rc1, calls;
  ncall_cols = 0;
  rc0 = tangent_ops(s, 0, Tvn0, Tx0, &t0);
  calls = ncall_cols;
  rc1 = tangent_ops(s, 1, Tvn1, Tx1, &t1);
  check(rc0 == 0 && rc1 == 0 && calls == 0 && ncall_cols > 0 && memcmp(Tvn0, Tvn1, nvn) == 0 &&
            memcmp(Tx0, Tx1, nx) == 0 && t0.rank == t1.rank && t0.clamped == t1.clamped,
        name, "rc %d %d, solve_cols calls %d %d, Tv_next %s, Tx %s", rc0, rc1, calls, ncall_cols,
        memcmp(Tvn0, Tvn1, nvn) == 0 ? "same" : "differ", memcmp(Tx0, Tx1, nx) == 0 ? "same" : "differ");
}

static void solve_cols_tests(void) {
  const double c30 = sqrt(3.0) / 2.0, s30 = 0.5;
  scene s = particle(0.5, 0.3, -1.0, 0.0);
  s.e[0] = 0.5, s.passes = 20; /* an impact: the replay solves too */
  expect_same_with_cols("tangent.solve_cols_impact", &s);
  s = particle(0.5, c30, -0.05, 5e-5);
  s.v[1] = s30; /* sliding off the axes: turned frames */
  expect_same_with_cols("tangent.solve_cols_sliding_turned", &s);
  memset(&s, 0, sizeof s); /* the resting chain of two contacts */
  s.nv = 2, s.nc = 2, s.dt = 1e-3;
  s.m[0] = 1.0, s.m[1] = 3.0;
  s.J[0 * 2 + 0] = 1.0;
  s.J[3 * 2 + 0] = -1.0, s.J[3 * 2 + 1] = 1.0;
  s.v[0] = -0.01, s.v[1] = -0.02, s.acc[0] = s.acc[1] = -9.81;
  s.depth[0] = s.depth[1] = 5e-5;
  expect_same_with_cols("tangent.solve_cols_chain", &s);
}

static void bad_args(void) {
  scene s = particle(0.5, 1.0, -0.05, 5e-5);
  double T[64], Tx[64];
  diagc_contact_tangent t;
  diagc_contact_problem p;
  diagc_contact_options o;
  double x[3] = {0, 0, 0}, vn[3] = {0, 0, 0};
  check(tangent(&s, T, Tx, &t) == 0, "tangent.args_ok", "%s", "");
  memset(&p, 0, sizeof p);
  diagc_contact_options_init(&o);
  check(diagc_contact_tangent_solve(&p, &o, x, vn, NULL, NULL, tws, sizeof tws) == DIAGC_CONTACT_E_ARG,
        "tangent.bad_args", "%s", "");
  check(diagc_contact_tangent_workspace_size(-1, 1, 1) == 0, "tangent.bad_sizes", "%s", "");
}

int main(void) {
  particle_tests();
  two_balls();
  chains();
  isotropic();
  bounce_matrix();
  solve_cols_tests();
  bad_args();
  return failures != 0;
}
