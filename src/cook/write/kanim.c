/* kanim.c — serialises an asset's animation clips as a .kanim file
 * (docs/formats/kanim.md).
 *
 * Every clip in source order; within a clip the channels in source order.
 * Within a clip, channels whose key times are equal share one range of ATIM,
 * and channels of one sampler share its values too. Channels name .kscene
 * node indices (write_kscene_node_order, the order write_kscene uses) and
 * keep the source's node index. Interpolation is kept as authored, with
 * CUBICSPLINE tangents. A sampler the process stage quantized
 * (ir_anim_sampler.quantized, anim.quantize) is stored as encoding 1: its
 * u16 words in AQNT, a translation's or scale's range in AVAL. Each clip's
 * worst error against its source (ir_animation.error) goes to AERR. Every
 * node whose mesh has morph targets gets a morph record: its weights' place
 * in a pose, and its default weights. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/fnv.h"
#include "cook/write/write.h"

/* A time range written for this clip. */
typedef struct written_times {
    uint64_t hash;
    const float *times;
    uint32_t count, offset;
} written_times;

/* Where sampler s of the clip went (value_offset, time_offset), once written. */
typedef struct written_sampler {
    bool written;
    uint32_t time_offset, value_offset;
} written_sampler;

/* What write_kanim gathers before it writes the container: the description,
 * the clips, one buffer a chunk, and the node tables the channels name. */
typedef struct kanim_parts {
    kiln_anim_desc desc;
    kiln_anim_clip *clips;
    bytebuf channels, times, values, morphs, weights, quants, errors, strings, meta;
    uint32_t *order, *position;  /* write_kscene_node_order's */
    uint32_t *weight_offset;     /* per IR node: its weights' place in a pose */
    written_sampler *by_sampler; /* per sampler of the clip being written */
    written_times *distinct;     /* the clip's time ranges so far */
    uint32_t distinct_count;
} kanim_parts;

/* MRPH and AWGT: every node with morph weights, in file order. */
static bool write_morphs(kanim_parts *p, const ir_asset *asset) {
    bool ok = true;
    for (uint32_t k = 0; ok && k < asset->node_count; k++) {
        const ir_node *node = &asset->nodes[p->order[k]];
        if (node->weight_count == 0)
            continue;
        kiln_anim_morph morph = {
            .node = k, .weight_offset = p->desc.weight_count, .weight_count = node->weight_count};
        p->weight_offset[p->order[k]] = p->desc.weight_count;
        ok = (uint64_t)p->desc.weight_count + node->weight_count <= UINT32_MAX;
        p->desc.weight_count += node->weight_count;
        p->desc.morph_count++;
        bytebuf_append(&p->morphs, &morph, sizeof morph);
        bytebuf_append(&p->weights, node->weights, node->weight_count * sizeof(float));
    }
    return ok;
}

/* ATIM: the offset of `s`'s key times, appended unless the clip already
 * wrote an equal range. */
static uint32_t write_times(kanim_parts *p, const ir_anim_sampler *s) {
    /* The hash finds equal time arrays quickly. */
    uint64_t hash = fnv1a64(s->times, (size_t)s->key_count * sizeof(float));
    written_times *distinct = p->distinct;
    uint32_t d = 0;
    while (d < p->distinct_count &&
           !(distinct[d].hash == hash && distinct[d].count == s->key_count &&
             memcmp(distinct[d].times, s->times, s->key_count * sizeof(float)) == 0))
        d++;
    if (d == p->distinct_count) {
        distinct[p->distinct_count++] = (written_times){
            .hash = hash, .times = s->times, .count = s->key_count, .offset = p->desc.time_count};
        bytebuf_append(&p->times, s->times, s->key_count * sizeof(float));
        p->desc.time_count += s->key_count;
    }
    return distinct[d].offset;
}

/* A sampler's keys, once per clip: its times (write_times), and its values
 * (AVAL) or, quantized, its words (AQNT). */
static void write_sampler(kanim_parts *p, const ir_anim_sampler *s, uint64_t value_count,
                          uint64_t quant_count, written_sampler *w) {
    w->time_offset = write_times(p, s);
    if (s->quantized != NULL) {
        w->value_offset = p->desc.quant_count;
        bytebuf_append(&p->quants, s->quantized, (size_t)quant_count * sizeof(uint16_t));
        p->desc.quant_count += (uint32_t)quant_count;
    } else {
        w->value_offset = p->desc.value_count;
        bytebuf_append(&p->values, s->values, (size_t)value_count * sizeof(float));
        p->desc.value_count += (uint32_t)value_count;
    }
    w->written = true;
}

