# tests/hostile/urdf.sh: bad input to what URDF import reads from real robot
# files (world/urdf.lua, world/urdf_read.lua, world/urdf_pairs.lua): the
# SRDF, the initial pose by joint name, <mimic>, planar joints, the
# collisions option, a massless root on a free base, and several
# unsupported elements at once.  Each is one line at the cause (the URDF's
# or SRDF's line, naming the spec line that imports it), exit 2, nothing
# written, in bounded time.

# the robot every case starts from: base -> j (revolute) -> arm -> k (revolute) -> hand
r_robot() {
  cat >"$T/robot.urdf" <<EOF
<?xml version="1.0"?>
<robot name="r">
  <link name="base"/>
  <joint name="j" type="revolute">
    <parent link="base"/><child link="arm"/><axis xyz="0 1 0"/>
  </joint>
  <link name="arm">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="k" type="${1:-revolute}">
    <parent link="arm"/><child link="hand"/><origin xyz="0 0 -0.3"/><axis xyz="0 1 0"/>
    ${2:-}
  </joint>
  <link name="hand">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    ${3:-}
  </link>
</robot>
EOF
}

# r_case NAME URDF-ITEM-FIELDS EXPECTED-ERE (the robot written before)
r_case() {
  cat >"$T/spec.lua" <<EOF
local W = world "w" {
  body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
  urdf { "robot.urdf", $2 },
}
return diagram "d" { system { "w", W } }
EOF
  hrun --timeout 20 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
  expect_exit 2
  expect_error "$3"
  expect_absent "$T/out.c" "$T/out.h"
  hdone
}

R_AT='\(imported at .*spec\.lua:3\)$'

hcase urdf.srdf_missing
r_robot
r_case srdf_missing 'srdf = "none.srdf"' "spec\.lua:3: cannot read SRDF file '.*none\.srdf'"

hcase urdf.srdf_malformed
r_robot
printf '<robot name="r">\n  <disable_collisions link1="arm" link2="hand">\n</robot>\n' >"$T/robot.srdf"
r_case srdf_malformed 'srdf = "robot.srdf"' "robot\.srdf:3:[0-9]+: malformed XML: mismatched tag $R_AT"

hcase urdf.srdf_unknown_link
r_robot
printf '<robot name="r">\n  <disable_collisions link1="arm" link2="hnd" reason="Never"/>\n</robot>\n' >"$T/robot.srdf"
r_case srdf_unknown_link 'srdf = "robot.srdf"' \
  "robot\.srdf:2: <disable_collisions>: 'hnd' is not a link of 'robot\.urdf'; did you mean 'hand'\? $R_AT"

hcase urdf.srdf_not_a_string
r_robot
r_case srdf_number 'srdf = 3' "spec\.lua:3: urdf srdf must be a file name such as \"robot\.srdf\", got 3"

hcase urdf.q_unknown_joint
r_robot
r_case q_unknown 'q = { kk = 0.5 }' "spec\.lua:3: urdf q: kk is not a joint of 'robot\.urdf'$"

hcase urdf.q_wrong_size
r_robot
r_case q_size 'q = { k = { 0.5, 1 } }' "spec\.lua:3: urdf q\.k: a revolute joint takes a number, got"

hcase urdf.q_nan
r_robot
r_case q_nan 'q = { k = 0/0 }' "spec\.lua:3: urdf q\.k must be a finite number, got nan"

hcase urdf.q_not_a_map
r_robot
r_case q_list 'q = { 1, 2 }' "spec\.lua:3: urdf q must map joint names to initial positions"

hcase urdf.mimic_unknown_joint
r_robot revolute '<mimic joint="jj"/>'
r_case mimic_unknown '' "robot\.urdf:12: joint 'k': <mimic joint=\"jj\"> names no joint of this URDF $R_AT"

hcase urdf.mimic_multiplier_nan
r_robot revolute '<mimic joint="j" multiplier="nan"/>'
r_case mimic_nan '' "robot\.urdf:12: joint 'k': <mimic multiplier=\"nan\">: 'nan' is not a number $R_AT"

