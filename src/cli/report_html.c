/*
 * report_html.c — the build report's page (report.h): one HTML file with its
 * style, script and images inline (a Content-Security-Policy forbids loading
 * anything), so it opens anywhere, offline, from a CI artefact. Every string
 * that comes from a file or a file name goes through report_html_text.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/report.h"

void report_html_text(bytebuf *out, const char *text) {
    bytebuf escaped = {0};
    bytebuf_append_escaped(&escaped, text);
    for (size_t i = 0; i < escaped.size; i++) {
        char c = (char)escaped.data[i];
        switch (c) {
        case '&':
            bytebuf_printf(out, "&amp;");
            break;
        case '<':
            bytebuf_printf(out, "&lt;");
            break;
        case '>':
            bytebuf_printf(out, "&gt;");
            break;
        case '"':
            bytebuf_printf(out, "&quot;");
            break;
        case '\'':
            bytebuf_printf(out, "&#39;");
            break;
        case '\0':
            break; /* bytebuf_append_escaped's terminator */
        default:
            bytebuf_append(out, &c, 1);
        }
    }
    bytebuf_free(&escaped);
}

static const char *const stage_names[COOK_STAGE_COUNT] = {"import", "process", "write", "texture"};

static void append_size(bytebuf *out, uint64_t bytes) {
    if (bytes == UINT64_MAX)
        bytebuf_printf(out, "missing");
    else if (bytes < 1024)
        bytebuf_printf(out, "%llu B", (unsigned long long)bytes);
    else if (bytes < 1024 * 1024)
        bytebuf_printf(out, "%.1f KiB", (double)bytes / 1024.0);
    else
        bytebuf_printf(out, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
}

static double total_seconds(const cache_record *record) {
    double sum = 0.0;
    for (int s = 0; s < COOK_STAGE_COUNT; s++)
        sum += record->stage_seconds[s];
    return sum;
}

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fafafa}"
    "h1{font-size:1.4em;margin:0 0 .3em}table{border-collapse:collapse;width:100%;"
    "background:#fff}th,td{border-bottom:1px solid #ddd;padding:4px 6px;text-align:left;"
    "vertical-align:top}th{cursor:pointer;background:#eee;user-select:none}"
    "th[aria-sort=ascending]::after{content:' \\25B2'}th[aria-sort=descending]::after"
    "{content:' \\25BC'}td.num{text-align:right;white-space:nowrap}"
    "tr.changed td:first-child{box-shadow:inset 4px 0 #2a7}"
    ".badge{font-size:11px;border-radius:3px;padding:0 4px;margin-left:4px;background:#2a7;"
    "color:#fff}.warn{color:#a60}.note{color:#777;font-size:12px;"
    "max-width:16em}img.thumb{width:64px;height:64px;object-fit:contain;"
    "image-rendering:pixelated;background:repeating-conic-gradient(#ccc 0 25%,#fff 0 50%) 0 0/"
    "16px 16px}ul{margin:0;padding-left:1.1em}code{font-size:12px}#errors{color:#c33}"
    "#filter{margin:.8em 0;padding:4px;width:24em}pre{margin:0;white-space:pre-wrap;"
    "font-size:12px}";

/* Sorting (a click on a column's head, or ?sort=KEY&order=asc|desc) and
 * filtering (the box, or ?filter=TEXT) of the rows by their data-* values;
 * the table's data-shown says how many rows show. Errors are written into
 * the page (#errors) as well as the console. */
