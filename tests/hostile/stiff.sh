# tests/hostile/stiff.sh: a model far too stiff for explicit methods,
# z' = -1e12 z to t = 1, with every integrator `diagc run` knows (the list
# comes from its own "unknown integrator" message, so a new one is covered
# too).  Never unbounded, never silent (docs/simulator.md, "Stiffness" and
# "Limits of a run"):
#   - the error-controlled explicit methods stop at the step-count limit,
#     one line naming the method, the limit and the evidence, exit 2;
#   - the fixed-step explicit ones either overflow (one line, exit 2) or
#     finish their ten steps with one warning line, both with the evidence;
#   - the implicit ones (and cvode_bdf when it is installed) finish at
#     z ~ 0 without a word.
# All within seconds.

_st_spec() {
  cat >"$T/spec.lua" <<'LUA'
local Fast = leaf "Fast" {
  continuous_state { z = { "z" }, z0 = { 1.0 } },
  derivatives { prerequisites = { "z" }, calc = [[ zdot[0] = -1e12 * z[0]; ]] },
  output_port { "y", size = 1, prerequisites = { "z" }, calc = [[ y[0] = z[0]; ]] },
}
return diagram "fast" { system { "f", Fast }, log { "f.y", period = 0.5 } }
LUA
}

hcase stiff.integrator_list
_st_spec
hrun -- "$DIAGC" run "$T/spec.lua" --integrator none
expect_exit 2
_st_names=$(printf '%s' "$err" | sed -n 's/.*(integrators: \(.*\))$/\1/p' | tr -d ,)
check "the unknown-integrator message lists the integrators" test -n "$_st_names"
hdone

for _st_g in $_st_names; do
  hcase "stiff.fast_decay.$_st_g"
  _st_spec
  hrun --timeout 30 -- "$DIAGC" run "$T/spec.lua" --until 1 --integrator "$_st_g" --csv "$T/out.csv"
  expect_within 20
  case $_st_g in
    runge_kutta3 | bogacki_shampine3 | dormand_prince54)
      expect_exit 2
      expect_error "simulation failed: $_st_g: step-count limit: after [0-9]+ steps, at t = .* would take about [0-9.e+]+ more, beyond the limit of 1000000000 per advance_to \(options\.max_steps\); from t = .* the steps were held at the method's stability limit \(h \|lambda\| = [0-9.]+ with h = .*\|lambda\| ~ 1e\+12 /s\): the model looks stiff; try --integrator radau5"
      expect_absent "$T/out.csv"
      ;;
    runge_kutta4)
      expect_exit 2
      expect_error "simulation failed: non-finite continuous state f\.z .*; the model looks stiff for runge_kutta4 with fixed steps of 0\.1 s: .*\|lambda\| ~ 1e\+12 /s.*try --integrator radau5"
      expect_absent "$T/out.csv"
      ;;
    explicit_euler | runge_kutta2 | semi_explicit_euler)
      expect_exit 0
      check "one warning line" test "$(printf '%s\n' "$err" | wc -l)" = 1
      expect_stderr_match "^diagc run: warning: the model looks stiff for $_st_g with fixed steps of 0\.1 s: .*\|lambda\| ~ 1e\+12 /s.*try --integrator radau5"
      ;;
    cvode_bdf)
      if [ "$rc" = 0 ]; then
        check "cvode_bdf says nothing" test -z "$err"
        check "cvode_bdf reaches z ~ 0" awk -F, 'END { exit !($2 < 1e-6 && $2 > -1e-6) }' "$T/out.csv"
      else
        expect_exit 2
        expect_error "cvode_bdf needs libsundials-dev"
        expect_absent "$T/out.csv"
      fi
      ;;
    *)
      expect_exit 0
      check "$_st_g says nothing" test -z "$err"
      check "$_st_g reaches z ~ 0" awk -F, 'END { exit !($2 < 1e-6 && $2 > -1e-6) }' "$T/out.csv"
      ;;
  esac
  hdone
done

# --max-steps: the user's own step-count limit, while running and before
hcase stiff.max_steps_while_running
_st_spec
hrun -- "$DIAGC" run "$T/spec.lua" --until 1 --max-steps 1000 --csv "$T/out.csv"
expect_exit 2
expect_error "simulation failed: runge_kutta3: step-count limit: 1001 steps, the limit per advance_to .*the model looks stiff; try --integrator radau5"
expect_absent "$T/out.csv"
hdone

hcase stiff.max_steps_before_the_run
_st_spec
hrun -- "$DIAGC" run "$T/spec.lua" --until 1 --max-step 0.01 --max-steps 10 --csv "$T/out.csv"
expect_exit 2
expect_error "diagc run: the run from t = 0 to 1 would take at least 100 steps of 0.01 s, more than the limit of 10 steps per run; raise --max-step, raise --max-steps or shorten the run"
expect_absent "$T/out.csv"
hdone

for _st_v in 0 -5 1.5 nan 1e400 x; do
  hcase "stiff.max_steps_invalid.$_st_v"
  _st_spec
  hrun -- "$DIAGC" run "$T/spec.lua" --max-steps "$_st_v" --csv "$T/out.csv"
  expect_exit 2
  expect_error "diagc run: invalid --max-steps '$_st_v': expected a whole number >= 1"
  expect_absent "$T/out.csv"
  hdone
done

# diagc test's simulator: its max_steps bounds the check before advance_to too
hcase stiff.max_steps_in_diagc_test
_st_spec
cat >"$T/t_test.lua" <<'LUA'
local m = diagc.jit("spec.lua")
test("limit", function()
  local s = m:simulator { max_step = 0.01, max_steps = 10 }
  s:initialize()
  expect_error(function() s:advance_to(1) end,
    "would take at least 100 steps of 0.01 s, more than the limit of 10 steps per run; raise max_step (or fixed_step), raise max_steps")
end)
LUA
hrun -- "$DIAGC" test "$T/t_test.lua"
expect_exit 0
expect_stdout_match "^ok limit"
hdone
