/* diagc/world.h: the runtime of the compiled rigid-body world (issue #17).
 *
 * Part 1, collision detection (runtime/src/collide*.c): shapes, the narrow
 * phase of every pair of {sphere, box, capsule, plane}, the contact frame,
 * axis-aligned bounding boxes and a sweep-and-prune broad phase over a
 * static list of candidate pairs.
 * Part 2, the contact solve (runtime/src/contact*.c), follows part 1.
 *
 * No heap allocation, no global state; every function is deterministic
 * (the same input gives the same output bit for bit) and never returns
 * NaN for degenerate geometry.  docs/runtime-api.md, "Collision".
 *
 * C99.
 */
#ifndef DIAGC_WORLD_H
#define DIAGC_WORLD_H

#include <stddef.h>

#include "diagc/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Part 1: collision detection (runtime/src/collide.c, collide_box.c,
 * collide_capsule.c)
 * ====================================================================== */

/* Poses: double X[12] = R (rotation body -> world, 3x3 ROW-major), then p
 * (the body frame's origin in world).  A point r in the shape's frame is at
 * R r + p in world.  A shape sits at its frame's origin. */

/* Shape types (diagc_shape.type). */
enum {
  DIAGC_SHAPE_SPHERE = 1,  /* size[0] = radius                              */
  DIAGC_SHAPE_BOX = 2,     /* size = half extents along local x, y, z; its
                              corner k is at ((k&1)?+:-)hx, ((k&2)?+:-)hy,
                              ((k&4)?+:-)hz                                 */
  DIAGC_SHAPE_CAPSULE = 3, /* size[0] = radius, size[1] = half length of its
                              segment, which runs along local z from
                              (0,0,-size[1]) (end 0) to (0,0,+size[1]) (end 1) */
  DIAGC_SHAPE_PLANE = 4    /* a half-space: its surface is the local xy
                              plane, its outward normal local +z, its inside
                              local z < 0; size unused                      */
};

typedef struct diagc_shape {
  int type;
  double size[3];
} diagc_shape;

/* One contact between shapes a and b. */
typedef struct diagc_contact {
  double point[3];  /* world: midway between the two surfaces              */
  double normal[3]; /* unit, world, FROM b TO a: an impulse +normal on a and
                       -normal on b pushes them apart                       */
  double depth;     /* > 0: penetration; < 0: gap (reported when > -margin) */
  int feature;      /* stable id of the features in contact (see below)     */
} diagc_contact;

/* The most contacts diagc_collide returns for any pair. */
#define DIAGC_COLLIDE_MAX 8

/* Contacts between shape a at pose Xa and shape b at pose Xb: those with
 * depth > -margin (margin >= 0 reports near contacts, so that a solver can
 * treat them speculatively).  Writes at most max_out contacts to out and
 * returns their count (0 <= count <= max_out); when more exist, the deepest
 * max_out are kept.  Either argument order works: swapping a and b gives
 * the same points and depths with negated normals.
 *
 * Contacts per pair (diagc_collide_max):
 *   sphere-sphere 1, sphere-box 1, sphere-capsule 1, sphere-plane 1,
 *   box-plane up to 8 (every corner within the margin),
 *   box-box up to 8 (a face clipped against a face; edge-edge: 1),
 *   capsule-plane 2 (its two end spheres), capsule-capsule 2 (parallel
 *   overlapping segments give the two ends of the overlap, otherwise 1),
 *   capsule-box 2 (a capsule along a face gives the two ends of its segment
 *   clipped to the face, otherwise 1), plane-plane 0.
 *
 * Order and features: the contacts of a pair are sorted by `feature`, an id
 * of the features in contact that stays the same while the configuration
 * does (a resting box keeps its slots), so impulses can be warm-started by
 * slot or matched by feature.  The ids, per pair (a before b as called):
 *   box-plane: the corner index k (0..7);
 *   capsule-plane, capsule-capsule (parallel): the segment end (0, 1) on
 *   the capsule; capsule-box along a face: 0 and 1 (the clipped segment's
 *   ends in the order of the segment); otherwise capsule pairs: 2;
 *   sphere-box: the region of the box nearest the centre,
 *   (sx+1) + 3 (sy+1) + 9 (sz+1) with s in {-1, 0, 1} per box axis;
 *   sphere-sphere, sphere-plane, sphere-capsule: 0;
 *   box-box: 32 * axis + point, where axis 0..5 is a face 2i + (outward
 *   along +x_i) of the first box as reference, 6..11 the same of the
 *   second box, 12 + 3i + j the edge pair (x_i of the first box, x_j of the
 *   second), and point is the incident box's corner (0..7), 8 + 4e + s for
 *   incident face edge e cut by reference side plane s, 24..27 a reference
 *   face corner, 31 the incident box's deepest corner when nothing of the
 *   incident face lies over the reference face; for edge-edge, the two
 *   edges' sign bits.
 *
 * Degenerate input (coincident centres, parallel edges, zero sizes) gives
 * finite, deterministic contacts: a direction that cannot be derived from
 * the geometry falls back to world +z or to a contact-frame tangent.
 * Non-finite input gives no contact.  Unknown types give 0. */
