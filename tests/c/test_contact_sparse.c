/* Tests of the sparse contact method (diagc/world.h, "Contact solve",
 * compact rows; runtime/src/contact_sparse.c) against the dense one.
 *
 * 200 random contact snapshots of three kinds, built here from first
 * principles: stacks of 5 to 12 boxes (four corner contacts per face and
 * on the ground, slightly tilted), piles (boxes on a jittered grid,
 * touching neighbours and the ground at random points and normals), and
 * an arm (a 7-dof chain with a dense mass matrix) pressing on a row of
 * boxes.  Each box is a free body (6 dofs, a dense rotated inertia).  The
 * test forms J densely, M^-1 by its own Cholesky, A = J M^-1 J^T, b =
 * target - J v* with the targets of world.h, and scores the impulses of
 * both methods with diagc_lcp_violation on that A: each must satisfy the
 * LCP to 1e-9, and v_next must be v* + M^-1 J^T x.  Each snapshot is the
 * step after one the dense method solved, warm-started from its impulses
 * (as in a simulation); cold starts are tested apart.  Nothing is compared
 * with the solver's own output but the LCP's conditions. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "diagc/lcp.h"
#include "diagc/world.h"
#include "lcp/gen.h"

#define MAXB 36   /* bodies (trees) */
#define MAXC 120  /* contacts */
#define MAXV (6 * MAXB + 7)
#define W 13      /* compact width: 7 + 6 */
#define DT 1e-3

typedef struct {
  int nv, nc, ntrees;
  int dof0[MAXB + 2];        /* tree t's dofs: [dof0[t], dof0[t + 1]) */
  int dofs[MAXV];
  double Minv[MAXV * MAXV];  /* block diagonal */
  double J[3 * MAXC * MAXV];
  double Jc[3 * MAXC * W], MJc[3 * MAXC * W];
  double v[MAXV], vstar[MAXV], vnext[MAXV];
  double depth[MAXC], mu[MAXC];
  int tree[2 * MAXC];
  double x[3 * MAXC];
} snap;

static _Alignas(64) unsigned char ws[1 << 24];

/* Inverts the SPD n x n block at (o, o) of M (stride ld) into Minv by
 * Cholesky (the test's own). */
static void invert_block(const double *M, int n, double *out) {
  double L[49], inv[49];
  int i, j, k;
  for (i = 0; i < n; i++)
    for (j = 0; j <= i; j++) {
      double s = M[i * n + j];
      for (k = 0; k < j; k++) s -= L[i * n + k] * L[j * n + k];
      L[i * n + j] = i == j ? sqrt(s) : s / L[j * n + j];
    }
  for (j = 0; j < n; j++) { /* columns of M^-1 = L^-T L^-1 e_j */
    double y[7];
    for (i = 0; i < n; i++) {
      double s = i == j ? 1.0 : 0.0;
      for (k = 0; k < i; k++) s -= L[i * n + k] * y[k];
      y[i] = s / L[i * n + i];
    }
    for (i = n - 1; i >= 0; i--) {
      double s = y[i];
      for (k = i + 1; k < n; k++) s -= L[k * n + i] * inv[k * n + j];
      inv[i * n + j] = s / L[i * n + i];
    }
  }
  memcpy(out, inv, sizeof(double) * (size_t)(n * n));
}

/* A random SPD block: a box's spatial inertia (mass m, a rotated diagonal
 * inertia) or an arm's (R R^T + n I). */
