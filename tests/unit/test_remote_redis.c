/* The Redis transport of the remote cache (src/build/remote/redis.c): against
 * real redis-servers started in a scratch folder (tests/support/
 * redis_server.sh), one open and one with requirepass, and against fake
 * servers on loopback sockets (garbage, silence, a closed port), which
 * need no Redis. */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "test_support.h"
#include <hiredis/hiredis.h>

#include "build/remote/transport.h"

#define SCRIPT KILN_TEST_DATA_DIR "/../support/redis_server.sh"
#define SCRATCH KILN_TEST_BINARY_DIR "/tmp/remote_redis"
#define PASSWORD "s3cret@Pass:x" /* '@' and ':' as a URL must escape them */

static bool have_redis;
static int open_port;     /* redis-server without a password */
static int password_port; /* redis-server with requirepass PASSWORD */

static int start_server(const char *dir, const char *password) {
    char call[1024];
    snprintf(call, sizeof call, "redis_server_start \"%s\" \"%s\"", dir, password);
    return test_start_server(SCRIPT, call, dir);
}

static void stop_server(const char *dir) {
    char call[1024];
    snprintf(call, sizeof call, "redis_server_stop \"%s\"", dir);
    test_run_sourced(SCRIPT, call);
}

static int setup_servers(void **state) {
    (void)state;
    if (test_run_sourced(SCRIPT, "redis_server_available") != 0) {
        printf("test_remote_redis: skipped: redis-server is not installed\n");
        return 0;
    }
    /* Servers a crashed earlier run left behind go first. */
    stop_server(SCRATCH "/open");
    stop_server(SCRATCH "/password");
    free(test_make_temp_dir("remote_redis"));
    open_port = start_server(SCRATCH "/open", "");
    password_port = start_server(SCRATCH "/password", PASSWORD);
    have_redis = open_port > 0 && password_port > 0;
    return have_redis ? 0 : -1;
}

static int teardown_servers(void **state) {
    (void)state;
    if (have_redis) {
        stop_server(SCRATCH "/open");
        stop_server(SCRATCH "/password");
    }
    return 0;
}

#define NEED_REDIS()                                                                               \
    do {                                                                                           \
        if (!have_redis)                                                                           \
            skip();                                                                                \
    } while (0)

static remote_options quick_options(void) {
    return (remote_options){.connect_timeout_ms = 1000, .timeout_ms = 5000};
}

/* A transport for `url` that must open. */
static void open_url(remote_transport *t, const char *url, const remote_options *options) {
    char reason[256] = "";
    if (!remote_redis_open(t, url, options, reason, sizeof reason))
        fail_msg("open %s: %s", url, reason);
}

static void open_port_db(remote_transport *t, int port, int db, const remote_options *options) {
    char url[128];
    if (db != 0)
        snprintf(url, sizeof url, "redis://127.0.0.1:%d/%d", port, db);
    else
        snprintf(url, sizeof url, "redis://127.0.0.1:%d", port);
    open_url(t, url, options);
}

/* put, then get and exists: the same bytes come back. */
static void assert_round_trip(remote_transport *t, const char *key, const uint8_t *data,
                              size_t size) {
    char reason[256] = "";
    assert_int_equal(t->exists(t->state, key, reason, sizeof reason), REMOTE_MISSING);
    bytebuf got = {0};
    assert_int_equal(t->get(t->state, key, 1 << 24, &got, reason, sizeof reason), REMOTE_MISSING);
    assert_int_equal(got.size, 0);
    if (t->put(t->state, key, data, size, reason, sizeof reason) != REMOTE_OK)
        fail_msg("put %s: %s", key, reason);
    assert_int_equal(t->exists(t->state, key, reason, sizeof reason), REMOTE_OK);
    if (t->get(t->state, key, 1 << 24, &got, reason, sizeof reason) != REMOTE_OK)
        fail_msg("get %s: %s", key, reason);
    assert_int_equal(got.size, size);
    if (size > 0)
        assert_memory_equal(got.data, data, size);
    bytebuf_free(&got);
}

/* ---- bytes in, bytes out ----------------------------------------------- */

