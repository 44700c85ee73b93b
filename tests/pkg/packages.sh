#!/bin/sh
# packages.sh - the packages a site installs (docs/packaging.md), built from
# a fresh `make dist` tarball: the Debian package (dpkg-buildpackage, then
# lintian: every tag left is explained in docs/packaging.md), the RPMs
# (rpmbuild -ta --nodeps) with the same files, and the Spack recipe's
# version and sha256.  As root, also: apt-get install ./collprof_*.deb, the
# installed files, the test Slurm cluster running `srun --collprof` with the
# INSTALLED plugin enabled through the installed example snippet, then
# apt-get remove (only the conffile stays) and purge.  The package is purged
# at exit, pass or fail, so that nothing of it stays in /usr.
. "$top_srcdir/tests/tap.sh"
b=${top_builddir:?}
s=${top_srcdir:?}

# make distcheck takes the write bits off its source tree (root writes there
# all the same: the bits, not access(2))
[ -n "$(find "$s" -maxdepth 0 -perm -u=w)" ] ||
    skip_all "the source tree is read-only (make distcheck): the packages are built from a source tree's own make dist"
for t in dpkg-buildpackage dh lintian rpmbuild dpkg-deb python3 sha256sum; do
    command -v "$t" >/dev/null 2>&1 ||
        skip_all "$t is missing (tests/setup-deps.sh installs debhelper, dpkg-dev, lintian, rpm)"
done
[ -f /usr/include/slurm/slurm_version.h ] || skip_all "libslurm-dev is missing"
if dpkg-query -W -f='${Status}' collprof 2>/dev/null | grep -q installed; then
    skip_all "a collprof package is installed on this machine already: left alone"
fi

version=$(sed -n 's/^PACKAGE_VERSION = //p' "$b/Makefile")
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
W=$(mktemp -d /tmp/cp-pkg-XXXXXX)
chmod 755 "$W"
installed=0

pkg_cleanup() {
    if [ "$installed" = 1 ] &&
       dpkg-query -W -f='${Status}' collprof 2>/dev/null | grep -q -e installed -e config-files; then
        DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq collprof >/dev/null 2>&1 ||
            dpkg --purge collprof >/dev/null 2>&1
    fi
    if [ "${tap_fail:-0}" -eq 0 ]; then rm -rf "$W"; else echo "# kept $W"; fi
}
trap pkg_cleanup EXIT
trap 'exit 1' INT TERM HUP

t0=$(date +%s)
# ---- a fresh tarball -------------------------------------------------------
make -C "$b" dist >"$W/dist.log" 2>&1
ok $? "make dist"
tarball=$W/collprof-$version.tar.gz
cp "$b/collprof-$version.tar.gz" "$tarball" || exit 1
diag "make dist: $(( $(date +%s) - t0 )) s"
tar tzf "$tarball" >"$W/tar.list"
for f in debian/control debian/rules collprof.spec contrib/slurm/collprof.conf.in \
         contrib/spack/package.py.in contrib/lmod/collprof.lua; do
    grep -q "^collprof-$version/$f\$" "$W/tar.list"
    ok $? "the tarball ships $f"
done

# ---- the Debian package ----------------------------------------------------
t1=$(date +%s)
tar xzf "$tarball" -C "$W" &&
    (cd "$W/collprof-$version" &&
     DEB_BUILD_OPTIONS="parallel=2 nocheck" dpkg-buildpackage -us -uc -b) >"$W/deb.log" 2>&1
r=$?
ok $r "dpkg-buildpackage -us -uc -b from the tarball"
[ $r -eq 0 ] || tail -n 30 "$W/deb.log" | sed 's/^/#   /'
diag "dpkg-buildpackage: $(( $(date +%s) - t1 )) s"
deb=$W/collprof_${version}-1_$arch.deb
[ -f "$deb" ] || { ok 1 "the .deb exists ($deb)"; done_testing; exit 1; }
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|; s|/$||' | sort >"$W/deb.all"
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./|/|' | sort >"$W/deb.files"
for f in /usr/bin/collprof /usr/lib/$ma/libcollprof.so \
         /usr/lib/$ma/libcollprof-nccl-profiler.so \
         /usr/lib/$ma/slurm-wlm/spank_collprof.so \
         /usr/share/man/man1/collprof.1.gz /usr/share/man/man8/spank_collprof.8.gz \
         /etc/slurm/plugstack.conf.d/collprof.conf \
         /usr/share/doc/collprof/plugin.md.gz /usr/share/doc/collprof/packaging.md.gz; do
    grep -q -x -F "$f" "$W/deb.files"
    ok $? "the .deb holds $f"
