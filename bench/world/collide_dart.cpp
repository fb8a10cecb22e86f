// bench/world/collide_dart.cpp: the scenes of collide_bench.c timed in DART
// 6.12 (Debian libdart-dev) with its own detector, DARTCollisionDetector
// (exact primitives), through CollisionGroup::collide as World::step calls
// it.  One group of two shape frames per pose (so no transform is set while
// timing).  DART's detector has no half-space or capsule: the plane is a
// 20 x 20 x 1 box with its top face at z = 0, and the capsule scenes are
// skipped.  Thread CPU time, median of 7 runs, ns per call.  First, a
// cross-check on 2000 random box pairs: both detectors must agree on which
// pairs touch; the share where the deepest depth and the normal agree too
// is printed (they differ where each breaks near-ties between axes its own
// way).
//
//   g++ -std=c++17 -O2 -Iruntime/include bench/world/collide_dart.cpp lib/libdiagc.a \
//       $(pkg-config --cflags --libs dart) -std=c++17 -o build/collide_dart
#include <dart/collision/CollisionGroup.hpp>
#include <dart/collision/CollisionOption.hpp>
#include <dart/collision/CollisionResult.hpp>
#include <dart/collision/dart/DARTCollisionDetector.hpp>
#include <dart/dynamics/BoxShape.hpp>
#include <dart/dynamics/SimpleFrame.hpp>
#include <dart/dynamics/SphereShape.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <time.h>
#include <vector>

#include "collide_scenes.h"
#include "diagc/world.h"

using namespace dart;

static double now_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static Eigen::Isometry3d iso(const double *X) {
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) T.linear()(i, j) = X[3 * i + j];
    T.translation()(i) = X[9 + i];
  }
  return T;
}

// A DART shape for a scene shape; nullptr when DART's detector lacks it.
static dynamics::ShapePtr make_shape(const double *s) {
  switch ((int)s[0]) {
  case 1: return std::make_shared<dynamics::SphereShape>(s[1]);
  case 2: return std::make_shared<dynamics::BoxShape>(Eigen::Vector3d(2 * s[1], 2 * s[2], 2 * s[3]));
  case 4: return std::make_shared<dynamics::BoxShape>(Eigen::Vector3d(20, 20, 1));
  default: return nullptr;
  }
}

static void random_pose(double *X, double spread) {
  double a = 6.3 * urand(), b = 6.3 * urand(), c = 6.3 * urand();
  double ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b), cc = cos(c), sc = sin(c);
  double R[9] = { ca * cb, ca * sb * sc - sa * cc, ca * sb * cc + sa * sc,
                  sa * cb, sa * sb * sc + ca * cc, sa * sb * cc - ca * sc,
                  -sb,     cb * sc,                cb * cc };
  for (int i = 0; i < 9; i++) X[i] = R[i];
  for (int i = 9; i < 12; i++) X[i] = spread * (2 * urand() - 1);
}

