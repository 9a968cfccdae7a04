/*
 * bench_scene.c — keeping a scene's world matrices up to date when a few of
 * its nodes move: libkiln's dirty-subtree update against recomputing every
 * node.
 *
 *   bench_scene [--nodes N] [--percent P] [--seed S] [--one-by-one] [--ordered]
 *                                                  (default 100000, 1, 1)
 *
 * Each scene shape is built as IR, written as a .kscene by the cooker's writer
 * and opened with the runtime (kiln_scene_view_get, kiln_scene_instance_init),
 * exactly as a game would. One "frame" gives P% of the nodes, picked at random
 * (uniformly, fixed seed, a new set every frame), a new local transform, then
 * brings the world matrices up to date:
 *
 *   dirty   one kiln_scene_set_locals for the frame's changed nodes (with
 *           --one-by-one, kiln_scene_set_local per changed node) +
 *           kiln_scene_update: only the changed nodes and their subtrees are
 *           recomputed, each subtree once
 *   full    the same local transforms written through kiln_scene_local + one
 *           kiln_scene_update_all: every node recomputed, in one forward pass
 *           (what an engine without dirty tracking does every frame)
 *   with    the frame's changes in increasing node order (sorted once, before
 *           timing, as an animation's channels would be) handed to one
 *           kiln_scene_update_with, which writes each transform as its run
 *           starts; with --ordered, "dirty" is given the sorted sets too
 *
 * All three produce bit-identical matrices (checked once per shape before
 * timing).
 * The shapes, all N nodes:
 *
 *   level    a game level: a root, 10 zones, N/100 objects of 100 nodes each
 *            (an object is a complete ternary tree cut at 100 nodes, depth 5)
 *   props    a root, 100 zones, and props of 1-3 nodes (a body with 0-2
 *            attached parts): the shallow scenes of open worlds
 *   random   every node's parent picked uniformly among the nodes before it:
 *            a deep random tree (mean depth about ln N), the hardest case
 *
 * The dirty update's cost grows with the nodes it must recompute: the changed
 * nodes plus everything below them ("stale", median and mean share over the
 * frames). Its floor is the stale nodes' share of the full pass (mean stale
 * share x full pass CPU), the cost of recomputing exactly them at the full
 * pass's streaming speed; "dirty avg" (the mean over the change sets of each
 * set's median CPU time per frame) over the floor says how close the update
 * comes to it. Both frames first write the changed nodes' local transforms,
 * scattered stores the floor above scales down with the pass; "floor+w"
 * counts them whole ("writes", timed inside the full frame) and only the
 * pass by the stale share. The last three columns are the "with" frame's
 * mean ("with avg", as "dirty avg") against the same two floors.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "cook/write/write.h"
#include "kiln/kiln.h"

#define FRAMES 64u /* distinct change sets, cycled through */
#define REPS 6400u /* timed frames at most per case (100 of each change set) */
#define BUDGET 3.0 /* seconds of wall time per case */

static volatile float sink;
static bool one_by_one; /* --one-by-one: kiln_scene_set_local per changed node */
static bool ordered;    /* --ordered: the dirty frame is given the sorted sets */

/* A small xorshift generator: the same scene and changes on every machine. */
static uint64_t rng_state;
static uint32_t rng_next(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}
static float rng_unit(void) {
    return (float)(rng_next() % 100001u) / 100000.0f;
}

static void random_transform(float translation[3], float rotation[4], float scale[3]) {
    for (int k = 0; k < 3; k++) {
        translation[k] = rng_unit() * 4.0f - 2.0f;
        scale[k] = 0.5f + rng_unit();
    }
    float q[4], length = 0.0f;
    for (int k = 0; k < 4; k++) {
        q[k] = rng_unit() * 2.0f - 1.0f;
        length += q[k] * q[k];
    }
    length = sqrtf(length) + 1e-6f;
    for (int k = 0; k < 4; k++)
        rotation[k] = q[k] / length;
}

/* ---------------------------------------------------------------------------
 * Shapes: parent arrays (parents first)
 * ------------------------------------------------------------------------- */

typedef enum shape { SHAPE_LEVEL, SHAPE_PROPS, SHAPE_RANDOM } shape;
static const char *const shape_names[] = {"level", "props", "random"};

