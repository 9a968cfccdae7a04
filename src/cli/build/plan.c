/*
 * plan.c — what a build will cook: the walk of the input folder, the importer
 * of each file, each asset's resolved settings, and which assets are wanted
 * from the start (every one, or with --roots the roots and `always:`).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/build/build.h"

void build_plan_free(build_plan *plan) {
    strlist_free(&plan->sources);
    strlist_free(&plan->unclaimed);
    free(plan->importers);
    free(plan->settings);
    free(plan->settings_hash);
    free(plan->wanted);
    free(plan->same_ref);
    free(plan->same_ref_model);
}

/* Marks the sources a list of globs matches; false (with an error) when
 * `required` and a glob matches none. */
static bool mark_matches(const build_plan *plan, char *const *globs, size_t count, bool required,
                         const char *input) {
    bool ok = true;
    for (size_t g = 0; g < count; g++) {
        bool matched = false;
        for (size_t i = 0; i < plan->sources.count; i++) {
            if (discover_glob_match(globs[g], plan->sources.items[i])) {
                plan->wanted[i] = true;
                matched = true;
            }
        }
        if (required && !matched) {
            cli_error("root '%s' matches no source asset in '%s'", globs[g], input);
            ok = false;
        }
    }
    return ok;
}

/* Without --roots everything is wanted. With it, the operands (or kiln.yml's
 * `roots:` when there are none) and `always:`; run.c adds what they reach. */
static bool choose_wanted(const build_options *options, const build_setup *setup,
                          build_plan *plan) {
    size_t count = plan->sources.count;
    for (size_t i = 0; i < count; i++)
        plan->wanted[i] = !options->roots;
    if (!options->roots)
        return true;
    const strlist *config_roots = &setup->config.roots;
    char *const *roots = options->root_arg_count ? options->root_args : config_roots->items;
    size_t root_count = options->root_arg_count ? options->root_arg_count : config_roots->count;
    if (root_count == 0) {
        cli_error("--roots needs source assets (operands, or `roots:` in %s)", CLI_CONFIG_FILE);
        return false;
    }
    bool ok = mark_matches(plan, roots, root_count, true, setup->input);
    mark_matches(plan, setup->config.always.items, setup->config.always.count, false, setup->input);
    return ok;
}

static bool is_input_folder(const char *input, const char *path) {
    char *full = cook_path_join(input, path);
    struct stat info;
    bool folder = full != NULL && stat(full, &info) == 0 && S_ISDIR(info.st_mode);
    free(full);
    return folder;
}

typedef struct source_ref {
    char ref[1024];
    size_t index;
} source_ref;

static int compare_source_refs(const void *a, const void *b) {
    const source_ref *x = a, *y = b;
    int order = strcmp(x->ref, y->ref);
    return order != 0 ? order : (x->index > y->index) - (x->index < y->index);
}

/* Fills plan->same_ref and same_ref_model: sources whose canonical refs are
 * equal (they differ only in extension or case) point at the first other one
 * (and the first other model). */
static bool find_same_refs(build_plan *plan) {
    size_t count = plan->sources.count;
    plan->same_ref = calloc(count ? count : 1, sizeof *plan->same_ref);
    plan->same_ref_model = calloc(count ? count : 1, sizeof *plan->same_ref_model);
    source_ref *refs = malloc((count ? count : 1) * sizeof *refs);
    if (plan->same_ref == NULL || plan->same_ref_model == NULL || refs == NULL) {
        free(refs);
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        refs[i].index = i;
        if (kiln_ref_canonicalize(plan->sources.items[i], refs[i].ref, sizeof refs[i].ref) !=
            KILN_OK)
            refs[i].ref[0] = '\0'; /* cook_asset reports it */
    }
    qsort(refs, count, sizeof *refs, compare_source_refs);
    for (size_t i = 0; i < count;) {
        size_t end = i + 1;
        while (end < count && refs[i].ref[0] != '\0' && strcmp(refs[end].ref, refs[i].ref) == 0)
            end++;
        for (size_t k = i; end - i > 1 && k < end; k++) {
            size_t me = refs[k].index;
            for (size_t o = i; o < end; o++) {
                size_t other = refs[o].index;
                if (other == me)
                    continue;
                if (plan->same_ref[me] == NULL)
                    plan->same_ref[me] = plan->sources.items[other];
                if (plan->same_ref_model[me] == NULL &&
                    plan->importers[other]->kind == COOK_KIND_MODEL)
                    plan->same_ref_model[me] = plan->sources.items[other];
            }
        }
        i = end;
    }
    free(refs);
    return true;
}

bool build_plan_make(const build_options *options, const build_setup *setup, build_plan *plan) {
    strlist files = {0};
    char reason[512];
    /* The output folder is excluded in case it lies inside the input. */
    if (!discover_walk_sources(setup->input, setup->output, cook_registry_is_folder, &files, reason,
                               sizeof reason)) {
        cli_error("cannot list the input folder: %s", reason);
        strlist_free(&files);
        return false;
    }
    size_t capacity = files.count ? files.count : 1;
    plan->importers = calloc(capacity, sizeof *plan->importers);
    plan->settings = calloc(capacity, sizeof *plan->settings);
    plan->settings_hash = calloc(capacity, sizeof *plan->settings_hash);
    plan->wanted = calloc(capacity, sizeof *plan->wanted);
    bool ok = plan->importers != NULL && plan->settings != NULL && plan->settings_hash != NULL &&
              plan->wanted != NULL;
    for (size_t i = 0; ok && i < files.count; i++) {
        const cook_importer *importer = cook_registry_match(files.items[i]);
        if (importer != NULL && importer->folder && !is_input_folder(setup->input, files.items[i]))
            importer = NULL; /* a file named like a cubemap folder ("prod.env") */
        if (importer != NULL) {
            size_t at = plan->sources.count;
            plan->importers[at] = importer;
            config_resolve(&setup->config, setup->preset, files.items[i], &plan->settings[at]);
            /* Neighbours mostly share their settings: hash each run once.
             * (Both come from cook_settings_default's zeroed struct, so
             * their padding compares equal.) */
            bool same = at > 0 && memcmp(&plan->settings[at], &plan->settings[at - 1],
                                         sizeof plan->settings[at]) == 0;
            plan->settings_hash[at] =
                same ? plan->settings_hash[at - 1] : cache_settings_hash(&plan->settings[at]);
            ok = strlist_push(&plan->sources, files.items[i]);
        } else {
            ok = strlist_push(&plan->unclaimed, files.items[i]);
        }
    }
    strlist_free(&files);
    ok = ok && find_same_refs(plan);
    if (!ok) {
        cli_error("out of memory while planning the build");
        return false;
    }
    return choose_wanted(options, setup, plan);
}
