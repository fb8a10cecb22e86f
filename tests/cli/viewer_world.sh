#!/usr/bin/env bash
# tests/cli/viewer_world.sh: worlds in 3D in the pages of `diagc view`
# (docs/viewer.md, "Worlds"), in headless Chromium (tests/cli/viewer_world.mjs):
#   - examples/world/stack.lua (five cubes, their q logged): the canvas is
#     drawn, and the cubes' drawn poses equal the CSV's q at scrub times;
#   - examples/control/cartpole_lqr.lua with its bodies' pose ports logged
#     as well: the page computes the poses from the logged q (its forward
#     kinematics), checked against the generated C's poses in the CSV;
#     the same with the world's `poses` port logged (taken as it is);
#     play and the camera that follows the pole;
#   - 50 cubes for 10 s at 100 Hz (tests/cli/viewer_world/stack50.lua, its
#     CSV written here: every cube moving and turning, without the minutes
#     of a 50-cube contact simulation): 1001 frames, poses at scrub
#     times, the frame rate of the replay, the page size;
#   - the stack with its contacts logged (world.contacts): none drawn until
#     asked, then each step's points and normals as the CSV has them;
#   - a world whose poses are not logged: the page says what to log;
#   - examples/robots/panda with its world's poses logged: its visual meshes
#     (COLLADA) drawn by default, their count and triangles (counted here
#     from the files' own <triangles count>), posed from the CSV's poses
#     and each visual's origin as the URDF writes it; the toggle to the
#     collision shapes; examples/robots/iiwa, its glTF visual meshes the
#     same way (their triangles counted here from the files' JSON);
#     examples/robots/a1, whose visual meshes are not in the repository:
#     the status bar says its links show collision shapes.
# Expected poses come from the CSV (`diagc run`'s C), never from the page.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
DIAGC=${DIAGC:-bin/diagc}
T=$(mktemp -d "${TMPDIR:-/tmp}/diagc-viewer-world.XXXXXX")
trap 'rm -rf "$T"' EXIT
ART=build/test-artifacts/viewer
mkdir -p "$ART"
fail=0
bad() { echo "FAIL viewer_world.$1: $2"; fail=1; }

if [ ! -f build/viewer/viewer.js ]; then
  echo "skip viewer_world.pages: the viewer's bundle is not built (its npm packages are missing: scripts/install-deps.sh)"
  exit 0
fi
if ! command -v "${CHROMIUM:-chromium}" >/dev/null 2>&1; then
  echo "skip viewer_world.browser: chromium not installed (scripts/install-deps.sh installs it)"
  exit 0
fi
if ! command -v node >/dev/null 2>&1 || [ ! -d viewer/node_modules/playwright-core ]; then
  echo "skip viewer_world.browser: node or viewer/node_modules missing (scripts/install-deps.sh installs them)"
  exit 0
fi
export CHROMIUM=$(command -v "${CHROMIUM:-chromium}")
browse() { timeout 180 node tests/cli/viewer_world.mjs "$@" || fail=1; }
# CSV rows with a value in column $2
points() { awk -F, -v c="$2" 'NR > 1 && $c != "" { n++ } END { print n + 0 }' "$1"; }

# --- the stack of five cubes, 1 s: free joints on the world, q is the pose ---
st=examples/world/stack.lua
"$DIAGC" run $st --until 1 --csv "$T/stack.csv" || bad stack.run "diagc run failed"
"$DIAGC" view $st --csv "$T/stack.csv" -o "$T/stack.html" || bad stack.view "diagc view failed"
cubes='"box1": "world.position.box1", "box2": "world.position.box2", "box3": "world.position.box3",
  "box4": "world.position.box4", "box5": "world.position.box5"'
cat >"$T/stack.json" <<JSON
{ "name": "stack", "budget": 2000000, "source": "position", "frames": $(points "$T/stack.csv" 2), "tol": 1e-12,
  "scrub": [ { "t": 0.5, "bodies": { $cubes } }, { "t": 0.737, "slider": true, "bodies": { $cubes } } ] }
JSON
browse "$T/stack.html" "$T/stack.csv" "$T/stack.json" "$ART/world_stack.png"

