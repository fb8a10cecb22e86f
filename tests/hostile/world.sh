# tests/hostile/world.sh: worlds and URDF imports with hostile numbers and
# sizes.  Every number of a world has a finite range (world/ranges.lua,
# docs/world.md "Ranges"): a value outside it is one line at the spec line
# (or the URDF's, naming the spec line that imports it) with the real
# reason and the range; a world too large to generate is refused before the
# expensive work; a step that fails at run time says why.

# w_spec WORLD_SETTINGS BALL_FIELDS: a ball above the ground in world "w"
# (the ball's body is on line 4)
w_spec() {
  cat >"$T/spec.lua" <<EOF
local W = world "w" {
  $1
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
  body { "ball", $2 },
}
return diagram "d" { system { "w", W }, log { "w.position", period = 1e-3 } }
EOF
}

W_FREE='joint = { "free", q = { 0, 0, 1, 1, 0, 0, 0 } }'
W_SPHERE='shapes = { { "sphere", radius = 0.1 } }'
W_INERTIA='inertia = { 0.004, 0.004, 0.004 }'

# w_bad NAME SETTINGS BALL EXPECTED-ERE: generation fails with the one line
w_bad() {
  hcase "world.$1"
  w_spec "$2" "$3"
  hrun --timeout 20 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
  expect_exit 2
  expect_error "$4"
  expect_absent "$T/out.c" "$T/out.h"
  expect_within 10
  hdone
}

w_bad mass_subnormal "" "mass = 5e-324, $W_INERTIA, $W_FREE, $W_SPHERE" \
  "spec\.lua:4: body 'ball' mass: 5e-324 kg is below the smallest value allowed, 1e-9 kg \(range \[1e-9, 1e9\] kg\)"
w_bad mass_huge "" "mass = 1e308, $W_INERTIA, $W_FREE, $W_SPHERE" \
  "spec\.lua:4: body 'ball' mass: 1e308 kg is above the largest value allowed, 1e9 kg"
w_bad mass_huge_far_com "" "mass = 1e300, com = { 1e10, 0, 0 }, $W_INERTIA, $W_FREE, $W_SPHERE" \
  "spec\.lua:4: body 'ball' mass: 1e300 kg is above the largest value allowed"
w_bad com_far "" "mass = 1, com = { 1e10, 0, 0 }, $W_INERTIA, $W_FREE, $W_SPHERE" \
  "spec\.lua:4: body 'ball' com\[0\]: 1e10 m is above the largest value allowed, 1e6 m \(range \[-1e6, 1e6\] m\)"
# its products overflow: was "not positive definite"
w_bad inertia_huge "" "mass = 1, inertia = { 1e308, 1e308, 1e308 }, $W_FREE, $W_SPHERE" \
  "spec\.lua:4: body 'ball' inertia ixx: 1e308 kg m\^2 is above the largest value allowed, 1e21 kg m\^2"
w_bad inertia_subnormal "" "mass = 1, inertia = { 5e-324, 5e-324, 5e-324 }, $W_FREE, $W_SPHERE" \
  "spec\.lua:4: body 'ball' inertia ixx: 5e-324 kg m\^2 is below the smallest value allowed, 1e-24 kg m\^2"
w_bad inertia_not_pd "" "mass = 1, inertia = { 1, 1, 1, 2, 0, 0 }, $W_FREE, $W_SPHERE" \
  "spec\.lua:4: body 'ball': inertia \{1, 1, 1, 2, 0, 0\} is not positive definite"
w_bad limit_lower_above_upper "" "mass = 1, $W_INERTIA, joint = { \"revolute\", limit = { 1, -1 } }, $W_SPHERE" \
  "spec\.lua:4: body 'ball' joint limit: lower 1 is above upper -1; write the smaller bound first"
w_bad limit_on_free "" "mass = 1, $W_INERTIA, joint = { \"free\", limit = { -1, 1 } }, $W_SPHERE" \
  "spec\.lua:4: body 'ball': a free joint has no limit \(only revolute and prismatic joints do\)"
