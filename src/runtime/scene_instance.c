/* scene_instance.c — a scene's live state (kiln_scene_instance): the local
 * transforms the caller changes and the world matrices kept up to date from
 * them (skinning matrices are read from those in scene_skin.c).
 *
 * The view's nodes are in depth-first pre-order (kscene.md R7-R8): a node's
 * subtree is the range i .. subtree_end - 1 right after it, and a parent
 * precedes its children. So the full pass is one forward loop, and bringing
 * a changed subtree up to date is the same loop over its range: records read
 * front to back, each parent's matrix just written. kiln_scene_set_local sets
 * the node's bit; kiln_scene_update takes the set bits in increasing order,
 * recomputes each one's subtree and resumes after it, so a changed node
 * inside a subtree already recomputed costs nothing more. Only the bitmap
 * words holding a change are read, found through a bit per word.
 * kiln_scene_update_with, given its changes in increasing order, skips the
 * bits: its batch is that list, each transform written as its run starts.
 *
 * What the update reads of a node besides its matrix (local transform,
 * parent, subtree end) is one record of the instance's, a cache line: a
 * changed node scattered over a large scene costs that line, its matrix and
 * its parent's matrix (BENCHMARKS.md 11). The matrices stay one plain array,
 * which engines copy to the GPU whole. */
#include <inttypes.h>
#include <string.h>

#include "common/checked.h"
#include "kiln/kiln.h"
#include "runtime/internal.h"
#include "runtime/scene_affine.h"

/* ---------------------------------------------------------------------------
 * Transforms
 * ------------------------------------------------------------------------- */

/* A node's record, built at init from the view's hierarchy and transforms:
 * 64 bytes, 64-byte aligned, so one cache line (48 bytes, half the records
 * across two lines, made a dirty update no faster and the full pass 1 %
 * slower: BENCHMARKS.md 11). */
struct kiln_scene_record_ {
    kiln_scene_transform local;
    int32_t parent;       /* -1 for a root */
    uint32_t subtree_end; /* one past its last descendant */
    uint8_t spare[16];
};
typedef struct kiln_scene_record_ node_record;
_Static_assert(sizeof(node_record) == 64, "a node record is one cache line");

/* Requests the line holding `p`, which is about to be written: PREFETCHW
 * fetches it owned, so the store makes no second request (0.7 % off the dirty
 * frame against plain prefetches on an AMD Zen 5, every shape: BENCHMARKS.md
 * 11). GCC emits it for __builtin_prefetch(p, 1) only when told the processor
 * has it (-mprfchw), which a portable build is not; x86-64 processors without
 * it execute the opcode as a no-op. */
ALWAYS_INLINE void prefetch_for_write(const void *p) {
#if defined(__GNUC__) && defined(__x86_64__)
    __asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#elif defined(__GNUC__)
    __builtin_prefetch(p, 1);
#else
    (void)p;
#endif
}

/* Inlined into both passes: left to itself, GCC stopped inlining it into the
 * update's loop once that grew, a call per node the full pass did not pay. */
ALWAYS_INLINE void compose(const kiln_scene_transform *t, float m[16]) {
    float x = t->rotation[0], y = t->rotation[1], z = t->rotation[2], w = t->rotation[3];
    const float *s = t->scale;
    m[0] = (1 - 2 * (y * y + z * z)) * s[0];
    m[1] = (2 * (x * y + z * w)) * s[0];
    m[2] = (2 * (x * z - y * w)) * s[0];
    m[3] = 0;
    m[4] = (2 * (x * y - z * w)) * s[1];
    m[5] = (1 - 2 * (x * x + z * z)) * s[1];
    m[6] = (2 * (y * z + x * w)) * s[1];
    m[7] = 0;
    m[8] = (2 * (x * z + y * w)) * s[2];
    m[9] = (2 * (y * z - x * w)) * s[2];
    m[10] = (1 - 2 * (x * x + y * y)) * s[2];
    m[11] = 0;
    m[12] = t->translation[0];
    m[13] = t->translation[1];
    m[14] = t->translation[2];
    m[15] = 1;
}

void kiln_scene_compose(const kiln_scene_transform *t, float m[16]) {
    compose(t, m);
}

