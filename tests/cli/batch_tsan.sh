#!/usr/bin/env bash
# tests/cli/batch_tsan.sh: the batch's thread pool (runtime/src/batch.c)
# and its output step (batch_out.c) under ThreadSanitizer:
# tests/c/test_batch.c and test_batch_out.c built with the runtime's
# sources and -fsanitize=thread into build/tsan/; their ok/FAIL lines pass
# through, prefixed "tsan_".
set -u
cc=${CC:-cc}
out=build/tsan
mkdir -p "$out"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1}"
probe="$out/probe_batch"
if ! echo 'int main(void){return 0;}' | $cc -fsanitize=thread -x c - -o "$probe" 2>/dev/null; then
  echo "skip tsan_batch: $cc cannot build -fsanitize=thread programs"
  exit 0
fi
status=0
for t in test_batch test_batch_out; do
  exe="$out/$t"
  if ! log=$($cc -std=c11 -g -O1 -fsanitize=thread -Wall -Wextra -Iruntime/include -o "$exe" "tests/c/$t.c" \
             runtime/src/*.c -lm -lpthread 2>&1); then
    printf '%s\n' "$log"
    echo "FAIL tsan_$t: compilation failed"
    status=1
    continue
  fi
  res=$("$exe" 2>&1)
  rc=$?
  printf '%s\n' "$res" | sed -n -e 's/^ok /ok tsan_/p' -e 's/^FAIL /FAIL tsan_/p'
  if [ $rc -ne 0 ]; then
    printf '%s\n' "$res" | grep -v '^ok ' | head -60
    printf '%s\n' "$res" | grep -q '^FAIL ' || echo "FAIL tsan_$t: exit status $rc (ThreadSanitizer report above)"
    status=1
  fi
done
exit $status
