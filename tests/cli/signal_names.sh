#!/usr/bin/env bash
# tests/cli/signal_names.sh: signals with names (issue #28, item 4;
# docs/spec-language.md, "Element names"): the CSV header of `diagc run`
# names the elements of named outputs and logged states ("sys.port.x"),
# `diagc info` lists them (text and JSON, with each logger's columns), a
# logged state's values are the state's, --state sets named elements and a
# world's joints, `diagc linearize` names its output rows.
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok signal_names.$1"; }
bad() { echo "FAIL signal_names.$1: $2"; }

cat >"$tmp/quad.lua" <<'EOF'
local Quad = leaf "Quad" {
  continuous_state { q = { "x", "z", "theta" }, v = 3, q0 = { 1, 2, 3 } },
  discrete_state { "mode", default = { 4, 5 }, names = { "a", "b" } },
  output_port { "state", size = 3, names = { "x", "z", "theta" }, prerequisites = { "q" },
    calc = [[ for (int i = 0; i < 3; i++) state[i] = q[i]; ]] },
  derivatives { calc = [[ for (int i = 0; i < 3; i++) { qdot[i] = v[i]; vdot[i] = 0; } ]] },
}
return diagram "d" {
  system { "quad", Quad },
  log { "quad.state", period = 1 },
  log { "quad.q", period = 1 },
  log { "quad.theta", period = 1 },
  log { "quad.mode", period = 1, name = "m" },
  log { "quad.v", period = 1 },
}
EOF

# 1. the header: a named port, the continuous part q (named), one element,
# a discrete group under the log's own name, an unnamed part by index; the
# rows carry the states' values, --state set by element name
if "$DIAGC" run "$tmp/quad.lua" --until 1 --state quad.b=7 --state quad.theta=0.5 >"$tmp/out.csv" 2>"$tmp/err"; then
  head -1 "$tmp/out.csv" >"$tmp/head"
  want='t,quad.state.x,quad.state.z,quad.state.theta,quad.q.x,quad.q.z,quad.q.theta,quad.theta,m.a,m.b,quad.v[0],quad.v[1],quad.v[2]'
  row=$(sed -n 2p "$tmp/out.csv")
  if [ "$(cat "$tmp/head")" = "$want" ] && [ "$row" = "0,1,2,0.5,1,2,0.5,0.5,4,7,0,0,0" ]; then
    ok csv_header
  else
    bad csv_header "$(cat "$tmp/head") / $row"
  fi
else
  bad csv_header "$(head -1 "$tmp/err")"
fi

# 2. info, text: elements after the port and the states
"$DIAGC" info "$tmp/quad.lua" >"$tmp/info" 2>"$tmp/err"
if grep -Eq '^  quad\.state +output size 3 +\(x, z, theta\)$' "$tmp/info" &&
   grep -Eq '^  quad\.mode +discrete +size 2  initial 4, 5  \(a, b\)$' "$tmp/info" &&
   grep -Eq '^  quad\.q +continuous q size 3  initial 1, 2, 3  \(x, z, theta\)$' "$tmp/info" &&
   ! grep -q 'log_' "$tmp/info"; then
  ok info_text
else
  bad info_text "$(tr '\n' '|' <"$tmp/info" | head -c 600) $(head -1 "$tmp/err")"
fi

# 3. info, JSON: the port's elements, the state's, the loggers' columns
"$DIAGC" info --json "$tmp/quad.lua" >"$tmp/info.json" 2>"$tmp/err"
if DIAGC_JSON="$tmp/info.json" python3 - <<'EOF'
import json, os, sys
d = json.load(open(os.environ["DIAGC_JSON"]))
ports = {p["path"]: p for p in d["ports"]}
states = {s["path"]: s for s in d["states"]}
logs = {l["name"]: l for l in d["loggers"]}
assert ports["quad.state"]["elements"] == ["x", "z", "theta"], ports
assert states["quad.mode"]["elements"] == ["a", "b"], states
assert logs["m"]["source"] == "quad.mode" and logs["m"]["columns"] == ["m.a", "m.b"], logs
assert logs["quad.theta"]["columns"] == ["quad.theta"], logs
assert logs["quad.v"]["columns"] == ["quad.v[0]", "quad.v[1]", "quad.v[2]"], logs
assert "quad.theta" not in ports and "quad.mode" not in ports  # logged states are not ports
EOF
then ok info_json; else bad info_json "$(head -1 "$tmp/err")"; fi