/* Inlined into both passes (a call a node otherwise, the local matrix
 * passed through memory). */
ALWAYS_INLINE void compute_world(kiln_scene_instance *instance, uint32_t node) {
    float *world = instance->world + (size_t)node * 16;
    const node_record *record = &instance->records_[node];
    int32_t parent = record->parent;
    if (parent < 0) {
        compose(&record->local, world);
        return;
    }
    float local[16];
    compose(&record->local, local);
    multiply_affine(instance->world + (size_t)parent * 16, local, world);
}

/* Nodes first .. end - 1 in order: every parent inside the range is
 * recomputed before its children, and one outside it is up to date. */
static void recompute_range(kiln_scene_instance *instance, uint32_t first, uint32_t end) {
    for (uint32_t node = first; node < end; node++)
        compute_world(instance, node);
}

/* ---------------------------------------------------------------------------
 * The instance
 * ------------------------------------------------------------------------- */

/* Layout in the caller's block: world matrices 64-byte aligned (one cache line
 * each), then the node records (64-byte aligned too, the matrices being
 * 64 bytes each), the changed bits and the update's list of changed nodes
 * (LIST_WORDS), each part 16-byte aligned. */
typedef struct instance_layout {
    size_t world, records, changed, list, total;
} instance_layout;

#define WORLD_ALIGNMENT 64u
#define NO_CHANGE UINT32_MAX                    /* first_changed_ when no bit is set */
#define ALL_CHANGED UINT32_MAX                  /* last_changed_ after kiln_scene_set_pose */
#define LIST_WORDS(nodes) ((size_t)(nodes) + 1) /* see list_changed */

static uint32_t word_count(uint32_t nodes) {
    return nodes / 64 + (nodes % 64 != 0);
}

/* The changed bits are two levels: a bit per node, then a bit per word of
 * those (set when the word may be non-zero), so the update visits the words
 * with changes only: about 100 of 1,563 when 0.1 % of 100,000 nodes change. */
static uint32_t change_words(uint32_t nodes) {
    return word_count(nodes) + word_count(word_count(nodes));
}

#define SUMMARY_NODES 4096u /* nodes under one summary word: 64 words of 64 */

static uint64_t *summary_of(const kiln_scene_instance *instance) {
    return instance->changed_ + word_count(instance->node_count);
}

static bool layout_of(uint32_t nodes, instance_layout *l) {
    enum { PARTS = 4 };
    const size_t sizes[PARTS] = {sizeof(float) * 16, sizeof(node_record), sizeof(uint64_t),
                                 sizeof(uint32_t)};
    const size_t counts[PARTS] = {nodes, nodes, change_words(nodes), LIST_WORDS(nodes)};
    size_t *offsets[PARTS] = {&l->world, &l->records, &l->changed, &l->list};
    size_t at = WORLD_ALIGNMENT - 16, part; /* room to align the matrices up */
    for (int k = 0; k < PARTS; k++) {
        *offsets[k] = at;
        if (!checked_mul_size(sizes[k], counts[k], &part) || !checked_add_size(at, part, &at) ||
            !checked_add_size(at, 15, &at))
            return false;
        at &= ~(size_t)15;
    }
    l->total = at;
    return true;
}

static void clear_changes(kiln_scene_instance *instance) {
    instance->first_changed_ = NO_CHANGE;
    instance->last_changed_ = 0;
}

size_t kiln_scene_instance_size(const kiln_scene_view *view) {
    instance_layout l;
    if (view == NULL || (view->node_count > 0 && view->hierarchy == NULL) ||
        !layout_of(view->node_count, &l))
        return 0;
    return l.total;
}

