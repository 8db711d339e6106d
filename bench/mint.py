"""Minting throughput on PostgreSQL: IBIs per second for 1, 4 and 8 processes at r = 1 and 0.01.

The grid limit is 1/r IBIs per second (Algorithm 4 never gives two items one grid point).
Usage: .venv/bin/python bench/mint.py [--seconds 8] [--database-url postgres://…/ibirepo_bench]
The database is dropped and created again, then migrated.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent

# Django is set up before the start line, so import time never eats into the window.
WORKER = """
import os, sys, time
import django
django.setup()
from archive.identifiers.minting import mint
start, deadline = float(sys.argv[1]), float(sys.argv[2])
time.sleep(max(0, start - time.time()))
count = 0
while time.time() < deadline:
    mint()
    count += 1
print(count)
"""


def recreate(url: str) -> None:
    name = url.rsplit("/", 1)[1]
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')


def run(env: dict, processes: int, seconds: float) -> float:
    start = time.time() + 5  # every process has imported Django by then
    deadline = start + seconds
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(start), str(deadline)],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
             for _ in range(processes)]
    total = sum(int(p.communicate()[0]) for p in procs)
    return total / seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--database-url",
                        default="postgres://postgres@127.0.0.1:5432/ibirepo_bench")
    args = parser.parse_args()
    recreate(args.database_url)
    env = {**os.environ, "DATABASE_URL": args.database_url, "DJANGO_SETTINGS_MODULE":
           "ibirepo.settings", "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-only-key"),
           "IBI_HOSTNAME": "bench.example.org", "IBI_IP": "192.0.2.10"}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    print(f"{'r':>6} {'procs':>5} {'IBI/s':>8} {'1/r':>6} {'of 1/r':>7}")
    for r in ("1", "0.01"):
        for processes in (1, 4, 8):
            rate = run({**env, "IBI_GRANULARITY": r}, processes, args.seconds)
            limit = 1 / Decimal(r)
            print(f"{r:>6} {processes:>5} {rate:8.1f} {limit:6} {rate / float(limit):7.1%}",
                  flush=True)


if __name__ == "__main__":
    main()