done
! grep -q '\.la$' "$W/deb.files"
ok $? "no libtool .la file"
dpkg-deb --ctrl-tarfile "$deb" | tar xOf - ./conffiles >"$W/conffiles" 2>/dev/null
grep -q -x /etc/slurm/plugstack.conf.d/collprof.conf "$W/conffiles"
ok $? "the plugstack snippet is a conffile"
dpkg-deb --fsys-tarfile "$deb" | tar xOf - ./etc/slurm/plugstack.conf.d/collprof.conf >"$W/snippet"
[ -z "$(grep -v -e '^#' -e '^[[:space:]]*$' "$W/snippet")" ]
ok $? "the snippet enables nothing (every line a comment)"
grep -q -x -F "#optional /usr/lib/$ma/slurm-wlm/spank_collprof.so basedir=/tmp/collprof-%u" "$W/snippet"
ok $? "... and names the installed plugin on its commented line"
num=$(printf '%d' "$(sed -n 's/^#define SLURM_VERSION_NUMBER //p' /usr/include/slurm/slurm_version.h)")
series=$(printf '%d.%02d' $((num >> 16)) $(((num >> 8) & 255)))
slurmver=$series.$((num & 255))
breaks=$(dpkg-deb -f "$deb" Breaks)
r=0
for want in "slurmd (<< $series~)" "slurmd (>= " "slurm-client (<< $series~)" "slurm-client (>= "; do
    case $breaks in *"$want"*) ;; *) r=1 ;; esac
done
ok $r "Breaks: every slurmd outside $series ($breaks)"

# lintian: no error, and each tag it leaves explained in docs/packaging.md
lintian --tag-display-limit 0 "$deb" >"$W/lintian.out" 2>&1
sed 's/^/#   lintian: /' "$W/lintian.out"
! grep -q '^E: ' "$W/lintian.out"
ok $? "lintian: no error"
missing=""
for tag in $(sed -n 's/^[EWIPX]: collprof[^:]*: \([a-z0-9-]*\).*/\1/p' "$W/lintian.out" | sort -u); do
    grep -q -e "\`$tag\`" "$s/docs/packaging.md" || missing="$missing $tag"
done
ok "$([ -z "$missing" ]; echo $?)" "every lintian tag is explained in docs/packaging.md (not:$missing)"

