/*
 * watch_round.c — `kiln watch`'s rounds (watch.h): each an incremental build
 * on a thread of its own, its lines printed and what it checked kept in its
 * round_job, read by the main thread once the round is over.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/watch.h"

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

/* A round's lines: each asset cooked or failed, then the count. */
static void print_round(const build_run *run, int status, const round_job *job) {
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        asset_status s = run->slots[i].status;
        if ((s == ASSET_COOKED && run->options->verbosity != PROGRESS_QUIET) || s == ASSET_FAILED)
            print_round_asset(run, i);
    }
    /* Counted as kiln build's summary counts them (build_count_assets). */
    build_counts counts = build_count_assets(run);
    if (run->options->verbosity != PROGRESS_QUIET) {
        if (run->focused != NULL) {
            printf("kiln: served '%s': %zu cooked, %zu failed\n", cook_escaped(job->focus),
                   counts.cooked, counts.failed);
        } else {
            size_t drafts = 0;
            for (size_t i = 0; i < run->plan->sources.count; i++)
                drafts += run->slots[i].status == ASSET_COOKED && run->slots[i].provisional;
            printf("kiln: round %u%s: %zu cooked", job->round,
                   job->finishing ? " (full quality)" : "", counts.cooked);
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

/* On the round's thread, before the run is freed: what the round leaves in
 * its job. The log first, then (after the round) the replies: whoever waits
 * for a reply (a game, a test) finds the round's lines written. */
static void on_round_done(const build_run *run, int status, void *context) {
    round_job *job = context;
    if (run->options->watch_round)
        print_round(run, status, job);
    job->published = true;
    job->sources_kept = job->keep_sources && served_take(run, &job->sources);
    /* A whole round sees every draft (cooked, or kept from the last round);
     * one without fast_first leaves none. */
    for (size_t i = 0; run->focused == NULL && i < run->plan->sources.count; i++)
        job->drafts_left = job->drafts_left || run->slots[i].provisional;
}

/* The round's thread: one incremental build. The setup (kiln.yml) is read
 * again each time, the folders kept as the watch found them first. */
static void *run_round(void *context) {
    round_job *job = context;
    build_setup setup;
    cli_set_source_folder(NULL);
    job->status = build_setup_load(&job->options, &setup);
    if (job->status < 0) {
        cli_set_source_folder(setup.input);
        job->status = build_execute(&job->options, &setup);
    }
    config_free(&setup.config);
    if (write(job->done_fd, "x", 1) != 1) {
        /* cannot happen: a pipe with room, read before the next round */
    }
    return NULL;
}

bool watch_start_round(watch_state *state, const char *focus, bool first, bool finishing) {
    round_job *job = calloc(1, sizeof *job);
    if (job == NULL || (focus != NULL && (job->focus = cook_strdup(focus)) == NULL)) {
        free(job);
        cli_error("out of memory: the round cannot run");
        return false;
    }
    build_options *options = &job->options;
    *options = state->options;
    options->watch_round = !first;
    options->focus = job->focus;
    options->round_done = on_round_done;
    options->round_context = job;
    options->input = state->input;
    options->output = state->output;
    /* A change round drafts; a COOK request's focused round cooks in full
     * (it keeps the other sources' records unchecked). */
    options->fast_first = !first && focus == NULL && !finishing;
    if (!first) {
        options->verbose = false;
        if (options->verbosity == PROGRESS_VERBOSE)
            options->verbosity = PROGRESS_NORMAL;
    }
    if (!first && focus == NULL)
        state->round++;
    job->round = state->round;
    job->first = first;
    job->finishing = finishing;
    job->done_fd = state->round_done_fd[1];
    job->keep_sources = state->serve;
    /* A whole round checks every source: the changes seen so far are its. */
    if (focus == NULL)
        changes_move(&state->changes[CHANGES_COOKING], &state->changes[CHANGES_PENDING]);
    state->running = job;
    job->threaded = pthread_create(&job->thread, NULL, run_round, job) == 0;
    if (!job->threaded)
        run_round(job); /* no thread: the round runs here, the socket waits */
    return true;
}

round_job *watch_finish_round(watch_state *state) {
    round_job *job = state->running;
    char byte;
    if (read(state->round_done_fd[0], &byte, 1) != 1) {
        /* the byte is there: poll said so, or the round ran on this thread */
    }
    if (job->threaded)
        pthread_join(job->thread, NULL);
    state->running = NULL;
    state->last_status = job->status;
    state->last_round_end = watch_now_ms();
    if (job->focus == NULL && job->published)
        state->drafts_pending = job->drafts_left;
    /* What a whole round published covers the changes it started with; a
     * round that published nothing leaves them to the next. */
    if (job->focus == NULL && job->published)
        changes_free(&state->changes[CHANGES_COOKING]);
    else
        changes_move(&state->changes[CHANGES_PENDING], &state->changes[CHANGES_COOKING]);
    return job;
}

void watch_round_free(round_job *job) {
    served_free(&job->sources);
    free(job->focus);
    free(job);
}
