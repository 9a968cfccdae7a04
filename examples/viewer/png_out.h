/*
 * png_out.h — writing kiln-view's frame as a PNG (libspng).
 */
#ifndef KILN_VIEW_PNG_OUT_H
#define KILN_VIEW_PNG_OUT_H

#include <stdbool.h>
#include <stdint.h>

#include "kiln/kiln.h"

/* Writes width x height RGBA8 rows (top first) to `path`; on failure the
 * file is removed and `err` says why. */
bool png_write_rgba(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height,
                    kiln_error *err);

#endif
