/* The HTTP transport of the remote cache (src/build/remote/http.c) against a
 * real nginx with WebDAV (tests/support/nginx_dav.sh) on a loopback port:
 * entries round trip byte for byte, sizes are bounded, credentials are sent
 * and never shown, failures that may pass are retried and the others not,
 * every wait is bounded, and one transport serves many threads over kept-alive
 * connections. The labels of URLs (url.c) need no server. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_support.h"

#include "build/remote/transport.h"

#define NGINX_SCRIPT KILN_TEST_DATA_DIR "/../support/nginx_dav.sh"
#define SCRATCH KILN_TEST_BINARY_DIR "/tmp/remote_http"
#define SERVER_DIR SCRATCH "/nginx"
#define TOKEN_SERVER_DIR SCRATCH "/nginx_token"
#define TOKEN "kiln-test-token-7f3a"

static bool nginx_missing;
static int nginx_port;

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

/* Starts nginx for `dir` and returns its port; 0 when it did not start. */
static int start_nginx(const char *dir, const char *token) {
    char script[2048];
    snprintf(script, sizeof script, "nginx_dav_start \"%s\" %s && echo $NGINX_PORT >\"%s/port\"",
             dir, token != NULL ? token : "", dir);
    return test_start_server(NGINX_SCRIPT, script, dir);
}

static void stop_nginx(const char *dir) {
    char script[1024];
    snprintf(script, sizeof script, "nginx_dav_stop \"%s\"", dir);
    test_run_sourced(NGINX_SCRIPT, script);
}

static char *server_url(int port, const char *userinfo, const char *path) {
    char *url = malloc(512);
    assert_non_null(url);
    snprintf(url, 512, "http://%s127.0.0.1:%d%s", userinfo, port, path);
    return url;
}

static void open_http(remote_transport *transport, const char *url, const remote_options *options) {
    char reason[256];
    if (!remote_http_open(transport, url, options, reason, sizeof reason))
        fail_msg("remote_http_open: %s", reason);
}

static int count_log_lines(const char *dir, const char *needle, const char *also) {
    char *path = test_path_join(dir, "logs/access.log");
    FILE *log = fopen(path, "r");
    free(path);
    assert_non_null(log);
    int count = 0;
    char line[1024];
    while (fgets(line, sizeof line, log) != NULL)
        count += strstr(line, needle) != NULL && (also == NULL || strstr(line, also) != NULL);
    fclose(log);
    return count;
}

/* Lines of the server's access log holding `needle` (and `also`, unless
 * NULL), once there are at least `expected` of them or after 2 s: nginx
 * writes a request's line just after answering it, so the client can be
 * faster than the log. */
static int log_lines(const char *dir, int expected, const char *needle, const char *also) {
    long long deadline = test_now_ms() + 2000;
    int count;
    while ((count = count_log_lines(dir, needle, also)) < expected && test_now_ms() < deadline)
        usleep(10 * 1000);
    return count;
}

/* A loopback port nothing listens on: bound, then closed. */
static int closed_port(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(fd, (struct sockaddr *)&address, sizeof address), 0);
    socklen_t length = sizeof address;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&address, &length), 0);
    close(fd);
    return ntohs(address.sin_port);
}

static void put_ok(const remote_transport *transport, const char *key, const void *data,
                   size_t size) {
    char reason[256] = "";
    remote_status status = transport->put(transport->state, key, data, size, reason, sizeof reason);
    if (status != REMOTE_OK)
        fail_msg("put %s: %d %s", key, (int)status, reason);
}

static void get_equals(const remote_transport *transport, const char *key, const void *data,
                       size_t size) {
    char reason[256] = "";
    bytebuf got = {0};
    remote_status status =
        transport->get(transport->state, key, size + 100, &got, reason, sizeof reason);
    if (status != REMOTE_OK)
        fail_msg("get %s: %d %s", key, (int)status, reason);
    assert_int_equal(got.size, size);
    if (size > 0)
        assert_memory_equal(got.data, data, size);
    bytebuf_free(&got);
}

/* ---------------------------------------------------------------------------
 * Labels and opening (no server)
 * ------------------------------------------------------------------------- */