static void make_parents(shape kind, uint32_t n, int32_t *parent) {
    uint32_t count = 0;
    if (kind == SHAPE_RANDOM) {
        for (uint32_t i = 0; i < n; i++)
            parent[i] = i == 0 ? -1 : (int32_t)(rng_next() % i);
        return;
    }
    uint32_t zones = kind == SHAPE_LEVEL ? 10 : 100;
    parent[count++] = -1; /* the root */
    for (uint32_t z = 0; z < zones && count < n; z++)
        parent[count++] = 0;
    while (count < n) {
        uint32_t zone = 1 + rng_next() % zones;
        uint32_t first = count;
        parent[count++] = (int32_t)zone;
        if (kind == SHAPE_LEVEL) {
            /* Node k of the object (k >= 1) hangs below node (k - 1) / 3. */
            for (uint32_t k = 1; k < 100 && count < n; k++)
                parent[count++] = (int32_t)(first + (k - 1) / 3);
        } else {
            uint32_t parts = rng_next() % 3;
            for (uint32_t k = 0; k < parts && count < n; k++)
                parent[count++] = (int32_t)first;
        }
    }
}

/* The shape as a cooked .kscene, through the cooker's writer. */
static void make_scene_file(shape kind, uint32_t n, bytebuf *out) {
    int32_t *parent = malloc(n * sizeof *parent);
    ir_asset asset = {0};
    asset.nodes = calloc(n, sizeof *asset.nodes);
    if (parent == NULL || asset.nodes == NULL)
        bench_die("out of memory");
    make_parents(kind, n, parent);
    for (uint32_t i = 0; i < n; i++) {
        ir_node *node = &asset.nodes[i];
        ir_node_init(node);
        node->parent = parent[i];
        node->source = (int32_t)i;
        char name[24];
        snprintf(name, sizeof name, "node%u", i);
        node->name = cook_strdup(name);
        random_transform(node->translation, node->rotation, node->scale);
    }
    asset.node_count = n;
    cook_settings settings;
    cook_settings_default(&settings);
    cook_context ctx = {.input_root = ".",
                        .source_path = "bench/scene.gltf",
                        .ref = "bench/scene",
                        .source = (const uint8_t *)"",
                        .source_size = 0,
                        .settings = &settings};
    if (!write_kscene(&ctx, &asset, NULL, 0, "bench", out))
        bench_die("write_kscene failed");
    ir_asset_free(&asset);
    free(parent);
}

/* ---------------------------------------------------------------------------
 * The two ways to update
 * ------------------------------------------------------------------------- */

typedef struct frame_set {
    uint32_t per_frame;
    uint32_t *nodes;              /* FRAMES * per_frame */
    kiln_scene_transform *locals; /* the new transform of each */
    uint32_t *sorted_nodes;       /* each frame's changes in increasing node order */
    kiln_scene_transform *sorted_locals;
    uint32_t next; /* frame to run next */
    kiln_scene_instance *instance;
    uint64_t recomputed; /* summed over the dirty frames run */
    uint64_t frames;
    double writes_done; /* full frames: CPU clock read once the locals are written */
} frame_set;

/* The next frame's changed nodes and their new transforms. */
static uint32_t next_frame(frame_set *f, const uint32_t **nodes,
                           const kiln_scene_transform **locals) {
    uint32_t frame = f->next++ % FRAMES;
    *nodes = f->nodes + (size_t)frame * f->per_frame;
    *locals = f->locals + (size_t)frame * f->per_frame;
    return f->per_frame;
}

/* The same, in increasing node order. */
static uint32_t next_sorted_frame(frame_set *f, const uint32_t **nodes,
                                  const kiln_scene_transform **locals) {
    uint32_t frame = f->next++ % FRAMES;
    *nodes = f->sorted_nodes + (size_t)frame * f->per_frame;
    *locals = f->sorted_locals + (size_t)frame * f->per_frame;
    return f->per_frame;
}

static void dirty_frame(void *arg) {
    frame_set *f = arg;
    const uint32_t *nodes;
    const kiln_scene_transform *locals;
    uint32_t count =
        ordered ? next_sorted_frame(f, &nodes, &locals) : next_frame(f, &nodes, &locals);
    if (one_by_one)
        for (uint32_t k = 0; k < count; k++)
            kiln_scene_set_local(f->instance, nodes[k], &locals[k], NULL);
    else
        kiln_scene_set_locals(f->instance, nodes, locals, count, NULL);
    f->recomputed += kiln_scene_update(f->instance);
    f->frames++;
    sink = f->instance->world[0];
}

static void with_frame(void *arg) {
    frame_set *f = arg;
    const uint32_t *nodes;
    const kiln_scene_transform *locals;
    uint32_t count = next_sorted_frame(f, &nodes, &locals), recomputed = 0;
    kiln_scene_update_with(f->instance, nodes, locals, count, &recomputed, NULL);
    f->recomputed += recomputed;
    f->frames++;
    sink = f->instance->world[0];
}

