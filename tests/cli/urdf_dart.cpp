// tests/cli/urdf_dart.cpp: the oracle of tests/cli/urdf_dart.lua. Loads a
// URDF with DART 6.12's URDF loader (dart::utils::DartLoader), sets the
// states read from stdin and prints, per state, DART's mass matrix, its
// Coriolis + gravity forces plus the joints' viscous damping forces (the
// bias diagc's world dynamics computes), its forward dynamics at zero
// joint force, and the world pose of every link.
//
//   urdf_dart FILE.urdf floating|fixed [PACKAGE DIR]... < states
//
// stdin, per state:   state
//                     free px py pz qw qx qy qz  vx vy vz  wx wy wz   (floating root only;
//                       diagc's convention: linear velocity in the world, angular in the body)
//                     j NAME q v                   (one line per moving joint)
//                     end
// stdout, per state:  dofs N, then one line per dof "dof JOINT INDEX", then
//                     "M" + N*N numbers (row-major), "c" + N, "a" + N,
//                     then one line per link "pose NAME R00..R22 px py pz".
// Links without <inertial> (DART gives them a unit mass) get mass 0 and a
// zero inertia, as the URDF means.  <visual> and <collision> elements are
// removed from the text before DART parses it.  The free joint's DART coordinates are
// converted here: positions = rotation vector, then translation; velocities
// = [angular; linear] both in the body frame.
#include <dart/common/Uri.hpp>
#include <dart/dynamics/BodyNode.hpp>
#include <dart/dynamics/DegreeOfFreedom.hpp>
#include <dart/dynamics/FreeJoint.hpp>
#include <dart/dynamics/Skeleton.hpp>
#include <dart/utils/urdf/DartLoader.hpp>
#include <urdf_parser/urdf_parser.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

using dart::dynamics::BodyNode;
using dart::dynamics::FreeJoint;
using dart::dynamics::Joint;