static void label_is(const char *url, const char *expected) {
    char label[256];
    remote_url_label(url, label, sizeof label);
    assert_string_equal(label, expected);
}

static void labels_drop_credentials_query_and_fragment(void **state) {
    (void)state;
    label_is("http://127.0.0.1:8080/cache", "http://127.0.0.1:8080/cache");
    label_is("https://user:secret@cache.example.com/kiln", "https://cache.example.com/kiln");
    label_is("http://user@cache.example.com/kiln", "http://cache.example.com/kiln");
    label_is("http://u:p@host:81/c?sig=abc&x=1#frag", "http://host:81/c");
    label_is("http://host/c?sig=abc", "http://host/c");
    label_is("http://host/c#frag", "http://host/c");
    label_is("http://[::1]:8080/cache", "http://[::1]:8080/cache");
    label_is("http://u:p@[fe80::1%25eth0]:8080/c?q", "http://[fe80::1%25eth0]:8080/c");
    label_is("redis://:pw@localhost:6379/2", "redis://localhost:6379/2");
    label_is("redis://localhost", "redis://localhost");
    /* A password with an unencoded '/', '#' or '?' shows no part of itself. */
    label_is("http://u:pa/ss#w?rd@host/c", "http://host/c");
    label_is("", "");
    char small[10];
    remote_url_label("http://u:p@127.0.0.1/cache", small, sizeof small);
    assert_string_equal(small, "http://12");
}

/* A libcurl that could not be loaded is looked for again on the next open
 * (a `kiln watch` outlives a package install), and once loaded stays loaded.
 * It must run before any test that opens a transport: the load is per process. */
static void missing_libcurl_is_tried_again(void **state) {
    (void)state;
    char empty[] = SCRATCH "/no-libraries-XXXXXX";
    assert_int_equal(mkdir(SCRATCH, 0755) == 0 || errno == EEXIST, 1);
    assert_non_null(mkdtemp(empty));
    remote_options options = {0};
    remote_transport transport;
    char reason[256];
    assert_int_equal(setenv("KILN_TEST_LIBRARY_DIR", empty, 1), 0);
    assert_false(
        remote_http_open(&transport, "http://127.0.0.1:1/c", &options, reason, sizeof reason));
    assert_non_null(strstr(reason, "cannot open shared object file"));
    assert_false(
        remote_http_open(&transport, "http://127.0.0.1:1/c", &options, reason, sizeof reason));
    assert_int_equal(unsetenv("KILN_TEST_LIBRARY_DIR"), 0);
    assert_true(
        remote_http_open(&transport, "http://127.0.0.1:1/c", &options, reason, sizeof reason));
    transport.close(transport.state);
    assert_int_equal(setenv("KILN_TEST_LIBRARY_DIR", empty, 1), 0);
    assert_true(
        remote_http_open(&transport, "http://127.0.0.1:1/c", &options, reason, sizeof reason));
    transport.close(transport.state);
    assert_int_equal(unsetenv("KILN_TEST_LIBRARY_DIR"), 0);
    assert_int_equal(rmdir(empty), 0);
}

static void open_refuses_unusable_urls(void **state) {
    (void)state;
    remote_options options = {0};
    remote_transport transport;
    char reason[256];
    assert_false(remote_http_open(&transport, "ftp://host/c", &options, reason, sizeof reason));
    assert_non_null(strstr(reason, "not an http:// or https:// URL"));
    assert_null(transport.state);
    assert_null(transport.get);
    assert_false(
        remote_http_open(&transport, "redis://:secret@host", &options, reason, sizeof reason));
    assert_null(strstr(reason, "secret"));
    assert_false(remote_http_open(&transport, "http://", &options, reason, sizeof reason));
    assert_false(remote_http_open(&transport, "http://user:secret@host/c?x=1", &options, reason,
                                  sizeof reason));
    assert_non_null(strstr(reason, "no query"));
    assert_null(strstr(reason, "secret"));
    options.token = "two\r\nlines";
    assert_false(remote_http_open(&transport, "http://host/c", &options, reason, sizeof reason));
    assert_null(strstr(reason, "two"));
    options.token = NULL;
    options.netrc_file = SCRATCH "/no such netrc";
    assert_false(remote_http_open(&transport, "http://host/c", &options, reason, sizeof reason));
    assert_non_null(strstr(reason, "netrc"));

    /* Opening connects nowhere; the label has no trailing '/' nor password. */
    options.netrc_file = NULL;
    assert_true(remote_http_open(&transport, "HTTPS://user:secret@host:1/c//", &options, reason,
                                 sizeof reason));
    assert_string_equal(transport.label, "HTTPS://host:1/c");
    transport.close(transport.state);
}

