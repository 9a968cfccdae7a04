/*
 * cmd_watch.c — `kiln watch`: build, then rebuild what changes.
 *
 *   first round     a normal incremental build (build_execute), its usual output
 *   watching        inotify on every folder of the input (folders created later
 *                   too; not the output folder, hidden names or editor
 *                   temporaries) and on kiln.yml's folder
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
 *   --serve         also answers COOK requests on <output>/.kiln-serve
 *                   (src/common/cook_server.h): a focused build of the sources
 *                   that produce the ref, ahead of queued changes; and FRESH
 *                   requests, from what the watch already knows: SAME when no
 *                   change waits and no failed source produces the ref, else
 *                   the waiting round runs first (OK) or the failure is
 *                   named (ERR). A second server on the same output is
 *                   refused before its first round (socket_is_free). A
 *                   connection silent for --idle-timeout is closed, and with
 *                   every place taken a new client takes the place of the one
 *                   silent longest (accept_clients)
 *
 * The output lock (.kiln-lock) is held only during a round, so `kiln build`
 * or `kiln clean` by hand can run between rounds (a round waits for them).
 * SIGINT and SIGTERM between rounds end the watch cleanly (exit status 0,
 * socket removed); during a round they abandon it as they would a `kiln
 * build` (what it finished is kept through the journal), exit status 128 +
 * the signal.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/cook_server.h"
#include "common/grow.h"

#define COMMAND "watch"
#define DEBOUNCE_DEFAULT_MS 150
#define DEBOUNCE_MAX_MS 60000
#define SERVE_MAX_CLIENTS 16
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
            "                     `OK <ref>` or `ERR <message>` (docs/runtime.md)\n"
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
 * State
 * ------------------------------------------------------------------------- */

typedef struct watched_folder {
    int wd;
    char *path; /* relative to the input folder, "" for the input itself */
} watched_folder;

typedef struct serve_client {
    int fd;             /* -1: free */
    int64_t last_heard; /* now_ms() when it last sent something or was answered */
    bool overlong;      /* discarding the rest of a line that was too long */
    size_t used;
    char line[COOK_SERVER_LINE_MAX];
} serve_client;

/* What a focused round answers: filled by on_round_done. */
typedef struct serve_answer {
    const char *focus;
    bool ok;
    char text[COOK_SERVER_LINE_MAX];
} serve_answer;

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
    /* --serve */
    int listen_fd;
    int round_done_fd[2]; /* a pipe: the round tells its signal watcher it is over */
    char *socket_path;
    serve_client clients[SERVE_MAX_CLIENTS];
    serve_answer *answer; /* during a focused round */
    /* Changes seen and not cooked yet: a round is due at last_event + debounce. */
    bool dirty;
    int64_t last_event;
    /* Drafts wait for their full cook (a round without fast_first), due at
     * finish_delay_ms after the later of last_event and last_round_end. */
    bool drafts_pending;
    bool finishing; /* during that round */
    int64_t last_round_end;
    /* Sources whose last cook failed, for FRESH requests: the source, its own
     * ref (cook_asset_ref) and its first error, item i of each. */
    strlist failed_sources, failed_refs, failed_messages;
} watch_state;

static int64_t now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* ---------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------- */

/* A whole number 0..max, digits only. */
static bool parse_bounded(const char *text, long max, long *value) {
    if (text[0] < '0' || text[0] > '9')
        return false;
    char *end = NULL;
    errno = 0;
    long parsed = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || parsed > max)
        return false;
    *value = parsed;
    return true;
}

