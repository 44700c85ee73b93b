-- collprof's Lmod modulefile, for a site that installs collprof into a
-- prefix (./configure --prefix=/opt/collprof/0.1.0; docs/packaging.md).
-- Copy as <modulepath>/collprof/0.1.0.lua and set `root`.
whatis("Name: collprof")
whatis("Version: 0.1.0")
whatis("Description: NCCL collective profiler for Slurm jobs")
help([[
collprof profiles a job's NCCL collectives.  With the site's SPANK plugin,
`srun --collprof ...`; without it, COLLPROF_DIR=DIR LD_PRELOAD=libcollprof.so
then `collprof analyze DIR`.  See `man collprof`.
]])

local root = "/opt/collprof/0.1.0"

prepend_path("PATH", pathJoin(root, "bin"))
prepend_path("MANPATH", pathJoin(root, "share/man"))
-- the shim and NCCL's profiler plugin, found by name
prepend_path("LD_LIBRARY_PATH", pathJoin(root, "lib"))
setenv("COLLPROF_ROOT", root)
