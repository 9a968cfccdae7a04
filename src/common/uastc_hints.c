/*
 * uastc_hints.c — the transcoding hint bits of a UASTC block
 * (uastc_transcode_etc.h): which modes carry which, and their order.
 */
#include "common/uastc_transcode_etc.h"

#include <string.h>

/* The mode table's hint widths tell the layouts apart: 15 bits (opaque
 * modes: BC1 0 and 1, flip, diff, two tables, bias), 17 (modes 10-12: BC1
 * 0, flip, diff, tables, EAC) or 23 (the other alpha modes: all of them). */
bool uastc_mode_has_bias(unsigned mode) {
    const uastc_mode_desc *d = uastc_mode_info(mode);
    return d != NULL && mode != UASTC_MODE_SOLID && d->hint_bits != 17;
}

bool uastc_mode_has_eac(unsigned mode) {
    const uastc_mode_desc *d = uastc_mode_info(mode);
    return d != NULL && mode != UASTC_MODE_SOLID && d->comps != 3;
}

/* Reads or writes `count` bits of *value at bit *pos of *bits. */
static void hint_field(uint32_t *bits, unsigned *pos, bool write, unsigned count, uint8_t *value) {
    uint32_t mask = (1u << count) - 1u;
    if (write)
        *bits |= ((uint32_t)*value & mask) << *pos;
    else
        *value = (uint8_t)((*bits >> *pos) & mask);
    *pos += count;
}

static void hint_flag(uint32_t *bits, unsigned *pos, bool write, bool *flag) {
    uint8_t v = *flag;
    hint_field(bits, pos, write, 1, &v);
    *flag = v != 0;
}

/* One walk for both directions, so reading and writing cannot disagree. */
static void hints_walk(unsigned mode, uint32_t *bits, bool write, uastc_hints *h) {
    unsigned pos = 0;
    if (mode == UASTC_MODE_SOLID) {
        hint_flag(bits, &pos, write, &h->diff);
        hint_field(bits, &pos, write, 3, &h->table[0]);
        hint_field(bits, &pos, write, 2, &h->solid_selector);
        for (unsigned c = 0; c < 3; c++)
            hint_field(bits, &pos, write, 5, &h->solid_base[c]);
        return;
    }
    hint_flag(bits, &pos, write, &h->bc1_direct);
    if (uastc_mode_has_bias(mode))
        hint_flag(bits, &pos, write, &h->bc1_weights);
    hint_flag(bits, &pos, write, &h->flip);
    hint_flag(bits, &pos, write, &h->diff);
    hint_field(bits, &pos, write, 3, &h->table[0]);
    hint_field(bits, &pos, write, 3, &h->table[1]);
    if (uastc_mode_has_bias(mode))
        hint_field(bits, &pos, write, 5, &h->bias);
    if (uastc_mode_has_eac(mode)) {
        uint8_t eac = (uint8_t)(h->eac_table | h->eac_multiplier << 4);
        hint_field(bits, &pos, write, 8, &eac);
        h->eac_table = eac & 15u;
        h->eac_multiplier = eac >> 4;
    }
}

void uastc_hints_read(unsigned mode, uint32_t bits, uastc_hints *h) {
    memset(h, 0, sizeof *h);
    if (uastc_mode_info(mode) != NULL)
        hints_walk(mode, &bits, false, h);
}

uint32_t uastc_hints_write(unsigned mode, const uastc_hints *h) {
    uint32_t bits = 0;
    uastc_hints copy = *h;
    if (uastc_mode_info(mode) != NULL)
        hints_walk(mode, &bits, true, &copy);
    return bits;
}