/* kiln watch's own options (cli_own_option). */
static int watch_own_option(int option, const char *arg, void *context) {
    watch_state *state = context;
    switch (option) {
    case OPTION_DEBOUNCE: {
        long ms;
        if (!parse_bounded(arg, DEBOUNCE_MAX_MS, &ms))
            return cli_usage_error(COMMAND, "invalid debounce '%s' (expected 0..%d ms)", arg,
                                   DEBOUNCE_MAX_MS);
        state->debounce_ms = (int)ms;
        return -1;
    }
    case OPTION_IDLE_TIMEOUT: {
        long seconds;
        if (!parse_bounded(arg, SERVE_IDLE_MAX_S, &seconds))
            return cli_usage_error(COMMAND, "invalid idle timeout '%s' (expected 0..%d seconds)",
                                   arg, SERVE_IDLE_MAX_S);
        state->idle_timeout_ms = (int64_t)seconds * 1000;
        return -1;
    }
    case OPTION_FINISH_DELAY: {
        long ms;
        if (!parse_bounded(arg, FINISH_DELAY_MAX_MS, &ms))
            return cli_usage_error(COMMAND, "invalid finish delay '%s' (expected 0..%d ms)", arg,
                                   FINISH_DELAY_MAX_MS);
        state->finish_delay_ms = ms;
        return -1;
    }
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

/* ---------------------------------------------------------------------------
 * Rounds
 * ------------------------------------------------------------------------- */

static void print_round_asset(const build_run *run, size_t index) {
    const asset_slot *slot = &run->slots[index];
    const cook_asset_result *result = &run->results[index];
    char name[1024];
    printf("%s %s", slot->status == ASSET_COOKED ? "cooked" : "failed",
           cook_escape_to(name, sizeof name, run->plan->sources.items[index]));
    for (size_t i = 0; slot->status == ASSET_COOKED && i < result->outputs.count; i++)
        printf("%s%s", i == 0 ? " -> " : ", ",
               cook_escape_to(name, sizeof name, result->outputs.items[i]));
    if (slot->status == ASSET_COOKED)
        printf(" (%.2f s%s)", slot->seconds, slot->provisional ? ", draft" : "");
    putchar('\n');
}

/* The first error line of a failed asset's diagnostics, for an ERR reply. */
static void first_error(const cook_asset_result *result, char *out, size_t size) {
    const char *text = (const char *)result->diag.text.data;
    size_t length = result->diag.text.size;
    for (size_t at = 0; at < length;) {
        const char *newline = memchr(text + at, '\n', length - at);
        size_t line = newline ? (size_t)(newline - (text + at)) : length - at;
        bool is_error = false;
        for (size_t i = 0; i + 9 <= line && !is_error; i++)
            is_error = memcmp(text + at + i, ": error: ", 9) == 0;
        if (is_error) {
            snprintf(out, size, "%.*s", (int)line, text + at);
            return;
        }
        at += line + 1;
    }
    snprintf(out, size, "the cook failed");
}

/* The cooked file that stands for source `index`, or NULL when it made none:
 * the entry named by its own ref (a model's mesh, a texture's .ktx2); else,
 * for a source with no asset of that ref (a level is "levels/yard/scene", a
 * model without a mesh has only its scene), its scene, else the first entry
 * under its ref, else its first entry at all. */
static const char *own_file(const build_run *run, size_t index) {
    const cook_manifest_list *manifest = &run->results[index].manifest;
    char own[1024];
    if (cook_asset_ref(run->plan->importers[index], run->plan->sources.items[index], own,
                       sizeof own) != KILN_OK)
        return manifest->count > 0 ? manifest->items[0].path : NULL;
    size_t own_length = strlen(own);
    const char *scene = NULL, *under = NULL;
    for (size_t e = 0; e < manifest->count; e++) {
        const char *ref = manifest->items[e].ref;
        if (strcmp(ref, own) == 0)
            return manifest->items[e].path;
        if (strncmp(ref, own, own_length) != 0 || ref[own_length] != '/')
            continue;
        if (scene == NULL && strcmp(ref + own_length, "/scene") == 0)
            scene = manifest->items[e].path;
        if (under == NULL)
            under = manifest->items[e].path;
    }
    if (scene != NULL)
        return scene;
    if (under != NULL)
        return under;
    return manifest->count > 0 ? manifest->items[0].path : NULL;
}

/* Which cooked file answers a COOK request after its focused round: the file
 * of the manifest entry whose ref or path the request named; else, for a
 * source path of any kind, the file that stands for that source (own_file),
 * or (a file a model reads) the model's; else the error of a source that
 * failed. */
static void answer_request(const build_run *run, serve_answer *answer) {
    const char *focus = answer->focus;
    const char *path = NULL;
    size_t count = run->plan->sources.count;
    for (size_t i = 0; i < count && path == NULL; i++) {
        const cook_manifest_list *manifest = &run->results[i].manifest;
        for (size_t e = 0; run->focused[i] && e < manifest->count && path == NULL; e++) {
            const cook_manifest_entry *entry = &manifest->items[e];
            if (strcmp(entry->ref, focus) == 0 || strcmp(entry->path, focus) == 0)
                path = entry->path;
        }
    }
    const char *failed = NULL;
    size_t failed_index = 0;
    for (size_t i = 0; i < count && path == NULL; i++) {
        if (!run->focused[i])
            continue;
        const asset_slot *slot = &run->slots[i];
        if (slot->status == ASSET_FAILED && failed == NULL) {
            failed = run->plan->sources.items[i];
            failed_index = i;
        }
        if (strcmp(run->plan->sources.items[i], focus) != 0)
            continue;
        if (slot->status == ASSET_THROUGH_MODEL && slot->through != NULL) {
            const char **model = bsearch(&slot->through, run->plan->sources.items, count,
                                         sizeof run->plan->sources.items[0], cli_compare_strings);
            if (model != NULL)
                path = own_file(run, (size_t)((char **)model - run->plan->sources.items));
        } else if (slot->status != ASSET_FAILED) {
            path = own_file(run, i);
        }
    }
    if (path != NULL && strchr(path, '\n') == NULL) {
        answer->ok = true;
        snprintf(answer->text, sizeof answer->text, "%s", path);
    } else if (failed != NULL) {
        char message[COOK_SERVER_LINE_MAX];
        first_error(&run->results[failed_index], message, sizeof message);
        snprintf(answer->text, sizeof answer->text, "%s", message);
    } else {
        snprintf(answer->text, sizeof answer->text,
                 "no source under the input folder produces '%.200s'", focus);
    }
}

/* Takes item `at` out of the failed sources (the last one moves there). */
static void failed_remove(watch_state *state, size_t at) {
    strlist *lists[] = {&state->failed_sources, &state->failed_refs, &state->failed_messages};
    for (int k = 0; k < 3; k++) {
        free(lists[k]->items[at]);
        lists[k]->items[at] = lists[k]->items[--lists[k]->count];
    }
}

/* Keeps the failed sources to what this round learnt: a source that failed
 * is added (its message replaced), one cooked or up to date is taken out. */
static void note_failures(watch_state *state, const build_run *run) {
    /* A whole round plans every source: one no longer there failed no more. */
    for (size_t at = state->failed_sources.count; run->focused == NULL && at-- > 0;) {
        const char *source = state->failed_sources.items[at];
        if (bsearch(&source, run->plan->sources.items, run->plan->sources.count,
                    sizeof run->plan->sources.items[0], cli_compare_strings) == NULL)
            failed_remove(state, at);
    }
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        if (run->focused != NULL && !run->focused[i])
            continue;
        asset_status status = run->slots[i].status;
        const char *source = run->plan->sources.items[i];
        size_t at = 0;
        while (at < state->failed_sources.count &&
               strcmp(state->failed_sources.items[at], source) != 0)
            at++;
        if (at < state->failed_sources.count &&
            (status == ASSET_COOKED || status == ASSET_UP_TO_DATE ||
             status == ASSET_THROUGH_MODEL || status == ASSET_FAILED))
            failed_remove(state, at);
        char ref[1024], message[COOK_SERVER_LINE_MAX];
        if (status != ASSET_FAILED ||
            cook_asset_ref(run->plan->importers[i], source, ref, sizeof ref) != KILN_OK)
            continue;
        first_error(&run->results[i], message, sizeof message);
        size_t before = state->failed_sources.count;
        if (!strlist_push(&state->failed_sources, source) ||
            !strlist_push(&state->failed_refs, ref) ||
            !strlist_push(&state->failed_messages, message)) {
            /* out of memory: FRESH answers SAME for it (the round printed it) */
            while (state->failed_sources.count > before)
                free(state->failed_sources.items[--state->failed_sources.count]);
            while (state->failed_refs.count > before)
                free(state->failed_refs.items[--state->failed_refs.count]);
        }
    }
}

/* The first error of the failed source that produces `ref`: the one whose
 * own ref is `ref` or the longest that is a folder of it ("props/crate" for
 * "props/crate/material_0"); NULL when none. */
static const char *failed_for(const watch_state *state, const char *ref) {
    const char *best = NULL;
    size_t best_length = 0;
    for (size_t i = 0; i < state->failed_refs.count; i++) {
        const char *own = state->failed_refs.items[i];
        size_t length = strlen(own);
        if (strncmp(ref, own, length) == 0 && (ref[length] == '\0' || ref[length] == '/') &&
            length >= best_length) {
            best = state->failed_messages.items[i];
            best_length = length;
        }
    }
    return best;
}

/* A round's lines: each asset cooked or failed, then the count. */
static void print_round(const build_run *run, int status, const watch_state *state) {
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        asset_status s = run->slots[i].status;
        if ((s == ASSET_COOKED && run->options->verbosity != PROGRESS_QUIET) || s == ASSET_FAILED)
            print_round_asset(run, i);
    }
    /* Counted as kiln build's summary counts them (build_count_assets). */
    build_counts counts = build_count_assets(run);
    if (run->options->verbosity != PROGRESS_QUIET) {
        if (run->focused != NULL) {
            printf("kiln: served '%s': %zu cooked, %zu failed\n",
                   cook_escaped(state->answer->focus), counts.cooked, counts.failed);
        } else {
            size_t drafts = 0;
            for (size_t i = 0; i < run->plan->sources.count; i++)
                drafts += run->slots[i].status == ASSET_COOKED && run->slots[i].provisional;
            printf("kiln: round %u%s: %zu cooked", state->round,
                   state->finishing ? " (full quality)" : "", counts.cooked);
            if (drafts > 0)
                printf(" (%zu draft%s)", drafts, drafts == 1 ? "" : "s");
            printf(", %zu failed, ", counts.failed);
            if (counts.through_model > 0)
                printf("%zu read by models, ", counts.through_model);
            printf("%zu up to date%s\n", counts.up_to_date,
                   status == CLI_EXIT_OK ? "" : " (errors above)");
        }
    }
    fflush(stdout);
}

