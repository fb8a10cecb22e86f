#!/usr/bin/env bash
# tests/cli/topology.sh: bin/diagc-topology replays the four iRobot
# topologies (2 s each) with received > 0, nothing lost and the accounting
# published = received + dropped; the stall probe reports; bad input exits
# with status 2.
set -u
topo=bin/diagc-topology
if [ ! -x "$topo" ] || [ -n "$(find tools/topology runtime/src -newer "$topo" -name '*.[ch]' 2>/dev/null | head -1)" ]; then
  env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory "$topo" >/dev/null 2>&1 ||
    { echo "FAIL topology_build: make $topo failed"; exit 1; }
fi
dir=bench/executor/topologies # the iRobot topologies (NOTICE there)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
first=$(ls "$dir"/*.json | head -1)

field() { sed -n "s/.*\"$1\": \\([0-9.]*\\).*/\\1/p" <<<"$2"; }

for f in "$dir"/*.json; do
  name=$(basename "$f" .json)
  out=$("$topo" "$f" --duration 2 --json 2>&1)
  rc=$?
  recv=$(field received "$out")
  lost=$(field lost "$out")
  pub=$(field published "$out")
  dropped=$(field dropped "$out")
  if [ $rc -ne 0 ] || [ -z "$recv" ]; then
    echo "FAIL topology_$name: exit $rc: $out"
  elif [ "$recv" -gt 0 ] && [ "$lost" = 0 ] && [ "$pub" = $((recv + dropped)) ]; then
    echo "ok topology_$name"
  else
    echo "FAIL topology_$name: received $recv, lost $lost, published $pub, dropped $dropped"
  fi
done

# multi-threaded executors too (one topology)
out=$("$topo" "$first" --duration 1 --threads 4 --json 2>&1)
recv=$(field received "$out")
lost=$(field lost "$out")
if [ -n "$recv" ] && [ "$recv" -gt 0 ] && [ "$lost" = 0 ]; then echo "ok topology_threads4"
else echo "FAIL topology_threads4: $out"; fi

# real-time scheduling: runs under SCHED_FIFO where permitted (root here),
# and a value out of range is a usage error
out=$("$topo" "$first" --duration 1 --rt-priority 20 --json 2>&1); rc=$?
recv=$(field received "$out")
if [ $rc -eq 0 ] && [ -n "$recv" ] && [ "$recv" -gt 0 ]; then echo "ok topology_rt_priority"
elif [ $rc -eq 2 ] && grep -q "not permitted" <<<"$out"; then echo "ok topology_rt_priority # not permitted here: checked the error"
else echo "FAIL topology_rt_priority: exit $rc: $out"; fi
out=$("$topo" "$first" --rt-priority 0 2>&1); rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <<<"$out")" = 1 ]; then echo "ok topology_rt_priority_range"
else echo "FAIL topology_rt_priority_range: exit $rc: $out"; fi

# virtual clock: deterministic, exact counts.  A publisher of period P fires
# at k*P < D (k >= 1), i.e. ceil(D/P) - 1 times in D seconds; each firing
# reaches every subscriber of its topic.
cat > "$tmp/virtual.json" <<'JSON'
{"nodes": [
  {"node_name": "a", "publishers": [{"topic_name": "t1", "msg_type": "stamped4_int32", "period_ms": 10}]},
  {"node_name": "b", "executor_id": 1, "subscribers": [{"topic_name": "t1", "msg_type": "stamped4_int32"}],
   "publishers": [{"topic_name": "t2", "msg_type": "stamped_vector", "msg_size": 1000, "freq_hz": 40}]},
  {"node_name": "c", "subscribers": [{"topic_name": "t1", "msg_type": "stamped4_int32"},
                                     {"topic_name": "t2", "msg_type": "stamped_vector"}]}
]}
JSON
out=$("$topo" "$tmp/virtual.json" --virtual --duration 1 --json 2>&1)
# t1: 99 firings x 2 subscribers, t2 (25 ms): 39 firings x 1 subscriber
if [ "$(field received "$out")" = 237 ] && [ "$(field lost "$out")" = 0 ] && [ "$(field max_latency_us "$out")" = 0.000 ]; then
  echo "ok topology_virtual_clock_exact_counts"
else
  echo "FAIL topology_virtual_clock_exact_counts: want received 237: $out"
fi
if [ -f "$dir/cedar.json" ]; then
  # cedar over 1 s: 64 Hz topics with danube x2, amazon x2, ganges, nile,
  # rhine x3, parana x2 subscribers (11 x 63 = 693); 10 Hz arkansas,
  # salween x2, missouri, congo, lena (6 x 9 = 54); 2 Hz volga, mekong
  # (2 x 1 = 2): 749
  out=$("$topo" "$dir/cedar.json" --virtual --duration 1 --json 2>&1)
  if [ "$(field received "$out")" = 749 ]; then echo "ok topology_virtual_cedar_exact_counts"
  else echo "FAIL topology_virtual_cedar_exact_counts: want received 749: $out"; fi
fi

# the stall probe: one probe per CPU, 1 ms wake-ups (about 1000 per CPU and
# second); the late messages it attributes to stalls are a subset of the
# late ones
out=$("$topo" "$first" --duration 0.5 --probe --json 2>&1); rc=$?
cpus=$(field probe_cpus "$out"); late=$(field late "$out"); in_stall=$(field late_in_stall "$out")
if [ $rc -eq 0 ] && [ "$cpus" = "$(getconf _NPROCESSORS_ONLN)" ] && [ -n "$(field probe_stalls "$out")" ] &&
   [ -n "$in_stall" ] && [ "$in_stall" -le "$late" ]; then echo "ok topology_probe"
else echo "FAIL topology_probe: exit $rc: $out"; fi
out=$("$topo" "$first" --duration 0.3 --probe 2>&1)
if grep -q '^probe: .* late messages in flight during a stall: [0-9]* of [0-9]*$' <<<"$out"; then echo "ok topology_probe_text"
else echo "FAIL topology_probe_text: $out"; fi
out=$("$topo" "$first" --duration 0.3 --probe --virtual 2>&1); rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <<<"$out")" = 1 ]; then echo "ok topology_probe_not_virtual"
else echo "FAIL topology_probe_not_virtual: exit $rc: $out"; fi

# text report has a total line
out=$("$topo" "$first" --duration 0.3 2>&1)
if grep -q '^total: received' <<<"$out"; then echo "ok topology_text_report"
else echo "FAIL topology_text_report: $out"; fi

# bad input: one line on stderr, exit status 2
bad() {
  local name=$1 content=$2
  shift 2
  printf '%s' "$content" > "$tmp/bad.json"
  err=$("$topo" "$tmp/bad.json" --duration 0.1 "$@" 2>&1 >/dev/null)
  rc=$?
  if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [ -n "$err" ]; then
    echo "ok topology_bad_$name"
  else
    echo "FAIL topology_bad_$name: exit $rc, stderr: $err"
  fi
}
bad trailing_comma '{"nodes": [ {"node_name": "a"}, ]}'
bad unterminated '{"nodes": [ {"node_name": "a"'
bad garbage 'nodes'
bad duplicate_key '{"nodes": [], "nodes": []}'
bad no_nodes '{"nodes": []}'
bad unknown_type '{"nodes": [{"node_name": "a", "publishers": [{"topic_name": "t", "msg_type": "stampedXYZ", "period_ms": 10}]}]}'
bad no_period '{"nodes": [{"node_name": "a", "publishers": [{"topic_name": "t", "msg_type": "stamped4_int32"}]}]}'
bad type_mismatch '{"nodes": [{"node_name": "a", "publishers": [{"topic_name": "t", "msg_type": "stamped4_int32", "period_ms": 10}]}, {"node_name": "b", "subscribers": [{"topic_name": "t", "msg_type": "stamped_int64"}]}]}'
bad unknown_key '{"nodes": [{"node_name": "a", "colour": "red"}]}'
bad bad_escape '{"nodes": [{"node_name": "a\q"}]}'
bad bad_option '{"nodes": [{"node_name": "a"}]}' --frobnicate
bad bad_threads '{"nodes": [{"node_name": "a"}]}' --threads x
err=$("$topo" "$tmp/missing.json" 2>&1 >/dev/null); rc=$?
if [ $rc -eq 2 ]; then echo "ok topology_bad_missing_file"; else echo "FAIL topology_bad_missing_file: exit $rc"; fi
# the parser and the replay under ASan + UBSan
if gcc -std=c11 -g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -Iruntime/include \
     tools/topology/*.c runtime/src/executor.c -lm -lpthread -o "$tmp/topo_asan" 2>"$tmp/cc.err"; then
  fails=0
  for content in '{"nodes": [ {"node_name": "a"}, ]}' '{"nodes": [{"node_name": "\ud800"}]}' '[1, 2' '{"a": 1e999}' \
                 '{"nodes": [{"node_name": "a", "publishers": [{"topic_name": "t", "msg_type": "stamped_vector", "period_ms": 1}]}]}'; do
    printf '%s' "$content" > "$tmp/bad.json"
    UBSAN_OPTIONS=halt_on_error=1 "$tmp/topo_asan" "$tmp/bad.json" >/dev/null 2>"$tmp/e"
    [ $? -eq 2 ] || { fails=1; echo "    asan bad input: $content: $(head -3 "$tmp/e")"; }
  done
  out=$(UBSAN_OPTIONS=halt_on_error=1 "$tmp/topo_asan" "$first" --duration 0.5 --threads 2 --json 2>&1)
  rc=$?
  if [ $fails -eq 0 ] && [ $rc -eq 0 ] && [ "$(field lost "$out")" = 0 ]; then echo "ok topology_asan"
  else echo "FAIL topology_asan: exit $rc: $(head -20 <<<"$out")"; fi
else
  echo "FAIL topology_asan: compilation failed: $(head -5 "$tmp/cc.err")"
fi
exit 0
