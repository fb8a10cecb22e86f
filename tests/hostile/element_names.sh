# tests/hostile/element_names.sh: element names (names = {...} of output
# ports and discrete states, a world's joint names; docs/spec-language.md,
# "Element names"): a list of the wrong length, a name that is not one, a
# duplicate, a name another state element or item of the leaf has, a
# joint name that is taken: one line at the declaring line, exit 2,
# nothing written, in bounded time.  --state of a name the model does not
# have names the closest one.

# en_spec DECL: a leaf whose line 2 is DECL
en_spec() {
  cat >"$T/spec.lua" <<EOF
local A = leaf "A" {
  $1,
  continuous_state { q = { "theta" }, v = 1 },
  derivatives { calc = [[ qdot[0] = v[0]; vdot[0] = 0; ]] },
}
return diagram "top" { system { "a", A } }
EOF
}

en_bad() { # NAME DECL ERE
  hcase "element_names.$1"
  en_spec "$2"
  hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
  expect_exit 2
  expect_error "$3"
  expect_absent "$T/out.c" "$T/out.h"
  expect_within 10
  hdone
}

OUT='output_port { "y", size = 3, prerequisites = { "q" }, calc = [[ y[0] = q[0]; y[1] = 0; y[2] = 0; ]]'
en_bad port_too_few "$OUT, names = { \"a\", \"b\" } }" \
  "spec\.lua:2: output_port 'y' has 3 elements but names lists 2; give one name per element"
en_bad port_too_many "$OUT, names = { \"a\", \"b\", \"c\", \"d\" } }" \
  "spec\.lua:2: output_port 'y' has 3 elements but names lists 4"
en_bad port_duplicate "$OUT, names = { \"a\", \"b\", \"a\" } }" \
  "spec\.lua:2: output_port 'y' names element 0 and 2 both 'a'; element names must be unique"
en_bad port_not_a_name "$OUT, names = { \"a\", \"b c\", \"d\" } }" \
  "spec\.lua:2: output_port 'y' element name 'b c' is not a valid name"
en_bad port_dotted "$OUT, names = { \"a\", \"b.c\", \"d\" } }" \
  "spec\.lua:2: output_port 'y' element name 'b\.c' is not a valid name"
en_bad port_double_underscore "$OUT, names = { \"a\", \"b__c\", \"d\" } }" \
  "spec\.lua:2: output_port 'y' element name 'b__c' is not a valid name"
en_bad port_number "$OUT, names = { \"a\", 2, \"d\" } }" \
  "spec\.lua:2: output_port 'y' names\[2\] must be a string, got 2"
en_bad port_not_a_list "$OUT, names = \"abc\" }" \
  "spec\.lua:2: output_port 'y' names must be a list of 3 names"
en_bad port_holes "$OUT, names = { \"a\", \"b\", \"c\", x = \"d\" } }" \
  "spec\.lua:2: output_port 'y' names must be a plain list of names"
en_bad port_long "$OUT, names = { \"a\", \"b\", string.rep(\"c\", 300) } }" \
  "spec\.lua:2: output_port 'y' element name 'c+.*' is 300 characters long"
en_bad state_count 'discrete_state { "x", size = 2, names = { "a" } }' \
  "spec\.lua:2: discrete_state 'x' has 2 elements but names lists 1"
en_bad state_clash_continuous 'discrete_state { "x", size = 2, names = { "a", "theta" } }' \
  "spec\.lua:2: discrete_state 'x' names an element 'theta', which the leaf already has as a continuous state element"
en_bad state_clash_item 'discrete_state { "x", size = 2, names = { "a", "x" } }' \
  "spec\.lua:2: discrete_state 'x' names an element 'x', which the leaf already has as discrete state 'x'"
en_bad parameter_names 'parameter { "k", size = 2, names = { "a", "b" } }' \
  "spec\.lua:2: parameter has no field 'names'"
en_bad input_names 'input_port { "u", size = 2, names = { "a", "b" } }' \
  "spec\.lua:2: input_port has no field 'names'"
en_bad label_from_spec "$OUT, label = \"y.z\" }" \
  "spec\.lua:2: output_port has no field 'label'"

