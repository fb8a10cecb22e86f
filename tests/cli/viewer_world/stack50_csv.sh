#!/usr/bin/env bash
# tests/cli/viewer_world/stack50_csv.sh FIRST.csv: a 10 s CSV at 100 Hz for
# stack50.lua (its header and initial row: FIRST.csv, from `diagc run
# --until 0 --csv`), on stdout: every cube moving and turning, without the
# minutes of a 50-cube contact simulation (tests/cli/viewer_world.sh,
# bench/viewer/run).  Cube k (0-based) moves on a circle of 0.3 m about its
# place and turns about the axis (1, k mod 3, 1) at 1 + k/50 rad/s; %.17g
# keeps every bit.
awk -F, 'NR == 1 { print; n = (NF - 1) / 7 } NR == 2 {
  for (k = 0; k < n; k++) { x0[k] = $(2 + 7 * k); y0[k] = $(3 + 7 * k); z0[k] = $(4 + 7 * k) } }
  END {
    for (i = 0; i <= 1000; i++) {
      t = i / 100; line = sprintf("%.17g", t)
      for (k = 0; k < n; k++) {
        ax = 1; ay = k % 3; az = 1; m = sqrt(ax * ax + ay * ay + az * az); a = t * (1 + k / 50)
        s = sin(a / 2) / m
        line = line sprintf(",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", x0[k] + 0.3 * cos(t + k), y0[k] + 0.3 * sin(t + k),
          z0[k] + 0.05 * sin(3 * t + k), cos(a / 2), s * ax, s * ay, s * az)
      }
      print line
    }
  }' "$1"
