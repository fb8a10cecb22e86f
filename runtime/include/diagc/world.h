/* diagc/world.h: the runtime of the compiled rigid-body world (issue #17,
 * docs/world.md).  The generated code of a world computes the dynamics of
 * its tree (mass matrix, bias, factorization, contact Jacobians) and calls
 * these for the contacts.
 *
 * Part 1, collision detection (runtime/src/collide*.c): shapes, the narrow
 * phase of every pair of {sphere, box, capsule, plane, convex hull}, the contact frame,
 * axis-aligned bounding boxes and a sweep-and-prune broad phase over a
 * static list of candidate pairs.
 * Part 1b, derivatives of the contacts with respect to the shapes' motion
 * (runtime/src/collide_tangent.c).
 * Part 2, the contact solve (runtime/src/contact*.c): a boxed LCP per
 * contact island, with a work budget.
 *
 * No heap allocation (the caller owns every buffer and workspace), no
 * global state; every function is deterministic (the same input gives the
 * same output bit for bit) and never returns NaN.  docs/runtime-api.md,
 * "Collision" (with "Collision derivatives") and "Contact solve".
 *
 * C99.
 */
#ifndef DIAGC_WORLD_H
#define DIAGC_WORLD_H

#include <stddef.h>

#include "diagc/lcp.h"
#include "diagc/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Part 1: collision detection (runtime/src/collide.c, collide_box.c,
 * collide_capsule.c, collide_hull.c, collide_gjk.c)
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
  DIAGC_SHAPE_PLANE = 4,   /* a half-space: its surface is the local xy
                              plane, its outward normal local +z, its inside
                              local z < 0; size unused                      */
  DIAGC_SHAPE_HULL = 5     /* a convex polytope (a mesh's convex hull):
                              shape.hull; size[0] = the largest |vertex|
                              (its bounding radius about the frame origin) */
};

/* A convex polytope in its shape's frame (DIAGC_SHAPE_HULL), constant data
 * of the generated code.  4 <= nv <= DIAGC_HULL_MAX_VERTICES; 4 <= nf <=
 * 2 nv - 4; each face a convex polygon of at least 3 vertices, listed
 * counter-clockwise seen from outside; every vertex x satisfies n.x <= d
 * for every face's plane (n unit, outward). */
#define DIAGC_HULL_MAX_VERTICES 64
typedef struct diagc_hull {
  int nv, nf;
  const double *vert;   /* 3 nv: vertex i at vert[3i .. 3i+2]             */
  const double *plane;  /* 4 nf: face f's outward unit normal, then d     */
  const int *face;      /* nf + 1: face f's vertices are face_vert[face[f]
                           .. face[f + 1])                                */
  const int *face_vert; /* vertex indices of the faces, in order          */
} diagc_hull;

