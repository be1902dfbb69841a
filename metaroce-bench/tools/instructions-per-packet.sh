#!/bin/bash
# Instructions per DATA packet of EnginePairBenchmark's loop, counted by Valgrind's callgrind: a
# figure the machine's load does not change (this VM has no hardware counters for `perf stat`).
#
#   metaroce-bench/tools/instructions-per-packet.sh CLASSPATH PAYLOAD write|send WARMUP PACKETS OUTDIR
#
# The JVM runs uninstrumented (--instr-atstart=no) through the warm-up, and with -Xbatch, so the JIT
# compiles in the same order every run; EnginePairWork then pauses, this script switches counting on
# (callgrind_control -i on), and the System.gc() calls around the measured packets make callgrind dump
# (--dump-before=JVM_GC). The benchmark thread's count in the second dump over the packets measured is
# the figure. EXTRA_JVM_OPTIONS go to the JVM (e.g. -XX:CompileCommand=dontinline,... to split a
# method's count by its callees in by-method.py). OUTDIR keeps the dumps and the JIT's perf map for by-method.py.
set -e
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
cp=$1; payload=$2; mode=$3; warm=$4; packets=$5; dir=$6
rm -rf "$dir"; mkdir -p "$dir"
valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes --dump-before=JVM_GC \
  --callgrind-out-file="$dir/cg.%p" "$JAVA_HOME/bin/java" -Xbatch -XX:-UsePerfData -XX:+UseSerialGC \
  -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit $EXTRA_JVM_OPTIONS -cp "$cp" io.metaroce.bench.jmh.EnginePairWork \
  "$payload" "$mode" "$warm" "$packets" 4000 > "$dir/out.txt" 2> "$dir/err.txt" &
vpid=$!
while ! grep -q "warmed up" "$dir/out.txt" 2>/dev/null; do
  if ! kill -0 $vpid 2>/dev/null; then echo "the JVM ended before its warm-up did:"; tail "$dir/err.txt"; exit 1; fi
  sleep 1
done
callgrind_control -i on $vpid > /dev/null
wait $vpid
cp "/tmp/perf-$vpid.map" "$dir/perf.map"
best=""; bestn=0
for f in "$dir"/cg.$vpid.2-*; do # the second dump, one file per thread: the benchmark thread's is the largest
  n=$(grep -m1 "^summary:\|^totals:" "$f" | awk '{print $2}')
  if [ "${n:-0}" -gt "$bestn" ]; then bestn=$n; best=$f; fi
done
measured=$(tail -1 "$dir/out.txt" | awk '{print $4}')
echo "$(tail -1 "$dir/out.txt"): $bestn instructions, $(( bestn / measured )) per DATA packet ($best)"
