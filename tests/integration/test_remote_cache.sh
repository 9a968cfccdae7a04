#!/usr/bin/env bash
# The remote cache against real servers, started here on loopback ports in the
# scratch folder (no system service): nginx with WebDAV, run with
# examples/team/nginx-kiln-cache.conf, and Redis without persistence.
#
#   - a cold machine fills the cache; an empty machine (empty output, empty
#     local cache) cooks nothing and writes the same tree and pack, byte for
#     byte, with nginx and with Redis;
#   - read-only never uploads; a wrong or missing token is refused by the
#     server, the build cooks locally with one warning; no token is printed
#     or written anywhere;
#   - a closed port, a 5xx, a server killed mid-build, damaged entries on the
#     server, Redis answering garbage: a warning, a correct tree, exit 0;
#   - four shards as processes, and as a Slurm array job on a one-node cluster
#     started here (examples/slurm/cook-shards.sbatch), then the final build:
#     cooked 0, tree and pack equal to a one-machine build; a missing shard's
#     assets are cooked by the final build, with a note.
set -euo pipefail
source "$(dirname "$0")/harness.sh" test_remote_cache
: "${KILN_REPO:?set KILN_REPO to the repository}"
source "$KILN_REPO/tests/support/nginx_dav.sh"
source "$KILN_REPO/tests/support/redis_server.sh"
source "$KILN_REPO/tests/support/slurm_cluster.sh"
# Run inside a Slurm job, the test would hand that job's settings to sbatch.
unset "${!SLURM_@}" "${!SBATCH_@}"

READ_TOKEN=desk-token-4c1d9e
WRITE_TOKEN=ci-token-77ab02f
servers_up=()
stop_servers() {
    local s
    for s in "${servers_up[@]}"; do
        case $s in
        nginx:*) nginx_stop "${s#nginx:}" ;;
        redis:*) redis_server_stop "${s#redis:}" >/dev/null 2>&1 || true ;;
        dav:*) nginx_dav_stop "${s#dav:}" ;;
        slurm:*) slurm_cluster_stop "${s#slurm:}" >/dev/null 2>&1 || true; rm -rf "${s#slurm:}" ;;
        esac
    done
}
trap stop_servers EXIT

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# nginx with the example configuration, rendered for DIR and a free port:
# sets NGINX_CACHE (the URL kiln is given) and NGINX_ROOT (where entries land).
nginx_start() {
    local dir=$1 port
    mkdir -p "$dir/www" "$dir/logs"
    dir=$(cd "$dir" && pwd)
    port=$(free_port)
    {
        [ "$(id -u)" = 0 ] && echo "user root;"
        sed -e "s|listen 8080;|listen 127.0.0.1:$port;|" \
            -e "s|/srv/kiln-cache|$dir/www|g" \
            -e "s|/run/nginx-kiln-cache.pid|$dir/nginx.pid|" \
            -e "s|/var/log/nginx/|$dir/logs/|g" \
            -e "s|CHANGE-ME-READ|$READ_TOKEN|" -e "s|CHANGE-ME-WRITE|$WRITE_TOKEN|" \
            "$KILN_REPO/examples/team/nginx-kiln-cache.conf"
    } >"$dir/nginx.conf"
    "$NGINX_BIN" -p "$dir" -c "$dir/nginx.conf" -e "$dir/logs/error.log" >"$dir/logs/stderr" 2>&1 || {
        cat "$dir/logs/stderr" "$dir/logs/error.log" >&2
        return 1
    }
    for _ in $(seq 50); do
        [ -s "$dir/nginx.pid" ] && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
        sleep 0.1
    done
    servers_up+=("nginx:$dir")
    NGINX_CACHE="http://127.0.0.1:$port/kiln"
    NGINX_ROOT="$dir/www"
}

nginx_stop() {
    local pid
    pid=$(cat "$1/nginx.pid" 2>/dev/null) || return 0
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
}

# The JSON report of the last run: `json FIELD` prints .FIELD.
json() { jq -r "$1" "$SCRATCH/stdout"; }
same_tree() { diff -r -x .kiln-cache -x .kiln-lock "$1" "$2" >/dev/null; }
count_files() { find "$1" -type f | wc -l; }
# How many lines of the last run's stderr mention the remote cache as a warning.
remote_warnings() { grep -c "warning: remote cache" "$SCRATCH/stderr" || true; }

