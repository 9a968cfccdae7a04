/*
 * watch_serve.c — `kiln watch --serve` (watch.h): COOK and FRESH requests on
 * <output>/.kiln-serve (src/common/cook_server.h), answered by the main
 * thread, also while a round cooks.
 *
 *   during a round   a request whose sources the last published round left
 *                    up to date, untouched by any change seen since, with
 *                    their cooked files on disk, is answered at once from
 *                    what it published (watch_served.h); any other waits
 *                    for the round to publish
 *   after a round    a request that waited is answered from what the round
 *                    published when that is up to date (the round cooked
 *                    it, or failed it: its error); otherwise, as between
 *                    rounds:
 *   between rounds   COOK <ref>: a focused build of the sources that produce
 *                    the ref, ahead of queued changes; FRESH <ref>: SAME when
 *                    the ref is up to date (or no change waits), ERR naming
 *                    the failure of a source producing it; else the waiting
 *                    changes' round runs first, then OK
 *
 * A second server on the same output is refused before its first round
 * (serve_socket_is_free). A connection silent for --idle-timeout is closed
 * (one waiting for a round is not silent), and with every place taken a new
 * client takes the place of the one silent longest (serve_accept).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli/watch.h"

/* ---------------------------------------------------------------------------
 * The socket
 * ------------------------------------------------------------------------- */

/* Fills `address` with <output>/.kiln-serve (state->socket_path); false,
 * said, when it cannot be a Unix socket's address. */
static bool serve_address(watch_state *state, struct sockaddr_un *address) {
    if (state->socket_path == NULL)
        state->socket_path = cook_path_join(state->output, COOK_SERVER_SOCKET_NAME);
    if (state->socket_path == NULL) {
        cli_error("out of memory");
        return false;
    }
    *address = (struct sockaddr_un){.sun_family = AF_UNIX};
    if (strlen(state->socket_path) >= sizeof address->sun_path) {
        cli_error("the socket path '%s' is too long for a Unix socket (%zu bytes at most): "
                  "use a shorter output folder path",
                  state->socket_path, sizeof address->sun_path - 1);
        return false;
    }
    memcpy(address->sun_path, state->socket_path, strlen(state->socket_path) + 1);
    return true;
}

/* A socket file left by a watch that was killed answers nothing. Asked
 * before the first round too, so that a second server fails before it
 * builds. */
bool serve_socket_is_free(watch_state *state) {
    struct sockaddr_un address;
    if (!serve_address(state, &address))
        return false;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        cli_error("cannot create the cook server socket: %s", strerror(errno));
        return false;
    }
    /* EAGAIN: it is there, its backlog full. */
    bool answers =
        connect(fd, (const struct sockaddr *)&address, sizeof address) == 0 || errno == EAGAIN;
    close(fd);
    if (answers)
        cli_error("another kiln watch --serve is serving the output folder '%s' (its socket '%s' "
                  "answers): stop it, or give this watch another output folder",
                  state->output, state->socket_path);
    return !answers;
}