static void on_round_done(const build_run *run, int status, void *context) {
    watch_state *state = context;
    /* The log first, then the reply: whoever waits for the reply (a game,
     * a test) finds the round's lines written. */
    if (run->options->watch_round)
        print_round(run, status, state);
    if (state->answer != NULL && run->focused != NULL)
        answer_request(run, state->answer);
    note_failures(state, run);
    /* A whole round sees every draft (cooked, or kept from the last round);
     * one without fast_first leaves none. */
    if (run->focused == NULL) {
        state->drafts_pending = false;
        for (size_t i = 0; i < run->plan->sources.count; i++)
            state->drafts_pending = state->drafts_pending || run->slots[i].provisional;
    }
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

/* During a round the signals still wait in the signalfd, and this thread
 * reads them: Ctrl-C must not wait for a long build. The round is abandoned
 * as a killed `kiln build` is (what it finished is in the journal, the next
 * build resumes from it; the kernel drops the lock); the socket goes. */
static void *watch_signals_during_round(void *context) {
    watch_state *state = context;
    struct pollfd fds[2] = {{.fd = state->signal_fd, .events = POLLIN},
                            {.fd = state->round_done_fd[0], .events = POLLIN}};
    for (;;) {
        if (poll(fds, 2, -1) < 0 && errno != EINTR)
            return NULL;
        if (fds[1].revents & (POLLIN | POLLHUP)) {
            char byte;
            if (read(state->round_done_fd[0], &byte, 1) != 1) {
                /* the pipe is emptied for the next round either way */
            }
            return NULL;
        }
        struct signalfd_siginfo info;
        if ((fds[0].revents & POLLIN) &&
            read(state->signal_fd, &info, sizeof info) == (ssize_t)sizeof info) {
            static const char message[] = "\nkiln: watch stopped during a round (its finished "
                                          "assets are kept; the next build resumes)\n";
            if (write(STDERR_FILENO, message, sizeof message - 1) < 0) {
                /* nothing left to tell */
            }
            if (state->listen_fd >= 0)
                unlink(state->socket_path);
            _exit(128 + (int)info.ssi_signo);
        }
    }
}

/* One incremental build; `focus` NULL for a whole round. The setup (kiln.yml)
 * is read again each time, the folders kept as resolve_folders found them. */
static int run_round(watch_state *state, const char *focus, bool first) {
    build_options options = state->options;
    options.watch_round = !first;
    options.focus = focus;
    options.round_done = on_round_done;
    options.round_context = state;
    options.input = state->input;
    options.output = state->output;
    /* A change round drafts; a COOK request's focused round cooks in full
     * (it keeps the other sources' records unchecked). */
    options.fast_first = !first && focus == NULL && !state->finishing;
    if (!first) {
        options.verbose = false;
        if (options.verbosity == PROGRESS_VERBOSE)
            options.verbosity = PROGRESS_NORMAL;
    }
    build_setup setup;
    cli_set_source_folder(NULL);
    int status = build_setup_load(&options, &setup);
    if (status < 0) {
        cli_set_source_folder(setup.input);
        if (!first && focus == NULL)
            state->round++;
        pthread_t watcher;
        bool watching = pthread_create(&watcher, NULL, watch_signals_during_round, state) == 0;
        status = build_execute(&options, &setup);
        if (watching) {
            if (write(state->round_done_fd[1], "x", 1) != 1) {
                pthread_cancel(watcher); /* cannot happen: a pipe with room */
            }
            pthread_join(watcher, NULL);
        }
    }
    config_free(&setup.config);
    state->last_round_end = now_ms();
    return status;
}

/* Milliseconds until the drafts' full round is due, -1: none waits. */
static int64_t finish_due_ms(const watch_state *state) {
    if (!state->drafts_pending || state->dirty)
        return -1;
    int64_t quiet_since =
        state->last_event > state->last_round_end ? state->last_event : state->last_round_end;
    int64_t left = quiet_since + state->finish_delay_ms - now_ms();
    return left > 0 ? left : 0;
}

/* ---------------------------------------------------------------------------
 * inotify
 * ------------------------------------------------------------------------- */

#define WATCH_MASK                                                                                 \
    (IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | IN_CREATE | IN_DELETE | IN_MOVED_FROM |              \
     IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_EXCL_UNLINK | IN_ONLYDIR)

/* Names no build reads: hidden files (the walk skips them, and editors' lock
 * files are ".#name") and editor temporaries. */
static bool ignored_name(const char *name) {
    size_t length = strlen(name);
    return name[0] == '.' || (length > 0 && name[length - 1] == '~') ||
           (length > 4 &&
            (strcmp(name + length - 4, ".swp") == 0 || strcmp(name + length - 4, ".swx") == 0)) ||
           strcmp(name, "4913") == 0;
}

static watched_folder *find_folder(watch_state *state, int wd) {
    for (size_t i = 0; i < state->folder_count; i++) {
        if (state->folders[i].wd == wd)
            return &state->folders[i];
    }
    return NULL;
}

static void forget_folder(watch_state *state, int wd) {
    for (size_t i = 0; i < state->folder_count; i++) {
        if (state->folders[i].wd == wd) {
            free(state->folders[i].path);
            state->folders[i] = state->folders[--state->folder_count];
            return;
        }
    }
}

/* Looked up each time: `kiln clean` may remove the output folder and a round
 * make it again, a new inode; watching it would make every round cause the next. */
static bool is_output_folder(const watch_state *state, const struct stat *info) {
    struct stat output;
    return stat(state->output, &output) == 0 && info->st_dev == output.st_dev &&
           info->st_ino == output.st_ino;
}

/* Watches input/relative and every folder under it (a folder found twice is
 * watched once: inotify returns the same wd). Hidden folders (and "." and
 * "..") are skipped, as the build's walk skips them. */
static void watch_tree(watch_state *state, const char *relative, unsigned depth) {
    char *full = relative[0] ? cook_path_join(state->input, relative) : cook_strdup(state->input);
    struct stat info;
    /* Like the build's walk, a symbolic link to a folder under the input is
     * not followed (the input itself may be one). */
    int found = full == NULL ? -1 : relative[0] ? lstat(full, &info) : stat(full, &info);
    if (found != 0 || !S_ISDIR(info.st_mode) || is_output_folder(state, &info) || depth > 64) {
        free(full);
        return;
    }
    int wd = inotify_add_watch(state->inotify_fd, full, WATCH_MASK);
    if (wd < 0) {
        char name[1024];
        fprintf(stderr, "%s: warning: cannot watch this folder: %s\n",
                cook_escape_to(name, sizeof name, full), strerror(errno));
        free(full);
        return;
    }
    if (find_folder(state, wd) == NULL) {
        watched_folder *grown = array_grow(state->folders, &state->folder_cap,
                                           state->folder_count + 1, sizeof *grown, 32);
        if (grown == NULL) {
            free(full);
            return;
        }
        state->folders = grown;
        char *copy = cook_strdup(relative);
        if (copy == NULL) {
            free(full);
            return;
        }
        state->folders[state->folder_count++] = (watched_folder){wd, copy};
    } else {
        free(full);
        return; /* already watched: do not walk it again */
    }
    strlist entries = {0};
    DIR *dir = opendir(full);
    struct dirent *entry;
    while (dir != NULL && (entry = readdir(dir)) != NULL) {
        if (entry->d_type != DT_DIR && entry->d_type != DT_UNKNOWN)
            continue;
        if (ignored_name(entry->d_name))
            continue;
        if (!strlist_push(&entries, entry->d_name))
            break;
    }
    if (dir != NULL)
        closedir(dir);
    for (size_t i = 0; i < entries.count; i++) {
        char *child = relative[0] ? cook_path_join(relative, entries.items[i])
                                  : cook_strdup(entries.items[i]);
        if (child != NULL)
            watch_tree(state, child, depth + 1);
        free(child);
    }
    strlist_free(&entries);
    free(full);
}

/* Reads the pending events; true when one of them may change a build. */
static bool read_events(watch_state *state) {
    bool changed = false;
    _Alignas(struct inotify_event) char buffer[16384];
    for (;;) {
        ssize_t got = read(state->inotify_fd, buffer, sizeof buffer);
        if (got <= 0)
            break;
        for (char *at = buffer; at < buffer + got;) {
            const struct inotify_event *event = (const struct inotify_event *)at;
            at += sizeof *event + event->len;
            if (event->mask & IN_Q_OVERFLOW) {
                changed = true; /* events were lost: a round checks everything */
                continue;
            }
            if (event->mask & IN_IGNORED) {
                forget_folder(state, event->wd);
                continue;
            }
            const char *name = event->len > 0 ? event->name : "";
            if (event->wd == state->config_wd && find_folder(state, event->wd) == NULL) {
                changed |= state->config_name != NULL && strcmp(name, state->config_name) == 0;
                continue;
            }
            if (name[0] != '\0' && ignored_name(name))
                continue;
            if (state->config_name != NULL && event->wd == state->config_wd &&
                strcmp(name, state->config_name) == 0) {
                changed = true;
                continue;
            }
            watched_folder *folder = find_folder(state, event->wd);
            if (folder == NULL)
                continue;
            if ((event->mask & IN_ISDIR) && (event->mask & (IN_CREATE | IN_MOVED_TO))) {
                char *child =
                    folder->path[0] ? cook_path_join(folder->path, name) : cook_strdup(name);
                if (child != NULL)
                    watch_tree(state, child, 0); /* `folder` may move: not used after */
                free(child);
                folder = NULL;
            }
            if (state->options.verbosity == PROGRESS_VERBOSE) {
                const char *parent = folder != NULL ? folder->path : "";
                printf("changed %s%s%s (inotify 0x%x)\n", cook_escaped(parent),
                       parent[0] && name[0] ? "/" : "", cook_escaped(name), (unsigned)event->mask);
            }
            changed = true;
        }
    }
    fflush(stdout);
    return changed;
}

static bool start_watching(watch_state *state) {
    state->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (state->inotify_fd < 0) {
        cli_error("cannot watch the input folder: inotify: %s", strerror(errno));
        return false;
    }
    watch_tree(state, "", 0);
    if (state->folder_count == 0) {
        cli_error("cannot watch the input folder '%s'", state->input);
        return false;
    }
    state->config_wd = -1;
    if (state->config_folder != NULL) {
        state->config_wd = inotify_add_watch(state->inotify_fd, state->config_folder,
                                             IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE |
                                                 IN_MOVED_FROM | IN_ONLYDIR | IN_MASK_ADD);
    }
    return true;
}

/* ---------------------------------------------------------------------------
 * --serve
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

/* False, said, when another watch serves the output: its socket answers (a
 * socket file left by a watch that was killed answers nothing). Asked before
 * the first round too, so that a second server fails before it builds. */
static bool socket_is_free(watch_state *state) {
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

static bool start_serving(watch_state *state) {
    state->listen_fd = -1;
    struct sockaddr_un address;
    /* Asked again: another watch may have started during the first round. */
    if (!socket_is_free(state) || !serve_address(state, &address))
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
    client->fd = -1;
    client->used = 0;
    client->overlong = false;
}

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

static bool valid_ref_text(const char *text) {
    if (text[0] == '\0')
        return false;
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c < 0x20 || *c == 0x7f)
            return false;
    }
    return true;
}