static void add_tree(snap *s, uint64_t *r, int n) {
  double M[49], inv[49], R[49];
  int t = s->ntrees++, o = s->nv, i, j, k;
  memset(M, 0, sizeof M);
  if (n == 6) {
    double m = lcpg_range(r, 0.5, 2.0), I3[3], Q[9], a[3], b[3], c[3];
    for (i = 0; i < 3; i++) I3[i] = m * lcpg_range(r, 0.004, 0.02), M[i * 6 + i] = m;
    lcpg_unit(r, a), lcpg_unit(r, b), lcpg_cross(a, b, c);
    { double q = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]); for (i = 0; i < 3; i++) c[i] /= q; }
    lcpg_cross(c, a, b);
    for (i = 0; i < 3; i++) Q[i] = a[i], Q[3 + i] = b[i], Q[6 + i] = c[i];
    for (i = 0; i < 3; i++)
      for (j = 0; j < 3; j++) {
        double sum = 0.0;
        for (k = 0; k < 3; k++) sum += Q[k * 3 + i] * I3[k] * Q[k * 3 + j];
        M[(3 + i) * 6 + 3 + j] = sum;
      }
  } else {
    for (i = 0; i < n * n; i++) R[i] = lcpg_range(r, -1, 1);
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++) {
        double sum = i == j ? 0.5 * n : 0.0;
        for (k = 0; k < n; k++) sum += R[i * n + k] * R[j * n + k];
        M[i * n + j] = sum;
      }
  }
  invert_block(M, n, inv);
  for (i = 0; i < n; i++) {
    s->dofs[o + i] = o + i;
    for (j = 0; j < n; j++) s->Minv[(o + i) * MAXV + o + j] = inv[i * n + j];
  }
  s->dof0[t] = o;
  s->nv += n;
  s->dof0[t + 1] = s->nv;
}

/* A frame (n, t1, t2) from the normal n (diagc_contact_frame's). */
static void frame(const double n[3], double t1[3], double t2[3]) { diagc_contact_frame(n, t1, t2); }

/* The rows of direction d at lever rr on tree t (sign sg): a box's [d, r x d],
 * an arm's a random 3 x n point Jacobian (fixed per contact) times d. */
static void rows_on(snap *s, int k, int t, double sg, const double *rr, const double F[9], const double *P) {
  int o = s->dof0[t], n = s->dof0[t + 1] - o, a, c;
  for (a = 0; a < 3; a++) {
    double *row = s->J + (size_t)(3 * k + a) * MAXV + o;
    const double *d = F + 3 * a;
    if (n == 6) {
      double cr[3];
      lcpg_cross(rr, d, cr);
      for (c = 0; c < 3; c++) row[c] += sg * d[c], row[3 + c] += sg * cr[c];
    } else {
      for (c = 0; c < n; c++) row[c] += sg * (d[0] * P[c] + d[1] * P[n + c] + d[2] * P[2 * n + c]);
    }
  }
}

/* Contact k between trees ta (>= 0) and tb (-1: the world) along normal n
 * (pointing from b to a), at corner c (0..3) of a 0.2 m face of a's (the
 * point c - n 0.1 from a's centre, c + n 0.1 from b's), or at a random
 * point of a's surface (c < 0). */
static void contact(snap *s, uint64_t *r, int ta, int tb, const double n[3], int c, double depth, double mu) {
  int k = s->nc++, i;
  double F[9], ra[3], rb[3], P[21], u = (c & 1) ? 0.1 : -0.1, v = (c & 2) ? 0.1 : -0.1;
  for (i = 0; i < 3; i++) F[i] = n[i];
  frame(n, F + 3, F + 6);
  if (c < 0) u = lcpg_range(r, -0.1, 0.1), v = lcpg_range(r, -0.1, 0.1);
  for (i = 0; i < 3; i++) {
    double t = u * F[3 + i] + v * F[6 + i];
    ra[i] = t - 0.1 * n[i], rb[i] = t + 0.1 * n[i];
  }
  for (i = 0; i < 21; i++) P[i] = lcpg_range(r, -1, 1);
  rows_on(s, k, ta, 1.0, ra, F, P);
  if (tb >= 0) rows_on(s, k, tb, -1.0, rb, F, P);
  s->tree[2 * k] = ta, s->tree[2 * k + 1] = tb;
  s->depth[k] = depth, s->mu[k] = mu;
}

static void tilted_z(uint64_t *r, double tilt, double n[3]) {
  double q;
  n[0] = lcpg_range(r, -tilt, tilt), n[1] = lcpg_range(r, -tilt, tilt), n[2] = 1.0;
  q = sqrt(n[0] * n[0] + n[1] * n[1] + 1.0);
  n[0] /= q, n[1] /= q, n[2] /= q;
}

/* kind 0: a stack; 1: a pile; 2: an arm pressing on boxes; 3: 32 boxes on
 * the ground, each resting on one or two of its neighbours too. */
