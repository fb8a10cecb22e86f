# tests/hostile/world_params.sh: a world's numeric parameters
# (world.friction, world.restitution, world.J.damping; docs/world.md,
# "Parameters") set out of their range by -p: one line naming the
# parameter, the value and the range, exit 2, no CSV written, in bounded
# time; a world without a pair that takes the default has no such
# parameter, a joint that does not exist no damping; a body's mass must be
# positive, a welded body has none, an inertia must be positive definite,
# a lone body's com at its origin is no parameter; a `pairs` entry's numbers are
# parameters named by its bodies (w.A.B.friction), range-checked alike.

wp_spec() {
  cat >"$T/spec.lua" <<EOF
local W = world "w" {
  body { "ground", joint = { "fixed" }, shapes = { { "plane" $1 } } },
  body { "ball", mass = 1, inertia = { 1, 1, 1 }, joint = { "free", q = { 0, 0, 1, 1, 0, 0, 0 } },
    shapes = { { "sphere", radius = 0.1 $1 } } },
}
return diagram "d" { system { "w", W }, log { "w.ball.pose", period = 0.1 } }
EOF
}

wp_bad() { # NAME SHAPE_FIELDS ASSIGNMENT ERE
  hcase "world_params.$1"
  wp_spec "$2"
  hrun -- "$DIAGC" run "$T/spec.lua" --until 0.1 -p "$3" --csv "$T/out.csv"
  expect_exit 2
  expect_error "$4"
  expect_absent "$T/out.csv"
  expect_within 20
  hdone
}

wp_bad friction_negative "" "w.friction=-1" \
  "diagc run: -p w\.friction: value 1: -1 is below the smallest value allowed, 0 \(range \[0, 1e9\]\)"
wp_bad friction_huge "" "w.friction=1e300" \
  "diagc run: -p w\.friction: value 1: 1e\+?300 is above the largest value allowed, 1e9"
wp_bad restitution_above_one "" "w.restitution=1.5" \
  "diagc run: -p w\.restitution: value 1: 1\.5 is above the largest value allowed, 1 \(range \[0, 1\]\)"
wp_bad friction_not_a_parameter ", friction = 0.3, restitution = 0.2" "w.friction=0.5" \
  "diagc run: -p w\.friction: system 'w' has no numeric parameter named 'friction'"
wp_bad damping_negative "" "w.ball.damping=-0.5" \
  "diagc run: -p w\.ball\.damping: value 1: -0\.5 N m s/rad or N s/m is below the smallest value allowed, 0 N m s/rad or N s/m"
wp_bad damping_two_values "" "w.ball.damping=1,2" \
  "diagc run: -p w\.ball\.damping: it has 1 value, got 2"
wp_bad damping_no_such_joint "" "w.ground.damping=1" \
  "diagc run: -p w\.ground\.damping: system 'w' has no numeric parameter named 'ground\.damping'"
# a body's mass is a parameter within its range (> 0); a welded body's is
# none; its inertia's moments are within theirs and the tensor positive
# definite; a lone free body whose spec puts its centre of mass at its
# origin has no com parameter (docs/world.md, "Parameters")
wp_bad mass_zero "" "w.ball.mass=0" \
  "diagc run: -p w\.ball\.mass: value 1: 0 kg is below the smallest value allowed, 1e-9 kg \(range \[1e-9, 1e9\] kg\)"
wp_bad mass_negative "" "w.ball.mass=-2" \
  "diagc run: -p w\.ball\.mass: value 1: -2 kg is below the smallest value allowed, 1e-9 kg"
wp_bad mass_of_a_welded_body "" "w.ground.mass=1" \
  "diagc run: -p w\.ground\.mass: body 'ground' is welded to the world \(no joint moves it\): its mass, centre of mass and inertia are no parameters"
wp_bad inertia_negative_moment "" "w.ball.inertia=1,1,-1,0,0,0" \
  "diagc run: -p w\.ball\.inertia: value 3: -1 kg m\^2 is below the smallest value allowed, 1e-24 kg m\^2"