w_bad dynamics_unknown 'dynamics = "fast",' "mass = 1, $W_INERTIA, $W_FREE, $W_SPHERE" \
  "spec\.lua:1: dynamics must be \"auto\" .*, \"unrolled\" or \"looped\" \(docs/world\.md §6\), got \"?fast\"?$"
# joint friction and mimic couplings (world/couplings.lua)
w_bad friction_on_free "" "mass = 1, $W_INERTIA, joint = { \"free\", friction = 1 }, $W_SPHERE" \
  "spec\.lua:4: body 'ball' joint: a free joint has no friction \(only revolute and prismatic joints do\)"
w_bad friction_negative "" "mass = 1, $W_INERTIA, joint = { \"revolute\", friction = -1 }, $W_SPHERE" \
  "spec\.lua:4: body 'ball' joint friction: -1 N m or N is below the smallest value allowed, 0 N m or N"
w_bad mimic_itself "" "mass = 1, $W_INERTIA, joint = { \"revolute\", mimic = { \"ball\" } }, $W_SPHERE" \
  "spec\.lua:4: body 'ball': its joint is in a loop of mimic joints .*; give the loop one leader that mimics nothing"
w_bad mimic_unknown "" "mass = 1, $W_INERTIA, joint = { \"revolute\", mimic = { \"bal\" } }, $W_SPHERE" \
  "spec\.lua:4: body 'ball': its joint mimics 'bal', which is not a body of this world"
w_bad erp_2 "erp = 2," "mass = 1, $W_INERTIA, $W_FREE, $W_SPHERE" \
  "spec\.lua:1: erp: 2 is above the largest value allowed, 1 \(range \[0, 1\]\)"
w_bad gravity_huge "gravity = { 0, 0, 1e308 }," "mass = 1, $W_INERTIA, $W_FREE, $W_SPHERE" \
  "spec\.lua:1: gravity\[2\]: 1e308 m/s\^2 is above the largest value allowed, 1e4 m/s\^2"
w_bad time_step_huge "time_step = 1e300," "mass = 1, $W_INERTIA, $W_FREE, $W_SPHERE" \
  "spec\.lua:1: time_step: 1e300 s is above the largest value allowed, 1 s"
w_bad cfm_huge "cfm = 1e300," "mass = 1, $W_INERTIA, $W_FREE, $W_SPHERE" \
  "spec\.lua:1: cfm: 1e300 is above the largest value allowed, 1e6"
w_bad friction_inf "friction = math.huge," "mass = 1, $W_INERTIA, $W_FREE, $W_SPHERE" \
  "spec\.lua:1: friction must be a finite number, got inf"
w_bad max_contacts_fraction "max_contacts = 2.5," "mass = 1, $W_INERTIA, $W_FREE, $W_SPHERE" \
  "spec\.lua:1: max_contacts: 2\.5 is not an integer \(range an integer in \[1, 1e7\]\)"
w_bad contact_overflow_word 'contact_overflow = "ignore",' "mass = 1, $W_INERTIA, $W_FREE, $W_SPHERE" \
  'spec\.lua:1: contact_overflow must be "stop" \(.*\) or "drop" \(.*\), got ignore$'
w_bad contact_overflow_bool "contact_overflow = true," "mass = 1, $W_INERTIA, $W_FREE, $W_SPHERE" \
  'spec\.lua:1: contact_overflow must be "stop" .* or "drop" .*, got true$'
w_bad contact_method_word 'contact_method = "fast",' "mass = 1, $W_INERTIA, $W_FREE, $W_SPHERE" \
  'spec\.lua:1: contact_method must be "sparse" \(.*\) or "dense" \(.*\), got fast$'
w_bad radius_huge "" "mass = 1, $W_INERTIA, $W_FREE, shapes = { { \"sphere\", radius = 1e300 } }" \
  "spec\.lua:4: body 'ball' sphere radius: 1e300 m is above the largest value allowed, 1e6 m"
w_bad box_huge "" "mass = 1, $W_INERTIA, $W_FREE, shapes = { { \"box\", size = { 1e300, 1, 1 } } }" \
  "spec\.lua:4: body 'ball' box size\[0\]: 1e300 m is above the largest value allowed, 1e6 m"