bool serve_start(watch_state *state) {
    state->listen_fd = -1;
    struct sockaddr_un address;
    /* Asked again: another watch may have started during the first round. */
    if (!serve_socket_is_free(state) || !serve_address(state, &address))
        return false;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct stat info;
    /* A socket file that answered nothing: left by a watch that was killed. */
    if (lstat(state->socket_path, &info) == 0 && S_ISSOCK(info.st_mode))
        unlink(state->socket_path);
    mode_t mask = umask(0077); /* the socket is created 0600 */
    bool ok = fd >= 0 && bind(fd, (const struct sockaddr *)&address, sizeof address) == 0;
    umask(mask);
    ok = ok && chmod(state->socket_path, 0600) == 0 && listen(fd, SERVE_MAX_CLIENTS) == 0;
    if (!ok) {
        cli_error("cannot listen on '%s': %s", state->socket_path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return false;
    }
    state->listen_fd = fd;
    return true;
}

static void close_client(serve_client *client) {
    if (client->fd >= 0)
        close(client->fd);
    *client = (serve_client){.fd = -1};
}

void serve_stop(watch_state *state) {
    for (size_t i = 0; i < SERVE_MAX_CLIENTS; i++)
        close_client(&state->clients[i]);
    if (state->listen_fd >= 0) {
        close(state->listen_fd);
        unlink(state->socket_path);
    }
    free(state->socket_path);
}

/* ---------------------------------------------------------------------------
 * Replies
 * ------------------------------------------------------------------------- */

/* One reply line (`text` with its kind: "OK <path>"), '\n' added; a client
 * that does not read its replies is dropped. */
static void reply_line(serve_client *client, const char *text) {
    char line[COOK_SERVER_LINE_MAX];
    int length = snprintf(line, sizeof line, "%s", text);
    if (length < 0 || (size_t)length >= sizeof line - 1)
        length = (int)sizeof line - 2;
    for (int i = 0; i < length; i++) {
        if (line[i] == '\n' || line[i] == '\r')
            line[i] = ' ';
    }
    line[length++] = '\n';
    if (send(client->fd, line, (size_t)length, MSG_NOSIGNAL | MSG_DONTWAIT) != length)
        close_client(client);
    else
        client->last_heard = watch_now_ms();
}

static void reply(serve_client *client, bool ok, const char *text) {
    /* A message longer than a line is cut: the client reads one line. */
    char line[COOK_SERVER_LINE_MAX];
    const char *prefix = ok ? COOK_SERVER_OK : COOK_SERVER_ERR;
    size_t head = strlen(prefix), body = strnlen(text, sizeof line - 1 - head);
    memcpy(line, prefix, head);
    memcpy(line + head, text, body);
    line[head + body] = '\0';
    reply_line(client, line);
}

/* FRESH from what the watch knows: ERR with the first error of a failed
 * source producing the ref; else OK when a round published since it was
 * asked (read the manifest again), SAME when none did. */
static void reply_fresh(const watch_state *state, serve_client *client) {
    const char *failed = served_failure(&state->served, client->ref);
    if (failed != NULL) {
        reply(client, false, failed);
        return;
    }
    char line[COOK_SERVER_LINE_MAX + 8]; /* reply_line cuts it to a line */
    snprintf(line, sizeof line, "%s%s", client->round_passed ? COOK_SERVER_OK : COOK_SERVER_SAME,
             client->ref);
    reply_line(client, line);
}

/* ---------------------------------------------------------------------------
 * Requests
 * ------------------------------------------------------------------------- */

/* Answers `client`'s request now when it can (true); else it waits for a
 * round, started here when none runs (false). */
static bool serve_request(watch_state *state, serve_client *client) {
    /* A save finished before a FRESH request is among the waiting events. */
    if (client->fresh)
        watch_take_events(state);
    const round_job *running = state->running;
    served_state known = served_check(&state->served, client->ref, state->changes, CHANGES_KINDS,
                                      state->output, running != NULL && running->finishing);
    /* Between rounds a COOK request that waited for none checks its sources
     * with a focused build, as `kiln build` would. */
    if (known == SERVED_FRESH && (running != NULL || client->fresh || client->round_passed)) {
        if (client->fresh) {
            reply_fresh(state, client);
        } else {
            char text[COOK_SERVER_LINE_MAX];
            bool ok = served_answer(&state->served, client->ref, false, text, sizeof text);
            reply(client, ok, text);
        }
        return true;
    }
    if (running != NULL)
        return false;
    if (client->fresh && !state->dirty) {
        reply_fresh(state, client);
        return true;
    }
    if (client->fresh)
        state->dirty = false; /* its round cooks the waiting changes */
    if (!watch_start_round(state, client->fresh ? NULL : client->ref, false, false)) {
        if (client->fresh)
            reply_fresh(state, client);
        else
            reply(client, false, "the build could not run (out of memory)");
        return true;
    }
    client->own_round = true;
    return false;
}

static bool valid_ref_text(const char *text) {
    if (text[0] == '\0')
        return false;
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c < 0x20 || *c == 0x7f)
            return false;
    }
    return true;
}

