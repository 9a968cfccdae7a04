/*
 * plan.c — what a build will cook: the walk of the input folder, the importer
 * of each file, each asset's resolved settings, and which assets are wanted
 * from the start (every one, or with --roots the roots and `always:`).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "build/internal.h"

void build_plan_free(build_plan *plan) {
    for (size_t i = 0; plan->sidecar_errors != NULL && i < plan->sources.count; i++)
        free(plan->sidecar_errors[i]);
    strlist_free(&plan->sources);
    strlist_free(&plan->unclaimed);
    diag_free(&plan->walk);
    free(plan->importers);
    free(plan->settings);
    free(plan->settings_hash);
    free(plan->wanted);
    free(plan->same_ref);
    free(plan->same_ref_model);
    free(plan->ids);
    free(plan->sidecar_errors);
    free(plan->has_sidecar);
}

/* A merged level imports its placed models with their own settings
 * (drivers/level_merge.c), and mesh.merge, scene.scale and scene.up shape
 * what it inlines: the models' values are part of every level's settings
 * hash, so changing a rule for a model cooks merged levels again. Models at
 * the defaults add nothing (a project without such rules keeps its hashes). */
static void hash_model_scene_settings(build_plan *plan) {
    uint64_t models = 0;
    bool any = false;
    for (size_t i = 0; i < plan->sources.count; i++) {
        const cook_settings *s = &plan->settings[i];
        if (plan->importers[i]->kind != COOK_KIND_MODEL ||
            (!s->mesh_merge && s->scene_up == COOK_UP_Y && s->scene_scale[0] == '\0'))
            continue;
        const char *path = plan->sources.items[i];
        models = XXH3_64bits_withSeed(path, strlen(path) + 1, models);
        uint8_t flags[2] = {s->mesh_merge, (uint8_t)s->scene_up};
        models = XXH3_64bits_withSeed(flags, sizeof flags, models);
        models = XXH3_64bits_withSeed(s->scene_scale,
                                      strnlen(s->scene_scale, sizeof s->scene_scale), models);
        any = true;
    }
    for (size_t i = 0; any && i < plan->sources.count; i++)
        if (plan->importers[i]->kind == COOK_KIND_LEVEL)
            plan->settings_hash[i] =
                XXH3_64bits_withSeed(&models, sizeof models, plan->settings_hash[i]);
}

static bool in_sorted(const strlist *files, const char *path) {
    return files->count > 0 && bsearch(&path, files->items, files->count, sizeof files->items[0],
                                       build_compare_strings) != NULL;
}

/* A sidecar is no asset. One beside no source of the walk is named (it
 * would otherwise do nothing without a word); true when `file` is one. */
static bool skip_sidecar(const strlist *files, const char *file, cook_diag *warnings) {
    if (!sidecar_is_name(file))
        return false;
    char *source = cook_strdup(file);
    if (source != NULL) {
        source[strlen(source) - strlen(SIDECAR_SUFFIX)] = '\0';
        if (!in_sorted(files, source))
            diag_warning(warnings, file, 0,
                         "a sidecar beside no source ('%s' is not in the input folder): ignored",
                         source);
    }
    free(source);
    return true;
}

/* Reads source `at`'s sidecar into its settings and ID. Its warnings go to
 * `warnings`; its errors are kept to fail the asset when it is reached. */