w_bad origin_huge "" "mass = 1, $W_INERTIA, joint = { \"free\", xyz = { 1e308, 0, 0 } }, $W_SPHERE" \
  "spec\.lua:4: body 'ball' joint xyz\[0\]: 1e308 m is above the largest value allowed, 1e6 m"
w_bad rpy_huge "" "mass = 1, $W_INERTIA, joint = { \"free\", rpy = { 0, -1e300, 0 } }, $W_SPHERE" \
  "spec\.lua:4: body 'ball' joint rpy\[1\]: -1e300 rad is below the smallest value allowed, -1e6 rad"
w_bad initial_speed_huge "" "mass = 1, $W_INERTIA, joint = { \"free\", v = { 0, 0, 1e300, 0, 0, 0 } }, $W_SPHERE" \
  "spec\.lua:4: body 'ball' joint v\[2\]: 1e300 m/s or rad/s is above the largest value allowed"
w_bad free_position_huge "" "mass = 1, $W_INERTIA, joint = { \"free\", q = { 1e300, 0, 1, 1, 0, 0, 0 } }, $W_SPHERE" \
  "spec\.lua:4: body 'ball' joint q\[0\]: 1e300 m is above the largest value allowed, 1e6 m"
w_bad damping_huge "" "mass = 1, $W_INERTIA, joint = { \"revolute\", damping = 1e300 }, $W_SPHERE" \
  "spec\.lua:4: body 'ball' joint damping: 1e300 N m s/rad or N s/m is above the largest value allowed"
w_bad axis_zero "" "mass = 1, $W_INERTIA, joint = { \"revolute\", axis = { 0, 0, 0 } }, $W_SPHERE" \
  "spec\.lua:4: body 'ball' joint axis must be a nonzero direction, got \{0, 0, 0\}"

# an axis whose squares overflow (or underflow) is still a direction:
# {1e200, 0, 0} and {1e-200, 0, 0} give the C of {1, 0, 0} (it became {0, 0,
# 0} and a C error at line 95 of a 6-line spec)
hcase world.axis_scaled
for a in "1, 0, 0" "1e200, 0, 0" "1e-200, 0, 0"; do
  d="$T/$(printf '%s' "$a" | tr -dc '0-9e-')"
  mkdir -p "$d"
  cat >"$d/spec.lua" <<EOF
local W = world "w" {
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
  body { "arm", mass = 1, $W_INERTIA, joint = { "revolute", axis = { $a }, xyz = { 0, 0, 0.5 } }, $W_SPHERE },
}
return diagram "d" { system { "w", W } }
EOF
  hrun --timeout 60 -- "$DIAGC" "$d/spec.lua" -o "$d/out.c"
  expect_exit 0
done
# the same C but for the spec's path (in comments and #line)
same_c() { cmp -s <(grep -v 'spec\.lua' "$1") <(grep -v 'spec\.lua' "$2"); }
check "axis {1e200, 0, 0} gives the C of {1, 0, 0}" same_c "$T/100/out.h" "$T/1e20000/out.h"
check "axis {1e-200, 0, 0} gives the C of {1, 0, 0}" same_c "$T/100/out.h" "$T/1e-20000/out.h"
hdone

# two worlds whose C names would collide: a spec error at the second world
# (was a C redefinition error)
w_two() {
  cat >"$T/spec.lua" <<EOF
local A = world "w" {
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
  body { "ball", mass = 1, $W_INERTIA, $W_FREE, $W_SPHERE },
}
local B = world "$1" {
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
  body { "ball", mass = 2, $W_INERTIA, $W_FREE, $W_SPHERE },
}
return diagram "d" { system { "a", A }, system { "b", B } }
EOF
}

hcase world.duplicate_name
w_two w
hrun --timeout 30 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:5: world "w": another world of this model has that name \(.*spec\.lua:1\)'
expect_absent "$T/out.c" "$T/out.h"
hdone

