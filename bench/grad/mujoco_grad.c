/* bench/grad/mujoco_grad.c: MuJoCo's side of the step-Jacobian benchmark
 * (issue #18): on the MJCF versions of examples/world/{cartpole, stack,
 * arm_push}.lua (bench/grad/mjcf/), the time of one mj_step and of
 * mjd_transitionFD (its finite-difference transition Jacobians
 * A = d(q', v')/d(q, v), (2nv+na)^2, and B = d(q', v')/d ctrl,
 * (2nv+na) x nu, in tangent coordinates) centered and forward, eps 1e-6,
 * at one settled state of each scene; with sanity checks of what
 * transitionFD returns.  MuJoCo 2.2 (Debian libmujoco-dev).
 *
 *   mujoco_grad MJCF_DIR SCENE SETTLE QUICK
 *
 * SCENE: cartpole, stack or arm.  The scene starts from its keyframe (if
 * any), settles SETTLE steps of 1 ms (bench/grad/run chooses them) under
 * the example's controller (the cartpole's cart PD, the arm's joint PD;
 * the stack has none), and is measured at that state with the
 * controller's output there held as ctrl.  Every timed call starts from
 * that same state (qpos, qvel, act, ctrl, time, qacc_warmstart restored:
 * a copy of a few hundred bytes, inside the timed loop of every call).
 * Time per call: the best over 11 rounds of the mean over a batch of at
 * least 30 ms, the batches of the three calls interleaved.
 *
 * Output, tab-separated:
 *   SCENE  name nq nv na nu ncon nefc settle_steps
 *   RESULT name nv nu ncon step_us fdc_us fdf_us fdc_evals fdf_evals
 *   CHECK  name what ok|FAIL value
 *   INFO   name what value
 * fd*_evals: the steps one transitionFD call takes (perturbations of
 * 2nv + na + nu coordinates, both ways when centered, plus the nominal
 * step).  The diagc side of the comparison is not here (bench/grad/run). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mujoco/mujoco.h>

#define EPS 1e-6
#define GUARD 8
#define SENTINEL 12345.678

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* a scene: its MJCF file, the dimensions diagc's example has
 * (nv of the world, actuated dofs), and the example's PD controller on the
 * first npd dofs (tau_i = kp_i (target_i - q_i) - kd_i v_i) */
typedef struct {
  const char *name, *file;
  int nv, nu, npd;
  double kp[3], kd[3], target[3];
} scene;

static const scene SCENES[] = {
  {"cartpole", "cartpole.xml", 2, 1, 1, {20}, {9}, {1}},
  {"stack", "stack.xml", 30, 0, 0, {0}, {0}, {0}},
  {"arm", "arm.xml", 9, 3, 3, {30, 20, 10}, {3, 2, 1}, {1.2, 0, 0}},
};

static void control(const scene *s, const mjModel *m, mjData *d) {
  for (int i = 0; i < s->npd && i < m->nu; i++)
    d->ctrl[i] = s->kp[i] * (s->target[i] - d->qpos[i]) - s->kd[i] * d->qvel[i];
}

/* the state every timed call starts from */
typedef struct { double time, *qpos, *qvel, *act, *ctrl, *warm; } state;

static void save(const mjModel *m, const mjData *d, state *x) {
  x->time = d->time;
  x->qpos = malloc(sizeof(double) * (m->nq + 2 * m->nv + m->na + m->nu + 1));
  x->qvel = x->qpos + m->nq;
  x->warm = x->qvel + m->nv;
  x->act = x->warm + m->nv;
  x->ctrl = x->act + m->na;
  memcpy(x->qpos, d->qpos, sizeof(double) * m->nq);
  memcpy(x->qvel, d->qvel, sizeof(double) * m->nv);
  memcpy(x->warm, d->qacc_warmstart, sizeof(double) * m->nv);
  memcpy(x->act, d->act, sizeof(double) * m->na);
  memcpy(x->ctrl, d->ctrl, sizeof(double) * m->nu);
}

