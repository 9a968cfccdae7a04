/*
 * report.h — the HTML build report (`kiln report`, `kiln build --report`):
 * one self-contained page about an output folder.
 *
 *   report_data.c     the rows: the manifest's refs with their sources, the
 *                     warnings and cook times per stage of their last cook,
 *                     and whether the last build that cooked made them (the
 *                     build cache, format 3), files, references both ways
 *   report_thumb.c    thumbnails: textures decoded (inspect.h), models
 *                     rendered by the viewer kiln-view when it is installed
 *   report_html.c     the page: escaping, table, SVG chart, script
 *   cmd_report.c      the command
 */
#ifndef KILN_CLI_REPORT_H
#define KILN_CLI_REPORT_H

#include "cli/cli.h"

/* ---------------------------------------------------------------------------
 * HTML (report_html.c)
 * ------------------------------------------------------------------------- */

/* `text` (bytes from a file or a file name) for HTML text and attribute
 * values: escaped as every kiln text output is (cook's \xNN for control
 * characters and bytes that are not UTF-8), then & < > " ' as entities. */
void report_html_text(bytebuf *out, const char *text);

/* ---------------------------------------------------------------------------
 * The report (report_data.c, report_thumb.c)
 * ------------------------------------------------------------------------- */

#define REPORT_THUMB_SIDE 128u

typedef struct report_row {
    const char *ref, *path; /* in the manifest (borrowed) */
    kiln_asset_kind kind;
    uint32_t index;             /* a material's row in its file */
    const char *source;         /* the source that cooked it (cache), or NULL */
    uint64_t bytes;             /* the cooked file's size; UINT64_MAX: missing */
    strlist references;         /* refs it names */
    strlist referenced_by;      /* refs naming it */
    char *thumbnail;            /* "data:image/png;base64,..." or NULL */
    char *thumbnail_note;       /* why there is none, or NULL */
    const cache_record *record; /* its source's, or NULL */
    bool changed;               /* cooked by the last build that cooked anything */
} report_row;

typedef struct report {
    const char *output;
    kiln_cache cache;
    bool has_cache;
    kiln_file manifest_file;
    kiln_manifest_view manifest;
    report_row *rows; /* manifest order (by ref hash), sorted by ref after */
    size_t row_count;
    char viewer[4096]; /* kiln-view's path, "" when absent */
} report;

/* Reads the output folder (manifest, build cache) and makes every row;
 * false with a reason when there is no manifest to report on. */
bool report_load(report *r, const char *output, char *reason, size_t reason_size);
void report_free(report *r);
/* The thumbnail of every row (textures decoded, scenes through kiln-view). */
void report_make_thumbnails(report *r);
/* The PNG file's bytes as a data URI, or NULL when out of memory. */
char *report_png_data_uri(const uint8_t *png, size_t size);

/* The whole page into `out`. */
void report_write_html(const report *r, bytebuf *out);

/* `kiln report`'s work for an output folder into html_path; prints errors;
 * returns an exit status. */
int report_write_file(const char *output, const char *html_path);

#endif /* KILN_CLI_REPORT_H */