# 4. a world: per-body and per-joint outputs in the header, --state by
# element and by joint; the free body's pose is its state (as the
# flat world.position's named columns show)
cat >"$tmp/w.lua" <<'EOF'
local W = world "arena" {
  body { "ball", mass = 1, inertia = { 0.004, 0.004, 0.004 }, joint = { "free", q = { 0, 0, 1, 1, 0, 0, 0 } } },
  body { "arm", mass = 1, inertia = { 0.01, 0.01, 0.01 }, joint = { "revolute", name = "elbow", axis = { 0, 1, 0 } } },
}
return diagram "d" {
  system { "world", W },
  log { "world.ball.pose", period = 0.5 },
  log { "world.elbow.q", period = 0.5 },
  log { "world.position", period = 0.5 },
}
EOF
if "$DIAGC" run "$tmp/w.lua" --until 0 --state world.ball.x=2 --state world.elbow=0.25 >"$tmp/w.csv" 2>"$tmp/err"; then
  want='t,world.ball.pose.x,world.ball.pose.y,world.ball.pose.z,world.ball.pose.qw,world.ball.pose.qx,world.ball.pose.qy,world.ball.pose.qz,world.elbow.q,world.position.ball.x,world.position.ball.y,world.position.ball.z,world.position.ball.qw,world.position.ball.qx,world.position.ball.qy,world.position.ball.qz,world.position.elbow.q'
  row=$(sed -n 2p "$tmp/w.csv")
  if [ "$(head -1 "$tmp/w.csv")" = "$want" ] && [ "$row" = "0,2,0,1,1,0,0,0,0.25,2,0,1,1,0,0,0,0.25" ]; then
    ok world_header
  else
    bad world_header "$(head -1 "$tmp/w.csv") / $row"
  fi
else
  bad world_header "$(head -1 "$tmp/err")"
fi

# the world's ports and joints in info's JSON
"$DIAGC" info --json "$tmp/w.lua" >"$tmp/w.json" 2>"$tmp/err"
if DIAGC_JSON="$tmp/w.json" python3 - <<'EOF'
import json, os
d = json.load(open(os.environ["DIAGC_JSON"]))
ports = {p["path"]: p for p in d["ports"]}
assert ports["world.ball.pose"]["elements"] == ["x", "y", "z", "qw", "qx", "qy", "qz"], ports
# a port nothing refers to is not in the model, but the world lists it
assert "world.arm.velocity" not in ports, ports
sig = {p["path"]: p for p in d["worlds"][0]["signals"]}
assert sig["world.arm.velocity"]["elements"] == ["vx", "vy", "vz", "wx", "wy", "wz"], sig
assert sig["world.elbow.q"]["size"] == 1 and "elements" not in sig["world.elbow.q"], sig
assert list(sig) == ["world.ball.pose", "world.ball.velocity", "world.arm.pose", "world.arm.velocity",
                     "world.ball.q", "world.ball.v", "world.elbow.q", "world.elbow.v"], list(sig)
assert ports["world.position"]["elements"] == ["ball.x", "ball.y", "ball.z", "ball.qw", "ball.qx", "ball.qy",
                                               "ball.qz", "elbow.q"], ports
states = {s["path"]: s for s in d["states"]}
assert states["world.vel"]["elements"][-1] == "elbow.v", states
bodies = {b["name"]: b for b in d["worlds"][0]["bodies"]}
assert bodies["arm"]["joint_name"] == "elbow" and bodies["ball"]["joint_name"] == "ball", bodies
EOF
then ok world_info_json; else bad world_info_json "$(head -1 "$tmp/err")"; fi

