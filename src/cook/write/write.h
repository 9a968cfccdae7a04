/*
 * write.h — the write stage: serialise to the cooked formats, atomically.
 *
 *   container.c  kiln's container (docs/formats/container.md)
 *   metadata.c   the META chunk's provenance JSON
 *   extras.c     the XTRA chunk: the source's extras per object
 *   kmesh.c      .kmesh          kmat.c     .kmat
 *   kscene.c     .kscene         kanim.c    .kanim
 *   kshader.c, kshader.h  .kshader (a header of its own, for the shader driver)
 *   ktx2.c       KTX2 textures
 *   zstd_frame.c one Zstd frame on the thread's reused context (KTX2 levels,
 *                container chunks)
 *   manifest.c   assets.kman     pack.c     .kpak  (outputs.h)
 *   atomic.c     temporary file + rename (outputs.h)
 *   emit.c       the one way a file enters the output tree: path, atomic
 *                write, verification, the result's output and manifest entry
 *
 * write may use core, common and the runtime (to verify what it wrote).
 */
#ifndef KILN_COOK_WRITE_WRITE_H
#define KILN_COOK_WRITE_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/ktx2_format.h"
#include "cook/core/core.h"
#include "cook/write/outputs.h"

/* Builds a container in memory: add chunks in order, then finish. */
typedef struct container_writer {
    uint32_t kind;
    uint16_t kind_version;
    uint32_t chunk_count;
    size_t chunk_cap;
    struct container_pending_chunk *chunks;
    cook_container_compress compress; /* container.compress; none unless set */
    unsigned threads;                 /* container_set_threads; 0 or 1: the caller's */
    bool failed;
} container_writer;

void container_begin(container_writer *writer, uint32_t kind, uint16_t kind_version);
/* Encodes the chunks (all but META) at container_finish where that makes them
 * smaller (container_encode.c); none, the default, writes them as they are. */
void container_set_compress(container_writer *writer, cook_container_compress compress);
/* Copies large payloads into the file image on `threads` threads (the
 * asset's): the bytes do not depend on it. */
void container_set_threads(container_writer *writer, unsigned threads);
/* The chunk added last may be encoded with a meshopt filter
 * (KILN_CHUNK_FILTER_*) of `element` bytes per vertex or index. */
void container_set_filter(container_writer *writer, uint32_t filter, uint32_t element);
/* Copies `size` bytes of `data` as a chunk payload. */
void container_add_chunk(container_writer *writer, uint32_t fourcc, const void *data, size_t size);
/* Adds `size` bytes of `data` as a chunk payload without copying them: they
 * must stay unchanged until container_finish or container_abandon returns
 * (bulk payloads: a mesh's vertices and indices are not copied twice). */
void container_add_chunk_borrowed(container_writer *writer, uint32_t fourcc, const void *data,
                                  size_t size);
/* Lays out the file (header, table, 16-byte aligned payloads, zeroed padding,
 * checksum) into `out`. Returns false on allocation failure. Frees the writer. */
bool container_finish(container_writer *writer, bytebuf *out);
void container_abandon(container_writer *writer);

/* A container laid out and checksummed, its payloads not copied: the bytes
 * container_finish would make, handed out piece by piece, so a large file is
 * written without ever being whole in memory. Borrowed payloads must stay
 * unchanged until container_layout_free. */
typedef struct container_layout {
    container_writer writer; /* its chunks: copies, encodings, borrowed bytes */
    uint8_t *head;           /* the header (checksum set) and the chunk table */
    size_t head_size;
    const kiln_chunk_entry *table; /* in `head` */
    uint64_t file_size;
} container_layout;
/* Takes the writer's chunks (the writer is left empty either way). False
 * when out of memory or the file would not fit in memory. */
bool container_lay_out(container_writer *writer, container_layout *out);
/* The file's bytes to `sink` in order (several calls); false when it fails. */
bool container_layout_write(const container_layout *layout, write_sink sink, void *arg);
void container_layout_free(container_layout *layout);

