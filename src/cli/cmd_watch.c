/*
 * cmd_watch.c — `kiln watch`: build, then rebuild what changes.
 *
 *   first round     a normal incremental build (build_execute), its usual output
 *   watching        inotify on every folder of the input (folders created later
 *                   too; not the output folder, hidden names or editor
 *                   temporaries) and on kiln.yml's folder (watch_events.c)
 *   a change round  after --debounce ms without a new event: an incremental
 *                   build again. The cache makes it cost a stat per recorded
 *                   file; only what changed cooks, with what read it (a .mtl's
 *                   models). One line per cooked or failed asset, its
 *                   diagnostics, a summary line; the manifest is rewritten.
 *   drafts          a change round cooks a compressed texture at draft
 *                   quality first (texture.fast_first; build_options.fast_first):
 *                   seen through a ref within a second. After --finish-delay
 *                   without a change, a round without fast_first cooks those
 *                   drafts in full, so the tree ends as a clean build's
 *   --serve         also answers COOK and FRESH requests on
 *                   <output>/.kiln-serve, also while a round cooks
 *                   (watch_serve.c)
 *   threads         each round runs on a thread of its own while the main
 *                   thread goes on polling signals, inotify and the socket
 *                   (watch.h says why that way)
 *
 * The output lock (.kiln-lock) is held only during a round, so `kiln build`
 * or `kiln clean` by hand can run between rounds (a round waits for them).
 * SIGINT and SIGTERM between rounds end the watch cleanly (exit status 0,
 * socket removed); during a round they abandon it as they would a `kiln
 * build` (what it finished is kept through the journal), exit status 128 +
 * the signal.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/watch.h"

#define COMMAND "watch"
#define DEBOUNCE_DEFAULT_MS 150
#define DEBOUNCE_MAX_MS 60000
/* A connection silent this long is closed (a runtime reconnects by itself),
 * so that clients gone quiet cannot hold every place. */
#define SERVE_IDLE_DEFAULT_S 60
#define SERVE_IDLE_MAX_S 86400
/* Quiet time after which the drafts are cooked in full: a texture saved again
 * meanwhile is not encoded in full twice. */
#define FINISH_DELAY_DEFAULT_MS 1000
#define FINISH_DELAY_MAX_MS 3600000

enum {
    OPTION_DEBOUNCE = BUILD_OPTION_OWN,
    OPTION_SERVE,
    OPTION_IDLE_TIMEOUT,
    OPTION_FINISH_DELAY,
};

static const struct option watch_long_options[] = {
    BUILD_SHARED_LONG_OPTIONS,
    BUILD_COOK_LONG_OPTIONS,
    {"debounce", required_argument, NULL, OPTION_DEBOUNCE},
    {"serve", no_argument, NULL, OPTION_SERVE},
    {"idle-timeout", required_argument, NULL, OPTION_IDLE_TIMEOUT},
    {"finish-delay", required_argument, NULL, OPTION_FINISH_DELAY},
    {NULL, 0, NULL, 0},
};