static void values_come_back_byte_for_byte(void **state) {
    (void)state;
    NEED_REDIS();
    remote_options options = quick_options();
    remote_transport t;
    open_port_db(&t, open_port, 0, &options);
    char label[64];
    snprintf(label, sizeof label, "redis://127.0.0.1:%d", open_port);
    assert_string_equal(t.label, label);

    assert_round_trip(&t, "rt/empty", (const uint8_t *)"", 0);
    assert_round_trip(&t, "rt/small", (const uint8_t *)"hello, cache", 12);
    static const uint8_t binary[] = {0, 1, '\r', '\n', 0, '$', '-', '1', '\r', '\n', 0xff, 0};
    assert_round_trip(&t, "rt/binary", binary, sizeof binary);
    size_t big_size = 5u << 20;
    uint8_t *big = test_random_bytes(big_size, 0x9e3779b97f4a7c15ull);
    assert_round_trip(&t, "rt/big-5mb", big, big_size);
    /* Replacing a value replaces it. */
    char reason[256];
    assert_int_equal(t.put(t.state, "rt/small", big, 1000, reason, sizeof reason), REMOTE_OK);
    bytebuf got = {0};
    assert_int_equal(t.get(t.state, "rt/small", 1000, &got, reason, sizeof reason), REMOTE_OK);
    assert_int_equal(got.size, 1000);
    assert_memory_equal(got.data, big, 1000);
    bytebuf_free(&got);
    free(big);

    assert_int_equal(t.get(t.state, "rt/never-stored", 100, &got, reason, sizeof reason),
                     REMOTE_MISSING);
    assert_int_equal(t.exists(t.state, "rt/never-stored", reason, sizeof reason), REMOTE_MISSING);
    /* A key outside the contract's alphabet is refused before it is sent. */
    assert_int_equal(t.exists(t.state, "Bad Key", reason, sizeof reason), REMOTE_FAILED);
    t.close(t.state);
}

static void a_value_larger_than_max_size_fails(void **state) {
    (void)state;
    NEED_REDIS();
    remote_options options = quick_options();
    remote_transport t;
    open_port_db(&t, open_port, 0, &options);
    size_t size = 1u << 20;
    uint8_t *value = test_random_bytes(size, 42);
    char reason[256];
    assert_int_equal(t.put(t.state, "max/one-mb", value, size, reason, sizeof reason), REMOTE_OK);
    bytebuf got = {0};
    assert_int_equal(t.get(t.state, "max/one-mb", 1000, &got, reason, sizeof reason),
                     REMOTE_FAILED);
    assert_non_null(strstr(reason, "larger"));
    assert_int_equal(got.size, 0);
    assert_int_equal(t.get(t.state, "max/one-mb", size - 1, &got, reason, sizeof reason),
                     REMOTE_FAILED);
    assert_non_null(strstr(reason, "larger"));
    /* The limit is inclusive, and the transport is in step after refusing. */
    assert_int_equal(t.get(t.state, "max/one-mb", size, &got, reason, sizeof reason), REMOTE_OK);
    assert_int_equal(got.size, size);
    assert_memory_equal(got.data, value, size);
    bytebuf_free(&got);
    free(value);
    t.close(t.state);
}

static void the_url_selects_the_database(void **state) {
    (void)state;
    NEED_REDIS();
    remote_options options = quick_options();
    remote_transport db3, db0;
    open_port_db(&db3, open_port, 3, &options);
    open_port_db(&db0, open_port, 0, &options);
    char reason[256];
    assert_int_equal(
        db3.put(db3.state, "db/only-in-3", (const uint8_t *)"3", 1, reason, sizeof reason),
        REMOTE_OK);
    assert_int_equal(db3.exists(db3.state, "db/only-in-3", reason, sizeof reason), REMOTE_OK);
    assert_int_equal(db0.exists(db0.state, "db/only-in-3", reason, sizeof reason), REMOTE_MISSING);
    /* Checked by a plain hiredis client too. */
    redisContext *raw = redisConnect("127.0.0.1", open_port);
    assert_true(raw != NULL && raw->err == 0);
    redisReply *reply = redisCommand(raw, "SELECT 3");
    freeReplyObject(reply);
    reply = redisCommand(raw, "GET db/only-in-3");
    assert_non_null(reply);
    assert_int_equal(reply->type, REDIS_REPLY_STRING);
    assert_string_equal(reply->str, "3");
    freeReplyObject(reply);
    redisFree(raw);
    db3.close(db3.state);
    db0.close(db0.state);
}

/* ---- credentials ------------------------------------------------------- */

