# redis_server.sh — a throwaway Redis server for the remote cache tests:
# sourced (`source tests/support/redis_server.sh`), it starts redis-server on
# a free loopback port with everything (config, pid file, log) in a scratch
# folder, and stops it. No system service, no data saved.
#
#   redis_server_available        0 when redis-server is installed, else 1
#                                 (the caller prints "skipped: ...")
#   redis_server_start DIR [PASSWORD]
#                                 starts it (requirepass PASSWORD when given);
#                                 exports REDIS_PORT and REDIS_URL and writes
#                                 the port to DIR/port for callers that are
#                                 not this shell; 1 with the log's tail when
#                                 it does not answer within 10 seconds
#   redis_server_stop DIR         stops the one started in DIR (TERM, then KILL)

redis_server_available() {
    command -v redis-server >/dev/null 2>&1
}

# A port nothing listens on now; another program may take it before
# redis-server does, which redis_server_start retries.
redis_server_free_port() {
    python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

# redis_server_answers PORT [PASSWORD]: true when PING gets PONG.
redis_server_answers() {
    if command -v redis-cli >/dev/null 2>&1; then
        # REDISCLI_AUTH rather than -a: the password stays off the command line.
        REDISCLI_AUTH="${2:-}" timeout 2 redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null |
            grep -q PONG
    else
        # No redis-cli: any answer on the port will do.
        timeout 2 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$1 && printf "PING\r\n" >&3 &&
                           head -c 1 <&3 | grep -q .' _ "$1" 2>/dev/null
    fi
}

redis_server_start() {
    local dir=$1 password=${2:-} try port pid i
    mkdir -p "$dir" || return 1
    dir=$(cd "$dir" && pwd) || return 1
    for try in 1 2 3 4 5; do
        port=$(redis_server_free_port) || return 1
        rm -f "$dir/redis.pid" "$dir/redis.log" "$dir/port"
        {
            echo "port $port"
            echo "bind 127.0.0.1"
            echo 'save ""'
            echo "appendonly no"
            echo "dir \"$dir\""
            echo "daemonize yes"
            echo "pidfile \"$dir/redis.pid\""
            echo "logfile \"$dir/redis.log\""
            if [ -n "$password" ]; then echo "requirepass \"$password\""; fi
        } >"$dir/redis.conf"
        chmod 600 "$dir/redis.conf"
        redis-server "$dir/redis.conf" >>"$dir/redis.log" 2>&1 || break
        for i in $(seq 1 100); do
            if redis_server_answers "$port" "$password"; then
                echo "$port" >"$dir/port"
                export REDIS_PORT=$port
                export REDIS_URL="redis://127.0.0.1:$port"
                return 0
            fi
            # The port was taken between the probe and the bind: another try.
            if grep -q "Address already in use" "$dir/redis.log" 2>/dev/null; then
                break
            fi
            sleep 0.1
        done
        redis_server_stop "$dir"
        grep -q "Address already in use" "$dir/redis.log" 2>/dev/null || break
    done
    echo "redis_server_start: redis-server did not answer on port $port; its log:" >&2
    tail -n 20 "$dir/redis.log" >&2 2>/dev/null
    return 1
}

redis_server_stop() {
    local dir=$1 pid i
    [ -f "$dir/redis.pid" ] || return 0
    pid=$(cat "$dir/redis.pid" 2>/dev/null)
    rm -f "$dir/redis.pid"
    case $pid in '' | *[!0-9]*) return 0 ;; esac
    kill -TERM "$pid" 2>/dev/null || return 0
    for i in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null
    return 0
}
