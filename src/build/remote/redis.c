/*
 * redis.c — the remote cache transport for redis:// URLs (transport.h): GET,
 * EXISTS and SET of keys on one Redis server, through hiredis.
 *
 * hiredis (Debian's 0.14) connects and parses replies, but the bytes on the
 * socket are moved here rather than by redisCommand, for what a cache that
 * must never stall or kill a build needs and 0.14 does not give:
 *   - one deadline per attempt, kept with poll(): a server that accepts and
 *     never answers, or trickles bytes, ends after timeout_ms (the socket
 *     timeouts of redisSetTimeout, set too, would bound each read, not their
 *     sum);
 *   - the head of a reply is looked at before its body is read, so a value
 *     larger than max_size, an array or bytes that are not RESP end the
 *     reply at once. hiredis 0.14's reader has no limit of its own (maxbuf
 *     only trims an idle buffer) and would buffer whatever "$<n>" a server
 *     announced. A GET of n <= max_size bytes still holds them about three
 *     times at its peak: the reader's buffer, hiredis' reply, the caller's
 *     copy;
 *   - commands are sent with MSG_NOSIGNAL: a server that closes the
 *     connection during a SET is a failed put, not a SIGPIPE.
 *
 * Connections are pooled: an operation takes an idle one (or connects,
 * AUTHs and SELECTs a new one) and gives it back when it ended with one
 * whole reply; after anything else the connection is closed, since its
 * stream may be out of step. Name resolution (getaddrinfo, inside hiredis'
 * connect) is the one step not bounded by the timeouts.
 *
 * The password is kept only to send AUTH: the label is built from the URL
 * without its credentials, and text from the server that goes into a reason
 * has the password cut out.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#include <hiredis/hiredis.h>

#include "build/remote/library.h"
#include "build/remote/transport.h"

/* hiredis, loaded when the first Redis transport opens (library.h): its
 * functions as its headers declare them. KILN_HIREDIS_FILE, its soname,
 * comes from the build (CMakeLists.txt): it changes with every release. */
static struct {
    __typeof__(redisConnectWithTimeout) *connect_with_timeout;
    __typeof__(redisSetTimeout) *set_timeout;
    __typeof__(redisFree) *free_context;
    __typeof__(redisReaderFeed) *reader_feed;
    __typeof__(redisReaderGetReply) *reader_get_reply;
    __typeof__(freeReplyObject) *free_reply;
} hiredis;

static const library_symbol hiredis_symbols[] = {
    LIBRARY_SYMBOL(hiredis, redisConnectWithTimeout, connect_with_timeout),
    LIBRARY_SYMBOL(hiredis, redisSetTimeout, set_timeout),
    LIBRARY_SYMBOL(hiredis, redisFree, free_context),
    LIBRARY_SYMBOL(hiredis, redisReaderFeed, reader_feed),
    LIBRARY_SYMBOL(hiredis, redisReaderGetReply, reader_get_reply),
    LIBRARY_SYMBOL(hiredis, freeReplyObject, free_reply),
};

static library_once hiredis_library = LIBRARY_ONCE_INIT;

#define REDIS_DEFAULT_PORT 6379
#define REDIS_IDLE_MAX 16      /* pooled connections kept between operations */
#define REDIS_LINE_MAX 65536   /* a status, error or integer reply is never this long */
#define REDIS_SMALL_REPLY 4096 /* a bulk reply to anything but GET */
/* A connection that read a larger value is closed rather than pooled: its
 * reader keeps a buffer that large until its next reply. */
#define REDIS_POOLED_VALUE (256 << 10)
#define REDIS_READ_CHUNK 16384
#define REDIS_MAX_ARGS 3

typedef struct redis_state {
    char label[256];
    char host[256];
    int port;
    int db;
    char *user;     /* Redis 6 ACL user for AUTH, or NULL */
    char *password; /* NULL: no AUTH */
    long connect_timeout_ms;
    long timeout_ms;
    int retries;
    pthread_mutex_t lock;
    redisContext *idle[REDIS_IDLE_MAX];
    size_t idle_count;
} redis_state;