static void assert_no_secret(const char *text) {
    if (strstr(text, "s3cret") != NULL || strstr(text, "wrong-horse") != NULL)
        fail_msg("a password in \"%s\"", text);
}

/* put and get through `url` (and the token); the status of the put. */
static remote_status try_password(const char *url, const char *token, char *reason,
                                  size_t reason_size) {
    remote_options options = quick_options();
    options.token = token;
    options.retries = 2; /* refused credentials are never retried */
    remote_transport t;
    open_url(&t, url, &options);
    assert_no_secret(t.label);
    reason[0] = '\0';
    remote_status status =
        t.put(t.state, "auth/key", (const uint8_t *)"value", 5, reason, reason_size);
    if (status == REMOTE_OK) {
        bytebuf got = {0};
        assert_int_equal(t.get(t.state, "auth/key", 100, &got, reason, reason_size), REMOTE_OK);
        assert_int_equal(got.size, 5);
        bytebuf_free(&got);
    } else {
        assert_null(strstr(reason, "attempts")); /* one attempt, not three */
    }
    assert_no_secret(reason);
    t.close(t.state);
    return status;
}

static void credentials_are_sent_and_never_shown(void **state) {
    (void)state;
    NEED_REDIS();
    char url[256], reason[256];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d", password_port);
    assert_int_equal(try_password(url, PASSWORD, reason, sizeof reason), REMOTE_OK);
    assert_int_equal(try_password(url, "wrong-horse", reason, sizeof reason), REMOTE_REFUSED);
    assert_non_null(strstr(reason, "WRONGPASS"));
    assert_int_equal(try_password(url, NULL, reason, sizeof reason), REMOTE_REFUSED);
    assert_non_null(strstr(reason, "NOAUTH"));

    /* In the URL, escaped or not (the last '@' ends it); it wins over a token. */
    snprintf(url, sizeof url, "redis://:s3cret%%40Pass%%3Ax@127.0.0.1:%d/2", password_port);
    assert_int_equal(try_password(url, "wrong-horse", reason, sizeof reason), REMOTE_OK);
    snprintf(url, sizeof url, "redis://:%s@127.0.0.1:%d", PASSWORD, password_port);
    assert_int_equal(try_password(url, NULL, reason, sizeof reason), REMOTE_OK);
    /* Redis 6 ACL: AUTH user password. */
    snprintf(url, sizeof url, "redis://default:s3cret%%40Pass%%3Ax@127.0.0.1:%d", password_port);
    assert_int_equal(try_password(url, NULL, reason, sizeof reason), REMOTE_OK);
    snprintf(url, sizeof url, "redis://nobody:s3cret%%40Pass%%3Ax@127.0.0.1:%d", password_port);
    assert_int_equal(try_password(url, NULL, reason, sizeof reason), REMOTE_REFUSED);
    snprintf(url, sizeof url, "redis://:wrong-horse@127.0.0.1:%d", password_port);
    assert_int_equal(try_password(url, PASSWORD, reason, sizeof reason), REMOTE_REFUSED);

    /* A password for a server that has none is a mistake worth stopping at. */
    snprintf(url, sizeof url, "redis://:wrong-horse@127.0.0.1:%d", open_port);
    assert_int_equal(try_password(url, NULL, reason, sizeof reason), REMOTE_REFUSED);
}

static void urls_are_checked_when_opened(void **state) {
    (void)state;
    static const char *const bad[] = {
        "http://127.0.0.1:6379",
        "redis://",
        "redis://:6379",
        "redis://host:0",
        "redis://host:65536",
        "redis://host:12ab",
        "redis://host:",
        "redis://host/db",
        "redis://host/-1",
        "redis://host?db=2",
        "redis://:s3cretPass@host?password=s3cret",
        "redis://host#x",
        "redis://us er@host",
        "redis://user@host",
        "rediss://host",
        "redis://:s3cret%zz@host",
        "redis://:s3cretPass@host:99999",
        "redis://ho st:1",
        "redis://[::1:1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        remote_transport t;
        memset(&t, 0xa5, sizeof t);
        char reason[256] = "";
        if (remote_redis_open(&t, bad[i], NULL, reason, sizeof reason))
            fail_msg("%s opened", bad[i]);
        assert_true(reason[0] != '\0');
        assert_no_secret(reason);
        assert_null(t.state);
        assert_null(t.get);
        assert_int_equal(t.label[0], '\0');
    }
    static const struct {
        const char *url, *label;
    } good[] = {
        {"redis://cache.example", "redis://cache.example"},
        {"redis://:s3cretPass@cache.example:6380/4", "redis://cache.example:6380/4"},
        {"redis://user:s3cret/Pass@cache.example/", "redis://cache.example/"},
        {"REDIS://[::1]:7000", "redis://[::1]:7000"},
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        remote_transport t;
        open_url(&t, good[i].url, NULL);
        assert_string_equal(t.label, good[i].label);
        t.close(t.state);
    }
}

