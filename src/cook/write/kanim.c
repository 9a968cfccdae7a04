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

bool write_kanim(const cook_context *ctx, const ir_asset *asset, uint64_t scene_ref,
                 const char *importer, bytebuf *out) {
    uint32_t n = asset->node_count;
    size_t slots = n ? n : 1;
    uint32_t *order = malloc(slots * sizeof *order);
    uint32_t *position = malloc(slots * sizeof *position);
    uint32_t *weight_offset = calloc(slots, sizeof *weight_offset); /* per IR node */
    kiln_anim_clip *clips =
        calloc(asset->animation_count ? asset->animation_count : 1, sizeof *clips);
    bytebuf channels = {0}, times = {0}, values = {0}, morphs = {0}, weights = {0};
    bytebuf quants = {0}, errors = {0};
    bytebuf strings = {0}, meta = {0};
    kiln_anim_desc desc = {
        .clip_count = asset->animation_count, .node_count = n, .scene = scene_ref};
    bool ok = order && position && weight_offset && clips &&
              write_kscene_node_order(asset, order, position);
    /* Morph nodes in file order. */
    for (uint32_t k = 0; ok && k < n; k++) {
        const ir_node *node = &asset->nodes[order[k]];
        if (node->weight_count == 0)
            continue;
        kiln_anim_morph morph = {
            .node = k, .weight_offset = desc.weight_count, .weight_count = node->weight_count};
        weight_offset[order[k]] = desc.weight_count;
        ok = (uint64_t)desc.weight_count + node->weight_count <= UINT32_MAX;
        desc.weight_count += node->weight_count;
        desc.morph_count++;
        bytebuf_append(&morphs, &morph, sizeof morph);
        bytebuf_append(&weights, node->weights, node->weight_count * sizeof(float));
    }
    size_t most_samplers = 1, most_channels = 1;
    for (uint32_t a = 0; a < asset->animation_count; a++) {
        most_samplers = asset->animations[a].sampler_count > most_samplers
                            ? asset->animations[a].sampler_count
                            : most_samplers;
        most_channels = asset->animations[a].channel_count > most_channels
                            ? asset->animations[a].channel_count
                            : most_channels;
    }
    written_sampler *by_sampler = malloc(most_samplers * sizeof *by_sampler);
    written_times *distinct = malloc(most_channels * sizeof *distinct);
    ok = ok && by_sampler != NULL && distinct != NULL;
    for (uint32_t a = 0; ok && a < asset->animation_count; a++) {
        const ir_animation *anim = &asset->animations[a];
        kiln_anim_clip *clip = &clips[a];
        kiln_anim_clip_error error = {anim->error[IR_ANIM_TRANSLATION],
                                      anim->error[IR_ANIM_ROTATION], anim->error[IR_ANIM_SCALE],
                                      anim->error[IR_ANIM_WEIGHTS]};
        bytebuf_append(&errors, &error, sizeof error);
        clip->first_channel = desc.channel_count;
        ok = string_table_add(&strings, anim->name, &clip->name_offset, &clip->name_length);
        if (ok && anim->dropped != NULL && anim->dropped[0] != '\0')
            ok = string_table_add(&strings, anim->dropped, &clip->dropped_offset,
                                  &clip->dropped_length);
        memset(by_sampler, 0, anim->sampler_count * sizeof *by_sampler);
        uint32_t distinct_count = 0;
        bool first = true;
        for (uint32_t c = 0; ok && c < anim->channel_count; c++) {
            const ir_anim_channel *channel = &anim->channels[c];
            const ir_anim_sampler *s = &anim->samplers[channel->sampler];
            const ir_node *node = &asset->nodes[channel->node];
            size_t groups = s->interpolation == IR_INTERP_CUBICSPLINE ? 3 : 1;
            bool quantized = s->quantized != NULL;
            bool ranged = quantized && channel->path != IR_ANIM_ROTATION;
            uint64_t value_count =
                quantized ? (ranged ? 6u : 0u) : (uint64_t)s->key_count * s->components * groups;
            uint64_t quant_count = quantized ? (uint64_t)s->key_count * 3 : 0;
            if ((uint64_t)desc.time_count + s->key_count > UINT32_MAX ||
                (uint64_t)desc.value_count + value_count > UINT32_MAX ||
                (uint64_t)desc.quant_count + quant_count > UINT32_MAX || s->components > 65535 ||
                (channel->path == IR_ANIM_WEIGHTS && s->components != node->weight_count)) {
                ok = false;
                break;
            }
            written_sampler *w = &by_sampler[channel->sampler];
            if (!w->written) {
                /* The hash finds equal time arrays quickly. */
                uint64_t hash = fnv1a64(s->times, (size_t)s->key_count * sizeof(float));
                uint32_t d = 0;
                while (d < distinct_count &&
                       !(distinct[d].hash == hash && distinct[d].count == s->key_count &&
                         memcmp(distinct[d].times, s->times, s->key_count * sizeof(float)) == 0))
                    d++;
                if (d == distinct_count) {
                    distinct[distinct_count++] = (written_times){.hash = hash,
                                                                 .times = s->times,
                                                                 .count = s->key_count,
                                                                 .offset = desc.time_count};
                    bytebuf_append(&times, s->times, s->key_count * sizeof(float));
                    desc.time_count += s->key_count;
                }
                w->time_offset = distinct[d].offset;
                if (quantized) {
                    w->value_offset = desc.quant_count;
                    bytebuf_append(&quants, s->quantized, (size_t)quant_count * sizeof(uint16_t));
                    desc.quant_count += (uint32_t)quant_count;
                } else {
                    w->value_offset = desc.value_count;
                    bytebuf_append(&values, s->values, (size_t)value_count * sizeof(float));
                    desc.value_count += (uint32_t)value_count;
                }
                w->written = true;
            }
            uint32_t range_offset = 0;
            if (ranged) { /* per channel: a sampler of a translation and a scale differs */
                range_offset = desc.value_count;
                bytebuf_append(&values, s->range, sizeof s->range);
                desc.value_count += 6;
            }
            kiln_anim_channel record = {.node = position[channel->node],
                                        .source_node = node->source,
                                        .path = (uint8_t)channel->path,
                                        .interpolation = (uint8_t)s->interpolation,
                                        .components = (uint16_t)s->components,
                                        .key_count = s->key_count,
                                        .time_offset = w->time_offset,
                                        .value_offset = w->value_offset,
                                        .encoding =
                                            quantized ? KILN_ANIM_QUANTIZED : KILN_ANIM_FLOAT};
            record.weight_offset =
                channel->path == IR_ANIM_WEIGHTS ? weight_offset[channel->node] : range_offset;
            bytebuf_append(&channels, &record, sizeof record);
            float t0 = s->times[0], t1 = s->times[s->key_count - 1];
            clip->start = first || t0 < clip->start ? t0 : clip->start;
            clip->duration = first || t1 > clip->duration ? t1 : clip->duration;
            first = false;
        }
        if (anim->has_range && !first) {
            clip->start = anim->start;
            clip->duration = anim->end;
        }
        clip->channel_count = anim->channel_count;
        desc.channel_count += anim->channel_count;
    }
    free(by_sampler);
    free(distinct);
    desc.strings_size = (uint32_t)strings.size;
    write_metadata_json(ctx, importer, &meta);
    ok = ok && !channels.failed && !times.failed && !values.failed && !morphs.failed &&
         !weights.failed && !strings.failed && !meta.failed && !quants.failed && !errors.failed;
    if (ok) {
        container_writer writer;
        container_begin(&writer, KILN_KIND_ANIM, KILN_ANIM_VERSION);
        container_add_chunk(&writer, KILN_CHUNK_ANIM_DESC, &desc, sizeof desc);
        container_add_chunk(&writer, KILN_CHUNK_META, meta.data, meta.size);
        container_add_chunk(&writer, KILN_CHUNK_ANIM_CLIPS, clips,
                            (size_t)desc.clip_count * sizeof *clips);
        container_add_chunk(&writer, KILN_CHUNK_ANIM_CHANNELS, channels.data, channels.size);
        container_add_chunk(&writer, KILN_CHUNK_ANIM_TIMES, times.data, times.size);
        container_add_chunk(&writer, KILN_CHUNK_ANIM_VALUES, values.data, values.size);
        container_add_chunk(&writer, KILN_CHUNK_ANIM_MORPHS, morphs.data, morphs.size);
        container_add_chunk(&writer, KILN_CHUNK_ANIM_WEIGHTS, weights.data, weights.size);
        container_add_chunk(&writer, KILN_CHUNK_ANIM_STRINGS, strings.data, strings.size);
        container_add_chunk(&writer, KILN_CHUNK_ANIM_QUANTIZED, quants.data, quants.size);
        container_add_chunk(&writer, KILN_CHUNK_ANIM_ERRORS, errors.data, errors.size);
        ok = container_finish(&writer, out);
    }
    free(order);
    free(position);
    free(weight_offset);
    free(clips);
    bytebuf_free(&channels);
    bytebuf_free(&times);
    bytebuf_free(&values);
    bytebuf_free(&morphs);
    bytebuf_free(&weights);
    bytebuf_free(&strings);
    bytebuf_free(&meta);
    bytebuf_free(&quants);
    bytebuf_free(&errors);
    return ok;
}
