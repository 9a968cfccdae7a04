/*
 * journal.c — a build's finished work, kept as it finishes.
 *
 * The cache (.kiln-cache) is written once, at the end of a build; a build
 * killed before then kept none of its finished work, and the next one cooked
 * everything again. So each asset's cache record is also appended, as it is
 * made, to <output>/.kiln-journal: one entry per asset,
 *
 *   journal <N>\n   then N bytes: a one-record cache file (cache.h's format,
 *                   with its encoder line and its checksum)
 *
 * written with one write(2) in append mode. The next build reads the cache,
 * then the journal: every entry whose checksum holds and whose encoder
 * version is this build's replaces the cache's record of its source (a torn
 * last entry, from a kill in the middle of a write, fails its checksum and is
 * ignored). Once a build has saved the cache, which then holds all of it, the
 * journal is removed. The output lock (lock.c) keeps one build at a time on
 * the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build/internal.h"

struct build_journal {
    int fd;
    uint32_t encoder_version;
    pthread_mutex_t lock;
};

build_journal *build_journal_open(const build_setup *setup) {
    char *path = cook_path_join(setup->output, BUILD_JOURNAL_FILE);
    build_journal *journal = calloc(1, sizeof *journal);
    int fd = path != NULL ? open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) : -1;
    free(path);
    if (journal == NULL || fd < 0) {
        /* Without a journal a killed build only loses its work, as before. */
        free(journal);
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    journal->fd = fd;
    journal->encoder_version = setup->encoder_version;
    pthread_mutex_init(&journal->lock, NULL);
    return journal;
}

void build_journal_append(build_journal *journal, const cache_record *record) {
    if (journal == NULL)
        return;
    kiln_cache one = {.encoder_version = journal->encoder_version,
                      .records = (cache_record *)record,
                      .count = 1,
                      .cap = 1};
    bytebuf body = {0}, entry = {0};
    cache_serialize(&one, &body);
    bytebuf_printf(&entry, "journal %zu\n", body.size);
    bytebuf_append(&entry, body.data, body.size);
    if (!entry.failed && !body.failed) {
        pthread_mutex_lock(&journal->lock);
        size_t done = 0;
        while (done < entry.size) {
            ssize_t wrote = write(journal->fd, entry.data + done, entry.size - done);
            if (wrote < 0 && errno == EINTR)
                continue;
            if (wrote <= 0)
                break; /* a torn entry is ignored when read; the cache still comes at the end */
            done += (size_t)wrote;
        }
        pthread_mutex_unlock(&journal->lock);
    }
    bytebuf_free(&body);
    bytebuf_free(&entry);
}

void build_journal_close(build_journal *journal) {
    if (journal == NULL)
        return;
    close(journal->fd);
    pthread_mutex_destroy(&journal->lock);
    free(journal);
}

void build_journal_remove(const build_setup *setup) {
    char *path = cook_path_join(setup->output, BUILD_JOURNAL_FILE);
    if (path != NULL)
        unlink(path);
    free(path);
}

static int compare_records(const void *a, const void *b) {
    return strcmp(((const cache_record *)a)->source, ((const cache_record *)b)->source);
}

/* Puts `record` in the cache (replacing its source's record); takes it. */
static bool merge_record(kiln_cache *cache, cache_record *record) {
    const cache_record *found = cache_find(cache, record->source);
    if (found != NULL) {
        cache_record *slot = &cache->records[found - cache->records];
        cache_record_free(slot);
        *slot = *record;
        *record = (cache_record){0};
        return true;
    }
    if (!cache_add(cache, record))
        return false;
    qsort(cache->records, cache->count, sizeof *cache->records, compare_records);
    return true;
}

size_t build_journal_merge(const build_setup *setup, kiln_cache *cache) {
    char *path = cook_path_join(setup->output, BUILD_JOURNAL_FILE);
    uint8_t *data = NULL;
    size_t size = 0;
    char reason[256];
    bool read = path != NULL && access(path, F_OK) == 0 &&
                cook_read_file(path, SIZE_MAX / 2, &data, &size, reason, sizeof reason);
    free(path);
    if (!read)
        return 0;
    /* Records of another encoder, or next to a cache of another one, would
     * be trusted under the wrong version: only this build's are merged. */
    if (cache->count > 0 && cache->encoder_version != setup->encoder_version) {
        free(data);
        return 0;
    }
    size_t merged = 0;
    size_t at = 0;
    while (at < size) {
        const char *line = (const char *)data + at;
        const char *newline = memchr(line, '\n', size - at);
        unsigned long long length = 0;
        char tail = 0;
        if (newline == NULL || sscanf(line, "journal %llu%c", &length, &tail) != 2 || tail != '\n')
            break;
        size_t body = (size_t)(newline + 1 - (const char *)data);
        if (length > size - body)
            break; /* the torn last entry of a killed build */
        kiln_cache one = {0};
        if (cache_parse(&one, data + body, (size_t)length, reason, sizeof reason) &&
            one.encoder_version == setup->encoder_version) {
            for (size_t i = 0; i < one.count; i++)
                merged += merge_record(cache, &one.records[i]);
        }
        cache_free(&one);
        at = body + (size_t)length;
    }
    free(data);
    if (merged > 0) {
        cache->encoder_version = setup->encoder_version;
        cache->from_journal = true;
    }
    return merged;
}
