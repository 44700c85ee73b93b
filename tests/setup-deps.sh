#!/bin/sh
# setup-deps.sh - install collprof's build and test dependencies from
# Debian's packages.  Idempotent: packages already present are not fetched.
set -eu
pkgs="gcc make autoconf automake libtool pkg-config libjansson-dev zlib1g-dev
      libc6-dev procps python3 util-linux time clang libclang-rt-14-dev
      slurmctld slurmd slurm-client munge libslurm-dev
      chromium valgrind libibverbs-dev strace
      debhelper dpkg-dev lintian rpm
      libsqlite3-dev libpq-dev postgresql prometheus python3-prometheus-client"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
        missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "collprof: missing packages:$missing (run as root, or install them)" >&2
        exit 1
    fi
    echo "collprof: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