hcase world.overlapping_c_names
w_two w_d
hrun --timeout 30 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:5: world "w_d" would share C names with world "w" \(.*spec\.lua:1\): their C prefixes dcw_w_d_ and dcw_w_ overlap'
expect_absent "$T/out.c" "$T/out.h"
hdone

# the same bad values through a URDF: at the element's line, naming the
# spec line that imports the file
# u_bad NAME INERTIAL COLLISION JOINT-EXTRA EXPECTED-ERE
u_bad() {
  hcase "world.urdf_$1"
  cat >"$T/robot.urdf" <<EOF
<?xml version="1.0"?>
<robot name="r">
  <link name="base"/>
  <link name="arm">
    <inertial>
      $2
    </inertial>
    <collision>
      <geometry>$3</geometry>
    </collision>
  </link>
  <joint name="j" type="revolute">
    <parent link="base"/><child link="arm"/>
    $4
  </joint>
</robot>
EOF
  cat >"$T/spec.lua" <<'EOF'
local W = world "w" {
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
  urdf { "robot.urdf", xyz = { 0, 0, 0.5 } },
}
return diagram "d" { system { "w", W } }
EOF
  hrun --timeout 20 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
  expect_exit 2
  expect_error "$5"
  expect_absent "$T/out.c" "$T/out.h"
  hdone
}

U_INERTIAL='<mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>'
U_SPHERE='<sphere radius="0.1"/>'
U_AXIS='<axis xyz="0 1 0"/>'
U_AT='\(imported at .*spec\.lua:3\)$'

u_bad mass_subnormal '<mass value="5e-324"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>' \
  "$U_SPHERE" "$U_AXIS" \
  "robot\.urdf:6: link 'arm': <mass value>: 5e-324 kg is below the smallest value allowed, 1e-9 kg .*$U_AT"
u_bad mass_huge '<mass value="1e308"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>' \
  "$U_SPHERE" "$U_AXIS" \
  "robot\.urdf:6: link 'arm': <mass value>: 1e308 kg is above the largest value allowed, 1e9 kg.*$U_AT"
u_bad inertia_huge '<mass value="1"/><inertia ixx="1e308" iyy="1e308" izz="1e308" ixy="0" ixz="0" iyz="0"/>' \
  "$U_SPHERE" "$U_AXIS" \
  "robot\.urdf:6: link 'arm': <inertia ixx>: 1e308 kg m\^2 is above the largest value allowed, 1e21 kg m\^2.*$U_AT"
u_bad com_huge "<origin xyz=\"1e10 0 0\"/>$U_INERTIAL" "$U_SPHERE" "$U_AXIS" \
  "robot\.urdf:6: link 'arm': <origin xyz>: 1e10 m is above the largest value allowed, 1e6 m.*$U_AT"
u_bad radius_huge "$U_INERTIAL" '<sphere radius="1e300"/>' "$U_AXIS" \
  "robot\.urdf:9: link 'arm': <sphere radius>: 1e300 m is above the largest value allowed, 1e6 m.*$U_AT"
u_bad box_huge "$U_INERTIAL" '<box size="1 1e300 1"/>' "$U_AXIS" \
  "robot\.urdf:9: link 'arm': <box size>: 1e300 m is above the largest value allowed, 1e6 m.*$U_AT"
u_bad origin_huge "$U_INERTIAL" "$U_SPHERE" "$U_AXIS<origin xyz=\"0 0 1e308\"/>" \
  "robot\.urdf:14: joint 'j': <origin xyz>: 1e308 m is above the largest value allowed, 1e6 m.*$U_AT"
u_bad damping_huge "$U_INERTIAL" "$U_SPHERE" "$U_AXIS<dynamics damping=\"1e300\"/>" \
  "robot\.urdf:14: joint 'j': <dynamics damping>: 1e300 N m s/rad or N s/m is above the largest value allowed.*$U_AT"
# joint limits (world/limits.lua): lower above upper, at the <limit> element
u_bad limit_lower_above_upper "$U_INERTIAL" "$U_SPHERE" "$U_AXIS<limit lower=\"1\" upper=\"-1\" effort=\"5\" velocity=\"1\"/>" \
  "robot\.urdf:14: joint 'j': <limit lower=\"1\"> is above upper=\"-1\"; write the smaller bound as lower.*$U_AT"
