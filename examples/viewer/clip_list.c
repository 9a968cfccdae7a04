/*
 * clip_list.c — the clips drawn over the window's frame (clip_list.h).
 */
#include "clip_list.h"

#include <stdio.h>

int clip_list_scale(uint32_t height) {
    return height >= 480 ? 2 : 1;
}

void clip_list_draw(const overlay_image *image, const kiln_anim_view *clips, uint32_t current) {
    static const uint8_t text[4] = {235, 235, 235, 255}, box[4] = {24, 24, 28, 255};
    static const uint8_t chosen_text[4] = {16, 16, 16, 255}, chosen_box[4] = {255, 210, 0, 255};
    if (clips == NULL || clips->clip_count == 0)
        return;
    int scale = clip_list_scale(image->height);
    int margin = CLIP_LIST_MARGIN * scale, line = (OVERLAY_GLYPH + 2) * scale;
    int fit = ((int)image->height - 2 * margin) / line;
    uint32_t count = clips->clip_count, shown = fit > 0 ? (uint32_t)fit : 0;
    if (shown > count)
        shown = count;
    /* A list longer than the frame shows the lines around the current clip. */
    uint32_t first = current > shown / 2 ? current - shown / 2 : 0;
    if (first + shown > count)
        first = count - shown;
    for (uint32_t i = 0; i < shown; i++) {
        uint32_t c = first + i;
        const char *name = kiln_anim_clip_name(clips, c);
        char row[CLIP_LIST_NAME_MAX + 32];
        snprintf(row, sizeof row, " %u %.*s %.2fs ", c, CLIP_LIST_NAME_MAX,
                 name != NULL && name[0] != '\0' ? name : "(unnamed)",
                 (double)clips->clips[c].duration);
        bool chosen = c == current;
        overlay_text(image, margin, margin + (int)i * line, scale, row, chosen ? chosen_text : text,
                     chosen ? chosen_box : box);
    }
}