static void keys_are_checked(void **state) {
    (void)state;
    remote_transport transport;
    open_http(&transport, "http://127.0.0.1:1/cache", &(remote_options){0});
    char reason[256];
    bytebuf got = {0};
    assert_int_equal(transport.get(transport.state, "UPPER", 10, &got, reason, sizeof reason),
                     REMOTE_FAILED);
    assert_non_null(strstr(reason, "not a cache key"));
    assert_int_equal(transport.exists(transport.state, "", reason, sizeof reason), REMOTE_FAILED);
    assert_int_equal(
        transport.put(transport.state, "a b", (const uint8_t *)"x", 1, reason, sizeof reason),
        REMOTE_FAILED);
    char long_key[REMOTE_MAX_KEY + 2];
    memset(long_key, 'a', sizeof long_key - 1);
    long_key[sizeof long_key - 1] = '\0';
    assert_int_equal(transport.exists(transport.state, long_key, reason, sizeof reason),
                     REMOTE_FAILED);
    assert_null(got.data);
    transport.close(transport.state);
}

/* ---------------------------------------------------------------------------
 * Without a server: refused and silent ports
 * ------------------------------------------------------------------------- */

static void closed_port_fails_fast(void **state) {
    (void)state;
    char *url = server_url(closed_port(), "", "/cache");
    remote_transport transport;
    open_http(&transport, url, &(remote_options){.retries = 1});
    char reason[256];
    bytebuf got = {0};
    long long start = test_now_ms();
    assert_int_equal(transport.get(transport.state, "ab/cd", 1000, &got, reason, sizeof reason),
                     REMOTE_FAILED);
    long long took = test_now_ms() - start;
    assert_string_equal(strchr(reason, ' ') + 1, "connection refused after 2 attempts");
    assert_true(strncmp(reason, url, strlen(url)) == 0);
    assert_true(took < 1000); /* one back-off of 100 ms */
    assert_int_equal(transport.exists(transport.state, "ab/cd", reason, sizeof reason),
                     REMOTE_FAILED);
    assert_int_equal(
        transport.put(transport.state, "ab/cd", (const uint8_t *)"x", 1, reason, sizeof reason),
        REMOTE_FAILED);
    assert_non_null(strstr(reason, "connection refused"));
    assert_null(got.data);
    transport.close(transport.state);
    free(url);
}

/* A server that accepts connections and never answers. */
typedef struct silent_server {
    int listener;
    int port;
    atomic_bool stop;
    pthread_t thread;
} silent_server;

static void *silent_serve(void *arg) {
    silent_server *server = arg;
    int held[32];
    int count = 0;
    while (!atomic_load(&server->stop)) {
        struct pollfd poll_fd = {.fd = server->listener, .events = POLLIN};
        if (poll(&poll_fd, 1, 20) == 1) {
            int fd = accept(server->listener, NULL, NULL);
            if (fd >= 0 && count < 32)
                held[count++] = fd;
            else if (fd >= 0)
                close(fd);
        }
    }
    for (int i = 0; i < count; i++)
        close(held[i]);
    return NULL;
}

static void silent_server_start(silent_server *server) {
    server->listener = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(server->listener >= 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(server->listener, (struct sockaddr *)&address, sizeof address), 0);
    assert_int_equal(listen(server->listener, 16), 0);
    socklen_t length = sizeof address;
    assert_int_equal(getsockname(server->listener, (struct sockaddr *)&address, &length), 0);
    server->port = ntohs(address.sin_port);
    atomic_init(&server->stop, false);
    assert_int_equal(pthread_create(&server->thread, NULL, silent_serve, server), 0);
}

static void silent_server_stop(silent_server *server) {
    atomic_store(&server->stop, true);
    pthread_join(server->thread, NULL);
    close(server->listener);
}