/* zstd_frame.c: one Zstd frame of `size` bytes at `level` (content size and
 * checksum recorded), malloc'd and fitted, with its size in *frame_size; NULL
 * when out of memory. The bytes are ZSTD_compress2's on a new context with
 * those parameters; the context itself is the calling thread's, reused. */
uint8_t *write_zstd_frame(const uint8_t *data, size_t size, int level, size_t *frame_size);
/* A frame's window holds its whole input up to 2^WRITE_ZSTD_WINDOW_LOG_MAX
 * bytes, the largest window Zstd's streaming decoders (and the zstd tool)
 * accept without being told to (ZSTD_WINDOWLOG_LIMIT_DEFAULT). */
#define WRITE_ZSTD_WINDOW_LOG_MAX 27
/* Frames of fewer bytes keep their literals raw, not Huffman-coded. */
#define WRITE_ZSTD_RAW_LITERALS_BELOW ((size_t)2048)
/* Sets the parameters of a frame of `size` bytes at `level` on a context
 * just reset (zstd.h's ZSTD_CCtx); false when Zstd refuses one. */
struct ZSTD_CCtx_s;
bool zstd_frame_parameters(struct ZSTD_CCtx_s *cctx, size_t size, int level);

/* container_encode.c: the smallest encoding of one payload. */
typedef struct chunk_encoding {
    uint8_t *data; /* malloc'd; NULL when the bytes stay as they are */
    size_t size;
    uint32_t flags; /* kiln_chunk_entry.flags */
} chunk_encoding;
/* Tries Zstd and, when `filter` is not NONE, that meshopt filter with and
 * without Zstd; true with *out when one is smaller than `size` bytes. */
bool chunk_encode(const uint8_t *data, size_t size, uint32_t filter, uint32_t element,
                  cook_container_compress compress, chunk_encoding *out);

/* The XTRA chunk (extras.c): add entries in increasing (object, index)
 * order (NULL or empty texts are skipped), then write the chunk, none when
 * empty. False when out of memory. */
typedef struct extras_table {
    bytebuf entries; /* kiln_extras_entry, offsets into texts */
    bytebuf texts;
} extras_table;
void extras_table_add(extras_table *table, kiln_extras_object object, uint32_t index,
                      const char *text);
bool extras_table_chunk(extras_table *table, container_writer *writer);
void extras_table_free(extras_table *table);

/* The provenance JSON of the META chunk. */
void write_metadata_json(const cook_context *ctx, const char *importer, bytebuf *out);

/* Serialises one mesh, its vertices encoded (encode_mesh_vertices), as a
 * .kmesh file image. */
bool write_kmesh(const cook_context *ctx, const ir_mesh *mesh, const encoded_vertices *vertices,
                 uint32_t material_count, const char *importer, bytebuf *out);
/* The blocks a .kmesh's chunks borrow besides the mesh and its vertices. */
typedef struct kmesh_owned {
    uint8_t *narrowed;      /* 16-bit indices, or NULL */
    kiln_meshlet *meshlets; /* the file's meshlet records */
    bytebuf deltas;         /* the MDLT chunk's payload */
} kmesh_owned;
/* The same file laid out (container_lay_out), not copied: written with
 * container_layout_write(&layout->container, ...) while `mesh` and
 * `vertices` stay unchanged, then freed with kmesh_layout_free. A large
 * mesh's file is never whole in memory. */
typedef struct kmesh_layout {
    container_layout container;
    kmesh_owned owned;
} kmesh_layout;
bool write_kmesh_layout(const cook_context *ctx, const ir_mesh *mesh,
                        const encoded_vertices *vertices, uint32_t material_count,
                        const char *importer, kmesh_layout *out);
void kmesh_layout_free(kmesh_layout *layout);

/* Serialises materials[0..count) as a .kmat file image (row i = material i).
 * `textures` (may be NULL: none) holds count * KILN_MATERIAL_SLOT_COUNT
 * texture ref hashes, 0 for an empty slot. Unsupported extensions named in
 * each material's dropped_extensions go to the MDRP chunk (write/kmat.c). */