kiln_result kiln_scene_instance_init(kiln_scene_instance *instance, const kiln_scene_view *view,
                                     void *memory, size_t size, kiln_error *err) {
    if (instance == NULL || memory == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_scene_instance_init needs an instance and memory");
    memset(instance, 0, sizeof *instance);
    size_t needed = kiln_scene_instance_size(view);
    if (needed == 0)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_scene_instance_init needs a scene view from kiln_scene_view_get");
    if (size < needed || ((uintptr_t)memory & 15u) != 0)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "scene instance memory: %zu bytes at %p; %zu bytes 16-byte aligned "
                            "needed",
                            size, memory, needed);
    instance_layout l;
    layout_of(view->node_count, &l);
    /* The layout reserved WORLD_ALIGNMENT - 16 bytes before the matrices;
     * moving everything down by the misalignment keeps every part inside. */
    size_t shift =
        (WORLD_ALIGNMENT - ((uintptr_t)memory & (WORLD_ALIGNMENT - 1))) & (WORLD_ALIGNMENT - 1);
    uint8_t *base = (uint8_t *)memory + shift - (WORLD_ALIGNMENT - 16);
    instance->node_count = view->node_count;
    instance->hierarchy = view->hierarchy;
    instance->world = (float *)(void *)(base + l.world);
    instance->records_ = (node_record *)(void *)(base + l.records);
    instance->changed_ = (uint64_t *)(void *)(base + l.changed);
    instance->changed_list_ = (uint32_t *)(void *)(base + l.list);
    memset(instance->changed_, 0, (size_t)change_words(view->node_count) * sizeof(uint64_t));
    clear_changes(instance);
    for (uint32_t node = 0; node < view->node_count; node++)
        instance->records_[node] = (node_record){.local = view->transforms[node],
                                                 .parent = view->hierarchy[node].parent,
                                                 .subtree_end = view->hierarchy[node].subtree_end};
    kiln_scene_update_all(instance);
    return runtime_succeed(err);
}

/* Requests a node's two lines before it changes: its record's, about to be
 * written, and its matrix's, which the update will write (see prefetch_run). */
ALWAYS_INLINE void prefetch_change(const kiln_scene_instance *instance, uint32_t node) {
    prefetch_for_write(&instance->records_[node]);
    prefetch_for_write(instance->world + (size_t)node * 16);
}

/* Writes a node's new local transform and marks it for the update. */
ALWAYS_INLINE void change_local(kiln_scene_instance *instance, uint32_t node,
                                const kiln_scene_transform *local) {
    instance->records_[node].local = *local;
    instance->changed_[node / 64] |= (uint64_t)1 << (node % 64);
    summary_of(instance)[node / SUMMARY_NODES] |= (uint64_t)1 << (node / 64 % 64);
    if (instance->first_changed_ == NO_CHANGE || node < instance->first_changed_)
        instance->first_changed_ = node;
    if (node > instance->last_changed_)
        instance->last_changed_ = node;
}

kiln_result kiln_scene_set_local(kiln_scene_instance *instance, uint32_t node,
                                 const kiln_scene_transform *local, kiln_error *err) {
    if (instance == NULL || local == NULL || node >= instance->node_count)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_scene_set_local: node %" PRIu32 " of %" PRIu32, node,
                            instance != NULL ? instance->node_count : 0);
    prefetch_change(instance, node);
    change_local(instance, node, local);
    return KILN_OK;
}

/* How many nodes ahead kiln_scene_set_locals requests the lines of the
 * nodes it changes. One call of kiln_scene_set_local a node can request its
 * lines only as it writes them, so the stores waiting on them fill the store
 * buffer and few misses overlap; 16 ahead took the 1,000 changes of a frame
 * of 100,000 nodes from 9.4-9.7 to 6.5-7.1 us (32: the same, 8: 7.6 us;
 * BENCHMARKS.md 11). */
#define SET_AHEAD 16u

/* A batch's arguments, every node checked before anything changes; also
 * tells whether the nodes are in increasing order (repeats allowed). */
static kiln_result check_batch(const kiln_scene_instance *instance, const uint32_t *nodes,
                               const kiln_scene_transform *locals, uint32_t count,
                               const char *function, bool *increasing, kiln_error *err) {
    if (instance == NULL || (count > 0 && (nodes == NULL || locals == NULL)))
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "%s needs an instance, nodes and transforms", function);
    bool in_order = true;
    for (uint32_t k = 0; k < count; k++) {
        if (nodes[k] >= instance->node_count)
            return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                                "%s: nodes[%" PRIu32 "] = %" PRIu32 " of %" PRIu32, function, k,
                                nodes[k], instance->node_count);
        in_order &= k == 0 || nodes[k] >= nodes[k - 1];
    }
    *increasing = in_order;
    return KILN_OK;
}