/* FRESH <ref>: whether the cooked files are those of the sources as they
 * are now, from what the watch knows, without a build when nothing changed:
 * every change it has seen was cooked (it read the waiting inotify events
 * just now, so a save finished before the request is among them) and no
 * failed source produces <ref>: SAME. Changes waiting: their round runs now
 * instead of after the debounce (it would cook them anyway), then OK. A
 * failed source producing <ref> (now, or after that round): ERR with its
 * first error. */
static void handle_fresh(watch_state *state, serve_client *client, const char *ref) {
    if (read_events(state)) {
        state->dirty = true;
        state->last_event = now_ms();
    }
    bool cooked = false;
    if (state->dirty) {
        state->dirty = false;
        run_round(state, NULL, false);
        cooked = true;
    }
    const char *failed = failed_for(state, ref);
    if (failed != NULL) {
        reply(client, false, failed);
        return;
    }
    char line[COOK_SERVER_LINE_MAX];
    snprintf(line, sizeof line, "%s%s", cooked ? COOK_SERVER_OK : COOK_SERVER_SAME, ref);
    reply_line(client, line);
}

static void handle_request(watch_state *state, serve_client *client, char *line) {
    size_t length = strlen(line);
    if (length > 0 && line[length - 1] == '\r')
        line[--length] = '\0';
    bool fresh = strncmp(line, COOK_SERVER_FRESH, strlen(COOK_SERVER_FRESH)) == 0;
    if (strlen(line) != length || (!fresh && strncmp(line, COOK_SERVER_REQUEST, 5) != 0)) {
        reply(client, false, "unknown request (expected: COOK <ref> or FRESH <ref>)");
        return;
    }
    const char *ref = line + (fresh ? strlen(COOK_SERVER_FRESH) : 5);
    if (!valid_ref_text(ref)) {
        reply(client, false,
              fresh ? "FRESH needs a ref without control characters"
                    : "COOK needs a ref without control characters");
        return;
    }
    if (fresh) {
        handle_fresh(state, client, ref);
        return;
    }
    serve_answer answer = {.focus = ref};
    state->answer = &answer;
    run_round(state, ref, false);
    state->answer = NULL;
    if (answer.text[0] == '\0')
        snprintf(answer.text, sizeof answer.text, "the build of '%.200s' could not run", ref);
    reply(client, answer.ok, answer.text);
}