static void make(snap *s, int kind, uint64_t seed) {
  uint64_t r = seed * 0x9E3779B97F4A7C15ull + 11;
  int i, j, c, nb;
  double n[3], mu = lcpg_range(&r, 0.2, 1.0);
  memset(s, 0, sizeof *s);
  if (kind == 2) add_tree(s, &r, 7);
  nb = kind == 0 ? 5 + (int)(lcpg_next(&r) % 8) : kind == 1 ? 6 + (int)(lcpg_next(&r) % 9) : kind == 3 ? 32 : 4;
  for (i = 0; i < nb; i++) add_tree(s, &r, 6);
  if (kind == 0) { /* box i on box i - 1, box 0 on the ground */
    for (i = 0; i < nb; i++) {
      tilted_z(&r, 1e-3, n); /* one normal per face, four corners */
      for (c = 0; c < 4; c++) contact(s, &r, i, i == 0 ? -1 : i - 1, n, c, lcpg_range(&r, -1e-5, 2e-4), mu);
    }
  } else if (kind == 1) { /* each box touches the ground or one to three earlier ones */
    for (i = 0; i < nb; i++) {
      int m = 1 + (int)(lcpg_next(&r) % 3);
      for (j = 0; j < m; j++) {
        int other = i == 0 || lcpg_unif(&r) < 0.25 ? -1 : (int)(lcpg_next(&r) % (uint64_t)i);
        int pts = 1 + (int)(lcpg_next(&r) % 4);
        if (other >= 0) lcpg_unit(&r, n), n[2] = fabs(n[2]) + 0.3;
        else tilted_z(&r, 0.0, n);
        { double q = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]); n[0] /= q, n[1] /= q, n[2] /= q; }
        for (c = 0; c < pts; c++) contact(s, &r, i, other, n, pts == 4 ? c : -1, lcpg_range(&r, -1e-4, 3e-4), mu);
      }
    }
  } else if (kind == 3) {
    for (i = 0; i < nb; i++) {
      tilted_z(&r, 1e-3, n);
      for (c = 0; c < 2; c++) contact(s, &r, i, -1, n, c, lcpg_range(&r, 0, 2e-4), mu);
      if (i > 0) {
        lcpg_unit(&r, n), n[2] = fabs(n[2]) + 0.3;
        { double q = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]); n[0] /= q, n[1] /= q, n[2] /= q; }
        contact(s, &r, i, (int)(lcpg_next(&r) % (uint64_t)i), n, -1, lcpg_range(&r, -1e-4, 2e-4), mu);
      }
    }
  } else { /* the arm (tree 0) presses down on boxes 1..nb, each on the ground */
    for (i = 1; i <= nb; i++) {
      tilted_z(&r, 1e-3, n);
      for (c = 0; c < 4; c++) contact(s, &r, i, -1, n, c, lcpg_range(&r, 0, 2e-4), mu);
      tilted_z(&r, 0.2, n);
      for (c = 0; c < 2; c++) contact(s, &r, i, 0, n, -1, lcpg_range(&r, 0, 2e-4), mu);
    }
  }
  for (i = 0; i < s->nv; i++) {
    s->v[i] = lcpg_range(&r, -0.05, 0.05);
    s->vstar[i] = s->v[i] + (i % 6 == 2 ? -9.81 * DT : 0.0) + lcpg_range(&r, -0.02, 0.02);
  }
  /* compact rows and M^-1 J^T on each contact's trees */
  for (i = 0; i < 3 * s->nc; i++) {
    int k = i / 3, ta = s->tree[2 * k], tb = s->tree[2 * k + 1], col = 0, sd;
    for (sd = 0; sd < 2; sd++) {
      int t = sd == 0 ? ta : tb, d, e;
      if (t < 0 || (sd == 1 && tb == ta)) continue;
      for (d = s->dof0[t]; d < s->dof0[t + 1]; d++, col++) {
        double m = 0.0;
        for (e = s->dof0[t]; e < s->dof0[t + 1]; e++) m += s->Minv[d * MAXV + e] * s->J[(size_t)i * MAXV + e];
        s->Jc[(size_t)i * W + col] = s->J[(size_t)i * MAXV + d];
        s->MJc[(size_t)i * W + col] = m;
      }
    }
  }
}