int main(int argc, char **argv)
{
  if (argc < 3) {
    std::fprintf(stderr, "usage: urdf_dart FILE.urdf floating|fixed [PACKAGE DIR]...\n");
    return 2;
  }
  const std::string file = argv[1];
  const bool floating = std::string(argv[2]) == "floating";
  dart::utils::DartLoader::Options opt;
  opt.mDefaultRootJointType = floating ? dart::utils::DartLoader::RootJointType::FLOATING
                                       : dart::utils::DartLoader::RootJointType::FIXED;
  dart::utils::DartLoader loader(opt);
  for (int i = 3; i + 1 < argc; i += 2) loader.addPackageDirectory(argv[i], argv[i + 1]);
  // the dynamics only: <visual> and <collision> elements are dropped (DART
  // refuses a file whose meshes it cannot find, and shapes do not enter
  // M, c or the forward dynamics)
  std::ifstream f(file);
  std::stringstream buf;
  buf << f.rdbuf();
  std::string text = buf.str();
  for (const char *tag : {"visual", "collision"}) {
    const std::string open = std::string("<") + tag, close = std::string("</") + tag + ">";
    std::size_t at;
    while ((at = text.find(open + ">")) != std::string::npos || (at = text.find(open + " ")) != std::string::npos) {
      const std::size_t end = text.find(close, at);
      if (end == std::string::npos) break;
      text.erase(at, end + close.size() - at);
    }
  }
  auto skel = loader.parseSkeletonString(text, dart::common::Uri::createFromPath(file));
  if (!skel) {
    std::fprintf(stderr, "urdf_dart: DART could not load %s\n", file.c_str());
    return 1;
  }
  skel->setGravity(Eigen::Vector3d(0, 0, -9.81));
  // DART's forward dynamics treats joint damping implicitly over one time
  // step ((M + h D) a = -c - D v); a step of 1e-30 s leaves the explicit
  // dynamics M a = -c - D v that diagc's accel solves
  skel->setTimeStep(1e-30);
  auto model = urdf::parseURDFFile(file);
  if (!model) {
    std::fprintf(stderr, "urdf_dart: urdfdom could not parse %s\n", file.c_str());
    return 1;
  }
  for (std::size_t i = 0; i < skel->getNumBodyNodes(); ++i) {
    BodyNode *b = skel->getBodyNode(i);
    auto link = model->getLink(b->getName());
    if (link && (!link->inertial || link->inertial->mass == 0.0)) {
      b->setMass(0.0);
      b->setMomentOfInertia(0, 0, 0, 0, 0, 0);
      b->setLocalCOM(Eigen::Vector3d::Zero());
    }
  }
  const std::size_t n = skel->getNumDofs();
  std::string word;
  std::cout.precision(17);
  while (std::cin >> word) {
    if (word != "state") return 1;
    Eigen::VectorXd q = Eigen::VectorXd::Zero(n), v = Eigen::VectorXd::Zero(n);
    std::string line;
    std::getline(std::cin, line);
    while (std::getline(std::cin, line) && line != "end") {
      std::istringstream in(line);
      std::string kind;
      in >> kind;
      if (kind == "free") {
        double p[3], qu[4], vl[3], w[3];
        for (double &x : p) in >> x;
        for (double &x : qu) in >> x;
        for (double &x : vl) in >> x;
        for (double &x : w) in >> x;
        Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
        const Eigen::Quaterniond Q(qu[0], qu[1], qu[2], qu[3]);
        T.linear() = Q.normalized().toRotationMatrix();
        T.translation() = Eigen::Vector3d(p[0], p[1], p[2]);
        Joint *root = skel->getRootJoint();
        const Eigen::Vector6d pos = FreeJoint::convertToPositions(T);
        const Eigen::Vector3d vb = T.linear().transpose() * Eigen::Vector3d(vl[0], vl[1], vl[2]);
        for (int k = 0; k < 6; ++k) q[root->getDof(k)->getIndexInSkeleton()] = pos[k];
        for (int k = 0; k < 3; ++k) {
          v[root->getDof(k)->getIndexInSkeleton()] = w[k];
          v[root->getDof(3 + k)->getIndexInSkeleton()] = vb[k];
        }
      } else if (kind == "j") {
        std::string name;
        double a, b;
        in >> name >> a >> b;
        Joint *j = skel->getJoint(name);
        if (!j || j->getNumDofs() != 1) {
          std::fprintf(stderr, "urdf_dart: no one-dof joint '%s'\n", name.c_str());
          return 1;
        }
        q[j->getDof(0)->getIndexInSkeleton()] = a;
        v[j->getDof(0)->getIndexInSkeleton()] = b;
      }
    }
    skel->setPositions(q);
    skel->setVelocities(v);
    skel->setForces(Eigen::VectorXd::Zero(n));
    Eigen::VectorXd c = skel->getCoriolisAndGravityForces();
    for (std::size_t k = 0; k < n; ++k) {
      auto *d = skel->getDof(k);
      c[k] += d->getDampingCoefficient() * v[k];
    }
    const Eigen::MatrixXd M = skel->getMassMatrix();
    skel->computeForwardDynamics();
    const Eigen::VectorXd a = skel->getAccelerations();
    std::cout << "dofs " << n << "\n";
    for (std::size_t k = 0; k < n; ++k) {
      auto *d = skel->getDof(k);
      std::cout << "dof " << d->getJoint()->getName() << " " << d->getIndexInJoint() << "\n";
    }
    std::cout << "M";
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) std::cout << " " << M(i, j);
    std::cout << "\nc";
    for (std::size_t i = 0; i < n; ++i) std::cout << " " << c[i];
    std::cout << "\na";
    for (std::size_t i = 0; i < n; ++i) std::cout << " " << a[i];
    std::cout << "\n";
    for (std::size_t i = 0; i < skel->getNumBodyNodes(); ++i) {
      BodyNode *b = skel->getBodyNode(i);
      const Eigen::Isometry3d T = b->getWorldTransform();
      std::cout << "pose " << b->getName();
      for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) std::cout << " " << T.linear()(r, k);
      for (int k = 0; k < 3; ++k) std::cout << " " << T.translation()[k];
      std::cout << "\n";
    }
    std::cout << "done\n";
  }
  return 0;
}