/* Reads what a client sent and answers each complete line. */
static void serve_client_input(watch_state *state, serve_client *client) {
    char buffer[4096];
    ssize_t got = recv(client->fd, buffer, sizeof buffer, MSG_DONTWAIT);
    if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
        close_client(client);
        return;
    }
    client->last_heard = now_ms();
    for (ssize_t i = 0; i < got && client->fd >= 0; i++) {
        char byte = buffer[i];
        if (byte == '\n') {
            if (client->overlong) {
                client->overlong = false;
            } else {
                client->line[client->used] = '\0';
                /* A NUL inside the line makes it shorter than `used`: refused. */
                if (memchr(client->line, '\0', client->used) != NULL)
                    reply(client, false, "request contains a NUL byte");
                else
                    handle_request(state, client, client->line);
                /* The time its cook took is not silence. */
                client->last_heard = now_ms();
            }
            client->used = 0;
        } else if (client->overlong) {
            continue;
        } else if (client->used + 1 >= sizeof client->line) {
            client->overlong = true;
            client->used = 0;
            char message[128];
            snprintf(message, sizeof message, "request line longer than %d bytes",
                     COOK_SERVER_LINE_MAX - 1);
            reply(client, false, message);
        } else {
            client->line[client->used++] = byte;
        }
    }
}

