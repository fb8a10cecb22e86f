/* pose_aa.h: a pose X[12] (diagc/world.h layout) from a rotation about an
 * axis and a position, shared by the collision tests.  Include after
 * <math.h>. */
#ifndef DIAGC_TESTS_POSE_AA_H
#define DIAGC_TESTS_POSE_AA_H

/* X from a rotation of angle th about unit-ish axis (x, y, z), and p. */
static void pose_aa(double *X, double ax, double ay, double az, double th, double px, double py,
                    double pz) {
  double n = sqrt(ax * ax + ay * ay + az * az), c = cos(th), s = sin(th), t = 1.0 - c;
  if (n > 0) {
    ax /= n;
    ay /= n;
    az /= n;
  } else {
    ax = 0;
    ay = 0;
    az = 1;
    th = 0;
    c = 1;
    s = 0;
    t = 0;
  }
  X[0] = t * ax * ax + c;
  X[1] = t * ax * ay - s * az;
  X[2] = t * ax * az + s * ay;
  X[3] = t * ax * ay + s * az;
  X[4] = t * ay * ay + c;
  X[5] = t * ay * az - s * ax;
  X[6] = t * ax * az - s * ay;
  X[7] = t * ay * az + s * ax;
  X[8] = t * az * az + c;
  X[9] = px;
  X[10] = py;
  X[11] = pz;
}

#endif