static void restore(const mjModel *m, mjData *d, const state *x) {
  d->time = x->time;
  memcpy(d->qpos, x->qpos, sizeof(double) * m->nq);
  memcpy(d->qvel, x->qvel, sizeof(double) * m->nv);
  memcpy(d->qacc_warmstart, x->warm, sizeof(double) * m->nv);
  memcpy(d->act, x->act, sizeof(double) * m->na);
  memcpy(d->ctrl, x->ctrl, sizeof(double) * m->nu);
}

enum { STEP, FD_CENTERED, FD_FORWARD };

static void call(int what, const mjModel *m, mjData *d, double *A, double *B) {
  if (what == STEP) mj_step(m, d);
  else mjd_transitionFD(m, d, EPS, what == FD_CENTERED, A, B, NULL, NULL);
}

/* the mean time of n calls from state x, in microseconds per call */
static double batch(int what, const mjModel *m, mjData *d, const state *x, double *A, double *B, int n) {
  double t0 = now();
  for (int k = 0; k < n; k++) { restore(m, d, x); call(what, m, d, A, B); }
  return (now() - t0) / n * 1e6;
}

/* microseconds per call of mj_step, centered and forward transitionFD
 * (us[3]): each a batch of at least target_ms, the three batches
 * interleaved, best of reps rounds (the ratios come from neighbouring
 * batches) */
static void timed(const mjModel *m, mjData *d, const state *x, double *A, double *B, int reps, double target_ms,
                  double us[3]) {
  int n[3];
  for (int w = 0; w < 3; w++) {  /* batch sizes: double until one batch takes target_ms */
    n[w] = 1;
    while (batch(w, m, d, x, A, B, n[w]) * n[w] < target_ms * 1e3) n[w] *= 2;
    us[w] = INFINITY;
  }
  for (int r = 0; r < reps; r++)
    for (int w = 0; w < 3; w++) us[w] = fmin(us[w], batch(w, m, d, x, A, B, n[w]));
  restore(m, d, x);
}

static void check(const char *scene, const char *what, int ok, double value) {
  printf("CHECK\t%s\t%s\t%s\t%.3e\n", scene, what, ok ? "ok" : "FAIL", value);
}

/* every one of the n entries written with a finite value (they start as
 * NaN), and the GUARD entries after them untouched */
static int filled(const double *x, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(x[i])) return 0;
  for (int i = n; i < n + GUARD; i++)
    if (x[i] != SENTINEL) return 0;
  return 1;
}

static double *matrix(int n) {
  double *x = malloc(sizeof(double) * (n + GUARD));
  for (int i = 0; i < n; i++) x[i] = NAN;
  for (int i = n; i < n + GUARD; i++) x[i] = SENTINEL;
  return x;
}

/* largest |a - b| over n entries, and largest |b| */
static double maxdiff(const double *a, const double *b, int n, double *scale) {
  double e = 0, s = 0;
  for (int i = 0; i < n; i++) { e = fmax(e, fabs(a[i] - b[i])); s = fmax(s, fabs(b[i])); }
  *scale = s;
  return e;
}

/* 1 for the dofs whose position coordinate MuJoCo's Euler step advances
 * as q' = q + h v' exactly (hinges, slides, a free joint's translation),
 * 0 for the rotations of free and ball joints (q' = q * exp(h w'/2), whose
 * tangent is the identity only to first order in h |w|) */
static int linear_dof(const mjModel *m, int dof) {
  int j = m->dof_jntid[dof], t = m->jnt_type[j];
  return t == mjJNT_HINGE || t == mjJNT_SLIDE || (t == mjJNT_FREE && dof - m->jnt_dofadr[j] < 3);
}