static void problem(const snap *s, diagc_contact_problem *p) {
  memset(p, 0, sizeof *p);
  p->nv = s->nv, p->nc = s->nc, p->v = s->v, p->vstar = s->vstar, p->depth = s->depth, p->mu = s->mu;
  p->tree = s->tree, p->dt = DT;
  p->width = W, p->Jc = s->Jc, p->MJc = s->MJc, p->ntrees = s->ntrees;
  p->tree_dof0 = s->dof0, p->tree_dofs = s->dofs;
}

/* The LCP of the snapshot, formed densely here: rows of every contact
 * (n, t1', t2': the tangents turned as world.h says, t1' along the
 * contact's sliding velocity J_t v* when that exceeds 1e-7 m/s), A = J
 * M^-1 J^T, b = target - J v* (world.h's targets, restitution 0, the
 * default options); x (in the default tangents) turned the same way.  A
 * turned contact that slid at v (|J_t v| > 1e-6 m/s) is held to t1'
 * (bounds [0, 0] on t2') unless it stopped: one whose x_t1' is at mu x_n
 * with x_t2' = 0 is scored as held, the others as free. */
static double violation(const snap *s, const double *x0, double *A, double *b, double *lo, double *hi, int *fx) {
  static double Jt[3 * MAXC * MAXV], x[3 * MAXC];
  static int hold[MAXC];
  int n = 3 * s->nc, i, j, d, e, k;
  diagc_contact_options o;
  diagc_contact_options_init(&o);
  memcpy(Jt, s->J, sizeof(double) * (size_t)n * MAXV);
  memcpy(x, x0, sizeof(double) * (size_t)n);
  for (k = 0; k < s->nc; k++) {
    double u1 = 0.0, u2 = 0.0, v1 = 0.0, v2 = 0.0, r, c, sn;
    for (d = 0; d < s->nv; d++) {
      u1 += s->J[(size_t)(3 * k + 1) * MAXV + d] * s->vstar[d], u2 += s->J[(size_t)(3 * k + 2) * MAXV + d] * s->vstar[d];
      v1 += s->J[(size_t)(3 * k + 1) * MAXV + d] * s->v[d], v2 += s->J[(size_t)(3 * k + 2) * MAXV + d] * s->v[d];
    }
    r = hypot(u1, u2);
    hold[k] = 0;
    if (!(s->mu[k] > 0.0) || !(r > 1e-7)) continue;
    c = u1 / r, sn = u2 / r;
    for (d = 0; d < s->nv; d++) {
      double a = s->J[(size_t)(3 * k + 1) * MAXV + d], bb = s->J[(size_t)(3 * k + 2) * MAXV + d];
      Jt[(size_t)(3 * k + 1) * MAXV + d] = c * a + sn * bb;
      Jt[(size_t)(3 * k + 2) * MAXV + d] = -sn * a + c * bb;
    }
    x[3 * k + 1] = c * x0[3 * k + 1] + sn * x0[3 * k + 2];
    x[3 * k + 2] = -sn * x0[3 * k + 1] + c * x0[3 * k + 2];
    hold[k] = hypot(v1, v2) > 1e-6 && x[3 * k] > 0.0 && fabs(x[3 * k + 1]) >= s->mu[k] * x[3 * k] * (1.0 - 1e-9) &&
              fabs(x[3 * k + 2]) <= 1e-9 * s->mu[k] * x[3 * k];
  }
  for (i = 0; i < n; i++) {
    const double *Ji = Jt + (size_t)i * MAXV;
    double jv = 0.0;
    for (d = 0; d < s->nv; d++) jv += Ji[d] * s->vstar[d];
    for (j = 0; j < n; j++) {
      const double *Jj = Jt + (size_t)j * MAXV;
      double acc = 0.0;
      for (d = 0; d < s->nv; d++) {
        double m = 0.0;
        if (Ji[d] == 0.0) continue;
        for (e = 0; e < s->nv; e++) m += s->Minv[d * MAXV + e] * Jj[e];
        acc += Ji[d] * m;
      }
      A[(size_t)i * n + j] = acc;
    }
    if (i % 3 == 0) {
      double dep = s->depth[i / 3], t;
      if (dep >= 0.0) {
        t = dep > o.allowed_penetration ? o.erp * (dep - o.allowed_penetration) / DT : 0.0;
        if (t > o.max_correction_speed) t = o.max_correction_speed;
      } else {
        t = dep / DT;
      }
      b[i] = t - jv, lo[i] = 0.0, hi[i] = INFINITY, fx[i] = -1;
    } else {
      double mu = i % 3 == 2 && hold[i / 3] ? 0.0 : s->mu[i / 3];
      b[i] = -jv, lo[i] = -mu, hi[i] = mu, fx[i] = i - i % 3;
    }
  }
  return diagc_lcp_violation(n, A, b, lo, hi, fx, x);
}