static void set_batch(kiln_scene_instance *instance, const uint32_t *nodes,
                      const kiln_scene_transform *locals, uint32_t count) {
    for (uint32_t k = 0; k < count && k < SET_AHEAD; k++)
        prefetch_change(instance, nodes[k]);
    for (uint32_t k = 0; k < count; k++) {
        if (k + SET_AHEAD < count)
            prefetch_change(instance, nodes[k + SET_AHEAD]);
        change_local(instance, nodes[k], &locals[k]);
    }
}

kiln_result kiln_scene_set_locals(kiln_scene_instance *instance, const uint32_t *nodes,
                                  const kiln_scene_transform *locals, uint32_t count,
                                  kiln_error *err) {
    bool increasing = false;
    kiln_result r =
        check_batch(instance, nodes, locals, count, "kiln_scene_set_locals", &increasing, err);
    if (r == KILN_OK)
        set_batch(instance, nodes, locals, count);
    return r;
}

kiln_scene_transform *kiln_scene_local(kiln_scene_instance *instance, uint32_t node) {
    if (instance == NULL || node >= instance->node_count)
        return NULL;
    return &instance->records_[node].local;
}

kiln_result kiln_scene_set_pose(kiln_scene_instance *instance, const kiln_scene_transform *pose,
                                uint32_t count, kiln_error *err) {
    if (instance == NULL || (pose == NULL && count > 0))
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_scene_set_pose needs an instance and a pose");
    if (count != instance->node_count)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_scene_set_pose: %" PRIu32 " transforms for %" PRIu32 " nodes",
                            count, instance->node_count);
    for (uint32_t node = 0; node < count; node++)
        instance->records_[node].local = pose[node];
    if (count > 0) { /* the bits stay as they are: the full pass clears them */
        instance->first_changed_ = 0;
        instance->last_changed_ = ALL_CHANGED;
    }
    return runtime_succeed(err);
}

/* The lowest set bit of a non-zero word. */
static uint32_t lowest_bit(uint64_t word) {
#if defined(__GNUC__)
    return (uint32_t)__builtin_ctzll(word);
#else
    uint32_t bit = 0;
    while ((word & 1u) == 0)
        word >>= 1, bit++;
    return bit;
#endif
}

/* The update: the set bits become a list of the changed nodes in increasing
 * order (list_changed, into changed_list_), and one pass over it
 * recomputes the subtree of each node not inside the subtree of an earlier
 * one (a changed node there is recomputed by it), front to back. */

/* The summary's set bits name the non-empty words (kiln_scene_set_local sets
 * a summary bit only with a bit of its word, and both are cleared together).
 * Of those, with 1 % of the nodes changed, 28 % have a second bit and 6 % a
 * third: the second is written without a branch, which it would mispredict —
 * a write always (one past the list at most: the scratch has room), kept
 * only for a set bit — and a loop is left for the rare rest. Clears both
 * levels. */
static uint32_t list_changed(kiln_scene_instance *instance, uint32_t *list) {
    uint64_t *bits = instance->changed_, *summary = summary_of(instance);
    uint32_t count = 0, last = instance->last_changed_ / SUMMARY_NODES;
    for (uint32_t s = instance->first_changed_ / SUMMARY_NODES; s <= last; s++) {
        for (uint64_t words = summary[s]; words != 0; words &= words - 1) {
            uint32_t w = s * 64 + lowest_bit(words);
            uint64_t word = bits[w];
            bits[w] = 0;
            list[count++] = w * 64 + lowest_bit(word);
            word &= word - 1;
            list[count] = w * 64 + lowest_bit(word | (uint64_t)1 << 63); /* any value when 0 */
            count += word != 0;
            word &= word - 1;
            for (; word != 0; word &= word - 1)
                list[count++] = w * 64 + lowest_bit(word);
        }
        summary[s] = 0;
    }
    return count;
}

