#!/bin/sh
# devicepath.sh - collprof bench's device-buffer path without a GPU: the
# bench loads libcudart by dlopen, and here finds the stand-in of
# fakecudart.c (tests/bench-cli/lib/libcudart.so), whose "device" memory is
# host memory it tracks, so the CPU NCCL can move it.  Every collective in
# and out of place: results filled through host-to-device copies, outputs
# poisoned with cudaMemset, checked after device-to-host copies, streams
# synchronized, the timed calls between CUDA events of the stream (the GPU
# timer); no copy the wrong way round, no allocation or event left; one rank
# without events makes every rank use the host clock alone.  The real GPU
# run is device.gpu; the GPU timer's values are checked in gputimer.sh.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/bench-cli/lib.sh"
fake=$b/tests/bench-cli/lib
need "$collprof" "$simrun" "$fake/libcudart.so"

printf 'intra latency=20us bandwidth=200MB/s\n' >"$work/fast.topo"
LD_LIBRARY_PATH=$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
FAKECUDART_LOG=$work/cuda.log FAKECUDART_DEVICES=2 \
    "$simrun" -n 3 --topo "$work/fast.topo" --timeout 300 -- "$collprof" bench \
    --memory device --sizes 4B-64KiB --iters 2 --warmup 1 \
    --json "$work/d.json" >"$work/out" 2>"$work/err"
ok $? "every collective with device buffers on 3 ranks (2 fake GPUs) exits 0"
sed 's/^/#   /' "$work/err" | head -n 5
check "the start line says device buffers" grep -q '^# collprof bench: 3 ranks on 1 node, device buffers' "$work/out"
pycheck "JSON: memory device" "$work/d.json" "d['run']['memory'] == 'device'"
pycheck "every checked result right after the copy back" "$work/d.json" \
    "d['wrong_total'] == 0 and all(p['wrong'] == 0 for p in d['points'] if not p['in_place'])"
n=$(wc -l <"$work/cuda.log")
ok $([ "$n" -eq 3 ]; echo $?) "cudart loaded by each of the 3 ranks ($n)"
sed 's/^/#   /' "$work/cuda.log"
check "no copy the wrong way round, no unknown pointer, no allocation left" \
    sh -c "! grep -v ' bad=0 leaked=0 ' '$work/cuda.log'"
check "copies both ways, memsets and stream synchronizations happened" \
    sh -c "! grep -E 'h2d=0 |d2h=0 |memset=0 |sync=0 |streams=0 ' '$work/cuda.log'"
check "each rank: two events, recorded on the stream, read, destroyed" \
    sh -c "! grep -vE ' events=2 records=[1-9][0-9]* elapsed=[1-9][0-9]* events_left=0\$' '$work/cuda.log'"
pycheck "JSON: timer host+cuda_events" "$work/d.json" \
    "d['timer'] == 'host+cuda_events' and d['run']['timer_reason'].startswith('CUDA events')"
pycheck "gpu_time_s on every point, within its host time; no median_time_s" "$work/d.json" \
    "all(p['gpu_time_s'] is not None and 0 < p['gpu_time_s'] <= p['time_s'] * (1 + 1e-6) and p['median_time_s'] is None for p in d['points'])"

# One rank cannot create events: every rank times with the host clock.
LD_LIBRARY_PATH=$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
FAKECUDART_LOG=$work/noev.log FAKECUDART_NO_EVENTS=2 \
    "$simrun" -n 3 --topo "$work/fast.topo" --timeout 120 -- "$collprof" bench \
    --memory device --ops allreduce,sendrecv --sizes 1KiB-4KiB --iters 2 \
    --json "$work/n.json" >"$work/nout" 2>"$work/nerr"
ok $? "rank 2 without CUDA events: exits 0"
pycheck "... timer host, gpu_time_s null" "$work/n.json" \
    "d['timer'] == 'host' and d['run']['timer_reason'] == 'not every rank could create its CUDA events' and all(p['gpu_time_s'] is None for p in d['points'])"
check "... the start lines say so" grep -q '^# timer: host (not every rank could create its CUDA events)$' "$work/nout"
check "... no event recorded, none left" \
    sh -c "! grep -vE ' records=0 elapsed=0 events_left=0\$' '$work/noev.log'"

# A wrong element is seen through the copy back.
LD_LIBRARY_PATH=$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
COLLPROF_BENCH_CORRUPT=reducescatter \
    "$simrun" -n 2 --topo "$work/fast.topo" --timeout 120 -- "$collprof" bench \
    --memory device --ops reducescatter --sizes 1KiB-4KiB --iters 1 \
    --json "$work/w.json" >"$work/wout" 2>"$work/werr"
ok $([ $? -eq 3 ]; echo $?) "a wrong element with device buffers: exit 3"
pycheck "... counted" "$work/w.json" "d['wrong_total'] == 3"

# auto: device buffers only outside simrun; --memory device without a GPU.
LD_LIBRARY_PATH=$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
    "$simrun" -n 2 --topo "$work/fast.topo" --timeout 120 -- "$collprof" bench \
    --ops allreduce --sizes 1KiB-2KiB --iters 1 --json "$work/a.json" >/dev/null 2>&1
pycheck "--memory auto under simrun: host buffers, cudart or not" "$work/a.json" \
    "d['run']['memory'] == 'host'"
LD_LIBRARY_PATH=$fake FAKECUDART_DEVICES=0 "$collprof" bench --memory device \
    --nccl "$b/tests/simnccl/lib/libnccl.so.2" >/dev/null 2>"$work/nodev"
ok $([ $? -eq 1 ]; echo $?) "--memory device without a device: exit 1"
check "... named" grep -q '^collprof bench: --memory device: no GPU' "$work/nodev"
LD_LIBRARY_PATH=$fake FAKECUDART_DEVICES=1 FAKECUDART_LOG=$work/one.log \
    "$collprof" bench --nccl "$b/tests/simnccl/lib/libnccl.so.2" \
    --ops allreduce,allgather --sizes 1KiB-4KiB --iters 1 --json "$work/o.json" \
    >/dev/null 2>&1
ok $? "--memory auto outside simrun with a (fake) GPU"
pycheck "... uses device buffers" "$work/o.json" "d['run']['memory'] == 'device'"
done_testing
