# fail_alloc.sh RUNS: booted with fail_alloc=PERCENT, run as init (pid 1,
# which fail_alloc spares: its death would stop the machine). Forks and
# execs `ls /` RUNS times: some fail at random (ENOMEM), the kernel goes
# on, and afterwards every page and heap object is back. Reads /proc with
# builtins only, in this process, so that nothing here fails at random.
runs=${1:-60}
meminfo() { free=; heap=; tables=; while read name value unit; do case $name in MemFree:) free=$value;; HeapObjects:) heap=$value;;
            KernelStackTables:) tables=$value;; esac; done < /proc/meminfo; }
faults() { while read name value; do [ "$name" = faults_injected ] && injected=$value; done < /proc/vmstat; }
meminfo; free0=$free; heap0=$heap; tables0=$tables
ok=0; failed=0; i=0
while [ $i -lt "$runs" ]; do
    if ls / > /dev/null 2>&1; then ok=$((ok + 1)); else failed=$((failed + 1)); fi
    i=$((i + 1))
done
meminfo; faults
pages=$(( (free0 - free) / 4 - (tables - tables0) / 4 ))
echo "fail_alloc: pid $$: ls worked $ok, failed $failed; faults injected $injected"
echo "fail_alloc: leak: pages $pages (slack 4), heap objects $((heap - heap0))"
# init's own opens must have worked: it is spared
[ -n "$heap0" ] && [ -n "$heap" ] && [ $pages -le 4 ] && [ $heap -eq $heap0 ] && echo "fail_alloc: PASS" ||
    echo "fail_alloc: FAIL"