void cmd_watch_usage(FILE *out) {
    fprintf(out,
            "Usage: kiln watch [options]\n"
            "\n"
            "Builds like `kiln build`, then watches the input folder and cooks again\n"
            "what changes: an edited texture recooks alone, an edited .mtl recooks the\n"
            "models that read it, a new file cooks, a deleted one's outputs go. Each\n"
            "round prints a line per cooked or failed asset and rewrites the manifest;\n"
            "a failed asset is reported and the watch goes on. kiln.yml is re-read\n"
            "every round (its input and output folders excepted). Hidden files and\n"
            "editor temporaries (*~, *.swp, 4913) are ignored. The output lock is\n"
            "held during a round only. Ctrl-C (SIGINT) or SIGTERM stops the watch;\n"
            "during a round it abandons the round as for an interrupted kiln build\n"
            "(what it finished is kept, the next build resumes).\n"
            "\n"
            "Options:\n"
            "  -i, --input DIR    folder of source assets (as for kiln build)\n"
            "  -o, --output DIR   folder for cooked files (as for kiln build)\n"
            "  -j, --jobs N       threads, 1..%u (default: online processors)\n"
            "      --memory-limit BYTES|N%%\n"
            "                     as for kiln build (default: %u%% of the RAM)\n"
            "      --asset-timeout SECONDS, --import-timeout SECONDS\n"
            "                     as for kiln build (override asset.timeout and\n"
            "                     import.timeout)\n"
            "      --remote-cache URL[,URL...], --remote-cache-mode MODE, --no-remote-cache\n"
            "                     as for kiln build: a round looks assets up there\n"
            "                     and stores what it cooks (read-write)\n"
            "      --config FILE  read FILE instead of looking for " BUILD_CONFIG_FILE "\n"
            "      --preset NAME  apply the preset NAME of kiln.yml\n"
            "      --debounce MS  wait for MS milliseconds without a change before a\n"
            "                     round (0..%d, default %d)\n"
            "      --finish-delay MS\n"
            "                     a changed compressed texture is cooked at draft\n"
            "                     quality first (texture.fast_first); after MS\n"
            "                     milliseconds without a change (0..%d, default %d)\n"
            "                     the drafts are cooked in full, as kiln build would\n"
            "      --serve        also cook on demand for a development runtime: a\n"
            "                     Unix socket <output>/" COOK_SERVER_SOCKET_NAME
            " (mode 0600) answers\n"
            "                     `COOK <ref>` with `OK <cooked path>` or `ERR <message>`,\n"
            "                     and `FRESH <ref>` (up to date?) with `SAME <ref>`,\n"
            "                     `OK <ref>` or `ERR <message>`; also while a round\n"
            "                     cooks, at once for what it leaves alone (docs/runtime.md)\n"
            "      --idle-timeout SECONDS\n"
            "                     with --serve: close a connection that sent nothing for\n"
            "                     SECONDS (0..%d, 0: never; default %d). With %d\n"
            "                     connected, a new one closes the one silent longest\n"
            "  -q, --quiet        print errors only\n"
            "  -v, --verbose      the first build prints every asset\n"
            "  -h, --help         show this help\n"
            "\n"
            "Exit status: 0 when stopped by a signal between rounds (128 + the signal\n"
            "during one), 1 when the watch cannot start (a missing input folder, a\n"
            "kiln.yml error, an inotify or socket failure, another watch serving the\n"
            "output with --serve), 2 for a command-line mistake.\n",
            PARALLEL_MAX_THREADS, BUILD_MEMORY_DEFAULT_PERCENT, DEBOUNCE_MAX_MS,
            DEBOUNCE_DEFAULT_MS, FINISH_DELAY_MAX_MS, FINISH_DELAY_DEFAULT_MS, SERVE_IDLE_MAX_S,
            SERVE_IDLE_DEFAULT_S, SERVE_MAX_CLIENTS);
}

/* ---------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------- */
/* kiln watch's own options (cli_own_option). */
static int watch_own_option(int option, const char *arg, void *context) {
    watch_state *state = context;
    unsigned long value;
    switch (option) {
    case OPTION_DEBOUNCE:
        if (!cli_parse_whole(arg, 0, DEBOUNCE_MAX_MS, &value))
            return cli_usage_error(COMMAND, "invalid debounce '%s' (expected 0..%d ms)", arg,
                                   DEBOUNCE_MAX_MS);
        state->debounce_ms = (int)value;
        return -1;
    case OPTION_IDLE_TIMEOUT:
        if (!cli_parse_whole(arg, 0, SERVE_IDLE_MAX_S, &value))
            return cli_usage_error(COMMAND, "invalid idle timeout '%s' (expected 0..%d seconds)",
                                   arg, SERVE_IDLE_MAX_S);
        state->idle_timeout_ms = (int64_t)value * 1000;
        return -1;
    case OPTION_FINISH_DELAY:
        if (!cli_parse_whole(arg, 0, FINISH_DELAY_MAX_MS, &value))
            return cli_usage_error(COMMAND, "invalid finish delay '%s' (expected 0..%d ms)", arg,
                                   FINISH_DELAY_MAX_MS);
        state->finish_delay_ms = (int64_t)value;
        return -1;
    case OPTION_SERVE:
        state->serve = true;
        return -1;
    default:
        return 0;
    }
}