# --- the stack with its contacts logged (world.contacts, opt-in): drawn on request ---
sed 's|  log { "world.position", period = 1e-2 },|&\n  log { "world.contacts", period = 1e-2 },|' $st >"$T/stack_contacts.lua"
grep -q world.contacts "$T/stack_contacts.lua" || bad stack_contacts.spec "the log line of examples/world/stack.lua changed"
"$DIAGC" run "$T/stack_contacts.lua" --until 0.3 --csv "$T/stc.csv" || bad stack_contacts.run "diagc run failed"
"$DIAGC" view "$T/stack_contacts.lua" --csv "$T/stc.csv" -o "$T/stc.html" || bad stack_contacts.view "diagc view failed"
cat >"$T/stc.json" <<JSON
{ "name": "stack_contacts", "budget": 2000000, "source": "position", "frames": $(points "$T/stc.csv" 2), "tol": 1e-12,
  "scrub": [ { "t": 0.2, "bodies": { $cubes } } ],
  "contacts": { "port": "world.contacts", "t": [0, 0.155, 0.3] } }
JSON
browse "$T/stc.html" "$T/stc.csv" "$T/stc.json" "$ART/world_stack_contacts.png"

# --- the cart-pole under LQR, with the poses of its bodies logged too ---
cp_spec=$T/cartpole_lqr.lua
sed 's|  log { "plant.position", period = 0.01 },|&\n  log { "plant.cart.pose", period = 0.01 }, log { "plant.pole.pose", period = 0.01 },|' \
  examples/control/cartpole_lqr.lua >"$cp_spec"
grep -q plant.pole.pose "$cp_spec" || bad cartpole.spec "the log line of examples/control/cartpole_lqr.lua changed"
"$DIAGC" run "$cp_spec" --until 2 --csv "$T/cp.csv" || bad cartpole.run "diagc run failed"
"$DIAGC" view "$cp_spec" --csv "$T/cp.csv" -o "$T/cp.html" || bad cartpole.view "diagc view failed"
poles='"cart": "plant.cart.pose", "pole": "plant.pole.pose"'
cat >"$T/cp.json" <<JSON
{ "name": "cartpole", "budget": 2000000, "source": "position", "frames": $(points "$T/cp.csv" 2), "tol": 1e-12,
  "scrub": [ { "t": 0, "bodies": { $poles } }, { "t": 0.05, "bodies": { $poles } }, { "t": 1.234, "slider": true, "bodies": { $poles } } ],
  "play": 1500, "follow": "pole" }
JSON
browse "$T/cp.html" "$T/cp.csv" "$T/cp.json" "$ART/world_cartpole.png"

# the same, the world's poses port logged (12 numbers a body) and taken as it is
sed 's|"plant.position", period = 0.01|"plant.poses", period = 0.01|' "$cp_spec" >"$T/cartpole_poses.lua"
"$DIAGC" run "$T/cartpole_poses.lua" --until 1 --csv "$T/cpp.csv" || bad cartpole_poses.run "diagc run failed"
"$DIAGC" view "$T/cartpole_poses.lua" --csv "$T/cpp.csv" -o "$T/cpp.html" || bad cartpole_poses.view "diagc view failed"
cat >"$T/cpp.json" <<JSON
{ "name": "cartpole_poses", "budget": 2000000, "source": "poses", "frames": $(points "$T/cpp.csv" 2), "tol": 1e-12,
  "scrub": [ { "t": 0.5, "bodies": { $poles } } ] }
JSON
browse "$T/cpp.html" "$T/cpp.csv" "$T/cpp.json" "$ART/world_cartpole_poses.png"

# --- a world whose poses are not logged: the page says how ---
sed 's|log { "plant.position", period = 0.01 },|log { "plant.energy", period = 0.01 },|' \
  examples/control/cartpole_lqr.lua >"$T/cartpole_energy.lua"
"$DIAGC" view "$T/cartpole_energy.lua" --until 0.5 -o "$T/cpe.html" || bad cartpole_energy.view "diagc view failed"
"$DIAGC" run "$T/cartpole_energy.lua" --until 0.5 --csv "$T/cpe.csv" >/dev/null || bad cartpole_energy.run "diagc run failed"
cat >"$T/cpe.json" <<JSON
{ "name": "cartpole_unlogged", "budget": 2000000, "source": "none", "frames": 1, "tol": 0,
  "note": "no poses logged: add log { \"plant.position\" }" }