/* Euler's position update q' = q (+) h v' (MuJoCo's default integrator):
 * d q'/d y = I_qy + h d v'/d y for every column y of M (2nv + na rows,
 * ncol columns; I_qy: 1 where y is the same position coordinate, else 0)
 * on the rows of linear_dof.  Returns the largest deviation relative to
 * the largest |h d v'/d y| on those rows. */
static double euler_rows(const mjModel *m, const double *M, int ncol, int with_identity) {
  int nv = m->nv;
  double h = m->opt.timestep, e = 0, s = 0;
  for (int i = 0; i < nv; i++) {
    if (!linear_dof(m, i)) continue;
    for (int j = 0; j < ncol; j++) {
      double id = with_identity && i == j ? 1 : 0;
      e = fmax(e, fabs(M[i * ncol + j] - id - h * M[(nv + i) * ncol + j]));
      s = fmax(s, fabs(h * M[(nv + i) * ncol + j]));
    }
  }
  return s > 0 ? e / s : e;
}

/* the cartpole without contacts: d v'/d u = h (M + h D)^-1 e_cart, MuJoCo
 * 2.2's Euler step with its implicit joint damping D; M from mj_fullM at
 * the measured state (a 2 x 2 solve) */
static double cartpole_b(const mjModel *m, mjData *d, const double *B) {
  double M[4], h = m->opt.timestep;
  mj_forward(m, d);
  mj_fullM(m, M, d->qM);
  M[0] += h * m->dof_damping[0];
  M[3] += h * m->dof_damping[1];
  double det = M[0] * M[3] - M[1] * M[2];
  double x[2] = {h * M[3] / det, -h * M[2] / det}, e = 0, s = 0;
  for (int i = 0; i < 2; i++) {
    e = fmax(e, fabs(B[m->nv + i] - x[i]));
    s = fmax(s, fabs(x[i]));
  }
  return e / s;
}

/* contacts between the arm's links and the box */
static int arm_box_contacts(const mjModel *m, const mjData *d) {
  int box = mj_name2id(m, mjOBJ_BODY, "box"), n = 0;
  for (int i = 0; i < d->ncon; i++) {
    int b1 = m->geom_bodyid[d->contact[i].geom1], b2 = m->geom_bodyid[d->contact[i].geom2];
    if ((b1 == box && b2 != 0) || (b2 == box && b1 != 0)) n++;
  }
  return n;
}

