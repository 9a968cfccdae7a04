/*
 * build/remote/transport.h — moving bytes to and from one remote cache
 * server: the backends a remote cache layer (build/remote/remote.h) is built
 * on. A transport knows keys and byte strings, nothing of what they mean:
 * entries, checksums and the decision to trust them are the layer's.
 *
 *   http.c    http:// and https:// URL prefixes: GET, HEAD and PUT of
 *             <prefix>/<key> through libcurl (nginx with WebDAV, bazel-remote,
 *             an S3-compatible gateway's plain paths)
 *   redis.c   redis://[:password@]host[:port][/db]: GET, EXISTS, SET of
 *             <key> through hiredis
 *   folder.c  file:///path: files under a folder (a network file system)
 *
 * Keys are made of [0-9a-z/._-] and are at most REMOTE_MAX_KEY bytes; a
 * transport refuses any other key (REMOTE_FAILED, "not a cache key").
 *
 * Every operation may be called from many threads at once on one transport;
 * a transport keeps its own connections (a pool, so that connections are
 * reused: keep-alive). Every operation is bounded in time (connect timeout,
 * operation timeout, a bounded number of retries with back-off for failures
 * that may pass: a refused or reset connection, a timeout, HTTP 5xx, 408 and
 * 429, Redis LOADING and BUSY) and in memory: a GET stops reading once it
 * knows the answer is larger than its max_size (HTTP: from Content-Length or
 * as bytes arrive; Redis: from the reply's length prefix; an accepted Redis
 * value is held about three times at its peak, in hiredis' buffers and ours).
 * `reason` is written for REMOTE_REFUSED and REMOTE_FAILED only; a failed
 * get leaves `out` as it was.
 *
 * Credentials never appear in a label, a reason or anything a transport
 * writes; the URL given to open may carry user:password, the label never.
 */
#ifndef KILN_BUILD_REMOTE_TRANSPORT_H
#define KILN_BUILD_REMOTE_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/cook.h"

#define REMOTE_MAX_KEY 200

typedef enum remote_status {
    REMOTE_OK,      /* done; a get filled `out` */
    REMOTE_MISSING, /* get / exists: no such key (HTTP 404, Redis nil) */
    REMOTE_REFUSED, /* the server refused the credentials (401, 403, NOAUTH,
                       WRONGPASS): retrying will not help */
    REMOTE_FAILED,  /* unreachable, timed out, 5xx after the retries, an
                       answer that is not the protocol's, larger than max_size */
} remote_status;

/* How to reach servers; shared by every transport of a build. */
typedef struct remote_options {
    const char *token;       /* HTTP: "Authorization: Bearer <token>"; Redis:
                                AUTH <token> (a password; an ACL user name
                                comes only from the URL). NULL: none */
    const char *netrc_file;  /* HTTP: user:password from this netrc-style file
                                (curl's format) for the URL's host. NULL: none */
    const char *ca_file;     /* HTTPS: trust the CA certificates (PEM) of this
                                file instead of the system's (a studio's own
                                CA). NULL: the system's */
    long connect_timeout_ms; /* 0: 2000 */
    long timeout_ms;         /* one attempt of one operation; 0: 20000 */
    int retries;             /* further attempts after a failure that may
                                pass, with back-off; < 0: 0. 0: none */
} remote_options;

typedef struct remote_transport {
    char label[256]; /* the URL without credentials or query, for messages */
    void *state;
    /* The bytes stored under `key`: REMOTE_OK with them in *out (appended to
     * an empty bytebuf the caller frees), REMOTE_MISSING, or a failure with
     * a reason. More than max_size bytes is REMOTE_FAILED ("larger than"). */
    remote_status (*get)(void *state, const char *key, size_t max_size, bytebuf *out, char *reason,
                         size_t reason_size);
    /* REMOTE_OK when `key` is stored, REMOTE_MISSING when not. */
    remote_status (*exists)(void *state, const char *key, char *reason, size_t reason_size);
    /* Stores `size` bytes under `key`, replacing what was there. */
    remote_status (*put)(void *state, const char *key, const uint8_t *data, size_t size,
                         char *reason, size_t reason_size);
    /* Closes every connection and frees the state; called once every
     * operation has returned. */
    void (*close)(void *state);
} remote_transport;

/* Each fills *transport for `url` and returns true, or returns false with a
 * reason (a URL it cannot use) and leaves *transport zeroed. No connection
 * is made until the first operation. */
bool remote_http_open(remote_transport *transport, const char *url, const remote_options *options,
                      char *reason, size_t reason_size);
bool remote_redis_open(remote_transport *transport, const char *url, const remote_options *options,
                       char *reason, size_t reason_size);

/* file:///path: entries as files under an existing folder (a shared network
 * file system); folder.c. */
bool remote_folder_open(remote_transport *transport, const char *url, char *reason,
                        size_t reason_size);

/* `url` without "user:password@" and without a query or fragment, into
 * label (truncated to fit). */
void remote_url_label(const char *url, char *label, size_t label_size);

#endif /* KILN_BUILD_REMOTE_TRANSPORT_H */