static const char script[] =
    "window.onerror=function(m,s,l){var e=document.getElementById('errors');"
    "e.hidden=false;e.textContent+='script error: '+m+' (line '+l+')\\n';"
    "document.body.setAttribute('data-errors','1')};\n"
    "(function(){var table=document.getElementById('assets');"
    "var body=table.tBodies[0],rows=Array.prototype.slice.call(body.rows);"
    "var box=document.getElementById('filter');"
    "function filter(){var t=box.value.toLowerCase(),n=0;rows.forEach(function(r){"
    "var show=r.getAttribute('data-search').indexOf(t)>=0;r.hidden=!show;if(show)n++});"
    "table.setAttribute('data-shown',String(n))}\n"
    "function sort(key,order){var numeric=key==='bytes'||key==='seconds'||key==='warnings';"
    "rows.sort(function(a,b){var x=a.getAttribute('data-'+key),y=b.getAttribute('data-'+key);"
    "var c=numeric?parseFloat(x)-parseFloat(y):(x<y?-1:x>y?1:0);return order==='desc'?-c:c});"
    "rows.forEach(function(r){body.appendChild(r)});"
    "Array.prototype.forEach.call(table.tHead.rows[0].cells,function(h){"
    "h.setAttribute('aria-sort',h.getAttribute('data-key')===key?"
    "(order==='desc'?'descending':'ascending'):'none')});"
    "table.setAttribute('data-sort',key+' '+order)}\n"
    "Array.prototype.forEach.call(table.tHead.rows[0].cells,function(h){"
    "h.addEventListener('click',function(){var key=h.getAttribute('data-key');"
    "sort(key,h.getAttribute('aria-sort')==='ascending'?'desc':'asc')})});"
    "box.addEventListener('input',filter);"
    "var q=new URLSearchParams(location.search);"
    "if(q.has('filter'))box.value=q.get('filter');"
    "if(q.has('sort'))sort(q.get('sort'),q.get('order')==='desc'?'desc':'asc');"
    "filter();document.body.setAttribute('data-ready','1')})();\n";

/* Bytes and files per kind, as horizontal bars. */
static void write_chart(const report *r, bytebuf *out) {
    uint64_t bytes[KILN_ASSET_KIND_COUNT_] = {0}, most = 1;
    size_t files[KILN_ASSET_KIND_COUNT_] = {0};
    for (size_t i = 0; i < r->row_count; i++) {
        const report_row *row = &r->rows[i];
        if (row->kind >= KILN_ASSET_KIND_COUNT_)
            continue;
        files[row->kind]++;
        if (row->bytes != UINT64_MAX && !(row->kind == KILN_ASSET_MATERIAL && row->index > 0))
            bytes[row->kind] += row->bytes; /* a material table's file counts once */
    }
    int kinds = 0;
    for (int k = 0; k < KILN_ASSET_KIND_COUNT_; k++) {
        kinds += files[k] > 0;
        most = bytes[k] > most ? bytes[k] : most;
    }
    bytebuf_printf(out,
                   "<svg id=\"chart\" role=\"img\" aria-label=\"cooked bytes per kind\" "
                   "width=\"640\" height=\"%d\" viewBox=\"0 0 640 %d\">\n",
                   kinds * 24 + 4, kinds * 24 + 4);
    int y = 2;
    for (int k = 0; k < KILN_ASSET_KIND_COUNT_; k++) {
        if (files[k] == 0)
            continue;
        double width = 380.0 * (double)bytes[k] / (double)most;
        bytebuf_printf(out,
                       "<g class=\"bar\" data-kind=\"%s\" data-bytes=\"%llu\" data-count=\"%zu\">"
                       "<text x=\"0\" y=\"%d\" font-size=\"13\">%s</text>"
                       "<rect x=\"90\" y=\"%d\" width=\"%.1f\" height=\"18\" fill=\"#4a8\"/>"
                       "<text x=\"%.1f\" y=\"%d\" font-size=\"12\">%zu, ",
                       kiln_asset_kind_str((kiln_asset_kind)k), (unsigned long long)bytes[k],
                       files[k], y + 14, kiln_asset_kind_str((kiln_asset_kind)k), y, width,
                       96.0 + width, y + 14, files[k]);
        append_size(out, bytes[k]);
        bytebuf_printf(out, "</text></g>\n");
        y += 24;
    }
    bytebuf_printf(out, "</svg>\n");
}

static void write_list(bytebuf *out, const strlist *items) {
    if (items->count == 0) {
        bytebuf_printf(out, "<span class=\"note\">none</span>");
        return;
    }
    bytebuf_printf(out, "<ul>");
    for (size_t i = 0; i < items->count; i++) {
        bytebuf_printf(out, "<li><code>");
        report_html_text(out, items->items[i]);
        bytebuf_printf(out, "</code></li>");
    }
    bytebuf_printf(out, "</ul>");
}