/* Returns -1 to go on, otherwise the exit status. */
static int parse_watch_options(int argc, char **argv, watch_state *state) {
    build_options *options = &state->options;
    *options = cli_default_build_options();
    state->debounce_ms = DEBOUNCE_DEFAULT_MS;
    state->finish_delay_ms = FINISH_DELAY_DEFAULT_MS;
    state->idle_timeout_ms = (int64_t)SERVE_IDLE_DEFAULT_S * 1000;
    int status = cli_parse_cook_options(COMMAND, argc, argv, watch_long_options, cmd_watch_usage,
                                        watch_own_option, state, options);
    if (status >= 0)
        return status;
    if (!cli_reject_operands(COMMAND, argc, argv))
        return CLI_EXIT_USAGE;
    if (options->dry_run)
        return cli_usage_error(COMMAND, "--dry-run is for kiln build (a watch writes)");
    return build_shared_options_done(COMMAND, options);
}

/* Reads kiln.yml once to learn the folders (and kiln.yml's own), which the
 * watch keeps. Returns -1 to go on, otherwise the exit status. */
static int resolve_folders(watch_state *state) {
    build_options options = state->options;
    options.verbosity = PROGRESS_QUIET; /* its warnings come with the first round */
    build_setup setup;
    cli_set_source_folder(NULL); /* kiln.yml's messages name kiln.yml as found */
    int status = build_setup_load(&options, &setup);
    if (status >= 0) {
        config_free(&setup.config);
        return CLI_EXIT_FAILURE;
    }
    cli_set_source_folder(setup.input);
    state->input = cook_strdup(setup.input);
    state->output = cook_strdup(setup.output);
    bool ok = state->input != NULL && state->output != NULL;
    if (ok && setup.config.path != NULL) {
        char *slash = strrchr(setup.config.path, '/');
        state->config_folder = slash
                                   ? strndup(setup.config.path, (size_t)(slash - setup.config.path))
                                   : cook_strdup(".");
        state->config_name = cook_strdup(slash ? slash + 1 : setup.config.path);
        ok = state->config_folder != NULL && state->config_name != NULL;
    }
    config_free(&setup.config);
    if (!ok) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    return -1;
}

/* ---------------------------------------------------------------------------
 * Rounds
 * ------------------------------------------------------------------------- */

/* On the main thread once the round says it is over: the requests that
 * waited for it are answered. */
static void end_round(watch_state *state) {
    round_job *job = watch_finish_round(state);
    if (state->serve)
        serve_round_over(state, job);
    watch_round_free(job);
}

/* A signal during a round: Ctrl-C must not wait for a long build. The
 * round is abandoned as a killed `kiln build` is (what it finished is in the
 * journal, the next build resumes from it; the kernel drops the lock); the
 * socket goes. */
static void stop_during_round(const watch_state *state, int signal_number) {
    static const char message[] = "\nkiln: watch stopped during a round (its finished "
                                  "assets are kept; the next build resumes)\n";
    if (write(STDERR_FILENO, message, sizeof message - 1) < 0) {
        /* nothing left to tell */
    }
    if (state->listen_fd >= 0)
        unlink(state->socket_path);
    _exit(128 + signal_number);
}

/* Waits for the running round alone (the first one, before the socket
 * listens), stopping on a signal. */