// Returns the number of pairs where the two detectors disagree on contact.
static int cross_check(const std::shared_ptr<collision::CollisionDetector> &det) {
  int mismatch = 0, touching = 0, agree = 0;
  for (int it = 0; it < 2000; it++) {
    double ha[3], hb[3], Xa[12], Xb[12];
    for (int k = 0; k < 3; k++) {
      ha[k] = 0.1 + urand();
      hb[k] = 0.1 + urand();
    }
    random_pose(Xa, 0.3);
    random_pose(Xb, 1.0);
    auto fa = std::make_shared<dynamics::SimpleFrame>(dynamics::Frame::World(), "a");
    auto fb = std::make_shared<dynamics::SimpleFrame>(dynamics::Frame::World(), "b");
    fa->setShape(std::make_shared<dynamics::BoxShape>(Eigen::Vector3d(2 * ha[0], 2 * ha[1], 2 * ha[2])));
    fb->setShape(std::make_shared<dynamics::BoxShape>(Eigen::Vector3d(2 * hb[0], 2 * hb[1], 2 * hb[2])));
    fa->setTransform(iso(Xa));
    fb->setTransform(iso(Xb));
    auto g = det->createCollisionGroup(fa.get(), fb.get());
    collision::CollisionOption opt;
    opt.maxNumContacts = 100;
    collision::CollisionResult res;
    g->collide(opt, &res);
    diagc_shape A = { DIAGC_SHAPE_BOX, { ha[0], ha[1], ha[2] }, nullptr };
    diagc_shape B = { DIAGC_SHAPE_BOX, { hb[0], hb[1], hb[2] }, nullptr };
    diagc_contact c[DIAGC_COLLIDE_MAX];
    int n = diagc_collide(&A, Xa, &B, Xb, 0, c, DIAGC_COLLIDE_MAX);
    if ((n > 0) != (res.getNumContacts() > 0)) {
      mismatch++;
      continue;
    }
    if (n == 0) continue;
    touching++;
    double dd = 0, md = -1;
    for (size_t i = 0; i < res.getNumContacts(); i++)
      dd = std::max(dd, res.getContact(i).penetrationDepth);
    for (int i = 0; i < n; i++) md = std::max(md, c[i].depth);
    const Eigen::Vector3d &nd = res.getContact(0).normal;
    double dn = nd.x() * c[0].normal[0] + nd.y() * c[0].normal[1] + nd.z() * c[0].normal[2];
    if (fabs(dd - md) < 1e-6 * (1 + dd) && dn > 1 - 1e-9) agree++;
  }
  printf("cross-check, 2000 random box pairs: %d disagree on contact; of %d touching, "
         "%d (%.1f %%) have the same deepest depth and normal\n\n",
         mismatch, touching, agree, touching ? 100.0 * agree / touching : 0.0);
  return mismatch;
}

int main() {
  const char *quick = getenv("BENCH_QUICK");
  long calls = quick && strcmp(quick, "1") == 0 ? 20000 : 200000;
  auto det = collision::DARTCollisionDetector::create();
  int bad = cross_check(det);
  rng = SCENE_SEED; /* the scenes' poses as in collide_bench.c */
  static double XA[NPOSE][12], XB[NPOSE][12];
  printf("| call (DART 6.12, DARTCollisionDetector) | ns per call | contacts |\n|---|---:|---:|\n");
  for (int k = 0; k < NSCENE; k++) {
    scene_poses(k, XA, XB);
    auto sa = make_shape(scene_shapes[k][0]), sb = make_shape(scene_shapes[k][1]);
    if (!sa || !sb) {
      printf("| %-34s | (no capsule in DART's detector) | |\n", scene_names[k]);
      continue;
    }
    std::vector<std::shared_ptr<dynamics::SimpleFrame>> frames;
    std::vector<std::unique_ptr<collision::CollisionGroup>> groups;
    for (int p = 0; p < NPOSE; p++) {
      auto fa = std::make_shared<dynamics::SimpleFrame>(dynamics::Frame::World(), "a");
      auto fb = std::make_shared<dynamics::SimpleFrame>(dynamics::Frame::World(), "b");
      Eigen::Isometry3d Tb = iso(XB[p]);
      if ((int)scene_shapes[k][1][0] == 4) Tb.translation() -= Tb.linear().col(2) * 0.5;
      fa->setShape(sa);
      fb->setShape(sb);
      fa->setTransform(iso(XA[p]));
      fb->setTransform(Tb);
      groups.push_back(det->createCollisionGroup(fa.get(), fb.get()));
      frames.push_back(fa);
      frames.push_back(fb);
    }
    collision::CollisionOption opt;
    opt.maxNumContacts = 100;
    collision::CollisionResult res;
    double t[7], contacts = 0;
    for (int r = 0; r < 7; r++) {
      long total = 0;
      double t0 = now_ns();
      for (long i = 0; i < calls; i++) {
        res.clear();
        groups[i & (NPOSE - 1)]->collide(opt, &res);
        total += (long)res.getNumContacts();
      }
      t[r] = (now_ns() - t0) / (double)calls;
      contacts = (double)total / (double)calls;
    }
    std::sort(t, t + 7);
    printf("| %-34s | %8.1f | %5.2f |\n", scene_names[k], t[3], contacts);
  }
  return bad != 0;
}
