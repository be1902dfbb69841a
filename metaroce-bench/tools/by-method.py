#!/usr/bin/env python3
"""Self instructions per DATA packet by method, from instructions-per-packet.sh's output.

    metaroce-bench/tools/by-method.py OUTDIR [rows]

Callgrind names JIT-compiled code by address only; the JVM's perf map (-XX:+DumpPerfMapAtExit) says
which compiled method each address belongs to (callees the JIT inlined count as their caller's).
"""
import bisect, collections, glob, os, re, sys

out = sys.argv[1]
rows = int(sys.argv[2]) if len(sys.argv) > 2 else 30
packets = int(re.search(r'(\d+) (?:DATA packets|round trips) measured', open(os.path.join(out, 'out.txt')).read()).group(1))
dumps = glob.glob(os.path.join(out, 'cg.*.2-*'))
def total(f):
    for line in open(f):
        if line.startswith(('summary:', 'totals:')):
            return int(line.split()[1])
    return 0
dump = max(dumps, key=total)

starts, ends, names = [], [], []
for line in open(os.path.join(out, 'perf.map')):
    parts = line.rstrip('\n').split(' ', 2)
    if len(parts) == 3:
        starts.append(int(parts[0], 16)); ends.append(int(parts[0], 16) + int(parts[1], 16)); names.append(parts[2])
order = sorted(range(len(starts)), key=lambda i: starts[i])
starts, ends, names = [starts[i] for i in order], [ends[i] for i in order], [names[i] for i in order]

def method_at(address):
    i = bisect.bisect_right(starts, address) - 1
    return names[i] if i >= 0 and address < ends[i] else 'JIT code not in the perf map'

compressed = {}
def name(spec):
    m = re.match(r'\((\d+)\)(?: (.*))?', spec)
    if not m:
        return spec
    if m.group(2) is not None:
        compressed[m.group(1)] = m.group(2)
    return compressed.get(m.group(1), spec)

self_cost = collections.Counter()
fn, after_call, grand = None, False, 0
for line in open(dump):
    if line.startswith('fn='):
        fn = name(line[3:].strip())
    elif line.startswith('cfn='):
        name(line[4:].strip())
    elif line.startswith('calls='):
        after_call = True  # the next cost line is the call's inclusive cost, not self cost
    elif line[:1].isdigit() or line[:1] in '+-*':
        if after_call:
            after_call = False
            continue
        f = line.split()
        if len(f) >= 2:
            self_cost[fn] += int(f[1]); grand += int(f[1])

by_method = collections.Counter()
for f, c in self_cost.items():
    m = re.match(r'0x([0-9a-fA-F]+)$', f or '')
    by_method[method_at(int(m.group(1), 16)) if m else f] += c
print(f'{grand:,} instructions over {packets:,} DATA packets: {grand / packets:.0f} per packet')
for method, c in by_method.most_common(rows):
    m = re.match(r'\S+ ([\w.$]+)\(', method)  # "returnType class.method(parameters)": compiled Java
    short = (m.group(1) if m else method).replace('io.metaroce.', '')
    print(f'{c / packets:8.1f}  {100 * c / grand:5.1f} %  {short}')
