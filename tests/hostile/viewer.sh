# tests/hostile/viewer.sh: `diagc view` and `diagc run --html` with input
# they cannot draw (docs/viewer.md): a CSV that does not match the model,
# an empty run, a model that logs nothing, a page named like an input.
# One line naming the file and line, exit 2, no page written, bounded time.

H_DECAY='local Decay = leaf "Decay" {
  continuous_state { z = { "x" }, z0 = { 1.0 } },
  derivatives { prerequisites = { "z" }, calc = [[ zdot[0] = -z[0]; ]] },
  output_port { "y", size = 1, prerequisites = { "z" }, calc = [[ y[0] = z[0]; ]] },
}
return diagram "decay" { system { "d", Decay }, log { "d.y", period = 0.5 } }'

# hview NAME CSV-TEXT: diagc view --csv on a CSV holding CSV-TEXT
hview() {
  hcase "viewer.$1"
  printf '%s\n' "$H_DECAY" >"$T/decay.lua"
  printf '%b' "$2" >"$T/run.csv"
  hrun -- "$DIAGC" view "$T/decay.lua" --csv "$T/run.csv" -o "$T/page.html"
}
refused() {
  expect_exit 2
  expect_error "$1"
  expect_absent "$T/page.html"
  expect_within 20
  hdone
}

hview csv_other_model 't,plant.y\n0,1\n'
refused "run.csv:1: the header 't,plant.y' does not match the model's loggers \(expected 't,d.y'\)"

hview csv_empty_file ''
refused "run.csv:1: the header '' does not match"

hview csv_header_only 't,d.y\n'
refused "run.csv:2: the CSV has no samples; run the model for a while"

hview csv_short_row 't,d.y\n0,1\n0.5\n'
refused "run.csv:3: 1 fields, expected 2"

hview csv_not_a_number 't,d.y\n0,1\n0.5,abc\n'
refused "run.csv:3: column d.y: 'abc' is not a number"

hview csv_hex_number 't,d.y\n0,0x10\n'
refused "run.csv:2: column d.y: '0x10' is not a number"

hview csv_no_time 't,d.y\n,1\n'
refused "run.csv:2: the time t is empty"

hcase viewer.csv_missing
printf '%s\n' "$H_DECAY" >"$T/decay.lua"
hrun -- "$DIAGC" view "$T/decay.lua" --csv "$T/none.csv" -o "$T/page.html"
refused "cannot read '.*none.csv': No such file"

hcase viewer.page_is_the_csv
printf '%s\n' "$H_DECAY" >"$T/decay.lua"
printf 't,d.y\n0,1\n' >"$T/run.csv"
cp "$T/run.csv" "$T/run.csv.orig"
hrun -- "$DIAGC" view "$T/decay.lua" --csv "$T/run.csv" -o "$T/run.csv"
expect_exit 2
expect_error "cannot write '.*run.csv': it is the input file"
cmp -s "$T/run.csv" "$T/run.csv.orig" || _h_bad "the CSV was changed"
hdone

hcase viewer.page_is_the_spec
printf '%s\n' "$H_DECAY" >"$T/decay.lua"
hrun -- "$DIAGC" view "$T/decay.lua" --until 1 -o "$T/decay.lua"
expect_exit 2
expect_error "cannot write '.*decay.lua': it is the input file"
grep -q 'diagram "decay"' "$T/decay.lua" || _h_bad "the spec was changed"
hdone

hcase viewer.logs_nothing
printf '%s\n' "${H_DECAY/, log \{ \"d.y\", period = 0.5 \}/}" >"$T/decay.lua"
hrun -- "$DIAGC" view "$T/decay.lua" --until 1 -o "$T/page.html"
refused "diagc view: the diagram logs nothing, so there is nothing to plot; add log"

hcase viewer.run_html_is_the_csv
printf '%s\n' "$H_DECAY" >"$T/decay.lua"
hrun -- "$DIAGC" run "$T/decay.lua" --until 1 --csv "$T/page.html" --html "$T/page.html"
refused "diagc run: --csv and the page name the same file"

hcase viewer.run_html_failed_run
printf '%s\n' "$H_DECAY" >"$T/decay.lua"
hrun -- "$DIAGC" run "$T/decay.lua" --until 1e300 --step 1e-300 --html "$T/page.html"
expect_exit 2
expect_absent "$T/page.html"
expect_within 20
hdone

hcase viewer.view_option_of_run
printf '%s\n' "$H_DECAY" >"$T/decay.lua"
hrun -- "$DIAGC" view "$T/decay.lua" --html "$T/page.html"
refused "diagc view: --html is an option of diagc run; name the page with -o"

hcase viewer.view_csv_with_run_options
printf '%s\n' "$H_DECAY" >"$T/decay.lua"
printf 't,d.y\n0,1\n' >"$T/run.csv"
hrun -- "$DIAGC" view "$T/decay.lua" --csv "$T/run.csv" --until 2 -o "$T/page.html"
refused "diagc view: with --csv, give only the spec file"
