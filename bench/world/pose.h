/* bench/world/pose.h: a pose X[12] (diagc/world.h layout) from a
 * rotation about an axis and a position, shared by the collision
 * benchmarks.  Include after <math.h>. */
#ifndef DIAGC_BENCH_POSE_H
#define DIAGC_BENCH_POSE_H

/* rotation of angle th about axis (x, y, z), position p */
static void pose(double *X, double x, double y, double z, double th, double px, double py,
                 double pz) {
  double n = sqrt(x * x + y * y + z * z), c = cos(th), s = sin(th), t = 1 - c;
  x /= n;
  y /= n;
  z /= n;
  X[0] = t * x * x + c;
  X[1] = t * x * y - s * z;
  X[2] = t * x * z + s * y;
  X[3] = t * x * y + s * z;
  X[4] = t * y * y + c;
  X[5] = t * y * z - s * x;
  X[6] = t * x * z - s * y;
  X[7] = t * y * z + s * x;
  X[8] = t * z * z + c;
  X[9] = px;
  X[10] = py;
  X[11] = pz;
}

#endif
