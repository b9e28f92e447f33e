#!/bin/sh
# ipsync beside DiffSync 2.2 on the same JSON-lines file: the whole plan
# step's benchmark data (benchdata.Resolved) at N objects a side, loaded
# into two adapters and diffed by DiffSync, read and planned by ipsync.
# Both report the CPU seconds they spent; see BENCHMARKS.md.
#
#   bench/diffsync/run.sh [N]        (default 100000)
#
# The venv lives in bench/diffsync/.venv and the file in
# bench/diffsync/.data (both ignored by git; the file is 420 MB at 1M);
# PYTHON picks the interpreter that creates the venv (python3 by default).
set -eu
n=${1:-100000}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=$here/.venv
if [ ! -x "$venv/bin/python" ]; then
	"${PYTHON:-python3}" -m venv "$venv"
	"$venv/bin/pip" install --quiet -r "$here/requirements.txt"
fi
mkdir -p "$here/.data"
data=$here/.data/objects-$n.jsonl
cd "$root"
go build -o "$here/.venv/ipsync-bench" ./bench/diffsync
"$here/.venv/ipsync-bench" -n "$n" -write "$data"
peer=$("$venv/bin/python" "$here/diffsync_bench.py" "$data")
printf '%s\n' "$peer"
"$here/.venv/ipsync-bench" -read "$data" -beside "$(printf '%s\n' "$peer" | sed -n 's/^total_cpu_s=//p')"