/* Lines of a cook's messages that are warnings. */
static size_t count_warnings(const bytebuf *diagnostics) {
    size_t count = 0;
    const char *text = (const char *)diagnostics->data;
    for (size_t at = 0; at < diagnostics->size;) {
        const char *end = memchr(text + at, '\n', diagnostics->size - at);
        size_t length = end != NULL ? (size_t)(end - (text + at)) : diagnostics->size - at;
        static const char tag[] = ": warning: ";
        for (size_t i = 0; i + sizeof tag - 1 <= length; i++) {
            if (memcmp(text + at + i, tag, sizeof tag - 1) == 0) {
                count++;
                break;
            }
        }
        at += length + 1;
    }
    return count;
}

static void write_messages(bytebuf *out, const cache_record *record, size_t warnings) {
    if (record == NULL || record->diagnostics.size == 0) {
        bytebuf_printf(out, "<span class=\"note\">none</span>");
        return;
    }
    char *text = malloc(record->diagnostics.size + 1);
    if (text == NULL)
        return;
    memcpy(text, record->diagnostics.data, record->diagnostics.size);
    text[record->diagnostics.size] = '\0';
    bytebuf_printf(out, "<details><summary class=\"warn\">%zu warning%s</summary><pre>", warnings,
                   warnings == 1 ? "" : "s");
    /* Line by line: bytebuf_append_escaped would show the newlines as \n. */
    for (char *cursor = text, *line; (line = strsep(&cursor, "\n")) != NULL;) {
        if (line[0] == '\0')
            continue;
        report_html_text(out, line);
        bytebuf_printf(out, "\n");
    }
    bytebuf_printf(out, "</pre></details>");
    free(text);
}

static void write_times(bytebuf *out, const cache_record *entry) {
    if (entry == NULL || entry->cooked_in == 0) {
        bytebuf_printf(out, "<span class=\"note\">not recorded</span>");
        return;
    }
    bytebuf_printf(out, "%.3f s<br><span class=\"note\">", total_seconds(entry));
    for (int s = 0; s < COOK_STAGE_COUNT; s++) {
        if (entry->stage_seconds[s] > 0.0)
            bytebuf_printf(out, "%s %.3f<br>", stage_names[s], entry->stage_seconds[s]);
    }
    bytebuf_printf(out, "</span>");
}

static void write_row(bytebuf *out, const report_row *row) {
    const cache_record *h = row->record;
    bool changed = row->changed;
    size_t warnings = row->record != NULL ? count_warnings(&row->record->diagnostics) : 0;
    const char *kind = kiln_asset_kind_str(row->kind);
    bytebuf_printf(out, "<tr class=\"asset%s\" data-kind=\"%s\" data-ref=\"",
                   changed ? " changed" : "", kind);
    report_html_text(out, row->ref);
    bytebuf_printf(out, "\" data-source=\"");
    report_html_text(out, row->source != NULL ? row->source : "");
    bytebuf_printf(out, "\" data-path=\"");
    report_html_text(out, row->path);
    bytebuf_printf(out,
                   "\" data-bytes=\"%llu\" data-seconds=\"%.6f\" data-warnings=\"%zu\" "
                   "data-changed=\"%d\" data-search=\"",
                   row->bytes == UINT64_MAX ? 0ull : (unsigned long long)row->bytes,
                   h != NULL && h->cooked_in > 0 ? total_seconds(h) : 0.0, warnings, changed);
    bytebuf search = {0};
    bytebuf_printf(&search, "%s %s %s %s", row->ref, kind, row->source ? row->source : "",
                   row->path);
    for (size_t i = 0; i < search.size; i++)
        if (search.data[i] >= 'A' && search.data[i] <= 'Z')
            search.data[i] = (uint8_t)(search.data[i] - 'A' + 'a');
    report_html_text(out, search.data != NULL ? (const char *)search.data : "");
    bytebuf_free(&search);
    bytebuf_printf(out, "\">\n<td>");
    if (row->thumbnail != NULL) {
        bytebuf_printf(out, "<img class=\"thumb\" alt=\"thumbnail\" src=\"%s\">", row->thumbnail);
    } else if (row->thumbnail_note != NULL) {
        bytebuf_printf(out, "<span class=\"note\">");
        report_html_text(out, row->thumbnail_note);
        bytebuf_printf(out, "</span>");
    }
    bytebuf_printf(out, "</td><td><code>");
    report_html_text(out, row->ref);
    bytebuf_printf(out, "</code>%s</td><td>%s</td><td><code>",
                   changed ? "<span class=\"badge\">changed</span>" : "", kind);
    report_html_text(out, row->source != NULL ? row->source : "");
    bytebuf_printf(out, "</code></td><td><code>");
    report_html_text(out, row->path);
    bytebuf_printf(out, "</code>");
    if (row->kind == KILN_ASSET_MATERIAL)
        bytebuf_printf(out, " row %u", row->index);
    bytebuf_printf(out, "</td><td class=\"num\">");
    append_size(out, row->bytes);
    bytebuf_printf(out, "</td><td class=\"num\">");
    write_times(out, h);
    bytebuf_printf(out, "</td><td>");
    write_messages(out, row->record, warnings);
    bytebuf_printf(out, "</td><td>");
    write_list(out, &row->references);
    bytebuf_printf(out, "</td><td>");
    write_list(out, &row->referenced_by);
    bytebuf_printf(out, "</td></tr>\n");
}

