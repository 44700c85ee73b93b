#!/bin/sh
# gputimer.sh - collprof bench's GPU timer without a GPU.  One rank over the
# stand-in CUDA of tests/fakecuda: its NCCL (nccl/libnccl.so.2) launches each
# collective as device work of FAKENCCL_KERNEL_NS + count/64 ns on the
# stream's virtual timeline, and its cudart's events complete with the work
# queued before them, so the device time of every point is known: the
# bench's gpu_time_s must be that (CUDA events around the timed calls, per
# call), never less than the work queued between the events, never more
# than the host time around the same calls.  The 3-rank path over simnccl
# (and a rank without events) is in devicepath.sh; host buffers in
# sweep.sh.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/bench-cli/lib.sh"
fc=$b/tests/fakecuda
need "$collprof" "$fc/libcudart.so.13" "$fc/nccl/libnccl.so.2"

# The bench asks for libcudart.so first: here that name is the stand-in
# (the one its NCCL links), ahead of any real cudart of this machine.
mkdir "$work/lib" && ln -s "$fc/libcudart.so.13" "$work/lib/libcudart.so"
kernel=2000000 # ns per collective on the stand-in's device
LD_LIBRARY_PATH=$work/lib:$fc${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
FAKENCCL_KERNEL_NS=$kernel \
    "$collprof" bench --nccl "$fc/nccl/libnccl.so.2" --memory device \
    --ops allreduce --sizes 4KiB-256KiB --iters 10 --warmup 1 \
    --json "$work/g.json" --csv "$work/g.csv" >"$work/out" 2>"$work/err"
ok $? "one rank, device buffers on the stand-in CUDA: exits 0"
sed 's/^/#   /' "$work/err" | head -n 5
check "the start lines name the timer" \
    grep -q '^# timer: host+cuda_events (CUDA events on each rank' "$work/out"
pycheck "JSON: timer host+cuda_events, device buffers" "$work/g.json" \
    "d['timer'] == 'host+cuda_events' and d['run']['memory'] == 'device' and 'CUDA events' in d['run']['timer_reason']"
pycheck "14 points, every result right" "$work/g.json" \
    "len(d['points']) == 14 and d['wrong_total'] == 0"
pycheck "every point has time_s and gpu_time_s; no median_time_s (calls only queue work)" "$work/g.json" \
    "all(p['time_s'] > 0 and p['gpu_time_s'] is not None and p['gpu_time_s'] > 0 and p['median_time_s'] is None for p in d['points'])"
# The device work of one call: FAKENCCL_KERNEL_NS + count/64 ns.
work_s="(lambda p: ($kernel + p['count'] // 64) * 1e-9)"
pycheck "gpu_time_s is the stand-in's device time per call (median point within 2%)" "$work/g.json" \
    "(lambda r: r[len(r) // 2] < 0.02)(sorted(abs(p['gpu_time_s'] / $work_s(p) - 1) for p in d['points']))"
diag "$(py "$work/g.json" "' '.join('%.4f' % (p['gpu_time_s'] / $work_s(p)) for p in d['points'])") (gpu_time_s / device work, per point)"
pycheck "no point below the device work between its events" "$work/g.json" \
    "all(p['gpu_time_s'] >= $work_s(p) * (1 - 1e-6) for p in d['points'])"
pycheck "no point above its host time (the events lie inside the host interval)" "$work/g.json" \
    "all(p['gpu_time_s'] <= p['time_s'] * (1 + 1e-6) for p in d['points'])"
check "CSV: median_time_s and gpu_time_s columns" \
    test "$(head -1 "$work/g.csv" | cut -d, -f15-)" = "median_time_s,gpu_time_s"
n=$(sed 1d "$work/g.csv" | awk -F, '$15 == "" && $16 > 0' | wc -l)
ok $([ "$n" -eq 14 ]; echo $?) "CSV: gpu_time_s on every row, median_time_s on none ($n)"

# The same run asked for host buffers: nothing to time on a device.
LD_LIBRARY_PATH=$work/lib:$fc${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
    "$collprof" bench --nccl "$fc/nccl/libnccl.so.2" --memory host \
    --ops allreduce --sizes 4KiB-8KiB --iters 2 --warmup 0 \
    --json "$work/h.json" >"$work/hout" 2>&1
ok $? "host buffers on the stand-in CUDA: exits 0"
pycheck "... timer host (host buffers), gpu_time_s null, median_time_s measured" "$work/h.json" \
    "d['timer'] == 'host' and d['run']['timer_reason'].startswith('host buffers') and all(p['gpu_time_s'] is None and p['median_time_s'] > 0 for p in d['points'])"
done_testing