/* One request line (its '\n' taken off, `length` bytes). */
static void handle_line(watch_state *state, serve_client *client, char *line, size_t length) {
    if (memchr(line, '\0', length) != NULL) {
        reply(client, false, "request contains a NUL byte");
        return;
    }
    if (length > 0 && line[length - 1] == '\r')
        line[--length] = '\0';
    bool fresh = strncmp(line, COOK_SERVER_FRESH, strlen(COOK_SERVER_FRESH)) == 0;
    if (!fresh && strncmp(line, COOK_SERVER_REQUEST, strlen(COOK_SERVER_REQUEST)) != 0) {
        reply(client, false, "unknown request (expected: COOK <ref> or FRESH <ref>)");
        return;
    }
    const char *ref = line + (fresh ? strlen(COOK_SERVER_FRESH) : strlen(COOK_SERVER_REQUEST));
    if (!valid_ref_text(ref)) {
        reply(client, false,
              fresh ? "FRESH needs a ref without control characters"
                    : "COOK needs a ref without control characters");
        return;
    }
    client->fresh = fresh;
    client->round_passed = false;
    client->own_round = false;
    snprintf(client->ref, sizeof client->ref, "%s", ref);
    client->waiting = !serve_request(state, client);
}

/* Answers the complete lines `client` sent, in order, until one waits. */
static void serve_client_lines(watch_state *state, serve_client *client) {
    while (client->fd >= 0 && !client->waiting && client->used > 0) {
        char *newline = memchr(client->in, '\n', client->used);
        if (newline == NULL) {
            if (client->overlong) {
                client->used = 0; /* still the line that was too long */
            } else if (client->used == sizeof client->in) {
                client->overlong = true;
                client->used = 0;
                char message[128];
                snprintf(message, sizeof message, "request line longer than %d bytes",
                         COOK_SERVER_LINE_MAX - 1);
                reply(client, false, message);
            }
            return; /* the rest of the line is to come */
        }
        size_t consumed = (size_t)(newline - client->in) + 1;
        if (client->overlong) {
            client->overlong = false;
        } else {
            *newline = '\0';
            handle_line(state, client, client->in, consumed - 1);
            if (client->fd < 0)
                return; /* dropped: it did not read its reply */
        }
        memmove(client->in, client->in + consumed, client->used - consumed);
        client->used -= consumed;
    }
}

void serve_client_input(watch_state *state, serve_client *client) {
    ssize_t got =
        recv(client->fd, client->in + client->used, sizeof client->in - client->used, MSG_DONTWAIT);
    if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
        close_client(client);
        return;
    }
    if (got < 0)
        return;
    client->last_heard = watch_now_ms();
    client->used += (size_t)got;
    serve_client_lines(state, client);
}

void serve_round_over(watch_state *state, round_job *job) {
    char text[COOK_SERVER_LINE_MAX];
    bool ok = false;
    /* A focused round's own answer, from the sources it checked. */
    if (job->focus != NULL && job->sources_kept)
        ok = served_answer(&job->sources, job->focus, true, text, sizeof text);
    else if (job->focus != NULL)
        snprintf(text, sizeof text, "the build of '%.200s' could not run", job->focus);
    if (job->sources_kept)
        served_merge(&state->served, &job->sources, job->focus == NULL);
    else if (job->published)
        served_free(&state->served); /* out of memory: nothing is known now */
    for (size_t i = 0; i < SERVE_MAX_CLIENTS; i++) {
        serve_client *client = &state->clients[i];
        if (client->fd < 0 || !client->waiting)
            continue;
        client->round_passed = true;
        if (!client->own_round)
            continue;
        client->own_round = false;
        client->waiting = false;
        if (client->fresh)
            reply_fresh(state, client);
        else
            reply(client, ok, text);
        serve_client_lines(state, client);
    }
    /* The others, in the order of their places: each is answered or waits
     * again (for the round the first of them may start). */
    for (size_t i = 0; i < SERVE_MAX_CLIENTS; i++) {
        serve_client *client = &state->clients[i];
        if (client->fd < 0 || !client->waiting || client->own_round)
            continue;
        client->waiting = !serve_request(state, client);
        serve_client_lines(state, client);
    }
}