u_bad limit_effort_negative "$U_INERTIAL" "$U_SPHERE" "$U_AXIS<limit lower=\"-1\" upper=\"1\" effort=\"-5\"/>" \
  "robot\.urdf:14: joint 'j': <limit effort>: -5 N or N m is below the smallest value allowed, 0 N or N m.*$U_AT"
# the world's own checks on the imported body: at its <link>, and the import
u_bad inertia_not_pd '<mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="2" ixz="0" iyz="0"/>' \
  "$U_SPHERE" "$U_AXIS" "robot\.urdf:4: body 'arm': inertia \{1, 1, 1, 2, 0, 0\} is not positive definite.*$U_AT"

hcase world.urdf_axis_scaled
cat >"$T/robot.urdf" <<EOF
<?xml version="1.0"?>
<robot name="r">
  <link name="base"/>
  <link name="arm"><inertial>$U_INERTIAL</inertial><collision><geometry>$U_SPHERE</geometry></collision></link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 1e200 0"/></joint>
</robot>
EOF
printf 'return diagram "d" { system { "w", world "w" { urdf { "robot.urdf" } } } }\n' >"$T/spec.lua"
hrun --timeout 60 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 0
check "out.c written" test -s "$T/out.c"
hdone

# a step that fails at run time for a reason no check sees (an effort that
# overflows): the simulator's message says why
hcase world.runtime_failure_reason
cat >"$T/spec.lua" <<EOF
local Push = leaf "Push" {
  parameter { "k", default = { 1e200 } },
  output_port { "f", size = 1, prerequisites = { "k" }, calc = [[ f[0] = -k[0] * k[0]; ]] },
}
local W = world "w" {
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
  body { "ball", mass = 1, $W_INERTIA, joint = { "prismatic", axis = { 0, 0, 1 }, xyz = { 0, 0, 0.1 },
    actuated = true }, $W_SPHERE },
}
return diagram "d" { system { "push", Push }, system { "w", W }, connect { "push.f", "w.effort" },
  log { "w.position", period = 1e-3 } }
EOF
hrun --timeout 60 -- "$DIAGC" run "$T/spec.lua" --until 0.01 --csv "$T/out.csv"
expect_exit 2
expect_error "simulation failed: discrete update event 'w\.step' failed at t = 0: world step: the velocity after the smooth dynamics is not finite \(the state, an effort or a force overflowed\)"
hdone

# a step whose collision finds more contacts than max_contacts (a box on the
# ground touches at its 4 bottom corners; max_contacts = 2) stops the
# simulation by default, naming the world, the time, the count and the cap
hcase world.contacts_over_max
w_spec "max_contacts = 2, time_step = 1e-3," \
  "mass = 1, $W_INERTIA, joint = { \"free\", q = { 0, 0, 0.1, 1, 0, 0, 0 } }, shapes = { { \"box\", size = { 0.2, 0.2, 0.2 } } }"
hrun --timeout 60 -- "$DIAGC" run "$T/spec.lua" --until 0.01 --csv "$T/out.csv"
expect_exit 2
expect_error '^diagc: diagc run: simulation failed: world "w" needs 4 contacts at t = 0 s, more than max_contacts = 2; raise max_contacts to at least 4 or set contact_overflow = "drop" \(docs/world\.md, "Capacity"\)$'
expect_absent "$T/out.csv"
hdone

