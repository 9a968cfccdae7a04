/*
 * cook_client.c — a development runtime in a few lines, for test_watch.sh:
 * mounts a runtime folder, connects to `kiln watch --serve` (unless the
 * socket is "-") and loads each ref through the public manager API, so that
 * a ref whose cooked file is missing is cooked on demand.
 *
 *   cook_client [--pause MS] [--async N [--by-ref] | --cancel | --destroy]
 *               RUNTIME_FOLDER SOCKET|- REF...
 *
 * Default: kiln_manager_load_ref of each ref in turn (synchronous); a ref
 * that loads but whose reload status is not KILN_OK (a stale file whose
 * source failed to cook) also prints "status <ref>: <message>".
 * --async N: a manager with N worker threads (0: kiln_manager_pump loads);
 * every ref is requested at once (kiln_manager_request, by handle; with
 * --by-ref, kiln_manager_request_ref) and kiln_manager_pump runs until every
 * completion callback came, so the workers ask the server side by side.
 * Prints "requested <ref>: zero ref" for a request by ref that returned no
 * ref (its cook was asked for first).
 * --cancel: one worker; the first ref is requested into a level scope, and
 * once its state is "loading" (a worker has it: its read failed and it is
 * asking the server, which the test slows down) plus 0.5 s, the scope is
 * destroyed. Prints "cancel: in flight <n>" (assets still loading right after
 * the destruction: the worker's pin keeps the slot), then pumps until the
 * manager holds no asset (the worker came back and dropped it) and prints
 * "cancel: dropped, <n> callbacks" (0 expected). Then every ref is requested
 * again into a new scope as --async does.
 * --destroy: one worker; the first ref is requested, and 0.5 s after it is
 * "loading" the manager is destroyed, which does not wait for the cook (the
 * worker waiting for the reply is woken): prints "destroy: done" and exits
 * (test_watch.sh checks that the slowed cook had not ended by then).
 *
 * --pause MS: the refs one after another, MS milliseconds apart (each
 * request's callback comes before the pause), so that a server closing
 * silent connections closes the manager's between them.
 *
 * Prints per ref "ok <ref> <kind> <path> <file bytes>" or
 * "fail <ref>: <message>"; exit status 0 when every ref loaded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kiln/manager.h"

#define MAX_REFS 64

typedef struct request {
    const char *name;
    kiln_ref ref;
    kiln_result result;
    kiln_error err;
    int done;
} request;

static int callbacks;

static void on_done(void *user, kiln_ref ref, kiln_result result, const kiln_error *err) {
    request *q = user;
    q->ref = ref;
    q->result = result;
    if (err != NULL)
        q->err = *err;
    q->done = 1;
    callbacks++;
}

static void pause_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static int report(kiln_manager *manager, const char *name, kiln_ref ref, kiln_result result,
                  const kiln_error *err) {
    if (result != KILN_OK) {
        printf("fail %s: %s\n", name, err->message);
        return 1;
    }
    const kiln_asset *asset = kiln_asset_get(manager, ref);
    if (asset == NULL) {
        printf("fail %s: loaded but not ready\n", name);
        return 1;
    }
    printf("ok %s %s %s %llu\n", name, kiln_asset_kind_str(asset->kind), asset->path,
           (unsigned long long)asset->file_bytes);
    kiln_error status;
    if (kiln_asset_reload_status(manager, ref, &status) != KILN_OK)
        printf("status %s: %s\n", name, status.message);
    return 0;
}

static int by_ref;

/* Requests every ref into `scope` and pumps until each callback came (at most
 * 10 minutes: the server may cook a lot on a loaded machine). */
static int request_all(kiln_manager *manager, kiln_scope scope, char **names, int count) {
    static request q[MAX_REFS];
    memset(q, 0, sizeof q);
    int status = 0, waiting = 0;
    for (int i = 0; i < count; i++) {
        q[i].name = names[i];
        kiln_error err;
        kiln_ref ref;
        kiln_result r = by_ref ? kiln_manager_request_ref(manager, scope, names[i], 0, on_done,
                                                          &q[i], &ref, &err)
                               : kiln_manager_request(manager, scope, kiln_ref_hash(names[i]), 0,
                                                      on_done, &q[i], &ref, &err);
        if (r == KILN_OK && ref.slot == 0)
            printf("requested %s: zero ref\n", names[i]);
        if (r != KILN_OK) {
            printf("fail %s: %s\n", names[i], err.message);
            status = 1;
            q[i].done = -1;
            continue;
        }
        waiting++;
    }
    for (long tick = 0; tick < 600000 / 5; tick++) {
        kiln_manager_pump(manager);
        int left = 0;
        for (int i = 0; i < count; i++)
            left += q[i].done == 0;
        if (left == 0)
            break;
        pause_ms(5);
    }
    for (int i = 0; i < count; i++) {
        if (q[i].done == 0) {
            printf("fail %s: no completion callback\n", names[i]);
            status = 1;
        } else if (q[i].done > 0) {
            status |= report(manager, names[i], q[i].ref, q[i].result, &q[i].err);
        }
    }
    (void)waiting;
    return status;
}