static bool apply_sidecar(const build_setup *setup, build_plan *plan, size_t at,
                          const strlist *files, cook_diag *warnings) {
    const char *source = plan->sources.items[at];
    char *name = sidecar_path_of(source);
    if (name == NULL)
        return false;
    build_sidecar sidecar = {0};
    plan->has_sidecar[at] = in_sorted(files, name);
    if (plan->has_sidecar[at]) {
        cook_diag diag = {0};
        if (sidecar_load(setup->input, source, &sidecar, &diag)) {
            sidecar_apply(&sidecar, source, &plan->settings[at]);
            bytebuf_append(&warnings->text, diag.text.data, diag.text.size);
            warnings->warnings += diag.warnings;
        } else {
            bytebuf_append(&diag.text, "", 1); /* NUL-terminated */
            plan->sidecar_errors[at] = diag.text.failed ? NULL : (char *)diag.text.data;
            diag.text = (bytebuf){0};
            sidecar = (build_sidecar){0}; /* the asset fails; its ID is the derived one */
        }
        diag_free(&diag);
    }
    plan->ids[at] = sidecar_asset_id(&sidecar, source);
    free(name);
    return true;
}

/* Marks the sources a list of globs matches; false (with an error) when
 * `required` and a glob matches none. */
static bool mark_matches(const build_options *options, const build_plan *plan, char *const *globs,
                         size_t count, bool required, const char *input) {
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
            build_error(options, "root '%s' matches no source asset in '%s'", globs[g], input);
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
        build_error(options, "--roots needs source assets (operands, or `roots:` in %s)",
                    BUILD_CONFIG_FILE);
        return false;
    }
    bool ok = mark_matches(options, plan, roots, root_count, true, setup->input);
    mark_matches(options, plan, setup->config.always.items, setup->config.always.count, false,
                 setup->input);
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
    const char *ref; /* canonical, in one arena; "" when the path has none */
    size_t index;
} source_ref;

static int compare_source_refs(const void *a, const void *b) {
    const source_ref *x = a, *y = b;
    int order = strcmp(x->ref, y->ref);
    return order != 0 ? order : (x->index > y->index) - (x->index < y->index);
}

/* Fills plan->same_ref and same_ref_model: sources whose canonical refs are
 * equal (they differ only in extension or case) point at the first other one
 * (and the first other model). Linear after the sort, whatever the groups. */
static bool find_same_refs(build_plan *plan) {
    size_t count = plan->sources.count;
    plan->same_ref = calloc(count ? count : 1, sizeof *plan->same_ref);
    plan->same_ref_model = calloc(count ? count : 1, sizeof *plan->same_ref_model);
    source_ref *refs = malloc((count ? count : 1) * sizeof *refs);
    size_t *offsets = malloc((count ? count : 1) * sizeof *offsets);
    bytebuf arena = {0}; /* the refs, each NUL-terminated: only as long as they are */
    bool ok =
        plan->same_ref != NULL && plan->same_ref_model != NULL && refs != NULL && offsets != NULL;
    for (size_t i = 0; ok && i < count; i++) {
        char ref[1024];
        if (cook_asset_ref(plan->importers[i], plan->sources.items[i], ref, sizeof ref) != KILN_OK)
            ref[0] = '\0'; /* cook_asset reports it */
        offsets[i] = arena.size;
        bytebuf_append(&arena, ref, strlen(ref) + 1);
        ok = !arena.failed;
    }
    for (size_t i = 0; ok && i < count; i++)
        refs[i] = (source_ref){(const char *)arena.data + offsets[i], i};
    if (ok)
        qsort(refs, count, sizeof *refs, compare_source_refs);
    for (size_t i = 0; ok && i < count;) {
        size_t end = i + 1;
        while (end < count && refs[i].ref[0] != '\0' && strcmp(refs[end].ref, refs[i].ref) == 0)
            end++;
        if (end - i > 1) {
            /* The group's first two members and first two models: every
             * member's "first other" is one of them. */
            size_t first = refs[i].index, second = refs[i + 1].index;
            size_t models[2] = {SIZE_MAX, SIZE_MAX};
            for (size_t k = i; k < end && models[1] == SIZE_MAX; k++)
                if (cook_kind_reads_through(plan->importers[refs[k].index]->kind))
                    models[models[0] == SIZE_MAX ? 0 : 1] = refs[k].index;
            for (size_t k = i; k < end; k++) {
                size_t me = refs[k].index;
                plan->same_ref[me] = plan->sources.items[me == first ? second : first];
                size_t model = models[0] == me ? models[1] : models[0];
                if (model != SIZE_MAX)
                    plan->same_ref_model[me] = plan->sources.items[model];
            }
        }
        i = end;
    }
    free(offsets);
    free(refs);
    bytebuf_free(&arena);
    return ok;
}

