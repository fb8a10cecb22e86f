#!/usr/bin/env bash
# The build's probes answer no for what is not there (GNU make 4.3 once made
# the header probe say yes to any name: tests the Makefile's own functions,
# not only scripts/probe.sh).
set -u
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory "$@"; }
check() { if [ "$2" = "$3" ]; then echo "ok probe.$1"; else echo "FAIL probe.$1: got '$2', expected '$3'"; fi; }
check script_header_missing "$(sh scripts/probe.sh header diagc_no_such_dir/no_such_header.h)" ""
check script_header_present "$(sh scripts/probe.sh header stdio.h)" "1"
check script_header_cflags "$(sh scripts/probe.sh header stdio.h -nostdinc)" ""
check script_lib_missing "$(sh scripts/probe.sh lib diagc_no_such_lib)" ""
check script_lib_present "$(sh scripts/probe.sh lib m)" "1"
check make_header_missing "$(mk probe H=diagc_no_such_dir/no_such_header.h | sed -n 's/^header=\([^ ]*\).*/\1/p')" ""
check make_header_present "$(mk probe H=stdio.h | sed -n 's/^header=\([^ ]*\).*/\1/p')" "1"
check make_lib_missing "$(mk probe L=diagc_no_such_lib | sed -n 's/.* lib=\([^ ]*\).*/\1/p')" ""
check make_lib_present "$(mk probe L=m | sed -n 's/.* lib=\([^ ]*\).*/\1/p')" "1"
# the CVODE backend is built exactly when its header compiles
cv=$(sh scripts/probe.sh header cvode/cvode.h)
check make_cvode_matches_header "$(mk probe | sed -n 's/.* cvode=\([^ ]*\).*/\1/p')" "$cv"
# the dependency check says "missing" when a header it needs cannot be compiled
check deps_present "$(mk check-deps 2>&1)" "check-deps: present"
check deps_missing_header "$(mk check-deps CC='cc -nostdinc' 2>/dev/null)" "check-deps: missing"
# LUAJIT_CFLAGS/LIBS are read from pkg-config on first use, after `deps` may
# have installed LuaJIT: an immediate assignment (:=) that names them runs
# pkg-config while make reads the Makefile, before the install, and leaves
# them empty for good (bin/diagc then failed to link on a fresh Debian 12)
early=$(grep -nE '^[A-Za-z_]+[[:space:]]*(:=|::=|!=).*\$\(LUAJIT_(CFLAGS|LIBS)\)' Makefile | head -3)
check lazy_luajit_flags "$early" ""