/* |v_next - (v* + M^-1 J^T x)| */
static double velocity_error(const snap *s) {
  double worst = 0.0;
  int d, e, i;
  for (d = 0; d < s->nv; d++) {
    double v = s->vstar[d];
    for (i = 0; i < 3 * s->nc; i++) {
      double m = 0.0;
      if (s->x[i] == 0.0) continue;
      for (e = 0; e < s->nv; e++) m += s->Minv[d * MAXV + e] * s->J[(size_t)i * MAXV + e];
      v += m * s->x[i];
    }
    if (fabs(v - s->vnext[d]) > worst) worst = fabs(v - s->vnext[d]);
  }
  return worst;
}

/* Solves snapshot s with the given method from the impulses in s->x;
 * returns the status, *v the violation of the test's own LCP. */
static int solve_snap(snap *s, int method, double budget, double *v, diagc_contact_stats *st) {
  static double A[(3 * MAXC) * (3 * MAXC)], b[3 * MAXC], lo[3 * MAXC], hi[3 * MAXC];
  static int fx[3 * MAXC];
  diagc_contact_problem p;
  diagc_contact_options o;
  int rc;
  problem(s, &p);
  diagc_contact_options_init(&o);
  o.method = method;
  o.lcp.tol = 1e-12;
  o.lcp.work_budget = budget;
  rc = diagc_contact_solve(&p, &o, s->x, s->vnext, ws, sizeof ws, st);
  *v = violation(s, s->x, A, b, lo, hi, fx);
  return rc;
}

/* The next step of a snapshot: velocities and depths moved by about one
 * step's change (the impulses in s->x, the previous step's, stay: the
 * warm start a simulation gives). */
static void next_step(snap *s, uint64_t seed) {
  uint64_t r = seed * 0x2545F4914F6CDD1Dull + 3;
  int i;
  for (i = 0; i < s->nv; i++) s->vstar[i] += lcpg_range(&r, -2e-3, 2e-3);
  for (i = 0; i < s->nc; i++) s->depth[i] += lcpg_range(&r, -2e-5, 2e-5);
}

/* 200 snapshots: the previous step solved by the dense method, then the
 * next one by both methods from its impulses; each must satisfy the LCP
 * to 1e-9 (no work budget: exactness, not real time, is tested). */
