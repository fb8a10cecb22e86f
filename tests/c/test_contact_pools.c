/* The sparse contact method's pools (runtime/src/contact.c, plan();
 * docs/world.md, "Context size"): a workspace sized for nc_max contacts
 * gives the pools of nc_max contacts to a step that holds fewer, and an
 * island beyond them is counted (stats.pool_overflows), never silent.
 *
 * The scene: one box (6 dofs, diagonal M) resting on the ground on K
 * contacts spread over its bottom face (on an ellipse: each a vertex of
 * their hull, so none is dropped as redundant, runtime/src/contact_tree.c),
 * in compact rows.  Every contact
 * shares the box's tree with every other, so the island's neighbour list
 * has K^2 entries: above the pools of K contacts (48 entries per contact)
 * for K = 56, within those of 3K.  Expected values are analytic: at rest the
 * normal impulses carry the weight, m g dt, and the box stops (v = 0). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "diagc/world.h"

#define G 9.81
#define DT 1e-3
#define K 56

static _Alignas(64) unsigned char ws[1 << 22];

typedef struct {
  double Jc[3 * K * 6], MJc[3 * K * 6];
  double v[6], vstar[6], vnext[6], depth[K], mu[K], x[3 * K];
  int tree[2 * K];
} scene;

static const int DOF0[2] = {0, 6}, DOFS[6] = {0, 1, 2, 3, 4, 5};

/* the box (mass m, half sizes a, b, c) at rest on its K contacts, points
 * of the ellipse inscribed in its bottom face */
static void make(scene *s, double m, double a, double b, double c) {
  double I[3], minv[6];
  int k, r, i;
  memset(s, 0, sizeof *s);
  I[0] = m * (b * b + c * c) / 3.0, I[1] = m * (a * a + c * c) / 3.0, I[2] = m * (a * a + b * b) / 3.0;
  for (i = 0; i < 3; i++) minv[i] = 1.0 / m, minv[3 + i] = 1.0 / I[i];
  for (k = 0; k < K; k++) {
    double p[3], d[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}}; /* n, t1, t2 */
    p[0] = a * cos(6.283185307179586 * k / K), p[1] = b * sin(6.283185307179586 * k / K), p[2] = -c;
    for (r = 0; r < 3; r++) {
      double *row = s->Jc + (3 * k + r) * 6;
      for (i = 0; i < 3; i++) row[i] = d[r][i];
      row[3] = p[1] * d[r][2] - p[2] * d[r][1];
      row[4] = p[2] * d[r][0] - p[0] * d[r][2];
      row[5] = p[0] * d[r][1] - p[1] * d[r][0];
      for (i = 0; i < 6; i++) s->MJc[(3 * k + r) * 6 + i] = minv[i] * row[i];
    }
    s->depth[k] = 0.0, s->mu[k] = 0.5;
    s->tree[2 * k] = 0, s->tree[2 * k + 1] = -1;
  }
  s->vstar[2] = -G * DT;
}

static int solve(scene *s, size_t ws_size, diagc_contact_stats *st) {
  diagc_contact_problem p;
  diagc_contact_options o;
  memset(&p, 0, sizeof p);
  p.nv = 6, p.nc = K, p.v = s->v, p.vstar = s->vstar, p.depth = s->depth, p.mu = s->mu, p.tree = s->tree;
  p.dt = DT, p.width = 6, p.Jc = s->Jc, p.MJc = s->MJc, p.ntrees = 1, p.tree_dof0 = DOF0, p.tree_dofs = DOFS;
  diagc_contact_options_init(&o);
  o.method = DIAGC_CONTACT_SPARSE;
  memset(s->x, 0, sizeof s->x);
  return diagc_contact_solve(&p, &o, s->x, s->vnext, ws, ws_size, st);
}

static void test_pools(void) {
  static scene s;
  diagc_contact_stats st;
  double m = 2.0, sum = 0.0, vmax = 0.0;
  size_t exact = diagc_contact_compact_workspace_size(6, K, DIAGC_CONTACT_SPARSE);
  size_t room = diagc_contact_compact_workspace_size(6, 3 * K, DIAGC_CONTACT_SPARSE);
  int rc, k, i;
  check(exact > 0 && room > exact && room <= sizeof ws, "pools.sizes", "workspace %zu, %zu bytes", exact, room);
  make(&s, m, 0.2, 0.1, 0.05);
  /* the workspace of K contacts: the island's K^2 neighbours overflow */
  rc = solve(&s, exact, &st);
  check(st.pool_overflows == 1 && st.sparse_islands + st.sparse_fallbacks >= 1, "pools.overflow_counted",
        "status %d, pool_overflows %d", rc, st.pool_overflows);
  /* the workspace of 3K contacts holding K: its pools take all of it */
  rc = solve(&s, room, &st);
  for (k = 0; k < K; k++) sum += s.x[3 * k];
  for (i = 0; i < 6; i++) vmax = fabs(s.vnext[i]) > vmax ? fabs(s.vnext[i]) : vmax;
  check(rc == DIAGC_OK && st.pool_overflows == 0 && st.sparse_islands == 1, "pools.use_the_room",
        "status %d, pool_overflows %d, sparse islands %d", rc, st.pool_overflows, st.sparse_islands);
  /* to the LCP's tolerance (1e-9 on the contact velocities, the default) */
  check(fabs(sum - m * G * DT) <= 1e-9 * m * G * DT && vmax <= 1e-9, "pools.at_rest",
        "normal impulses %.17g (m g dt %.17g), |v_next| %.3g", sum, m * G * DT, vmax);
}

int main(void) {
  (void)sleep_us; /* check.h's helper this file does not use */
  test_pools();
  return failures != 0;
}