/* ---- servers that are not Redis ------------------------------------------ */

typedef enum fake_mode {
    FAKE_HTTP,         /* answers like a web server */
    FAKE_RANDOM,       /* answers random bytes */
    FAKE_ENDLESS_LINE, /* "+" and then never a line end */
    FAKE_HUGE_BULK,    /* announces a bulk string of 8 GiB */
    FAKE_SILENT,       /* accepts, reads, never answers */
} fake_mode;

typedef struct fake_server {
    fake_mode mode;
    int listener;
    int port;
    int clients[64];
    int client_count;
    atomic_int stop;
    pthread_t thread;
} fake_server;

static void send_all(int fd, const void *data, size_t size) {
    const char *p = data;
    while (size > 0) {
        ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
        if (n <= 0)
            return;
        p += n;
        size -= (size_t)n;
    }
}

static void fake_answer(fake_server *f, int fd) {
    char request[4096];
    struct pollfd ready = {.fd = fd, .events = POLLIN};
    if (poll(&ready, 1, 1000) <= 0 || recv(fd, request, sizeof request, 0) <= 0)
        return;
    if (f->mode == FAKE_HTTP) {
        static const char http[] = "HTTP/1.1 200 OK\r\n\r\nhello";
        send_all(fd, http, sizeof http - 1);
    } else if (f->mode == FAKE_RANDOM) {
        uint8_t *noise = test_random_bytes(4096, 7);
        noise[0] = '!'; /* not a RESP type byte, whatever the seed */
        send_all(fd, noise, 4096);
        free(noise);
    } else if (f->mode == FAKE_ENDLESS_LINE) {
        char line[8192];
        memset(line, 'a', sizeof line);
        line[0] = '+';
        for (int i = 0; i < 16 && !f->stop; i++)
            send_all(fd, line, sizeof line);
    } else if (f->mode == FAKE_HUGE_BULK) {
        static const char bulk[] = "$8589934592\r\nabc";
        send_all(fd, bulk, sizeof bulk - 1);
    }
}

static void *fake_serve(void *arg) {
    fake_server *f = arg;
    while (!f->stop) {
        struct pollfd ready = {.fd = f->listener, .events = POLLIN};
        if (poll(&ready, 1, 20) <= 0)
            continue;
        int fd = accept(f->listener, NULL, NULL);
        if (fd < 0)
            continue;
        if (f->mode != FAKE_SILENT)
            fake_answer(f, fd);
        /* Kept open: the client must notice on its own that this is no Redis. */
        if (f->client_count < 64)
            f->clients[f->client_count++] = fd;
        else
            close(fd);
    }
    return NULL;
}

static int listen_loopback(int *port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(fd, (struct sockaddr *)&address, sizeof address), 0);
    assert_int_equal(listen(fd, 16), 0);
    socklen_t length = sizeof address;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&address, &length), 0);
    *port = ntohs(address.sin_port);
    return fd;
}

static void fake_start(fake_server *f, fake_mode mode) {
    *f = (fake_server){.mode = mode};
    f->listener = listen_loopback(&f->port);
    assert_int_equal(pthread_create(&f->thread, NULL, fake_serve, f), 0);
}

static void fake_stop(fake_server *f) {
    f->stop = 1;
    pthread_join(f->thread, NULL);
    for (int i = 0; i < f->client_count; i++)
        close(f->clients[i]);
    close(f->listener);
}

/* get, exists and put against a fake server in `mode`: each fails, with
 * `expected` in its reason (and not `absent`, unless NULL), within
 * `bound_ms`. */