static void full_frame(void *arg) {
    frame_set *f = arg;
    const uint32_t *nodes;
    const kiln_scene_transform *locals;
    for (uint32_t k = 0, count = next_frame(f, &nodes, &locals); k < count; k++)
        *kiln_scene_local(f->instance, nodes[k]) = locals[k];
    f->writes_done = bench_thread_seconds();
    kiln_scene_update_all(f->instance);
    sink = f->instance->world[0];
}

/* Nodes one frame's changes make stale (the changed nodes and their
 * subtrees), median over the frames. */
static uint32_t median_recomputed(const frame_set *f, const kiln_scene_view *view) {
    uint8_t *stale = malloc(view->node_count);
    double counts[FRAMES];
    if (stale == NULL)
        bench_die("out of memory");
    for (uint32_t frame = 0; frame < FRAMES; frame++) {
        memset(stale, 0, view->node_count);
        for (uint32_t k = 0; k < f->per_frame; k++)
            stale[f->nodes[(size_t)frame * f->per_frame + k]] = 1;
        uint32_t count = 0;
        for (uint32_t i = 0; i < view->node_count; i++) { /* parents first */
            int32_t parent = view->hierarchy[i].parent;
            stale[i] |= parent >= 0 && stale[parent];
            count += stale[i];
        }
        counts[frame] = count;
    }
    free(stale);
    qsort(counts, FRAMES, sizeof *counts, bench_compare_doubles);
    return (uint32_t)counts[FRAMES / 2];
}

/* Reading this thread's CPU clock is a system call (about 0.5 us of this
 * thread's time in a virtual machine): one read's worth falls inside every
 * timed frame. Its median cost is measured once and taken off each frame, or
 * a 5 us frame at 10,000 nodes would carry 10 % of clock. */
static double clock_cost;

static void measure_clock_cost(void) {
    static double cost[1000];
    for (uint32_t k = 0; k < 1000; k++) {
        double start = bench_thread_seconds();
        cost[k] = bench_thread_seconds() - start;
    }
    qsort(cost, 1000, sizeof *cost, bench_compare_doubles);
    clock_cost = cost[500];
}

/* Median CPU time (this thread, less the clock's cost) and median wall time
 * of one frame: on a shared machine the CPU time is the steadier of the two.
 * `cpu_mean` is the mean over the FRAMES change sets of each set's median
 * CPU time, so each set counts as often as the others (the rare ones that
 * change a zone or the root as well) and a frame slowed by another process
 * counts no more than in the full pass's median: what the mean stale share
 * is compared with. `writes`, for the full frame, is the median CPU time of
 * its first part, writing the changed nodes' local transforms (scattered
 * stores, a cache miss each: 19 us for 1,000 at 100,000 nodes, quiet). */
typedef struct timing {
    double cpu, wall, cpu_mean, writes;
} timing;

static timing measure(bench_op op, frame_set *f) {
    static double cpu[REPS], wall[REPS], writes[REPS], by_set[FRAMES][REPS / FRAMES + 1];
    uint32_t in_set[FRAMES] = {0};
    op(f); /* warm-up */
    uint32_t reps = 0;
    double spent = 0.0;
    while (reps < REPS && (reps < 2 * FRAMES || spent < BUDGET)) {
        uint32_t set = f->next % FRAMES;
        f->writes_done = 0.0;
        double wall_start = bench_now(), cpu_start = bench_thread_seconds();
        op(f);
        cpu[reps] = bench_thread_seconds() - cpu_start - clock_cost;
        wall[reps] = bench_now() - wall_start;
        writes[reps] = 0.0;
        if (f->writes_done > 0.0) { /* a clock read inside the frame: off both */
            writes[reps] = f->writes_done - cpu_start - clock_cost;
            cpu[reps] -= clock_cost;
        }
        by_set[set][in_set[set]++] = cpu[reps];
        spent += wall[reps++];
    }
    double sum = 0.0;
    for (uint32_t set = 0; set < FRAMES; set++) {
        qsort(by_set[set], in_set[set], sizeof(double), bench_compare_doubles);
        sum += by_set[set][in_set[set] / 2];
    }
    qsort(cpu, reps, sizeof *cpu, bench_compare_doubles);
    qsort(wall, reps, sizeof *wall, bench_compare_doubles);
    qsort(writes, reps, sizeof *writes, bench_compare_doubles);
    return (timing){cpu[reps / 2], wall[reps / 2], sum / FRAMES, writes[reps / 2]};
}