/* True when nothing `client` sent waits unread on its socket (sent during a
 * cook, say): it is not silent, whatever its last_heard. */
static bool nothing_unread(const serve_client *client) {
    int unread = 0;
    return ioctl(client->fd, FIONREAD, &unread) == 0 && unread == 0;
}

/* True when `client` is between requests: nothing unread, no part of a line
 * read. Only such a client gives its place to a new one. */
static bool client_is_quiet(const serve_client *client) {
    return client->used == 0 && !client->overlong && nothing_unread(client);
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

/* Closes the connections silent for the idle timeout. */
static void close_idle_clients(watch_state *state) {
    if (state->idle_timeout_ms <= 0)
        return;
    int64_t now = now_ms();
    for (size_t i = 0; i < SERVE_MAX_CLIENTS; i++) {
        serve_client *client = &state->clients[i];
        if (client->fd >= 0 && now - client->last_heard >= state->idle_timeout_ms &&
            nothing_unread(client))
            close_client(client);
    }
}

/* Milliseconds until the next connection falls silent too long, -1: none. */
static int64_t next_idle_ms(const watch_state *state) {
    int64_t next = -1, now = now_ms();
    for (size_t i = 0; state->idle_timeout_ms > 0 && i < SERVE_MAX_CLIENTS; i++) {
        const serve_client *client = &state->clients[i];
        if (client->fd < 0)
            continue;
        int64_t left = client->last_heard + state->idle_timeout_ms - now;
        if (left < 0)
            left = 0;
        if (next < 0 || left < next)
            next = left;
    }
    return next;
}

static void accept_clients(watch_state *state) {
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
            /* Every place holds a request being read: all are busy. */
            serve_client refused = {.fd = fd};
            reply(&refused, false, "too many clients");
            close_client(&refused);
            continue;
        }
        /* Taken from a client gone quiet (it reconnects when it asks again)
         * rather than refusing everyone while quiet clients hold the table. */
        close_client(free_slot);
        *free_slot = (serve_client){.fd = fd, .last_heard = now_ms()};
    }
}

