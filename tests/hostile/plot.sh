# tests/hostile/plot.sh: diagc run --plot-signals (docs/simulator.md) with
# names that are not logged, empty, repeated or hostile, without --plot,
# or more subplots than one image holds; and a port's unit (output_port
# { ..., unit = "rad/s" }, docs/spec-language.md) that is not a short
# line of text.  One line, exit 2, no image and no CSV written, before the
# run, in bounded time.

H_TWO='local Decay = leaf "Decay" {
  continuous_state { z = { "x" }, z0 = { 1.0 } },
  derivatives { prerequisites = { "z" }, calc = [[ zdot[0] = -z[0]; ]] },
  output_port { "y", size = 1, unit = "m", prerequisites = { "z" }, calc = [[ y[0] = z[0]; ]] },
  output_port { "w", size = 2, names = { "a", "b" }, prerequisites = { "z" }, calc = [[ w[0] = z[0]; w[1] = -z[0]; ]] },
}
return diagram "decay" { system { "d", Decay }, log { "d.y" }, log { "d.w" } }'

# hplot NAME ARGS...: diagc run --plot with ARGS on the two-logger spec
hplot() {
  hcase "plot.$1"
  shift
  printf '%s\n' "$H_TWO" >"$T/decay.lua"
  hrun -- "$DIAGC" run "$T/decay.lua" --until 1 --plot "$T/p.png" --csv "$T/run.csv" "$@"
}
refused() {
  expect_exit 2
  expect_error "$1"
  expect_absent "$T/p.png" "$T/run.csv"
  expect_within 20
  hdone
}

hplot signals_unknown --plot-signals d.z
refused "^diagc: diagc run: --plot-signals: no logged port or column named 'd.z'; did you mean 'd.y'\? \(logged: d.w, d.w.a, d.w.b, d.y\)$"

hplot signals_empty_item --plot-signals d.y,,d.w
refused "diagc run: --plot-signals: name 2 is empty; give logged ports or columns separated by commas"

hplot signals_trailing_comma --plot-signals d.y,
refused "diagc run: --plot-signals: name 2 is empty"

hplot signals_empty --plot-signals ""
refused "diagc run: --plot-signals: name 1 is empty"

hplot signals_twice --plot-signals d.y,d.y
refused "diagc run: --plot-signals: 'd.y' is named twice"

hplot signals_column_and_port --plot-signals d.w.a,d.w
refused "diagc run: --plot-signals: column 'd.w.a' is chosen twice, by its own name and by its port's name 'd.w'"

hplot signals_control_characters --plot-signals "$(printf 'd.y\033[2J\n,x')"
refused "diagc run: --plot-signals: no logged port or column named"

hplot signals_time --plot-signals t
refused "diagc run: --plot-signals: no logged port or column named 't'"

hplot signals_huge --plot-signals "$(head -c 100000 /dev/zero | tr '\0' 'y')"
refused "diagc run: --plot-signals: no logged port or column named 'yyyy"

hplot signals_given_twice --plot-signals d.y --plot-signals d.w
refused "diagc run: option --plot-signals is given twice; give it once"

hcase plot.signals_without_plot
printf '%s\n' "$H_TWO" >"$T/decay.lua"
hrun -- "$DIAGC" run "$T/decay.lua" --until 1 --csv "$T/run.csv" --plot-signals d.y
refused "diagc run: --plot-signals chooses what --plot draws; give --plot FILE.png too"

hcase plot.too_many_subplots
{
  echo 'local C = leaf "C" { output_port { "y", size = 1, calc = [[ y[0] = 1; ]] } }'
  echo 'return diagram "many" {'
  for i in $(seq 1 25); do echo "  system { \"c$i\", C }, log { \"c$i.y\", period = 0.5 },"; done
  echo '}'
} >"$T/many.lua"
hrun -- "$DIAGC" run "$T/many.lua" --until 1 --plot "$T/p.png" --csv "$T/run.csv"
refused "diagc run: --plot: 25 logged ports make 25 subplots; one image holds at most 24: choose them with --plot-signals"

# a port's unit
hunit() { # NAME UNIT-LUA ERE
  hcase "plot.unit_$1"
  printf '%s\n' "${H_TWO/unit = \"m\"/unit = $2}" >"$T/decay.lua"
  hrun -- "$DIAGC" run "$T/decay.lua" --until 1 --plot "$T/p.png" --csv "$T/run.csv"
  refused "$3"
}
hunit number 3 "decay\.lua:4: output_port 'y' unit must be a string such as \"rad/s\", got 3"
hunit table '{ "m" }' "decay\.lua:4: output_port 'y' unit must be a string such as \"rad/s\", got a table"
hunit empty '""' "decay\.lua:4: output_port 'y' unit '' is 0 bytes long; a unit is 1 to 32 bytes"
hunit long "string.rep(\"m\", 33)" "decay\.lua:4: output_port 'y' unit 'm{32}' is 33 bytes long; a unit is 1 to 32 bytes"
hunit newline '"m\n"' "decay\.lua:4: output_port 'y' unit holds a control character or a byte that is not UTF-8"
hunit escape '"\27[2J"' "decay\.lua:4: output_port 'y' unit holds a control character"
hunit not_utf8 '"\255m"' "decay\.lua:4: output_port 'y' unit holds a control character or a byte that is not UTF-8"
hunit overlong_utf8 '"\192\175"' "decay\.lua:4: output_port 'y' unit holds a control character or a byte that is not UTF-8"
hunit spaces '" m "' "decay\.lua:4: output_port 'y' unit ' m ' starts or ends with a space; remove it"

hcase plot.unit_of_input
printf '%s\n' 'local A = leaf "A" { input_port { "u", size = 1, unit = false },
  output_port { "y", size = 1, prerequisites = { "u" }, calc = [[ y[0] = u[0]; ]] } }
return diagram "top" { system { "a", A }, fix_input { "a.u", value = { 1 } }, log { "a.y" } }' >"$T/decay.lua"
hrun -- "$DIAGC" run "$T/decay.lua" --until 1 --plot "$T/p.png" --csv "$T/run.csv"
refused "decay\.lua:1: input_port 'u' unit must be a string such as \"rad/s\", got false"