# a loop of <mimic>s (j follows k, k follows j), a joint that mimics
# itself, a fixed leader: at the <mimic> (world/couplings.lua)
hcase urdf.mimic_loop
r_robot revolute '<mimic joint="j"/>'
sed -i 's|<child link="arm"/><axis xyz="0 1 0"/>|<child link="arm"/><axis xyz="0 1 0"/><mimic joint="k"/>|' "$T/robot.urdf"
r_case mimic_loop '' "robot\.urdf:5: joint 'j': its <mimic> chain loops back to joint 'j' .*; give the chain one leader without <mimic> $R_AT"

hcase urdf.mimic_itself
r_robot revolute '<mimic joint="k"/>'
r_case mimic_itself '' "robot\.urdf:12: joint 'k': its <mimic> chain loops back to joint 'k' .* $R_AT"

hcase urdf.mimic_of_fixed
r_robot fixed
sed -i 's|<child link="arm"/><axis xyz="0 1 0"/>|<child link="arm"/><axis xyz="0 1 0"/><mimic joint="k"/>|' "$T/robot.urdf"
r_case mimic_fixed '' "robot\.urdf:5: joint 'j': <mimic joint=\"k\"> names a fixed joint; a leader must be revolute, continuous or prismatic $R_AT"

hcase urdf.mimic_on_fixed
r_robot fixed '<mimic joint="j"/>'
r_case mimic_on_fixed '' "robot\.urdf:12: joint 'k': a fixed joint cannot mimic another .* $R_AT"

hcase urdf.friction_negative
r_robot revolute '<dynamics friction="-2"/>'
r_case friction_negative '' "robot\.urdf:12: joint 'k': <dynamics friction>: -2 N m or N is below the smallest value allowed, 0 N m or N.* $R_AT"

hcase urdf.planar_actuated
r_robot planar
r_case planar_actuated 'actuated = { "k" }' "spec\.lua:3: urdf actuated\[0\]: joint 'k' is planar; a planar joint cannot be actuated"

hcase urdf.collisions_not_boolean
r_robot
r_case collisions_word 'collisions = "no"' "spec\.lua:3: urdf collisions must be true .* or false .*, got no$"

# every unsupported element of the file in one message, at the first
hcase urdf.unsupported_all_at_once
r_robot screw '' '<collision><geometry><torus radius="1"/></geometry></collision>'
r_case unsupported '' \
  "robot\.urdf:10: joint 'k': unknown joint type 'screw' .* \(2 unsupported elements in this file; also line 16: link 'hand': unknown collision geometry <torus> .*\) $R_AT"

# a massless root on a free base with two fixed children: nothing to merge into
hcase urdf.massless_root_two_fixed_children
cat >"$T/robot.urdf" <<'EOF'
<robot name="r">
  <link name="base"/>
  <joint name="a" type="fixed"><parent link="base"/><child link="left"/></joint>
  <joint name="b" type="fixed"><parent link="base"/><child link="right"/></joint>
  <link name="left"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="right"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
</robot>
EOF
r_case massless_root 'base = "free"' "robot\.urdf:2: link 'base' moves \(its base is \"free\"\) but has no mass.* $R_AT"

# Drake collision filter groups naming what the file does not have
hcase urdf.filter_group_unknown_member
r_robot
sed -i 's|</robot>|  <drake:collision_filter_group name="g">\n    <drake:member link="hnd"/>\n  </drake:collision_filter_group>\n</robot>|' "$T/robot.urdf"
r_case filter_member '' "robot\.urdf:19: <drake:collision_filter_group name=\"g\">: member 'hnd' is not a link of this URDF $R_AT"

hcase urdf.filter_group_unknown_ignored
r_robot
sed -i 's|</robot>|  <drake:collision_filter_group name="g">\n    <drake:member link="hand"/>\n    <drake:ignored_collision_filter_group name="h"/>\n  </drake:collision_filter_group>\n</robot>|' "$T/robot.urdf"
r_case filter_ignored '' "robot\.urdf:20: <drake:collision_filter_group name=\"g\">: it ignores group 'h', which this URDF does not declare $R_AT"
