#!/usr/bin/env bash
# scripts/fresh-chroot.sh [demo|test|both]: the README's setup commands, exactly
# as the README writes them, on a brand-new minimal Debian 12 (as root).
#
# What a clean clone on a developer's machine cannot catch: a package the
# project needs but never installs, or a build probe that only works because
# something happens to be installed.  So:
#   1. a minimal Debian 12 is made with `debootstrap --variant=minbase
#      bookworm`, from the mirror of this machine's apt sources, once, and
#      kept under $DIAGC_CHROOT_CACHE (default /var/tmp/diagc-chroot) for
#      later runs, with the .deb files apt downloads inside;
#   2. each run copies it to a fresh root, adds `make` (nothing else: the
#      project's own scripts must install the rest), copies the project (the
#      files a clone has: tracked ones and untracked ones not ignored) to
#      /root/project, and runs the commands of the README's "Setup" block
#      there, in order, each with a time limit;
#   3. everything is undone: processes left in the root are killed, mounts
#      removed, the root deleted.  The host's /dev is never bind-mounted (the
#      root gets its own device nodes on a tmpfs).
#
# Output: "ok fresh_chroot.<command>" or "FAIL fresh_chroot.<command>: ..."
# per command, in tests/run's format, with each log's tail on failure (logs
# are kept in $DIAGC_CHROOT_LOGS, default /var/tmp/diagc-chroot/logs).
# Exit status 0 when every command passed, 1 when one failed, 2 when the
# chroot could not be made.  Used by .ci/run; docs/install.md documents it.
set -uo pipefail

what=${1:-both}
case $what in demo | test | both) ;; *)
  echo "usage: scripts/fresh-chroot.sh [demo|test|both]" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.." || exit 2
top=$(pwd)
cache=${DIAGC_CHROOT_CACHE:-/var/tmp/diagc-chroot}
logs=${DIAGC_CHROOT_LOGS:-$cache/logs}
limit=${DIAGC_CHROOT_TIMEOUT:-2400} # seconds per command
suite=bookworm

