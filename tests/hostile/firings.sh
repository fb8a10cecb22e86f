# tests/hostile/firings.sh: the firings file beside a CSV (FILE.events.csv,
# docs/viewer.md "Event marks"; cli/firings.lua) that does not belong to
# the model or to the run: diagc view --csv refuses it with one line
# naming the file and line, exit 2, no page written, bounded time; and
# diagc run --csv whose firings file cannot be written writes nothing.

H_BALL='local Ball = leaf "Ball" {
  continuous_state { q = { "y" }, v = { "vy" }, q0 = { 1.0 }, v0 = { 0.0 } },
  derivatives { prerequisites = { "v" }, calc = [[ qdot[0] = v[0]; vdot[0] = -9.81; ]] },
  witness { "impact", direction = "positive_to_nonpositive", prerequisites = { "q", "v" },
    calc = [[ value = q[0]; ]], unrestricted_update = [[ v_next[0] = -0.8 * v[0]; ]], writes = { "v" } },
  periodic_publish { "tick", period = 0.5, calc = [[ return DIAGC_DID_NOTHING; ]] },
  output_port { "y", size = 1, prerequisites = { "q" }, calc = [[ y[0] = q[0]; ]] },
}
return diagram "ball" { system { "b", Ball }, log { "b.y", period = 0.5 } }'
# the CSV of a run of 1 s (its rows are the model's; the values need not be)
H_CSV='t,b.y\n0,1\n0.5,0.16\n1,0.47\n'
H_HEAD='# diagc firings t0=0 t_end=1\nt,event\n'

# fview NAME FIRINGS-TEXT: diagc view --csv on run.csv beside run.events.csv
fview() {
  hcase "firings.$1"
  printf '%s\n' "$H_BALL" >"$T/ball.lua"
  printf '%b' "$H_CSV" >"$T/run.csv"
  printf '%b' "$2" >"$T/run.events.csv"
  hrun -- "$DIAGC" view "$T/ball.lua" --csv "$T/run.csv" -o "$T/page.html"
}
frefused() {
  expect_exit 2
  expect_error "$1"
  expect_absent "$T/page.html"
  expect_within 20
  hdone
}

fview unknown_event "${H_HEAD}0.45,b.bounce\n"
frefused "run.events.csv:3: 'b.bounce' is not an event of the model \(its events with firings: b.impact\)"

fview periodic_event "${H_HEAD}0.5,b.tick\n"
frefused "run.events.csv:3: 'b.tick' is a periodic event, whose firings are not written"

fview time_after_the_run "${H_HEAD}0.45,b.impact\n1.5,b.impact\n"
frefused "run.events.csv:4: t = 1.5 is outside the run \(t0=0 to t_end=1\)"

fview time_before_the_run "${H_HEAD}-0.1,b.impact\n"
frefused "run.events.csv:3: t = -0.1 is outside the run"

fview time_not_a_number "${H_HEAD}nan,b.impact\n"
frefused "run.events.csv:3: 'nan,b.impact' is not a row 't,event' with a number t"

fview malformed_row "${H_HEAD}0.45;b.impact\n"
frefused "run.events.csv:3: '0.45;b.impact' is not a row 't,event'"

fview extra_field "${H_HEAD}0.45,b.impact,1\n"
frefused "run.events.csv:3: '0.45,b.impact,1' is not a row 't,event'"

fview out_of_order "${H_HEAD}0.6,b.impact\n0.45,b.impact\n"
frefused "run.events.csv:4: t = 0.45 is before the previous firing's time"

fview not_a_firings_file 't,b.y\n0,1\n'
frefused "run.events.csv:1: not a firings file of diagc run"

fview empty_file ''
frefused "run.events.csv:1: (not a firings file|the firings file ends before its header)"

fview bad_header '# diagc firings t0=0 t_end=1\ntime,name\n'
frefused "run.events.csv:2: the header 'time,name' is not 't,event'"

fview span_backwards '# diagc firings t0=1 t_end=0\nt,event\n'
frefused "run.events.csv:1: not a firings file of diagc run"

