/* bench/robots/robot_bench.c: one robot example's generated C (compiled
 * with -DPFX=<model> -DHEADER="<model>.h" -DWORLD=<world system> -DNQ=
 * -DNV=, and -DGRADT=dcw_<World>_grad when the world has gradients),
 * stepped by the runtime's simulator at the spec's 1 ms step, holding
 * still and after a push, with the example's own controller (part of the
 * diagram).  Time is CPU time (CLOCK_PROCESS_CPUTIME_ID), the best of
 * REPS runs of STEPS steps.
 *   robot_bench CONFIG STEPS REPS
 * CONFIG is the file bench/robots/run writes for mujoco_robots.c (the
 * push: `basepush K VALUE` and each joint's pushed velocity; `base` for a
 * free base).  Prints, like mujoco_robots.c,
 *   RESULT <hold|push> <steps> <ns per step> <check>
 * and with GRADT
 *   RESULT grad <steps> <ns per step Jacobian> <status>
 * the step Jacobians (PFX_eval_<WORLD>__grad) evaluated once after each
 * step of a hold run, with the world's `work` entry (the next step, which
 * `grad` differentiates and the next step reuses) brought up to date first
 * and not timed: the Jacobians' own cost, as bench/grad times them; the
 * check is the number of evaluations whose status was not 0. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include HEADER
#include "diagc/simulator.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define CTX CAT(PFX, _context)
#define MODEL CAT(PFX, _model)
#define SET_VEL CAT(CAT(CAT(PFX, _set_), WORLD), __vel)
#define EVAL_POS CAT(CAT(CAT(PFX, _eval_), WORLD), __position)
#define EVAL_GRAD CAT(CAT(CAT(PFX, _eval_), WORLD), __grad)
#define EVAL_WORK CAT(CAT(CAT(PFX, _eval_), WORLD), __work)

static const double DT = 1e-3;

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void die(const char *what) {
  fprintf(stderr, "robot_bench: %s\n", what);
  exit(1);
}

typedef struct {
  int base, nj;
  double v0[NV];
  int qi[NV];
} config;

static void read_config(const char *path, config *c) {
  FILE *f = fopen(path, "r");
  char line[512], name[256];
  if (!f) die("cannot open the config");
  memset(c, 0, sizeof *c);
  while (fgets(line, sizeof line, f)) {
    int k, vi;
    double v, q0, kp, kd, target;
    if (!strncmp(line, "base", 4) && (line[4] == '\n' || line[4] == ' ') && strncmp(line, "basepush", 8)) c->base = 1;
    else if (sscanf(line, "basepush %d %lf", &k, &v) == 2) {
      if (k < 0 || k >= 6 || k >= NV) die("basepush index out of range");
      c->v0[k] = v;
    } else if (!strncmp(line, "joint ", 6)) {
      if (sscanf(line, "joint %255s %d %lf %lf %lf %lf %lf", name, &vi, &q0, &kp, &kd, &target, &v) != 7) die("bad joint line");
      if (vi < 0 || vi >= NV || c->nj >= NV) die("joint index out of range");
      c->v0[vi] = v;
      c->qi[c->nj++] = vi + (c->base ? 1 : 0);
    }
  }
  fclose(f);
}

static diagc_sim *start(const config *c, int push) {
  diagc_sim *s = diagc_sim_create(&MODEL, NULL);
  if (!s) die("cannot create the simulator");
  if (push) SET_VEL((CTX *)diagc_sim_context(s), c->v0);
  if (diagc_sim_initialize(s) != 0) die("cannot initialize");
  return s;
}

static void pos(diagc_sim *s, double *q) {
  const double *p;
  if (EVAL_POS((CTX *)diagc_sim_context(s), &p) != 0) die("cannot evaluate the position");
  memcpy(q, p, sizeof(double) * NQ);
}

static double check(const config *c, int push, const double *q0, const double *q) {
  if (push && c->base) {
    double x = q[4], y = q[5];
    return acos(fmax(-1, fmin(1, 1 - 2 * (x * x + y * y)))) * 180 / 3.14159265358979323846;
  }
  double out = 0;
  for (int j = 0; j < c->nj; j++) out = fmax(out, fabs(q[c->qi[j]] - q0[c->qi[j]]));
  if (c->base) out = fmax(out, fabs(q[2] - q0[2]));
  return out;
}

static void run(const config *c, int push, int steps, int reps) {
  double best = INFINITY, chk = NAN, q0[NQ], q[NQ];
  for (int r = 0; r < reps; r++) {
    diagc_sim *s = start(c, push);
    pos(s, q0);
    double t0 = cpu_now();
    if (diagc_sim_advance_to(s, (steps - 0.5) * DT) != 0) {
      fprintf(stderr, "robot_bench: %s run failed: %s\n", push ? "push" : "hold", diagc_sim_error(s));
      exit(1);
    }
    best = fmin(best, (cpu_now() - t0) / steps * 1e9);
    pos(s, q);
    for (int i = 0; i < NQ; i++)
      if (!isfinite(q[i])) die("the state went non-finite");
    chk = check(c, push, q0, q);
    diagc_sim_destroy(s);
  }
  printf("RESULT\t%s\t%d\t%.1f\t%.3e\n", push ? "push" : "hold", steps, best, chk);
}

#ifdef GRADT
/* the step Jacobians once after each step of a hold run: only their own
   evaluation is timed; neither the step that precedes it nor `work` (the
   step from the new state, which grad reads and the next step reuses
   from the cache) */
static void run_grad(const config *c, int steps, int reps) {
  double best = INFINITY;
  int bad = 0;
  for (int r = 0; r < reps; r++) {
    diagc_sim *s = start(c, 0);
    double sum = 0;
    bad = 0;
    for (int k = 0; k < steps; k++) {
      if (diagc_sim_advance_to(s, (k + 0.5) * DT) != 0) die("the grad run's step failed");
      const GRADT *g;
      if (EVAL_WORK((CTX *)diagc_sim_context(s), NULL) != 0) die("cannot evaluate work");
      double t0 = cpu_now();
      if (EVAL_GRAD((CTX *)diagc_sim_context(s), &g) != 0) die("cannot evaluate grad");
      sum += cpu_now() - t0;
      if (g->status != 0) bad++;
    }
    best = fmin(best, sum / steps * 1e9);
    diagc_sim_destroy(s);
  }
  printf("RESULT\tgrad\t%d\t%.1f\t%d\n", steps, best, bad);
}
#endif

int main(int argc, char **argv) {
  config c;
  if (argc != 4) {
    fprintf(stderr, "usage: robot_bench CONFIG STEPS REPS\n");
    return 2;
  }
  read_config(argv[1], &c);
  int steps = atoi(argv[2]), reps = atoi(argv[3]);
  if (steps < 1 || reps < 1) die("STEPS and REPS must be positive");
  run(&c, 0, steps, reps);
  run(&c, 1, steps, reps);
#ifdef GRADT
  run_grad(&c, steps, reps);
#endif
  return 0;
}