# ---- the RPMs, and their files against the .deb's ------------------------
t2=$(date +%s)
rpmbuild -ta --nodeps --define "_topdir $W/rpm" "$tarball" >"$W/rpm.log" 2>&1
r=$?
ok $r "rpmbuild -ta --nodeps from the tarball"
[ $r -eq 0 ] || tail -n 30 "$W/rpm.log" | sed 's/^/#   /'
diag "rpmbuild: $(( $(date +%s) - t2 )) s"
main_rpm=$(ls "$W"/rpm/RPMS/*/collprof-"$version"-*.rpm 2>/dev/null | head -n 1)
slurm_rpm=$(ls "$W"/rpm/RPMS/*/collprof-slurm-"$version"-*.rpm 2>/dev/null | head -n 1)
ok "$([ -n "$main_rpm" ] && [ -n "$slurm_rpm" ]; echo $?)" "collprof and collprof-slurm RPMs"
if [ -n "$slurm_rpm" ]; then
    rpm -qp --requires "$slurm_rpm" 2>/dev/null >"$W/slurm.req"
    grep -q "^slurm >= $series\$" "$W/slurm.req" && grep -q "^slurm < " "$W/slurm.req"
    ok $? "collprof-slurm requires Slurm $series ($(tr '\n' ' ' <"$W/slurm.req"))"
    rpm -qlp "$slurm_rpm" 2>/dev/null | grep -q 'spank_collprof\.so$'
    ok $? "the SPANK plugin is in collprof-slurm"
    # files only (no directories), the libdir, plugin dir and doc dir of
    # each distribution named alike, compressed or not
    rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$main_rpm" "$slurm_rpm" 2>/dev/null |
        awk '$1 !~ /^d/ {print $2}' | grep -v '^/usr/lib/\.build-id/' |
        sed -e 's|^/usr/lib64/slurm/|/usr/lib/PLUGINS/|' -e 's|^/usr/lib64/|/usr/lib/LIB/|' \
            -e 's|^/usr/share/doc/collprof-[^/]*/|/usr/share/doc/collprof/|' -e 's|\.gz$||' |
        sort -u >"$W/rpm.cmp"
    grep -v -e '^/usr/share/doc/collprof/changelog.Debian.gz$' \
            -e '^/usr/share/doc/collprof/copyright$' -e '^/usr/share/lintian/' "$W/deb.files" |
        sed -e "s|^/usr/lib/$ma/slurm-wlm/|/usr/lib/PLUGINS/|" -e "s|^/usr/lib/$ma/|/usr/lib/LIB/|" \
            -e 's|\.gz$||' | sort -u >"$W/deb.cmp"
    diff "$W/deb.cmp" "$W/rpm.cmp" >"$W/cmp.diff"
    ok $? "the RPMs install the .deb's files (libdir and plugin dir aside)"
    sed 's/^/#   /' "$W/cmp.diff"
fi

# ---- the Spack recipe --------------------------------------------------------
diag "Spack cannot be installed on this machine: the recipe is parsed (python3 ast), not run"
make -C "$b" spack-recipe >"$W/spack.log" 2>&1
ok $? "make spack-recipe"
python3 - "$tap_n" "$b/contrib/spack/package.py" "$version" "$(sha256sum "$b/collprof-$version.tar.gz" | cut -d' ' -f1)" <<'PY'
import ast, sys
n = int(sys.argv[1])
path, want_version, want_sum = sys.argv[2:5]
failed = 0
tree = ast.parse(open(path).read(), path)
cls = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Collprof"]
def ok(cond, name):
    global n, failed
    n += 1
    failed += not cond
    print(("ok" if cond else "not ok") + " %d - %s" % (n, name))
ok(len(cls) == 1 and cls[0].bases[0].id == "AutotoolsPackage",
   "class Collprof(AutotoolsPackage)")
calls = [c for c in ast.walk(cls[0]) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)]
def args(name):
    return [c for c in calls if c.func.id == name]
vs = args("version")
ok(len(vs) == 1 and vs[0].args[0].value == want_version, "version(%r)" % want_version)
sums = [k.value.value for k in vs[0].keywords if k.arg == "sha256"] if vs else []
ok(sums == [want_sum], "sha256 is the tarball's (%s)" % (sums[0] if sums else None))
variants = sorted(c.args[0].value for c in args("variant"))
ok(variants == ["cuda", "ibverbs"], "variants cuda and ibverbs (%s)" % variants)
deps = [c.args[0].value for c in args("depends_on")]
ok("slurm" in deps and "jansson@2.10:" in deps, "depends_on slurm and jansson (%s)" % deps)
sys.exit(1 if failed else 0)
PY
r=$?
# the python block printed its own 5 points
tap_n=$((tap_n + 5))
ok $r "the Spack recipe's checks"

if [ "$(id -u)" -ne 0 ]; then
    diag "not root: the .deb is not installed (the install and cluster checks need root)"
    done_testing
    exit
fi

# ---- install, as a site does ------------------------------------------------
t3=$(date +%s)
installed=1
(cd "$W" && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "./$(basename "$deb")") >"$W/apt.log" 2>&1
r=$?
ok $r "apt-get install ./$(basename "$deb")"
[ $r -eq 0 ] || tail -n 20 "$W/apt.log" | sed 's/^/#   /'
bad=""
while read -r f; do [ -e "$f" ] || bad="$bad $f"; done <"$W/deb.files"
ok "$([ -z "$bad" ]; echo $?)" "every file of the .deb is installed (missing:$bad)"
/usr/bin/collprof --version >"$W/version.out" 2>&1
grep -q -x "collprof $version" "$W/version.out" &&
    grep -q "built for Slurm $slurmver" "$W/version.out"
