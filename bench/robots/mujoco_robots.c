/* bench/robots/mujoco_robots.c: the robots suite's peer, MuJoCo 2.2
 * (Debian libmujoco-dev), on the same URDF files as diagc.
 *
 *   mujoco_robots convert URDF OUT.xml
 *     loads the URDF with mj_loadXML (MuJoCo's URDF importer, which makes
 *     each mesh's convex hull itself) and saves it as MJCF, for
 *     bench/robots/run to add the ground plane, the friction and the
 *     excluded pairs.
 *   mujoco_robots run URDF MJCF CONFIG STEPS REPS
 *     loads the URDF again and the edited MJCF; the MJCF's body inertias
 *     are set from the URDF's model (MuJoCo 2.2 saves a body that fused
 *     static links without its <inertial>: the masses would differ), then
 *     steps the robot at 1 ms (Euler, the default Newton solver, pyramidal
 *     cones) holding still and after a push, with the example's
 *     controller applied through qfrc_applied between mj_step1 and
 *     mj_step2.  Prints one RESULT line per run:
 *       RESULT <hold|push> <steps> <ns per step> <check>
 *     and an INFO line (total mass, dofs, geoms).  Time is CPU time
 *     (CLOCK_PROCESS_CPUTIME_ID), the best of REPS runs.
 *
 * CONFIG (written by bench/robots/run from `diagc info --json`):
 *   gravcomp 0|1                     add qfrc_bias to the efforts
 *   base                             the root has a free joint
 *   basepush K VALUE                 the push: free-joint velocity K (0-2: linear, world frame)
 *   joint NAME VINDEX Q0 KP KD TARGET PUSHV
 *                                    a dof: its start, PD gains, target, pushed velocity
 * The check value: hold, the largest |q - q0| of a joint at the end (rad
 * or m) and with a free base its height change (m); push, with a free
 * base the base's tilt from the vertical at the end (degrees), else the
 * largest |q - q0| of a joint at the end. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mujoco/mujoco.h>

#define MAXJ 128

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void die(const char *what, const char *detail) {
  fprintf(stderr, "mujoco_robots: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(1);
}

static mjModel *load(const char *path) {
  char err[1000] = "";
  mjModel *m = mj_loadXML(path, NULL, err, sizeof err);
  if (!m) die(path, err);
  return m;
}

typedef struct {
  int gravcomp, base, npush, nj;
  int push_k[6];
  double push_v[6];
  int qadr[MAXJ], dadr[MAXJ];
  double q0[MAXJ], kp[MAXJ], kd[MAXJ], target[MAXJ], pushv[MAXJ];
} config;

static void read_config(const char *path, const mjModel *m, config *c) {
  FILE *f = fopen(path, "r");
  char line[512], name[256];
  if (!f) die("cannot open", path);
  memset(c, 0, sizeof *c);
  while (fgets(line, sizeof line, f)) {
    int k, vi;
    double v;
    if (sscanf(line, "gravcomp %d", &k) == 1) c->gravcomp = k;
    else if (!strncmp(line, "base", 4) && (line[4] == '\n' || line[4] == ' ') && strncmp(line, "basepush", 8)) c->base = 1;
    else if (sscanf(line, "basepush %d %lf", &k, &v) == 2 && c->npush < 6) c->push_k[c->npush] = k, c->push_v[c->npush++] = v;
    else if (!strncmp(line, "joint ", 6)) {
      int j = c->nj;
      if (j >= MAXJ) die("too many joints in", path);
      if (sscanf(line, "joint %255s %d %lf %lf %lf %lf %lf", name, &vi, &c->q0[j], &c->kp[j], &c->kd[j], &c->target[j], &c->pushv[j]) != 7)
        die("bad joint line", line);
      int id = mj_name2id(m, mjOBJ_JOINT, name);
      if (id < 0) die("MuJoCo's model has no joint", name);
      c->qadr[j] = m->jnt_qposadr[id];
      c->dadr[j] = m->jnt_dofadr[id];
      c->nj++;
    }
  }
  fclose(f);
}

/* the URDF model's inertias onto the MJCF model's bodies of the same name */
static void copy_inertias(mjModel *m, const mjModel *u) {
  for (int b = 1; b < m->nbody; b++) {
    int i = mj_name2id(u, mjOBJ_BODY, mj_id2name(m, mjOBJ_BODY, b));
    if (i < 0) die("the URDF's model has no body", mj_id2name(m, mjOBJ_BODY, b));
    m->body_mass[b] = u->body_mass[i];
    memcpy(m->body_inertia + 3 * b, u->body_inertia + 3 * i, 3 * sizeof(mjtNum));
    memcpy(m->body_ipos + 3 * b, u->body_ipos + 3 * i, 3 * sizeof(mjtNum));
    memcpy(m->body_iquat + 4 * b, u->body_iquat + 4 * i, 4 * sizeof(mjtNum));
  }
}

