# tests/hostile/sweep.sh: `diagc sweep` with bad samples, bad files and bad
# metrics (docs/sweep.md): one line naming the option, or the file and line
# at fault, exit 2, no output folder (and no hidden one beside it),
# bounded time.

H_SPRING='local S = leaf "S" {
  continuous_state { q = { "x" }, v = { "v" }, q0 = { 1 }, v0 = { 0 } },
  parameter { "k", default = { 1 } },
  parameter { "gains", default = { 1, 2 } },
  derivatives { prerequisites = { "q", "v", "k" }, calc = [[ qdot[0] = v[0]; vdot[0] = -k[0] * q[0]; ]] },
  output_port { "x", size = 1, prerequisites = { "q" }, calc = [[ x[0] = q[0]; ]] },
}
return diagram "spring" { system { "s", S }, log { "s.x", period = 0.1 } }'

# hsweep NAME ARGS...: diagc sweep on the spring into $T/out
hsweep() {
  local name=$1
  shift
  hcase "sweep.$name"
  printf '%s\n' "$H_SPRING" >"$T/spring.lua"
  hrun -- "$DIAGC" sweep "$T/spring.lua" --until 1 --out "$T/out" "$@"
}
refused() {
  expect_exit 2
  expect_error "$1"
  expect_absent "$T/out"
  check "a hidden folder was left beside the output" [ -z "$(ls -A "$T" | grep '^\.out')" ]
  expect_within 20
}

hsweep range_step_zero -p s.k=1:0:2
refused "^diagc: diagc sweep: -p s\.k=1:0:2: the step must be > 0 \(got 0\)$"
hdone

hsweep range_empty -p s.k=2:1:1
refused "^diagc: diagc sweep: -p s\.k=2:1:1: the stop 1 is below the start 2; the range would be empty$"
hdone

hsweep range_not_a_number -p s.k=1:x:2
refused "^diagc: diagc sweep: -p s\.k=1:x:2: the step 'x' is not a finite decimal number$"
hdone

hsweep range_two_colons -p s.k=1:2
refused "^diagc: diagc sweep: -p s\.k=1:2: a range is START:STEP:STOP"
hdone

hsweep range_too_many -p s.k=0:1e-9:10
refused "^diagc: diagc sweep: -p s\.k=0:1e-9:10 has 10000000001 values, more than the limit of 1000000 runs"
hdone

hsweep grid_too_large -p s.k=1:1:1000 --state s.x=1:1:1001
refused "^diagc: diagc sweep: the grid has more than 1000000 runs"
hdone

hsweep unknown_parameter -p s.kk=1:1:2
refused "^diagc: diagc sweep: -p s\.kk: system 's' has no numeric parameter named 'kk' \(numeric parameters: gains, k\)$"
hdone

hsweep state_as_parameter -p s.x=1:1:2
refused "^diagc: diagc sweep: run 1: -p s\.x: 's\.x' is a state element, not a numeric parameter; use --state$"
hdone

hsweep vector_parameter -p s.gains=1:1:2
refused "^diagc: diagc sweep: -p s\.gains: a sweep varies single numbers, and 's\.gains' has 2"
hdone

hsweep nothing_to_sweep -p s.k=2
refused "^diagc: diagc sweep: nothing to sweep: give a range"
hdone

hsweep two_kinds -p s.k=1:1:2 --random 3 --uniform s.k=1:2
refused "^diagc: diagc sweep: give one kind of samples"
hdone

hsweep random_zero --random 0 --uniform s.k=1:2
refused "^diagc: diagc sweep: invalid --random '0': expected a whole number >= 1"
hdone

hsweep random_huge --random 1e12 --uniform s.k=1:2
refused "^diagc: diagc sweep: --random 1e12: more runs than the limit of a sweep, 1000000$"
hdone

hsweep random_unknown --random 3 --uniform s.kq=1:2
refused "^diagc: diagc sweep: --uniform s\.kq: no parameter, state or input named 's\.kq'; did you mean 's\.k'\?"
hdone

hsweep random_bad_bounds --random 3 --uniform s.k=2:1
refused "^diagc: diagc sweep: --uniform s\.k: the high end 1 must be above the low end 2$"
hdone

hsweep jobs_too_many -p s.k=1:1:2 --jobs 1000
refused "^diagc: diagc sweep: invalid --jobs '1000': expected a whole number in \[0, 256\]$"
hdone

