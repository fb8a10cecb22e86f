/* bench/world/world_bench.c: one generated world scene (compiled with
 * -DPFX=<prefix> -DHEADER="<prefix>.h"), stepped by the runtime's
 * simulator: ns per step (best of REPS runs of STEPS steps) and the scene's
 * physical check, printed as one RESULT line like dart_scenes.cpp's.
 *   world_bench SCENE STEPS REPS
 * SCENE: box_on_plane / stack_N (largest drift of a cube's centre from its
 * start), pile / pyramid (largest drift of a cube's centre over the last
 * second; the pile's initial poses are checked against box_scenes.h's
 * generator first), ball_bounce (second apex / first), incline_stick
 * (drift along the slope), incline_slide and incline_turned (relative error of the mean
 * acceleration).  After the check the line has: the deepest penetration
 * of a cube into the ground or another cube at the end (box scenes; nan
 * otherwise), the steps of the check run that dropped contacts and the
 * steps that ran out of the LCP work budget per 1000 steps (the world's
 * step_info), and the model's context bytes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include HEADER
#include "box_scenes.h"
#include "diagc/simulator.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define CTX CAT(PFX, _context)
#define MODEL CAT(PFX, _model)
#define STEP_INFO CAT(PFX, _eval_world__step_info)

static const double DT = 1e-3;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static diagc_sim *start(void) {
  diagc_sim *s = diagc_sim_create(&MODEL, NULL);
  if (!s || diagc_sim_initialize(s) != 0) { fprintf(stderr, "world_bench: cannot start\n"); exit(1); }
  return s;
}

static const double *pos(diagc_sim *s) { return ((const CTX *)diagc_sim_context(s))->x.xd; }

/* advance to the state after `steps` steps (the update at t = k dt is the
 * (k+1)-th step) */
static int steps_done; /* of the last run(): the budget hits are per its steps */
static void run(diagc_sim *s, int steps) {
  steps_done = steps;
  if (diagc_sim_advance_to(s, (steps - 0.5) * DT) != 0) { fprintf(stderr, "world_bench: step failed\n"); exit(1); }
}

/* what the check run leaves besides its value */
typedef struct {
  double pen, dropped, budget_per_1000;
} extra;

/* the seed of a pile scene ("pile": 0, "pile_sK": K), or -1 */
static int pile_seed(const char *scene) {
  if (!strcmp(scene, "pile")) return 0;
  if (!strncmp(scene, "pile_s", 6) && scene[6] >= '1' && scene[6] <= '9' && !scene[7]) return scene[6] - '0';
  return -1;
}

static int box_count(const char *scene) {
  if (!strcmp(scene, "box_on_plane")) return 1;
  if (!strncmp(scene, "stack_", 6)) return atoi(scene + 6);
  if (pile_seed(scene) >= 0) return PILE_N;
  if (!strcmp(scene, "pyramid")) return PYRAMID_N;
  return 0;
}

static double max_drift(int n, const double *a, const double *b) {
  double out = 0;
  for (int i = 0; i < n; i++) {
    double d2 = 0;
    for (int k = 0; k < 3; k++) d2 += pow(b[7 * i + k] - a[7 * i + k], 2);
    out = fmax(out, sqrt(d2));
  }
  return out;
}

/* a pile's spec (bench/world/specs/pile.lua, and the seeds bench/world/run
   writes from it) must start where
   box_scenes.h's generator says */
static void same_start(const char *scene, const double *q) {
  double want[7 * BOX_MAX];
  int n = box_count(scene);
  if (pile_seed(scene) >= 0) pile_poses(want, pile_seed(scene));
  else if (!strcmp(scene, "pyramid")) pyramid_poses(want);
  else return;
  for (int i = 0; i < 7 * n; i++)
    if (fabs(q[i] - want[i]) > 1e-15) {
      fprintf(stderr, "world_bench: %s starts at q[%d] = %.17g, box_scenes.h says %.17g\n", scene, i, q[i], want[i]);
      exit(1);
    }
}

