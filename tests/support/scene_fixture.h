/* scene_fixture.h — what the scene tests (test_scene_format, test_scene_update,
 * test_scene_instance) share: small and random IR assets written to .kscene
 * bytes, an instance in its own aligned block, and the independent world
 * matrix recompute the instance's update is checked against. */
#ifndef KILN_TEST_SCENE_FIXTURE_H
#define KILN_TEST_SCENE_FIXTURE_H

#include <stdint.h>

#include "test_import.h"

/* An instance in its own aligned block. */
typedef struct held_instance {
    void *memory;
    kiln_scene_instance instance;
} held_instance;

/* Initialises h->instance on `view` in 16-byte aligned memory of exactly
 * kiln_scene_instance_size bytes; fails the test when init fails. */
void instance_open(held_instance *h, const kiln_scene_view *view);
void instance_close(held_instance *h);

/* IR order (parents first, not depth-first): A, B(A), C, D(B), E(A), F(C).
 * Depth-first the file holds A B D E C F. */
void small_asset(ir_asset *asset);
/* A random forest of n nodes (parents first), random TRS (some mirrored). */
void random_asset(ir_asset *asset, uint32_t n, uint32_t seed);
/* The .kscene of `asset` (mesh m referenced as 0x1000 + m) into `bytes`. */
void write_asset(const ir_asset *asset, uint64_t material_table, bytebuf *bytes);

/* Each of the 16 elements within `tolerance` (relative above 1) of `want`. */
void expect_close(const float *got, const double *want, double tolerance, const char *what);

/* The world matrices recomputed here from the instance's local transforms,
 * independently of the library's update: node order is parents first, and
 * each product is written out in the order of the library's affine product
 * (the same float operations, so the same bits). */
void recompute_world(const kiln_scene_view *v, const kiln_scene_transform *local, float *world);
/* The rest pose, the test's own copy of the local transforms it then sets. */
kiln_scene_transform *rest_pose(const kiln_scene_view *v);
/* Every node's local transform as the instance holds it equals `locals`. */
void expect_locals(kiln_scene_instance *instance, const kiln_scene_transform *locals);
/* Nodes in the subtrees of the marked ones (marks spread to children). */
uint32_t count_subtrees(const kiln_scene_view *v, uint8_t *marked);

#endif