static void stop_serving(watch_state *state) {
    for (size_t i = 0; i < SERVE_MAX_CLIENTS; i++)
        close_client(&state->clients[i]);
    if (state->listen_fd >= 0) {
        close(state->listen_fd);
        unlink(state->socket_path);
    }
    free(state->socket_path);
}

/* ---------------------------------------------------------------------------
 * The loop
 * ------------------------------------------------------------------------- */

static int watch_loop(watch_state *state) {
    for (;;) {
        struct pollfd fds[3 + SERVE_MAX_CLIENTS];
        size_t count = 0;
        fds[count++] = (struct pollfd){.fd = state->signal_fd, .events = POLLIN};
        fds[count++] = (struct pollfd){.fd = state->inotify_fd, .events = POLLIN};
        if (state->serve) {
            fds[count++] = (struct pollfd){.fd = state->listen_fd, .events = POLLIN};
            for (size_t i = 0; i < SERVE_MAX_CLIENTS; i++)
                fds[count++] = (struct pollfd){.fd = state->clients[i].fd, .events = POLLIN};
        }
        int64_t wait = -1;
        if (state->dirty) {
            int64_t left = state->last_event + state->debounce_ms - now_ms();
            wait = left > 0 ? left : 0;
        }
        int64_t idle = state->serve ? next_idle_ms(state) : -1;
        if (idle >= 0 && (wait < 0 || idle < wait))
            wait = idle;
        int64_t finish = finish_due_ms(state);
        if (finish >= 0 && (wait < 0 || finish < wait))
            wait = finish;
        int timeout = wait < 0 ? -1 : wait > INT_MAX ? INT_MAX : (int)wait;
        int ready = poll(fds, (nfds_t)count, timeout);
        if (ready < 0 && errno != EINTR) {
            cli_error("poll: %s", strerror(errno));
            return CLI_EXIT_FAILURE;
        }
        if (ready > 0 && (fds[0].revents & POLLIN)) {
            struct signalfd_siginfo info;
            if (read(state->signal_fd, &info, sizeof info) == (ssize_t)sizeof info) {
                if (state->options.verbosity != PROGRESS_QUIET)
                    printf("kiln: watch stopped (%s)\n",
                           info.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM");
                return CLI_EXIT_OK;
            }
        }
        if (ready > 0 && (fds[1].revents & POLLIN) && read_events(state)) {
            state->dirty = true;
            state->last_event = now_ms();
        }
        if (state->serve && ready > 0) {
            if (fds[2].revents & POLLIN)
                accept_clients(state);
            for (size_t i = 0; i < SERVE_MAX_CLIENTS; i++) {
                serve_client *client = &state->clients[i];
                if (client->fd >= 0 && fds[3 + i].fd == client->fd &&
                    (fds[3 + i].revents & (POLLIN | POLLHUP | POLLERR)))
                    serve_client_input(state, client);
            }
        }
        if (state->serve)
            close_idle_clients(state);
        if (state->dirty && now_ms() - state->last_event >= state->debounce_ms) {
            state->dirty = false;
            run_round(state, NULL, false);
        } else if (finish_due_ms(state) == 0) {
            state->finishing = true;
            run_round(state, NULL, false);
            state->finishing = false;
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
    strlist_free(&state->failed_sources);
    strlist_free(&state->failed_refs);
    strlist_free(&state->failed_messages);
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
    if (status < 0 && state.serve && !socket_is_free(&state))
        status = CLI_EXIT_FAILURE; /* before the first round: it would build for nothing */
    struct stat input_info;
    bool started = status < 0 && stat(state.input, &input_info) == 0 &&
                   S_ISDIR(input_info.st_mode) && start_watching(&state);
    if (status < 0)
        status = run_round(&state, NULL, true); /* names a missing input folder */
    if (started && state.serve)
        started = start_serving(&state);
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
        stop_serving(&state);
    free_state(&state);
    sigprocmask(SIG_UNBLOCK, &stop, NULL);
    return status;
}