/* One ACHN record, with its sampler's keys the first time the clip names the
 * sampler and a quantized translation's or scale's range; widens the clip's
 * time span (`first`: no channel of the clip yet). False when a count
 * overflows or a weights channel does not match its node. */
static bool write_channel(kanim_parts *p, const ir_asset *asset, const ir_animation *anim,
                          const ir_anim_channel *channel, kiln_anim_clip *clip, bool first) {
    const ir_anim_sampler *s = &anim->samplers[channel->sampler];
    const ir_node *node = &asset->nodes[channel->node];
    size_t groups = s->interpolation == IR_INTERP_CUBICSPLINE ? 3 : 1;
    bool quantized = s->quantized != NULL;
    bool ranged = quantized && channel->path != IR_ANIM_ROTATION;
    uint64_t value_count =
        quantized ? (ranged ? 6u : 0u) : (uint64_t)s->key_count * s->components * groups;
    uint64_t quant_count = quantized ? (uint64_t)s->key_count * 3 : 0;
    if ((uint64_t)p->desc.time_count + s->key_count > UINT32_MAX ||
        (uint64_t)p->desc.value_count + value_count > UINT32_MAX ||
        (uint64_t)p->desc.quant_count + quant_count > UINT32_MAX || s->components > 65535 ||
        (channel->path == IR_ANIM_WEIGHTS && s->components != node->weight_count))
        return false;
    written_sampler *w = &p->by_sampler[channel->sampler];
    if (!w->written)
        write_sampler(p, s, value_count, quant_count, w);
    uint32_t range_offset = 0;
    if (ranged) { /* per channel: a sampler of a translation and a scale differs */
        range_offset = p->desc.value_count;
        bytebuf_append(&p->values, s->range, sizeof s->range);
        p->desc.value_count += 6;
    }
    kiln_anim_channel record = {.node = p->position[channel->node],
                                .source_node = node->source,
                                .path = (uint8_t)channel->path,
                                .interpolation = (uint8_t)s->interpolation,
                                .components = (uint16_t)s->components,
                                .key_count = s->key_count,
                                .time_offset = w->time_offset,
                                .value_offset = w->value_offset,
                                .encoding = quantized ? KILN_ANIM_QUANTIZED : KILN_ANIM_FLOAT};
    record.weight_offset =
        channel->path == IR_ANIM_WEIGHTS ? p->weight_offset[channel->node] : range_offset;
    bytebuf_append(&p->channels, &record, sizeof record);
    float t0 = s->times[0], t1 = s->times[s->key_count - 1];
    clip->start = first || t0 < clip->start ? t0 : clip->start;
    clip->duration = first || t1 > clip->duration ? t1 : clip->duration;
    return true;
}

/* Clip `a`: its AERR entry, its names in ASTR, its channels; then its record
 * in ACLP says where they are and what time span they cover. */
static bool write_clip(kanim_parts *p, const ir_asset *asset, uint32_t a) {
    const ir_animation *anim = &asset->animations[a];
    kiln_anim_clip *clip = &p->clips[a];
    kiln_anim_clip_error error = {anim->error[IR_ANIM_TRANSLATION], anim->error[IR_ANIM_ROTATION],
                                  anim->error[IR_ANIM_SCALE], anim->error[IR_ANIM_WEIGHTS]};
    bytebuf_append(&p->errors, &error, sizeof error);
    clip->first_channel = p->desc.channel_count;
    bool ok = string_table_add(&p->strings, anim->name, &clip->name_offset, &clip->name_length);
    if (ok && anim->dropped != NULL && anim->dropped[0] != '\0')
        ok = string_table_add(&p->strings, anim->dropped, &clip->dropped_offset,
                              &clip->dropped_length);
    memset(p->by_sampler, 0, anim->sampler_count * sizeof *p->by_sampler);
    p->distinct_count = 0;
    bool first = true;
    for (uint32_t c = 0; ok && c < anim->channel_count; c++) {
        ok = write_channel(p, asset, anim, &anim->channels[c], clip, first);
        if (ok)
            first = false;
    }
    if (anim->has_range && !first) {
        clip->start = anim->start;
        clip->duration = anim->end;
    }
    clip->channel_count = anim->channel_count;
    p->desc.channel_count += anim->channel_count;
    return ok;
}