static int run(const scene *s, const char *dir, int settle, int quick) {
  char path[4096], err[1000] = "";
  snprintf(path, sizeof path, "%s/%s", dir, s->file);
  mjModel *m = mj_loadXML(path, NULL, err, sizeof err);
  if (!m) { fprintf(stderr, "mujoco_grad: %s: %s\n", path, err); return 1; }
  mjData *d = mj_makeData(m);
  if (m->nkey > 0) mj_resetDataKeyframe(m, d, 0);
  for (int k = 0; k < settle; k++) { control(s, m, d); mj_step(m, d); }
  control(s, m, d);
  state x;
  save(m, d, &x);
  mj_forward(m, d);  /* contacts and constraints at the measured state */
  int ncon = d->ncon, nefc = d->nefc, nbox = s->npd == 3 ? arm_box_contacts(m, d) : 0;
  printf("SCENE\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", s->name, m->nq, m->nv, m->na, m->nu, ncon, nefc, settle);

  int ndx = 2 * m->nv + m->na, nu = m->nu, fail = 0;
  double *Ac = matrix(ndx * ndx), *Bc = matrix(ndx * nu), *Af = matrix(ndx * ndx), *Bf = matrix(ndx * nu);
  restore(m, d, &x);
  call(FD_CENTERED, m, d, Ac, Bc);
  restore(m, d, &x);
  call(FD_FORWARD, m, d, Af, Bf);
  restore(m, d, &x);

  /* sanity checks */
#define CHECK(what, cond, value) do { int ok_ = (cond); fail |= !ok_; check(s->name, what, ok_, value); } while (0)
  CHECK("dims_as_example(nv,nu)", m->nv == s->nv && m->nu == s->nu && m->na == 0, m->nv * 100 + m->nu);
  CHECK("A_centered_(2nv+na)^2_filled_finite", filled(Ac, ndx * ndx), ndx);
  CHECK("B_centered_(2nv+na)xnu_filled_finite", filled(Bc, ndx * nu), nu);
  CHECK("A_forward_filled_finite", filled(Af, ndx * ndx), ndx);
  CHECK("B_forward_filled_finite", filled(Bf, ndx * nu), nu);
  double ea = euler_rows(m, Ac, ndx, 1);
  CHECK("A_rows_dq'_eq_I+h_dv'(Euler)", ea <= 1e-3, ea);
  if (nu > 0) {
    double eb = euler_rows(m, Bc, nu, 0);
    CHECK("B_rows_dq'_eq_h_dv'(Euler)", eb <= 1e-3, eb);
  }
  if (!strcmp(s->name, "cartpole")) {
    double e = cartpole_b(m, d, Bc);
    restore(m, d, &x);
    CHECK("B_dv'_eq_h(M+hD)^-1e_cart", e <= 1e-6, e);
    CHECK("no_contacts", ncon == 0, ncon);
  } else {
    CHECK("contacts_active", ncon > 0 && nefc > 0, ncon);
  }
  if (s->npd == 3) CHECK("arm_touches_box", nbox > 0, nbox);
#undef CHECK
  double sc, ed = maxdiff(Af, Ac, ndx * ndx, &sc);
  printf("INFO\t%s\tmax|A_forward-A_centered|/max|A|\t%.3e\n", s->name, ed / sc);
  int nbad = 0;  /* a contact mode that changes inside the stencil shows here */
  for (int i = 0; i < ndx * ndx; i++) nbad += fabs(Af[i] - Ac[i]) > 1e-3 * sc;
  printf("INFO\t%s\tA_entries_forward_vs_centered_over_1e-3max|A|\t%d/%d\n", s->name, nbad, ndx * ndx);
  if (nu > 0) {
    ed = maxdiff(Bf, Bc, ndx * nu, &sc);
    printf("INFO\t%s\tmax|B_forward-B_centered|/max|B|\t%.3e\n", s->name, ed / sc);
  }

  /* timing */
  int reps = quick ? 2 : 11;
  double target = quick ? 5 : 30;
  double us[3];
  timed(m, d, &x, Ac, Bc, reps, target, us);
  int nx = ndx + nu;
  printf("RESULT\t%s\t%d\t%d\t%d\t%.3f\t%.3f\t%.3f\t%d\t%d\n", s->name, m->nv, nu, ncon, us[STEP], us[FD_CENTERED],
         us[FD_FORWARD], 2 * nx + 1, nx + 1);
  fflush(stdout);
  free(Ac), free(Bc), free(Af), free(Bf), free(x.qpos);
  mj_deleteData(d);
  mj_deleteModel(m);
  return fail;
}

/* MuJoCo's default warning handler appends to MUJOCO_LOG.TXT in the
   working directory (the project's root under make bench): say it on
   stderr instead, where the suite's log keeps it. */
static void warn_to_stderr(const char *msg) { fprintf(stderr, "MuJoCo warning: %s\n", msg); }

int main(int argc, char **argv) {
  mju_user_warning = warn_to_stderr;
  if (argc < 4) { fprintf(stderr, "usage: mujoco_grad MJCF_DIR SCENE SETTLE [QUICK]\n"); return 2; }
  int quick = argc > 4 && atoi(argv[4]) != 0;
  for (size_t i = 0; i < sizeof SCENES / sizeof SCENES[0]; i++)
    if (!strcmp(SCENES[i].name, argv[2])) return run(&SCENES[i], argv[1], atoi(argv[3]), quick);
  fprintf(stderr, "mujoco_grad: no scene '%s'\n", argv[2]);
  return 2;
}