static void test_agreement(void) {
  static snap s;
  static double x0[3 * MAXC];
  static const char *kinds[3] = {"stack", "pile", "arm"};
  double worst[2] = {0.0, 0.0}, verr = 0.0;
  int seed, bad = 0, sparse_islands = 0, fallbacks = 0, m, hard = 0, silent = 0;
  char where[160] = "";
  for (seed = 0; seed < 200; seed++) {
    int kind = seed % 3;
    diagc_contact_stats st;
    double v;
    make(&s, kind, (uint64_t)seed + 1);
    solve_snap(&s, DIAGC_CONTACT_DENSE, -1.0, &v, &st);
    memcpy(x0, s.x, sizeof(double) * 3 * (size_t)s.nc);
    next_step(&s, (uint64_t)seed + 1);
    for (m = 1; m >= 0; m--) { /* the dense reference first */
      int rc;
      memcpy(s.x, x0, sizeof(double) * 3 * (size_t)s.nc);
      rc = solve_snap(&s, m == 0 ? DIAGC_CONTACT_SPARSE : DIAGC_CONTACT_DENSE, -1.0, &v, &st);
      if (v > worst[m]) worst[m] = v;
      if (m == 0) sparse_islands += st.sparse_islands, fallbacks += st.sparse_fallbacks;
      if (velocity_error(&s) > verr) verr = velocity_error(&s);
      if (m == 1 && !(v <= 1e-9)) { /* the reference does not solve it: not a comparison */
        hard++;
        break;
      }
      if (rc < 0 || !(v <= 1e-9)) {
        if (!bad)
          snprintf(where, sizeof where, "%s seed %d (%s): status %d, violation %.3g", kinds[kind], seed,
                   m == 0 ? "sparse" : "dense", rc, v);
        bad++;
        if (!(v <= 1e-6) && (rc == DIAGC_OK || rc == DIAGC_LCP_SOLVED_TOL)) silent++;
      }
    }
  }
  /* measured: 1 of 400 (a stack whose every contact slides and is held,
     where the proximal rounds wander; it says so), 4 before them */
  check(bad * 200 <= 2 * (200 - hard), "sparse_agreement_200",
        "%d of %d solves fail the LCP by more than 1e-9 (0.5 %% allowed); first: %s", bad, 2 * (200 - hard), where);
  check(silent == 0, "sparse_agreement_never_silent", "%d solves left unsolved with a success status", silent);
  check(hard <= 10, "sparse_agreement_reference", "the dense reference solves only %d of 200", 200 - hard);
  check(sparse_islands > 150, "sparse_agreement_used", "the sparse method solved only %d islands", sparse_islands);
  check(verr < 1e-12, "sparse_agreement_velocity", "v_next differs from v* + M^-1 J^T x by %.3g", verr);
  printf("# sparse: %d of %d solves above 1e-9; worst violation %.3g (dense %.3g), %d islands sparse, %d handed to "
         "dense; %d snapshots the dense reference does not solve\n", bad, 2 * (200 - hard), worst[0], worst[1],
         sparse_islands, fallbacks, hard);
}

/* From no warm start (a first step), with the default work budget: stacks
 * and arms are solved, random piles mostly; whatever the sparse method
 * does not solve must say so (status INEXACT or BUDGET, counted in the
 * stats), never OK. */
static void test_cold(void) {
  static snap s;
  int seed, bad = 0, silent = 0, piles = 0, pile_ok = 0;
  char where[160] = "";
  for (seed = 0; seed < 200; seed++) {
    int kind = seed % 3, rc;
    diagc_contact_stats st;
    double v;
    make(&s, kind, (uint64_t)seed + 1000);
    memset(s.x, 0, sizeof s.x);
    rc = solve_snap(&s, DIAGC_CONTACT_SPARSE, 0.0, &v, &st);
    if (kind == 1) {
      piles++;
      pile_ok += v <= 1e-9;
      if (!(v <= 1e-6) && (rc == DIAGC_OK || rc == DIAGC_LCP_SOLVED_TOL)) silent++;
    } else if (rc < 0 || !(v <= 1e-9)) {
      if (!bad) snprintf(where, sizeof where, "seed %d: status %d, violation %.3g", seed, rc, v);
      bad++;
      if (!(v <= 1e-6) && (rc == DIAGC_OK || rc == DIAGC_LCP_SOLVED_TOL)) silent++;
    }
  }
  /* measured: 0 of 133 (3 before the proximal rounds; 5 before held
     contacts entered sliding) (within the default work budget; 0 without the
     held friction rows: these snapshots' random v has every contact
     sliding at the start of the step, so every turned contact is held and
     those that stop are released and their island solved again, up to
     four solves in a row; the dense method leaves 26 of them unsolved) */
  check(bad * 40 <= 133, "sparse_cold_stacks_arms", "%d of 133 cold stacks and arms not solved; first: %s", bad,
        where);
  check(silent == 0, "sparse_cold_never_silent", "%d cold piles left unsolved with a success status", silent);
  /* measured: 58 to 59 of 67 */
  check(pile_ok * 5 >= piles * 4, "sparse_cold_piles", "only %d of %d cold random piles solved", pile_ok, piles);
  printf("# sparse, cold: %d of 133 stacks and arms and %d of %d random piles solved to 1e-9 (the others counted "
         "inexact)\n", 133 - bad, pile_ok, piles);
}

/* The compact workspace is O(contacts): no n^2 part beyond the dense
 * fallback's fixed rows. */
