/*
 * cmd_pack.c — `kiln pack info [FILE]`: what a .kpak holds and how it is laid
 * out. Packs are written by `kiln build --pack` (or `pack: true` in kiln.yml).
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#define COMMAND "pack"

void cmd_pack_usage(FILE *out) {
    fprintf(out, "Usage: kiln pack info [FILE]\n"
                 "\n"
                 "Validates a pack (default: <output>.kpak, the output folder as kiln build\n"
                 "finds it, " BUILD_DEFAULT_OUTPUT ".kpak by default) and prints its layout\n"
                 "(header, table of contents, path strings, payload and padding bytes), a\n"
                 "summary per kind and every entry (offset, size, kind, path).\n"
                 "`kiln build --pack` writes <output>.kpak next to the output folder.\n"
                 "\n"
                 "Exit status: 0 for a valid pack, 1 when it is missing or invalid.\n");
}

static void print_pack(const char *path, const kiln_pack *pack) {
    const kiln_pack_header *h = (const kiln_pack_header *)(const void *)pack->data;
    uint64_t payload = 0, counts[KILN_PACK_KIND_COUNT_] = {0}, bytes[KILN_PACK_KIND_COUNT_] = {0};
    for (uint32_t i = 0; i < pack->entry_count; i++) {
        payload += pack->entries[i].size;
        counts[pack->entries[i].kind]++;
        bytes[pack->entries[i].kind] += pack->entries[i].size;
    }
    uint64_t toc = h->strings_offset - h->toc_offset;
    uint64_t padding = pack->size - sizeof *h - toc - h->strings_size - payload;
    printf("pack: %s (version %u, %u entr%s, %zu bytes)\n", cook_escaped(path), h->version,
           pack->entry_count, pack->entry_count == 1 ? "y" : "ies", pack->size);
    printf("layout: header %zu, toc %" PRIu64 ", strings %" PRIu64 ", payload %" PRIu64
           ", padding %" PRIu64 " bytes\n",
           sizeof *h, toc, h->strings_size, payload, padding);
    printf("kinds:\n");
    for (int kind = 0; kind < KILN_PACK_KIND_COUNT_; kind++) {
        if (counts[kind] > 0)
            printf("  %-9s %6" PRIu64 " file%s %12" PRIu64 " bytes\n",
                   kiln_pack_kind_str((kiln_pack_kind)kind), counts[kind],
                   counts[kind] == 1 ? " " : "s", bytes[kind]);
    }
    printf("entries:\n  %12s %12s  %-9s path\n", "offset", "size", "kind");
    for (uint32_t i = 0; i < pack->entry_count; i++) {
        kiln_pack_item item;
        kiln_pack_entry(pack, i, &item);
        printf("  %12" PRIu64 " %12" PRIu64 "  %-9s %s\n", pack->entries[i].offset, item.size,
               kiln_pack_kind_str(item.kind), cook_escaped(item.path));
    }
}

/* The same facts as print_pack, as one JSON document. */
static bool print_pack_json(const char *path, const kiln_pack *pack) {
    const kiln_pack_header *h = (const kiln_pack_header *)(const void *)pack->data;
    json_t *doc = json_object(), *entries = json_array();
    json_object_set_new(doc, "path", json_string(path));
    json_object_set_new(doc, "kind", json_string("pack"));
    json_object_set_new(doc, "bytes", json_integer((json_int_t)pack->size));
    json_object_set_new(doc, "version", json_integer(h->version));
    for (uint32_t i = 0; i < pack->entry_count; i++) {
        kiln_pack_item item;
        kiln_pack_entry(pack, i, &item);
        json_t *entry = json_object();
        json_object_set_new(entry, "offset", json_integer((json_int_t)pack->entries[i].offset));
        json_object_set_new(entry, "size", json_integer((json_int_t)item.size));
        json_object_set_new(entry, "kind", json_string(kiln_pack_kind_str(item.kind)));
        json_object_set_new(entry, "path", json_string(item.path));
        json_array_append_new(entries, entry);
    }
    json_object_set_new(doc, "entries", entries);
    bool ok = cli_json_print(stdout, doc);
    json_decref(doc);
    return ok;
}

int cli_pack_describe(const char *path, bool json) {
    kiln_pack pack;
    kiln_error err;
    if (kiln_pack_open(&pack, path, &err) != KILN_OK) {
        fprintf(stderr, "%s: error: %s\n", cook_escaped(path),
                cook_escaped(cli_kiln_error_detail(&err, path)));
        return CLI_EXIT_FAILURE;
    }
    bool ok = true;
    if (json)
        ok = print_pack_json(path, &pack);
    else
        print_pack(path, &pack);
    kiln_pack_close(&pack);
    return ok ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

static int pack_info(int argc, char **argv) {
    if (argc > 2)
        return cli_usage_error(COMMAND, "unexpected argument '%s'", argv[2]);
    if (argc == 2)
        return cli_pack_describe(argv[1], false);
    /* <output>.kpak, the output folder as build finds it */
    build_setup setup;
    int status = cli_load_folders(NULL, NULL, &setup);
    char *default_path = NULL;
    if (status < 0 && (default_path = build_pack_path(setup.output)) == NULL) {
        cli_error("out of memory");
        status = CLI_EXIT_FAILURE;
    }
    config_free(&setup.config);
    if (status >= 0)
        return status;
    status = cli_pack_describe(default_path, false);
    free(default_path);
    return status;
}

int cmd_pack(int argc, char **argv) {
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        cmd_pack_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (argc < 2)
        return cli_usage_error(COMMAND, "missing subcommand (expected 'info')");
    if (strcmp(argv[1], "info") == 0)
        return pack_info(argc - 1, argv + 1);
    return cli_usage_error(COMMAND, "unknown subcommand '%s' (expected 'info')", argv[1]);
}