hsweep unknown_parameter_typo -p s.gain=1:1:2
refused "^diagc: diagc sweep: -p s\.gain: system 's' has no numeric parameter named 'gain'; did you mean 'gains'\?"
hdone

hsweep range_below_resolution -p s.k=1e16:1:10000000000000010
refused "^diagc: diagc sweep: -p s\.k=1e16:1:10000000000000010: values 1 and 2 are the same double \(10000000000000000\): the step 1 is below the resolution"
hdone

hsweep range_overflow -p s.k=-1e308:1e308:1e308
refused "^diagc: diagc sweep: -p s\.k=-1e308:1e308:1e308: value 3, -1e308 \+ 2 \* 1e308, overflows a double$"
hdone

hsweep range_step_tiny -p s.k=0:1e-320:1
refused "^diagc: diagc sweep: -p s\.k=0:1e-320:1 has too many values, more than the limit of 1000000 runs"
hdone

hsweep swept_twice -p s.k=1:1:2 -p s.k=1:1:3
refused "^diagc: diagc sweep: -p s\.k: 's\.k' is sampled twice; give it once$"
hdone

hsweep same_value_two_names --state s.x=1:1:2 --state s.q=1:1:2
refused "^diagc: diagc sweep: --state s\.q: 's\.q' is the same value as 's\.x' \(--state s\.x\); sample it once$"
hdone

hsweep random_same_value_two_names --random 2 --uniform s.x=1:2 --normal s.q=1:1
refused "^diagc: diagc sweep: --normal s\.q: 's\.q' is the same value as 's\.x' \(--uniform s\.x\); sample it once$"
hdone

hsweep fixed_and_swept -p s.k=3 -p s.k=1:1:2
refused "^diagc: diagc sweep: -p s\.k: 's\.k' is also set to one value by -p s\.k; give it either as one value or as samples, not both$"
hdone

hsweep element_of_fixed -p s.gains=3,4 -p 's.gains[1]=1:1:2'
refused "^diagc: diagc sweep: -p s\.gains\[1\]: 's\.gains\[1\]' is also set to one value by -p s\.gains; give it"
hdone

hsweep element_past_end -p 's.gains[2]=1:1:2'
refused "^diagc: diagc sweep: -p s\.gains\[2\]: 's\.gains' has 2 elements \(s\.gains\[0\] to s\.gains\[1\]\); there is no element 2$"
hdone

hsweep element_wrong_kind --state 's.gains[0]=1:1:2'
refused "^diagc: diagc sweep: --state s\.gains: 's\.gains' is a numeric parameter, not a state; use -p$"
hdone

hcase sweep.csv_empty
printf '%s\n' "$H_SPRING" >"$T/spring.lua"
: >"$T/s.csv"
hrun -- "$DIAGC" sweep "$T/spring.lua" --samples "$T/s.csv" --out "$T/out"
refused "^diagc: $T/s\.csv:1: the file is empty; give a header of names, then one row per run$"
hdone

hcase sweep.csv_vector_column
printf '%s\n' "$H_SPRING" >"$T/spring.lua"
printf '# cases\ns.k,s.gains\n1,2\n' >"$T/s.csv"
hrun -- "$DIAGC" sweep "$T/spring.lua" --samples "$T/s.csv" --out "$T/out"
refused "^diagc: $T/s\.csv:2: header column 2: a sweep varies single numbers, and 's\.gains' has 2; sweep one element"
hdone

hcase sweep.csv_same_value_two_columns
printf '%s\n' "$H_SPRING" >"$T/spring.lua"
printf 's.x,s.q\n1,2\n' >"$T/s.csv"
hrun -- "$DIAGC" sweep "$T/spring.lua" --samples "$T/s.csv" --out "$T/out"
refused "^diagc: $T/s\.csv:1: header column 2: 's\.q' is the same value as 's\.x' \(header column 1\); sample it once$"
hdone

hcase sweep.csv_column_also_fixed
printf '%s\n' "$H_SPRING" >"$T/spring.lua"
printf 's.k\n1\n2\n' >"$T/s.csv"
hrun -- "$DIAGC" sweep "$T/spring.lua" --samples "$T/s.csv" -p s.k=3 --out "$T/out"
refused "^diagc: $T/s\.csv:1: header column 1: 's\.k' is also set to one value by -p s\.k; give it"
hdone

