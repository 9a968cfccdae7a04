/* fuzz_cache.c — cache_parse (src/build/cache.c): the text of a build cache
 * record, which a build reads from <output>/.kiln-cache and from every entry a
 * remote cache server sends (remote/entry.c). Its last line is a checksum
 * that anyone can compute, a hostile server included, so the harness appends
 * "end <XXH3 of the input>" to the input: the fuzzer gets past the checksum to
 * the lines (fuzz_remote cannot). The input as it is, checksum unmended,
 * runs first.
 *
 * What cache_parse accepts must hold what a build relies on (else abort):
 * records in strictly increasing source order (cache_find bisects), each
 * starting with its source's stamp, every path safe (cache_path_is_safe); and
 * it must serialise to a file that parses back and serialises to the same
 * bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "build/cache.h"
#include "fuzz_aligned.h"

static void check(bool ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "fuzz_cache: %s\n", what);
        abort();
    }
}

static void check_record(const cache_record *r) {
    check(r->importer != NULL && r->importer[0] != '\0', "a record without an importer");
    check(r->source != NULL && cache_path_is_safe(r->source), "an unsafe source path");
    check(r->file_count > 0 && strcmp(r->files[0].path, r->source) == 0,
          "a record not starting with its source's stamp");
    for (size_t i = 0; i < r->file_count; i++)
        check(cache_path_is_safe(r->files[i].path), "an unsafe file path");
    const strlist *lists[] = {&r->absent, &r->outputs, &r->references};
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++)
        for (size_t i = 0; i < lists[l]->count; i++)
            check(cache_path_is_safe(lists[l]->items[i]), "an unsafe path");
    for (size_t i = 0; i < r->manifest.count; i++)
        check(cache_path_is_safe(r->manifest.items[i].path), "an unsafe manifest path");
}

/* Serialises, parses back and serialises again: both images equal. */
static void check_round_trip(const kiln_cache *cache) {
    bytebuf first = {0}, second = {0};
    cache_serialize(cache, &first);
    check(!first.failed, "serialising failed");
    kiln_cache again;
    char reason[256];
    check(cache_parse(&again, first.data, first.size, reason, sizeof reason),
          "its own serialisation does not parse");
    check(again.count == cache->count && again.timed == cache->timed &&
              again.build == cache->build && again.encoder_version == cache->encoder_version,
          "the serialisation parses to another cache");
    cache_serialize(&again, &second);
    check(second.size == first.size && memcmp(second.data, first.data, first.size) == 0,
          "serialising twice gives other bytes");
    cache_free(&again);
    bytebuf_free(&first);
    bytebuf_free(&second);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char reason[256];
    kiln_cache cache;
    uint8_t *copy = fuzz_copy(data, size);
    if (copy == NULL)
        return 0;
    if (cache_parse(&cache, copy, size, reason, sizeof reason))
        cache_free(&cache);
    free(copy);

    /* The input with its checksum line: "end " + 16 hex digits + '\n'. */
    size_t sealed_size = size + 4 + 16 + 1;
    uint8_t *sealed = malloc(sealed_size + 1);
    if (sealed == NULL)
        return 0;
    if (size > 0)
        memcpy(sealed, data, size);
    snprintf((char *)sealed + size, 4 + 16 + 2, "end %016llx\n",
             (unsigned long long)XXH3_64bits(data, size));
    if (cache_parse(&cache, sealed, sealed_size, reason, sizeof reason)) {
        for (size_t i = 0; i < cache.count; i++) {
            check_record(&cache.records[i]);
            check(i == 0 || strcmp(cache.records[i - 1].source, cache.records[i].source) < 0,
                  "records out of source order");
        }
        check_round_trip(&cache);
        cache_free(&cache);
    } else {
        check(reason[0] != '\0', "a refusal without a reason");
    }
    free(sealed);
    return 0;
}