/* One command; argv are byte strings of lens bytes (the value of a SET). */
typedef struct redis_request {
    int argc;
    const void *argv[REDIS_MAX_ARGS];
    size_t lens[REDIS_MAX_ARGS];
    size_t max_bulk; /* a bulk reply announcing more is refused before it is read */
    bool value;      /* the bulk reply is the value (GET): a reason says "larger" */
} redis_request;

/* How one attempt failed. */
typedef struct attempt {
    remote_status status;
    bool may_pass;   /* another attempt, on a fresh connection, may do */
    bool lost_early; /* the connection was closed before any byte of the reply:
                        a pooled one the server dropped while it was idle */
    char what[200];  /* the failure, without the label */
} attempt;

static void fail(attempt *a, remote_status status, bool may_pass, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

static void fail(attempt *a, remote_status status, bool may_pass, const char *format, ...) {
    a->status = status;
    a->may_pass = may_pass;
    va_list args;
    va_start(args, format);
    vsnprintf(a->what, sizeof a->what, format, args);
    va_end(args);
}

/* A socket error: every one of them may pass (a server restarting, a
 * network hiccup). */
static void fail_errno(attempt *a, int error, long timeout_ms) {
    switch (error) {
    case ETIMEDOUT:
    case EAGAIN:
#if EWOULDBLOCK != EAGAIN
    case EWOULDBLOCK:
#endif
        fail(a, REMOTE_FAILED, true, "timed out after %ld ms", timeout_ms);
        break;
    case ECONNREFUSED:
        fail(a, REMOTE_FAILED, true, "connection refused");
        break;
    case ECONNRESET:
    case EPIPE:
        fail(a, REMOTE_FAILED, true, "connection reset");
        break;
    default: {
        char text[128];
        /* The XSI strerror_r (_POSIX_C_SOURCE without _GNU_SOURCE). */
        if (strerror_r(error, text, sizeof text) != 0)
            snprintf(text, sizeof text, "error %d", error);
        fail(a, REMOTE_FAILED, true, "%s", text);
    }
    }
}

/* Text the server sent, fit for a reason: at most out_size - 1 bytes,
 * control bytes as '?', and the password cut out even where the text
 * would be truncated in its middle. */
static void server_text(char *out, size_t out_size, const char *text, size_t length,
                        const char *secret) {
    size_t secret_length = secret ? strlen(secret) : 0;
    size_t o = 0;
    for (size_t i = 0; i < length && o + 1 < out_size;) {
        if (secret_length > 0 && length - i >= secret_length &&
            memcmp(text + i, secret, secret_length) == 0) {
            for (const char *mark = "***"; *mark != '\0' && o + 1 < out_size; mark++)
                out[o++] = *mark;
            i += secret_length;
            continue;
        }
        unsigned char c = (unsigned char)text[i++];
        out[o++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    out[o] = '\0';
}

static long long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

/* ---------------------------------------------------------------------------
 * One command on one connection
 * ------------------------------------------------------------------------- */

static bool wait_ready(int fd, short events, long long deadline, long timeout_ms, attempt *a) {
    for (;;) {
        long long left = deadline - now_ms();
        if (left <= 0) {
            fail(a, REMOTE_FAILED, true, "timed out after %ld ms", timeout_ms);
            return false;
        }
        struct pollfd ready = {.fd = fd, .events = events};
        int n = poll(&ready, 1, left > INT_MAX ? INT_MAX : (int)left);
        if (n > 0)
            return true; /* readable, writable or failed: the next call tells */
        if (n < 0 && errno != EINTR) {
            fail_errno(a, errno, timeout_ms);
            return false;
        }
    }
}

static bool send_request(redisContext *c, const redis_request *request, long long deadline,
                         long timeout_ms, attempt *a) {
    char heads[1 + REDIS_MAX_ARGS][32];
    struct iovec pieces[1 + 3 * REDIS_MAX_ARGS];
    int count = 0;
    int length = snprintf(heads[0], sizeof heads[0], "*%d\r\n", request->argc);
    pieces[count++] = (struct iovec){heads[0], (size_t)length};
    for (int i = 0; i < request->argc; i++) {
        length = snprintf(heads[i + 1], sizeof heads[i + 1], "$%zu\r\n", request->lens[i]);
        pieces[count++] = (struct iovec){heads[i + 1], (size_t)length};
        pieces[count++] = (struct iovec){(void *)request->argv[i], request->lens[i]};
        pieces[count++] = (struct iovec){"\r\n", 2};
    }
    struct iovec *next = pieces;
    while (count > 0) {
        if (!wait_ready(c->fd, POLLOUT, deadline, timeout_ms, a))
            return false;
        struct msghdr message = {.msg_iov = next, .msg_iovlen = (size_t)count};
        ssize_t sent = sendmsg(c->fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
                continue;
            a->lost_early = errno == EPIPE || errno == ECONNRESET;
            fail_errno(a, errno, timeout_ms);
            return false;
        }
        size_t done = (size_t)sent;
        while (count > 0 && done >= next->iov_len) {
            done -= next->iov_len;
            next++;
            count--;
        }
        if (count > 0) {
            next->iov_base = (char *)next->iov_base + done;
            next->iov_len -= done;
        }
    }
    return true;
}

/* What the first bytes of a reply say, before its body is read: false, with
 * the failure, when the reply is not one to read. */
typedef struct reply_head {
    char bytes[24];
    size_t length;
    bool checked;
    long long announced; /* a bulk reply's length; -1 otherwise */
} reply_head;

static bool check_head(reply_head *head, const char *data, size_t size,
                       const redis_request *request, attempt *a) {
    if (head->checked)
        return true;
    size_t take = sizeof head->bytes - head->length;
    take = take < size ? take : size;
    memcpy(head->bytes + head->length, data, take);
    head->length += take;
    switch (head->bytes[0]) {
    case '+':
    case '-':
    case ':':
        head->checked = true;
        return true;
    case '$':
        break;
    case '*':
        fail(a, REMOTE_FAILED, false, "unexpected reply (an array)");
        return false;
    default:
        fail(a, REMOTE_FAILED, false, "unexpected reply (not the Redis protocol)");
        return false;
    }
    const char *end = memchr(head->bytes, '\r', head->length);
    if (end == NULL) {
        if (head->length < sizeof head->bytes)
            return true; /* the length is still on its way */
        fail(a, REMOTE_FAILED, false, "unexpected reply (not the Redis protocol)");
        return false;
    }
    /* "$-1" (nil) or up to 18 digits: strspn and strtoll stop at the '\r'. */
    const char *digits = head->bytes + 1;
    size_t count = (size_t)(end - digits);
    bool nil = count == 2 && memcmp(digits, "-1", 2) == 0;
    if (!nil && (count == 0 || count > 18 || strspn(digits, "0123456789") < count)) {
        fail(a, REMOTE_FAILED, false, "unexpected reply (not the Redis protocol)");
        return false;
    }
    long long announced = nil ? -1 : strtoll(digits, NULL, 10);
    if (!nil && (unsigned long long)announced > request->max_bulk) {
        if (request->value)
            fail(a, REMOTE_FAILED, false, "a value of %lld bytes is larger than max_size (%zu)",
                 announced, request->max_bulk);
        else
            fail(a, REMOTE_FAILED, false, "unexpected reply (a string of %lld bytes)", announced);
        return false;
    }
    head->announced = announced;
    head->checked = true;
    return true;
}

/* Reads one whole reply into *out (the caller frees it). *announced is the
 * length of a bulk reply, -1 for any other. */
static bool read_reply(redisContext *c, const redis_request *request, long long deadline,
                       long timeout_ms, redisReply **out, long long *announced, attempt *a) {
    reply_head head = {.announced = -1};
    size_t received = 0;
    char chunk[REDIS_READ_CHUNK];
    for (;;) {
        void *reply = NULL;
        if (hiredis.reader_get_reply(c->reader, &reply) != REDIS_OK) {
            fail(a, REMOTE_FAILED, false, "unexpected reply (not the Redis protocol)");
            return false;
        }
        if (reply != NULL) {
            /* One command, one reply: more bytes are not Redis's. */
            if (c->reader->pos < c->reader->len) {
                hiredis.free_reply(reply);
                fail(a, REMOTE_FAILED, false, "unexpected reply (more than one)");
                return false;
            }
            *out = reply;
            *announced = head.announced;
            return true;
        }
        if (!wait_ready(c->fd, POLLIN, deadline, timeout_ms, a))
            return false;
        ssize_t got = recv(c->fd, chunk, sizeof chunk, MSG_DONTWAIT);
        if (got == 0) {
            fail(a, REMOTE_FAILED, true, "connection closed by the server");
            a->lost_early = received == 0;
            return false;
        }
        if (got < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
                continue;
            a->lost_early = received == 0 && errno == ECONNRESET;
            fail_errno(a, errno, timeout_ms);
            return false;
        }
        received += (size_t)got;
        if (!check_head(&head, chunk, (size_t)got, request, a))
            return false;
        if (head.bytes[0] != '$' && received > REDIS_LINE_MAX) {
            fail(a, REMOTE_FAILED, false, "unexpected reply (a line of more than %d bytes)",
                 REDIS_LINE_MAX);
            return false;
        }
        if (hiredis.reader_feed(c->reader, chunk, (size_t)got) != REDIS_OK) {
            fail(a, REMOTE_FAILED, false, "out of memory");
            return false;
        }
    }
}

static bool starts_with(const redisReply *reply, const char *prefix) {
    size_t length = strlen(prefix);
    return reply->len >= length && strncasecmp(reply->str, prefix, length) == 0;
}

/* An error reply that decides the attempt: credentials refused (no retry),
 * or a server busy for a while (a retry may do). False for any other,
 * which the operation reads as its answer. */
static bool error_decides(const redis_state *s, const redisReply *reply, attempt *a) {
    if (reply->type != REDIS_REPLY_ERROR)
        return false;
    static const char *const refused[] = {
        "NOAUTH",   "WRONGPASS",           "NOPERM", "ERR invalid password", "ERR invalid username",
        "ERR AUTH", "ERR Client sent AUTH"};
    static const char *const passing[] = {"LOADING", "BUSY", "TRYAGAIN", "MASTERDOWN"};
    char text[120];
    server_text(text, sizeof text, reply->str, reply->len, s->password);
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        if (starts_with(reply, refused[i])) {
            fail(a, REMOTE_REFUSED, false, "credentials refused: %s", text);
            return true;
        }
    for (size_t i = 0; i < sizeof passing / sizeof *passing; i++)
        if (starts_with(reply, passing[i])) {
            fail(a, REMOTE_FAILED, true, "server busy: %s", text);
            return true;
        }
    return false;
}

/* Sends one command and reads its reply; an error reply that decides the
 * attempt is a failure too. */
static bool exchange(const redis_state *s, redisContext *c, const redis_request *request,
                     long long deadline, redisReply **reply, long long *announced, attempt *a) {
    *reply = NULL;
    if (!send_request(c, request, deadline, s->timeout_ms, a) ||
        !read_reply(c, request, deadline, s->timeout_ms, reply, announced, a))
        return false;
    if (error_decides(s, *reply, a)) {
        hiredis.free_reply(*reply);
        *reply = NULL;
        return false;
    }
    return true;
}

/* ---------------------------------------------------------------------------
 * Connections
 * ------------------------------------------------------------------------- */

/* A connection made ready for commands: connected within connect_timeout_ms,
 * then AUTH and SELECT by *deadline, timeout_ms later, which is the
 * attempt's command's too. */
static redisContext *connect_server(const redis_state *s, long long *deadline, attempt *a) {
    struct timeval connect_timeout = {s->connect_timeout_ms / 1000,
                                      (s->connect_timeout_ms % 1000) * 1000};
    errno = 0;
    redisContext *c = hiredis.connect_with_timeout(s->host, s->port, connect_timeout);
    int error = errno;
    if (c == NULL) {
        fail(a, REMOTE_FAILED, false, "out of memory");
        return NULL;
    }
    if (c->err != 0) {
        if (c->err == REDIS_ERR_IO && (error == ECONNREFUSED || error == ECONNRESET))
            fail_errno(a, error, s->connect_timeout_ms);
        else if (c->err == REDIS_ERR_IO && error == ETIMEDOUT)
            fail(a, REMOTE_FAILED, true, "connect timed out after %ld ms", s->connect_timeout_ms);
        else
            fail(a, REMOTE_FAILED, true, "cannot connect: %s", c->errstr);
        hiredis.free_context(c);
        return NULL;
    }
    /* Every read and write here is non-blocking under a poll() deadline; the
     * socket timeouts bound any that hiredis would make itself. */
    struct timeval timeout = {s->timeout_ms / 1000, (s->timeout_ms % 1000) * 1000};
    hiredis.set_timeout(c, timeout);

    *deadline = now_ms() + s->timeout_ms;
    redisReply *reply = NULL;
    long long announced;
    if (s->password != NULL) {
        redis_request auth = {.argc = 2, .max_bulk = REDIS_SMALL_REPLY};
        auth.argv[0] = "AUTH";
        if (s->user != NULL) {
            auth.argv[1] = s->user;
            auth.argc = 3;
        }
        auth.argv[auth.argc - 1] = s->password;
        for (int i = 0; i < auth.argc; i++)
            auth.lens[i] = strlen(auth.argv[i]);
        if (!exchange(s, c, &auth, *deadline, &reply, &announced, a))
            goto failed;
        if (reply->type != REDIS_REPLY_STATUS) {
            if (reply->type == REDIS_REPLY_ERROR)
                fail(a, REMOTE_REFUSED, false, "credentials refused");
            else
                fail(a, REMOTE_FAILED, false, "unexpected reply to AUTH");
            goto failed;
        }
        hiredis.free_reply(reply);
        reply = NULL;
    }
    if (s->db != 0) {
        char db[16];
        snprintf(db, sizeof db, "%d", s->db);
        redis_request select = {.argc = 2,
                                .argv = {"SELECT", db},
                                .lens = {6, strlen(db)},
                                .max_bulk = REDIS_SMALL_REPLY};
        if (!exchange(s, c, &select, *deadline, &reply, &announced, a))
            goto failed;
        if (reply->type != REDIS_REPLY_STATUS) {
            char text[120] = "";
            if (reply->type == REDIS_REPLY_ERROR)
                server_text(text, sizeof text, reply->str, reply->len, s->password);
            fail(a, REMOTE_FAILED, false, "SELECT %d: unexpected reply%s%s", s->db,
                 text[0] ? ": " : "", text);
            goto failed;
        }
        hiredis.free_reply(reply);
    }
    return c;

failed:
    hiredis.free_reply(reply);
    hiredis.free_context(c);
    return NULL;
}

static redisContext *pool_take(redis_state *s) {
    pthread_mutex_lock(&s->lock);
    redisContext *c = s->idle_count > 0 ? s->idle[--s->idle_count] : NULL;
    pthread_mutex_unlock(&s->lock);
    return c;
}

static void pool_give(redis_state *s, redisContext *c) {
    pthread_mutex_lock(&s->lock);
    bool kept = s->idle_count < REDIS_IDLE_MAX;
    if (kept)
        s->idle[s->idle_count++] = c;
    pthread_mutex_unlock(&s->lock);
    if (!kept)
        hiredis.free_context(c);
}

/* ---------------------------------------------------------------------------
 * Operations: attempts, retries, back-off
 * ------------------------------------------------------------------------- */

/* Runs one command, with the retries the options allow: REMOTE_OK with the
 * reply in *out (the caller frees it; an error reply that decided nothing
 * too), or a failure with its reason. */
static remote_status run(redis_state *s, const redis_request *request, redisReply **out,
                         char *reason, size_t reason_size) {
    attempt a = {0};
    int attempts = 0;
    for (int i = 0; i <= s->retries; i++) {
        if (i > 0) { /* 100 ms, 400 ms, 1.6 s, then 2 s */
            long back_off = 100;
            for (int k = 1; k < i && back_off < 2000; k++)
                back_off *= 4;
            sleep_ms(back_off < 2000 ? back_off : 2000);
        }
        attempts++;
        /* A retry starts on a fresh connection; so does the first attempt
         * again, once and at no cost, when its pooled one had gone stale. */
        bool fresh = i > 0;
        for (;;) {
            a = (attempt){0};
            redisContext *c = fresh ? NULL : pool_take(s);
            bool reused = c != NULL;
            long long deadline = now_ms() + s->timeout_ms;
            if (c == NULL && (c = connect_server(s, &deadline, &a)) == NULL)
                break;
            long long announced = -1;
            if (exchange(s, c, request, deadline, out, &announced, &a)) {
                if (announced > REDIS_POOLED_VALUE)
                    hiredis.free_context(c);
                else
                    pool_give(s, c);
                return REMOTE_OK;
            }
            hiredis.free_context(c);
            if (!(reused && a.lost_early))
                break;
            fresh = true;
        }
        if (!a.may_pass)
            break;
    }
    if (attempts > 1)
        snprintf(reason, reason_size, "%s: %s (%d attempts)", s->label, a.what, attempts);
    else
        snprintf(reason, reason_size, "%s: %s", s->label, a.what);
    return a.status;
}

static bool key_is_valid(const char *key) {
    size_t length = strlen(key);
    return length > 0 && length <= REMOTE_MAX_KEY &&
           strspn(key, "0123456789abcdefghijklmnopqrstuvwxyz/._-") == length;
}

static remote_status unexpected(const redis_state *s, const redisReply *reply, char *reason,
                                size_t reason_size) {
    char text[120] = "";
    if (reply->type == REDIS_REPLY_ERROR)
        server_text(text, sizeof text, reply->str, reply->len, s->password);
    snprintf(reason, reason_size, "%s: unexpected reply%s%s", s->label, text[0] ? ": " : "", text);
    return REMOTE_FAILED;
}

static remote_status bad_key(const redis_state *s, char *reason, size_t reason_size) {
    snprintf(reason, reason_size, "%s: invalid key", s->label);
    return REMOTE_FAILED;
}

static remote_status redis_get(void *state, const char *key, size_t max_size, bytebuf *out,
                               char *reason, size_t reason_size) {
    redis_state *s = state;
    if (!key_is_valid(key))
        return bad_key(s, reason, reason_size);
    redis_request get = {.argc = 2,
                         .argv = {"GET", key},
                         .lens = {3, strlen(key)},
                         .max_bulk = max_size,
                         .value = true};
    redisReply *reply;
    remote_status status = run(s, &get, &reply, reason, reason_size);
    if (status != REMOTE_OK)
        return status;
    if (reply->type == REDIS_REPLY_NIL) {
        status = REMOTE_MISSING;
    } else if (reply->type == REDIS_REPLY_STRING) {
        bytebuf_append(out, reply->str, reply->len);
        if (out->failed) {
            snprintf(reason, reason_size, "%s: out of memory", s->label);
            status = REMOTE_FAILED;
        }
    } else {
        status = unexpected(s, reply, reason, reason_size);
    }
    hiredis.free_reply(reply);
    return status;
}

static remote_status redis_exists(void *state, const char *key, char *reason, size_t reason_size) {
    redis_state *s = state;
    if (!key_is_valid(key))
        return bad_key(s, reason, reason_size);
    redis_request exists = {.argc = 2,
                            .argv = {"EXISTS", key},
                            .lens = {6, strlen(key)},
                            .max_bulk = REDIS_SMALL_REPLY};
    redisReply *reply;
    remote_status status = run(s, &exists, &reply, reason, reason_size);
    if (status != REMOTE_OK)
        return status;
    if (reply->type == REDIS_REPLY_INTEGER && reply->integer == 1)
        status = REMOTE_OK;
    else if (reply->type == REDIS_REPLY_INTEGER && reply->integer == 0)
        status = REMOTE_MISSING;
    else
        status = unexpected(s, reply, reason, reason_size);
    hiredis.free_reply(reply);
    return status;
}

static remote_status redis_put(void *state, const char *key, const uint8_t *data, size_t size,
                               char *reason, size_t reason_size) {
    redis_state *s = state;
    if (!key_is_valid(key))
        return bad_key(s, reason, reason_size);
    redis_request set = {.argc = 3,
                         .argv = {"SET", key, size > 0 ? (const void *)data : ""},
                         .lens = {3, strlen(key), size},
                         .max_bulk = REDIS_SMALL_REPLY};
    redisReply *reply;
    remote_status status = run(s, &set, &reply, reason, reason_size);
    if (status != REMOTE_OK)
        return status;
    if (!(reply->type == REDIS_REPLY_STATUS && starts_with(reply, "OK")))
        status = unexpected(s, reply, reason, reason_size);
    hiredis.free_reply(reply);
    return status;
}

static void forget(char **secret) {
    if (*secret != NULL)
        explicit_bzero(*secret, strlen(*secret));
    free(*secret);
    *secret = NULL;
}

static void redis_close(void *state) {
    redis_state *s = state;
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->idle_count; i++)
        hiredis.free_context(s->idle[i]);
    pthread_mutex_destroy(&s->lock);
    forget(&s->user);
    forget(&s->password);
    free(s);
}

/* ---------------------------------------------------------------------------
 * redis://[[user]:password@]host[:port][/db]
 * ------------------------------------------------------------------------- */

static int hex_value(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* A copy of text[0..length) with %XX decoded (a password may hold '@' or
 * ':' that way); NULL when out of memory or for a bad or NUL escape. */
static char *percent_decode(const char *text, size_t length) {
    char *out = malloc(length + 1);
    size_t o = 0;
    for (size_t i = 0; out != NULL && i < length; i++) {
        if (text[i] != '%') {
            out[o++] = text[i];
            continue;
        }
        int high = i + 2 < length ? hex_value(text[i + 1]) : -1;
        int low = i + 2 < length ? hex_value(text[i + 2]) : -1;
        if (high < 0 || low < 0 || (high == 0 && low == 0)) {
            explicit_bzero(out, o);
            free(out);
            return NULL;
        }
        out[o++] = (char)(high * 16 + low);
        i += 2;
    }
    if (out != NULL)
        out[o] = '\0';
    return out;
}

static bool digits_only(const char *text, size_t length) {
    return length > 0 && length <= 9 && strspn(text, "0123456789") >= length;
}

/* Fills s from the URL; false with what is wrong (never quoting the
 * credentials) in `what`. */
static bool parse_url(redis_state *s, const char *url, const remote_options *options, char *what,
                      size_t what_size) {
    static const char scheme[] = "redis://";
    if (strncasecmp(url, "rediss://", 9) == 0) {
        snprintf(what, what_size, "rediss:// (TLS) is not supported");
        return false;
    }
    if (strncasecmp(url, scheme, sizeof scheme - 1) != 0) {
        snprintf(what, what_size, "not a redis:// URL");
        return false;
    }
    const char *rest = url + sizeof scheme - 1;
    /* The last '@' ends the credentials: a password may hold '@', '/' or
     * ':' unescaped; a host, port or db never holds '@'. */
    const char *at = strrchr(rest, '@');
    const char *address = at ? at + 1 : rest;
    snprintf(s->label, sizeof s->label, "redis://%.*s", (int)strcspn(address, "?#"), address);

    if (strpbrk(address, "?#") != NULL) {
        snprintf(what, what_size, "a query or fragment is not supported");
        return false;
    }
    const char *p = address;
    size_t host_length;
    if (*p == '[') { /* [IPv6] */
        const char *close = strchr(p, ']');
        if (close == NULL) {
            snprintf(what, what_size, "no ']' after the IPv6 address");
            return false;
        }
        p++;
        host_length = (size_t)(close - p);
        if (strspn(p, "0123456789abcdefABCDEF:.%") < host_length) {
            snprintf(what, what_size, "invalid host");
            return false;
        }
        if (host_length < sizeof s->host)
            memcpy(s->host, p, host_length);
        p = close + 1;
    } else {
        host_length = strcspn(p, ":/");
        size_t valid = strspn(p, "0123456789abcdefghijklmnopqrstuvwxyz"
                                 "ABCDEFGHIJKLMNOPQRSTUVWXYZ.-_");
        if (valid < host_length) {
            snprintf(what, what_size, "invalid host");
            return false;
        }
        if (host_length < sizeof s->host)
            memcpy(s->host, p, host_length);
        p += host_length;
    }
    if (host_length == 0 || host_length >= sizeof s->host) {
        snprintf(what, what_size, host_length == 0 ? "no host" : "host name too long");
        return false;
    }
    s->host[host_length] = '\0';

    s->port = REDIS_DEFAULT_PORT;
    if (*p == ':') {
        p++;
        size_t length = strcspn(p, "/");
        long port = digits_only(p, length) ? strtol(p, NULL, 10) : 0;
        if (port < 1 || port > 65535) {
            snprintf(what, what_size, "invalid port");
            return false;
        }
        s->port = (int)port;
        p += length;
    }
    s->db = 0;
    if (*p == '/') {
        p++;
        size_t length = strlen(p);
        if (length > 0) {
            if (!digits_only(p, length)) {
                snprintf(what, what_size, "invalid database number");
                return false;
            }
            s->db = (int)strtol(p, NULL, 10);
        }
    } else if (*p != '\0') {
        snprintf(what, what_size, "invalid address");
        return false;
    }

    if (at != NULL && at > rest) {
        const char *colon = memchr(rest, ':', (size_t)(at - rest));
        if (colon == NULL) {
            snprintf(what, what_size, "credentials need ':' before the password");
            return false;
        }
        if (colon > rest && (s->user = percent_decode(rest, (size_t)(colon - rest))) == NULL) {
            snprintf(what, what_size, "invalid credentials (a bad %% escape, or out of memory)");
            return false;
        }
        if (at > colon + 1 &&
            (s->password = percent_decode(colon + 1, (size_t)(at - colon - 1))) == NULL) {
            snprintf(what, what_size, "invalid credentials (a bad %% escape, or out of memory)");
            return false;
        }
        if (s->password == NULL && s->user != NULL) {
            snprintf(what, what_size, "a user without a password");
            return false;
        }
    }
    /* The URL's password wins over the token. */
    if (s->password == NULL && options != NULL && options->token != NULL &&
        options->token[0] != '\0' && (s->password = strdup(options->token)) == NULL) {
        snprintf(what, what_size, "out of memory");
        return false;
    }
    return true;
}

bool remote_redis_open(remote_transport *transport, const char *url, const remote_options *options,
                       char *reason, size_t reason_size) {
    *transport = (remote_transport){0};
    char failure[192];
    if (!library_load_once(&hiredis_library, KILN_HIREDIS_FILE, hiredis_symbols,
                           sizeof hiredis_symbols / sizeof hiredis_symbols[0], &hiredis, NULL,
                           failure, sizeof failure)) {
        char label[sizeof transport->label];
        remote_url_label(url, label, sizeof label);
        snprintf(reason, reason_size, "%s: %s", label, failure);
        return false;
    }
    redis_state *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(reason, reason_size, "out of memory");
        return false;
    }
    char what[128];
    if (!parse_url(s, url, options, what, sizeof what)) {
        if (s->label[0] != '\0')
            snprintf(reason, reason_size, "%s: %s", s->label, what);
        else
            snprintf(reason, reason_size, "%s", what);
        forget(&s->user);
        forget(&s->password);
        free(s);
        return false;
    }
    long connect_timeout = options ? options->connect_timeout_ms : 0;
    long timeout = options ? options->timeout_ms : 0;
    s->connect_timeout_ms = connect_timeout > 0 ? connect_timeout : 2000;
    s->timeout_ms = timeout > 0 ? timeout : 20000;
    s->retries = options && options->retries > 0 ? options->retries : 0;
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        snprintf(reason, reason_size, "%s: cannot create a lock", s->label);
        forget(&s->user);
        forget(&s->password);
        free(s);
        return false;
    }
    snprintf(transport->label, sizeof transport->label, "%s", s->label);
    transport->state = s;
    transport->get = redis_get;
    transport->exists = redis_exists;
    transport->put = redis_put;
    transport->close = redis_close;
    return true;
}
