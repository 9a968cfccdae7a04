# nginx_dav.sh — an nginx WebDAV server on a loopback port for the remote
# cache tests; source it, then:
#
#   nginx_dav_available || { echo "skipped: nginx is not installed"; exit 0; }
#   nginx_dav_start DIR [TOKEN]   # exports NGINX_PORT and NGINX_URL
#   ...                           # $NGINX_URL/<key>: GET, HEAD, PUT, DELETE
#   nginx_dav_stop DIR
#
# Everything the server writes stays in DIR (configuration, pid file, logs,
# request bodies, the stored entries under DIR/www), so a test never touches
# /etc/nginx, /var/log/nginx or /var/lib/nginx, nor a system service.
#
#   /cache/  WebDAV PUT/DELETE, GET and HEAD; with TOKEN, only requests with
#            "Authorization: Bearer TOKEN" (anything else: 401)
#   /fail/   always 503
#   /moved/  a 302 from /moved/X to /cache/X (a client must not follow it)
#   /slow/   /slow/big is 1 MiB sent at 4 KiB/s (a server that stalls mid-body)
#
# Where openssl is installed, the same /cache/ is also served over HTTPS with a
# self-signed certificate for 127.0.0.1 (exports NGINX_TLS_PORT, NGINX_TLS_URL
# and NGINX_TLS_CA, the certificate, which is its own CA; DIR/tls_port).
#
# The access log (DIR/logs/access.log) names, per request, the Basic-auth
# user (or -), the request line, the status and the connection's number and
# its request count (conn=N req=M), so a test can check credentials were sent
# and connections were kept alive.

# Where nginx is, in NGINX_BIN; 1 when it is not installed.
nginx_dav_available() {
    NGINX_BIN=$(PATH="$PATH:/usr/sbin:/usr/local/sbin" command -v nginx) || return 1
    [ -x "$NGINX_BIN" ]
}

_nginx_dav_free_port() {
    python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

_nginx_dav_config() { # DIR PORT TOKEN [TLS_PORT]
    local dir=$1 port=$2 token=$3 tls_port=${4:-}
    {
        # A root master's workers would run as nobody and could not write DIR.
        [ "$(id -u)" = 0 ] && echo "user root;"
        cat <<EOF
daemon on;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/logs/error.log;
events { worker_connections 256; }
http {
    log_format kiln '\$remote_addr \$remote_user "\$request" \$status \$body_bytes_sent conn=\$connection req=\$connection_requests';
    access_log $dir/logs/access.log kiln;
    client_body_temp_path $dir/tmp/body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$port;
        root $dir/www;
        location /cache/ {
            dav_methods PUT DELETE;
            create_full_put_path on;
            client_max_body_size 0;
EOF
        [ -n "$token" ] && cat <<EOF
            if (\$http_authorization != "Bearer $token") { return 401; }
EOF
        cat <<EOF
        }
        location /fail/ { return 503; }
        location /moved/ { rewrite ^/moved/(.*)\$ http://127.0.0.1:$port/cache/\$1 redirect; }
        location /slow/ { limit_rate 4k; }
    }
EOF
        [ -n "$tls_port" ] && cat <<EOF
    server {
        listen 127.0.0.1:$tls_port ssl;
        ssl_certificate $dir/tls/cert.pem;
        ssl_certificate_key $dir/tls/key.pem;
        root $dir/www;
        location /cache/ {
            dav_methods PUT DELETE;
            create_full_put_path on;
            client_max_body_size 0;
        }
    }
EOF
        echo "}"
    } >"$dir/nginx.conf"
}

# Starts the server for DIR (stopping one a previous run left there first);
# 1 with the error log's tail on stderr when it does not start.
nginx_dav_start() {
    local dir=$1 token=${2:-}
    if [ -z "$dir" ]; then
        echo "nginx_dav_start: no folder given" >&2
        return 1
    fi
    # The token goes into a quoted nginx string: no quote, '$' or '\'.
    case $token in *[!A-Za-z0-9._~+/=-]*)
        echo "nginx_dav_start: the token may hold only [A-Za-z0-9._~+/=-]" >&2
        return 1 ;;
    esac
    nginx_dav_available || { echo "nginx_dav_start: nginx is not installed" >&2; return 1; }
    mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || return 1
    nginx_dav_stop "$dir"
    mkdir -p "$dir/www/cache" "$dir/www/slow" "$dir/logs" "$dir/tmp" || return 1
    head -c 1048576 /dev/zero >"$dir/www/slow/big" || return 1

    # HTTPS beside HTTP when openssl can make a certificate: a self-signed
    # one for 127.0.0.1, which is its own CA (NGINX_TLS_CA).
    local tls_port=""
    if command -v openssl >/dev/null 2>&1; then
        mkdir -p "$dir/tls"
        [ -s "$dir/tls/cert.pem" ] || openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
            -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
            -keyout "$dir/tls/key.pem" -out "$dir/tls/cert.pem" >/dev/null 2>&1 || rm -f "$dir/tls/cert.pem"
        [ -s "$dir/tls/cert.pem" ] && tls_port=$(_nginx_dav_free_port)
    fi

    local port
    for _ in 1 2 3 4 5; do
        port=$(_nginx_dav_free_port) || return 1
        _nginx_dav_config "$dir" "$port" "$token" "$tls_port" || return 1
        # Another process may take the port between the probe and nginx's
        # bind: then nginx gives up (after its own retries, 2.5 s) and
        # another port is tried.
        if "$NGINX_BIN" -p "$dir" -c "$dir/nginx.conf" -e "$dir/logs/error.log" \
            </dev/null >>"$dir/logs/stderr.log" 2>&1; then
            break
        fi
        port=
        grep -q "Address already in use" "$dir/logs/error.log" 2>/dev/null || break
    done
    if [ -z "$port" ]; then
        echo "nginx_dav_start: nginx did not start; $dir/logs/error.log ends with:" >&2
        tail -n 5 "$dir/logs/error.log" "$dir/logs/stderr.log" >&2 2>/dev/null
        return 1
    fi

    # Up when the daemon wrote its pid and the port takes connections (5 s).
    for _ in $(seq 50); do
        if [ -s "$dir/nginx.pid" ] && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            export NGINX_PORT=$port
            export NGINX_URL="http://127.0.0.1:$port/cache"
            if [ -n "$tls_port" ]; then
                export NGINX_TLS_PORT=$tls_port
                export NGINX_TLS_URL="https://127.0.0.1:$tls_port/cache"
                export NGINX_TLS_CA="$dir/tls/cert.pem"
                echo "$tls_port" >"$dir/tls_port"
            fi
            return 0
        fi
        sleep 0.1
    done
    echo "nginx_dav_start: nginx on port $port did not answer within 5 s; error log:" >&2
    tail -n 5 "$dir/logs/error.log" >&2 2>/dev/null
    nginx_dav_stop "$dir"
    return 1
}

# Stops the server of DIR, if one runs (5 s, then SIGKILL); 0 when none is left.
nginx_dav_stop() {
    local dir=$1 pid
    [ -s "$dir/nginx.pid" ] || return 0
    pid=$(cat "$dir/nginx.pid")
    # Only an nginx: the pid file may be stale and its number reused.
    case $(cat "/proc/$pid/comm" 2>/dev/null) in
    nginx*) ;;
    *) rm -f "$dir/nginx.pid"; return 0 ;;
    esac
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        # Its workers by their pids first: once the master is gone they are
        # no longer its children.
        kill -KILL $(pgrep -P "$pid" 2>/dev/null) "$pid" 2>/dev/null
    fi
    rm -f "$dir/nginx.pid"
    return 0
}
