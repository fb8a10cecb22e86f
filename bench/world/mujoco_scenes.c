/* bench/world/mujoco_scenes.c: the world suite's scenes in MuJoCo 2.2
 * (Debian libmujoco-dev) at the same 1 ms step, with its pyramidal and
 * elliptic friction cones: time per mj_step and the same physical checks
 * as dart_scenes.cpp.  MuJoCo's contacts are soft (regularized), so it is
 * a peer for speed; its check values show how far soft contact is from
 * the hard-contact answers.  MuJoCo has no coefficient of restitution: the
 * ball scene is not run.  Prints RESULT lines like dart_scenes.cpp, with
 * the cone in the scene name's suffix ("/pyramidal", "/elliptic"), and for
 * the box scenes the deepest penetration at the end (box_scenes.h).
 *   mujoco_scenes [QUICK [REPS [SCENE]]]: time per step is the best of REPS
 * runs; with SCENE (a pile or "pyramid"), only that box scene. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mujoco/mujoco.h>

#include "box_scenes.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* writes an MJCF scene to a temporary file and loads it */
static mjModel *load(const char *xml) {
  char path[] = "/tmp/diagc-mj-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return NULL;
  FILE *f = fdopen(fd, "w");
  fputs(xml, f);
  fclose(f);
  char err[1000] = "";
  mjModel *m = mj_loadXML(path, NULL, err, sizeof err);
  remove(path);
  if (!m) fprintf(stderr, "mujoco_scenes: %s\n", err);
  return m;
}

static const char *CONE[2] = {"pyramidal", "elliptic"};

/* ns per mj_step: the best of `reps` runs of `steps` steps from the
   model's initial state, like world_bench.c's best of REPS; d is left at
   the end of the last run, and snap (if any) holds qpos before step
   snap_at of it */
static double timed(const mjModel *m, mjData *d, int steps, int reps, int snap_at, double *snap) {
  double best = INFINITY;
  for (int r = 0; r < reps; r++) {
    mj_resetData(m, d);
    double t0 = now();
    for (int k = 0; k < steps; k++) {
      if (snap && k == snap_at) memcpy(snap, d->qpos, sizeof(double) * (size_t)m->nq);
      mj_step(m, d);
    }
    best = fmin(best, (now() - t0) / steps * 1e9);
  }
  return best;
}

/* n cubes of 0.2 m (poses q0, 7 each) on a plane, stepped `steps` times:
   the largest drift of a cube's centre from its start (last = 0) or over
   the last second (last = 1), and the deepest penetration at the end */
static void boxes(const char *scene, int n, const double *q0, int steps, int reps, int last, int cone) {
  char *xml = malloc(200000), *p = xml;
  p += sprintf(p, "<mujoco><size nconmax='2000' njmax='8000'/><option timestep='0.001' solver='Newton' cone='%s'/>"
               "<worldbody><geom type='plane' size='10 10 0.1' friction='0.6 0.005 0.0001'/>", CONE[cone]);
  for (int i = 0; i < n; i++) {
    const double *e = q0 + 7 * i;
    p += sprintf(p, "<body pos='%.17g %.17g %.17g' quat='%.17g %.17g %.17g %.17g'><freejoint/>"
                 "<geom type='box' size='0.1 0.1 0.1' mass='1' friction='0.6 0.005 0.0001'/></body>",
                 e[0], e[1], e[2], e[3], e[4], e[5], e[6]);
  }
  sprintf(p, "</worldbody></mujoco>");
  mjModel *m = load(xml);
  free(xml);
  if (!m) return;
  mjData *d = mj_makeData(m);
  double *ref = malloc(sizeof(double) * 7 * n), drift = 0;
  memcpy(ref, q0, sizeof(double) * 7 * n);
  double ns = timed(m, d, steps, reps, steps - 1000, last ? ref : NULL);
  for (int i = 0; i < n; i++) {
    double d2 = 0;
    for (int k = 0; k < 3; k++) d2 += pow(d->qpos[7 * i + k] - ref[7 * i + k], 2);
    drift = fmax(drift, sqrt(d2));
  }
  free(ref);
  printf("RESULT\t%s/%s\t%d\t%d\t%.1f\t%s\t%.3e\t%.3e\n", scene, CONE[cone], n, steps, ns,
         last ? "max_drift_last_s_m" : "max_drift_m", drift, box_penetration(n, d->qpos, BOX_EDGE));
  mj_deleteData(d);
  mj_deleteModel(m);
}

/* n cubes of 0.2 m stacked on a plane */
static void stack(int n, int steps, int reps, int cone) {
  double q[7 * BOX_MAX];
  char name[32];
  for (int i = 0; i < n; i++) {
    double *e = q + 7 * i;
    e[0] = e[1] = 0, e[2] = 0.1 + 0.2 * i, e[3] = 1, e[4] = e[5] = e[6] = 0;
  }
  snprintf(name, sizeof name, n == 1 ? "box_on_plane" : "stack_%d", n);
  boxes(name, n, q, steps, reps, 0, cone);
}

