/* simplify_fixture.c — the simplifier tests' meshes (simplify_fixture.h). */
#include "simplify_fixture.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

void grid_make(grid *g, uint32_t n, float bump, float jitter) {
    g->n = n;
    g->vertex_count = (size_t)(n + 1) * (n + 1);
    g->index_count = (size_t)n * n * 6;
    g->positions = malloc(g->vertex_count * 3 * sizeof(float));
    g->indices = malloc(g->index_count * sizeof(uint32_t));
    assert_non_null(g->positions);
    assert_non_null(g->indices);
    uint32_t seed = 12345;
    for (uint32_t y = 0; y <= n; y++)
        for (uint32_t x = 0; x <= n; x++) {
            float *p = g->positions + 3 * ((size_t)y * (n + 1) + x);
            seed = seed * 1664525u + 1013904223u;
            float jx = (float)((seed >> 8) & 0xff) / 255.0f - 0.5f;
            float jy = (float)((seed >> 16) & 0xff) / 255.0f - 0.5f;
            bool interior = x > 0 && y > 0 && x < n && y < n;
            p[0] = (float)x + (interior ? jitter * jx : 0.0f);
            p[1] = (float)y + (interior ? jitter * jy : 0.0f);
            p[2] = bump * sinf((float)x * 0.6f) * cosf((float)y * 0.45f);
        }
    size_t k = 0;
    for (uint32_t y = 0; y < n; y++)
        for (uint32_t x = 0; x < n; x++) {
            uint32_t a = y * (n + 1) + x, b = a + 1, c = a + n + 1, d = c + 1;
            uint32_t quad[6] = {a, b, d, a, d, c};
            memcpy(g->indices + k, quad, sizeof quad);
            k += 6;
        }
}

void grid_free(grid *g) {
    free(g->positions);
    free(g->indices);
}

/* A seam down the middle column of g: the right half's triangles use copies
 * of the column's vertices (same positions, other attributes). */
void grid_add_seam(grid *g) {
    uint32_t n = g->n, column = n / 2;
    size_t original = g->vertex_count;
    g->positions = realloc(g->positions, (original + n + 1) * 3 * sizeof(float));
    assert_non_null(g->positions);
    for (uint32_t y = 0; y <= n; y++)
        memcpy(g->positions + 3 * (original + y), g->positions + 3 * ((size_t)y * (n + 1) + column),
               3 * sizeof(float));
    g->vertex_count = original + n + 1;
    for (size_t t = 0; t < g->index_count; t += 3) {
        uint32_t right = 0;
        for (int k = 0; k < 3; k++)
            right += g->indices[t + (size_t)k] % (n + 1) > column;
        for (int k = 0; k < 3 && right; k++) {
            uint32_t v = g->indices[t + (size_t)k];
            if (v % (n + 1) == column)
                g->indices[t + (size_t)k] = (uint32_t)original + v / (n + 1);
        }
    }
}

/* A closed sphere: rings x segments, the poles one vertex each. */
void sphere_make(grid *g, uint32_t rings, uint32_t segments) {
    g->vertex_count = 2 + (size_t)(rings - 1) * segments;
    g->index_count = (size_t)segments * 6 * (rings - 1);
    g->positions = malloc(g->vertex_count * 3 * sizeof(float));
    g->indices = malloc(g->index_count * sizeof(uint32_t));
    assert_non_null(g->positions);
    assert_non_null(g->indices);
    float *p = g->positions;
    p[0] = 0, p[1] = 0, p[2] = 1;
    for (uint32_t r = 1; r < rings; r++)
        for (uint32_t s = 0; s < segments; s++) {
            float theta = 3.14159265f * (float)r / (float)rings;
            float phi = 6.28318531f * (float)s / (float)segments;
            float *q = g->positions + 3 * (1 + (size_t)(r - 1) * segments + s);
            q[0] = sinf(theta) * cosf(phi);
            q[1] = sinf(theta) * sinf(phi);
            q[2] = cosf(theta);
        }
    float *south = g->positions + 3 * (g->vertex_count - 1);
    south[0] = 0, south[1] = 0, south[2] = -1;
    uint32_t last = (uint32_t)g->vertex_count - 1;
    size_t k = 0;
    for (uint32_t s = 0; s < segments; s++) {
        uint32_t t = (s + 1) % segments;
        g->indices[k++] = 0;
        g->indices[k++] = 1 + s;
        g->indices[k++] = 1 + t;
        for (uint32_t r = 1; r + 1 < rings; r++) {
            uint32_t a = 1 + (r - 1) * segments + s, b = 1 + (r - 1) * segments + t;
            uint32_t c = a + segments, d = b + segments;
            uint32_t quad[6] = {a, c, d, a, d, b};
            memcpy(g->indices + k, quad, sizeof quad);
            k += 6;
        }
        g->indices[k++] = last;
        g->indices[k++] = 1 + (rings - 2) * segments + t;
        g->indices[k++] = 1 + (rings - 2) * segments + s;
    }
    g->index_count = k;
}