static void assert_fails_against(fake_mode mode, long timeout_ms, int retries, const char *expected,
                                 const char *absent, long long bound_ms) {
    fake_server f;
    fake_start(&f, mode);
    remote_options options = {
        .connect_timeout_ms = 1000, .timeout_ms = timeout_ms, .retries = retries};
    remote_transport t;
    open_port_db(&t, f.port, 0, &options);
    char reason[256];
    bytebuf got = {0};
    for (int op = 0; op < 3; op++) {
        long long start = test_now_ms();
        remote_status status =
            op == 0   ? t.get(t.state, "fake/key", 1 << 20, &got, reason, sizeof reason)
            : op == 1 ? t.exists(t.state, "fake/key", reason, sizeof reason)
                      : t.put(t.state, "fake/key", (const uint8_t *)"v", 1, reason, sizeof reason);
        long long took = test_now_ms() - start;
        assert_int_equal(status, REMOTE_FAILED);
        if (strstr(reason, expected) == NULL)
            fail_msg("mode %d op %d: \"%s\" lacks \"%s\"", (int)mode, op, reason, expected);
        if (absent != NULL && strstr(reason, absent) != NULL)
            fail_msg("mode %d op %d: \"%s\" has \"%s\"", (int)mode, op, reason, absent);
        if (took > bound_ms)
            fail_msg("mode %d op %d took %lld ms", (int)mode, op, took);
        assert_int_equal(got.size, 0);
    }
    t.close(t.state);
    fake_stop(&f);
}

static void a_server_that_is_not_redis_fails(void **state) {
    (void)state;
    /* At once, not after timeout_ms: the reasons are not "timed out". */
    assert_fails_against(FAKE_HTTP, 500, 0, "unexpected reply", "timed out", 2000);
    assert_fails_against(FAKE_RANDOM, 500, 0, "unexpected reply", "timed out", 2000);
    /* Garbage does not pass: not retried. */
    assert_fails_against(FAKE_HTTP, 500, 3, "unexpected reply", "attempts", 2000);
    assert_fails_against(FAKE_ENDLESS_LINE, 500, 0, "unexpected reply", "timed out", 2000);
    assert_fails_against(FAKE_HUGE_BULK, 500, 0, "8589934592 bytes", "timed out", 2000);
}

static void a_silent_server_times_out(void **state) {
    (void)state;
    long long start = test_now_ms();
    assert_fails_against(FAKE_SILENT, 300, 0, "timed out after 300 ms", "attempts", 1000);
    long long took = test_now_ms() - start;
    assert_true(took >= 3 * 280);
    /* With one retry: 300 ms, 100 ms of back-off, 300 ms. */
    start = test_now_ms();
    assert_fails_against(FAKE_SILENT, 300, 1, "timed out after 300 ms (2 attempts)", NULL, 1600);
    took = test_now_ms() - start;
    assert_true(took >= 3 * 680);
}

static void a_closed_port_fails_quickly(void **state) {
    (void)state;
    int port;
    close(listen_loopback(&port)); /* a port nothing listens on now */
    remote_options options = {.connect_timeout_ms = 2000, .timeout_ms = 2000};
    remote_transport t;
    open_port_db(&t, port, 0, &options);
    char reason[256];
    long long start = test_now_ms();
    assert_int_equal(t.exists(t.state, "closed/key", reason, sizeof reason), REMOTE_FAILED);
    assert_true(test_now_ms() - start < 500);
    char expected[128];
    snprintf(expected, sizeof expected, "redis://127.0.0.1:%d: connection refused", port);
    assert_string_equal(reason, expected);
    t.close(t.state);

    /* Retried with back-off: 100 ms, then 400 ms. */
    options.retries = 2;
    open_port_db(&t, port, 0, &options);
    start = test_now_ms();
    assert_int_equal(t.exists(t.state, "closed/key", reason, sizeof reason), REMOTE_FAILED);
    long long took = test_now_ms() - start;
    assert_true(took >= 490 && took < 1500);
    assert_non_null(strstr(reason, "connection refused (3 attempts)"));
    t.close(t.state);
}

/* ---- Redis being Redis --------------------------------------------------- */

typedef struct worker {
    remote_transport *transport;
    int id;
    int failures;
    char reason[256];
} worker;

