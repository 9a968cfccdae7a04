/*
 * http.c — the HTTP backend of the remote cache (transport.h): an entry is
 * <prefix>/<key>, fetched with GET, probed with HEAD and stored with PUT,
 * through libcurl. nginx with WebDAV, bazel-remote and plain S3-style
 * gateways all speak this much.
 *
 * A build asks for many small entries from many threads, so easy handles are
 * pooled (a free list under a mutex) and reused: each keeps its connection
 * alive, and TLS is negotiated once per handle instead of once per entry.
 *
 * Nothing here prints and nothing may leak the credentials a URL carries:
 * curl's default body sink (stdout) is always replaced, no CURLOPT_ERRORBUFFER
 * is set (curl writes URLs into it), and every reason is made here from the
 * label (remote_url_label) and the key, never from curl's messages.
 *
 * Every operation is bounded: connect and transfer timeouts, a GET body
 * refused past max_size (its Content-Length as soon as the headers end, then
 * the bytes as they come), and only failures that may pass (a refused, reset
 * or timed-out connection, a 5xx) retried, a bounded number of times with
 * back-off. No redirect is followed: a cache that answers elsewhere is
 * misconfigured, and following it could hand the credentials to another host.
 */
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "build/remote/library.h"
#include "build/remote/transport.h"
#include "common/grow.h"

#define HTTP_DEFAULT_CONNECT_TIMEOUT_MS 2000
#define HTTP_DEFAULT_TIMEOUT_MS 20000
#define HTTP_BACKOFF_FIRST_MS 100 /* then ×4 per attempt */
#define HTTP_BACKOFF_MAX_MS 2000

typedef struct http_state {
    char *prefix; /* the URL as given (credentials included), no trailing '/' */
    char label[256];
    struct curl_slist *headers; /* read-only once open: handles share it */
    char *netrc_file;
    char *ca_file; /* HTTPS: the CA certificates to trust; NULL: the system's */
    long connect_timeout_ms;
    long timeout_ms;
    int retries;
    pthread_mutex_t lock; /* guards the idle handles */
    CURL **idle;
    size_t idle_count;
    size_t idle_cap;
} http_state;

typedef enum http_method { HTTP_GET, HTTP_HEAD, HTTP_PUT } http_method;

/* One operation, over its attempts. */
typedef struct http_transfer {
    http_method method;
    CURL *curl;
    const char *key;
    /* GET: the body of a 200, at most max_size bytes */
    size_t max_size;
    bytebuf body;
    bool keep_body; /* the answer being read is a 200 */
    bool too_large;
    /* PUT */
    const uint8_t *data;
    size_t size;
    size_t sent;
} http_transfer;

/* libcurl, loaded when the first HTTP transport opens (library.h): its
 * functions as its headers declare them. KILN_LIBCURL_FILE, its soname,
 * comes from the build (CMakeLists.txt). */
static struct {
    __typeof__(curl_global_init) *global_init;
    __typeof__(curl_easy_init) *easy_init;
    __typeof__(curl_easy_setopt) *easy_setopt;
    __typeof__(curl_easy_perform) *easy_perform;
    __typeof__(curl_easy_getinfo) *easy_getinfo;
    __typeof__(curl_easy_reset) *easy_reset;
    __typeof__(curl_easy_cleanup) *easy_cleanup;
    __typeof__(curl_easy_strerror) *easy_strerror;
    __typeof__(curl_slist_append) *slist_append;
    __typeof__(curl_slist_free_all) *slist_free_all;
    __typeof__(curl_url) *url;
    __typeof__(curl_url_set) *url_set;
    __typeof__(curl_url_get) *url_get;
    __typeof__(curl_url_cleanup) *url_cleanup;
    __typeof__(curl_free) *free;
} libcurl;

static const library_symbol libcurl_symbols[] = {
    LIBRARY_SYMBOL(libcurl, curl_global_init, global_init),
    LIBRARY_SYMBOL(libcurl, curl_easy_init, easy_init),
    LIBRARY_SYMBOL(libcurl, curl_easy_setopt, easy_setopt),
    LIBRARY_SYMBOL(libcurl, curl_easy_perform, easy_perform),
    LIBRARY_SYMBOL(libcurl, curl_easy_getinfo, easy_getinfo),
    LIBRARY_SYMBOL(libcurl, curl_easy_reset, easy_reset),
    LIBRARY_SYMBOL(libcurl, curl_easy_cleanup, easy_cleanup),
    LIBRARY_SYMBOL(libcurl, curl_easy_strerror, easy_strerror),
    LIBRARY_SYMBOL(libcurl, curl_slist_append, slist_append),
    LIBRARY_SYMBOL(libcurl, curl_slist_free_all, slist_free_all),
    LIBRARY_SYMBOL(libcurl, curl_url, url),
    LIBRARY_SYMBOL(libcurl, curl_url_set, url_set),
    LIBRARY_SYMBOL(libcurl, curl_url_get, url_get),
    LIBRARY_SYMBOL(libcurl, curl_url_cleanup, url_cleanup),
    LIBRARY_SYMBOL(libcurl, curl_free, free),
};