/* The per-clip tables: by_sampler and distinct, sized for the largest clip. */
static bool alloc_clip_tables(kanim_parts *p, const ir_asset *asset) {
    size_t most_samplers = 1, most_channels = 1;
    for (uint32_t a = 0; a < asset->animation_count; a++) {
        most_samplers = asset->animations[a].sampler_count > most_samplers
                            ? asset->animations[a].sampler_count
                            : most_samplers;
        most_channels = asset->animations[a].channel_count > most_channels
                            ? asset->animations[a].channel_count
                            : most_channels;
    }
    p->by_sampler = malloc(most_samplers * sizeof *p->by_sampler);
    p->distinct = malloc(most_channels * sizeof *p->distinct);
    return p->by_sampler != NULL && p->distinct != NULL;
}

/* The container: every chunk, in the file's order. */
static bool write_container(const kanim_parts *p, cook_container_compress compress, bytebuf *out) {
    container_writer writer;
    container_begin(&writer, KILN_KIND_ANIM, KILN_ANIM_VERSION);
    container_set_compress(&writer, compress);
    container_add_chunk(&writer, KILN_CHUNK_ANIM_DESC, &p->desc, sizeof p->desc);
    container_add_chunk(&writer, KILN_CHUNK_META, p->meta.data, p->meta.size);
    container_add_chunk(&writer, KILN_CHUNK_ANIM_CLIPS, p->clips,
                        (size_t)p->desc.clip_count * sizeof *p->clips);
    container_add_chunk(&writer, KILN_CHUNK_ANIM_CHANNELS, p->channels.data, p->channels.size);
    container_add_chunk(&writer, KILN_CHUNK_ANIM_TIMES, p->times.data, p->times.size);
    container_add_chunk(&writer, KILN_CHUNK_ANIM_VALUES, p->values.data, p->values.size);
    container_add_chunk(&writer, KILN_CHUNK_ANIM_MORPHS, p->morphs.data, p->morphs.size);
    container_add_chunk(&writer, KILN_CHUNK_ANIM_WEIGHTS, p->weights.data, p->weights.size);
    container_add_chunk(&writer, KILN_CHUNK_ANIM_STRINGS, p->strings.data, p->strings.size);
    container_add_chunk(&writer, KILN_CHUNK_ANIM_QUANTIZED, p->quants.data, p->quants.size);
    container_add_chunk(&writer, KILN_CHUNK_ANIM_ERRORS, p->errors.data, p->errors.size);
    return container_finish(&writer, out);
}

static bool kanim_parts_failed(const kanim_parts *p) {
    return p->channels.failed || p->times.failed || p->values.failed || p->morphs.failed ||
           p->weights.failed || p->strings.failed || p->meta.failed || p->quants.failed ||
           p->errors.failed;
}

static void kanim_parts_free(kanim_parts *p) {
    free(p->order);
    free(p->position);
    free(p->weight_offset);
    free(p->clips);
    free(p->by_sampler);
    free(p->distinct);
    bytebuf_free(&p->channels);
    bytebuf_free(&p->times);
    bytebuf_free(&p->values);
    bytebuf_free(&p->morphs);
    bytebuf_free(&p->weights);
    bytebuf_free(&p->strings);
    bytebuf_free(&p->meta);
    bytebuf_free(&p->quants);
    bytebuf_free(&p->errors);
}

bool write_kanim(const cook_context *ctx, const ir_asset *asset, uint64_t scene_ref,
                 const char *importer, bytebuf *out) {
    size_t slots = asset->node_count ? asset->node_count : 1;
    kanim_parts p = {.desc = {.clip_count = asset->animation_count,
                              .node_count = asset->node_count,
                              .scene = scene_ref}};
    p.order = malloc(slots * sizeof *p.order);
    p.position = malloc(slots * sizeof *p.position);
    p.weight_offset = calloc(slots, sizeof *p.weight_offset);
    p.clips = calloc(asset->animation_count ? asset->animation_count : 1, sizeof *p.clips);
    bool ok = p.order && p.position && p.weight_offset && p.clips &&
              write_kscene_node_order(asset, p.order, p.position);
    ok = ok && write_morphs(&p, asset);
    ok = ok && alloc_clip_tables(&p, asset);
    for (uint32_t a = 0; ok && a < asset->animation_count; a++)
        ok = write_clip(&p, asset, a);
    p.desc.strings_size = (uint32_t)p.strings.size;
    write_metadata_json(ctx, importer, &p.meta);
    ok = ok && !kanim_parts_failed(&p) &&
         write_container(&p, ctx->settings->container_compress, out);
    kanim_parts_free(&p);
    return ok;
}