static void *work(void *arg) {
    worker *w = arg;
    for (int i = 0; i < 50; i++) {
        char key[64];
        snprintf(key, sizeof key, "threads/%d/%d", w->id, i);
        size_t size = (size_t)(w->id * 50 + i) * 97 % 20000;
        uint8_t *value = test_random_bytes(size, (uint64_t)(w->id * 1000 + i + 1));
        bytebuf got = {0};
        if (w->transport->put(w->transport->state, key, value, size, w->reason, sizeof w->reason) !=
                REMOTE_OK ||
            w->transport->get(w->transport->state, key, size, &got, w->reason, sizeof w->reason) !=
                REMOTE_OK ||
            got.size != size || (size > 0 && memcmp(got.data, value, size) != 0))
            w->failures++;
        bytebuf_free(&got);
        free(value);
    }
    return NULL;
}

static void threads_share_one_transport(void **state) {
    (void)state;
    NEED_REDIS();
    remote_options options = quick_options();
    remote_transport t;
    open_port_db(&t, open_port, 0, &options);
    worker workers[8];
    pthread_t threads[8];
    for (int i = 0; i < 8; i++) {
        workers[i] = (worker){.transport = &t, .id = i};
        assert_int_equal(pthread_create(&threads[i], NULL, work, &workers[i]), 0);
    }
    for (int i = 0; i < 8; i++)
        pthread_join(threads[i], NULL);
    for (int i = 0; i < 8; i++)
        if (workers[i].failures != 0)
            fail_msg("thread %d: %d failures, the last: %s", i, workers[i].failures,
                     workers[i].reason);
    t.close(t.state);
}

static void a_key_of_another_type_fails(void **state) {
    (void)state;
    NEED_REDIS();
    redisContext *raw = redisConnect("127.0.0.1", open_port);
    assert_true(raw != NULL && raw->err == 0);
    freeReplyObject(redisCommand(raw, "DEL type/list"));
    redisReply *reply = redisCommand(raw, "LPUSH type/list a b c");
    assert_non_null(reply);
    assert_int_equal(reply->type, REDIS_REPLY_INTEGER);
    freeReplyObject(reply);
    redisFree(raw);

    remote_options options = quick_options();
    remote_transport t;
    open_port_db(&t, open_port, 0, &options);
    char reason[256];
    bytebuf got = {0};
    assert_int_equal(t.get(t.state, "type/list", 100, &got, reason, sizeof reason), REMOTE_FAILED);
    assert_non_null(strstr(reason, "unexpected reply"));
    assert_non_null(strstr(reason, "WRONGTYPE"));
    assert_int_equal(got.size, 0);
    /* The connection is still good: the next operation on it works. */
    assert_int_equal(t.exists(t.state, "type/list", reason, sizeof reason), REMOTE_OK);
    t.close(t.state);
}

/* A pooled connection the server closed while idle (a restart, its idle
 * timeout) is replaced without counting as a failed attempt. */
static void a_dropped_pooled_connection_is_replaced(void **state) {
    (void)state;
    NEED_REDIS();
    remote_options options = quick_options(); /* retries 0 */
    remote_transport t;
    open_port_db(&t, open_port, 0, &options);
    char reason[256];
    assert_int_equal(t.put(t.state, "pool/key", (const uint8_t *)"v", 1, reason, sizeof reason),
                     REMOTE_OK);
    redisContext *raw = redisConnect("127.0.0.1", open_port);
    assert_true(raw != NULL && raw->err == 0);
    redisReply *reply = redisCommand(raw, "CLIENT KILL TYPE normal SKIPME yes");
    assert_non_null(reply);
    assert_int_equal(reply->type, REDIS_REPLY_INTEGER);
    assert_true(reply->integer >= 1);
    freeReplyObject(reply);
    redisFree(raw);
    if (t.exists(t.state, "pool/key", reason, sizeof reason) != REMOTE_OK)
        fail_msg("after the kill: %s", reason);
    t.close(t.state);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(values_come_back_byte_for_byte),
        cmocka_unit_test(a_value_larger_than_max_size_fails),
        cmocka_unit_test(the_url_selects_the_database),
        cmocka_unit_test(credentials_are_sent_and_never_shown),
        cmocka_unit_test(urls_are_checked_when_opened),
        cmocka_unit_test(a_server_that_is_not_redis_fails),
        cmocka_unit_test(a_silent_server_times_out),
        cmocka_unit_test(a_closed_port_fails_quickly),
        cmocka_unit_test(threads_share_one_transport),
        cmocka_unit_test(a_key_of_another_type_fails),
        cmocka_unit_test(a_dropped_pooled_connection_is_replaced),
    };
    return cmocka_run_group_tests(tests, setup_servers, teardown_servers);
}