die() { echo "fresh_chroot: $*" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "must run as root (it makes a chroot)"
mkdir -p "$cache" "$logs" "$cache/archives/partial" || die "cannot create $cache"

# --- the README's commands: the lines of the first fenced block after the
# "## Setup" heading, each up to its comment
readme_commands() {
  awk '
    /^## / { in_setup = ($0 ~ /^## Setup/) ; next }
    in_setup && /^```/ { if (in_block) exit; in_block = 1; next }
    in_setup && in_block { sub(/[ \t]*#.*/, ""); if ($0 ~ /[^ \t]/) print }
  ' README.md
}
mapfile -t commands < <(readme_commands)
[ ${#commands[@]} -gt 0 ] || die "README.md has no commands in its Setup block"
sel=()
for c in "${commands[@]}"; do
  case "$what:$c" in both:* | demo:"make demo" | test:"make test") sel+=("$c") ;; esac
done
[ ${#sel[@]} -gt 0 ] || die "README.md's Setup block has no '$what' command (it has: ${commands[*]})"

# --- the mirror: this machine's apt sources (deb822 or one-line form)
mirror() {
  local m
  m=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null)
  [ -n "$m" ] || m=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' \
                      /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null)
  echo "${m:-http://deb.debian.org/debian}"
}

# --- the base system, made once
base=$cache/base-$suite
if [ ! -x "$base/usr/bin/apt-get" ] || [ ! -f "$base/.diagc-complete" ]; then
  if ! command -v debootstrap >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    { apt-get install -y -q --no-install-recommends debootstrap ||
      { apt-get update -q && apt-get install -y -q --no-install-recommends debootstrap; }; } \
      >"$logs/debootstrap-install.log" 2>&1 </dev/null ||
      die "cannot install debootstrap (see $logs/debootstrap-install.log)"
  fi
  m=$(mirror)
  echo "fresh_chroot: making a minimal Debian 12 from $m (once; kept in $base)"
  rm -rf "$base.tmp"
  debootstrap --variant=minbase "$suite" "$base.tmp" "$m" >"$logs/debootstrap.log" 2>&1 </dev/null ||
    die "debootstrap failed (see $logs/debootstrap.log)"
  rm -rf "$base" && mv "$base.tmp" "$base" && touch "$base/.diagc-complete" ||
    die "cannot move the base system into place"
fi

# --- a fresh root for this run
root=$(mktemp -d "$cache/root.XXXXXX") || die "cannot make a root under $cache"
mounts=()
cleanup() {
  local p pid
  # processes a test left behind inside the root
  for p in /proc/[0-9]*; do
    pid=${p#/proc/}
    [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -9 "$pid" 2>/dev/null
  done
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" 2>/dev/null
  done
  # delete only once nothing is mounted inside any more
  if ! grep -q " $root/" /proc/mounts; then rm -rf "$root"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

mnt() { # mnt TARGET mount-args...: mount and remember
  local target=$1
  shift
  mkdir -p "$target" && mount "$@" "$target" && mounts+=("$target")
}

cp -a "$base/." "$root/" || die "cannot copy the base system"
rm -f "$root/.diagc-complete"
# the apt sources of a real Debian 12 install (updates, security) as here
rm -f "$root/etc/apt/sources.list"
cp -a /etc/apt/sources.list.d/. "$root/etc/apt/sources.list.d/" 2>/dev/null
[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$root/etc/apt/sources.list"
if ! grep -qs '^deb\|^URIs:' "$root/etc/apt/sources.list" "$root"/etc/apt/sources.list.d/*; then
  echo "deb $(mirror) $suite main" >"$root/etc/apt/sources.list" # this machine names none
fi
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
# the network's own certificate authorities, if this machine trusts extra
# ones (a TLS proxy's, in /usr/local/share/ca-certificates or given to node
# as NODE_EXTRA_CA_CERTS): a machine on this network has them too, so npm
# reaches its registry from the root as it does here.  Not the project's:
# nothing else of the machine is copied.
netca=""
if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
  cat /usr/local/share/ca-certificates/*.crt >"$root/etc/diagc-network-ca.pem" && netca=/etc/diagc-network-ca.pem
elif [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -r "$NODE_EXTRA_CA_CERTS" ]; then
  cp "$NODE_EXTRA_CA_CERTS" "$root/etc/diagc-network-ca.pem" && netca=/etc/diagc-network-ca.pem
fi
mnt "$root/proc" -t proc proc || die "cannot mount /proc in the root"
mnt "$root/dev" -t tmpfs -o mode=755,nosuid devtmp || die "cannot mount a /dev in the root"
for dev in "null 1 3" "zero 1 5" "full 1 7" "random 1 8" "urandom 1 9" "tty 5 0"; do
  set -- $dev
  mknod -m 666 "$root/dev/$1" c "$2" "$3" || die "cannot make /dev/$1 in the root"
done
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"
mnt "$root/dev/pts" -t devpts -o newinstance,ptmxmode=0666 devpts && ln -s pts/ptmx "$root/dev/ptmx"
mnt "$root/dev/shm" -t tmpfs -o mode=1777 shm || die "cannot mount /dev/shm in the root"
mnt "$root/var/cache/apt/archives" --bind "$cache/archives" || die "cannot share the apt cache"

mkdir -p "$root/root/project"
git -C "$top" ls-files -z --cached --others --exclude-standard 2>/dev/null |
  while IFS= read -r -d '' f; do [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"; done |
  tar --null -T - -cf - | tar -xf - -C "$root/root/project" ||
  die "cannot copy the project into the root"

inside() { # inside LOG CMD: runs CMD in the root's project as a new login would
  timeout -k 10 "$limit" chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    DEBIAN_FRONTEND=noninteractive ${netca:+NODE_EXTRA_CA_CERTS=$netca} \
    /bin/bash -c "cd /root/project && $2" >"$1" 2>&1 </dev/null
}

if ! inside "$logs/make-install.log" \
  'apt-get update -q && apt-get install -y -q --no-install-recommends make'; then
  echo "FAIL fresh_chroot.setup: cannot install make in the root: $(tail -1 "$logs/make-install.log")"
  exit 1
fi

failed=0
for c in "${sel[@]}"; do
  name=${c// /_}
  log="$logs/$name.log"
  start=$(date +%s)
  inside "$log" "$c"
  rc=$?
  secs=$(($(date +%s) - start))
  summary=$(tail -1 "$log")
  if [ "$rc" = 0 ]; then
    echo "ok fresh_chroot.$name ($secs s; last line: $summary)"
  else
    why="exit status $rc"
    [ "$rc" = 124 ] && why="timed out after ${limit}s"
    echo "FAIL fresh_chroot.$name: '$c' failed on a fresh Debian 12: $why after $secs s (log: $log)"
    grep -E '^(c|lua|cli|docs): FAIL|error|Error' "$log" | head -20 | sed 's/^/    | /'
    tail -5 "$log" | sed 's/^/    | /'
    failed=1
  fi
done
exit $failed