fview another_run '# diagc firings t0=0 t_end=0.5\nt,event\n0.45,b.impact\n'
frefused "run.events.csv:1: the run from t0=0 to t_end=0.5 does not hold the CSV's times \(0 to 1\): the two files are of different runs"

fview omitted_without_the_rows "${H_HEAD}0.45,b.impact\n# omitted b.impact 5\n"
frefused "run.events.csv:4: b.impact: some firings omitted, but the file holds 1 rows of it, not 100000"

fview omitted_malformed "${H_HEAD}# omitted b.impact many\n"
frefused "run.events.csv:3: '# omitted b.impact many' is not a line '# omitted EVENT N'"

fview omitted_unknown "${H_HEAD}# omitted b.other 3\n"
frefused "run.events.csv:3: 'b.other' is not an event of the model"

# more rows of one event than diagc run writes: refused at the first extra
# row, so the page's size stays bounded
hcase firings.too_many_rows
printf '%s\n' "$H_BALL" >"$T/ball.lua"
printf '%b' "$H_CSV" >"$T/run.csv"
{ printf '%b' "$H_HEAD"; awk 'BEGIN { for (i = 0; i <= 100000; i++) printf "%.9f,b.impact\n", i / 100001 }'; } >"$T/run.events.csv"
hrun -- "$DIAGC" view "$T/ball.lua" --csv "$T/run.csv" -o "$T/page.html"
frefused "run.events.csv:100003: more than 100000 rows of b.impact"

# a firing after the omitted lines
hcase firings.row_after_omitted
printf '%s\n' "$H_BALL" >"$T/ball.lua"
printf '%b' "$H_CSV" >"$T/run.csv"
{ printf '%b' "$H_HEAD"; awk 'BEGIN { for (i = 0; i < 100000; i++) printf "%.9f,b.impact\n", i / 200000 }'
  printf '# omitted b.impact 2\n0.9,b.impact\n'; } >"$T/run.events.csv"
hrun -- "$DIAGC" view "$T/ball.lua" --csv "$T/run.csv" -o "$T/page.html"
frefused "run.events.csv:100004: a firing after the '# omitted' lines"

# diagc run --csv: the firings file's name is a directory: nothing written
hcase firings.run_side_file_is_a_directory
printf '%s\n' "$H_BALL" >"$T/ball.lua"
mkdir "$T/run.events.csv"
hrun -- "$DIAGC" run "$T/ball.lua" --until 1 --csv "$T/run.csv"
expect_exit 2
expect_error "cannot write '.*run.events.csv': it is a directory"
expect_absent "$T/run.csv"
check "a temporary file was left" [ -z "$(ls -A "$T" | grep -vE '^(run.events.csv|ball.lua|.stdout|.stderr)$')" ]
expect_within 20
hdone

# diagc run --csv and --html naming the CSV's firings file
hcase firings.run_html_is_the_side_file
printf '%s\n' "$H_BALL" >"$T/ball.lua"
hrun -- "$DIAGC" run "$T/ball.lua" --until 1 --csv "$T/run.csv" --html "$T/run.events.csv"
expect_exit 2
expect_error "diagc run: --html names '.*run.events.csv', where the CSV's event firings go"
expect_absent "$T/run.csv" "$T/run.events.csv"
expect_within 20
hdone

# diagc view -o naming the firings file beside its --csv: refused, unchanged
hcase firings.page_is_the_side_file
printf '%s\n' "$H_BALL" >"$T/ball.lua"
printf '%b' "$H_CSV" >"$T/run.csv"
printf '%b' "${H_HEAD}0.45,b.impact\n" >"$T/run.events.csv"
snapshot "$T/run.events.csv"
hrun -- "$DIAGC" view "$T/ball.lua" --csv "$T/run.csv" -o "$T/run.events.csv"
expect_exit 2
expect_error "cannot write '.*run.events.csv': it is the input file"
expect_unchanged "$T/run.events.csv"
hdone
