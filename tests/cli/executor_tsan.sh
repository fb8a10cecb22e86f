#!/usr/bin/env bash
# tests/cli/executor_tsan.sh: the executor's threaded tests under
# ThreadSanitizer.  Builds runtime/src/executor*.c, runtime/src/topic_bus.c
# and every tests/c/test_executor*.c with -fsanitize=thread into build/tsan/
# and runs them; their ok/FAIL lines pass through, prefixed "tsan_".
set -u
cc=${CC:-cc}
out=build/tsan
mkdir -p "$out"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1}"
# TSan needs a compiler runtime (libtsan, part of Debian's gcc); skip only
# if this compiler cannot link a sanitized program at all.
probe="$out/probe"
if ! echo 'int main(void){return 0;}' | $cc -fsanitize=thread -x c - -o "$probe" 2>/dev/null; then
  echo "skip tsan_executor: $cc cannot build -fsanitize=thread programs"
  exit 0
fi
status=0
for t in tests/c/test_executor*.c; do
  base=$(basename "$t" .c)
  exe="$out/$base"
  if ! log=$($cc -std=c11 -g -O1 -fsanitize=thread -Wall -Wextra -Iruntime/include \
             -o "$exe" "$t" runtime/src/executor*.c runtime/src/topic_bus.c -lm -lpthread 2>&1); then
    printf '%s\n' "$log"
    echo "FAIL tsan_$base: compilation failed"
    status=1
    continue
  fi
  res=$("$exe" 2>&1)
  rc=$?
  printf '%s\n' "$res" | sed -n -e 's/^ok /ok tsan_/p' -e 's/^FAIL /FAIL tsan_/p' -e 's/^skip /skip tsan_/p'
  if [ $rc -ne 0 ]; then
    # a data race report (halt_on_error) or a crash
    printf '%s\n' "$res" | grep -v '^ok ' | head -60
    printf '%s\n' "$res" | grep -q '^FAIL ' || echo "FAIL tsan_$base: exit status $rc (ThreadSanitizer report above)"
    status=1
  fi
done
exit $status
