/*
 * clip_list.h — the window's list of the scene's clips, drawn over the top
 * left corner of the frame (overlay.h): one line a clip, its index, name
 * and length, the current one highlighted. The keys step through them
 * (interact.c); C shows or hides the list.
 */
#ifndef KILN_VIEW_CLIP_LIST_H
#define KILN_VIEW_CLIP_LIST_H

#include "kiln/kiln.h"
#include "overlay.h"

#define CLIP_LIST_MARGIN 6    /* pixels from the frame's edges, at scale 1 */
#define CLIP_LIST_NAME_MAX 32 /* characters of a name shown */

/* The font's scale for a frame `height` pixels high: 1, 2 from 480. */
int clip_list_scale(uint32_t height);

/* The list over `image`; as many lines as fit, around `current`. */
void clip_list_draw(const overlay_image *image, const kiln_anim_view *clips, uint32_t current);

#endif
