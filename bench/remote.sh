#!/usr/bin/env bash
# The remote cache and shards on the shared corpus (docs/team.md):
#
#   bash bench/remote.sh KILN REPO CORPUS SCRATCH [RUNS]
#
#   cold         a cold cook, no remote cache (-j2)
#   cold+upload  a cold cook that uploads everything to nginx
#   local no-op  a second build of the cold cook's output (the local cache)
#   remote nginx an empty machine (empty output, no local cache) with a warm
#                nginx WebDAV cache: everything comes from the server
#   remote redis the same with Redis
#   shards       each of N shards alone at -j2 (what one machine of N does),
#                then the final build that assembles; and N shards as
#                processes at once on this machine against one -jN build
#
# The servers are started here on loopback ports in SCRATCH (the tests'
# helpers) and stopped at the end. Each timing is the median of RUNS (3)
# whole-process runs, except the cold cooks (one run each: they take the
# longest and vary least). The corpus holds invalid files, so every build
# of it exits 1 by design; that is not an error here.
set -euo pipefail
kiln=$1 repo=$2 corpus=$3 scratch=$4 runs=${5:-3}
source "$repo/tests/support/nginx_dav.sh"
source "$repo/tests/support/redis_server.sh"
work="$scratch/remote"
rm -rf "$work"
mkdir -p "$work"
stop() {
    nginx_dav_stop "$work/nginx" >/dev/null 2>&1 || true
    redis_server_stop "$work/redis" >/dev/null 2>&1 || true
}
trap stop EXIT
nginx_dav_available || { echo "remote: skipped: nginx is not installed"; exit 0; }
redis_server_available || { echo "remote: skipped: redis-server is not installed"; exit 0; }
[ -d "$corpus" ] || { echo "remote: skipped: no corpus at $corpus"; exit 0; }
nginx_dav_start "$work/nginx" >/dev/null
redis_server_start "$work/redis" >/dev/null
redis-cli -p "$REDIS_PORT" config set maxmemory 0 >/dev/null

# seconds COMMAND...: the wall time of one run, the command's output dropped.
seconds() {
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || true
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
build() { "$kiln" build -i "$corpus" -j2 "$@"; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
cold=$(seconds build -o "$work/cold" --no-remote-cache)
cold_up=$(seconds build -o "$work/cold-up" --remote-cache "$NGINX_URL")
seconds build -o "$work/cold-redis" --remote-cache "$REDIS_URL" >/dev/null
noop=$(for _ in $(seq "$runs"); do seconds build -o "$work/cold" --no-remote-cache; done | median)
# Each empty machine writes into a folder of its own: a folder deleted just
# before would cost ext4 a scan of its recently deleted inodes per file made.
from_nginx=$(for i in $(seq "$runs"); do
    seconds build -o "$work/desk-nginx$i" --remote-cache "$NGINX_URL"
done | median)
from_redis=$(for i in $(seq "$runs"); do
    seconds build -o "$work/desk-redis$i" --remote-cache "$REDIS_URL"
done | median)
same=no
diff -r -x .kiln-cache "$work/cold" "$work/desk-nginx1" >/dev/null &&
    diff -r -x .kiln-cache "$work/cold" "$work/desk-redis1" >/dev/null && same=yes
down=$(build -o "$work/desk-json" --remote-cache "$NGINX_URL" --json 2>/dev/null | jq .remote.bytes_down || true)

echo
echo "| build of the corpus (-j2) | wall s | vs cold | vs local no-op |"
echo "|---|---|---|---|"
echo "| cold cook | $cold | 1.0 | |"
echo "| cold cook, uploading to nginx | $cold_up | $(ratio "$cold_up" "$cold") | |"
echo "| local no-op | $noop | | 1.0 |"
echo "| empty machine, warm nginx | $from_nginx | 1/$(ratio "$cold" "$from_nginx") | $(ratio "$from_nginx" "$noop") |"
echo "| empty machine, warm Redis | $from_redis | 1/$(ratio "$cold" "$from_redis") | $(ratio "$from_redis" "$noop") |"
echo
echo "downloaded from nginx: $((down / 1000000)) MB; trees equal to the cold cook's: $same"

# Shards: a fresh cache per experiment (a Redis database each).
shards=4
echo
echo "| $shards shards | wall s |"
echo "|---|---|"
slowest=0
for i in $(seq 0 $((shards - 1))); do
    t=$(seconds build -o "$work/shard$i" --shard "$i/$shards" --remote-cache "$REDIS_URL/1")
    echo "| shard $i/$shards alone, -j2 | $t |"
    slowest=$(awk -v a="$slowest" -v b="$t" 'BEGIN { print (b > a) ? b : a }')
done
final=$(seconds build -o "$work/final" --remote-cache "$REDIS_URL/1")
echo "| final build, assembling from Redis | $final |"
estimate=$(awk -v a="$slowest" -v b="$final" 'BEGIN { printf "%.3f", a + b }')
echo "| estimate for $shards machines: slowest shard + final | $estimate ($(ratio "$cold" "$estimate")x faster than one machine's cold cook) |"

start=$(date +%s.%N)
for i in 0 1; do
    "$kiln" build -i "$corpus" -j1 -o "$work/proc$i" --shard "$i/2" --remote-cache "$REDIS_URL/3" >/dev/null 2>&1 &
done
wait || true
procs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
echo
echo "2 shards as processes at -j1 at once: $procs s; one -j2 build: $cold s (ratio $(ratio "$procs" "$cold"))"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