static void test_workspace(void) {
  size_t a = diagc_contact_compact_workspace_size(300, 200, DIAGC_CONTACT_SPARSE);
  size_t b = diagc_contact_compact_workspace_size(300, 400, DIAGC_CONTACT_SPARSE);
  size_t c = diagc_contact_compact_workspace_size(300, 800, DIAGC_CONTACT_SPARSE);
  size_t d = diagc_contact_compact_workspace_size(300, 200, DIAGC_CONTACT_DENSE);
  check(a > 0 && b > a && c > b && (c - b) <= 2 * (b - a) + 4096, "sparse_workspace_linear",
        "sizes at 200, 400, 800 contacts: %zu, %zu, %zu", a, b, c);
  check(d > a, "sparse_workspace_dense_larger", "dense %zu, sparse %zu at 200 contacts", d, a);
  check(diagc_contact_compact_workspace_size(300, 200, 7) == 0, "sparse_workspace_bad_method", "accepted method 7");
}

/* A workspace of exactly the size asked for is enough, and nothing past
 * its end is written, for both methods (the dense method's island pass
 * keeps one entry per tree: a pile of 15 trees overran a dense compact
 * workspace by 76 bytes). */
static void test_exact_workspace(void) {
  static snap s;
  static unsigned char buf[(1 << 24) + 4096];
  int method, seed;
  for (method = 0; method < 2; method++)
    for (seed = 1; seed <= 20; seed++) {
      diagc_contact_problem p;
      diagc_contact_options o;
      size_t need, off, i;
      int rc, touched = 0, m = method == 0 ? DIAGC_CONTACT_SPARSE : DIAGC_CONTACT_DENSE;
      make(&s, seed % 2 ? 1 : 3, 700u + (unsigned)seed);
      problem(&s, &p);
      diagc_contact_options_init(&o);
      o.method = m;
      need = diagc_contact_compact_workspace_size(s.nv, s.nc, m);
      off = (64 - (uintptr_t)buf % 64) % 64;
      if (need + off + 4096 > sizeof buf) continue;
      memset(buf, 0xA5, sizeof buf);
      rc = diagc_contact_solve(&p, &o, s.x, s.vnext, buf + off, need, NULL);
      for (i = off + need; i < off + need + 4096; i++) touched += buf[i] != 0xA5;
      if (touched || rc == DIAGC_CONTACT_E_WORKSPACE || rc == DIAGC_CONTACT_E_ARG) {
        check(0, "sparse_exact_workspace", "%s method, seed %d, %d trees: status %d, %d bytes past the end written",
              method ? "dense" : "sparse", seed, s.ntrees, rc, touched);
        return;
      }
    }
  check(1, "sparse_exact_workspace", "%s", "20 piles per method, 10 of 32 trees");
}

/* Bad compact input is refused (a width too small, a tree out of range). */
static void test_arguments(void) {
  static snap s;
  diagc_contact_problem p;
  diagc_contact_options o;
  int rc;
  make(&s, 0, 3);
  problem(&s, &p);
  diagc_contact_options_init(&o);
  p.width = 6;
  rc = diagc_contact_solve(&p, &o, s.x, s.vnext, ws, sizeof ws, NULL);
  check(rc == DIAGC_CONTACT_E_ARG, "sparse_arg_width", "status %d", rc);
  problem(&s, &p);
  p.ntrees = 2;
  rc = diagc_contact_solve(&p, &o, s.x, s.vnext, ws, sizeof ws, NULL);
  check(rc == DIAGC_CONTACT_E_ARG, "sparse_arg_tree", "status %d", rc);
  problem(&s, &p);
  rc = diagc_contact_solve(&p, &o, s.x, s.vnext, ws, diagc_contact_compact_workspace_size(s.nv, s.nc, 0) - 1, NULL);
  check(rc == DIAGC_CONTACT_E_WORKSPACE, "sparse_arg_workspace", "status %d", rc);
}

int main(void) {
  (void)sleep_us;  /* check.h's and gen.h's helpers this file does not use */
  (void)lcpg_make;
  test_agreement();
  test_cold();
  test_workspace();
  test_exact_workspace();
  test_arguments();
  return failures != 0;
}