bool build_plan_make(const build_options *options, const build_setup *setup, build_plan *plan) {
    strlist files = {0};
    char reason[512];
    /* The output folder is excluded in case it lies inside the input. */
    bool listed = discover_walk_sources(setup->input, setup->output, cook_registry_is_folder,
                                        &files, &plan->walk, reason, sizeof reason);
    /* Links out of the tree, FIFOs, unreadable folders: named now, and the
     * rest is cooked (an error among them fails the build at the end). */
    char source_folder[1024];
    build_source_folder(setup->input, source_folder, sizeof source_folder);
    build_diagnostics(options, (const char *)plan->walk.text.data, plan->walk.text.size,
                      options->verbosity == PROGRESS_QUIET, source_folder);
    if (!listed) {
        build_error(options, "cannot list the input folder: %s", reason);
        strlist_free(&files);
        return false;
    }
    size_t capacity = files.count ? files.count : 1;
    plan->importers = calloc(capacity, sizeof *plan->importers);
    plan->settings = calloc(capacity, sizeof *plan->settings);
    plan->settings_hash = calloc(capacity, sizeof *plan->settings_hash);
    plan->wanted = calloc(capacity, sizeof *plan->wanted);
    plan->ids = calloc(capacity, sizeof *plan->ids);
    plan->sidecar_errors = calloc(capacity, sizeof *plan->sidecar_errors);
    plan->has_sidecar = calloc(capacity, sizeof *plan->has_sidecar);
    bool ok = plan->importers != NULL && plan->settings != NULL && plan->settings_hash != NULL &&
              plan->wanted != NULL && plan->ids != NULL && plan->sidecar_errors != NULL &&
              plan->has_sidecar != NULL;
    cook_diag sidecar_warnings = {0};
    for (size_t i = 0; ok && i < files.count; i++) {
        if (skip_sidecar(&files, files.items[i], &sidecar_warnings))
            continue;
        const cook_importer *importer = cook_registry_match(files.items[i]);
        if (importer != NULL && importer->folder && !is_input_folder(setup->input, files.items[i]))
            importer = NULL; /* a file named like a cubemap folder ("prod.env") */
        if (importer != NULL) {
            size_t at = plan->sources.count;
            plan->importers[at] = importer;
            config_resolve(&setup->config, setup->preset, files.items[i], &plan->settings[at]);
            ok = strlist_push(&plan->sources, files.items[i]) &&
                 apply_sidecar(setup, plan, at, &files, &sidecar_warnings);
            /* Neighbours mostly share their settings: hash each run once.
             * (Both come from cook_settings_default's zeroed struct, so
             * their padding compares equal.) */
            bool same = at > 0 && memcmp(&plan->settings[at], &plan->settings[at - 1],
                                         sizeof plan->settings[at]) == 0;
            plan->settings_hash[at] =
                same ? plan->settings_hash[at - 1] : cache_settings_hash(&plan->settings[at]);
        } else {
            ok = strlist_push(&plan->unclaimed, files.items[i]);
        }
    }
    strlist_free(&files);
    build_diagnostics(options, (const char *)sidecar_warnings.text.data, sidecar_warnings.text.size,
                      options->verbosity == PROGRESS_QUIET, source_folder);
    diag_free(&sidecar_warnings);
    if (ok)
        hash_model_scene_settings(plan);
    ok = ok && find_same_refs(plan);
    if (!ok) {
        build_error(options, "out of memory while planning the build");
        return false;
    }
    return choose_wanted(options, setup, plan);
}
