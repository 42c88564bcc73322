# soak SECONDS: a mixed load on every CPU at once, run in nohzk's busybox sh
# (make soak: 600 s; scenario "soak" in make test: 30 s). See
# docs/reliability.md.
#
#   spinners      spin pinned to CPUs 2 and 3 (one of them making syscalls)
#   sleepers      short sleeps in a loop: timers, wakeups, idle entry/exit
#   rcustress     the kernel's RCU torture test, 10 s at a time
#   fuzz          a worker per CPU, 30 s at a time (half a soak under 60 s):
#                 every class of attack at once, then one class alone
#                 (--only), in turn
#   pipelines     fork, exec, pipes and /proc reads in a loop
#   tick policies a hook: switched every few seconds once
#                 /proc/sys/kernel/tick_policy exists
#
# Then, with the load stopped, fail-nth's whole walk if tools/run/soak added
# it (/bin/fail-nth-test --all, tests/user/fail_nth.c): every fallible
# point of every system call class failed in turn, no leak.
#
# Every job notes its failures in /tmp/soak/failed. At the end, with
# everything stopped, free pages and heap objects (/proc/meminfo) must be
# back within the slack, and the root directory unchanged. Prints "soak: PASS" and exits 0, or "soak: FAIL".
# The host side (tools/run/boot's output) checks for stalls and panics.
S=${1:-600}
PAGE_SLACK=128      # after the kernel stacks' page tables (KernelStackTables), counted apart
HEAP_SLACK=64
mkdir -p /tmp/soak
rm -f /tmp/soak/failed
now() { cut -d. -f1 /proc/uptime; }
# free pages, heap objects, and page tables made for kernel stacks (kept
# for ever by design, docs/memory.md: counted apart from the leak)
mem() { awk '/^MemFree:/ { f = $2 / 4 } /^HeapObjects:/ { h = $2 } /^KernelStackTables:/ { t = $2 / 4 }
             END { print f, h, t + 0 }' /proc/meminfo; }
fail() { echo "soak: $*"; echo "$*" >> /tmp/soak/failed; }   # builtins only

root() { ls -ld /; ls -a /; }   # jobs may change only /tmp: the root's names and mode stay
root0=$(root)
read free0 heap0 tables0 <<END
$(mem)
END
end=$(( $(now) + S ))
echo "soak: $S s of mixed load on $(nproc) CPUs; free pages $free0, heap objects $heap0"

taskset -c 3 spin "$S" > /tmp/soak/spin3 || fail "spin on cpu 3 failed" &
taskset -c 2 spin "$S" --syscall-every 1000 > /tmp/soak/spin2 || fail "spin on cpu 2 failed" &
( n=0; while [ "$(now)" -lt "$end" ]; do sleep 0.05; n=$((n + 1)); done; echo "soak: sleeper: $n sleeps" ) &
( n=0; while [ "$(now)" -lt $((end - 10)) ]; do
      rcustress 10 > /tmp/soak/rcu || { fail "rcustress failed:"; cat /tmp/soak/rcu; }
      n=$((n + 1))
  done; echo "soak: rcustress: $n runs" ) &
F=$(( S < 60 ? S / 2 : 30 ))    # each fuzz run's seconds: 30, or half a short soak
( n=0; while [ "$(now)" -lt $((end - F)) ]; do
      only=    # even runs: every class; odd runs: the next class alone
      if [ $((n % 2)) -eq 1 ]; then
          set -- calls proc nohz affinity reap flags symlink memory sigreturn futex \
              thread-unmap thread-futex thread-exit thread-signal clone
          shift $(( (n / 2) % $# ))
          only="--only $1"
      fi
      fuzz $F "$n" --shared $only > /tmp/soak/fuzz || { fail "fuzz $F $n $only failed:"; cat /tmp/soak/fuzz; }
      grep -e '^fuzz: classes' -e 'syscalls tried' -e 'workers' -e 'stuck [1-9]' /tmp/soak/fuzz | cut -c1-100
      n=$((n + 1))
  done; echo "soak: fuzz: $n runs" ) &
( n=0; while [ "$(now)" -lt "$end" ]; do
      [ "$(ls /bin | wc -l)" -gt 10 ] || fail "ls /bin | wc -l"
      [ "$(echo a b c | tr a-z A-Z | cut -d' ' -f2)" = B ] || fail "echo | tr | cut"
      grep -q LOC /proc/interrupts || fail "grep LOC /proc/interrupts"
      n=$((n + 1))
  done; echo "soak: pipelines: $n rounds" ) &
( if [ -w /proc/sys/kernel/tick_policy ]; then
      n=0
      while [ "$(now)" -lt "$end" ]; do
          for p in periodic idle task; do echo $p > /proc/sys/kernel/tick_policy || fail "tick_policy $p"; sleep 2; done
          n=$((n + 1))
      done
      echo task > /proc/sys/kernel/tick_policy; echo "soak: tick policies: $n rounds"
  fi ) &
wait
cat /tmp/soak/spin2 /tmp/soak/spin3
if [ -x /bin/fail-nth-test ]; then
    fail-nth-test --all > /tmp/soak/failnth || { fail "fail-nth --all failed:"; grep '^#' /tmp/soak/failnth | tail -20; }
    grep '^fail-nth:' /tmp/soak/failnth
fi

sleep 2             # the last frees may wait for a grace period
read free1 heap1 tables1 <<END
$(mem)
END
tables=$((tables1 - tables0))
echo "soak: leak: free pages $free0 -> $free1 ($((free0 - free1)) used, $tables of them kernel stack page tables; slack $PAGE_SLACK), heap objects $heap0 -> $heap1 ($((heap1 - heap0)), slack $HEAP_SLACK)"
[ $((free0 - free1 - tables)) -le $PAGE_SLACK ] || fail "pages leaked"
[ $((heap1 - heap0)) -le $HEAP_SLACK ] || fail "heap objects leaked"
[ "$(root)" = "$root0" ] || { fail "the root directory changed:"; root; }
if [ -e /tmp/soak/failed ]; then echo "soak: FAIL"; exit 1; fi
echo "soak: PASS"