static void silent_server_times_out(void **state) {
    (void)state;
    silent_server server;
    silent_server_start(&server);
    char *url = server_url(server.port, "", "/cache");
    remote_transport transport;
    open_http(&transport, url, &(remote_options){.timeout_ms = 300});
    char reason[256];
    bytebuf got = {0};
    long long start = test_now_ms();
    assert_int_equal(transport.get(transport.state, "ab/cd", 1000, &got, reason, sizeof reason),
                     REMOTE_FAILED);
    long long took = test_now_ms() - start;
    assert_string_equal(strchr(reason, ' ') + 1, "timed out after 300 ms");
    assert_true(took >= 250 && took < 1000);
    transport.close(transport.state);

    /* Retried once: two attempts and one back-off. */
    open_http(&transport, url, &(remote_options){.timeout_ms = 300, .retries = 1});
    start = test_now_ms();
    assert_int_equal(
        transport.put(transport.state, "ab/cd", (const uint8_t *)"x", 1, reason, sizeof reason),
        REMOTE_FAILED);
    took = test_now_ms() - start;
    assert_non_null(strstr(reason, "timed out after 300 ms, 2 attempts"));
    assert_true(took >= 600 && took < 2000);
    assert_null(got.data);
    transport.close(transport.state);
    free(url);
    silent_server_stop(&server);
}

/* A server whose accept queue is full: Linux drops the new connection's SYN,
 * so the connect itself never completes. */
