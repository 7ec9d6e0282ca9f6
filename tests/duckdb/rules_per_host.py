"""`hindsight scan --format jsonl` loaded into DuckDB: which rules fired
most, per host, answered in SQL and checked against the same count made
by reading the JSON lines in plain Python.

    python3 tests/duckdb/rules_per_host.py HINDSIGHT_BINARY FOLDER

A finding's host is its server's (`report.servers[finding.server].host`);
a finding about no server, or a server on the local machine, counts under
`local`. Exits non-zero when the two answers differ or the scan is empty.
"""

import collections
import json
import subprocess
import sys
import tempfile

import duckdb

QUERY = """
WITH records AS (
    SELECT json AS record FROM read_ndjson_objects(?)
),
findings AS (
    SELECT record, unnest(json_extract(record, '$.report.findings[*]')) AS finding
    FROM records
)
SELECT
    coalesce(
        json_extract_string(
            record,
            '$.report.servers[' || json_extract(finding, '$.server')::INTEGER || '].host'
        ),
        'local'
    ) AS host,
    json_extract_string(finding, '$.rule') AS rule,
    count(*) AS fired
FROM findings
GROUP BY ALL
ORDER BY host, fired DESC, rule
"""


def by_hand(path):
    counts = collections.Counter()
    with open(path) as lines:
        for line in lines:
            report = json.loads(line)["report"]
            for finding in report["findings"]:
                server = finding.get("server")
                host = None
                if server is not None:
                    host = report["servers"][server].get("host")
                counts[(host or "local", finding["rule"])] += 1
    return sorted(((h, r, n) for (h, r), n in counts.items()), key=lambda t: (t[0], -t[2], t[1]))


def main():
    binary, folder = sys.argv[1], sys.argv[2]
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as out:
        # Exit 1 means "findings": the scan worked.
        status = subprocess.run([binary, "scan", "--format", "jsonl", folder], stdout=out).returncode
    if status not in (0, 1):
        sys.exit(f"scan failed with exit status {status}")
    rows = duckdb.execute(QUERY, [out.name]).fetchall()
    expected = by_hand(out.name)
    if not expected:
        sys.exit("the scan found no findings: nothing was tested")
    if [tuple(r) for r in rows] != [tuple(e) for e in expected]:
        print("duckdb:", rows[:10], file=sys.stderr)
        print("python:", expected[:10], file=sys.stderr)
        sys.exit("DuckDB's answer differs from the JSON lines")
    hosts = collections.OrderedDict()
    for host, rule, fired in rows:
        hosts.setdefault(host, []).append(f"{rule} {fired}")
    print(f"{len(rows)} (host, rule) rows over {len(hosts)} hosts; most fired per host:")
    for host, rules in hosts.items():
        print(f"  {host}: {', '.join(rules[:3])}")


if __name__ == "__main__":
    main()