hcase sweep.csv_wrong_column
printf '%s\n' "$H_SPRING" >"$T/spring.lua"
printf 's.k,s.kx\n1,2\n' >"$T/s.csv"
hrun -- "$DIAGC" sweep "$T/spring.lua" --samples "$T/s.csv" --out "$T/out"
refused "^diagc: $T/s\.csv:1: header column 2: no parameter, state or input named 's\.kx'; did you mean 's\.k'\?"
hdone

hcase sweep.csv_short_row
printf '%s\n' "$H_SPRING" >"$T/spring.lua"
printf 's.k,s.x\n1,2\n3\n' >"$T/s.csv"
hrun -- "$DIAGC" sweep "$T/spring.lua" --samples "$T/s.csv" --out "$T/out"
refused "^diagc: $T/s\.csv:3: this row has 1 value, the header 2 columns$"
hdone

hcase sweep.csv_not_a_number
printf '%s\n' "$H_SPRING" >"$T/spring.lua"
printf 's.k\n1\nnan\n' >"$T/s.csv"
hrun -- "$DIAGC" sweep "$T/spring.lua" --samples "$T/s.csv" --out "$T/out"
refused "^diagc: $T/s\.csv:3: column 1 \('s\.k'\): 'nan' is not a finite decimal number$"
hdone

hcase sweep.csv_no_rows
printf '%s\n' "$H_SPRING" >"$T/spring.lua"
printf 's.k\n' >"$T/s.csv"
hrun -- "$DIAGC" sweep "$T/spring.lua" --samples "$T/s.csv" --out "$T/out"
refused "^diagc: $T/s\.csv:1: the file has a header but no rows"
hdone

hcase sweep.csv_fifo
printf '%s\n' "$H_SPRING" >"$T/spring.lua"
mkfifo "$T/s.csv"
hrun -- "$DIAGC" sweep "$T/spring.lua" --samples "$T/s.csv" --out "$T/out"
refused "^diagc: diagc sweep: --samples: cannot read '$T/s\.csv'"
hdone

# metrics: hsweep_metric NAME TEXT: the metrics file holds TEXT
hsweep_metric() {
  hcase "sweep.$1"
  printf '%s\n' "$H_SPRING" >"$T/spring.lua"
  printf '%s\n' "$2" >"$T/m.lua"
  hrun -- "$DIAGC" --timeout 3 sweep "$T/spring.lua" -p s.k=1:1:3 --until 1 --metrics "$T/m.lua" --out "$T/out"
}

hsweep_metric metric_syntax 'return { a = function(log) return log.t[1] + end }'
refused "^diagc: $T/m\.lua:1: syntax error: "
hdone

hsweep_metric metric_error 'return {
  peak = function(log)
    return log.nothing[1]
  end,
}'
refused "^diagc: $T/m\.lua:3: metric 'peak' failed on run 1: attempt to index field 'nothing' \(a nil value\)$"
hdone

hsweep_metric metric_not_a_number 'return {
  peak = function(log) return "high" end,
}'
refused "^diagc: $T/m\.lua:2: metric 'peak' returned a string on run 1; return a finite number \(or nil\)$"
hdone

hsweep_metric metric_sandbox 'return { peak = function(log) return io.open("/etc/passwd") end }'
refused "^diagc: $T/m\.lua:1: metric 'peak' failed on run 1: unknown name 'io'"
hdone

hsweep_metric metric_not_a_table 'return 3'
refused "^diagc: $T/m\.lua:1: the metrics file must return a table of functions"
hdone

hsweep_metric metric_endless 'return { peak = function(log) while true do end end }'
refused "^diagc: $T/m\.lua:1: metric 'peak' took more than 3 s \(run 1; a loop that never ends\?\)"
hdone

hcase sweep.out_not_empty
printf '%s\n' "$H_SPRING" >"$T/spring.lua"
mkdir "$T/out" && echo keep >"$T/out/notes.txt"
hrun -- "$DIAGC" sweep "$T/spring.lua" -p s.k=1:1:2 --out "$T/out"
expect_exit 2
expect_error "^diagc: diagc sweep: --out $T/out: the folder exists and is not empty"
check "the folder was changed" [ "$(ls -A "$T/out")" = notes.txt ]
hdone

hcase sweep.mpi_missing
printf '%s\n' "$H_SPRING" >"$T/spring.lua"
DIAGC_MPI_LIBRARY=$T/none.so hrun -- "$DIAGC" sweep "$T/spring.lua" -p s.k=1:1:2 --out "$T/out" --mpi
refused "^diagc: diagc sweep: --mpi: this diagc was built without MPI \(no $T/none\.so\); install Open MPI"
hdone
