# bench/robots/section.awk: bench/robots/run's markdown section from its
# results (lines "ROBOT<TAB>KEY<TAB>VALUE" and "NOTE<TAB>ROBOT<TAB>TEXT";
# times in ns for steps, s for generation and compile).  Variables: doc
# (the output file), robots (the order), date, cpu, nproc, commit, quick,
# load0, load1, secs, cc, mjv, tmo, mem, steps, reps.
BEGIN { FS = "\t" }
$1 == "NOTE" { notes[++nn] = "- " $2 ": " $3; next }
{ v[$1, $2] = $3 }
function num(x) { return x != "" && x == x + 0 }
function us(x) { return num(x) ? sprintf("%.1f", x / 1000) : (x == "" ? "–" : x) }
function sec(x) { return num(x) ? sprintf("%.2f", x) : (x == "timeout" ? "> " tmo " (skipped)" : (x == "" ? "–" : x)) }
function ratio(a, b) { return (num(a) && num(b) && b > 0) ? sprintf("**%.2f**", a / b) : "–" }
function kb(x) { return num(x) ? sprintf("%.0f", x / 1000) : "–" }
END {
  out = doc
  nr = split(robots, R, " ")
  print "## Real robots (bench/robots)" > out
  print "" > out
  print "<!-- Written by bench/robots/run; edit the template there. -->" > out
  print "" > out
  printf "Measured %s on %s, `nproc` = %s; %s; MuJoCo %s (Debian libmujoco-dev); diagc at commit %s.%s Load average %s at the start, %s at the end; %s s.\n", date, cpu, nproc, cc, mjv, commit, (quick == 1 ? " **Quick smoke run: not for quoting.**" : ""), load0, load1, secs > out
  print "" > out
  print "The five examples of `examples/robots/` (docs/world.md §5, \"Real robots\") from their unmodified URDF files. Times are CPU time (user + system) on one core: generation is `bin/diagc SPEC -o OUT.c` (the in-process check included), compile is `gcc -std=c99 -O2 -c` of the generated C; size is the generated `.c` and `.h` together. Each spec is measured as it is and with `gradients = true` (one build when the spec has them on already, as all five do since the looped tangents, docs/world.md §6); the latter is skipped when its generation or compile runs longer than " tmo " s of wall-clock time (`BENCH_ROBOT_TIMEOUT`; the machine is shared, so that is less CPU time) or needs more than " mem " MB (`BENCH_ROBOT_MEM_MB`)." > out
  print "" > out
  print "| robot | dofs | generation s | C KB | C lines | gcc -O2 s | with gradients: generation s | C KB | C lines | gcc -O2 s |" > out
  print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|" > out
  for (i = 1; i <= nr; i++) {
    r = R[i]
    printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r, v[r, "dofs"], sec(v[r, "plain.gen"]), kb(v[r, "plain.bytes"]), v[r, "plain.lines"], sec(v[r, "plain.cc"]), sec(v[r, "grad.gen"]), kb(v[r, "grad.bytes"]), (v[r, "grad.lines"] == "" ? "–" : v[r, "grad.lines"]), sec(v[r, "grad.cc"]) > out
  }
  print "" > out
  print "Time per 1 ms step, CPU time, best of " reps " runs of " steps " steps (diagc and MuJoCo run in turn, one run each, " reps " times, so that the machine's load changes alike for both), against MuJoCo (Euler, Newton solver, pyramidal cones, `mj_step1`/`mj_step2` with the controller between) on the same URDF in the same run; diagc / MuJoCo < 1 means diagc is faster. Both run the example's controller (its gains, from `diagc info`): hold is the example at rest (the arms held by gravity compensation and a PD term, a1 and atlas standing under their PD controllers); push starts from an initial velocity (arms: 1 rad/s on every revolute joint, controller on; a1: the trunk 2.5 m/s sideways; atlas: the pelvis 0.5 m/s forward; both fall over, as in their tests). The check columns: hold, the largest joint excursion from the start at the end (rad or m; with the base height change for a1 and atlas); push, the base tilt at the end in degrees (a1, atlas) or the largest joint excursion at the end (arms: their controller has brought them back to the pose). MuJoCo's contacts are soft and its gravity compensation adds `qfrc_bias` (gravity and Coriolis) where diagc adds c(q, 0), so its check values differ; they show that both ran the same scene." > out
  print "" > out
  print "| robot | diagc hold µs | MuJoCo hold µs | diagc / MuJoCo | diagc push µs | MuJoCo push µs | diagc / MuJoCo | hold check diagc | MuJoCo | push check diagc | MuJoCo |" > out
  print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|" > out
  goal = "met"
  for (i = 1; i <= nr; i++) {
    r = R[i]
    dh = v[r, "plain.hold"]; mh = v[r, "mj.hold"]; dp = v[r, "plain.push"]; mp = v[r, "mj.push"]
    printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r, us(dh), us(mh), ratio(dh, mh), us(dp), us(mp), ratio(dp, mp), v[r, "plain.hold_check"], v[r, "mj.hold_check"], v[r, "plain.push_check"], v[r, "mj.push_check"] > out
    if (!(num(dh) && num(mh) && dh <= mh && num(dp) && num(mp) && dp <= mp)) { goal = "not met"; miss = miss " " r }
  }
  print "" > out
  printf "Goal (issue #27): each robot steps at <= 1.0x MuJoCo's time (hold and push): **%s**%s.\n", goal, (miss != "" ? " (over, or not measured, on" miss ")" : "") > out
  print "" > out
  # the humanoid with gradients
  hg = v["atlas", "grad.gen"]; hc = v["atlas", "grad.cc"]
  # a timeout means longer than tmo seconds
  hgoal = (num(hg) && num(hc)) ? ((hg <= 5 && hc <= 20) ? "met" : "not met") : "not measured"
  if ((num(hg) && hg > 5) || (hg == "timeout" && tmo >= 5) || (num(hc) && hc > 20) || (hc == "timeout" && tmo >= 20)) hgoal = "not met"
  printf "Goal (issue #27): the 30-joint humanoid (atlas) with gradients generates in <= 5 s and compiles under gcc -O2 in <= 20 s: **%s** (generation %s s, gcc -O2 %s s).\n", hgoal, sec(hg), sec(hc) > out
  print "" > out
  jg = v["a1", "grad.grad"]; js = v["a1", "grad.hold"]
  jgoal = (num(jg) && num(js)) ? ((jg <= 5 * js) ? "met" : "not met") : "not measured"
  if (num(jg) && num(js))
    printf "Goal (issue #27): the step Jacobians of the a1 standing on four feet (`a1_eval_robot__grad` once after each step of the hold run, the `work` entry it reads, the next step, brought up to date first and not timed) <= 5x a step: **%s** (%.1f µs against a step of %.1f µs with gradients on: **%.2f**x; %s evaluations with a nonzero status).\n", jgoal, jg / 1000, js / 1000, jg / js, v["a1", "grad.grad_check"] > out
  else if (v["a1", "dofs"] == "")
    printf "Goal (issue #27): the step Jacobians of the a1 standing on four feet <= 5x a step: **not measured** (the a1 is not in this run).\n" > out
  else
    printf "Goal (issue #27): the step Jacobians of the a1 standing on four feet <= 5x a step: **%s** (the a1 with gradients on did not build within the limits above: generation %s s, gcc -O2 %s s).\n", jgoal, sec(v["a1", "grad.gen"]), sec(v["a1", "grad.cc"]) > out
  print "" > out
  for (i = 1; i <= nr; i++) {
    r = R[i]
    if (num(v[r, "grad.grad"]) && r != "a1")
      printf "Step Jacobians of %s (once after each step of the hold run, `work` up to date): %.1f µs, %.2fx its step with gradients on (%.1f µs).\n\n", r, v[r, "grad.grad"] / 1000, v[r, "grad.grad"] / v[r, "grad.hold"], v[r, "grad.hold"] / 1000 > out
  }
  if (nn > 0) {
    print "Notes:" > out
    print "" > out
    for (i = 1; i <= nn; i++) print notes[i] > out
    print "" > out
  }
}