ok $? "the installed collprof --version: collprof $version, Slurm $slurmver"
diag "install: $(( $(date +%s) - t3 )) s"

# ---- the installed plugin on the test cluster ---------------------------------
# The site's step: uncomment the installed snippet (basedir= pointed into
# this test's directory), plugstack.conf including plugstack.conf.d as
# Debian's does.  In a subshell: tests/slurm/lib.sh stops the cluster at the
# subshell's exit, and this script's trap still purges the package.
snippet=/etc/slurm/plugstack.conf.d/collprof.conf
install -d -m 1777 "$W/steps"
sed -i "s|^#optional \(.*\) basedir=[^ ]*|optional \1 basedir=$W/steps|" "$snippet"
grep -q "^optional /usr/lib/$ma/slurm-wlm/spank_collprof.so basedir=$W/steps\$" "$snippet"
ok $? "the snippet, uncommented, enables the installed plugin"
why=$(sh "$s/tests/slurm/cluster.sh" check)
if [ $? -ne 0 ]; then
    diag "no Slurm cluster: $why"
elif ! [ -f "$b/tests/apps/train_sim" ] || ! [ -f "$b/tests/simnccl/lib/libnccl.so.2" ]; then
    diag "no Slurm cluster: train_sim or the CPU NCCL is not built"
else
    t4=$(date +%s)
    (
        export CP_CLUSTER_PLUGSTACK="include /etc/slurm/plugstack.conf.d/*.conf"
        . "$s/tests/slurm/lib.sh"
        cd "$BASE/tmp" || exit 1
        env $run_env srun --collprof -N2 -n4 "$TSIM" --pattern ddp --steps 2 \
            >pkg.out 2>pkg.err
        ok $? "srun --collprof -N2 -n4 train_sim, the installed plugin: exit 0"
        sed 's/^/#   stderr: /' pkg.err
        j=$(sed -n 's/^collprof: job \([0-9]*\)\.0: .*ranks on 2 nodes.*/\1/p' pkg.err | head -n 1)
        ok "$([ -n "$j" ]; echo $?)" "the verdict: 4 ranks on 2 nodes (job $j)"
        [ -n "$j" ] && [ -s "$W/steps/collprof-$j.0/report.json" ]
        ok $? "report.json in basedir= of the snippet"
        n=$(ls "$W/steps/collprof-$j.0" 2>/dev/null | grep -c '\.cplog$')
        ok "$([ "$n" -ge 4 ]; echo $?)" "the installed shim wrote the ranks' logs ($n)"
        grep -q "collprof: spank_collprof $version, built for Slurm $slurmver, loaded by Slurm $slurmver" \
            "$BASE/log/slurmd-n1.log"
        ok $? "slurmd's log names the plugin's version and Slurm's"
        echo "$tap_n $tap_fail" >"$W/tap.state"
    )
    rc=$?
    if [ -f "$W/tap.state" ]; then
        read -r tap_n tap_fail <"$W/tap.state"
    else
        ok 1 "the cluster part ran to its end (exit $rc)"
    fi
    diag "cluster: $(( $(date +%s) - t4 )) s"
fi

# ---- remove: only the site's config stays; purge ----------------------------
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq collprof >"$W/remove.log" 2>&1
ok $? "apt-get remove collprof"
left=""
while read -r f; do [ -e "$f" ] && left="$left $f"; done <"$W/deb.files"
ok "$([ "$left" = " $snippet" ]; echo $?)" "after remove, only $snippet is left (left:$left)"
grep -q "^optional .*basedir=$W/steps\$" "$snippet"
ok $? "... with the site's edit"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq collprof >"$W/purge.log" 2>&1
ok $? "apt-get purge collprof"
ok "$([ ! -e "$snippet" ]; echo $?)" "after purge, the snippet is gone"
dpkg-query -W -f='${Status}' collprof 2>/dev/null | grep -q -e installed -e config-files
ok "$([ $? -ne 0 ]; echo $?)" "dpkg knows no collprof any more"
diag "total: $(( $(date +%s) - t0 )) s"
done_testing