bool write_kmat(const cook_context *ctx, const ir_material *materials, uint32_t count,
                const uint64_t *textures, const char *importer, bytebuf *out);
/* One row: factors clamped into kmat.md's ranges, non-finite ones defaulted. */
void write_kmat_row(const ir_material *material, const uint64_t textures[KILN_MATERIAL_SLOT_COUNT],
                    kiln_material *row);

/* Serialises the asset's node graph as a .kscene file image
 * (docs/formats/kscene.md): nodes in depth-first order, the source's scenes (or one
 * of every root). `mesh_refs` holds the ref hash of each of asset->mesh_count
 * cooked meshes (node.mesh indexes it); `material_table` is the ref hash of
 * row 0 of the source's .kmat, or 0 when it has none. The IR must hold its
 * invariants (parents before children, scene roots are roots). */
bool write_kscene(const cook_context *ctx, const ir_asset *asset, const uint64_t *mesh_refs,
                  uint64_t material_table, const char *importer, bytebuf *out);
/* What a level's node links (kscene.md, SLNK): one per IR node. */
typedef struct write_scene_link {
    const char *scene_ref;  /* the ref of the .kscene placed below the node, or NULL */
    const char *components; /* the entity's components as compact JSON, or NULL */
} write_scene_link;
/* write_kscene plus an SLNK chunk from `links` (asset->node_count entries,
 * indexed like asset->nodes), its strings after the scene names. */
bool write_kscene_links(const cook_context *ctx, const ir_asset *asset, const uint64_t *mesh_refs,
                        uint64_t material_table, const char *importer,
                        const write_scene_link *links, bytebuf *out);
/* The tables a scene's nodes index (kscene.md SMSH, SMTL) when they are
 * not one source's: a merged level's, several models' meshes and tables. */
typedef struct write_scene_refs {
    const uint64_t *meshes;    /* asset->mesh_count mesh ref hashes */
    const uint64_t *materials; /* material_count table ref hashes, none 0 */
    uint32_t material_count;
    const int32_t *mesh_materials; /* per mesh: its table in `materials`, or -1 */
} write_scene_refs;
/* write_kscene_links with those tables. */
bool write_kscene_refs(const cook_context *ctx, const ir_asset *asset, const write_scene_refs *refs,
                       const char *importer, const write_scene_link *links, bytebuf *out);

/* The .kscene's node order: order[k] is the IR node stored at file index k,
 * position[i] the file index of IR node i (node_count entries each). False
 * when out of memory. */
bool write_kscene_node_order(const ir_asset *asset, uint32_t *order, uint32_t *position);

/* Serialises the asset's animation clips as a .kanim file image
 * (docs/formats/kanim.md), channels targeting the .kscene's node indices;
 * `scene_ref` is the ref hash of that .kscene. */
bool write_kanim(const cook_context *ctx, const ir_asset *asset, uint64_t scene_ref,
                 const char *importer, bytebuf *out);

/* ---------------------------------------------------------------------------
 * ktx2.c — KTX 2.0 (docs/formats/ktx2.md)
 * ------------------------------------------------------------------------- */

/* The formats, their rows (typeSize, texel block, DFD) and level sizes are
 * common/ktx2_format.h's: ktx2_format_find, ktx2_level_byte_size. */

typedef struct ktx2_image_desc {
    uint32_t vk_format;
    uint32_t width, height, depth; /* depth 0 for 1D/2D textures */
    uint32_t layers;               /* 0 when not an array */
    uint32_t faces;                /* 1, or 6 for a cubemap */
    uint32_t levels;               /* >= 1 */
    uint32_t supercompression;     /* NONE or ZSTD (ZSTD: NONE is written when
                                      Zstd would not make the levels smaller) */
    int zstd_level;
    unsigned threads; /* levels are Zstd-compressed on up to this many threads */
    /* Level i's texels (all layers, faces and slices, in that order),
     * level 0 first, each exactly the size its dimensions give. */
    const uint8_t *const *level_data;
    const size_t *level_size;
    /* Written as key "kilnSource" when not NULL: the source the texels came
     * from (a path relative to the input root, or e.g. "scene.glb image 3"),
     * which `kiln info --quality` compares level 0 against. */
    const char *source;
    /* Written as key "kilnContentSize" ("<w> <h>") when level 0 was padded
     * to whole blocks (texture.block_align: pad): the texels the image covers,
     * from the top-left corner. 0 or the full size: not padded. */
    uint32_t content_width, content_height;
    /* Written as key "kilnTarget" when not NULL: what texture.target_psnr
     * chose and why, which `kiln info --quality` prints. */
    const char *target;
} ktx2_image_desc;

