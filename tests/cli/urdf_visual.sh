#!/usr/bin/env bash
# tests/cli/urdf_visual.sh: a URDF's <visual>s are the viewer's alone
# (docs/world.md §5, docs/viewer.md "Worlds in 3D"): the generated C of a
# robot is byte for byte the C of the same URDF with every <visual> cut out
# (the Panda and the UR5, whose visual meshes are here; a small URDF whose
# visual mesh is missing and whose other <visual> is malformed: neither
# is an error when generating), and `diagc view` of that small robot
# writes its page with one note line on stderr (status 0), while a missing
# collision mesh stays an error.
set -u
cd "$(dirname "$0")/../.." || exit 2
DIAGC=${DIAGC:-bin/diagc}
T=$(mktemp -d "${TMPDIR:-/tmp}/diagc-urdf-visual.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
ok() { echo "ok urdf_visual.$1"; }
bad() { echo "FAIL urdf_visual.$1: $2"; fail=1; }
# the URDF $1 without its <visual> elements (one or many lines each), to $2
strip() { perl -0pe 's{<visual\b.*?</visual>}{}gs; s{<visual\b[^>]*/>}{}gs' "$1" >"$2"; }

# generates $1/$2 (a spec under folder $1) to $1/out/model.c, from inside $1
# (the same relative names on both sides: the header and #line name them)
gen() { mkdir -p "$1/out" && (cd "$1" && "$D" "$2" -o out/model.c) 2>>"$T/err"; }
D=$(cd "$(dirname "$DIAGC")" && pwd)/$(basename "$DIAGC")
same() { cmp -s "$1/out/model.c" "$2/out/model.c" && cmp -s "$1/out/model.h" "$2/out/model.h"; }

for r in panda:panda.urdf ur5:ur5_robot.urdf; do
  name=${r%%:*} urdf=${r#*:}
  mkdir -p "$T/with" "$T/without"
  cp -r examples/robots/$name "$T/with/"
  cp -r examples/robots/$name "$T/without/"
  strip "examples/robots/$name/$urdf" "$T/without/$name/$urdf"
  grep -q "<visual" "$T/without/$name/$urdf" && { bad "$name.strip" "<visual> left in the copy"; continue; }
  : >"$T/err"
  if ! gen "$T/with" "$name/$name.lua" || ! gen "$T/without" "$name/$name.lua"; then
    bad "$name.generate" "$(head -2 "$T/err" | tr '\n' ' ')"; continue
  fi
  if same "$T/with" "$T/without"; then ok "$name.c_unchanged"
  else bad "$name.c_unchanged" "the generated C differs with and without the URDF's <visual>s"; fi
  rm -rf "$T/with" "$T/without"
done

# a small robot: a missing visual mesh, a malformed <visual>; no error when generating
mkdir -p "$T/small" "$T/bare"
cat >"$T/small/arm.urdf" <<'URDF'
<?xml version="1.0"?>
<robot name="arm">
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="meshes/missing.dae"/></geometry></visual>
    <visual><origin xyz="0 0 nan"/><geometry><box size="1 1 1"/></geometry></visual>
    <visual><geometry><teapot/></geometry></visual>
    <collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision>
  </link>
</robot>
URDF
cat >"$T/small/arm.lua" <<'SPEC'
local W = world "W" { urdf { "arm.urdf", base = "free", xyz = { 0, 0, 1 } } }
return diagram "small" { system { "w", W }, log { "w.position", period = 0.01 } }
SPEC
strip "$T/small/arm.urdf" "$T/bare/arm.urdf"
cp "$T/small/arm.lua" "$T/bare/arm.lua"
: >"$T/err"
if gen "$T/small" arm.lua && gen "$T/bare" arm.lua; then
  [ -s "$T/err" ] && bad small.quiet "generation printed: $(cat "$T/err")"
  if same "$T/small" "$T/bare"; then ok small.c_unchanged; else bad small.c_unchanged "the C differs"; fi
else
  bad small.generate "$(head -2 "$T/err" | tr '\n' ' ')"
fi

# diagc view: the page, and one note line naming the first problem and counting the rest
if [ -f build/viewer/viewer.js ]; then
  if $DIAGC view "$T/small/arm.lua" --until 0.05 -o "$T/small.html" 2>"$T/err"; then
    if [ "$(wc -l <"$T/err")" = 1 ] && grep -q "^diagc view: note: .*arm.urdf:6: link 'base': <visual> left out: <origin xyz> holds 'nan', not a number (and 2 more such notes in the page's 3D panel)$" "$T/err"; then
      ok view.note
    else
      bad view.note "stderr: $(cat "$T/err")"
    fi
    grep -q "missing.dae" "$T/small.html" && grep -q "teapot" "$T/small.html" && ok view.page_notes \
      || bad view.page_notes "the page lacks the notes"
  else
    bad view.run "diagc view failed: $(cat "$T/err")"
  fi
else
  echo "skip urdf_visual.view: the viewer's bundle is not built (scripts/install-deps.sh, then make)"
fi

# a missing collision mesh stays an error
sed 's|<collision><geometry><box size="0.2 0.2 0.2"/>|<collision><geometry><mesh filename="meshes/gone.stl"/>|' \
  "$T/small/arm.urdf" >"$T/small/col.urdf"
sed 's/arm.urdf/col.urdf/' "$T/small/arm.lua" >"$T/small/col.lua"
$DIAGC "$T/small/col.lua" -o "$T/c.c" 2>"$T/err"
st=$?
if [ $st = 2 ] && grep -q "col.urdf:8: link 'base': cannot read mesh file '.*gone.stl'" "$T/err" && [ ! -e "$T/c.c" ]; then
  ok collision_mesh_missing_is_an_error
else
  bad collision_mesh_missing_is_an_error "status $st: $(cat "$T/err")"
fi
exit $fail
