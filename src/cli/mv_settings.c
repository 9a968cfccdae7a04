/* mv_settings.c — what kiln.yml and the sidecars say about a move, which
 * `kiln mv` does not rewrite (settings are written by hand, often as globs)
 * but names, so that nothing changes silently: a source whose rules
 * (`match:` globs over its path) resolve other settings at NEW, and a
 * setting that names OLD by its path (material.replace's .mat,
 * material.overrides' images, which are relative to the input folder). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/mv.h"

static void note_setting_changes(mv_plan *plan, const build_setup *setup) {
    cook_settings before, after;
    config_resolve(&setup->config, setup->preset, plan->old_rel, &before);
    config_resolve(&setup->config, setup->preset, plan->new_rel, &after);
    for (size_t i = 0; i < cook_setting_count; i++) {
        const cook_setting *key = &cook_setting_table[i];
        bytebuf old_value = {0}, new_value = {0};
        cook_setting_to_json(key, &before, &old_value);
        cook_setting_to_json(key, &after, &new_value);
        bytebuf_append_zeros(&old_value, 1);
        bytebuf_append_zeros(&new_value, 1);
        if (!old_value.failed && !new_value.failed &&
            strcmp((const char *)old_value.data, (const char *)new_value.data) != 0) {
            char shown[COOK_ESCAPED_SIZE];
            cook_escape_to(shown, sizeof shown, (const char *)old_value.data);
            char line[2 * COOK_ESCAPED_SIZE + 256];
            snprintf(line, sizeof line,
                     "%s/%s: warning: kiln.yml resolves %s to %s at %s (it was %s): its rules "
                     "match paths; a sidecar setting keeps it",
                     plan->input, cook_escaped(plan->new_rel), key->name,
                     cook_escaped((const char *)new_value.data), cook_escaped(plan->new_rel),
                     shown);
            strlist_push(&plan->notes, line);
        }
        bytebuf_free(&old_value);
        bytebuf_free(&new_value);
    }
}

/* Each line of `text` (the file `shown`) that holds OLD's path. */
static void note_mentions(mv_plan *plan, const char *shown, const char *text, size_t size) {
    size_t old_length = strlen(plan->old_rel);
    uint32_t line = 1;
    for (size_t start = 0; start < size; line++) {
        size_t end = start;
        while (end < size && text[end] != '\n')
            end++;
        for (size_t at = start; at + old_length <= end; at++)
            if (memcmp(text + at, plan->old_rel, old_length) == 0) {
                char note[1200];
                snprintf(note, sizeof note,
                         "%s:%u: warning: names '%s', which moves to '%s'; kiln mv does not "
                         "rewrite settings",
                         shown, line, cook_escaped(plan->old_rel), cook_escaped(plan->new_rel));
                strlist_push(&plan->notes, note);
                break;
            }
        start = end + 1;
    }
}

static void note_file_mentions(mv_plan *plan, const char *path, const char *shown) {
    uint8_t *text = NULL;
    size_t size = 0;
    char reason[256];
    if (cook_read_file(path, 1u << 20, &text, &size, reason, sizeof reason))
        note_mentions(plan, shown, (const char *)text, size);
    free(text);
}

void mv_plan_settings(mv_plan *plan, const build_setup *setup, bool source) {
    if (source)
        note_setting_changes(plan, setup);
    if (setup->config.path != NULL)
        note_file_mentions(plan, setup->config.path, setup->config.path);
    strlist files = {0};
    char reason[256];
    if (!discover_walk(plan->input, NULL, &files, reason, sizeof reason))
        return; /* mv_plan_make said it */
    for (size_t i = 0; i < files.count; i++) {
        if (!sidecar_is_name(files.items[i]))
            continue;
        char *path = cook_path_join(plan->input, files.items[i]);
        char *shown = cook_path_join(plan->input, cook_escaped(files.items[i]));
        if (path != NULL && shown != NULL)
            note_file_mentions(plan, path, shown);
        free(path);
        free(shown);
    }
    strlist_free(&files);
}
