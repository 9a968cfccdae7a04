/*
 * info.h — the pieces of `kiln info` (cmd_info.c): every file of the output
 * folder is described once into an inspect_report by the inspection room
 * (cook/inspect, inspect_describe), then printed as text (info_text.c) or
 * added to one JSON document (info_json.c); the last build's messages come
 * from the build cache (info_last_build.c).
 */
#ifndef KILN_CLI_INFO_H
#define KILN_CLI_INFO_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/cli.h"

struct json_t;

typedef struct info_options {
    const char *output;
    const char *input; /* --quality: where the textures' sources are */
    bool json;
    bool quiet; /* -q: totals (and unreadable files) only */
    bool unreferenced;
    bool quality;
    const char *file;     /* `kiln info FILE`: that cooked file alone */
    const char *settings; /* `kiln info --settings SOURCE`: that source's settings */
} info_options;

typedef struct info_totals {
    size_t files;
    uint64_t bytes;
    uint64_t vertices;
    uint64_t primitives[KILN_TOPOLOGY_COUNT_]; /* triangles, lines, points */
    size_t per_kind[KILN_PACK_KIND_COUNT_];
    size_t problems;
    size_t warned_assets, warnings; /* the last build's, from its cache */
} info_totals;

enum { OPTION_JSON = 256, OPTION_QUALITY, OPTION_UNREFERENCED };

void info_print_file_text(const inspect_report *report);
void info_print_totals_text(const info_totals *totals, bool quiet);

/* A inspect_report as the JSON object of its file, and the totals (info_json.c). */
struct json_t *info_file_json(const inspect_report *report);
struct json_t *info_totals_json(const info_totals *totals);

struct kiln_cache; /* the build cache (cache.h) */

/* The output folder's build cache into *cache; false without one (no build
 * yet, or kiln clean), and with a note on stderr when it cannot be read. */
bool info_read_build_cache(const char *output, struct kiln_cache *cache);
/* The diagnostics of every cooked asset that has some, as text or, when
 * `last_build` (a JSON array) is given, appended to it as
 * {"source":..., "lines":[...]}. */
void info_list_build_diagnostics(const struct kiln_cache *cache, bool quiet,
                                 struct json_t *last_build, info_totals *totals);

#endif /* KILN_CLI_INFO_H */