# 5. linearize names an output's rows by its elements
cat >"$tmp/lin.lua" <<'EOF'
local P = leaf "P" {
  continuous_state { q = { "theta" }, v = { "omega" } },
  output_port { "y", size = 2, names = { "angle", "rate" }, prerequisites = { "q", "v" },
    calc = [[ y[0] = q[0]; y[1] = v[0]; ]] },
  derivatives { calc = [[ qdot[0] = v[0]; vdot[0] = -q[0]; ]] },
}
return diagram "lin" { system { "p", P }, export_output { "p.y", as = "y" } }
EOF
if "$DIAGC" linearize "$tmp/lin.lua" >"$tmp/lin" 2>"$tmp/err" && grep -Eq '^  y\.angle +1 +0$' "$tmp/lin" &&
   grep -Eq '^  y\.rate +0 +1$' "$tmp/lin"; then
  ok linearize_rows
else
  bad linearize_rows "$(tr '\n' '|' <"$tmp/lin") $(head -1 "$tmp/err")"
fi

# 6. deploy: a world's port by name is a topic under its name, a logged
# state stays the log's (not a port of the deployed subsystem)
cat >"$tmp/dep.lua" <<'EOF'
local W = world "arena" {
  body { "ball", mass = 1, inertia = { 0.004, 0.004, 0.004 }, joint = { "free", q = { 0, 0, 1, 1, 0, 0, 0 } } },
}
local Reader = leaf "Reader" {
  discrete_state { "h", size = 1, names = { "height" } },
  input_port { "pose", size = 7 },
  periodic_discrete_update { "read", period = 1e-2, prerequisites = { "pose" }, calc = [[ h_next[0] = pose[2]; ]] },
}
return diagram "d" {
  system { "world", W },
  system { "reader", Reader },
  connect { "world.ball.pose", "reader.pose" },
  log { "reader.h", period = 1e-2 },
}
EOF
if "$DIAGC" deploy "$tmp/dep.lua" -o "$tmp/app.c" 2>"$tmp/err" &&
   grep -q '{"pose", "world.ball.pose"}' "$tmp/app.c" && ! grep -q 'log_h' "$tmp/app.c"; then
  ok deploy_topics
else
  bad deploy_topics "$(head -1 "$tmp/err")"
fi

# 7. a long vector in `diagc info`'s text: the first 16 values or names and
# the count (docs/tutorial.md, "Inspecting a model"); --json lists them all
cat >"$tmp/long.lua" <<'EOF2'
local names = {}
for i = 1, 40 do names[i] = "e" .. i end
local L = leaf "Long" {
  discrete_state { "s", default = (function() local t = {} for i = 1, 40 do t[i] = i / 4 end return t end)(),
    names = names },
  output_port { "y", size = 33, prerequisites = { "s" }, calc = [[ for (int i = 0; i < 33; i++) y[i] = s[i]; ]] },
}
return diagram "d" { system { "l", L } }
EOF2
if "$DIAGC" info "$tmp/long.lua" >"$tmp/info.txt" 2>"$tmp/err" &&
   "$DIAGC" info "$tmp/long.lua" --json >"$tmp/info.json" 2>>"$tmp/err"; then
  line=$(grep '^  l.s ' "$tmp/info.txt")
  want_vals='initial 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 2.75, 3, 3.25, 3.5, 3.75, 4, ... (40 values; --json lists them all)'
  want_names='(e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15, e16, ... (40 elements; --json lists them all))'
  if [[ $line == *"$want_vals"* ]] && [[ $line == *"$want_names"* ]] &&
     grep -q '"e40"' "$tmp/info.json" && grep -q '10' "$tmp/info.json"; then
    ok info_long_vectors
  else
    bad info_long_vectors "got: $line"
  fi
else
  bad info_long_vectors "$(head -1 "$tmp/err")"
fi