JSON
browse "$T/cpe.html" "$T/cpe.csv" "$T/cpe.json" "$ART/world_cartpole_unlogged.png"

# --- 50 cubes, 10 s at 100 Hz: the header from the model, the motion here ---
s50=tests/cli/viewer_world/stack50.lua
"$DIAGC" run $s50 --until 0 --csv "$T/s50_0.csv" || bad stack50.run "diagc run failed"
# every cube moving and turning (the same CSV as bench/viewer/run's)
tests/cli/viewer_world/stack50_csv.sh "$T/s50_0.csv" >"$T/s50.csv"
"$DIAGC" view $s50 --csv "$T/s50.csv" -o "$T/s50.html" || bad stack50.view "diagc view failed"
some=$(awk -F, 'NR == 1 { for (i = 2; i <= NF; i += 35) { sub(/\.x$/, "", $i); split($i, p, "."); printf "%s\"%s\": \"%s\"", (n++ ? ", " : ""), p[3], $i } }' "$T/s50.csv")
cat >"$T/s50.json" <<JSON
{ "name": "stack50", "budget": 2000000, "source": "position", "frames": 1001, "tol": 1e-12,
  "scrub": [ { "t": 3.333, "bodies": { $some } }, { "t": 9.99, "slider": true, "bodies": { $some } } ],
  "play": 3000, "follow": "box9_4" }
JSON
browse "$T/s50.html" "$T/s50.csv" "$T/s50.json" "$ART/world_stack50.png"
# --- a robot's visual meshes: the Panda, its world's poses logged ---
P=$PWD/examples/robots/panda
sed -e 's|log { "arm.position", period = 1e-2 },|log { "arm.poses", period = 1e-2 },|' \
  -e "s|\"panda.urdf\", srdf = \"panda.srdf\"|\"$P/panda.urdf\", srdf = \"$P/panda.srdf\"|" \
  -e "s|package_path = \".\"|package_path = \"$P\"|" examples/robots/panda/panda.lua >"$T/panda.lua"
grep -q arm.poses "$T/panda.lua" || bad panda.spec "the log line of examples/robots/panda/panda.lua changed"
"$DIAGC" run "$T/panda.lua" --until 0.3 --csv "$T/panda.csv" || bad panda.run "diagc run failed"
"$DIAGC" view "$T/panda.lua" --csv "$T/panda.csv" -o "$T/panda.html" 2>"$T/panda.err" || bad panda.view "diagc view failed"
[ -s "$T/panda.err" ] && bad panda.quiet "diagc view printed: $(cat "$T/panda.err")"
# the triangles of each visual mesh, as the file counts them (<triangles count=>)
vm=$P/example-robot-data/robots/panda_description/meshes/visual
tris() { grep -o '<triangles[^>]*count="[0-9]*"' "$vm/$1.dae" | sed 's/.*count="//; s/"//' | awk '{ s += $1 } END { print s }'; }
drawn=0 files=0
for m in link0 link1 link2 link3 link4 link5 link6 link7 hand finger finger; do drawn=$((drawn + $(tris $m))); done
for m in link0 link1 link2 link3 link4 link5 link6 link7 hand finger; do files=$((files + $(tris $m))); done
# 11 <visual>s, one a body (panda.urdf); the right finger's turned by pi about z
id='"xyz": [0, 0, 0], "rpy": [0, 0, 0], "scale": [1, 1, 1]'
cat >"$T/panda.json" <<JSON
{ "name": "panda_visual", "budget": 2000000, "source": "poses", "frames": $(points "$T/panda.csv" 2), "tol": 1e-12,
  "visuals": { "meshes": 11, "collisionBodies": 0, "triangles": $drawn, "pageTriangles": $files, "t": 0.2,
    "poses": "arm.poses", "origins": { "panda_link0": { "index": 0, $id }, "panda_link4": { "index": 4, $id },
      "panda_hand": { "index": 8, $id },
      "panda_rightfinger": { "index": 10, "xyz": [0, 0, 0], "rpy": [0, 0, 3.141592653589793], "scale": [1, 1, 1] } } } }
