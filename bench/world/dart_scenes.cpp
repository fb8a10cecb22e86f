// bench/world/dart_scenes.cpp: the world suite's scenes in DART 6.12
// (World::step, its default boxed-LCP solver, DARTCollisionDetector), at
// the same time step as diagc's examples: time per step and the physical
// checks of issue #17 (drift of a resting box, summed normal impulse, stack
// drift, restitution apex ratio) and of issue #26 (a 30-cube pile dropped
// from box_scenes.h's seeded arrangement, a 10-cube pyramid: drift over the
// last second).  Prints one tab-separated RESULT line per scene: name,
// bodies, steps, ns/step, check name, check value, and for the box scenes
// the deepest penetration at the end (box_scenes.h; nan otherwise).
#include <dart/simulation/World.hpp>
#include <dart/dynamics/Skeleton.hpp>
#include <dart/dynamics/FreeJoint.hpp>
#include <dart/dynamics/WeldJoint.hpp>
#include <dart/dynamics/BoxShape.hpp>
#include <dart/dynamics/SphereShape.hpp>
#include <dart/dynamics/BodyNode.hpp>
#include <dart/constraint/ConstraintSolver.hpp>
#include <dart/collision/dart/DARTCollisionDetector.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "box_scenes.h"

using namespace dart;
using dynamics::BodyNode;
using dynamics::FreeJoint;
using dynamics::Skeleton;
using dynamics::SkeletonPtr;
using dynamics::WeldJoint;

static const double DT = 1e-3;

static void set_material(dynamics::ShapeNode *sn, double mu, double e) {
  sn->getDynamicsAspect()->setFrictionCoeff(mu);
  sn->getDynamicsAspect()->setRestitutionCoeff(e);
}

// the ground: a large box whose top face is z = 0 (DART's own detector has
// no plane-box pair)
static SkeletonPtr ground(double mu, double e, double tilt = 0.0,
                          const Eigen::Vector3d &axis = Eigen::Vector3d::UnitY()) {
  SkeletonPtr sk = Skeleton::create("ground");
  auto pair = sk->createJointAndBodyNodePair<WeldJoint>();
  auto shape = std::make_shared<dynamics::BoxShape>(Eigen::Vector3d(20, 20, 1));
  auto sn = pair.second->createShapeNodeWith<dynamics::CollisionAspect, dynamics::DynamicsAspect>(shape);
  Eigen::Isometry3d tf = Eigen::Isometry3d::Identity();
  tf.linear() = Eigen::AngleAxisd(tilt, axis).toRotationMatrix();
  tf.translation() = tf.linear() * Eigen::Vector3d(0, 0, -0.5);
  sn->setRelativeTransform(tf);
  set_material(sn, mu, e);
  return sk;
}

static SkeletonPtr body(const std::string &name, std::shared_ptr<dynamics::Shape> shape, double m,
                        const Eigen::Matrix3d &I, const Eigen::Isometry3d &pose, double mu, double e) {
  SkeletonPtr sk = Skeleton::create(name);
  auto pair = sk->createJointAndBodyNodePair<FreeJoint>();
  BodyNode *bn = pair.second;
  dynamics::Inertia in(m, Eigen::Vector3d::Zero(), I);
  bn->setInertia(in);
  auto sn = bn->createShapeNodeWith<dynamics::CollisionAspect, dynamics::DynamicsAspect>(shape);
  set_material(sn, mu, e);
  FreeJoint::setTransformOf(pair.first, pose);
  return sk;
}

static SkeletonPtr cube(const std::string &name, double a, double m, Eigen::Vector3d p, double mu,
                        double tilt = 0.0, const Eigen::Vector3d &axis = Eigen::Vector3d::UnitY()) {
  Eigen::Isometry3d tf = Eigen::Isometry3d::Identity();
  tf.linear() = Eigen::AngleAxisd(tilt, axis).toRotationMatrix();
  tf.translation() = p;
  double I = m * a * a / 6;
  return body(name, std::make_shared<dynamics::BoxShape>(Eigen::Vector3d(a, a, a)), m,
              Eigen::Matrix3d::Identity() * I, tf, mu, 0.0);
}