int diagc_collide(const diagc_shape *a, const double Xa[12], const diagc_shape *b,
                  const double Xb[12], double margin, diagc_contact *out, int max_out);

/* The most contacts diagc_collide returns for shapes of these types (for
 * sizing arrays at compile time); 0 for plane-plane or an unknown type.
 * DIAGC_COLLIDE_MAX_FOR is the same as a constant expression. */
#define DIAGC_COLLIDE_MAX_FOR(ta, tb)                                          \
  (((ta) < 1 || (ta) > 4 || (tb) < 1 || (tb) > 4) ? 0                          \
   : ((ta) == DIAGC_SHAPE_SPHERE || (tb) == DIAGC_SHAPE_SPHERE)     ? 1       \
   : ((ta) == DIAGC_SHAPE_PLANE && (tb) == DIAGC_SHAPE_PLANE)       ? 0       \
   : ((ta) == DIAGC_SHAPE_CAPSULE || (tb) == DIAGC_SHAPE_CAPSULE)   ? 2       \
                                                                    : 8)
int diagc_collide_max(int type_a, int type_b);

/* Deterministic orthonormal tangents of unit normal n: when |n.x| <
 * DIAGC_CONTACT_FRAME_X_MAX, t1 is world x projected onto the plane normal
 * to n, otherwise world y projected; t2 = n x t1.  (A box on an incline
 * sloping along x gets t1 along the slope.)  n is normalized first; a zero
 * or non-finite n is taken as +z. */
#define DIAGC_CONTACT_FRAME_X_MAX 0.9
void diagc_contact_frame(const double n[3], double t1[3], double t2[3]);

/* The axis-aligned bounding box of shape s at pose X, grown by margin:
 * aabb[0..2] = min corner, aabb[3..5] = max corner.  A half-space is
 * unbounded (+-DBL_MAX) except along a world axis its normal is exactly
 * parallel to (its other two components == 0.0). */
void diagc_shape_aabb(const diagc_shape *s, const double X[12], double margin,
                      double aabb[6]);

/* Broad phase: sweep and prune along world x over a static candidate list.
 *
 *   nshapes  shapes, with boxes aabb[6*i .. 6*i+5] (diagc_shape_aabb)
 *   npairs   candidate pairs: shapes pairs[2k], pairs[2k+1] (indices in
 *            [0, nshapes), different), SORTED strictly increasing by
 *            (min, max) of the two indices (diagc_broadphase_check_pairs)
 *   ws       int workspace of DIAGC_BROADPHASE_WS(nshapes) ints; it keeps
 *            the sort order of the last call (any content is accepted, a
 *            non-permutation is reset), so coherent scenes sort in O(n)
 *   out      receives the indices k of the candidates whose boxes overlap
 *            (closed intervals on all three axes), in increasing order;
 *            room for npairs
 * Returns their count, or -1 for invalid sizes or NULL arrays.  Cost:
 * O(n) to O(n^2) for the insertion sort, plus O(log npairs) per pair of
 * shapes overlapping along x.  Pairs that overlap but are not candidates are
 * ignored. */
#define DIAGC_BROADPHASE_WS(nshapes) (2 * (nshapes))
int diagc_broadphase(int nshapes, const double *aabb, int npairs, const int *pairs,
                     int *ws, int *out);

/* 1 when pairs is a valid candidate list for diagc_broadphase, else 0. */
int diagc_broadphase_check_pairs(int nshapes, int npairs, const int *pairs);

/* ======================================================================
 * End of part 1 (collision detection)
 * ====================================================================== */

#ifdef __cplusplus
}
#endif

#endif