/* Runs are scattered over the scene, and a run is short when few nodes hang
 * below a changed one, so its cache misses, not its arithmetic, would set the
 * pace. They are requested early, to overlap the arithmetic: the changed
 * node's matrix by kiln_scene_set_local (which writes its record); in the
 * update, in two stages down the list, the record of the node RECORD_AHEAD
 * places ahead (in case it left the cache since), then, once it has arrived,
 * RUN_AHEAD places ahead, the parent's matrix and the records and matrices
 * of the run's first RUN_PREFETCH_NODES nodes, LONG_RUN_NODES for a longer
 * run; within a run, the node LONG_RUN_NODES further (recompute_run).
 * Measured in BENCHMARKS.md 11. Always inlined: GCC takes a function made of
 * prefetches alone for a pure one and drops its calls (it did, before this
 * was forced). */
#define RECORD_AHEAD 16u
#define RUN_AHEAD 12u         /* 8: 1-3 % slower on level and props; the random tree the same */
#define RUN_PREFETCH_NODES 8u /* 4 left a run's later nodes too little time: 6 % slower (level) */
#define SHORT_RUN_NODES 4u    /* the most a run has in most frames of the shallow shapes */
/* A level's objects give runs of 13, 40 and 100 nodes: 8 nodes (~60 ns of
 * arithmetic) ahead inside a run is less than a miss takes on this machine,
 * and a run that short ends before the hardware prefetcher has caught on.
 * 16, requested with the run's first lines: level 1-3 % faster, the other
 * shapes the same (20 or 32 no better; BENCHMARKS.md 11). */
#define LONG_RUN_NODES 16u

ALWAYS_INLINE void prefetch_node(const kiln_scene_instance *instance, uint32_t node) {
#if defined(__GNUC__)
    __builtin_prefetch(&instance->records_[node]);
#endif
    prefetch_for_write(instance->world + (size_t)node * 16);
}

ALWAYS_INLINE void prefetch_run(const kiln_scene_instance *instance, uint32_t first) {
    const node_record *h = &instance->records_[first];
    uint32_t last = h->subtree_end - 1;
#if defined(__GNUC__)
    __builtin_prefetch(instance->world +
                       (size_t)(h->parent >= 0 ? (uint32_t)h->parent : first) * 16);
#endif
    /* A short run's nodes without a branch (its last node repeated), the
     * rest only for a longer run: requesting all RUN_PREFETCH_NODES the
     * same way cost 2 % on the props shape, whose runs are 1-3 nodes. */
    for (uint32_t k = 0; k < SHORT_RUN_NODES; k++) /* unrolled */
        prefetch_node(instance, first + k < last ? first + k : last);
    if (last >= first + SHORT_RUN_NODES) {
        for (uint32_t k = SHORT_RUN_NODES; k < RUN_PREFETCH_NODES; k++)
            prefetch_node(instance, first + k < last ? first + k : last);
        if (last >= first + RUN_PREFETCH_NODES)
            for (uint32_t k = RUN_PREFETCH_NODES; k < LONG_RUN_NODES; k++)
                prefetch_node(instance, first + k < last ? first + k : last);
    }
}

/* A run's nodes, the node LONG_RUN_NODES further requested on the way, so a
 * long run streams before the hardware prefetcher has noticed it (a short
 * one, already asked for whole by prefetch_run, skips it). */
static void recompute_run(kiln_scene_instance *instance, uint32_t first, uint32_t end) {
    for (uint32_t node = first; node < end; node++) {
        if (node + LONG_RUN_NODES < end)
            prefetch_node(instance, node + LONG_RUN_NODES);
        compute_world(instance, node);
    }
}

/* Each run recomputed front to back, so every stale node exactly once. */
uint32_t kiln_scene_update(kiln_scene_instance *instance) {
    if (instance == NULL || instance->first_changed_ == NO_CHANGE)
        return 0;
    if (instance->last_changed_ == ALL_CHANGED) {
        kiln_scene_update_all(instance);
        return instance->node_count;
    }
    const uint32_t *list = instance->changed_list_;
    uint32_t count = list_changed(instance, instance->changed_list_), done = 0, updated = 0;
    for (uint32_t k = 0; k < count; k++) {
#if defined(__GNUC__)
        if (k + RECORD_AHEAD < count)
            __builtin_prefetch(&instance->records_[list[k + RECORD_AHEAD]]);
#endif
        if (k + RUN_AHEAD < count)
            prefetch_run(instance, list[k + RUN_AHEAD]);
        uint32_t node = list[k];
        if (node < done)
            continue;
        done = instance->records_[node].subtree_end;
        recompute_run(instance, node, done);
        updated += done - node;
    }
    clear_changes(instance);
    return updated;
}