static simulation::WorldPtr new_world() {
  auto w = simulation::World::create();
  w->setTimeStep(DT);
  w->setGravity(Eigen::Vector3d(0, 0, -9.81));
  w->getConstraintSolver()->setCollisionDetector(collision::DARTCollisionDetector::create());
  return w;
}

static double run_timed(simulation::WorldPtr &w, int steps) {
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; i++) w->step();
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / steps;
}

static void result(const char *scene, int bodies, int steps, double ns, const char *check, double value,
                   double pen = NAN) {
  std::printf("RESULT\t%s\t%d\t%d\t%.1f\t%s\t%.3e\t%.3e\n", scene, bodies, steps, ns, check, value, pen);
}

// the pose (7 numbers: centre, quaternion w x y z) of a free body
static void pose7(const SkeletonPtr &sk, double *e) {
  Eigen::Isometry3d tf = sk->getBodyNode(0)->getWorldTransform();
  Eigen::Quaterniond r(tf.linear());
  e[0] = tf.translation().x(), e[1] = tf.translation().y(), e[2] = tf.translation().z();
  e[3] = r.w(), e[4] = r.x(), e[5] = r.y(), e[6] = r.z();
}

// n cubes of 0.2 m (poses q0, 7 each) on the ground, stepped `steps`
// times: the largest drift of a cube's centre from its start (last =
// false) or over the last second (last = true), and the deepest
// penetration at the end (box_scenes.h)
static void boxes(const char *scene, int n, const double *q0, int steps, bool last) {
  auto w = new_world();
  w->addSkeleton(ground(0.6, 0.0));
  std::vector<SkeletonPtr> sks;
  for (int i = 0; i < n; i++) {
    const double *e = q0 + 7 * i;
    Eigen::Isometry3d tf = Eigen::Isometry3d::Identity();
    tf.linear() = Eigen::Quaterniond(e[3], e[4], e[5], e[6]).normalized().toRotationMatrix();
    tf.translation() = Eigen::Vector3d(e[0], e[1], e[2]);
    double a = BOX_EDGE, I = a * a / 6;
    sks.push_back(body("box" + std::to_string(i), std::make_shared<dynamics::BoxShape>(Eigen::Vector3d(a, a, a)), 1.0,
                       Eigen::Matrix3d::Identity() * I, tf, 0.6, 0.0));
    w->addSkeleton(sks.back());
  }
  std::vector<double> ref(q0, q0 + 7 * n), q(7 * n);
  int tail = last ? 1000 : 0;
  double ns = run_timed(w, steps - tail) * (steps - tail);
  for (int i = 0; last && i < n; i++) pose7(sks[i], &ref[7 * i]);
  if (tail) ns += run_timed(w, tail) * tail;
  double drift = 0;
  for (int i = 0; i < n; i++) {
    pose7(sks[i], &q[7 * i]);
    drift = std::max(drift, (Eigen::Vector3d(q[7 * i], q[7 * i + 1], q[7 * i + 2]) -
                             Eigen::Vector3d(ref[7 * i], ref[7 * i + 1], ref[7 * i + 2])).norm());
  }
  result(scene, n, steps, ns / steps, last ? "max_drift_last_s_m" : "max_drift_m", drift,
         box_penetration(n, q.data(), BOX_EDGE));
}

// n cubes of 0.2 m stacked from the ground
static void stack(int n, int steps) {
  double q[7 * BOX_MAX];
  for (int i = 0; i < n; i++) {
    double *e = q + 7 * i;
    e[0] = e[1] = 0, e[2] = 0.1 + 0.2 * i, e[3] = 1, e[4] = e[5] = e[6] = 0;
  }
  char name[32];
  std::snprintf(name, sizeof name, n == 1 ? "box_on_plane" : "stack_%d", n);
  boxes(name, n, q, steps, false);
}

