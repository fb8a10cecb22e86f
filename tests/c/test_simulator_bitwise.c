/* Paths through the integrators that must agree bit for bit, every step's
 * time and continuous state compared:
 *   - how the context's state is written: set_xc and mutable_xc, set_xc
 *     alone, mutable_xc alone (every integrator, error control on and
 *     off, with witness crossings and with stiff rejections);
 *   - where the implicit methods' sparse Jacobian comes from: the model's
 *     descriptor or diagc_sim_set_xc_jacobian (the same function);
 *   - a simulator alone, and the same simulator interleaved with another
 *     one (advance_to in turns): no state shared between simulators (the
 *     methods' and the Newton core's scratch is the simulator's own).
 * No expected values: each pair of runs is compared with itself. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagc/simulator.h"
#include "../../runtime/src/implicit.h"
#include "models/check.h"
#include "models/bouncing.c"
#include "models/chain.c"
#include "models/decay.c"
#include "models/oscillator.c"
#include "models/robertson.c"
#include "models/vdp_stiff.c"

static const char *const INTEG[] = {
    "explicit_euler",    "runge_kutta2",     "runge_kutta3",
    "runge_kutta4",      "semi_explicit_euler", "bogacki_shampine3",
    "dormand_prince54",  "implicit_euler",   "radau3",
    "radau5"};
enum { N_INTEG = 10 };

/* A trajectory: after every simulator step, t and xc. */
typedef struct traj {
  diagc_sim *sim;
  const diagc_model *m;
  double *v;
  size_t n, cap;
  long steps;
  int rc;
} traj;

static void record(void *user, double t) {
  traj *tr = (traj *)user;
  const double *xc = (const double *)(const void *)(
      (const char *)diagc_sim_context(tr->sim) + tr->m->xc_offset);
  const size_t need = tr->n + 1 + (size_t)tr->m->nxc;
  if (need > tr->cap) {
    double *v;
    size_t cap = tr->cap ? tr->cap : 1024;
    while (cap < need) cap *= 2;
    v = (double *)realloc(tr->v, cap * sizeof(double));
    if (!v) abort();
    tr->v = v;
    tr->cap = cap;
  }
  tr->v[tr->n++] = t;
  memcpy(tr->v + tr->n, xc, (size_t)tr->m->nxc * sizeof(double));
  tr->n += (size_t)tr->m->nxc;
  tr->steps++;
}

typedef struct setup {
  const char *integ;
  int error_control;
  double max_step, accuracy, t_end;
  const diagc_xc_jacobian *jac; /* installed with set_xc_jacobian */
} setup;

static void start(traj *tr, const diagc_model *m, const setup *u) {
  diagc_sim_options o;
  memset(tr, 0, sizeof *tr);
  tr->m = m;
  diagc_sim_options_init(&o);
  o.integrator = u->integ;
  o.error_control = u->error_control;
  o.max_step = u->max_step;
  o.accuracy = u->accuracy;
  tr->sim = diagc_sim_create(m, &o);
  if (!tr->sim) abort();
  if (u->jac && diagc_sim_set_xc_jacobian(tr->sim, u->jac) != 0) abort();
  diagc_sim_set_progress_callback(tr->sim, record, tr);
  tr->rc = diagc_sim_initialize(tr->sim);
}

static void finish(traj *tr) {
  diagc_sim_destroy(tr->sim);
  tr->sim = NULL;
}

/* Runs to u->t_end in `pieces` advance_to calls. */
static void run_traj(traj *tr, const diagc_model *m, const setup *u,
                     int pieces) {
  int k;
  start(tr, m, u);
  for (k = 1; k <= pieces && tr->rc >= 0; k++)
    tr->rc = diagc_sim_advance_to(tr->sim, u->t_end * k / pieces);
  finish(tr);
}

static int same(const traj *a, const traj *b) {
  return a->rc == b->rc && a->n == b->n && a->n > 0 &&
         memcmp(a->v, b->v, a->n * sizeof(double)) == 0;
}

static void release(traj *tr) {
  free(tr->v);
  tr->v = NULL;
}

/* set_xc and mutable_xc, set_xc only, mutable_xc only. */
static void context_paths(const char *label, const diagc_model *m,
                          const setup *u, int *all, int *runs) {
  diagc_model only_set = *m, only_mut = *m;
  traj a, b, c;
  only_set.mutable_xc = NULL;
  only_mut.set_xc = NULL;
  run_traj(&a, m, u, 1);
  run_traj(&b, &only_set, u, 1);
  run_traj(&c, &only_mut, u, 1);
  if (!(same(&a, &b) && same(&a, &c))) {
    *all = 0;
    printf("# %s %s ec=%d: %ld / %ld / %ld steps, rc %d %d %d\n", label,
           u->integ, u->error_control, a.steps, b.steps, c.steps, a.rc,
           b.rc, c.rc);
  }
  (*runs)++;
  release(&a);
  release(&b);
  release(&c);
}