wp_bad inertia_not_positive_definite "" "w.ball.inertia=1,1,1,2,0,0" \
  "diagc run: -p w\.ball\.inertia: body 'ball': inertia \{1, 1, 1, 2, 0, 0\} is not positive definite"
wp_bad inertia_whole_vector_not_positive_definite "" "w.inertia=1,1,1,0,0,-5" \
  "diagc run: -p w\.inertia: body 'ball': inertia \{1, 1, 1, 0, 0, -5\} is not positive definite"
wp_bad inertia_three_values "" "w.ball.inertia=1,1,1" \
  "diagc run: -p w\.ball\.inertia: it has 6 values, got 3"
wp_bad inertia_product_huge "" "w.ball.inertia=1,1,1,1e300,0,0" \
  "diagc run: -p w\.ball\.inertia: value 4: 1e\+?300 kg m\^2 is above the largest value allowed, 1e21 kg m\^2"
wp_bad com_of_a_lone_body_at_its_origin "" "w.ball.com=0.1,0,0" \
  "diagc run: -p w\.ball\.com: body 'ball' is a lone free body whose spec puts its centre of mass at its origin"
# a `pairs` entry's own friction and restitution are parameters named by
# the entry's bodies (w.A.B.friction), range-checked alike; an entry that
# gives none has no such parameter
wpp_bad() { # NAME ASSIGNMENT ERE
  hcase "world_params.$1"
  cat >"$T/spec.lua" <<EOF2
local W = world "w" {
  pairs = { { "ball", "ground", friction = 0.3 } },
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
  body { "ball", mass = 1, inertia = { 1, 1, 1 }, joint = { "free", q = { 0, 0, 1, 1, 0, 0, 0 } },
    shapes = { { "sphere", radius = 0.1 } } },
}
return diagram "d" { system { "w", W }, log { "w.ball.pose", period = 0.1 } }
EOF2
  hrun -- "$DIAGC" run "$T/spec.lua" --until 0.1 -p "$2" --csv "$T/out.csv"
  expect_exit 2
  expect_error "$3"
  expect_absent "$T/out.csv"
  expect_within 20
  hdone
}
wpp_bad pair_friction_negative "w.ball.ground.friction=-0.1" \
  "diagc run: -p w\.ball\.ground\.friction: value 1: -0\.1 is below the smallest value allowed, 0 \(range \[0, 1e9\]\)"
wpp_bad pair_friction_two_values "w.ball.ground.friction=0.1,0.2" \
  "diagc run: -p w\.ball\.ground\.friction: it has 1 value, got 2"
wpp_bad pair_friction_vector_size "w.pair_friction=0.1,0.2" \
  "diagc run: -p w\.pair_friction: it has 1 value, got 2"
wpp_bad pair_restitution_not_given "w.ball.ground.restitution=0.5" \
  "diagc run: -p w\.ball\.ground\.restitution: system 'w' has no numeric parameter named 'ball\.ground\.restitution'"
# a body's com (a pendulum: not a lone body) within the range of positions
wpc_bad() { # NAME ASSIGNMENT ERE
  hcase "world_params.$1"
  cat >"$T/spec.lua" <<EOF2
local W = world "w" {
  body { "arm", mass = 1, inertia = { 1, 1, 1 }, joint = { "revolute", axis = { 0, 1, 0 } } },
}
return diagram "d" { system { "w", W }, log { "w.position", period = 0.1 } }
EOF2
  hrun -- "$DIAGC" run "$T/spec.lua" --until 0.1 -p "$2" --csv "$T/out.csv"
  expect_exit 2
  expect_error "$3"
  expect_absent "$T/out.csv"
  expect_within 20
  hdone
}
wpc_bad com_huge "w.arm.com=0,0,1e7" \
  "diagc run: -p w\.arm\.com: value 3: 1e\+?0?7 m is above the largest value allowed, 1e6 m"
wpc_bad com_two_values "w.arm.com=0,1" \
  "diagc run: -p w\.arm\.com: it has 3 values, got 2"
