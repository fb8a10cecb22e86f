/* Tests of bilateral rows (diagc_contact_problem.bound; diagc/world.h,
 * "Contact solve"): a joint's Coulomb friction and a mimic joint's
 * equality on two point-mass coordinates (masses 2 and 1, no coupling in
 * M), with closed-form answers:
 *   friction row J = (1, 0), |x| <= F dt, target 0: stuck (v0' = 0, x =
 *     -m0 v0*) when m0 |v0*| <= F dt, else v0' = v0* - sign(v0*) F dt / m0;
 *   equality row J = (1, -k), bounds +-inf, target erp e / dt: x = (target
 *     - J v*) / a, a = 1 / m0 + k^2 / m1, v' = v* + M^-1 J^T x;
 * in the dense and compact forms under both methods; their linearized
 * step (diagc_contact_tangent_solve) against the closed-form derivatives
 * (stuck: dv0'/dv = 0, dv0'/ddepth = erp / dt; sliding: 1; equality: I - M^-1 J^T J / a, and
 * M^-1 J^T erp / (dt a) per unit of depth); and the refused arguments (a
 * bilateral row with friction or restitution, a negative bound). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "diagc/world.h"

static _Alignas(64) unsigned char ws[1 << 18], tws[1 << 18];

static const double M0 = 2.0, M1 = 1.0, DT = 1e-3;
static const int DOF0[2] = {0, 2}, DOFS[2] = {0, 1};

typedef struct {
  double J[6], MJ[6], Jc[6], MJc[6], v[2], vs[2], depth[1], mu[1], e[1], bound[1];
  int tree[2];
} one_row;

/* the problem of one row (a, b) with bound bd and depth d at v* = vs */
static void problem(one_row *s, double a, double b, double bd, double d, const double vs[2], int compact,
                    diagc_contact_problem *p) {
  memset(s, 0, sizeof *s);
  s->J[0] = s->Jc[0] = a, s->J[1] = s->Jc[1] = b;
  /* dense: M^-1 J^T is nv x 3 (row-major); compact: rows like Jc */
  s->MJ[0] = a / M0, s->MJ[3] = b / M1;
  s->MJc[0] = a / M0, s->MJc[1] = b / M1;
  s->vs[0] = s->v[0] = vs[0], s->vs[1] = s->v[1] = vs[1];
  s->depth[0] = d, s->bound[0] = bd, s->tree[0] = 0, s->tree[1] = -1;
  memset(p, 0, sizeof *p);
  p->nv = 2, p->nc = 1, p->v = s->v, p->vstar = s->vs, p->depth = s->depth, p->mu = s->mu;
  p->restitution = s->e, p->tree = s->tree, p->dt = DT, p->bound = s->bound;
  if (compact) {
    p->width = 2, p->Jc = s->Jc, p->MJc = s->MJc, p->ntrees = 1, p->tree_dof0 = DOF0, p->tree_dofs = DOFS;
  } else {
    p->J = s->J, p->MinvJT = s->MJ;
  }
}

static int solve(const diagc_contact_problem *p, int method, double x[3], double vn[2]) {
  diagc_contact_options o;
  diagc_contact_options_init(&o);
  o.method = method;
  o.lcp.tol = 1e-14;
  x[0] = x[1] = x[2] = 0.0;
  return diagc_contact_solve(p, &o, x, vn, ws, sizeof ws, NULL);
}

static void friction(void) {
  const double F = 3.0;
  int form, method, k;
  for (form = 0; form < 2; form++)
    for (method = 0; method < 2; method++)
      for (k = 0; k < 3; k++) {
        /* v0* = 1e-3 (stuck: 2e-3 <= 3e-3), -4e-3 (slides), 0 (stuck at rest) */
        const double v0 = k == 0 ? 1e-3 : k == 1 ? -4e-3 : 0.0, vs[2] = {v0, 0.7};
        one_row s;
        diagc_contact_problem p;
        double x[3], vn[2], want_v0, want_x;
        char name[64];
        int stuck = M0 * fabs(v0) <= F * DT, rc;
        problem(&s, 1.0, 0.0, F * DT, 0.0, vs, form, &p);
        rc = solve(&p, method == 0 ? DIAGC_CONTACT_SPARSE : DIAGC_CONTACT_DENSE, x, vn);
        want_v0 = stuck ? 0.0 : v0 - (v0 > 0 ? 1.0 : -1.0) * F * DT / M0;
        want_x = stuck ? -M0 * v0 : (v0 > 0 ? -1.0 : 1.0) * F * DT;
        snprintf(name, sizeof name, "bilateral.friction_%s_%s_%d", form ? "compact" : "dense",
                 method ? "dense" : "sparse", k);
        check(rc == DIAGC_OK && fabs(vn[0] - want_v0) <= 1e-15 && fabs(x[0] - want_x) <= 1e-15 && vn[1] == 0.7, name,
              "rc %d v0' %.17g (want %.17g) x %.17g (want %.17g) v1' %.17g", rc, vn[0], want_v0, x[0], want_x, vn[1]);
      }
}