static void context_test(void) {
  int all = 1, runs = 0, i, ec;
  for (i = 0; i < N_INTEG; i++)
    for (ec = 0; ec <= 1; ec++) {
      const int implicit = i >= 7;
      setup osc = {INTEG[i], ec, ec ? 0.1 : 0.01, 1e-6, 5.0, NULL};
      setup ball = {INTEG[i], ec, 0.01, 1e-6, 2.5, NULL};
      setup stiff = {INTEG[i], ec, ec ? 0.1 : 1e-4, 1e-4,
                     implicit ? 1.0 : 0.02, NULL};
      setup chain = {INTEG[i], ec, ec ? 0.1 : (implicit ? 0.01 : 2e-4),
                     1e-5, implicit ? 2.0 : 0.2, NULL};
      context_paths("osc", &osc_model, &osc, &all, &runs);
      bb_n_bounce = bb_n_apex = 0;
      context_paths("ball", &bb_model, &ball, &all, &runs);
      decay_k = 1e4;
      context_paths("decay1e4", &decay_model, &stiff, &all, &runs);
      decay_k = 1.0;
      context_paths("chain", &chain_model, &chain, &all, &runs);
    }
  check(all, "bitwise.context_paths",
        "set_xc / mutable_xc paths differ (see the # lines above; %d runs)",
        runs);
}

/* The descriptor's Jacobian and the same one installed. */
static void jacobian_test(void) {
  static const diagc_xc_jacobian rob = {7, rob_jac_colptr, rob_jac_rowind,
                                        rob_jac};
  static const diagc_xc_jacobian vdp = {3, vdp_jac_colptr, vdp_jac_rowind,
                                        vdp_jac};
  diagc_xc_jacobian chain = {0, ch_colptr, ch_rowind, ch_jac};
  const diagc_xc_jacobian *jacs[3];
  const diagc_model *models[3];
  /* error control; fixed steps */
  static const double t_end[2][3] = {{1e5, 1000.0, 5.0}, {0.1, 300.0, 0.5}};
  static const double max_step[2][3] = {{1e5, 100.0, 1.0}, {1e-4, 0.5, 0.01}};
  static const double accuracy[3] = {1e-7, 1e-5, 1e-6};
  int all = 1, runs = 0, i, k, ec;
  long steps = 0;
  chain.nnz = ch_colptr[CH_N];
  jacs[0] = &rob;
  jacs[1] = &vdp;
  jacs[2] = &chain;
  models[0] = &robertson_model;
  models[1] = &vdp_stiff_model;
  models[2] = &chain_model;
  for (k = 0; k < 3; k++) {
    diagc_model with = *models[k];
    with.jac_xc_nnz = jacs[k]->nnz;
    with.jac_xc_colptr = jacs[k]->colptr;
    with.jac_xc_rowind = jacs[k]->rowind;
    with.jac_xc = jacs[k]->jac_xc;
    for (i = 7; i < N_INTEG; i++)
      for (ec = 0; ec <= 1; ec++) {
        setup desc = {INTEG[i], ec, max_step[!ec][k], accuracy[k],
                      t_end[!ec][k], NULL};
        setup set = desc;
        traj a, b;
        set.jac = jacs[k];
        run_traj(&a, &with, &desc, 2);
        run_traj(&b, models[k], &set, 2);
        if (!same(&a, &b)) {
          all = 0;
          printf("# %s %s ec=%d: %ld vs %ld steps, rc %d %d\n",
                 models[k]->name, INTEG[i], ec, a.steps, b.steps, a.rc,
                 b.rc);
        }
        steps += a.steps;
        runs++;
        release(&a);
        release(&b);
      }
  }
  check(all, "bitwise.jacobian_source",
        "descriptor and installed Jacobians differ (%d runs, %ld steps)",
        runs, steps);
}

/* A alone, then A interleaved with B, in the same pieces. */
static void interleave_test(void) {
  int all = 1, runs = 0, i;
  vdp_mu = 1000.0;
  for (i = 0; i < N_INTEG; i++) {
    const int implicit = i >= 7;
    const setup ua = {INTEG[i], 1, 0.5, 1e-6, implicit ? 1500.0 : 0.5,
                      NULL};
    const setup ub = {INTEG[(i + 3) % N_INTEG], 1, 0.1, 1e-5, 0, NULL};
    traj a, a2, b;
    int k;
    run_traj(&a, &vdp_stiff_model, &ua, 7);
    start(&a2, &vdp_stiff_model, &ua);
    start(&b, &chain_model, &ub);
    for (k = 1; k <= 7; k++) {
      if (a2.rc >= 0) a2.rc = diagc_sim_advance_to(a2.sim, ua.t_end * k / 7);
      if (b.rc >= 0) b.rc = diagc_sim_advance_to(b.sim, 0.3 * k);
    }
    finish(&a2);
    finish(&b);
    if (!same(&a, &a2)) {
      all = 0;
      printf("# %s: alone %ld steps rc %d, interleaved %ld steps rc %d\n",
             INTEG[i], a.steps, a.rc, a2.steps, a2.rc);
    }
    runs++;
    release(&a);
    release(&a2);
    release(&b);
  }
  check(all, "bitwise.interleaved_simulators",
        "a simulator's trajectory changed when another ran between its "
        "calls (%d runs)", runs);
}

int main(void) {
  ch_pattern();
  context_test();
  jacobian_test();
  interleave_test();
  return check_exit();
}