# worlds too large to generate: one line at the world's line naming the
# number and the limit, decided from the tree and the pairs before any code
# is generated (they ran out of the Lua heap after minutes, or exit 70)
# w_many NAME N GRADIENTS JOINT SHAPE EXPECTED-ERE [DYNAMICS]: N bodies made in a loop
# (JOINT may use i, the body's number; DYNAMICS the form, default auto: the
# unrolled form's limits are forced with "unrolled")
w_many() {
  hcase "world.$1"
  cat >"$T/spec.lua" <<LUA
local items = { gradients = $3, dynamics = "${7:-auto}", body { "ground", joint = { "fixed" }, shapes = { { "plane" } } } }
for i = 1, $2 do
  items[#items + 1] = body { "b" .. i, mass = 1, inertia = { 0.01, 0.01, 0.01 }, joint = $4, shapes = { $5 } }
end
return diagram "d" { system { "w", world "w" (items) } }
LUA
  hrun --timeout 30 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
  expect_exit 2
  expect_error "$6"
  expect_absent "$T/out.c" "$T/out.h"
  expect_within 5
  hdone
}

W_LINK='{ "revolute", parent = i == 1 and "world" or "b" .. (i - 1), xyz = { 0, 0, 0.1 }, axis = { 0, 1, 0 } }'
W_LOOSE='{ "free", q = { i, 0, 1, 1, 0, 0, 0 } }'

w_many chain_gradients 40 true "$W_LINK" '{ "sphere", radius = 0.05 }' \
  "spec\.lua:5: world \"w\": the step's Jacobians would be about 2[0-9]\.[0-9] MB of generated C \(41 bodies, 40 dofs, chains up to 40 dofs deep, [0-9]+ candidate pairs\), more than the limit of 12 MB .*; set gradients = false" unrolled
w_many pile_gradients 60 true "$W_LOOSE" '{ "sphere", radius = 0.1 }' \
  "spec\.lua:5: world \"w\" has 360 dofs, more than the 316 a world with gradients may have .*set gradients = false" unrolled
w_many chain_200 200 false "$W_LINK" '{ "sphere", radius = 0.05 }' \
  "spec\.lua:5: world \"w\" is too deep to unroll: its chains of joints reach 200 dofs from the root, so its mass-matrix factor would unroll to 1333300 products, more than the limit of 20825.*set dynamics = \"looped\"" unrolled
w_many pile_200_boxes 200 false "$W_LOOSE" '{ "box", size = { 0.2, 0.2, 0.2 } }' \
  "spec\.lua:5: world \"w\" needs more than 50000 contact slots .* more than the limit of 50000 .*exclude body pairs"
w_many dofs 400 false "$W_LOOSE" '' \
  "spec\.lua:5: world \"w\" has 2400 dofs \(velocity coordinates of its 401 bodies\), more than the limit of 2000"

hcase world.max_contacts_context
cat >"$T/spec.lua" <<'LUA'
local items = { gradients = false, max_contacts = 3000, contact_method = "dense",
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } } }
for i = 1, 30 do
  items[#items + 1] = body { "b" .. i, mass = 1, inertia = { 0.01, 0.01, 0.01 },
    joint = { "free", q = { i, 0, 1, 1, 0, 0, 0 } }, shapes = { { "box", size = { 0.2, 0.2, 0.2 } } } }
end
return diagram "d" { system { "w", world "w" (items) } }
LUA
hrun --timeout 30 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:7: world "w": the step.s context would take [0-9]+ MiB \([0-9]+ MiB of step work for max_contacts = 3000\), more than the limit of 1024 MiB .*lower max_contacts'
expect_absent "$T/out.c" "$T/out.h"
expect_within 5
hdone

# a URDF of 5000 links in a chain: the number, at once
hcase world.urdf_5000_links
{
  echo '<?xml version="1.0"?>'
  echo '<robot name="big">'
  echo '  <link name="l0"/>'
  i=1
  while [ $i -le 5000 ]; do
    echo "  <link name=\"l$i\"><inertial><mass value=\"1\"/><inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>"
    echo "  <joint name=\"j$i\" type=\"revolute\"><parent link=\"l$((i - 1))\"/><child link=\"l$i\"/><axis xyz=\"0 1 0\"/></joint>"
    i=$((i + 1))
  done
  echo '</robot>'
} >"$T/big.urdf"
printf 'local W = world "w" {\n  urdf { "big.urdf" },\n}\nreturn diagram "d" { system { "w", W } }\n' >"$T/spec.lua"
hrun --timeout 30 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:1: world "w" has 5001 bodies, more than the limit of 1000 \(docs/world\.md, "Size"\)'
expect_absent "$T/out.c" "$T/out.h"
expect_within 10
hdone