/* Serialises a whole KTX2 file into `out`. */
bool write_ktx2(const ktx2_image_desc *desc, bytebuf *out, char *reason, size_t reason_size);
/* A KTX2's levels packed one at a time, as a texture makes them, so the raw
 * level need not outlive its packing: with `zstd` each level is compressed
 * at once (the raw bytes freed) and the file decides at the end, as
 * write_ktx2 does, whether Zstd is kept (the frames are then inflated as they
 * are written when it is not). Set zstd and zstd_level, zero the rest. */
typedef struct ktx2_packed_levels {
    bool zstd;
    int zstd_level;
    uint8_t *data[KTX2_MAX_LEVELS]; /* Zstd frame, or raw bytes without zstd */
    size_t size[KTX2_MAX_LEVELS];
    size_t raw_size[KTX2_MAX_LEVELS];
} ktx2_packed_levels;

/* Takes `raw` (size bytes of level `level`, all faces; malloc'd): compressed
 * and freed, or kept. False when out of memory (raw is freed either way). */
bool ktx2_pack_level(ktx2_packed_levels *packed, uint32_t level, uint8_t *raw, size_t size);
void ktx2_packed_free(ktx2_packed_levels *packed);
/* The bytes write_ktx2 would make of `desc` (its level_data, level_size and
 * supercompression ignored: every level is packed in `packed`) handed to
 * `sink` in file order. */
bool write_ktx2_packed(const ktx2_image_desc *desc, const ktx2_packed_levels *packed,
                       write_sink sink, void *sink_arg, char *reason, size_t reason_size);
/* ---------------------------------------------------------------------------
 * emit.c — one cooked file into the output tree
 * ------------------------------------------------------------------------- */

typedef struct write_output {
    const char *relative; /* path under the output root */
    const char *name;     /* what messages name: the source, or a texture's source */
    kiln_asset_kind kind; /* MESH, MATERIAL, SCENE or TEXTURE: how --verify reads it back */
    const bytebuf *bytes; /* the whole file, or NULL: `produce` makes it */
    const char *ref;      /* its manifest entry (index 0); NULL: the caller adds them */
    kiln_color_space color_space;
    /* With bytes NULL: the file's bytes handed over as they are made
     * (write_file_atomic_stream), never whole in memory; --verify compares
     * the file read back with their XXH3 hash. */
    write_producer produce;
    void *produce_arg;
    uint64_t produce_size; /* what `produce` will hand over, 0: not known */
} write_output;

/* Writes out->bytes to output_root/out->relative atomically (with a
 * ctx->stage, to a temporary kept there), reads it back through the runtime
 * when `verify`, and records the output, its size and its manifest entry in
 * `result`. On failure reports to ctx->diag naming out->name. */
bool write_emit(cook_context *ctx, const char *output_root, bool verify, const write_output *out,
                cook_asset_result *result);

/* An asset's outputs written and not yet in place: temporaries[i] becomes
 * finals[i] (full paths). */
typedef struct write_stage {
    strlist temporaries;
    strlist finals;
} write_stage;

/* Ends a stage: with `publish`, renames every temporary into place (a
 * rename that fails is a write error in `diag` and `result`, and the rest
 * are dropped); without, deletes them, so the previous outputs stay. */
void write_stage_finish(write_stage *stage, bool publish, cook_diag *diag,
                        cook_asset_result *result);

#endif /* KILN_COOK_WRITE_WRITE_H */
