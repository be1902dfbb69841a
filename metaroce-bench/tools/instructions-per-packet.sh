#!/bin/bash
# Instructions per DATA packet of EnginePairBenchmark's loop, counted by Valgrind's callgrind: a
# figure the machine's load does not change (this VM has no hardware counters for `perf stat`).
#
#   metaroce-bench/tools/instructions-per-packet.sh CLASSPATH PAYLOAD write|send WARMUP PACKETS OUTDIR
#
# The JVM runs uninstrumented (--instr-atstart=no) through the warm-up, and with -Xbatch, so the JIT
# compiles in the same order every run; EnginePairWork then prints "warmed up" and waits for the
# file OUTDIR/go, which this script creates only once counting is on (callgrind_control -i on,
# confirmed by callgrind_control -s): a handshake, so counting never starts late whatever the load.
# The System.gc() calls around the measured packets make callgrind dump (--dump-before=JVM_GC). The
# benchmark thread's count in the second dump over the packets measured is the figure; without a
# second dump the script fails rather than print a count. EXTRA_JVM_OPTIONS go to the JVM (e.g.
# -XX:CompileCommand=dontinline,... to split a method's count by its callees in by-method.py). OUTDIR
# keeps the dumps and the JIT's perf map for by-method.py. WORK_CLASS=io.metaroce.bench.jmh.EnginePingPongWork
# counts a 64-byte ping-pong instead (PAYLOAD is the message size, WARMUP and PACKETS round trips; the
# figure printed "per DATA packet" is then per round trip).
set -e
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
if [ $# -ne 6 ]; then
  echo "usage: $0 CLASSPATH PAYLOAD write|send WARMUP PACKETS OUTDIR" >&2; exit 1
fi
cp=$1; payload=$2; mode=$3; warm=$4; packets=$5; dir=$6
fail() { echo "instructions-per-packet: $*" >&2; exit 1; }
rm -rf "$dir"; mkdir -p "$dir"
valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes --dump-before=JVM_GC \
  --callgrind-out-file="$dir/cg.%p" "$JAVA_HOME/bin/java" -Xbatch -XX:-UsePerfData -XX:+UseSerialGC \
  -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit $EXTRA_JVM_OPTIONS -cp "$cp" "${WORK_CLASS:-io.metaroce.bench.jmh.EnginePairWork}" \
  "$payload" "$mode" "$warm" "$packets" "$dir/go" > "$dir/out.txt" 2> "$dir/err.txt" &
vpid=$!
# A failure below must not leave the JVM waiting for its go file.
trap 'kill $vpid 2>/dev/null || true' EXIT
while ! grep -q "warmed up" "$dir/out.txt" 2>/dev/null; do
  if ! kill -0 $vpid 2>/dev/null; then tail "$dir/err.txt" >&2; fail "the JVM ended before its warm-up did"; fi
  sleep 1
done
callgrind_control -i on $vpid > /dev/null
# callgrind_control prints "OK." whatever vgdb answered; its status shows whether counting is on.
callgrind_control -s $vpid | grep -q "Events collected" \
  || fail "counting did not switch on (callgrind_control -i on $vpid); see $dir/err.txt"
touch "$dir/go"
wait $vpid || { tail "$dir/err.txt" >&2; fail "the JVM failed"; }
trap - EXIT
cp "/tmp/perf-$vpid.map" "$dir/perf.map"
shopt -s nullglob
dumps=("$dir"/cg.$vpid.2-*) # the second dump, one file per thread: the benchmark thread's is the largest
[ ${#dumps[@]} -gt 0 ] || fail "no second callgrind dump ($dir/cg.$vpid.2-*): counting was not on at the first System.gc(); no figure"
best=""; bestn=0
for f in "${dumps[@]}"; do
  n=$(grep -m1 "^summary:\|^totals:" "$f" | awk '{print $2}')
  if [ "${n:-0}" -gt "$bestn" ]; then bestn=$n; best=$f; fi
done
measured=$(tail -1 "$dir/out.txt" | awk '{print $4}')
[ "$bestn" -gt 0 ] || fail "the second dump counts no instructions ($dir/cg.$vpid.2-*)"
[[ "$measured" =~ ^[1-9][0-9]*$ ]] || fail "no count of measured packets in $dir/out.txt"
echo "$(tail -1 "$dir/out.txt"): $bestn instructions, $(( bestn / measured )) per DATA packet ($best)"