/* a cube on a 20 degree slope along x (the plane tilted about y) */
static void incline(double mu, int steps, int reps, int cone) {
  double th = 20.0 * 3.14159265358979323846 / 180.0;
  char xml[2000];
  snprintf(xml, sizeof xml,
           "<mujoco><size nconmax='2000' njmax='8000'/><option timestep='0.001' solver='Newton' cone='%s'/>"
           "<worldbody><geom type='plane' size='10 10 0.1' euler='0 %.17g 0' friction='%g 0.005 0.0001'/>"
           "<body pos='%.17g 0 %.17g' euler='0 %.17g 0'><freejoint/>"
           "<geom type='box' size='0.1 0.1 0.1' mass='1' friction='%g 0.005 0.0001'/></body>"
           "</worldbody><compiler angle='radian'/></mujoco>",
           CONE[cone], th, mu, 0.1 * sin(th), 0.1 * cos(th), th, mu);
  mjModel *m = load(xml);
  if (!m) return;
  mjData *d = mj_makeData(m);
  double p0[3] = {d->qpos[0], d->qpos[1], d->qpos[2]};
  double ns = timed(m, d, steps, reps, 0, NULL);
  double s = (d->qpos[0] - p0[0]) * cos(th) - (d->qpos[2] - p0[2]) * sin(th), T = steps * 1e-3;
  if (mu > tan(th))
    printf("RESULT\tincline_stick/%s\t1\t%d\t%.1f\tdrift_m\t%.3e\n", CONE[cone], steps, ns, fabs(s));
  else {
    double a = 2 * s / (T * T), e = 9.81 * (sin(th) - mu * cos(th));
    printf("RESULT\tincline_slide/%s\t1\t%d\t%.1f\taccel_rel_err\t%.3e\n", CONE[cone], steps, ns, fabs(a - e) / e);
  }
  mj_deleteData(d);
  mj_deleteModel(m);
}

/* a cube on a slope of 20 degrees tilted about the axis at 45 degrees to
   x, mu = 0.3: it slides down (1, -1, 0) / sqrt 2 at g (sin - mu cos) */
static void incline_turned(int steps, int reps, int cone) {
  double th = 20.0 * 3.14159265358979323846 / 180.0, mu = 0.3, h = sqrt(0.5);
  double n[3] = {h * sin(th), -h * sin(th), cos(th)}, down[3] = {h * cos(th), -h * cos(th), -sin(th)};
  char xml[2000];
  snprintf(xml, sizeof xml,
           "<mujoco><size nconmax='2000' njmax='8000'/><option timestep='0.001' solver='Newton' cone='%s'/>"
           "<worldbody><geom type='plane' size='10 10 0.1' axisangle='%.17g %.17g 0 %.17g' friction='%g 0.005 0.0001'/>"
           "<body pos='%.17g %.17g %.17g' axisangle='%.17g %.17g 0 %.17g'><freejoint/>"
           "<geom type='box' size='0.1 0.1 0.1' mass='1' friction='%g 0.005 0.0001'/></body>"
           "</worldbody><compiler angle='radian'/></mujoco>",
           CONE[cone], h, h, th, mu, 0.1 * n[0], 0.1 * n[1], 0.1 * n[2], h, h, th, mu);
  mjModel *m = load(xml);
  if (!m) return;
  mjData *d = mj_makeData(m);
  double p0[3] = {d->qpos[0], d->qpos[1], d->qpos[2]};
  double ns = timed(m, d, steps, reps, 0, NULL);
  double s = 0, T = steps * 1e-3;
  for (int k = 0; k < 3; k++) s += (d->qpos[k] - p0[k]) * down[k];
  double a = 2 * s / (T * T), e = 9.81 * (sin(th) - mu * cos(th));
  printf("RESULT\tincline_turned/%s\t1\t%d\t%.1f\taccel_rel_err\t%.3e\n", CONE[cone], steps, ns, fabs(a - e) / e);
  mj_deleteData(d);
  mj_deleteModel(m);
}

/* MuJoCo's default warning handler appends to MUJOCO_LOG.TXT in the
   working directory (the project's root under make bench): say it on
   stderr instead, where the suite's log keeps it. */
static void warn_to_stderr(const char *msg) { fprintf(stderr, "MuJoCo warning: %s\n", msg); }

int main(int argc, char **argv) {
  mju_user_warning = warn_to_stderr;
  int quick = argc > 1 && atoi(argv[1]) != 0, k = quick ? 10 : 1, r = argc > 2 ? atoi(argv[2]) : 1;
  const char *only = argc > 3 ? argv[3] : NULL;
  if (r < 1) r = 1;
  for (int cone = 0; cone < 2; cone++) {
    if (!only) {
      stack(1, 10000 / k, r, cone);
      stack(5, 2000 / k, r, cone);
      stack(10, 2000 / k, r, cone);
      stack(20, 1000 / k, r, cone);
      stack(50, 1000 / k, r, cone);
    }
    double q[7 * BOX_MAX];
    for (int seed = 0; seed < PILE_SEEDS; seed++) {
      char name[16];
      snprintf(name, sizeof name, seed ? "pile_s%d" : "pile", seed);
      if (only && strcmp(only, name)) continue;
      pile_poses(q, seed);
      boxes(name, PILE_N, q, 4000, r, 1, cone);
    }
    pyramid_poses(q);
    if (!only || !strcmp(only, "pyramid")) boxes("pyramid", PYRAMID_N, q, 2000, r, 1, cone);
    if (only) continue;
    incline(0.5, 2000 / k, r, cone);
    incline(0.2, 1000, r, cone);
    incline_turned(1000, r, cone);
  }
  return 0;
}
