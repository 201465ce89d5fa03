#!/usr/bin/env python3
"""Prints, per CTest label, how many tests ran and their summed seconds, and the slowest tests,
from a build directory and the JUnit file of its ctest run (ctest --output-junit FILE).
Tests run in parallel, so the sums add up to more than the run's wall time.
Usage: scripts/ctest-label-times.py BUILD_DIR JUNIT_XML [SLOWEST=10]"""
import json
import subprocess
import sys
import xml.etree.ElementTree as ET


def main():
    build, junit = sys.argv[1], sys.argv[2]
    slowest = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    listing = json.loads(subprocess.run(['ctest', '--test-dir', build, '--show-only=json-v1'], check=True,
                                        capture_output=True, text=True).stdout)
    labels = {}
    for t in listing['tests']:
        for p in t.get('properties', []):
            if p['name'] == 'LABELS':
                labels[t['name']] = p['value']
    times = {}
    for case in ET.parse(junit).getroot().iter('testcase'):
        if case.find('skipped') is not None:
            continue
        times[case.get('name')] = float(case.get('time', '0'))
    per_label = {}
    for name, secs in times.items():
        for label in labels.get(name, ['(none)']):
            n, s = per_label.get(label, (0, 0.0))
            per_label[label] = (n + 1, s + secs)
    print('ctest by label (tests that ran; seconds summed over tests that ran in parallel):')
    for label, (n, s) in sorted(per_label.items(), key=lambda kv: -kv[1][1]):
        print(f'  {label:10} {n:4d} tests {s:8.0f} s')
    print(f'slowest {slowest}:')
    for name, secs in sorted(times.items(), key=lambda kv: -kv[1])[:slowest]:
        print(f'  {secs:8.1f} s  {name} ({",".join(labels.get(name, []))})')


if __name__ == '__main__':
    main()