static void wait_for_round(watch_state *state) {
    struct pollfd fds[2] = {{.fd = state->signal_fd, .events = POLLIN},
                            {.fd = state->round_done_fd[0], .events = POLLIN}};
    while (state->running != NULL) {
        if (poll(fds, 2, -1) < 0 && errno != EINTR) {
            end_round(state); /* waits for the round's byte */
            return;
        }
        struct signalfd_siginfo info;
        if ((fds[0].revents & POLLIN) &&
            read(state->signal_fd, &info, sizeof info) == (ssize_t)sizeof info)
            stop_during_round(state, (int)info.ssi_signo);
        if (fds[1].revents & POLLIN)
            end_round(state);
    }
}

/* Milliseconds until the drafts' full round is due, -1: none waits. */
static int64_t finish_due_ms(const watch_state *state) {
    if (!state->drafts_pending || state->dirty)
        return -1;
    int64_t quiet_since =
        state->last_event > state->last_round_end ? state->last_event : state->last_round_end;
    int64_t left = quiet_since + state->finish_delay_ms - watch_now_ms();
    return left > 0 ? left : 0;
}

/* ---------------------------------------------------------------------------
 * The loop
 * ------------------------------------------------------------------------- */

/* Milliseconds the loop may sleep, -1: until something happens. Rounds are
 * due only between rounds. */
static int poll_timeout(const watch_state *state) {
    int64_t wait = -1;
    if (state->dirty && state->running == NULL) {
        int64_t left = state->last_event + state->debounce_ms - watch_now_ms();
        wait = left > 0 ? left : 0;
    }
    int64_t idle = state->serve ? serve_next_idle_ms(state) : -1;
    if (idle >= 0 && (wait < 0 || idle < wait))
        wait = idle;
    int64_t finish = state->running == NULL ? finish_due_ms(state) : -1;
    if (finish >= 0 && (wait < 0 || finish < wait))
        wait = finish;
    return wait < 0 ? -1 : wait > INT_MAX ? INT_MAX : (int)wait;
}