static double check(const char *scene, int steps, extra *x) {
  diagc_sim *s = start();
  double q0[7 * BOX_MAX];
  int n = box_count(scene);
  double out = NAN;
  if (n > BOX_MAX) { fprintf(stderr, "world_bench: %s has %d cubes, more than BOX_MAX = %d\n", scene, n, BOX_MAX); exit(2); }
  x->pen = NAN;
  memcpy(q0, pos(s), (size_t)(7 * (n > 0 ? n : 1)) * sizeof(double));
  same_start(scene, q0);
  if (!strncmp(scene, "stack", 5) || !strcmp(scene, "box_on_plane")) {
    run(s, steps);
    out = max_drift(n, q0, pos(s));
  } else if (pile_seed(scene) >= 0 || !strcmp(scene, "pyramid")) {
    double q1[7 * BOX_MAX];
    run(s, steps - 1000);
    memcpy(q1, pos(s), (size_t)(7 * n) * sizeof(double));
    run(s, steps);
    out = max_drift(n, q1, pos(s));
  } else if (!strcmp(scene, "ball_bounce")) {
    double z1 = q0[2], z2 = q0[2], apex[2];
    int found = 0;
    for (int k = 1; k <= steps && found < 2; k++) {
      run(s, k);
      double z = pos(s)[2];
      if (k > 2 && z2 > z1 && z2 >= z && z2 - 0.1 > 1e-3 && z2 < q0[2] - 1e-3) apex[found++] = z2 - 0.1;
      z1 = z2, z2 = z;
    }
    out = found == 2 ? apex[1] / apex[0] : NAN;
  } else if (!strncmp(scene, "incline", 7)) {
    /* down the slope: along x (a tilt about y), or for incline_turned along
       (1, -1, 0) / sqrt 2 (a tilt about the axis at 45 degrees to x) */
    int turned = !strcmp(scene, "incline_turned");
    double th = 20.0 * 3.14159265358979323846 / 180.0, h = sqrt(0.5), sl = 0, mu = turned ? 0.3 : 0.2;
    double d[3] = {turned ? h * cos(th) : cos(th), turned ? -h * cos(th) : 0, -sin(th)};
    run(s, steps);
    for (int k = 0; k < 3; k++) sl += (pos(s)[k] - q0[k]) * d[k];
    if (!strcmp(scene, "incline_stick")) out = fabs(sl);
    else {
      double T = steps * DT, a = 2 * sl / (T * T), e = 9.81 * (sin(th) - mu * cos(th));
      out = fabs(a - e) / e;
    }
  }
  if (n > 0) x->pen = box_penetration(n, pos(s), BOX_EDGE);
  const double *info = NULL;
  CTX *c = (CTX *)diagc_sim_context(s);
  if (STEP_INFO(c, &info) != 0 || !info) { fprintf(stderr, "world_bench: cannot read step_info\n"); exit(1); }
  x->dropped = info[6];
  x->budget_per_1000 = info[5] * 1000.0 / steps_done;
  diagc_sim_destroy(s);
  return out;
}

int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: world_bench SCENE STEPS REPS\n"); return 2; }
  const char *scene = argv[1];
  int steps = atoi(argv[2]), reps = atoi(argv[3]);
  double best = INFINITY;
  for (int r = 0; r < reps; r++) {
    diagc_sim *s = start();
    double t0 = now();
    run(s, steps);
    best = fmin(best, (now() - t0) / steps * 1e9);
    diagc_sim_destroy(s);
  }
  const char *what = !strcmp(scene, "ball_bounce") ? "apex_ratio_vs_0.64"
    : (!strcmp(scene, "incline_slide") || !strcmp(scene, "incline_turned")) ? "accel_rel_err" : !strcmp(scene, "incline_stick") ? "drift_m"
    : (pile_seed(scene) >= 0 || !strcmp(scene, "pyramid")) ? "max_drift_last_s_m" : "max_drift_m";
  extra x;
  double value = check(scene, !strcmp(scene, "ball_bounce") ? 2500 : steps, &x);
  printf("RESULT\t%s\t%d\t%.1f\t%s\t%.3e\t%.3e\t%.0f\t%.2f\t%zu\n", scene, steps, best, what, value, x.pen,
         x.dropped, x.budget_per_1000, (size_t)MODEL.context_size);
  return 0;
}
