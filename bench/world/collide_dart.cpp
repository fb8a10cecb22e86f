// bench/world/collide_dart.cpp: the scenes of collide_bench.c timed in DART
// 6.12 (Debian libdart-dev) with its own detector, DARTCollisionDetector
// (exact primitives), through CollisionGroup::collide as World::step calls
// it.  One group of two shape frames per pose (so no transform is set while
// timing).  DART's detector has no half-space or capsule: the plane is a
// 20 x 20 x 1 box with its top face at z = 0, and the capsule scenes are
// skipped.  Thread CPU time, median of 7 runs, ns per call.
//
//   g++ -std=c++17 -O2 -Iruntime/include bench/world/collide_dart.cpp \
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

int main() {
  const char *quick = getenv("BENCH_QUICK");
  long calls = quick && strcmp(quick, "1") == 0 ? 20000 : 200000;
  auto det = collision::DARTCollisionDetector::create();
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
  return 0;
}