static int watch_loop(watch_state *state) {
    enum { SIGNALS, EVENTS, ROUND_DONE, LISTEN, CLIENTS };
    for (;;) {
        struct pollfd fds[CLIENTS + SERVE_MAX_CLIENTS];
        size_t count = 0;
        fds[count++] = (struct pollfd){.fd = state->signal_fd, .events = POLLIN};
        fds[count++] = (struct pollfd){.fd = state->inotify_fd, .events = POLLIN};
        fds[count++] =
            (struct pollfd){.fd = state->running ? state->round_done_fd[0] : -1, .events = POLLIN};
        if (state->serve) {
            fds[count++] = (struct pollfd){.fd = state->listen_fd, .events = POLLIN};
            /* A client whose request waits for a round is not read meanwhile. */
            for (size_t i = 0; i < SERVE_MAX_CLIENTS; i++)
                fds[count++] = (struct pollfd){
                    .fd = state->clients[i].waiting ? -1 : state->clients[i].fd, .events = POLLIN};
        }
        int ready = poll(fds, (nfds_t)count, poll_timeout(state));
        if (ready < 0 && errno != EINTR) {
            cli_error("poll: %s", strerror(errno));
            if (state->running != NULL)
                wait_for_round(state);
            return CLI_EXIT_FAILURE;
        }
        if (ready > 0 && (fds[SIGNALS].revents & POLLIN)) {
            struct signalfd_siginfo info;
            if (read(state->signal_fd, &info, sizeof info) == (ssize_t)sizeof info) {
                if (state->running != NULL)
                    stop_during_round(state, (int)info.ssi_signo);
                if (state->options.verbosity != PROGRESS_QUIET)
                    printf("kiln: watch stopped (%s)\n",
                           info.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM");
                return CLI_EXIT_OK;
            }
        }
        if (ready > 0 && (fds[EVENTS].revents & POLLIN))
            watch_take_events(state);
        if (ready > 0 && (fds[ROUND_DONE].revents & POLLIN))
            end_round(state); /* answers the requests that waited for it */
        if (state->serve && ready > 0) {
            if (fds[LISTEN].revents & POLLIN)
                serve_accept(state);
            for (size_t i = 0; i < SERVE_MAX_CLIENTS; i++) {
                serve_client *client = &state->clients[i];
                if (client->fd >= 0 && !client->waiting && fds[CLIENTS + i].fd == client->fd &&
                    (fds[CLIENTS + i].revents & (POLLIN | POLLHUP | POLLERR)))
                    serve_client_input(state, client);
            }
        }
        if (state->serve)
            serve_close_idle(state);
        if (state->running != NULL) {
            continue;
        } else if (state->dirty && watch_now_ms() - state->last_event >= state->debounce_ms) {
            state->dirty = false;
            watch_start_round(state, NULL, false, false);
        } else if (finish_due_ms(state) == 0) {
            watch_start_round(state, NULL, false, true);
        }
    }
}

static void free_state(watch_state *state) {
    for (size_t i = 0; i < state->folder_count; i++)
        free(state->folders[i].path);
    free(state->folders);
    free(state->input);
    free(state->output);
    free(state->config_folder);
    free(state->config_name);
    served_free(&state->served);
    for (int i = 0; i < CHANGES_KINDS; i++)
        changes_free(&state->changes[i]);
    if (state->inotify_fd >= 0)
        close(state->inotify_fd);
    if (state->signal_fd >= 0)
        close(state->signal_fd);
    for (int i = 0; i < 2; i++) {
        if (state->round_done_fd[i] >= 0)
            close(state->round_done_fd[i]);
    }
}

int cmd_watch(int argc, char **argv) {
    watch_state state = {.inotify_fd = -1,
                         .signal_fd = -1,
                         .listen_fd = -1,
                         .config_wd = -1,
                         .round_done_fd = {-1, -1}};
    for (size_t i = 0; i < SERVE_MAX_CLIENTS; i++)
        state.clients[i].fd = -1;
    int status = parse_watch_options(argc, argv, &state);
    if (status >= 0)
        return status;
    /* The signals wait in a signalfd; blocked before any thread starts, so
     * every cook thread inherits the mask. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    if (pipe(state.round_done_fd) != 0 || fcntl(state.round_done_fd[0], F_SETFD, FD_CLOEXEC) != 0 ||
        fcntl(state.round_done_fd[1], F_SETFD, FD_CLOEXEC) != 0 ||
        sigprocmask(SIG_BLOCK, &stop, NULL) != 0 ||
        (state.signal_fd = signalfd(-1, &stop, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
        cli_error("cannot set up signal handling: %s", strerror(errno));
        return CLI_EXIT_FAILURE;
    }
    /* Watching starts before the first round, so that no change made while
     * it builds is missed (it makes a round right after). */
    status = resolve_folders(&state);
    if (status < 0 && state.serve && !serve_socket_is_free(&state))
        status = CLI_EXIT_FAILURE; /* before the first round: it would build for nothing */
    struct stat input_info;
    bool started = status < 0 && stat(state.input, &input_info) == 0 &&
                   S_ISDIR(input_info.st_mode) && watch_start_watching(&state);
    if (status < 0 && watch_start_round(&state, NULL, true, false)) {
        wait_for_round(&state);
        status = state.last_status; /* names a missing input folder */
    } else if (status < 0) {
        status = CLI_EXIT_FAILURE;
    }
    if (started && state.serve)
        started = serve_start(&state);
    if (started) {
        if (state.options.verbosity != PROGRESS_QUIET) {
            char name[1024];
            printf("kiln: watching %s", cook_escape_to(name, sizeof name, state.input));
            if (state.serve)
                printf("; cook requests on %s",
                       cook_escape_to(name, sizeof name, state.socket_path));
            printf(" (Ctrl-C stops)\n");
        }
        fflush(stdout);
        status = watch_loop(&state);
    } else {
        status = CLI_EXIT_FAILURE;
    }
    if (state.serve)
        serve_stop(&state);
    free_state(&state);
    sigprocmask(SIG_UNBLOCK, &stop, NULL);
    return status;
}
