/* random_pose.h: a deterministic xorshift generator and random rigid
 * poses (Rz Ry Rx rotation, position in [-spread, spread]^3), shared by the
 * collision no-allocation tests.  Include once, after <math.h>. */
#ifndef DIAGC_TESTS_RANDOM_POSE_H
#define DIAGC_TESTS_RANDOM_POSE_H

static unsigned long long rng = 0x2545F4914F6CDD1Dull;
static double urand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

/* a rotation from three random angles (Rz Ry Rx) and a position */
static void random_pose(double *X, double spread) {
  double a = 6.3 * urand(), b = 6.3 * urand(), c = 6.3 * urand();
  double ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b), cc = cos(c), sc = sin(c);
  X[0] = ca * cb;
  X[1] = ca * sb * sc - sa * cc;
  X[2] = ca * sb * cc + sa * sc;
  X[3] = sa * cb;
  X[4] = sa * sb * sc + ca * cc;
  X[5] = sa * sb * cc - ca * sc;
  X[6] = -sb;
  X[7] = cb * sc;
  X[8] = cb * cc;
  X[9] = spread * (2 * urand() - 1);
  X[10] = spread * (2 * urand() - 1);
  X[11] = spread * (2 * urand() - 1);
}

#endif