static void start(const mjModel *m, mjData *d, const config *c, int push) {
  mj_resetData(m, d);
  for (int j = 0; j < c->nj; j++) {
    d->qpos[c->qadr[j]] = c->q0[j];
    if (push) d->qvel[c->dadr[j]] = c->pushv[j];
  }
  if (push)
    for (int k = 0; k < c->npush; k++) d->qvel[c->push_k[k]] = c->push_v[k];
  mj_forward(m, d);
}

static void step(const mjModel *m, mjData *d, const config *c) {
  mj_step1(m, d);
  for (int j = 0; j < c->nj; j++) {
    int qa = c->qadr[j], da = c->dadr[j];
    d->qfrc_applied[da] = (c->gravcomp ? d->qfrc_bias[da] : 0) + c->kp[j] * (c->target[j] - d->qpos[qa]) - c->kd[j] * d->qvel[da];
  }
  mj_step2(m, d);
}

static double check(const mjModel *m, const mjData *d, const config *c, int push, double z0) {
  (void)m;
  if (push && c->base) {
    double x = d->qpos[4], y = d->qpos[5];
    return acos(fmax(-1, fmin(1, 1 - 2 * (x * x + y * y)))) * 180 / 3.14159265358979323846;
  }
  double out = 0;
  for (int j = 0; j < c->nj; j++) out = fmax(out, fabs(d->qpos[c->qadr[j]] - c->q0[j]));
  if (c->base) out = fmax(out, fabs(d->qpos[2] - z0));
  return out;
}

static void run(const mjModel *m, mjData *d, const config *c, int push, int steps, int reps) {
  double best = INFINITY, chk = NAN;
  for (int r = 0; r < reps; r++) {
    start(m, d, c, push);
    double z0 = d->qpos[2];
    double t0 = cpu_now();
    for (int k = 0; k < steps; k++) step(m, d, c);
    best = fmin(best, (cpu_now() - t0) / steps * 1e9);
    for (int i = 0; i < m->nq; i++)
      if (!isfinite(d->qpos[i])) die("the state went non-finite", push ? "push" : "hold");
    chk = check(m, d, c, push, z0);
  }
  printf("RESULT\t%s\t%d\t%.1f\t%.3e\n", push ? "push" : "hold", steps, best, chk);
}

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[1], "convert")) {
    char err[1000] = "";
    mjModel *m = load(argv[2]);
    if (!mj_saveLastXML(argv[3], m, err, sizeof err)) die("cannot save MJCF", err);
    mj_deleteModel(m);
    return 0;
  }
  if (argc != 7 || strcmp(argv[1], "run")) {
    fprintf(stderr, "usage: mujoco_robots convert URDF OUT.xml | run URDF MJCF CONFIG STEPS REPS\n");
    return 2;
  }
  mjModel *u = load(argv[2]), *m = load(argv[3]);
  int steps = atoi(argv[5]), reps = atoi(argv[6]);
  config c;
  m->opt.timestep = 1e-3;
  m->opt.gravity[0] = m->opt.gravity[1] = 0, m->opt.gravity[2] = -9.81;
  copy_inertias(m, u);
  mjData *d = mj_makeData(m);
  mj_setConst(m, d);
  read_config(argv[4], m, &c);
  if (c.base && (m->njnt < 1 || m->jnt_type[0] != mjJNT_FREE)) die("the config says free base, the model has none", NULL);
  printf("INFO\tmass\t%.6f\tnv\t%d\tngeom\t%d\tnmesh\t%d\n", mj_getTotalmass(m), m->nv, m->ngeom, m->nmesh);
  run(m, d, &c, 0, steps, reps);
  run(m, d, &c, 1, steps, reps);
  mj_deleteData(d);
  mj_deleteModel(m);
  mj_deleteModel(u);
  return 0;
}