typedef struct diagc_shape {
  int type;
  double size[3];
  const diagc_hull *hull; /* DIAGC_SHAPE_HULL: its polytope; else unused  */
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
 *   clipped to the face, otherwise 1), plane-plane 0;
 *   hull-sphere 1, hull-capsule 2 (as capsule-box), hull-plane up to 8,
 *   hull-box and hull-hull up to 8 (GJK for the distance, EPA for the
 *   penetration; a face clipped against a face when the normal lies
 *   within 2.6 degrees of a face normal, otherwise 1).
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
 *   hull-plane: the hull's vertex index (when more than DIAGC_COLLIDE_MAX
 *   touch: the deepest, then in turn the farthest from those kept);
 *   hull with box or hull, a face clipped against a face: 8192 * (128 r +
 *   f) + point, f the reference face (a box's face 2i + (outward along
 *   +x_i)), r = 1 when it is b's, point the incident vertex index v, 64 +
 *   64 v + s for the incident edge from v cut by the reference face's side
 *   s, 4160 + v for the reference face's vertex v; one point otherwise
 *   (edge against edge, a vertex): 2097151;
 *   sphere-hull: 0; capsule-hull: the segment ends 0 and 1 along a face,
 *   otherwise 2;
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
  (((ta) < 1 || (ta) > 5 || (tb) < 1 || (tb) > 5) ? 0                          \
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

/* ======================================================================
 * Part 1b: derivatives of the contacts with respect to the shapes' motion
 * (runtime/src/collide_tangent.c; docs/runtime-api.md, section 5,
 * "Collision derivatives")
 * ====================================================================== */

/* Returned by diagc_collide_tangent when a contact sits where its features
 * change (its block is then one side's derivative). */
#define DIAGC_COLLIDE_KINK 1

/* Derivatives of the contacts con[0..n) that diagc_collide(a, Xa, b, Xb,
 * margin, ...) returned for this pair (same argument order), with each
 * contact's features (its feature id) held fixed.
 *
 * D: n blocks of 13 x 12 doubles, row-major, block k at D + 156 k.  Rows:
 * point (3), normal (3), t1 (3), t2 (3) (diagc_contact_frame(normal)),
 * depth (1).  Columns: the twist of a (omega 3, v 3), then of b: omega the
 * world angular velocity of the shape's frame (dR = [omega]x R), v the
 * velocity of its ORIGIN (dp), both in world coordinates.
 *
 * Analytic for sphere-sphere, sphere-plane, sphere-box (by region),
 * sphere-capsule, box-plane (corner k), hull-plane (vertex k), a vertex
 * on the reference face of a face patch with a hull, and capsule-plane
 * (end spheres); for box-box, capsule-capsule, capsule-box, a hull with a
 * sphere or capsule and the other points of a hull's face patch (clipped
 * edges, reference corners, a single point), central differences of
 * diagc_collide over the relative pose (one shape moved along its six
 * twist directions by 1e-6 of its size, resp. 1e-6 rad; contacts matched
 * by feature id) and the rigid-motion identity for the other shape.
 *
 * Returns 0; DIAGC_COLLIDE_KINK when some contact is at (within 1e-6 of
 * the shapes' size of) a change of its features: depth within that of
 * -margin, a sphere's centre at a region boundary of a box or at a
 * capsule's end, a feature that disappears on one side of a difference,
 * one-sided differences that disagree, or |n.x| within 1e-9 of
 * DIAGC_CONTACT_FRAME_X_MAX (the frame's switch); the block is then still
 * filled, with one side's derivative.  DIAGC_CONTACT_E_ARG on bad arguments
 * (NULL pointer with n > 0, a type out of range, non-finite pose, size or
 * margin, n < 0 or above diagc_collide_max of the pair, a contact with a
 * non-finite entry or a zero normal, a feature id the pair cannot have);
 * D is then not written.  No allocation; deterministic; never NaN. */
int diagc_collide_tangent(const diagc_shape *a, const double Xa[12], const diagc_shape *b,
                          const double Xb[12], double margin, const diagc_contact *con, int n,
                          double *D);

/* The same by the general path (central differences of diagc_collide) for
 * every pair type: the cross-check of the analytic derivatives. */
int diagc_collide_tangent_general(const diagc_shape *a, const double Xa[12],
                                  const diagc_shape *b, const double Xb[12], double margin,
                                  const diagc_contact *con, int n, double *D);

/* ======================================================================
 * End of part 1b
 * ====================================================================== */

/* ======================================================================== */
/* Part 2: contact solve (contact.c; docs/runtime-api.md, "Contact solve")          */
/* ======================================================================== */
/*
 * One time step's contact impulses, in DART's boxed-LCP form (seed 002,
 * docs/world.md).  The caller has the smooth dynamics' velocity v* (vstar)
 * and, per contact k (normal n_k from shape b to shape a, tangents t1_k,
 * t2_k), the three rows J_{3k}, J_{3k+1}, J_{3k+2} of the contact Jacobian
 * (the relative velocity of a with respect to b along n, t1, t2 at the
 * contact point) and M^-1 J^T from its own factorization of M.  It finds
 * the impulses x (3 per contact, along n, t1, t2) and
 *
 *     v_next = v* + M^-1 J^T x,
 *
 * such that, per contact, with A = J M^-1 J^T and w = A x - b = J v_next -
 * target (the contact velocity after the impulse minus its target):
 *
 *   normal row   x_n >= 0, w_n >= 0, x_n w_n = 0           (findex -1)
 *   tangent rows -mu x_n <= x_t <= mu x_n, w_t = 0 inside, w_t <= 0 at the
 *                upper bound, >= 0 at the lower one         (findex: normal)
 *
 * Isotropic friction (Coulomb's cone; docs/world.md, "Friction"): the
 * tangent rows are those of a frame turned per contact before the solve,
 * t1' = c t1 + s t2, t2' = -s t1 + c t2, with t1' along +-u*, u* = J_t
 * v* (the contact's sliding velocity at the v* the LCP starts from, after
 * the impacts; c >= 0) when |u*| > 1e-7 m/s, else (c, s) = (1, 0) (also
 * when the turn would be below 1e-9 rad); a turned contact
 * that slid at the start of the step (|J_t v| > 1e-6 m/s) is held to t1'
 * (its t2' bounds are [0, 0]) unless it stops along t1' within the step:
 * then it is released (t2' bounds +-mu x_n again) and its island solved
 * again.  So a sliding contact's friction is -mu x_n along its sliding
 * direction, and the stick limit along the push u* is mu in every
 * direction.  x (in and out) and the rows J stay in the default tangents
 * t1, t2; the conditions above hold for the turned rows and impulses
 * (x' = R x).  The targets of the rows:
 *
 *   tangent rows: 0.
 *   normal row of a touching contact (depth >= 0):
 *       max(e (-vn),            restitution, when the approach speed -vn,
 *                                vn = J_n v (the velocity at the start of
 *                                the step), exceeds bounce_threshold
 *           erp (depth - allowed_penetration) / dt,  penetration
 *                                correction, when depth > allowed_
 *                                penetration; at most max_correction_speed
 *           0)
 *   normal row of a separated contact (depth < 0, a speculative contact
 *   within the collision margin): depth / dt (< 0): an approach of less
 *   than the gap within the step needs no impulse; if v* closes the gap
 *   within the step (J_n v* < depth / dt) the restitution target applies
 *   as for a touching contact.
 *
 * Contacts are grouped into islands: two contacts are coupled through
 * M^-1 only when they touch a common tree (island tags: the tree id of
 * each side, -1 for the fixed world, which couples nothing).  Each island
 * is a separate LCP (diagc_lcp_solve, warm-started from x on entry), so the
 * result is that of the joint LCP (whose A is block diagonal after the same
 * permutation), at the cost of the islands'.  Contacts with mu = 0 have no
 * tangent rows (their x_t are 0).
 *
 * A work budget bounds the step (diagc_lcp_options.work_budget, counted by
 * operation, never by a clock): the islands share it in proportion to
 * the cube of their row counts (their pivoting cost), what one does not
 * use passing on to the next; when it is spent the best impulses found
 * are used, the step returns
 * DIAGC_LCP_BUDGET and stats.budget_hit = 1, stats.residual the largest
 * violation.  x and v_next are never NaN or infinity.
 *
 * Defaults (diagc_contact_options_init) and why:
 *   erp = 0.2                  a fifth of the penetration beyond the
 *                              allowance is removed per step (ODE's and
 *                              Bullet's value; DART: 0.01, slow to
 *                              recover from deep penetration)
 *   allowed_penetration = 1e-4 m: contacts within it get no correction
 *                              velocity, so a body at rest settles at a
 *                              constant depth in [0, 1e-4] with v_next = 0
 *                              exactly (no jitter, no drift)
 *   max_correction_speed = 1 m/s: a cap on the correction velocity (a
 *                              deep initial overlap does not launch bodies)
 *   bounce_threshold = 1e-2 m/s: slower approaches are inelastic (a body
 *                              resting under gravity approaches at g dt,
 *                              about 1e-2 m/s at 1 ms, and must not bounce)
 *   cfm = 0                    no regularization: the LCP solver handles a
 *                              singular A (redundant contacts) exactly by
 *                              dropping dependent columns, and a cfm > 0
 *                              biases every impulse by about cfm times the
 *                              contact's effective mass (DART: 1e-5, a
 *                              resting impulse off by 1e-5 relative for
 *                              m = 1 kg; the world's tests need 1e-9)
 *   lcp: diagc_lcp_options_init's (AUTO, tol 1e-9, accept_tol 1e-6, the
 *        default work budget, about 4 ms of CPU at 150 rows)
 *   check = 0 (1 when compiled with -DDIAGC_CONTACT_CHECK).
 *   restitution_passes = 0: DART's simultaneous restitution.  It gives the
 *        wrong propagation through chains of touching bodies (Newton's
 *        cradle: the struck ball and the row behind it move off together,
 *        -0.6 and 0.4 each for 5 balls, where the last should leave at 1
 *        and the others stop).  With restitution_passes = k > 0 impacts
 *        (contacts with e > 0 approaching faster than bounce_threshold,
 *        touching or closing within the step) are resolved first, one
 *        contact at a time (a normal impulse that leaves the contact at
 *        -e vn), in passes over the contacts until one applies none or k
 *        ran; momentum is conserved exactly, kinetic energy too for
 *        e = 1; the LCP then starts from the velocity after the impacts
 *        (frictionless impacts; friction acts in the LCP).  x returns the
 *        sum of both phases' impulses.
 */

/* The step's data.  Arrays are row-major and are not modified. */
typedef struct diagc_contact_problem {
  int nv;                 /* velocity dimension                             */
  int nc;                 /* contacts                                       */
  const double *J;        /* 3 nc x nv: rows n, t1, t2 per contact          */
  const double *MinvJT;   /* nv x 3 nc: M^-1 J^T                            */
  const double *v;        /* nv: velocity at the start of the step          */
  const double *vstar;    /* nv: velocity after the smooth dynamics         */
  const double *depth;    /* nc: penetration (> 0), gap (< 0)               */
  const double *mu;       /* nc: friction coefficients (>= 0, finite)      */
  const double *restitution; /* nc: coefficients in [0, 1]; NULL: all 0    */
  const int *tree;        /* 2 nc: tree id of side a, of side b (>= 0), or
                             -1 (the fixed world); NULL: one island        */
  double dt;              /* time step (> 0)                                */
  /* Compact rows (optional: used instead of J and MinvJT, which may then
   * be NULL, when Jc is not NULL; tree must then be given).  M^-1 is
   * block diagonal over the trees, so contact k's rows and their columns
   * of M^-1 J^T are zero outside the dofs of its two trees: its row t
   * (0 n, 1 t1, 2 t2) is Jc[(3 k + t) width + c] on columns c = 0, 1, ...
   * that are tree a's dofs tree_dofs[tree_dof0[a] .. tree_dof0[a + 1]),
   * then (when b >= 0 and b != a) tree b's; MJc likewise for M^-1 J^T.
   * The contact solve never forms A densely from them above small islands
   * (docs/world.md, "Contact solve"). */
  int width;              /* stride of a compact row (>= any contact's)    */
  const double *Jc;       /* nc x 3 x width                                 */
  const double *MJc;      /* nc x 3 x width                                 */
  int ntrees;             /* trees (tags 0 .. ntrees - 1)                   */
  const int *tree_dof0;   /* ntrees + 1: offsets into tree_dofs             */
  const int *tree_dofs;   /* the dofs of each tree, in tree order           */
  /* Bilateral rows (optional; NULL: none).  bound[k] = 0: contact k is a
   * contact as above.  bound[k] > 0 (INFINITY allowed): contact k is ONE
   * bilateral row (its mu and restitution must be 0; rows t1, t2 unused)
   * of constant bounds: -bound[k] <= x_n <= bound[k], w = 0 inside, w <= 0
   * at the upper bound, >= 0 at the lower one, with the target
   *     erp depth[k] / dt, capped to +-max_correction_speed
   * (a joint's Coulomb friction: bound F dt, depth 0, target 0; an
   * equality such as a mimic joint's: bound INFINITY, depth the signed
   * error; docs/world.md, "Joint friction and mimic joints").  Both
   * methods solve it (the sparse one classes it clamped, or at a bound
   * with x = +-bound). */
  const double *bound;    /* nc, or NULL                                    */
} diagc_contact_problem;

typedef struct diagc_contact_options {
  double erp;                  /* error reduction in [0, 1] (default 0.2)  */
  double allowed_penetration;  /* >= 0 (default 1e-4)                      */
  double max_correction_speed; /* > 0, may be INFINITY (default 1)         */
  double bounce_threshold;     /* >= 0 (default 1e-2)                      */
  double cfm;                  /* >= 0: A + cfm I (default 0)              */
  int check;                   /* 1: verify every island's LCP (below)    */
  int restitution_passes;      /* 0 (default): restitution in the LCP,
                                  simultaneous (DART's); k > 0: impacts
                                  resolved first, one contact at a time,
                                  in up to k passes over the contacts
                                  (Newton's cradle: below)                 */
  int method;                  /* DIAGC_CONTACT_SPARSE (default): compact
                                  problems' islands by the sparse method,
                                  except those of at most
                                  DIAGC_CONTACT_DENSE_ROWS rows with no
                                  warm start, or of one tree and at most
                                  32 rows (dense);
                                  DIAGC_CONTACT_DENSE: every island by the
                                  dense method (the reference; its
                                  workspace is then O(nc^2)) */
  diagc_lcp_options lcp;       /* method, tol, accept_tol, work_budget:
                                  the STEP's budget in units of n^2
                                  multiply-adds with n = the step's rows
                                  (0: diagc_lcp_work_budget's default for
                                  that n); workspace fields are ignored */
} diagc_contact_options;

typedef struct diagc_contact_stats {
  int islands;        /* LCPs solved (islands with at least one contact)   */
  int largest;        /* rows of the largest one                           */
  int rows;           /* rows of all                                        */
  int pivots;         /* LCP pivots, summed                                 */
  int sweeps;         /* LCP PGS sweeps, summed                             */
  double work;        /* multiply-adds charged by the LCP solves            */
  int budget_hit;     /* 1: the work budget ran out in some island         */
  double residual;    /* largest LCP violation over the islands             */
  int inexact;        /* islands above accept_tol (budget or unsolved)      */
  int checked;        /* islands verified (check on)                        */
  double check_violation; /* largest violation the check computed           */
  int impacts;        /* sequential impact impulses applied                 */
  int impact_passes;  /* passes of the impact phase run                     */
  int sparse_islands; /* islands solved by the sparse method                */
  int sparse_iterations; /* its solves of the clamped system, summed        */
  int sparse_fallbacks; /* islands it handed to the dense method            */
  int sparse_inexact; /* islands it left above accept_tol (also in inexact) */
  int pool_overflows; /* islands beyond its neighbour or envelope pools     */
  int friction_turned; /* contacts whose friction frame was turned (along
                          their sliding velocity at v*: see above)          */
  int friction_held;  /* turned contacts held to t1' (they slid at v)        */
  int friction_resolves; /* islands solved again after a held contact
                          stopped (it is released; counted in islands too)  */
  int friction_outside; /* contacts whose friction impulse ended outside
                          Coulomb's cone |x_t| <= mu x_n (by more than
                          1e-6 relative: a box corner of a turned frame)    */
} diagc_contact_stats;

/* Bytes of workspace for nv velocities and up to nc_max contacts (0 if an
 * argument is negative or the size overflows): for problems with dense
 * rows (J, MinvJT), or compact ones solved with method DIAGC_CONTACT_DENSE. */
size_t diagc_contact_workspace_size(int nv, int nc_max);

/* Contact methods (diagc_contact_options.method). */
enum { DIAGC_CONTACT_SPARSE = 0, DIAGC_CONTACT_DENSE = 1 };
/* Islands of at most this many rows take the dense method under
 * DIAGC_CONTACT_SPARSE when they have no warm start (and as the sparse
 * method's fallback). */
#define DIAGC_CONTACT_DENSE_ROWS 48

/* Bytes of workspace for a compact problem (Jc, MJc) of nv velocities and
 * up to nc_max contacts solved with the given method: O(nc_max + nv) for
 * DIAGC_CONTACT_SPARSE (its pools: docs/world.md, "Contact solve"), as
 * diagc_contact_workspace_size for DIAGC_CONTACT_DENSE; 0 on bad sizes. */
size_t diagc_contact_compact_workspace_size(int nv, int nc_max, int method);

/* The defaults above. */
void diagc_contact_options_init(diagc_contact_options *o);

/* One step's impulses.  x: 3 nc, the warm start on entry (the previous
 * step's impulses by contact slot; zeros allowed, non-finite entries read
 * as 0), the impulses on return; v_next: nv.  o may be NULL (defaults);
 * st may be NULL.  Returns
 *   DIAGC_OK                   every island solved to lcp.tol
 *   DIAGC_LCP_SOLVED_TOL       some only to lcp.accept_tol
 *   DIAGC_CONTACT_INEXACT      an island's LCP was not solved to
 *                              accept_tol (not for lack of work): its
 *                              best point is used
 *   DIAGC_LCP_BUDGET           the work budget ran out: the best points
 *                              are used (stats.residual)
 *   DIAGC_CONTACT_E_CHECK      check on: an island's LCP, scored again by
 *                              diagc_lcp_violation on the arrays the step
 *                              built, is above accept_tol although its
 *                              solve reported success (x, v_next set)
 *   DIAGC_CONTACT_E_NUMERIC    an island's A or impulse overflowed (not
 *                              finite): its impulses are 0 (x, v_next set)
 *   DIAGC_CONTACT_E_ARG        a bad argument (NULL array, nv or nc < 0,
 *                              dt <= 0, a non-finite entry, mu < 0,
 *                              restitution outside [0, 1], a tag < -1, an
 *                              option out of range); x, v_next unchanged
 *   DIAGC_CONTACT_E_WORKSPACE  ws NULL or ws_size below
 *                              diagc_contact_workspace_size(nv, nc);
 *                              x, v_next unchanged */
int diagc_contact_solve(const diagc_contact_problem *p, const diagc_contact_options *o,
                        double *x, double *v_next, void *ws, size_t ws_size,
                        diagc_contact_stats *st);

/* ------------------------------------------------------------------------
 * Row classification of a solved contact step (the clamping set of
 * DiffDART's linearized step; docs/runtime-api.md, "Contact solve"), of
 * the rows and impulses it is given (the linearized step gives it the
 * turned ones of diagc_contact_solve's friction frames).
 * Per row of x (3 per contact, [n, t1, t2]):
 *   the row's impulse column M^-1 J_i^T has norm < DIAGC_CLASS_COLUMN_TOL
 *       -> NOT_CLAMPING (the row moves nothing);
 *   |x_i| < DIAGC_CLASS_ZERO_TOL: a friction row whose normal impulse is
 *       at least DIAGC_CLASS_ZERO_TOL -> CLAMPING (sticking); else
 *       NOT_CLAMPING (ties with w ~ 0 included);
 *   strictly inside its bounds by more than DIAGC_CLASS_INSIDE_TOL, or
 *       outside them by more than DIAGC_CLASS_OUTSIDE_TOL -> CLAMPING;
 *   a friction row left at +-mu x_n (within DIAGC_CLASS_INSIDE_TOL of it,
 *       or outside by at most DIAGC_CLASS_OUTSIDE_TOL) whose normal is
 *       CLAMPING -> UPPER_BOUND;
 *   otherwise NOT_CLAMPING.
 * Bounds: normal [0, inf); friction [-mu x_n, mu x_n].  The tangent rows
 * of a frictionless contact (mu = 0: not rows of its LCP) are
 * NOT_CLAMPING.  (Bilateral rows, diagc_contact_problem.bound, are not
 * classified here: diagc_contact_tangent_solve classifies them itself,
 * CLAMPING strictly inside their bounds, UPPER_BOUND at one, where x
 * stays the constant bound.) */
enum { DIAGC_ROW_NOT_CLAMPING = 0, DIAGC_ROW_CLAMPING = 1, DIAGC_ROW_UPPER_BOUND = 2 };
#define DIAGC_CLASS_COLUMN_TOL 1e-9
#define DIAGC_CLASS_ZERO_TOL 1e-6
#define DIAGC_CLASS_INSIDE_TOL 1e-5
#define DIAGC_CLASS_OUTSIDE_TOL 1e-2

/* Classifies the 3 nc rows of x (impulses of diagc_contact_solve) given
 * MinvJT (nv x 3 nc row-major) and mu (nc); cls: 3 nc classes.  Returns
 * the number of CLAMPING rows, or DIAGC_CONTACT_E_ARG (NULL array, nv or
 * nc < 0, a non-finite entry, mu < 0). */
int diagc_contact_classify(int nv, int nc, const double *MinvJT, const double *x, const double *mu,
                           int *cls);

/* ======================================================================
 * Part 3: the linearized contact step (runtime/src/contact_grad.c; issue
 * #18, docs/world.md "Gradients")
 *
 * The derivative of diagc_contact_solve's v_next (and x) along given
 * directions, with the step's discrete decisions held: the impacts applied
 * (replayed), each normal target's term (restitution, penetration
 * correction, gap, constant), and the class of every LCP row
 * (diagc_contact_classify, on the friction rows turned as the solve
 * turned them): clamping rows keep w = 0 (J_i v' + cfm x_i = target_i),
 * rows at the friction bound keep x_t = +-mu x_n, the others keep x = 0
 * (a held contact's t2' row among them: it is held when it was a
 * candidate, |J_t v| > 1e-6, and its x_t1' is at mu x_n with x_t2' = 0).
 * The frames turn with the state (u* = J_t v*): the derivative of the
 * turn is part of the result (docs/world.md, "Gradients").  This is
 * DiffDART's linearization (Q, E, G and the bounce factor P of
 * lcp-and-contact) extended to this step's impact phase and
 * targets, so the result is the exact derivative of the step wherever the
 * decisions do not change.  The clamped system Q dx_C = r is solved by LU
 * with complete pivoting, its rank revealed (redundant contacts: the
 * velocity derivative is unique, the impulses' are the basic solution).
 *
 * Columns: the caller's directions (ncol); the first nq of them move the
 * configuration (q, in tangent coordinates), and the smooth parts'
 * derivatives along them come from the caller (the generated dynamics)
 * through the operators below, all at the step's configuration.  Only
 * the live directions are formed: the first nq, and the others whose
 * seeds (Tv, Tvstar, Tdepth) are not all zero or that are a contact's
 * mu_col; the step is linear in the seeds of the others, whose columns
 * of Tv_next and Tx are written as exact zeros.
 * ====================================================================== */
typedef struct diagc_step_ops {
  void *ctx;
  /* out (3 nc x nq) = d(J y)/dq for a fixed vector y (nv) */
  void (*dJy)(void *ctx, const double *y, double *out);
  /* out (nv x nq) = d(J^T x)/dq for fixed impulses x (3 nc) */
  void (*dJTx)(void *ctx, const double *x, double *out);
  /* out (nv x nq) = d(M y)/dq for a fixed vector y (nv) */
  void (*dMy)(void *ctx, const double *y, double *out);
  /* x (nv) <- M^-1 x */
  void (*solve)(void *ctx, double *x);
  /* optional (NULL: solve column by column): X <- M^-1 X for the nv x ncol
     row-major X with row stride ld (X[i * ld + c]), every column solved as
     solve would, with the same arithmetic in the same order */
  void (*solve_cols)(void *ctx, double *X, int ncol, int ld);
} diagc_step_ops;

typedef struct diagc_contact_tangent {
  /* in */
  int ncol;              /* directions                                      */
  int nq;                /* the first nq directions move q (0 <= nq <= ncol) */
  const double *Tv;      /* nv x ncol: derivative of the problem's v        */
  const double *Tvstar;  /* nv x ncol: of v*                                */
  const double *Tdepth;  /* nc x ncol: of the depths                        */
  const int *mu_col;     /* nc: the direction that moves contact k's mu (by
                            one), or -1; NULL: none                         */
  /* out */
  double *Tv_next;       /* nv x ncol                                       */
  double *Tx;            /* 3 nc x ncol (NULL: not wanted): of x (the
                            default tangents, as x)                         */
  int *cls;              /* 3 nc (NULL: not wanted): the row classes (of
                            the turned friction rows)                       */
  int *bounce;           /* nc (NULL: not wanted): 1 for a contact that
                            bounced (an impact, or a restitution target on
                            a clamping row)                                 */
  int *target;           /* nc (NULL: not wanted): the term of each normal
                            target (0 constant, 1 restitution, 2
                            penetration correction, 3 gap / dt)             */
  int clamped;           /* rows of the clamped system                      */
  int rank;              /* its rank                                        */
  int kinks;             /* rows within a threshold of another class or
                            target term: the derivative there is one-sided */
} diagc_contact_tangent;

/* Bytes of workspace for diagc_contact_tangent (0 on bad sizes). */
size_t diagc_contact_tangent_workspace_size(int nv, int nc_max, int ncol);

/* The linearized step at the solution x, v_next of diagc_contact_solve(p,
 * o, ...) (same p and o).  Returns DIAGC_OK, DIAGC_CONTACT_E_ARG (a bad
 * argument, or x, v_next not finite) or DIAGC_CONTACT_E_WORKSPACE. */
int diagc_contact_tangent_solve(const diagc_contact_problem *p, const diagc_contact_options *o,
                                const double *x, const double *v_next, const diagc_step_ops *ops,
                                diagc_contact_tangent *t, void *ws, size_t ws_size);

/* DiffDART's bounce factor: the nv x nv matrix B closest to I (Frobenius)
 * with a_k^T B a_k = -e_k for the unit directions a_k = J_k^T / |J_k^T| of
 * the m rows J_k (m x nv, row-major) with restitutions e_k: B = I +
 * sum_k c_k a_k a_k^T, K c = -(1 + e) with K_jk = (a_j . a_k)^2 (solved
 * with complete pivoting; dependent rows dropped).  ws: m * m + 2 m
 * doubles + 2 m ints (as doubles: m * m + 4 m).  Returns DIAGC_OK or
 * DIAGC_CONTACT_E_ARG. */
int diagc_bounce_matrix(int nv, int m, const double *J, const double *e, double *B, double *ws);

#ifdef __cplusplus
}
#endif

#endif /* DIAGC_WORLD_H */
