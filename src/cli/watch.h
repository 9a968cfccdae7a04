/*
 * watch.h — the parts of `kiln watch` shared between its files:
 *
 *   cmd_watch.c      options, the main loop
 *   watch_events.c   inotify: what changed
 *   watch_round.c    a round: an incremental build on a thread of its own
 *   watch_serve.c    --serve: the socket, its clients and their requests
 *   watch_served.c   what requests are answered from without a build
 *                    (watch_served.h)
 *
 * Threads: the main thread runs the loop (signals, inotify, the socket) and
 * owns watch_state. A round runs on a thread of its own with a round_job the
 * main thread filled before it started and reads again only after joining
 * it (the round writes a byte to round_done_fd when it is over): so a
 * request is answered while a round cooks, from the sources the last round
 * published, and nothing the round writes is read before it is over. That
 * is simpler than a serving thread beside a main thread that cooks: the
 * clients, the changes and the published sources have one owner, and need
 * no lock.
 */
#ifndef KILN_CLI_WATCH_H
#define KILN_CLI_WATCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/watch_served.h"
#include "common/cook_server.h"

#define SERVE_MAX_CLIENTS 16

typedef struct watched_folder {
    int wd;
    char *path; /* relative to the input folder, "" for the input itself */
} watched_folder;

typedef struct serve_client {
    int fd;             /* -1: free */
    int64_t last_heard; /* watch_now_ms() when it last sent something or was answered */
    bool overlong;      /* discarding the rest of a line that was too long */
    size_t used;        /* bytes of `in` received and not handled yet */
    char in[COOK_SERVER_LINE_MAX];
    /* A request waiting for a round. The client's later lines wait unread
     * meanwhile: its replies come in order. */
    bool waiting;
    bool fresh;        /* FRESH, else COOK */
    bool round_passed; /* a round has published since it was asked */
    bool own_round;    /* the running round was started for it */
    char ref[COOK_SERVER_LINE_MAX];
} serve_client;

/* One round. The main thread fills the first part before the round's thread
 * starts; the round fills the rest, read after pthread_join. */
typedef struct round_job {
    build_options options;
    char *focus; /* a COOK request's focused round, NULL for a whole round */
    unsigned round;
    bool first;
    bool finishing; /* cooks the drafts in full */
    pthread_t thread;
    bool threaded; /* false: it ran on the main thread (no thread could start) */
    int done_fd;   /* where it writes a byte when it is over */
    /* What the round left */
    int status;
    bool keep_sources;  /* --serve: fill `sources` */
    bool published;     /* round_done ran: the round checked its sources */
    bool sources_kept;  /* `sources` holds what it checked */
    served_set sources; /* every source, or the focused ones */
    bool drafts_left;   /* a whole round: drafts wait for their full cook */
} round_job;

/* watch_state.changes: seen since the last whole round started, and those
 * the running whole round started with. */
enum { CHANGES_PENDING, CHANGES_COOKING, CHANGES_KINDS };

typedef struct watch_state {
    build_options options;
    char *input; /* as the first round resolved them */
    char *output;
    char *config_folder; /* kiln.yml's folder when outside the input, else NULL */
    char *config_name;
    int debounce_ms;
    int64_t finish_delay_ms;
    bool serve;
    int64_t idle_timeout_ms; /* 0: connections are never closed for silence */
    int inotify_fd;
    int signal_fd;
    int config_wd;
    watched_folder *folders;
    size_t folder_count;
    size_t folder_cap;
    unsigned round;
    round_job *running;   /* the round cooking now, NULL between rounds */
    int round_done_fd[2]; /* a pipe: the round says it is over */
    int last_status;      /* the last round's */
    /* --serve */
    int listen_fd;
    char *socket_path;
    serve_client clients[SERVE_MAX_CLIENTS];
    served_set served; /* what the rounds published */
    watch_changes changes[CHANGES_KINDS];
    /* Changes seen and not cooked yet: a round is due at last_event + debounce. */
    bool dirty;
    int64_t last_event;
    /* Drafts wait for their full cook (a round without fast_first), due at
     * finish_delay_ms after the later of last_event and last_round_end. */
    bool drafts_pending;
    int64_t last_round_end;
} watch_state;

static inline int64_t watch_now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* watch_events.c */
/* Watches the input's folders and kiln.yml's; false, said, when it cannot. */
bool watch_start_watching(watch_state *state);
/* Reads the waiting inotify events; a change makes a round due. */
void watch_take_events(watch_state *state);

/* watch_round.c */
/* Starts a round on its own thread: `focus` NULL for a whole round; `first`
 * the watch's first build, `finishing` one that cooks the drafts in full.
 * False when it cannot (out of memory): no round runs. */
bool watch_start_round(watch_state *state, const char *focus, bool first, bool finishing);
/* Once the round wrote its byte to round_done_fd: joins it and takes what it
 * left into `state` but for its sources (serve_round_over); the caller frees
 * the job with watch_round_free. */
round_job *watch_finish_round(watch_state *state);
void watch_round_free(round_job *job);

/* watch_serve.c */
/* False, said, when another watch serves the output (its socket answers). */
bool serve_socket_is_free(watch_state *state);
bool serve_start(watch_state *state);
void serve_stop(watch_state *state);
void serve_accept(watch_state *state);
/* Reads what a client sent and answers each complete line. */
void serve_client_input(watch_state *state, serve_client *client);
/* Closes the connections silent for the idle timeout; milliseconds until the
 * next one falls silent too long, -1: none. */
void serve_close_idle(watch_state *state);
int64_t serve_next_idle_ms(const watch_state *state);
/* After `job` is over: what it published goes into state->served, then the
 * request it was started for is answered, then the others that wait. */
void serve_round_over(watch_state *state, round_job *job);

#endif /* KILN_CLI_WATCH_H */
