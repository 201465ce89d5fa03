#!/usr/bin/env python3
"""Checks of packaging/prometheus and packaging/grafana that promtool does not make.

  check_packaging.py structure RULES TESTS DASHBOARD
      Every alert has a severity label, a summary and a description, and unit tests in TESTS
      that show it firing and not firing; the dashboard is JSON Grafana imports as it is: its
      datasource a template variable, every panel with a datasource and queries.
  check_packaging.py names --daemon BIN --client BIN RULES DASHBOARD
      Starts BIN (a tiny CPU configuration on free ports), proves one small synthetic proof
      through the client so that every family has samples, reads /metrics, and fails naming
      each metric an expression in RULES or DASHBOARD uses that the daemon does not export.
  check_packaging.py self-test
      The PromQL name extraction on expressions with every construct it skips.

Metric names are compared by family (the `# TYPE` lines); a histogram's _bucket, _sum and
_count series belong to their family.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

try:
    import yaml
except ImportError:
    print("python3-yaml (Debian package) is not installed: skipped")
    sys.exit(77)

# Series Prometheus makes itself for every target (not exported by the daemon).
PROMETHEUS_SERIES = {"up"}
KEYWORDS = {
    # aggregation operators (may be followed by `by (...)` rather than `(`)
    "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk", "topk",
    "quantile", "limitk", "limit_ratio",
    # binary operators, modifiers, literals
    "and", "or", "unless", "atan2", "bool", "by", "without", "on", "ignoring", "group_left", "group_right",
    "offset", "inf", "nan",
}
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")


def promql_metric_names(expr):
    """The metric names an expression selects: identifiers that are not functions, keywords,
    label names (in {...} or in by/without/on/ignoring/group_* lists), strings, numbers,
    durations or Grafana variables."""
    # Strings first (they may hold anything, braces and brackets included), then label matchers,
    # range and subquery brackets, Grafana's $variables.
    s = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`', '""', expr)
    s = re.sub(r"\{[^{}]*\}", " ", s)
    s = re.sub(r"\[[^\[\]]*\]", " ", s)
    s = re.sub(r"\$\{[^}]*\}|\$\w+", " ", s)
    # Label lists of grouping and matching modifiers.
    s = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)", " ", s)
    # Numbers (1, 0.9, 1e9, 0x1f) and offsets' durations (offset 5m).
    s = re.sub(r"\boffset\s+-?\w+", " ", s)
    s = re.sub(r"(?<![\w:])(0x[0-9a-fA-F]+|\d+(\.\d*)?([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)(?![\w:])", " ", s)
    names = set()
    for m in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", s):
        word = m.group(0)
        rest = s[m.end():].lstrip()
        if rest.startswith("(") and word.lower() not in KEYWORDS:
            continue  # a function
        if word.lower() in KEYWORDS:
            continue
        names.add(word)
    return names


def template_query_expr(query):
    """The PromQL in a Grafana Prometheus template query (label_values(expr, label),
    query_result(expr)); None for those without any (label_values(label), metrics(regex))."""
    if isinstance(query, dict):
        query = query.get("query", "")
    query = query.strip()
    m = re.fullmatch(r"label_values\((.*),\s*\w+\s*\)", query, re.S)
    if m:
        return m.group(1)
    if re.fullmatch(r"label_values\(\s*\w+\s*\)", query) or query.startswith("metrics("):
        return None
    m = re.fullmatch(r"query_result\((.*)\)", query, re.S)
    return m.group(1) if m else query


def rule_exprs(rules_path):
    with open(rules_path) as f:
        doc = yaml.safe_load(f)
    for group in doc["groups"]:
        for rule in group["rules"]:
            yield rule.get("alert") or rule.get("record"), rule["expr"]


def dashboard_panels(dash):
    for p in dash.get("panels", []):
        yield p
        yield from p.get("panels", [])  # a collapsed row's panels


def dashboard_exprs(dash):
    for p in dashboard_panels(dash):
        for t in p.get("targets", []):
            yield f'panel "{p.get("title")}" {t.get("refId")}', t.get("expr", "")
    for v in dash.get("templating", {}).get("list", []):
        if v.get("type") == "query":
            expr = template_query_expr(v.get("query", ""))
            if expr:
                yield f'variable "{v.get("name")}"', expr


# --- structure ---------------------------------------------------------------------------------


def check_structure(rules_path, tests_path, dashboard_path):
    errors = []
    with open(rules_path) as f:
        rules = yaml.safe_load(f)
    alerts = []
    for group in rules["groups"]:
        for rule in group["rules"]:
            name = rule.get("alert")
            if not name:
                continue
            alerts.append(name)
            if rule.get("labels", {}).get("severity") not in ("critical", "warning", "info"):
                errors.append(f"alert {name}: no severity label (critical, warning or info)")
            for key in ("summary", "description"):
                if not rule.get("annotations", {}).get(key, "").strip():
                    errors.append(f"alert {name}: no {key} annotation")

    with open(tests_path) as f:
        tests = yaml.safe_load(f)
    firing, quiet = set(), set()
    for test in tests.get("tests", []):
        for case in test.get("alert_rule_test", []):
            (firing if case.get("exp_alerts") else quiet).add(case["alertname"])
    for name in alerts:
        if name not in firing:
            errors.append(f"alert {name}: no test shows it firing ({tests_path})")
        if name not in quiet:
            errors.append(f"alert {name}: no test shows it not firing ({tests_path})")
    for name in (firing | quiet) - set(alerts):
        errors.append(f"{tests_path} tests an alert the rules do not have: {name}")

    with open(dashboard_path) as f:
        try:
            dash = json.load(f)
        except json.JSONDecodeError as e:
            return errors + [f"{dashboard_path}: not JSON: {e}"]
    # The datasource is chosen on import or at view time: a datasource variable or an __inputs one.
    variables = {v.get("name"): v for v in dash.get("templating", {}).get("list", [])}
    inputs = {i.get("name") for i in dash.get("__inputs", []) if i.get("type") == "datasource"}

    def datasource_ok(ds, where):
        uid = ds.get("uid", "") if isinstance(ds, dict) else ds or ""
        m = re.fullmatch(r"\$\{(\w+)\}|\$(\w+)", uid)
        name = m and (m.group(1) or m.group(2))
        if not name:
            errors.append(f"{where}: datasource {ds!r} is not a variable (the dashboard would not import as is)")
        elif name not in inputs and variables.get(name, {}).get("type") != "datasource":
            errors.append(f"{where}: datasource variable ${name} is neither in __inputs nor a datasource variable")

    if not dash.get("title") or not dash.get("panels"):
        errors.append(f"{dashboard_path}: no title or no panels")
    ids = set()
    for p in dashboard_panels(dash):
        where = f'panel "{p.get("title")}"'
        if p.get("id") in ids:
            errors.append(f"{where}: id {p.get('id')} is used twice")
        ids.add(p.get("id"))
        if not all(k in p.get("gridPos", {}) for k in ("h", "w", "x", "y")):
            errors.append(f"{where}: no gridPos")
        if p.get("type") == "row":
            continue
        datasource_ok(p.get("datasource"), where)
        targets = p.get("targets") or []
        if not targets:
            errors.append(f"{where}: no queries")
        for t in targets:
            datasource_ok(t.get("datasource", p.get("datasource")), f"{where} {t.get('refId')}")
            if not t.get("expr", "").strip():
                errors.append(f"{where} {t.get('refId')}: no expression")
    for v in variables.values():
        if v.get("type") == "query":
            datasource_ok(v.get("datasource"), f'variable "{v.get("name")}"')
    return errors


# --- names -------------------------------------------------------------------------------------


def exported_families(text):
    families = {}
    for line in text.splitlines():
        m = re.match(r"# TYPE (\S+) (\S+)", line)
        if m:
            families[m.group(1)] = m.group(2)
    return families


def missing_names(used, families):
    """used: {name: [where]}; the names no family accounts for."""
    missing = {}
    for name, wheres in sorted(used.items()):
        if name in families or name in PROMETHEUS_SERIES:
            continue
        base = next((name[: -len(s)] for s in HISTOGRAM_SUFFIXES if name.endswith(s)), None)
        if base and families.get(base) in ("histogram", "summary"):
            continue
        missing[name] = wheres
    return missing


def scrape_running_daemon(daemon, client):
    """/metrics of a fresh daemon after one small synthetic proof."""
    work = tempfile.mkdtemp(prefix="cuzk-packaging-check-")
    sock, ready, log_path = f"{work}/cuzk.sock", f"{work}/ready", f"{work}/daemon.log"
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [daemon, "--listen", "unix:" + sock, "--status-listen", "127.0.0.1:0", "--ready-file", ready,
         "--param-cache-dir", f"{work}/params", "--budget", "1GiB", "--backend", "cpu", "--cpu-threads", "2"],
        stdout=log, stderr=subprocess.STDOUT)

    def daemon_log():
        with open(log_path) as f:
            return f.read()

    try:
        port = None
        deadline = time.monotonic() + 60
        while port is None:
            if proc.poll() is not None:
                raise RuntimeError(f"cuzk-daemon exited with {proc.returncode} at start:\n{daemon_log()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"cuzk-daemon was not ready within 60 s:\n{daemon_log()}")
            try:
                with open(ready) as f:
                    words = f.read().split()  # "grpc ADDRESS http PORT"
                if len(words) >= 4 and words[2] == "http" and int(words[3]) > 0:
                    port = int(words[3])
            except (FileNotFoundError, ValueError):
                pass
            if port is None:
                time.sleep(0.05)
        # One small proof: the per-set, per-kind, per-phase and per-RPC families get samples.
        prove = subprocess.run([client, "--addr", "unix:" + sock, "prove", "--constraints", "1024"],
                               capture_output=True, text=True, timeout=120)
        if prove.returncode != 0:
            raise RuntimeError(f"cuzk prove failed ({prove.returncode}): {prove.stdout}{prove.stderr}\n{daemon_log()}")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as r:
            return r.read().decode()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        shutil.rmtree(work, ignore_errors=True)


def check_names(daemon, client, rules_path, dashboard_path):
    used = {}
    with open(dashboard_path) as f:
        dash = json.load(f)
    sources = [(f"{rules_path}: {name}", expr) for name, expr in rule_exprs(rules_path)]
    sources += [(f"{dashboard_path}: {where}", expr) for where, expr in dashboard_exprs(dash)]
    for where, expr in sources:
        for name in promql_metric_names(expr):
            used.setdefault(name, []).append(where)
    if not used:
        return ["no metric names found in the expressions (the extraction is broken)"]
    families = exported_families(scrape_running_daemon(daemon, client))
    missing = missing_names(used, families)
    errors = [f"{name} is not exported by cuzk-daemon's /metrics; used in: {'; '.join(w)}"
              for name, w in missing.items()]
    if not errors:
        print(f"{len(used)} metric names in {len(sources)} expressions, all exported "
              f"({len(families)} families in /metrics)")
    return errors


# --- self-test ---------------------------------------------------------------------------------


def self_test():
    cases = {
        'up{job="cuzk"} == 0': {"up"},
        'sum by (kind, state) (cuzk_kind_jobs{instance=~"$instance"})': {"cuzk_kind_jobs"},
        "increase(a_count[1h]) - ignoring(le) increase(a_bucket{le=\"5\",kind=\"x\"}[1h]) > 0": {"a_count", "a_bucket"},
        "histogram_quantile(0.99, sum by (instance, le) (rate(h_bucket[$__rate_interval])))": {"h_bucket"},
        "rate(b[5m]) < 0.1 and on (instance, job) min_over_time(q[5m:1m]) > 0": {"b", "q"},
        "x / (y > 0) > 0.9 unless z offset 1h or bool_metric": {"x", "y", "z", "bool_metric"},
        'count without (le) (m{a="sum(by)", b=\'{x}\'}) * 1e9 + 0x10 - .5': {"m"},
        "topk(3, sum without(job)(rate(c_total[${__range}])))": {"c_total"},
        "avg(max_over_time(g[1h])) * on(instance) group_left(name) info_metric": {"g", "info_metric"},
        "sum(rate(rpc{code!=\"OK\"}[5m])) by (method)": {"rpc"},
        "vector(1) + scalar(s) + time()": {"s"},
        "ns:metric:rate5m": {"ns:metric:rate5m"},
    }
    failures = []
    for expr, want in cases.items():
        got = promql_metric_names(expr)
        if got != want:
            failures.append(f"{expr!r}: got {sorted(got)}, want {sorted(want)}")
    for query, want in {"label_values(cuzk_info, instance)": "cuzk_info",
                        "label_values(instance)": None,
                        "query_result(topk(1, x))": "topk(1, x)",
                        "metrics(cuzk_.*)": None}.items():
        got = template_query_expr({"query": query})
        if got != want:
            failures.append(f"template query {query!r}: got {got!r}, want {want!r}")
    families = {"h": "histogram", "c_total": "counter", "g": "gauge"}
    got = missing_names({n: ["x"] for n in ("h_bucket", "h_sum", "c_total", "g_count", "up", "nope")}, families)
    if sorted(got) != ["g_count", "nope"]:
        failures.append(f"missing_names: got {sorted(got)}, want ['g_count', 'nope']")
    if exported_families("# HELP a_total x\n# TYPE a_total counter\na_total 1\n# TYPE h histogram\n") != {
            "a_total": "counter", "h": "histogram"}:
        failures.append("exported_families does not read # TYPE lines")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("structure")
    s.add_argument("rules")
    s.add_argument("tests")
    s.add_argument("dashboard")
    n = sub.add_parser("names")
    n.add_argument("--daemon", required=True)
    n.add_argument("--client", required=True)
    n.add_argument("rules")
    n.add_argument("dashboard")
    sub.add_parser("self-test")
    a = ap.parse_args()
    if a.command == "structure":
        errors = check_structure(a.rules, a.tests, a.dashboard)
    elif a.command == "names":
        for program in (a.daemon, a.client):
            if not os.access(program, os.X_OK):
                print(f"{program} is not an executable program (build cuzk first)", file=sys.stderr)
                return 1
        errors = check_names(a.daemon, a.client, a.rules, a.dashboard)
    else:
        errors = self_test()
    for e in errors:
        print("FAIL: " + e, file=sys.stderr)
    if not errors:
        print(f"{a.command}: OK")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
