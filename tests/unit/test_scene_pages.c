/* test_scene_pages.c — a large scene instance's node arrays advised for
 * transparent huge pages (scene_instance.c, advise_huge_pages): on Linux the
 * mapping holding the 2 MiB-aligned stretch of its matrices and records
 * carries the "hg" flag madvise(MADV_HUGEPAGE) sets, whatever the system's
 * THP mode, and the block's first bytes, below that stretch, do not; the
 * matrices stay those of an independent computation. Skipped elsewhere and
 * on kernels without transparent huge pages. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "kiln/kiln.h"
#include "test_support.h"

#if defined(__linux__) && defined(MADV_HUGEPAGE)
#define HUGE_PAGE ((uintptr_t)2 << 20)

/* Whether the mapping holding `p` has `flag` among its VmFlags in
 * /proc/self/smaps. */
static bool mapping_has_flag(const void *p, const char *flag) {
    FILE *smaps = fopen("/proc/self/smaps", "r");
    assert_non_null(smaps);
    char line[512];
    bool inside = false, found = false;
    while (fgets(line, sizeof line, smaps) != NULL) {
        unsigned long long from, to;
        if (sscanf(line, "%llx-%llx ", &from, &to) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            inside = (uintptr_t)p >= from && (uintptr_t)p < to;
            continue;
        }
        if (inside && strncmp(line, "VmFlags:", 8) == 0) {
            char padded[512];
            snprintf(padded, sizeof padded, "%s ", line + 8); /* every flag followed by a space */
            char wanted[8];
            snprintf(wanted, sizeof wanted, " %s ", flag);
            for (char *c = padded; *c != '\0'; c++)
                if (*c == '\n')
                    *c = ' ';
            found = strstr(padded, wanted) != NULL;
            break;
        }
    }
    fclose(smaps);
    return found;
}
#endif

static void large_instance_is_advised_for_huge_pages(void **state) {
    (void)state;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    /* A kernel without transparent huge pages refuses the advice: nothing to check. */
    void *probe =
        mmap(NULL, 2 * HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(probe != MAP_FAILED);
    bool supported = madvise(probe, 2 * HUGE_PAGE, MADV_HUGEPAGE) == 0;
    munmap(probe, 2 * HUGE_PAGE);
    if (!supported)
        skip();

    /* 40,000 nodes in chains of 4 (node i's parent i - 1 unless i % 4 == 0):
     * 4.9 MiB of matrices and records, so the first whole 2 MiB page inside
     * them ends before they do wherever the block starts. */
    enum { NODES = 40000, CHAIN = 4 };
    kiln_scene_hierarchy *hierarchy = calloc(NODES, sizeof *hierarchy);
    kiln_scene_transform *transforms = calloc(NODES, sizeof *transforms);
    assert_non_null(hierarchy);
    assert_non_null(transforms);
    for (uint32_t i = 0; i < NODES; i++) {
        hierarchy[i].parent = i % CHAIN == 0 ? -1 : (int32_t)i - 1;
        hierarchy[i].subtree_end = (i / CHAIN + 1) * CHAIN;
        transforms[i] = (kiln_scene_transform){.translation = {(float)(i % 7), 1.0f, 0.0f},
                                               .rotation = {0.0f, 0.0f, 0.0f, 1.0f},
                                               .scale = {1.0f, 1.0f, 1.0f}};
    }
    kiln_scene_view view = {.node_count = NODES, .hierarchy = hierarchy, .transforms = transforms};
    size_t size = kiln_scene_instance_size(&view);
    assert_true(size > 4u << 20);

    /* A mapping of its own, untouched and unadvised before init; the
     * instance 64 bytes in, so the block's first byte is below the first
     * whole huge page even when the mapping starts on one. */
    uint8_t *block =
        mmap(NULL, size + 64, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(block != MAP_FAILED);
    uint8_t *first_huge = (uint8_t *)(((uintptr_t)block + 64 + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
    assert_false(mapping_has_flag(first_huge, "hg"));
    kiln_scene_instance instance;
    kiln_error err;
    assert_int_equal(kiln_scene_instance_init(&instance, &view, block + 64, size, &err), KILN_OK);
    assert_true(mapping_has_flag(first_huge, "hg"));
    assert_true(mapping_has_flag(first_huge + HUGE_PAGE - 1, "hg"));
    assert_false(mapping_has_flag(block, "hg"));

    /* Chains of translations: node i sits at the sum of its chain's so far. */
    for (uint32_t i = 0; i < NODES; i++) {
        float x = 0.0f;
        for (uint32_t k = i - i % CHAIN; k <= i; k++)
            x += (float)(k % 7);
        const float *m = kiln_scene_world(&instance, i);
        assert_true(m[12] == x && m[13] == (float)(i % CHAIN + 1) && m[0] == 1.0f);
    }
    munmap(block, size + 64);
    free(hierarchy);
    free(transforms);
#else
    skip();
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(large_instance_is_advised_for_huge_pages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
