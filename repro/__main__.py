"""Worker-side CLI: ``python -m repro run --record FILE_OR_- --platform P``.

Prints the run report as JSON on stdout. Exit codes:
  0  the harness ran to completion (the scenario outcomes are in the report)
  2  usage error, unreadable record, or no harness applies to the record
  3  ENV_MISSING: the harness environment is not built (the message names the command)
  4  HARNESS_ERROR: the harness crashed or wrote something that is not a JSON object
  5  TIMEOUT: the harness ran past --timeout and its process group was killed
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from repro.harnesses import HARNESSES, harness_for
from repro.runner import COMPLETED, ENV_MISSING, HARNESS_ERROR, TIMEOUT, run_harness

EXIT_CODES = {COMPLETED: 0, ENV_MISSING: 3, HARNESS_ERROR: 4, TIMEOUT: 5}
PLATFORMS = ("blackwell", "hopper", "ampere", "mi300", "cpu", "real")


def load_record(source: str, record_id: str | None = None) -> dict[str, Any]:
    """A record from a JSON file (bare or ``{"record": ...}`` envelope), a JSONL file
    (the line with ``record_id``, else the first), or ``-`` for stdin."""
    text = sys.stdin.read() if source == "-" else Path(source).read_text()
    text = text.strip()
    try:
        docs = [json.loads(text)]
    except json.JSONDecodeError:
        docs = [json.loads(line) for line in text.splitlines() if line.strip()]
    records = [d.get("record", d) for d in docs]
    if record_id is not None:
        records = [r for r in records if str(r.get("id")) == record_id]
    if not records:
        raise ValueError(f"no record {record_id!r} in {source}")
    return records[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m repro",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run the record's harness and print the report")
    run.add_argument("--record", required=True, help="record file (.json/.jsonl) or - for stdin")
    run.add_argument("--record-id", help="pick this id from a .jsonl file")
    run.add_argument("--platform", choices=PLATFORMS, default="blackwell")
    run.add_argument("--repeats", type=int, default=3, help="runs per scenario (flakiness)")
    run.add_argument("--timeout", type=float, default=600.0, help="whole-run limit, seconds")
    run.add_argument("--scenario-timeout", type=float, default=60.0, help="per-repeat limit")
    run.add_argument("--memory-gb", type=float, default=16.0, help="address-space cap, GiB")
    run.add_argument("--harness", choices=sorted(HARNESSES), help="override harness choice")
    args = parser.parse_args(argv)

    try:
        record = load_record(args.record, args.record_id)
    except (OSError, ValueError) as exc:
        print(f"error: cannot read record: {exc}", file=sys.stderr)
        return 2
    info = HARNESSES[args.harness] if args.harness else harness_for(record)
    if info is None:
        print(f"error: no harness applies to record {record.get('id')!r}", file=sys.stderr)
        return 2
    payload = {
        "record": record,
        "options": {
            "platform": args.platform,
            "repeats": args.repeats,
            "scenario_timeout_s": args.scenario_timeout,
        },
    }
    report = run_harness(
        info.name,
        info.env,
        payload,
        timeout_s=args.timeout,
        memory_bytes=int(args.memory_gb * 1024**3),
    )
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    if report["outcome"] != COMPLETED:
        print(f"{report['outcome']}: {report['message']}", file=sys.stderr)
    return EXIT_CODES.get(report["outcome"], 4)


if __name__ == "__main__":
    raise SystemExit(main())