JSON
browse "$T/panda.html" "$T/panda.csv" "$T/panda.json" "$ART/world_panda.png"

# --- the iiwa: glTF visual meshes (external .bin buffers), its world's poses logged ---
I=$PWD/examples/robots/iiwa
sed -e 's|log { "arm.position", period = 1e-2 },|log { "arm.poses", period = 1e-2 },|' \
  -e "s|\"iiwa14_spheres_collision.urdf\"|\"$I/iiwa14_spheres_collision.urdf\"|" \
  -e "s|package_path = \".\"|package_path = \"$I\"|" examples/robots/iiwa/iiwa.lua >"$T/iiwa.lua"
grep -q arm.poses "$T/iiwa.lua" || bad iiwa.spec "the log line of examples/robots/iiwa/iiwa.lua changed"
"$DIAGC" run "$T/iiwa.lua" --until 0.3 --csv "$T/iiwa.csv" || bad iiwa.run "diagc run failed"
"$DIAGC" view "$T/iiwa.lua" --csv "$T/iiwa.csv" -o "$T/iiwa.html" 2>"$T/iiwa.err" || bad iiwa.view "diagc view failed"
[ -s "$T/iiwa.err" ] && bad iiwa.quiet "diagc view printed: $(cat "$T/iiwa.err")"
# the triangles of the URDF's visual meshes (each <visual>, and each file
# once), counted here from the glTF files' own JSON: the index accessors'
# counts of their TRIANGLES primitives, over 3
read -r iv idrawn ifiles < <(python3 - "$I/iiwa14_spheres_collision.urdf" "$I/drake_models" <<'PY'
import json, re, sys
urdf, pkg = sys.argv[1], sys.argv[2]
names = re.findall(r'filename="package://drake_models/([^"]+\.gltf)"', open(urdf).read())
def tris(n):
    g = json.load(open(pkg + "/" + n))
    return sum(g["accessors"][p["indices"]]["count"] // 3 for m in g["meshes"] for p in m["primitives"]
               if p.get("mode", 4) == 4)
print(len(names), sum(tris(n) for n in names), sum(tris(n) for n in set(names)))
PY
)
id='"xyz": [0, 0, 0], "rpy": [0, 0, 0], "scale": [1, 1, 1]'
cat >"$T/iiwa.json" <<JSON
{ "name": "iiwa_gltf", "budget": 2000000, "source": "poses", "frames": $(points "$T/iiwa.csv" 2), "tol": 1e-12,
  "visuals": { "meshes": $iv, "collisionBodies": 2, "triangles": $idrawn, "pageTriangles": $ifiles, "t": 0.2,
    "poses": "arm.poses", "origins": { "iiwa_link_0": { "index": 2, $id }, "iiwa_link_1": { "index": 3, $id },
      "iiwa_link_7": { "index": 9, $id } } } }
JSON
browse "$T/iiwa.html" "$T/iiwa.csv" "$T/iiwa.json" "$ART/world_iiwa.png"

# --- the A1, whose visual meshes are not here: noted, drawn with its collision shapes ---
"$DIAGC" run examples/robots/a1/a1.lua --until 0.05 --csv "$T/a1.csv" || bad a1.run "diagc run failed"
"$DIAGC" view examples/robots/a1/a1.lua --csv "$T/a1.csv" -o "$T/a1.html" 2>"$T/a1.err" || bad a1.view "diagc view failed"
[ "$(wc -l <"$T/a1.err")" = 1 ] && grep -q "^diagc view: note: link 'trunk': .*trunk.dae.*drawn with its collision shapes (and 12 more" "$T/a1.err" \
  || bad a1.note "expected one note line on stderr, got: $(cat "$T/a1.err")"
cat >"$T/a1.json" <<JSON
{ "name": "a1_no_visual_meshes", "budget": 2000000, "source": "position", "frames": $(points "$T/a1.csv" 2), "tol": 0,
  "visualNote": "visual geometry: 13 notes (all in this line's tooltip); the first: link 'trunk'" }
JSON
browse "$T/a1.html" "$T/a1.csv" "$T/a1.json" "$ART/world_a1.png"
exit $fail