static void full_backlog_times_out_connecting(void **state) {
    (void)state;
    FILE *setting = fopen("/proc/sys/net/ipv4/tcp_abort_on_overflow", "r");
    int abort_on_overflow = setting != NULL ? fgetc(setting) : '0';
    if (setting != NULL)
        fclose(setting);
    if (abort_on_overflow == '1') { /* then the SYN is answered with a reset */
        printf("full_backlog_times_out_connecting: skipped: tcp_abort_on_overflow is set\n");
        skip();
    }
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(listener >= 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(listener, (struct sockaddr *)&address, sizeof address), 0);
    assert_int_equal(listen(listener, 0), 0);
    socklen_t length = sizeof address;
    assert_int_equal(getsockname(listener, (struct sockaddr *)&address, &length), 0);
    int queued[3];
    for (int i = 0; i < 3; i++) {
        queued[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        assert_true(queued[i] >= 0);
        connect(queued[i], (struct sockaddr *)&address, sizeof address); /* in progress */
    }
    usleep(100 * 1000);
    char *url = server_url(ntohs(address.sin_port), "", "/cache");
    remote_transport transport;
    open_http(&transport, url, &(remote_options){.connect_timeout_ms = 300});
    char reason[256];
    long long start = test_now_ms();
    assert_int_equal(transport.exists(transport.state, "ab/cd", reason, sizeof reason),
                     REMOTE_FAILED);
    long long took = test_now_ms() - start;
    assert_string_equal(strchr(reason, ' ') + 1, "connection timed out after 300 ms");
    assert_true(took >= 250 && took < 1000);
    transport.close(transport.state);
    free(url);
    for (int i = 0; i < 3; i++)
        close(queued[i]);
    close(listener);
}

/* ---------------------------------------------------------------------------
 * Against nginx
 * ------------------------------------------------------------------------- */

static void entries_round_trip(void **state) {
    (void)state;
    if (nginx_missing)
        skip();
    char *url = server_url(nginx_port, "", "/cache/"); /* the '/' is not doubled */
    remote_transport transport;
    open_http(&transport, url, &(remote_options){0});
    char reason[256];
    bytebuf got = {0};

    assert_int_equal(transport.exists(transport.state, "rt/small", reason, sizeof reason),
                     REMOTE_MISSING);
    static const char small[] = "a small entry\n";
    put_ok(&transport, "rt/small", small, sizeof small - 1);
    assert_int_equal(transport.exists(transport.state, "rt/small", reason, sizeof reason),
                     REMOTE_OK);
    get_equals(&transport, "rt/small", small, sizeof small - 1);
    assert_int_equal(log_lines(SERVER_DIR, 1, "\"GET /cache/rt/small HTTP", NULL), 1);

    put_ok(&transport, "rt/empty", NULL, 0);
    assert_int_equal(transport.exists(transport.state, "rt/empty", reason, sizeof reason),
                     REMOTE_OK);
    get_equals(&transport, "rt/empty", NULL, 0);

    size_t big_size = 5u << 20;
    uint8_t *big = test_random_bytes(big_size, 5);
    put_ok(&transport, "rt/big.bin", big, big_size);
    get_equals(&transport, "rt/big.bin", big, big_size);
    /* Replacing an entry (nginx answers 204 where it first said 201). */
    put_ok(&transport, "rt/big.bin", big, 1000);
    get_equals(&transport, "rt/big.bin", big, 1000);
    free(big);

    /* A get into a buffer that holds bytes appends to them. */
    bytebuf_append(&got, "head:", 5);
    assert_int_equal(transport.get(transport.state, "rt/small", 100, &got, reason, sizeof reason),
                     REMOTE_OK);
    assert_int_equal(got.size, 5 + sizeof small - 1);
    assert_memory_equal(got.data + 5, small, sizeof small - 1);
    bytebuf_free(&got);

    assert_int_equal(transport.get(transport.state, "rt/unknown", 100, &got, reason, sizeof reason),
                     REMOTE_MISSING);
    assert_null(got.data);
    transport.close(transport.state);
    free(url);
}

static void get_refuses_more_than_max_size(void **state) {
    (void)state;
    if (nginx_missing)
        skip();
    char *url = server_url(nginx_port, "", "/cache");
    remote_transport transport;
    open_http(&transport, url, &(remote_options){.retries = 2});
    size_t size = 1u << 20;
    uint8_t *entry = test_random_bytes(size, 1);
    put_ok(&transport, "max/one-mib", entry, size);
    char reason[256];
    bytebuf got = {0};
    assert_int_equal(
        transport.get(transport.state, "max/one-mib", 1000, &got, reason, sizeof reason),
        REMOTE_FAILED);
    assert_non_null(strstr(reason, "max/one-mib is larger than 1000 bytes"));
    assert_null(strstr(reason, "attempts")); /* retrying will not shrink it */
    assert_null(got.data);
    /* Exactly max_size is fine. */
    assert_int_equal(
        transport.get(transport.state, "max/one-mib", size, &got, reason, sizeof reason),
        REMOTE_OK);
    assert_int_equal(got.size, size);
    assert_memory_equal(got.data, entry, size);
    bytebuf_free(&got);
    /* A 404's page is no entry: larger than max_size, still MISSING. */
    assert_int_equal(transport.get(transport.state, "max/none", 0, &got, reason, sizeof reason),
                     REMOTE_MISSING);
    free(entry);
    transport.close(transport.state);
    free(url);
}

static void token_is_sent_and_never_shown(void **state) {
    (void)state;
    if (nginx_missing)
        skip();
    int port = start_nginx(TOKEN_SERVER_DIR, TOKEN);
    if (port == 0)
        fail_msg("nginx with a token did not start (see %s/logs)", TOKEN_SERVER_DIR);
    char *url = server_url(port, "", "/cache");
    remote_transport right, wrong, none;
    open_http(&right, url, &(remote_options){.token = TOKEN});
    open_http(&wrong, url, &(remote_options){.token = "not-" TOKEN, .retries = 2});
    open_http(&none, url, &(remote_options){.retries = 2});
    char reason[256] = "";
    bytebuf got = {0};

    put_ok(&right, "tok/entry", "secret bytes", 12);
    assert_int_equal(right.exists(right.state, "tok/entry", reason, sizeof reason), REMOTE_OK);
    get_equals(&right, "tok/entry", "secret bytes", 12);

    const remote_transport *refused[] = {&wrong, &none};
    for (int i = 0; i < 2; i++) {
        const remote_transport *t = refused[i];
        long long start = test_now_ms();
        assert_int_equal(t->get(t->state, "tok/entry", 100, &got, reason, sizeof reason),
                         REMOTE_REFUSED);
        assert_non_null(strstr(reason, "HTTP 401"));
        assert_null(strstr(reason, TOKEN));
        assert_null(strstr(reason, "attempts"));
        assert_int_equal(t->exists(t->state, "tok/entry", reason, sizeof reason), REMOTE_REFUSED);
        assert_null(strstr(reason, TOKEN));
        assert_int_equal(
            t->put(t->state, "tok/other", (const uint8_t *)"x", 1, reason, sizeof reason),
            REMOTE_REFUSED);
        assert_null(strstr(reason, TOKEN));
        assert_true(test_now_ms() - start < 1000); /* no back-off: not retried */
        assert_null(got.data);
    }
    /* Three operations of each refused transport, one request each. */
    assert_int_equal(log_lines(TOKEN_SERVER_DIR, 6, "\" 401 ", NULL), 6);
    assert_int_equal(right.exists(right.state, "tok/other", reason, sizeof reason), REMOTE_MISSING);
    right.close(right.state);
    wrong.close(wrong.state);
    none.close(none.state);
    free(url);
    stop_nginx(TOKEN_SERVER_DIR);
}

static void url_and_netrc_credentials_are_sent_not_shown(void **state) {
    (void)state;
    if (nginx_missing)
        skip();
    char *url = server_url(nginx_port, "alice:hunter2@", "/cache");
    remote_transport transport;
    open_http(&transport, url, &(remote_options){0});
    assert_null(strstr(transport.label, "alice"));
    assert_null(strstr(transport.label, "hunter2"));
    char expected[128];
    snprintf(expected, sizeof expected, "http://127.0.0.1:%d/cache", nginx_port);
    assert_string_equal(transport.label, expected);
    put_ok(&transport, "cred/url", "x", 1);
    assert_int_equal(log_lines(SERVER_DIR, 1, " alice \"PUT /cache/cred/url ", NULL), 1);
    transport.close(transport.state);
    free(url);

    /* A failure's reason on a URL with a password. */
    url = server_url(nginx_port, "alice:hunter2@", "/fail");
    open_http(&transport, url, &(remote_options){0});
    char reason[256];
    assert_int_equal(transport.exists(transport.state, "cred/url", reason, sizeof reason),
                     REMOTE_FAILED);
    assert_null(strstr(reason, "hunter2"));
    assert_null(strstr(reason, "alice"));
    transport.close(transport.state);
    free(url);

    char *netrc = test_path_join(SCRATCH, "netrc");
    static const char netrc_text[] = "machine 127.0.0.1 login bob password swordfish\n";
    test_write_file(netrc, netrc_text, sizeof netrc_text - 1);
    url = server_url(nginx_port, "", "/cache");
    open_http(&transport, url, &(remote_options){.netrc_file = netrc});
    put_ok(&transport, "cred/netrc", "y", 1);
    assert_int_equal(log_lines(SERVER_DIR, 1, " bob \"PUT /cache/cred/netrc ", NULL), 1);
    transport.close(transport.state);
    free(url);
    free(netrc);
}

static void failures_that_may_pass_are_retried(void **state) {
    (void)state;
    if (nginx_missing)
        skip();
    char *url = server_url(nginx_port, "", "/fail");
    remote_transport transport;
    open_http(&transport, url, &(remote_options){.retries = 2});
    char reason[256];
    bytebuf got = {0};
    long long start = test_now_ms();
    assert_int_equal(transport.get(transport.state, "r/get", 100, &got, reason, sizeof reason),
                     REMOTE_FAILED);
    long long took = test_now_ms() - start;
    char expected[256];
    snprintf(expected, sizeof expected, "%s: HTTP 503 after 3 attempts", url);
    assert_string_equal(reason, expected);
    assert_true(took >= 500 && took < 2000); /* back-offs of 100 and 400 ms */
    assert_int_equal(log_lines(SERVER_DIR, 3, "\"GET /fail/r/get ", NULL), 3);
    assert_int_equal(transport.exists(transport.state, "r/head", reason, sizeof reason),
                     REMOTE_FAILED);
    assert_string_equal(reason, expected);
    assert_int_equal(log_lines(SERVER_DIR, 3, "\"HEAD /fail/r/head ", NULL), 3);
    assert_int_equal(
        transport.put(transport.state, "r/put", (const uint8_t *)"z", 1, reason, sizeof reason),
        REMOTE_FAILED);
    assert_string_equal(reason, expected);
    assert_null(got.data);
    transport.close(transport.state);
    free(url);
}

static void other_answers_fail_at_once(void **state) {
    (void)state;
    if (nginx_missing)
        skip();
    char *cache_url = server_url(nginx_port, "", "/cache");
    remote_transport cache;
    open_http(&cache, cache_url, &(remote_options){0});
    put_ok(&cache, "moved/entry", "m", 1);
    cache.close(cache.state);
    free(cache_url);

    /* A redirect is not followed, even to the same server. */
    char *url = server_url(nginx_port, "", "/moved");
    remote_transport transport;
    open_http(&transport, url, &(remote_options){.retries = 2});
    char reason[256];
    bytebuf got = {0};
    assert_int_equal(
        transport.get(transport.state, "moved/entry", 100, &got, reason, sizeof reason),
        REMOTE_FAILED);
    assert_non_null(strstr(reason, ": HTTP 302 for GET moved/entry"));
    assert_null(got.data);
    transport.close(transport.state);
    free(url);

    /* A location without WebDAV: 405, not retried. */
    url = server_url(nginx_port, "", "/slow");
    open_http(&transport, url, &(remote_options){.retries = 2});
    assert_int_equal(
        transport.put(transport.state, "nodav", (const uint8_t *)"x", 1, reason, sizeof reason),
        REMOTE_FAILED);
    assert_non_null(strstr(reason, ": HTTP 405 for PUT nodav"));
    assert_int_equal(log_lines(SERVER_DIR, 1, "\"PUT /slow/nodav ", NULL), 1);

    /* A body that stalls: the whole attempt is bounded. */
    transport.close(transport.state);
    open_http(&transport, url, &(remote_options){.timeout_ms = 300});
    long long start = test_now_ms();
    assert_int_equal(transport.get(transport.state, "big", 2u << 20, &got, reason, sizeof reason),
                     REMOTE_FAILED);
    assert_non_null(strstr(reason, "timed out after 300 ms"));
    assert_true(test_now_ms() - start < 1000);
    assert_null(got.data);
    transport.close(transport.state);
    free(url);
}

typedef struct worker {
    const remote_transport *transport;
    int index;
    int failures;
    char reason[256];
} worker;

#define WORKERS 8
#define ROUNDS 50

static void *put_get_worker(void *arg) {
    worker *w = arg;
    for (int i = 0; i < ROUNDS && w->failures == 0; i++) {
        char key[64];
        snprintf(key, sizeof key, "conc/w%d/e%d", w->index, i);
        size_t size = 1 + (size_t)(w->index * ROUNDS + i) * 97 % 40000;
        uint8_t *data = test_random_bytes(size, (uint64_t)(w->index * 1000 + i));
        bytebuf got = {0};
        const remote_transport *t = w->transport;
        if (t->put(t->state, key, data, size, w->reason, sizeof w->reason) != REMOTE_OK ||
            t->get(t->state, key, size, &got, w->reason, sizeof w->reason) != REMOTE_OK) {
            w->failures++;
        } else if (got.size != size || memcmp(got.data, data, size) != 0) {
            snprintf(w->reason, sizeof w->reason, "%s: other bytes", key);
            w->failures++;
        }
        bytebuf_free(&got);
        free(data);
    }
    return NULL;
}

static void threads_share_one_transport(void **state) {
    (void)state;
    if (nginx_missing)
        skip();
    char *url = server_url(nginx_port, "", "/cache");
    remote_transport transport;
    open_http(&transport, url, &(remote_options){.retries = 1});
    worker workers[WORKERS];
    pthread_t threads[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        workers[i] = (worker){.transport = &transport, .index = i};
        assert_int_equal(pthread_create(&threads[i], NULL, put_get_worker, &workers[i]), 0);
    }
    for (int i = 0; i < WORKERS; i++)
        pthread_join(threads[i], NULL);
    for (int i = 0; i < WORKERS; i++)
        if (workers[i].failures > 0)
            fail_msg("worker %d: %s", i, workers[i].reason);
    transport.close(transport.state);
    free(url);
    /* Kept alive: a connection per pooled handle, at most one per thread,
     * and not one per request. */
    assert_int_equal(log_lines(SERVER_DIR, WORKERS * ROUNDS * 2, " /cache/conc/", NULL),
                     WORKERS * ROUNDS * 2);
    int connections = log_lines(SERVER_DIR, 1, " /cache/conc/", " req=1\n");
    print_message("%d requests over %d connections\n", WORKERS * ROUNDS * 2, connections);
    assert_true(connections >= 1 && connections <= WORKERS);
}

/* HTTPS: the server's certificate is checked (a self-signed one is refused
 * with the system's CAs, not retried), and KILN_REMOTE_CACHE_CA_FILE's
 * option trusts it. */
static void https_checks_the_certificate(void **state) {
    (void)state;
    if (nginx_missing)
        skip();
    char *port_file = test_path_join(SERVER_DIR, "tls_port");
    struct stat info;
    if (stat(port_file, &info) != 0) {
        print_message("test_remote_http: HTTPS skipped: openssl is not installed\n");
        free(port_file);
        skip();
    }
    size_t size;
    uint8_t *text = test_read_file(port_file, &size);
    char url[128];
    snprintf(url, sizeof url, "https://127.0.0.1:%d/cache", atoi((const char *)text));
    free(text);
    free(port_file);

    remote_transport untrusting;
    open_http(&untrusting, url, &(remote_options){.retries = 2});
    bytebuf got = {0};
    char reason[256] = "";
    assert_int_equal(untrusting.get(untrusting.state, "tls/a", 100, &got, reason, sizeof reason),
                     REMOTE_FAILED);
    assert_non_null(strstr(reason, "TLS certificate is not trusted"));
    untrusting.close(untrusting.state);

    char *ca = test_path_join(SERVER_DIR, "tls/cert.pem");
    remote_transport trusting;
    open_http(&trusting, url, &(remote_options){.ca_file = ca});
    put_ok(&trusting, "tls/a", "over TLS", 8);
    assert_int_equal(trusting.get(trusting.state, "tls/a", 100, &got, reason, sizeof reason),
                     REMOTE_OK);
    assert_int_equal(got.size, 8);
    assert_memory_equal(got.data, "over TLS", 8);
    bytebuf_free(&got);
    trusting.close(trusting.state);

    remote_transport none;
    assert_false(remote_http_open(&none, url, &(remote_options){.ca_file = "/no/such/ca.pem"},
                                  reason, sizeof reason));
    assert_non_null(strstr(reason, "cannot read the CA file"));
    free(ca);
}

/* ---------------------------------------------------------------------------
 * The servers
 * ------------------------------------------------------------------------- */

static int start_servers(void **state) {
    (void)state;
    mkdir(KILN_TEST_BINARY_DIR "/tmp", 0755);
    /* A previous run that crashed may have left servers behind. */
    stop_nginx(SERVER_DIR);
    stop_nginx(TOKEN_SERVER_DIR);
    free(test_make_temp_dir("remote_http"));
    if (test_run_sourced(NGINX_SCRIPT, "nginx_dav_available") != 0) {
        printf("test_remote_http: skipped: nginx is not installed\n");
        nginx_missing = true;
        return 0;
    }
    nginx_port = start_nginx(SERVER_DIR, NULL);
    return nginx_port > 0 ? 0 : -1;
}

static int stop_servers(void **state) {
    (void)state;
    stop_nginx(SERVER_DIR);
    stop_nginx(TOKEN_SERVER_DIR);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(labels_drop_credentials_query_and_fragment),
        cmocka_unit_test(missing_libcurl_is_tried_again),
        cmocka_unit_test(open_refuses_unusable_urls),
        cmocka_unit_test(keys_are_checked),
        cmocka_unit_test(closed_port_fails_fast),
        cmocka_unit_test(silent_server_times_out),
        cmocka_unit_test(full_backlog_times_out_connecting),
        cmocka_unit_test(entries_round_trip),
        cmocka_unit_test(get_refuses_more_than_max_size),
        cmocka_unit_test(token_is_sent_and_never_shown),
        cmocka_unit_test(url_and_netrc_credentials_are_sent_not_shown),
        cmocka_unit_test(failures_that_may_pass_are_retried),
        cmocka_unit_test(other_answers_fail_at_once),
        cmocka_unit_test(threads_share_one_transport),
        cmocka_unit_test(https_checks_the_certificate),
    };
    return cmocka_run_group_tests(tests, start_servers, stop_servers);
}
