#!/bin/sh
# build.sh - configure and build collprof in ./build (warnings as errors).
# Used by check.sh and demo.sh; safe to run again (reuses the build tree).
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
if [ ! -f configure ] || [ configure.ac -nt configure ] ||
   [ -n "$(find . -name Makefile.inc -newer configure 2>/dev/null | head -n 1)" ] ||
   [ Makefile.am -nt configure ]; then
    autoreconf -fi >build-autoreconf.log 2>&1 || { cat build-autoreconf.log; exit 1; }
    rm -f build-autoreconf.log
fi
mkdir -p build
cd build
if [ ! -f Makefile ] || [ ../configure -nt Makefile ]; then
    ../configure --enable-werror --prefix="$top/build/inst" >configure.out 2>&1 ||
        { cat configure.out; exit 1; }
    sed -n '/collprof [0-9]/,$p' configure.out
fi
make -j"$(nproc)" >make.out 2>&1 || { grep -B2 -A8 -E 'error|Error' make.out | head -80; exit 1; }
echo "collprof: built in $top/build"