project="$SCRATCH/project"
mkdir -p "$project"
cp -r "$KILN_REPO/examples/assets" "$KILN_REPO/examples/kiln.yml" "$project/"
assets=$(cd "$project" && "$KILN" build -n --json -o "$SCRATCH/probe" | jq .would_cook)

# The reference: one machine, no remote cache.
run_in "$project" build -o "$SCRATCH/one" --pack --no-remote-cache -q
check "a one-machine build cooks the $assets assets" status_is 0

# libcurl and hiredis are loaded only for a remote cache of their kind; one
# that cannot be loaded is a warning per server, and the build goes on.
check "kiln links neither libcurl nor hiredis" \
    all_true '! ldd "$KILN" | grep -q libcurl' '! ldd "$KILN" | grep -q libhiredis'
mkdir -p "$SCRATCH/no-libraries"
RUN_ENV="KILN_TEST_LIBRARY_DIR=$SCRATCH/no-libraries"
run_in "$project" build -o "$SCRATCH/no-client" --remote-cache "http://127.0.0.1:1/kiln,redis://127.0.0.1:1" --json
check "libcurl and hiredis missing: one warning each naming it, everything cooked, exit 0" \
    all_true 'status_is 0' '[ "$(remote_warnings)" = 2 ]' 'stderr_has "no-libraries/libcurl.so"' \
    'stderr_has "no-libraries/libhiredis.so"' 'stderr_has "cannot open shared object file"' \
    '[ "$(json .cooked)" = "$assets" ]' 'same_tree "$SCRATCH/one" "$SCRATCH/no-client"'
RUN_ENV=""

if ! nginx_dav_available; then
    echo "test_remote_cache: skipped: nginx is not installed (make test installs it)"