// a ball (r = 0.1) dropped from 1 m with restitution 0.8 (ground 1.0: DART
// multiplies the two); the ratio of the second apex to the first
static void ball(int steps) {
  auto w = new_world();
  w->addSkeleton(ground(0.5, 1.0));
  Eigen::Isometry3d tf = Eigen::Isometry3d::Identity();
  tf.translation() = Eigen::Vector3d(0, 0, 1.1);
  double m = 1, r = 0.1, I = 0.4 * m * r * r;
  auto b = body("ball", std::make_shared<dynamics::SphereShape>(r), m, Eigen::Matrix3d::Identity() * I, tf, 0.5, 0.8);
  w->addSkeleton(b);
  std::vector<double> z;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; i++) {
    w->step();
    z.push_back(b->getBodyNode(0)->getWorldTransform().translation().z());
  }
  auto t1 = std::chrono::steady_clock::now();
  std::vector<double> apex;
  for (size_t i = 1; i + 1 < z.size(); i++)
    if (z[i] > z[i - 1] && z[i] >= z[i + 1] && z[i] - r > 1e-3) apex.push_back(z[i] - r);
  double ratio = apex.size() >= 2 ? apex[1] / apex[0] : NAN;
  result("ball_bounce", 1, steps, std::chrono::duration<double, std::nano>(t1 - t0).count() / steps,
         "apex_ratio_vs_0.64", ratio);
}

// a cube on a slope of 20 degrees along x: mu = 0.5 sticks (drift), mu =
// 0.2 slides with a = g (sin - mu cos) (relative error of the mean
// acceleration over 1 s)
static void incline(double mu, int steps) {
  double th = 20.0 * M_PI / 180.0;
  auto w = new_world();
  w->addSkeleton(ground(mu, 0.0, th));
  Eigen::Vector3d n(std::sin(th), 0, std::cos(th));
  Eigen::Vector3d p0 = 0.1 * n;
  auto b = cube("box", 0.2, 1.0, p0, mu, th);
  w->addSkeleton(b);
  double ns = run_timed(w, steps);
  Eigen::Vector3d p = b->getBodyNode(0)->getWorldTransform().translation();
  Eigen::Vector3d down(std::cos(th), 0, -std::sin(th));
  double s = (p - p0).dot(down), T = steps * DT;
  if (mu > std::tan(th)) {
    result("incline_stick", 1, steps, ns, "drift_m", std::fabs(s));
  } else {
    double a = 2 * s / (T * T), expect = 9.81 * (std::sin(th) - mu * std::cos(th));
    result("incline_slide", 1, steps, ns, "accel_rel_err", std::fabs(a - expect) / expect);
  }
}

// a cube on a slope of 20 degrees tilted about the axis at 45 degrees to x,
// mu = 0.3: it slides down (1, -1, 0) / sqrt 2 at g (sin - mu cos)
static void incline_turned(int steps) {
  double th = 20.0 * M_PI / 180.0, mu = 0.3, h = std::sqrt(0.5);
  Eigen::Vector3d u(h, h, 0);
  auto w = new_world();
  w->addSkeleton(ground(mu, 0.0, th, u));
  Eigen::Vector3d n = Eigen::AngleAxisd(th, u).toRotationMatrix() * Eigen::Vector3d::UnitZ();
  Eigen::Vector3d p0 = 0.1 * n;
  auto b = cube("box", 0.2, 1.0, p0, mu, th, u);
  w->addSkeleton(b);
  double ns = run_timed(w, steps);
  Eigen::Vector3d p = b->getBodyNode(0)->getWorldTransform().translation();
  Eigen::Vector3d down(h * std::cos(th), -h * std::cos(th), -std::sin(th));
  double s = (p - p0).dot(down), T = steps * DT;
  double a = 2 * s / (T * T), expect = 9.81 * (std::sin(th) - mu * std::cos(th));
  result("incline_turned", 1, steps, ns, "accel_rel_err", std::fabs(a - expect) / expect);
}

int main(int argc, char **argv) {
  int quick = argc > 1 && std::atoi(argv[1]) != 0;
  int k = quick ? 10 : 1;
  stack(1, 10000 / k);
  for (int n : {5, 10, 20, 50}) stack(n, (n <= 10 ? 2000 : 1000) / k);
  double q[7 * BOX_MAX];
  for (int seed = 0; seed < PILE_SEEDS; seed++) {
    char name[16];
    std::snprintf(name, sizeof name, seed ? "pile_s%d" : "pile", seed);
    pile_poses(q, seed);
    boxes(name, PILE_N, q, 4000, true);
  }
  pyramid_poses(q);
  boxes("pyramid", PYRAMID_N, q, 2000, true);
  ball(2500);
  incline(0.5, 2000 / k);
  incline(0.2, 1000);
  incline_turned(1000);
  return 0;
}