static int cancel_in_flight(kiln_manager *manager, const char *name) {
    kiln_error err;
    kiln_scope doomed;
    if (kiln_scope_create(manager, "doomed", 0, &doomed, &err) != KILN_OK) {
        printf("fail %s: %s\n", name, err.message);
        return 1;
    }
    static request q;
    kiln_ref ref;
    if (kiln_manager_request(manager, doomed, kiln_ref_hash(name), 0, on_done, &q, &ref, &err) !=
        KILN_OK) {
        printf("fail %s: %s\n", name, err.message);
        return 1;
    }
    for (int i = 0; i < 2000 && kiln_asset_state_of(manager, ref, &err) != KILN_ASSET_LOADING; i++)
        pause_ms(5);
    pause_ms(500);
    if (kiln_scope_destroy(manager, doomed, &err) != KILN_OK) {
        printf("fail %s: %s\n", name, err.message);
        return 1;
    }
    kiln_manager_stats stats;
    kiln_manager_stats_get(manager, &stats, &err);
    printf("cancel: in flight %u\n", stats.loading);
    for (int i = 0; i < 120000 / 5 && stats.assets > 0; i++) {
        kiln_manager_pump(manager);
        pause_ms(5);
        kiln_manager_stats_get(manager, &stats, &err);
    }
    for (int i = 0; i < 3; i++)
        kiln_manager_pump(manager);
    printf("cancel: %s, %d callbacks\n", stats.assets == 0 ? "dropped" : "still held", callbacks);
    return stats.assets == 0 && callbacks == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    int async = 0, cancel = 0, destroy = 0, at = 1;
    unsigned workers = 0;
    long pause_between = 0;
    if (argc > 2 && strcmp(argv[1], "--pause") == 0) {
        pause_between = atol(argv[2]);
        argv += 2; /* the options below as if --pause were not there */
        argc -= 2;
    }
    if (argc > 2 && strcmp(argv[1], "--async") == 0) {
        async = 1;
        workers = (unsigned)atoi(argv[2]);
        at = 3;
        if (argc > 3 && strcmp(argv[3], "--by-ref") == 0) {
            by_ref = 1;
            at = 4;
        }
    } else if (argc > 1 && strcmp(argv[1], "--cancel") == 0) {
        cancel = 1;
        workers = 1;
        at = 2;
    } else if (argc > 1 && strcmp(argv[1], "--destroy") == 0) {
        destroy = 1;
        workers = 1;
        at = 2;
    }
    if (argc - at < 3 || argc - at - 2 > MAX_REFS) {
        fprintf(stderr, "usage: cook_client [--pause MS] [--async N [--by-ref] | --cancel | "
                        "--destroy] RUNTIME_FOLDER SOCKET|- REF...\n");
        return 2;
    }
    const char *folder = argv[at], *socket = argv[at + 1];
    char **names = argv + at + 2;
    int count = argc - at - 2;
    kiln_manager_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.worker_threads = workers;
    kiln_manager *manager = NULL;
    kiln_error err;
    if (kiln_manager_create(&desc, &manager, &err) != KILN_OK ||
        kiln_manager_mount(manager, folder, NULL, &err) != KILN_OK) {
        fprintf(stderr, "cook_client: %s\n", err.message);
        kiln_manager_destroy(manager);
        return 1;
    }
    if (strcmp(socket, "-") != 0 && kiln_manager_connect_cooker(manager, socket, &err) != KILN_OK) {
        fprintf(stderr, "cook_client: %s\n", err.message);
        kiln_manager_destroy(manager);
        return 1;
    }
    int status = 0;
    if (destroy) {
        kiln_ref ref;
        if (kiln_manager_request(manager, KILN_SCOPE_TRANSIENT, kiln_ref_hash(names[0]), 0, NULL,
                                 NULL, &ref, &err) != KILN_OK) {
            printf("fail %s: %s\n", names[0], err.message);
            kiln_manager_destroy(manager);
            return 1;
        }
        for (int i = 0; i < 2000 && kiln_asset_state_of(manager, ref, &err) != KILN_ASSET_LOADING;
             i++)
            pause_ms(5);
        pause_ms(500);
        kiln_manager_destroy(manager);
        printf("destroy: done\n");
        return 0;
    }
    if (cancel)
        status |= cancel_in_flight(manager, names[0]);
    kiln_scope level;
    if (kiln_scope_create(manager, "test", 0, &level, &err) != KILN_OK) {
        fprintf(stderr, "cook_client: %s\n", err.message);
        kiln_manager_destroy(manager);
        return 1;
    }
    if ((async || cancel) && pause_between > 0) {
        for (int i = 0; i < count; i++) {
            if (i > 0)
                pause_ms(pause_between);
            status |= request_all(manager, level, names + i, 1);
        }
    } else if (async || cancel) {
        status |= request_all(manager, level, names, count);
    } else {
        for (int i = 0; i < count; i++) {
            if (i > 0)
                pause_ms(pause_between);
            kiln_ref ref;
            kiln_result r = kiln_manager_load_ref(manager, level, names[i], &ref, &err);
            status |= report(manager, names[i], ref, r, &err);
        }
    }
    kiln_scope_destroy(manager, level, &err);
    kiln_manager_destroy(manager);
    return status;
}