void report_write_html(const report *r, bytebuf *out) {
    uint64_t total = 0;
    size_t changed = 0;
    for (size_t i = 0; i < r->row_count; i++) {
        if (r->rows[i].bytes != UINT64_MAX &&
            !(r->rows[i].kind == KILN_ASSET_MATERIAL && r->rows[i].index > 0))
            total += r->rows[i].bytes;
        changed += r->rows[i].changed;
    }
    bytebuf_printf(out,
                   "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                   "img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
                   "<title>kiln build report</title>\n<style>%s</style></head>\n<body>\n"
                   "<h1>kiln build report</h1>\n<p>Output folder <code>",
                   style);
    report_html_text(out, r->output);
    bytebuf_printf(out, "</code>: <span id=\"asset-count\">%zu</span> asset ref%s", r->row_count,
                   r->row_count == 1 ? "" : "s");
    if (r->has_cache)
        bytebuf_printf(out, " cooked from %zu source%s", r->cache.count,
                       r->cache.count == 1 ? "" : "s");
    bytebuf_printf(out, ", ");
    append_size(out, total);
    bytebuf_printf(out, "; %zu changed by the last build that cooked anything (marked).", changed);
    if (!r->has_cache)
        bytebuf_printf(out, " No build cache: sources and warnings are unknown.");
    else if (!r->cache.timed)
        bytebuf_printf(out, " Cook times and change marks are recorded from the first "
                            "<code>kiln build --report</code> of this folder on.");
    bytebuf_printf(out, " kiln %s.</p>\n<pre id=\"errors\" hidden></pre>\n", KILN_VERSION_STRING);
    write_chart(r, out);
    bytebuf_printf(out,
                   "<div><input id=\"filter\" type=\"search\" placeholder=\"filter: ref, kind, "
                   "source, file\" aria-label=\"filter\"></div>\n"
                   "<table id=\"assets\" data-shown=\"%zu\" data-sort=\"\"><thead><tr>"
                   "<th data-key=\"changed\">thumbnail</th><th data-key=\"ref\">ref</th>"
                   "<th data-key=\"kind\">kind</th><th data-key=\"source\">source</th>"
                   "<th data-key=\"path\">file</th><th data-key=\"bytes\">size</th>"
                   "<th data-key=\"seconds\">cook time</th><th data-key=\"warnings\">warnings"
                   "</th><th data-key=\"ref\">references</th><th data-key=\"ref\">referenced by"
                   "</th></tr></thead>\n<tbody>\n",
                   r->row_count);
    for (size_t i = 0; i < r->row_count; i++)
        write_row(out, &r->rows[i]);
    bytebuf_printf(out, "</tbody></table>\n<script>%s</script>\n</body></html>\n", script);
}