/* ---------------------------------------------------------------------------
 * Clients
 * ------------------------------------------------------------------------- */

/* True when nothing `client` sent waits unread on its socket (sent during a
 * cook, say): it is not silent, whatever its last_heard. */
static bool nothing_unread(const serve_client *client) {
    int unread = 0;
    return ioctl(client->fd, FIONREAD, &unread) == 0 && unread == 0;
}

/* True when `client` is between requests: none waits, nothing unread, no
 * part of a line read. Only such a client gives its place to a new one. */
static bool client_is_quiet(const serve_client *client) {
    return client->used == 0 && !client->overlong && !client->waiting && nothing_unread(client);
}

/* The quiet client silent the longest, or NULL when none is quiet. */
static serve_client *longest_silent(watch_state *state) {
    serve_client *oldest = NULL;
    for (size_t i = 0; i < SERVE_MAX_CLIENTS; i++) {
        serve_client *client = &state->clients[i];
        if (client->fd >= 0 && client_is_quiet(client) &&
            (oldest == NULL || client->last_heard < oldest->last_heard))
            oldest = client;
    }
    return oldest;
}

/* A client waiting for a round is not silent: its answer is. */
void serve_close_idle(watch_state *state) {
    if (state->idle_timeout_ms <= 0)
        return;
    int64_t now = watch_now_ms();
    for (size_t i = 0; i < SERVE_MAX_CLIENTS; i++) {
        serve_client *client = &state->clients[i];
        if (client->fd >= 0 && !client->waiting &&
            now - client->last_heard >= state->idle_timeout_ms && nothing_unread(client))
            close_client(client);
    }
}

int64_t serve_next_idle_ms(const watch_state *state) {
    int64_t next = -1, now = watch_now_ms();
    for (size_t i = 0; state->idle_timeout_ms > 0 && i < SERVE_MAX_CLIENTS; i++) {
        const serve_client *client = &state->clients[i];
        if (client->fd < 0 || client->waiting)
            continue;
        int64_t left = client->last_heard + state->idle_timeout_ms - now;
        if (left < 0)
            left = 0;
        if (next < 0 || left < next)
            next = left;
    }
    return next;
}

void serve_accept(watch_state *state) {
    for (;;) {
        int fd = accept(state->listen_fd, NULL, NULL);
        if (fd < 0)
            return;
        if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 ||
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) {
            close(fd);
            continue;
        }
        serve_client *free_slot = NULL;
        for (size_t i = 0; i < SERVE_MAX_CLIENTS && free_slot == NULL; i++) {
            if (state->clients[i].fd < 0)
                free_slot = &state->clients[i];
        }
        if (free_slot == NULL)
            free_slot = longest_silent(state);
        if (free_slot == NULL) {
            /* Every place holds a request being read or waiting: all are busy. */
            serve_client refused = {.fd = fd};
            reply(&refused, false, "too many clients");
            close_client(&refused);
            continue;
        }
        /* Taken from a client gone quiet (it reconnects when it asks again)
         * rather than refusing everyone while quiet clients hold the table. */
        close_client(free_slot);
        *free_slot = (serve_client){.fd = fd, .last_heard = watch_now_ms()};
    }
}