# wj_bad NAME JOINT_A JOINT_B ERE: a world's joint names (bodies a, b on
# lines 2 and 3)
wj_bad() {
  hcase "element_names.$1"
  cat >"$T/spec.lua" <<EOF
local W = world "w" {
  body { "a", mass = 1, inertia = { 1, 1, 1 }, joint = { "revolute", $2 } },
  body { "b", mass = 1, inertia = { 1, 1, 1 }, joint = { "revolute", $3 } },
}
return diagram "d" { system { "w", W } }
EOF
  hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
  expect_exit 2
  expect_error "$4"
  expect_absent "$T/out.c" "$T/out.h"
  expect_within 10
  hdone
}
wj_bad joint_twice 'name = "elbow"' 'name = "elbow"' \
  "spec\.lua:3: world \"w\": body 'a' and body 'b' both have a joint named 'elbow'; joint names must be unique"
wj_bad joint_default_taken 'name = "b"' '' \
  "spec\.lua:3: world \"w\": body 'a' and body 'b' both have a joint named 'b'"
wj_bad joint_state_name 'name = "pos"' '' \
  "spec\.lua:2: world \"w\": body 'a': a joint named 'pos' would share its name with the world's state 'pos'"
wj_bad joint_bad_name 'name = "el bow"' '' \
  "spec\.lua:2: body 'a' joint name must be a name of letters, digits and single _"

hcase element_names.world_pose_setting
cat >"$T/spec.lua" <<'EOF'
local W = world "w" {
  pose = "euler",
  body { "a", mass = 1, inertia = { 1, 1, 1 }, joint = { "revolute" } },
}
return diagram "d" { system { "w", W } }
EOF
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error "spec\.lua:1: pose must be \"quaternion\" .* or \"rpy\" .*, got \"?euler\"?"
expect_absent "$T/out.c" "$T/out.h"
hdone

hcase element_names.state_unknown
cat >"$T/spec.lua" <<'EOF'
local W = world "w" {
  body { "ball", mass = 1, inertia = { 1, 1, 1 }, joint = { "free" } },
}
return diagram "d" { system { "w", W }, log { "w.ball.pose", period = 0.1 } }
EOF
hrun -- "$DIAGC" run "$T/spec.lua" --until 0.1 --state w.bal.x=1 --csv "$T/out.csv"
expect_exit 2
expect_error "--state w\.bal\.x: system 'w' has no state named 'bal\.x'; did you mean 'ball\.x'\?"
expect_absent "$T/out.csv"
hrun -- "$DIAGC" run "$T/spec.lua" --until 0.1 --state w.ball=1,2 --csv "$T/out.csv"
expect_exit 2
expect_error "--state w\.ball: it has 7 values, got 2"
expect_absent "$T/out.csv"
hdone

hcase element_names.log_unknown_state
cat >"$T/spec.lua" <<'EOF'
local A = leaf "A" {
  discrete_state { "x", size = 2, names = { "a", "b" } },
}
return diagram "d" { system { "s", A }, log { "s.c", period = 0.1 } }
EOF
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error "spec\.lua:4: log 's\.c': subsystem 's' \(leaf \"A\"\) has no output port 'c'"
expect_absent "$T/out.c" "$T/out.h"
hdone

hcase element_names.world_body_name_too_long
long=$(printf 'b%.0s' $(seq 250))
cat >"$T/spec.lua" <<EOF
local W = world "w" {
  body { "$long", mass = 1, inertia = { 1, 1, 1 }, joint = { "revolute" } },
}
return diagram "d" { system { "w", W } }
EOF
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error "spec\.lua:2: body name 'b+\.\.\.' is 250 characters long; a world's body and joint names are at most 246 characters"
expect_absent "$T/out.c" "$T/out.h"
hdone

# a misspelled world port: one line with the closest name
hcase element_names.world_port_typo
cat >"$T/spec.lua" <<'EOF'
local W = world "w" {
  body { "ball", mass = 1, inertia = { 1, 1, 1 }, joint = { "free" } },
}
return diagram "d" { system { "w", W }, log { "w.bal.pose", period = 0.1 } }
EOF
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error "spec\.lua:4: log 'w\.bal\.pose': subsystem 'w' \(leaf \"w\"\) has no output port 'bal\.pose'; did you mean 'ball\.pose'\?"
expect_absent "$T/out.c" "$T/out.h"
hdone