static library_once curl_library = LIBRARY_ONCE_INIT;

static bool curl_start(char *reason, size_t reason_size) {
    if (libcurl.global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK)
        return true;
    snprintf(reason, reason_size, "libcurl could not start");
    return false;
}

static void say(char *reason, size_t reason_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(char *reason, size_t reason_size, const char *fmt, ...) {
    if (reason == NULL || reason_size == 0)
        return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(reason, reason_size, fmt, args);
    va_end(args);
}

static long elapsed_ms(const struct timespec *since) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long)(now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

static void sleep_ms(long ms) {
    struct timespec left = {ms / 1000, (ms % 1000) * 1000000};
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {
    }
}

/* ---------------------------------------------------------------------------
 * The pool of easy handles
 * ------------------------------------------------------------------------- */

static CURL *pool_take(http_state *http) {
    CURL *curl = NULL;
    pthread_mutex_lock(&http->lock);
    if (http->idle_count > 0)
        curl = http->idle[--http->idle_count];
    pthread_mutex_unlock(&http->lock);
    return curl != NULL ? curl : libcurl.easy_init();
}

static void pool_give_back(http_state *http, CURL *curl) {
    bool kept = false;
    pthread_mutex_lock(&http->lock);
    CURL **idle = array_grow(http->idle, &http->idle_cap, http->idle_count + 1, sizeof *idle, 8);
    if (idle != NULL) {
        http->idle = idle;
        http->idle[http->idle_count++] = curl;
        kept = true;
    }
    pthread_mutex_unlock(&http->lock);
    if (!kept)
        libcurl.easy_cleanup(curl); /* out of memory: only its connection is lost */
}

/* ---------------------------------------------------------------------------
 * Callbacks
 * ------------------------------------------------------------------------- */

/* Each header line; at the blank line that ends an answer's headers, decides
 * whether its body is the entry and refuses it by its Content-Length before
 * a byte of it arrives. Returning less than given aborts the transfer. */
static size_t on_header(char *line, size_t one, size_t count, void *user) {
    http_transfer *transfer = user;
    size_t length = one * count;
    bool headers_end = length > 0 && length <= 2 && (line[0] == '\r' || line[0] == '\n');
    if (transfer->method != HTTP_GET || !headers_end)
        return length;
    long status = 0;
    libcurl.easy_getinfo(transfer->curl, CURLINFO_RESPONSE_CODE, &status);
    transfer->keep_body = status == 200;
    curl_off_t content_length = -1;
    if (transfer->keep_body &&
        libcurl.easy_getinfo(transfer->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &content_length) ==
            CURLE_OK &&
        content_length > 0 && (unsigned long long)content_length > transfer->max_size) {
        transfer->too_large = true;
        return 0;
    }
    return length;
}

/* The body: the entry of a GET's 200, or bytes to drop (an error page, a
 * PUT's answer), never curl's default of writing them to stdout. */
static size_t on_body(char *bytes, size_t one, size_t count, void *user) {
    http_transfer *transfer = user;
    size_t length = one * count;
    if (!transfer->keep_body)
        return length;
    if (length > transfer->max_size - transfer->body.size) {
        transfer->too_large = true; /* no Content-Length, or one that lied */
        return 0;
    }
    bytebuf_append(&transfer->body, bytes, length);
    return transfer->body.failed ? 0 : length;
}

static size_t on_upload(char *buffer, size_t one, size_t count, void *user) {
    http_transfer *transfer = user;
    size_t length = one * count;
    if (length > transfer->size - transfer->sent)
        length = transfer->size - transfer->sent;
    if (length > 0)
        memcpy(buffer, transfer->data + transfer->sent, length);
    transfer->sent += length;
    return length;
}

/* curl rewinds the upload when it must send it again on a new connection. */
static int on_upload_seek(void *user, curl_off_t offset, int origin) {
    http_transfer *transfer = user;
    if (origin != SEEK_SET || offset < 0 || (unsigned long long)offset > transfer->size)
        return CURL_SEEKFUNC_CANTSEEK;
    transfer->sent = (size_t)offset;
    return CURL_SEEKFUNC_OK;
}

/* ---------------------------------------------------------------------------
 * One attempt
 * ------------------------------------------------------------------------- */

static CURLcode set_options(const http_state *http, http_transfer *transfer, const char *url) {
    CURL *curl = transfer->curl;
    /* Back to defaults, keeping the live connection (and TLS session). */
    libcurl.easy_reset(curl);
    CURLcode code = libcurl.easy_setopt(curl, CURLOPT_URL, url);
#if LIBCURL_VERSION_NUM >= 0x075500
    if (code == CURLE_OK)
        code = libcurl.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    if (code == CURLE_OK)
        code =
            libcurl.easy_setopt(curl, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    if (code == CURLE_OK) /* no SIGALRM for timeouts: other threads run */
        code = libcurl.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    if (code == CURLE_OK)
        code = libcurl.easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    if (code == CURLE_OK)
        code = libcurl.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, http->connect_timeout_ms);
    if (code == CURLE_OK)
        code = libcurl.easy_setopt(curl, CURLOPT_TIMEOUT_MS, http->timeout_ms);
    if (code == CURLE_OK)
        code = libcurl.easy_setopt(curl, CURLOPT_USERAGENT, "kiln");
    if (code == CURLE_OK)
        code = libcurl.easy_setopt(curl, CURLOPT_HTTPHEADER, http->headers);
    if (code == CURLE_OK)
        code = libcurl.easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    if (code == CURLE_OK)
        code = libcurl.easy_setopt(curl, CURLOPT_HEADERDATA, transfer);
    if (code == CURLE_OK)
        code = libcurl.easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    if (code == CURLE_OK)
        code = libcurl.easy_setopt(curl, CURLOPT_WRITEDATA, transfer);
    if (code == CURLE_OK && http->ca_file != NULL)
        code = libcurl.easy_setopt(curl, CURLOPT_CAINFO, http->ca_file);
    if (code == CURLE_OK && http->netrc_file != NULL) {
        code = libcurl.easy_setopt(curl, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
        if (code == CURLE_OK)
            code = libcurl.easy_setopt(curl, CURLOPT_NETRC_FILE, http->netrc_file);
    }
    if (code == CURLE_OK && transfer->method == HTTP_HEAD)
        code = libcurl.easy_setopt(curl, CURLOPT_NOBODY, 1L);
    if (code == CURLE_OK && transfer->method == HTTP_PUT) {
        code = libcurl.easy_setopt(curl, CURLOPT_UPLOAD, 1L);
        if (code == CURLE_OK) /* sent as Content-Length */
            code = libcurl.easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, (curl_off_t)transfer->size);
        if (code == CURLE_OK)
            code = libcurl.easy_setopt(curl, CURLOPT_READFUNCTION, on_upload);
        if (code == CURLE_OK)
            code = libcurl.easy_setopt(curl, CURLOPT_READDATA, transfer);
        if (code == CURLE_OK)
            code = libcurl.easy_setopt(curl, CURLOPT_SEEKFUNCTION, on_upload_seek);
        if (code == CURLE_OK)
            code = libcurl.easy_setopt(curl, CURLOPT_SEEKDATA, transfer);
    }
    return code;
}

/* What went wrong below HTTP, in words that hold no URL; *may_pass for what
 * a later attempt may not meet. */
static void describe_failure(const http_state *http, http_transfer *transfer, CURLcode code,
                             long attempt_ms, bool *may_pass, char *reason, size_t reason_size) {
    long os_errno = 0;
    libcurl.easy_getinfo(transfer->curl, CURLINFO_OS_ERRNO, &os_errno);
    const char *label = http->label;
    *may_pass = true;
    switch (code) {
    case CURLE_COULDNT_CONNECT:
        if (os_errno == ECONNREFUSED)
            say(reason, reason_size, "%s: connection refused", label);
        else if (os_errno == EHOSTUNREACH || os_errno == ENETUNREACH)
            say(reason, reason_size, "%s: host unreachable", label);
        else
            say(reason, reason_size, "%s: cannot connect", label);
        break;
    case CURLE_OPERATION_TIMEDOUT:
        /* Before the whole timeout ran out, only the connect timeout can have. */
        if (http->connect_timeout_ms < http->timeout_ms && attempt_ms < http->timeout_ms)
            say(reason, reason_size, "%s: connection timed out after %ld ms", label,
                http->connect_timeout_ms);
        else
            say(reason, reason_size, "%s: timed out after %ld ms", label, http->timeout_ms);
        break;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
        say(reason, reason_size, "%s: connection %s", label,
            os_errno == ECONNRESET ? "reset" : "lost");
        break;
    case CURLE_GOT_NOTHING:
        say(reason, reason_size, "%s: connection closed without an answer", label);
        break;
    case CURLE_PARTIAL_FILE:
        say(reason, reason_size, "%s: answer cut short", label);
        break;
    default:
        *may_pass = false;
        if (code == CURLE_COULDNT_RESOLVE_HOST)
            say(reason, reason_size, "%s: cannot resolve the host name", label);
        else if (code == CURLE_PEER_FAILED_VERIFICATION)
            say(reason, reason_size, "%s: the server's TLS certificate is not trusted", label);
        else /* curl_easy_strerror is a fixed text per code, never a URL */
            say(reason, reason_size, "%s: %s", label, libcurl.easy_strerror(code));
        break;
    }
}

static const char *method_name(http_method method) {
    return method == HTTP_GET ? "GET" : method == HTTP_HEAD ? "HEAD" : "PUT";
}

static remote_status attempt(const http_state *http, http_transfer *transfer, const char *url,
                             bool *may_pass, char *reason, size_t reason_size) {
    *may_pass = false;
    transfer->body.size = 0;
    transfer->keep_body = false;
    transfer->too_large = false;
    transfer->sent = 0;
    CURLcode code = set_options(http, transfer, url);
    if (code != CURLE_OK) {
        say(reason, reason_size, "%s: libcurl: %s", http->label, libcurl.easy_strerror(code));
        return REMOTE_FAILED;
    }
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    code = libcurl.easy_perform(transfer->curl);
    if (transfer->too_large) {
        say(reason, reason_size, "%s: %s is larger than %zu bytes", http->label, transfer->key,
            transfer->max_size);
        return REMOTE_FAILED;
    }
    if (transfer->body.failed) {
        say(reason, reason_size, "%s: out of memory", http->label);
        return REMOTE_FAILED;
    }
    if (code != CURLE_OK) {
        describe_failure(http, transfer, code, elapsed_ms(&start), may_pass, reason, reason_size);
        return REMOTE_FAILED;
    }

    long status = 0;
    libcurl.easy_getinfo(transfer->curl, CURLINFO_RESPONSE_CODE, &status);
    if (transfer->method == HTTP_PUT ? status == 200 || status == 201 || status == 204
                                     : status == 200)
        return REMOTE_OK;
    if (status == 404 && transfer->method != HTTP_PUT)
        return REMOTE_MISSING;
    if (status == 401 || status == 403) {
        say(reason, reason_size, "%s: HTTP %ld: the server refused the credentials", http->label,
            status);
        return REMOTE_REFUSED;
    }
    /* A busy or restarting server, or one asking to slow down. */
    *may_pass = status >= 500 || status == 408 || status == 429;
    if (*may_pass)
        say(reason, reason_size, "%s: HTTP %ld", http->label, status);
    else
        say(reason, reason_size, "%s: HTTP %ld for %s %s", http->label, status,
            method_name(transfer->method), transfer->key);
    return REMOTE_FAILED;
}

/* ---------------------------------------------------------------------------
 * Operations
 * ------------------------------------------------------------------------- */

static bool key_is_valid(const char *key) {
    size_t length = strlen(key);
    return length > 0 && length <= REMOTE_MAX_KEY &&
           strspn(key, "0123456789abcdefghijklmnopqrstuvwxyz/._-") == length;
}

/* The attempts of one operation: the first, then up to `retries` more while
 * the failure may pass, waiting 100 ms, 400 ms, 1.6 s, 2 s... between. */
static remote_status run(http_state *http, http_transfer *transfer, const char *key, char *reason,
                         size_t reason_size) {
    while (key != NULL && key[0] == '/') /* exactly one '/' after the prefix */
        key++;
    if (key == NULL || !key_is_valid(key)) {
        say(reason, reason_size, "%s: not a cache key", http->label);
        return REMOTE_FAILED;
    }
    transfer->key = key;
    size_t url_size = strlen(http->prefix) + 1 + strlen(key) + 1;
    char *url = malloc(url_size);
    transfer->curl = url != NULL ? pool_take(http) : NULL;
    if (transfer->curl == NULL) {
        free(url);
        say(reason, reason_size, "%s: out of memory", http->label);
        return REMOTE_FAILED;
    }
    snprintf(url, url_size, "%s/%s", http->prefix, key);

    remote_status status;
    int attempts = 0;
    long backoff_ms = HTTP_BACKOFF_FIRST_MS;
    for (;;) {
        bool may_pass;
        status = attempt(http, transfer, url, &may_pass, reason, reason_size);
        attempts++;
        if (status != REMOTE_FAILED || !may_pass || attempts > http->retries)
            break;
        sleep_ms(backoff_ms);
        backoff_ms = backoff_ms * 4 < HTTP_BACKOFF_MAX_MS ? backoff_ms * 4 : HTTP_BACKOFF_MAX_MS;
    }
    if (status == REMOTE_FAILED && attempts > 1 && reason != NULL && reason_size > 0) {
        size_t used = strlen(reason);
        /* "HTTP 503 after 3 attempts", "timed out after 300 ms, 2 attempts" */
        say(reason + used, reason_size - used,
            strstr(reason, " after ") != NULL ? ", %d attempts" : " after %d attempts", attempts);
    }
    pool_give_back(http, transfer->curl);
    free(url);
    return status;
}

static remote_status http_get(void *state, const char *key, size_t max_size, bytebuf *out,
                              char *reason, size_t reason_size) {
    http_transfer transfer = {.method = HTTP_GET, .max_size = max_size};
    remote_status status = run(state, &transfer, key, reason, reason_size);
    if (status == REMOTE_OK && out->cap == 0 && !out->failed) {
        *out = transfer.body; /* the usual case: hand the buffer over */
        return status;
    }
    if (status == REMOTE_OK && transfer.body.size > 0) {
        bytebuf_append(out, transfer.body.data, transfer.body.size);
        if (out->failed) {
            say(reason, reason_size, "%s: out of memory", ((http_state *)state)->label);
            status = REMOTE_FAILED;
        }
    }
    bytebuf_free(&transfer.body);
    return status;
}

static remote_status http_exists(void *state, const char *key, char *reason, size_t reason_size) {
    http_transfer transfer = {.method = HTTP_HEAD};
    return run(state, &transfer, key, reason, reason_size);
}

static remote_status http_put(void *state, const char *key, const uint8_t *data, size_t size,
                              char *reason, size_t reason_size) {
    http_transfer transfer = {.method = HTTP_PUT, .data = data, .size = size};
    return run(state, &transfer, key, reason, reason_size);
}

static void http_close(void *state) {
    http_state *http = state;
    if (http == NULL)
        return;
    for (size_t i = 0; i < http->idle_count; i++)
        libcurl.easy_cleanup(http->idle[i]);
    free(http->idle);
    pthread_mutex_destroy(&http->lock);
    libcurl.slist_free_all(http->headers);
    free(http->netrc_file);
    free(http->ca_file);
    free(http->prefix);
    free(http);
}

/* ---------------------------------------------------------------------------
 * Opening
 * ------------------------------------------------------------------------- */

/* What curl's own parser makes of the URL: a host, and no query or fragment
 * (an entry's URL is the prefix, '/', the key). */
static bool url_is_usable(const char *url, const char *label, char *reason, size_t reason_size) {
    CURLU *parsed = libcurl.url();
    if (parsed == NULL) {
        say(reason, reason_size, "%s: out of memory", label);
        return false;
    }
    bool usable = false;
    char *part = NULL;
    if (libcurl.url_set(parsed, CURLUPART_URL, url, 0) != CURLUE_OK) {
        say(reason, reason_size, "%s: not a valid URL", label);
    } else if (libcurl.url_get(parsed, CURLUPART_QUERY, &part, 0) == CURLUE_OK ||
               libcurl.url_get(parsed, CURLUPART_FRAGMENT, &part, 0) == CURLUE_OK) {
        say(reason, reason_size, "%s: a cache URL takes no query or fragment", label);
    } else {
        usable = true;
    }
    libcurl.free(part);
    libcurl.url_cleanup(parsed);
    return usable;
}

/* The Authorization and Expect headers every request sends; NULL when out of
 * memory. An empty Expect stops curl from waiting for "100 Continue" before
 * a PUT's body: one round trip less per entry. */
static struct curl_slist *make_headers(const char *token) {
    struct curl_slist *headers = libcurl.slist_append(NULL, "Expect:");
    if (headers == NULL || token == NULL)
        return headers;
    static const char bearer[] = "Authorization: Bearer ";
    size_t size = sizeof bearer + strlen(token);
    char *line = malloc(size);
    struct curl_slist *more = NULL;
    if (line != NULL) {
        snprintf(line, size, "%s%s", bearer, token);
        more = libcurl.slist_append(headers, line);
        free(line);
    }
    if (more == NULL) {
        libcurl.slist_free_all(headers);
        return NULL;
    }
    return more;
}

bool remote_http_open(remote_transport *transport, const char *url, const remote_options *options,
                      char *reason, size_t reason_size) {
    *transport = (remote_transport){0};
    char label[sizeof transport->label];
    remote_url_label(url, label, sizeof label);
    size_t scheme_length = url == NULL                            ? 0
                           : strncasecmp(url, "http://", 7) == 0  ? 7
                           : strncasecmp(url, "https://", 8) == 0 ? 8
                                                                  : 0;
    if (scheme_length == 0) {
        say(reason, reason_size, "%s: not an http:// or https:// URL", label);
        return false;
    }
    for (size_t length = strlen(label); length > scheme_length && label[length - 1] == '/';)
        label[--length] = '\0';

    char failure[192];
    if (!library_load_once(&curl_library, KILN_LIBCURL_FILE, libcurl_symbols,
                           sizeof libcurl_symbols / sizeof libcurl_symbols[0], &libcurl, curl_start,
                           failure, sizeof failure)) {
        say(reason, reason_size, "%s: %s", label, failure);
        return false;
    }
    if (!url_is_usable(url, label, reason, reason_size))
        return false;
    const char *token = options != NULL && options->token != NULL && options->token[0] != '\0'
                            ? options->token
                            : NULL;
    const char *netrc_file =
        options != NULL && options->netrc_file != NULL && options->netrc_file[0] != '\0'
            ? options->netrc_file
            : NULL;
    if (token != NULL && strpbrk(token, "\r\n") != NULL) {
        say(reason, reason_size, "%s: the token holds a line break", label);
        return false;
    }
    if (netrc_file != NULL && access(netrc_file, R_OK) != 0) {
        say(reason, reason_size, "%s: cannot read the netrc file %s", label, netrc_file);
        return false;
    }
    const char *ca_file = options != NULL && options->ca_file != NULL && options->ca_file[0] != '\0'
                              ? options->ca_file
                              : NULL;
    if (ca_file != NULL && access(ca_file, R_OK) != 0) {
        say(reason, reason_size, "%s: cannot read the CA file %s", label, ca_file);
        return false;
    }

    http_state *http = calloc(1, sizeof *http);
    if (http == NULL || pthread_mutex_init(&http->lock, NULL) != 0) {
        free(http);
        say(reason, reason_size, "%s: out of memory", label);
        return false;
    }
    http->prefix = strdup(url);
    http->netrc_file = netrc_file != NULL ? strdup(netrc_file) : NULL;
    http->ca_file = ca_file != NULL ? strdup(ca_file) : NULL;
    http->headers = make_headers(token);
    if (http->prefix == NULL || (netrc_file != NULL && http->netrc_file == NULL) ||
        (ca_file != NULL && http->ca_file == NULL) || http->headers == NULL) {
        http_close(http);
        say(reason, reason_size, "%s: out of memory", label);
        return false;
    }
    /* The URL parsed with a host, so trimming stops before the "//". */
    for (size_t length = strlen(http->prefix);
         length > scheme_length && http->prefix[length - 1] == '/';)
        http->prefix[--length] = '\0';
    memcpy(http->label, label, sizeof label);
    long connect_timeout_ms = options != NULL ? options->connect_timeout_ms : 0;
    long timeout_ms = options != NULL ? options->timeout_ms : 0;
    int retries = options != NULL ? options->retries : 0;
    http->connect_timeout_ms =
        connect_timeout_ms > 0 ? connect_timeout_ms : HTTP_DEFAULT_CONNECT_TIMEOUT_MS;
    http->timeout_ms = timeout_ms > 0 ? timeout_ms : HTTP_DEFAULT_TIMEOUT_MS;
    http->retries = retries > 0 ? retries : 0;

    memcpy(transport->label, label, sizeof label);
    transport->state = http;
    transport->get = http_get;
    transport->exists = http_exists;
    transport->put = http_put;
    transport->close = http_close;
    return true;
}