static void equality(void) {
  const double k = -2.0, e = 0.004, vs[2] = {0.3, -0.1};
  const double a = 1.0 / M0 + k * k / M1, target = 0.2 * e / DT, jv = vs[0] - k * vs[1];
  const double want_x = (target - jv) / a;
  int form;
  for (form = 0; form < 2; form++) {
    one_row s;
    diagc_contact_problem p;
    double x[3], vn[2];
    int rc;
    char name[64];
    problem(&s, 1.0, -k, INFINITY, e, vs, form, &p);
    rc = solve(&p, DIAGC_CONTACT_SPARSE, x, vn);
    snprintf(name, sizeof name, "bilateral.equality_%s", form ? "compact" : "dense");
    check(rc == DIAGC_OK && fabs(x[0] - want_x) <= 1e-12 * fabs(want_x) && fabs(vn[0] - (vs[0] + want_x / M0)) <= 1e-14 &&
              fabs(vn[1] - (vs[1] - k * want_x / M1)) <= 1e-14 && fabs(vn[0] - k * vn[1] - target) <= 1e-13,
          name, "rc %d x %.17g (want %.17g) v' %.17g %.17g", rc, x[0], want_x, vn[0], vn[1]);
  }
}

/* the linearized step along (dv (2), ddepth (1)), v = v*, nq = 0 */
static int tangent(const diagc_contact_problem *p, const double x[3], const double vn[2], double T[6]) {
  static const double I3[6] = {1, 0, 0, 0, 1, 0}; /* nv x ncol: dv/dv = I, no depth column */
  double Td[3] = {0, 0, 1};
  diagc_contact_options o;
  diagc_contact_tangent t;
  diagc_contact_options_init(&o);
  memset(&t, 0, sizeof t);
  t.ncol = 3, t.nq = 0, t.Tv = I3, t.Tvstar = I3, t.Tdepth = Td, t.Tv_next = T;
  return diagc_contact_tangent_solve(p, &o, x, vn, NULL, &t, tws, sizeof tws);
}

static void tangents(void) {
  const double F = 3.0, k = -2.0, a = 1.0 / M0 + k * k / M1;
  double x[3], vn[2], T[6];
  one_row s;
  diagc_contact_problem p;
  int rc;
  /* stuck: v0' = 0 whatever v */
  const double vstuck[2] = {1e-3, 0.7}, vslide[2] = {-4e-3, 0.7}, veq[2] = {0.3, -0.1};
  problem(&s, 1.0, 0.0, F * DT, 0.0, vstuck, 0, &p);
  solve(&p, DIAGC_CONTACT_DENSE, x, vn);
  rc = tangent(&p, x, vn, T);
  /* (its target erp depth / dt moves with the depth: v0' = target) */
  check(rc == DIAGC_OK && T[0] == 0.0 && T[1] == 0.0 && fabs(T[2] - 0.2 / DT) <= 1e-12 && T[4] == 1.0,
        "bilateral.tangent_stuck",
        "rc %d T %g %g %g / %g %g %g", rc, T[0], T[1], T[2], T[3], T[4], T[5]);
  problem(&s, 1.0, 0.0, F * DT, 0.0, vslide, 0, &p);
  solve(&p, DIAGC_CONTACT_DENSE, x, vn);
  rc = tangent(&p, x, vn, T);
  check(rc == DIAGC_OK && T[0] == 1.0 && T[1] == 0.0 && T[2] == 0.0 && T[4] == 1.0, "bilateral.tangent_sliding",
        "rc %d T %g %g %g / %g %g %g", rc, T[0], T[1], T[2], T[3], T[4], T[5]);
  /* equality: dv'/dv = I - M^-1 J^T J / a, dv'/ddepth = M^-1 J^T erp / (dt a) */
  problem(&s, 1.0, -k, INFINITY, 0.004, veq, 0, &p);
  solve(&p, DIAGC_CONTACT_DENSE, x, vn);
  rc = tangent(&p, x, vn, T);
  {
    const double mj[2] = {1.0 / M0, -k / M1}, J[2] = {1.0, -k};
    double err = 0.0;
    int i, j;
    for (i = 0; i < 2; i++) {
      for (j = 0; j < 2; j++) err = fmax(err, fabs(T[3 * i + j] - ((i == j) - mj[i] * J[j] / a)));
      err = fmax(err, fabs(T[3 * i + 2] - mj[i] * 0.2 / (DT * a)));
    }
    check(rc == DIAGC_OK && err <= 1e-12, "bilateral.tangent_equality", "rc %d err %g", rc, err);
  }
}

static void bad_args(void) {
  const double vs[2] = {0.0, 0.0};
  double x[3], vn[2];
  one_row s;
  diagc_contact_problem p;
  problem(&s, 1.0, 0.0, 1.0, 0.0, vs, 0, &p);
  s.mu[0] = 0.5;
  check(solve(&p, DIAGC_CONTACT_DENSE, x, vn) == DIAGC_CONTACT_E_ARG, "bilateral.bad_friction", "%s", "");
  problem(&s, 1.0, 0.0, 1.0, 0.0, vs, 0, &p);
  s.e[0] = 0.5;
  check(solve(&p, DIAGC_CONTACT_DENSE, x, vn) == DIAGC_CONTACT_E_ARG, "bilateral.bad_restitution", "%s", "");
  problem(&s, 1.0, 0.0, -1.0, 0.0, vs, 0, &p);
  check(solve(&p, DIAGC_CONTACT_DENSE, x, vn) == DIAGC_CONTACT_E_ARG, "bilateral.bad_bound", "%s", "");
}

int main(void) {
  (void)sleep_us;
  friction();
  equality();
  tangents();
  bad_args();
  return failures != 0;
}