else
    nginx_start "$SCRATCH/nginx"
    RUN_ENV="KILN_REMOTE_CACHE_TOKEN=$WRITE_TOKEN"
    run_in "$project" build -o "$SCRATCH/ci" --pack --remote-cache "$NGINX_CACHE" --json
    check "nginx: a cold machine cooks everything and uploads it" \
        all_true 'status_is 0' '[ "$(json .cooked)" = "$assets" ]' \
        '[ "$(json .remote.uploads)" = "$assets" ]' '[ "$(json .remote.errors)" = 0 ]' \
        '[ "$(json .remote.bytes_up)" -gt 0 ]'
    RUN_ENV="KILN_REMOTE_CACHE_TOKEN=$READ_TOKEN KILN_REMOTE_CACHE_MODE=read-only"
    run_in "$project" build -o "$SCRATCH/desk" --pack --remote-cache "$NGINX_CACHE" --json
    check "nginx: an empty machine cooks nothing" \
        all_true 'status_is 0' '[ "$(json .cooked)" = 0 ]' '[ "$(json .remote.hits)" = "$assets" ]' \
        '[ "$(json .remote.uploads)" = 0 ]' '[ "$(json .remote.bytes_down)" -gt 0 ]'
    check "nginx: its tree equals a one-machine build, byte for byte" same_tree "$SCRATCH/one" "$SCRATCH/desk"
    check "nginx: its pack too" cmp -s "$SCRATCH/one.kpak" "$SCRATCH/desk.kpak"
    run_in "$project" build -o "$SCRATCH/desk" --remote-cache "$NGINX_CACHE" --json
    check "nginx: the next build is a local no-op" \
        all_true 'status_is 0' '[ "$(json .remote.hits)" = 0 ]' '[ "$(json .remote.misses)" = 0 ]'

    # A desk changes a texture: read-only, it cooks and uploads nothing.
    stored=$(count_files "$NGINX_ROOT")
    cp -r "$project" "$SCRATCH/edited"
    printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' >"$SCRATCH/edited/assets/props/new.obj"
    run_in "$SCRATCH/edited" build -o "$SCRATCH/desk2" --remote-cache "$NGINX_CACHE" --json
    check "read-only: the new asset is cooked and not uploaded" \
        all_true 'status_is 0' '[ "$(json .cooked)" = 1 ]' '[ "$(json .remote.uploads)" = 0 ]' \
        '[ "$(count_files "$NGINX_ROOT")" = "$stored" ]'
    RUN_ENV="KILN_REMOTE_CACHE_TOKEN=$READ_TOKEN"
    run_in "$SCRATCH/edited" build -o "$SCRATCH/desk3" --remote-cache "$NGINX_CACHE"
    check "a read token that tries to write: refused (403), one warning, built locally" \
        all_true 'status_is 0' '[ "$(remote_warnings)" = 1 ]' 'stderr_has "HTTP 403"' \
        '[ "$(count_files "$NGINX_ROOT")" = "$stored" ]'

    for token in wrong-token ""; do
        RUN_ENV="KILN_REMOTE_CACHE_TOKEN=$token"
        rm -rf "$SCRATCH/refused"
        run_in "$project" build -o "$SCRATCH/refused" --remote-cache "$NGINX_CACHE" --json
        check "token '${token:-none}': refused, one warning, everything cooked, exit 0" \
            all_true 'status_is 0' '[ "$(remote_warnings)" = 1 ]' 'stderr_has "HTTP 401"' \
            '[ "$(json .cooked)" = "$assets" ]' '[ "$(json .remote.hits)" = 0 ]' \
            'same_tree "$SCRATCH/one" "$SCRATCH/refused"'
    done

    # A token file (a CI secret) works as the variable does.
    printf '%s\n' "$WRITE_TOKEN" >"$SCRATCH/token"
    RUN_ENV="KILN_REMOTE_CACHE_TOKEN_FILE=$SCRATCH/token"
    run_in "$project" build -o "$SCRATCH/from-file" --remote-cache "$NGINX_CACHE" --json
    check "a token file is read" all_true 'status_is 0' '[ "$(json .remote.hits)" = "$assets" ]'

    check "no token appears in any output, cache, journal or report" \
        bash -c "! grep -rqaF -e '$READ_TOKEN' -e '$WRITE_TOKEN' '$SCRATCH' --exclude-dir=nginx --exclude=token"

    # A closed port and a 5xx: one warning each, a correct tree.
    RUN_ENV=""
    closed="http://127.0.0.1:$(free_port)/kiln"
    rm -rf "$SCRATCH/closed"
    run_in "$project" build -o "$SCRATCH/closed" --remote-cache "$closed" --json
    check "a closed port: one warning, a correct tree, exit 0" \
        all_true 'status_is 0' '[ "$(remote_warnings)" = 1 ]' 'same_tree "$SCRATCH/one" "$SCRATCH/closed"' \
        '[ "$(json .remote.errors)" -ge 1 ]'
    nginx_dav_start "$SCRATCH/nginx-dav" >/dev/null
    servers_up+=("dav:$SCRATCH/nginx-dav")
    fail_url="http://127.0.0.1:$NGINX_PORT/fail"
    rm -rf "$SCRATCH/5xx"
    run_in "$project" build -o "$SCRATCH/5xx" --remote-cache "$fail_url" --json
    check "a server answering 503: one warning, a correct tree, exit 0" \
        all_true 'status_is 0' '[ "$(remote_warnings)" = 1 ]' 'stderr_has "503"' \
        'same_tree "$SCRATCH/one" "$SCRATCH/5xx"'
    # Two servers: the dead one first, then nginx: the hits still come.
    RUN_ENV="KILN_REMOTE_CACHE_TOKEN=$READ_TOKEN"
    rm -rf "$SCRATCH/second"
    run_in "$project" build -o "$SCRATCH/second" --remote-cache "$closed,$NGINX_CACHE" --json
    check "a dead first server: one warning, the second one serves" \
        all_true 'status_is 0' '[ "$(remote_warnings)" = 1 ]' '[ "$(json .remote.hits)" = "$assets" ]' \
        'same_tree "$SCRATCH/one" "$SCRATCH/second"'

    # Damaged entries on the server: every entry file bit-flipped, then cut short.
    for damage in flip cut; do
        while IFS= read -r entry; do
            size=$(stat -c %s "$entry")
            if [ "$damage" = flip ]; then
                python3 -c 'import sys; p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[len(b) // 2] ^= 0x10; open(p, "wb").write(b)' "$entry"
            else
                truncate -s $((size / 2)) "$entry"
            fi
        done < <(find "$NGINX_ROOT" -path '*/kiln/1/e/*' -type f)
        rm -rf "$SCRATCH/damaged"
        run_in "$project" build -o "$SCRATCH/damaged" --remote-cache "$NGINX_CACHE" --json
        check "entries damaged on the server ($damage): misses with warnings, a correct tree, exit 0" \
            all_true 'status_is 0' '[ "$(json .remote.hits)" = 0 ]' '[ "$(json .cooked)" = "$assets" ]' \
            'stderr_has "cannot be used"' 'same_tree "$SCRATCH/one" "$SCRATCH/damaged"'
    done

    # Shards as processes into a fresh cache, then the final build.
    nginx_stop "$SCRATCH/nginx"
    rm -rf "$SCRATCH/nginx"
    nginx_start "$SCRATCH/nginx"
    RUN_ENV="KILN_REMOTE_CACHE_TOKEN=$WRITE_TOKEN"
    for shard in 0 1 2 3; do
        run_in "$project" build -o "$SCRATCH/shard$shard" --shard "$shard/4" --remote-cache "$NGINX_CACHE" --json
        check "shard $shard/4 cooks its slice and uploads it" \
            all_true 'status_is 0' '[ "$(json .remote.uploads)" = "$(json .cooked)" ]'
        eval "cooked_$shard=\$(json .cooked)"
    done
    check "the four shards cooked every asset between them" \
        '[' $((cooked_0 + cooked_1 + cooked_2 + cooked_3)) -ge "$assets" ']'
    run_in "$project" build -o "$SCRATCH/final" --pack --remote-cache "$NGINX_CACHE" --json
    check "the final build cooks nothing" \
        all_true 'status_is 0' '[ "$(json .cooked)" = 0 ]' '[ "$(json .remote.hits)" = "$assets" ]'
    check "the final tree and pack equal a one-machine build" \
        all_true 'same_tree "$SCRATCH/one" "$SCRATCH/final"' 'cmp -s "$SCRATCH/one.kpak" "$SCRATCH/final.kpak"'

    # A shard that never ran: the final build cooks its assets and says so.
    nginx_stop "$SCRATCH/nginx"
    rm -rf "$SCRATCH/nginx"
    nginx_start "$SCRATCH/nginx"
    for shard in 0 1 2; do # new machines: what a local cache holds is not uploaded again
        run_in "$project" build -o "$SCRATCH/again$shard" --shard "$shard/4" --remote-cache "$NGINX_CACHE" -q
    done
    run_in "$project" build -o "$SCRATCH/final2" --pack --remote-cache "$NGINX_CACHE"
    check "a missing shard: the final build cooks its assets, with a note" \
        all_true 'status_is 0' 'stdout_has "did not have"' 'same_tree "$SCRATCH/one" "$SCRATCH/final2"' \
        'cmp -s "$SCRATCH/one.kpak" "$SCRATCH/final2.kpak"'

    # The same four shards as a Slurm array job (examples/slurm/cook-shards.sbatch)
    # on a one-node cluster started here, then the final build.
    if ! reason=$(slurm_cluster_available); then
        echo "test_remote_cache: the Slurm array skipped: $reason"
    else
        cluster=$(mktemp -d /tmp/kiln-slurm.XXXXXX) # its sockets need a short path
        servers_up+=("slurm:$cluster")
        slurm_cluster_start "$cluster" >"$SCRATCH/slurm.log" 2>&1
        nginx_stop "$SCRATCH/nginx"
        rm -rf "$SCRATCH/nginx"
        nginx_start "$SCRATCH/nginx"
        job=$(cd "$project" && KILN="$KILN" KILN_PROJECT="$project" KILN_REMOTE_CACHE="$NGINX_CACHE" \
            KILN_REMOTE_CACHE_TOKEN="$WRITE_TOKEN" sbatch --parsable --cpus-per-task=1 --mem=1000M \
            --output="$SCRATCH/slurm-%A_%a.out" "$KILN_REPO/examples/slurm/cook-shards.sbatch")
        check "the Slurm array's four tasks complete" slurm_wait_job "$job" 240
        run_in "$project" build -o "$SCRATCH/final-slurm" --pack --remote-cache "$NGINX_CACHE" --json
        check "after the Slurm array the final build cooks nothing, same tree and pack" \
            all_true 'status_is 0' '[ "$(json .cooked)" = 0 ]' '[ "$(json .remote.hits)" = "$assets" ]' \
            'same_tree "$SCRATCH/one" "$SCRATCH/final-slurm"' 'cmp -s "$SCRATCH/one.kpak" "$SCRATCH/final-slurm.kpak"'
        slurm_cluster_stop "$cluster" >/dev/null 2>&1 || true
        rm -rf "$cluster"
    fi

    # The server killed while a larger project builds: a warning, a correct tree.
    big="$SCRATCH/big"
    mkdir -p "$big/assets"
    cp "$project/kiln.yml" "$big/"
    for copy in $(seq 1 12); do # the models and shaders (levels name their models by path)
        mkdir -p "$big/assets/copy$copy"
        cp -r "$project/assets/props" "$project/assets/shaders" "$big/assets/copy$copy/"
    done
    run_in "$big" build -o "$SCRATCH/big-one" --no-remote-cache -q
    nginx_pid=$(cat "$SCRATCH/nginx/nginx.pid")
    # Killed (master and worker) as soon as the build has stored a few entries.
    access_log="$SCRATCH/nginx/logs/kiln-cache.access.log"
    puts_before=$(grep -c '"PUT ' "$access_log" || true)
    (
        for _ in $(seq 1000); do
            [ "$(grep -c '"PUT ' "$access_log")" -ge $((puts_before + 4)) ] && break
            sleep 0.005
        done
        kill -9 -- "-$nginx_pid" # its process group: the master and its workers
    ) >"$SCRATCH/killer.log" 2>&1 &
    killer=$!
    run_in "$big" build -o "$SCRATCH/big-killed" -j2 --remote-cache "$NGINX_CACHE" --json
    wait "$killer" || true
    check "the server killed mid-build: one warning, a correct tree, exit 0" \
        all_true 'status_is 0' '[ "$(remote_warnings)" = 1 ]' '[ "$(json .remote.uploads)" -ge 1 ]' \
        '[ "$(json .remote.uploads)" -lt "$(json .cooked)" ]' \
        'same_tree "$SCRATCH/big-one" "$SCRATCH/big-killed"'
    RUN_ENV=""
fi

if ! redis_server_available; then
    echo "test_remote_cache: skipped: redis-server is not installed (make test installs it)"
else
    redis_server_start "$SCRATCH/redis" "$WRITE_TOKEN" >/dev/null
    servers_up+=("redis:$SCRATCH/redis")
    RUN_ENV="KILN_REMOTE_CACHE_TOKEN=$WRITE_TOKEN"
    run_in "$project" build -o "$SCRATCH/redis-ci" --remote-cache "$REDIS_URL/2" --json
    check "redis: a cold machine cooks everything and uploads it" \
        all_true 'status_is 0' '[ "$(json .remote.uploads)" = "$assets" ]'
    run_in "$project" build -o "$SCRATCH/redis-desk" --pack --remote-cache "$REDIS_URL/2" --json
    check "redis: an empty machine cooks nothing, same tree and pack" \
        all_true 'status_is 0' '[ "$(json .cooked)" = 0 ]' '[ "$(json .remote.hits)" = "$assets" ]' \
        'same_tree "$SCRATCH/one" "$SCRATCH/redis-desk"' 'cmp -s "$SCRATCH/one.kpak" "$SCRATCH/redis-desk.kpak"'
    RUN_ENV="KILN_REMOTE_CACHE_TOKEN=not-the-password"
    rm -rf "$SCRATCH/redis-refused"
    run_in "$project" build -o "$SCRATCH/redis-refused" --remote-cache "$REDIS_URL/2" --json
    check "redis: a wrong password: one warning, built locally, not printed" \
        all_true 'status_is 0' '[ "$(remote_warnings)" = 1 ]' '[ "$(json .cooked)" = "$assets" ]' \
        'stderr_lacks not-the-password' 'same_tree "$SCRATCH/one" "$SCRATCH/redis-refused"'
    if [ -n "${NGINX_PORT:-}" ]; then
        # An HTTP server on the Redis URL's port answers what is not RESP.
        RUN_ENV=""
        rm -rf "$SCRATCH/garbage"
        run_in "$project" build -o "$SCRATCH/garbage" --remote-cache "redis://127.0.0.1:$NGINX_PORT" --json
        check "redis answering garbage: one warning, a correct tree, exit 0" \
            all_true 'status_is 0' '[ "$(remote_warnings)" = 1 ]' 'same_tree "$SCRATCH/one" "$SCRATCH/garbage"'
    fi
    RUN_ENV=""
fi

finish test_remote_cache