/* Each frame's changes sorted by node, a node's repeats kept in their order
 * (so its last transform stays last, as in the unsorted set). */
static const uint32_t *sort_keys;
static int compare_by_node(const void *a, const void *b) {
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    if (sort_keys[i] != sort_keys[j])
        return sort_keys[i] < sort_keys[j] ? -1 : 1;
    return i < j ? -1 : i > j;
}

static void sort_frames(frame_set *f) {
    uint32_t *order = malloc(f->per_frame * sizeof *order);
    f->sorted_nodes = malloc((size_t)FRAMES * f->per_frame * sizeof *f->sorted_nodes);
    f->sorted_locals = malloc((size_t)FRAMES * f->per_frame * sizeof *f->sorted_locals);
    if (order == NULL || f->sorted_nodes == NULL || f->sorted_locals == NULL)
        bench_die("out of memory");
    for (uint32_t frame = 0; frame < FRAMES; frame++) {
        size_t base = (size_t)frame * f->per_frame;
        for (uint32_t k = 0; k < f->per_frame; k++)
            order[k] = k;
        sort_keys = f->nodes + base;
        qsort(order, f->per_frame, sizeof *order, compare_by_node);
        for (uint32_t k = 0; k < f->per_frame; k++) {
            f->sorted_nodes[base + k] = f->nodes[base + order[k]];
            f->sorted_locals[base + k] = f->locals[base + order[k]];
        }
    }
    free(order);
}

static void *open_instance(const kiln_scene_view *view, kiln_scene_instance *instance) {
    size_t size = kiln_scene_instance_size(view);
    void *memory = NULL;
    kiln_error err;
    if (size == 0 || posix_memalign(&memory, 64, size) != 0 ||
        kiln_scene_instance_init(instance, view, memory, size, &err) != KILN_OK)
        bench_die("scene instance: %s", size ? err.message : "too large");
    return memory;
}

static void run_shape(shape kind, uint32_t n, double percent) {
    bytebuf bytes = {0};
    make_scene_file(kind, n, &bytes);
    void *block = NULL;
    if (posix_memalign(&block, 16, bytes.size) != 0)
        bench_die("out of memory");
    memcpy(block, bytes.data, bytes.size);
    kiln_file file;
    kiln_scene_view view;
    kiln_error err;
    if (kiln_file_from_memory(&file, block, bytes.size, "bench.kscene", 0, &err) != KILN_OK ||
        kiln_scene_view_get(&file, 0, &view, &err) != KILN_OK)
        bench_die("%s", err.message);

    frame_set dirty = {.per_frame = (uint32_t)(n * percent / 100.0 + 0.5)};
    if (dirty.per_frame == 0)
        dirty.per_frame = 1;
    dirty.nodes = malloc((size_t)FRAMES * dirty.per_frame * sizeof *dirty.nodes);
    dirty.locals = malloc((size_t)FRAMES * dirty.per_frame * sizeof *dirty.locals);
    if (dirty.nodes == NULL || dirty.locals == NULL)
        bench_die("out of memory");
    for (size_t k = 0; k < (size_t)FRAMES * dirty.per_frame; k++) {
        dirty.nodes[k] = rng_next() % n;
        kiln_scene_transform *t = &dirty.locals[k];
        random_transform(t->translation, t->rotation, t->scale);
    }
    sort_frames(&dirty);
    frame_set full = dirty, with = dirty;
    kiln_scene_instance lazy_instance, full_instance, with_instance;
    void *lazy_memory = open_instance(&view, &lazy_instance);
    void *full_memory = open_instance(&view, &full_instance);
    void *with_memory = open_instance(&view, &with_instance);
    dirty.instance = &lazy_instance;
    full.instance = &full_instance;
    with.instance = &with_instance;

    /* Same frames, same matrices: checked before anything is timed. */
    size_t matrix_bytes = (size_t)n * 16 * sizeof(float);
    for (uint32_t frame = 0; frame < FRAMES; frame++) {
        dirty_frame(&dirty);
        full_frame(&full);
        with_frame(&with);
        if (memcmp(lazy_instance.world, full_instance.world, matrix_bytes) != 0 ||
            memcmp(with_instance.world, full_instance.world, matrix_bytes) != 0)
            bench_die("%s: a dirty update differs from the full recompute", shape_names[kind]);
    }
    if (with.recomputed != dirty.recomputed)
        bench_die("%s: kiln_scene_update_with recomputed %llu nodes, kiln_scene_update %llu",
                  shape_names[kind], (unsigned long long)with.recomputed,
                  (unsigned long long)dirty.recomputed);
    /* Timed on the dirty frame's instance: two instances in memory, as before. */
    free(with_memory);
    with.instance = &lazy_instance;
    double average_share = (double)dirty.recomputed / ((double)dirty.frames * n);
    double median_share = (double)median_recomputed(&dirty, &view) / n;

    timing dirty_time = measure(dirty_frame, &dirty);
    timing full_time = measure(full_frame, &full);
    timing with_time = measure(with_frame, &with);
    /* The floor: the stale nodes' share of the full frame, whose pass
     * streams every node once. Both frames write the same scattered local
     * transforms, which the share scales down with the pass; the second floor
     * counts those writes whole and only the pass by its share. */
    double floor = average_share * full_time.cpu;
    double floor_writes = full_time.writes + average_share * (full_time.cpu - full_time.writes);
    char dirty_cpu[32], dirty_wall[32], full_cpu[32], full_wall[32], dirty_mean[32], floor_cpu[32],
        writes_cpu[32], with_mean[32];
    bench_format_duration(with_time.cpu_mean, with_mean, sizeof with_mean);
    bench_format_duration(full_time.writes, writes_cpu, sizeof writes_cpu);
    bench_format_duration(dirty_time.cpu_mean, dirty_mean, sizeof dirty_mean);
    bench_format_duration(floor, floor_cpu, sizeof floor_cpu);
    bench_format_duration(dirty_time.cpu, dirty_cpu, sizeof dirty_cpu);
    bench_format_duration(dirty_time.wall, dirty_wall, sizeof dirty_wall);
    bench_format_duration(full_time.cpu, full_cpu, sizeof full_cpu);
    bench_format_duration(full_time.wall, full_wall, sizeof full_wall);
    printf("%-7s %8u %6u %7u %9.1f%% %9.1f%% %10s %10s %10s %10s %7.1fx %7.1fx %10s %10s "
           "%7.2fx %10s %7.2fx %10s %7.2fx %7.2fx\n",
           shape_names[kind], n, view.level_count, dirty.per_frame, 100.0 * median_share,
           100.0 * average_share, dirty_cpu, full_cpu, dirty_wall, full_wall,
           full_time.cpu / dirty_time.cpu, full_time.wall / dirty_time.wall, dirty_mean, floor_cpu,
           dirty_time.cpu_mean / floor, writes_cpu, dirty_time.cpu_mean / floor_writes, with_mean,
           with_time.cpu_mean / floor, with_time.cpu_mean / floor_writes);
    fflush(stdout);
    free(lazy_memory);
    free(full_memory);
    free(dirty.nodes);
    free(dirty.locals);
    free(dirty.sorted_nodes);
    free(dirty.sorted_locals);
    kiln_file_close(&file);
    free(block);
    bytebuf_free(&bytes);
}