/* kiln_scene_update_with's own path: a batch in increasing node order, with
 * nothing else pending, is the update's list as it is (no bits to set, no
 * list to build), and each record is written as its run starts, its line
 * requested BATCH_RECORD_AHEAD entries before, so the writes' misses overlap
 * the runs' arithmetic instead of forming a phase of their own (BENCHMARKS.md
 * 11). A run's later entries, nodes inside it, are written before it is
 * recomputed; repeats in order, so the last transform of a node stays.
 * 32 ahead: the record now comes from memory, not from the set phase's L2,
 * and prefetch_run reads it RUN_AHEAD entries ahead; 16 was 3-12 % slower,
 * 24, 48 and 64 no different from 32 (nor the changed node's matrix
 * requested with its record). */
#define BATCH_RECORD_AHEAD 32u

static uint32_t update_ordered_batch(kiln_scene_instance *instance, const uint32_t *nodes,
                                     const kiln_scene_transform *locals, uint32_t count) {
    node_record *records = instance->records_;
    for (uint32_t k = 0; k < count && k < BATCH_RECORD_AHEAD; k++)
        prefetch_for_write(&records[nodes[k]]);
    uint32_t done = 0, written = 0, updated = 0;
    for (uint32_t k = 0; k < count; k++) {
        if (k + BATCH_RECORD_AHEAD < count)
            prefetch_for_write(&records[nodes[k + BATCH_RECORD_AHEAD]]);
        if (k + RUN_AHEAD < count)
            prefetch_run(instance, nodes[k + RUN_AHEAD]);
        uint32_t node = nodes[k];
        if (node < done)
            continue;
        done = records[node].subtree_end;
        for (; written < count && nodes[written] < done; written++)
            records[nodes[written]].local = locals[written];
        recompute_run(instance, node, done);
        updated += done - node;
    }
    return updated;
}

kiln_result kiln_scene_update_with(kiln_scene_instance *instance, const uint32_t *nodes,
                                   const kiln_scene_transform *locals, uint32_t count,
                                   uint32_t *recomputed, kiln_error *err) {
    if (recomputed != NULL)
        *recomputed = 0;
    bool increasing = false;
    kiln_result r =
        check_batch(instance, nodes, locals, count, "kiln_scene_update_with", &increasing, err);
    if (r != KILN_OK)
        return r;
    uint32_t updated;
    if (increasing && instance->first_changed_ == NO_CHANGE) {
        updated = update_ordered_batch(instance, nodes, locals, count);
    } else { /* the two calls it stands for */
        set_batch(instance, nodes, locals, count);
        updated = kiln_scene_update(instance);
    }
    if (recomputed != NULL)
        *recomputed = updated;
    return KILN_OK;
}

void kiln_scene_update_all(kiln_scene_instance *instance) {
    if (instance == NULL)
        return;
    recompute_range(instance, 0, instance->node_count);
    if (instance->first_changed_ != NO_CHANGE) {
        uint64_t *summary = summary_of(instance);
        uint32_t first = instance->first_changed_, last = instance->last_changed_;
        if (last == ALL_CHANGED)
            last = instance->node_count - 1;
        memset(summary + first / SUMMARY_NODES, 0,
               ((size_t)last / SUMMARY_NODES - first / SUMMARY_NODES + 1) * sizeof(uint64_t));
        memset(instance->changed_ + first / 64, 0,
               ((size_t)last / 64 - first / 64 + 1) * sizeof(uint64_t));
    }
    clear_changes(instance);
}

const float *kiln_scene_world(const kiln_scene_instance *instance, uint32_t node) {
    if (instance == NULL || node >= instance->node_count)
        return NULL;
    return instance->world + (size_t)node * 16;
}