int main(int argc, char **argv) {
    uint32_t n = 100000;
    double percent = 1.0;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc)
            n = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--percent") == 0 && i + 1 < argc)
            percent = strtod(argv[++i], NULL);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--one-by-one") == 0)
            one_by_one = true;
        else if (strcmp(argv[i], "--ordered") == 0)
            ordered = true;
        else
            bench_die("usage: %s [--nodes N] [--percent P] [--seed S] [--one-by-one] [--ordered]",
                      argv[0]);
    }
    if (n < 200 || !(percent > 0.0 && percent <= 100.0))
        bench_die("--nodes must be at least 200 and --percent in (0, 100]");
    measure_clock_cost();
    printf("scene update: %u nodes, %.3g%% of them changed per frame (new random sets, %u "
           "frames cycled, set by %s); medians per frame, CPU time of this thread (less %.2f us "
           "of clock reads) and wall time\n",
           n, percent, FRAMES,
           one_by_one ? "kiln_scene_set_local"
           : ordered  ? "kiln_scene_set_locals in node order"
                      : "kiln_scene_set_locals",
           clock_cost * 1e6);
    printf("%-7s %8s %6s %7s %10s %10s %10s %10s %10s %10s %8s %8s %10s %10s %8s %10s %8s %10s %8s "
           "%8s\n",
           "shape", "nodes", "levels", "changed", "stale med", "stale avg", "dirty cpu", "full cpu",
           "dirty wall", "full wall", "cpu x", "wall x", "dirty avg", "floor", "/ floor", "writes",
           "/ floor+w", "with avg", "/ floor", "/ floor+w");
    for (int kind = SHAPE_LEVEL; kind <= SHAPE_RANDOM; kind++) {
        rng_state = seed * 0x9E3779B97F4A7C15ull + (uint64_t)kind + 1;
        run_shape((shape)kind, n, percent);
    }
    return 0;
}
