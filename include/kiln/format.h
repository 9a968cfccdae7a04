/*
 * kiln/format.h — the on-disk structures of kiln's cooked files.
 *
 * One definition shared by the cooker (writer) and the runtime (reader), so the
 * two cannot drift apart. Every structure here is little-endian, has explicit
 * padding, and a size pinned by a static assertion. The specifications with
 * offset tables live in docs/formats/ (container.md, kmesh.md, kman.md, kmat.md,
 * kscene.md, kshader.md); a change here
 * changes the spec and bumps the version constant in the same commit.
 *
 * Includes only <stdint.h>.
 */
#ifndef KILN_FORMAT_H
#define KILN_FORMAT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A fourcc as it appears in the file: the first character is the lowest byte. */
#define KILN_FOURCC(a, b, c, d)                                                                    \
    ((uint32_t)(uint8_t)(a) | ((uint32_t)(uint8_t)(b) << 8) | ((uint32_t)(uint8_t)(c) << 16) |     \
     ((uint32_t)(uint8_t)(d) << 24))

/* ---------------------------------------------------------------------------
 * Container (docs/formats/container.md)
 * ------------------------------------------------------------------------- */

#define KILN_CONTAINER_MAGIC KILN_FOURCC('K', 'I', 'L', 'N')
#define KILN_CONTAINER_VERSION 1u
#define KILN_CHUNK_ALIGNMENT 16u

/* File kinds (kiln_container_header.kind). */
#define KILN_KIND_MESH KILN_FOURCC('M', 'E', 'S', 'H')
#define KILN_KIND_MANIFEST KILN_FOURCC('M', 'A', 'N', 'I')

/* Chunks every kind may carry. */
#define KILN_CHUNK_META KILN_FOURCC('M', 'E', 'T', 'A') /* UTF-8 JSON provenance */
/* Optional: the source's extras and unknown extensions per object, as JSON
 * (container.md XTRA): u32 count, count kiln_extras_entry sorted by
 * (object, index), then the texts, each followed by a NUL. */
#define KILN_CHUNK_EXTRAS KILN_FOURCC('X', 'T', 'R', 'A')

/* Which object of the file an XTRA entry belongs to; index says which one. */
typedef enum kiln_extras_object {
    KILN_EXTRAS_DOCUMENT = 1, /* .kscene: the source file's top level, index 0 */
    KILN_EXTRAS_ASSET = 2,    /* .kscene: glTF `asset`, index 0 */
    KILN_EXTRAS_SCENE = 3,    /* .kscene: scene `index` (kiln_scene_entry) */
    KILN_EXTRAS_MESH = 4,     /* .kmesh: the mesh, index 0 */
    KILN_EXTRAS_MATERIAL = 5, /* .kmat: row `index` */
    /* .kmat: the texture of row r's slot s, index r * KILN_MATERIAL_SLOT_COUNT + s */
    KILN_EXTRAS_TEXTURE = 6,
    /* .kmat: the image (glTF images[i]) that texture samples, same index */
    KILN_EXTRAS_IMAGE = 7,
    KILN_EXTRAS_OBJECT_COUNT_ = 8
} kiln_extras_object;

typedef struct kiln_extras_entry {
    uint32_t object; /* kiln_extras_object */
    uint32_t index;
    uint32_t offset; /* of the text, from the chunk's start */
    uint32_t length; /* bytes of the text, its NUL not counted; > 0 */
} kiln_extras_entry;

/* kiln_container_header.flags */
#define KILN_CONTAINER_FLAG_CHECKSUM 0x1u /* checksum field holds XXH3-64 */
/* Some chunk is encoded (compressed): set exactly when a chunk's flags are
 * not 0, so a reader without chunk decoding rejects the file as a whole. */
#define KILN_CONTAINER_FLAG_ENCODED_CHUNKS 0x2u
#define KILN_CONTAINER_FLAGS_KNOWN 0x3u

typedef struct kiln_container_header {
    uint32_t magic;             /* KILN_CONTAINER_MAGIC ("KILN") */
    uint32_t kind;              /* file kind fourcc, e.g. KILN_KIND_MESH */
    uint16_t container_version; /* KILN_CONTAINER_VERSION */
    uint16_t kind_version;      /* version of the kind's own layout */
    uint32_t flags;             /* KILN_CONTAINER_FLAG_*; unknown bits rejected */
    uint32_t chunk_count;       /* entries in the chunk table */
    uint32_t header_size;       /* sizeof(kiln_container_header) == 48 */
    uint64_t file_size;         /* total bytes, equal to the file's length */
    uint64_t checksum;          /* XXH3-64, see container.md §Checksum */
    uint64_t reserved;          /* zero */
} kiln_container_header;

/* kiln_chunk_entry.flags: how the payload is encoded (container.md, Encoded
 * chunks). 0: stored as is. Otherwise a filter (bits 0-1), whether a Zstd
 * frame wraps the filter's output (bit 2) and the filter's element size
 * (bits 16-31: bytes per vertex, or per index); other bits are rejected. */
#define KILN_CHUNK_FILTER_MASK 0x3u
#define KILN_CHUNK_FILTER_NONE 0x0u             /* the bytes themselves */
#define KILN_CHUNK_FILTER_MESHOPT_VERTEX 0x1u   /* meshopt_encodeVertexBuffer */
#define KILN_CHUNK_FILTER_MESHOPT_INDEX 0x2u    /* meshopt_encodeIndexBuffer (triangles) */
#define KILN_CHUNK_FILTER_MESHOPT_SEQUENCE 0x3u /* meshopt_encodeIndexSequence */
#define KILN_CHUNK_ZSTD 0x4u                    /* one Zstd frame around the filter's output */
#define KILN_CHUNK_ELEMENT_SHIFT 16u            /* filter element size, bytes */
#define KILN_CHUNK_FLAGS_KNOWN 0xFFFF0007u

typedef struct kiln_chunk_entry {
    uint32_t fourcc;
    uint32_t flags;        /* KILN_CHUNK_FILTER_* | KILN_CHUNK_ZSTD | element size; 0: as is */
    uint64_t offset;       /* from the start of the file, multiple of 16 */
    uint64_t size;         /* payload bytes as stored (without padding) */
    uint64_t decoded_size; /* bytes once decoded; 0 when flags is 0 (reserved before) */
} kiln_chunk_entry;

/* ---------------------------------------------------------------------------
 * Mesh, kind MESH (docs/formats/kmesh.md)
 * ------------------------------------------------------------------------- */

#define KILN_MESH_VERSION 5u
#define KILN_MESH_MAX_LODS 8u               /* levels per submesh, level 0 included */
#define KILN_MESH_MAX_MESHLET_VERTICES 255u /* local indices are bytes */
#define KILN_MESH_MAX_MESHLET_TRIANGLES 512u

#define KILN_CHUNK_MESH_DESC KILN_FOURCC('M', 'D', 'S', 'C')      /* kiln_mesh_desc */
#define KILN_CHUNK_MESH_ATTRS KILN_FOURCC('M', 'A', 'T', 'R')     /* kiln_vertex_attribute[] */
#define KILN_CHUNK_MESH_VERTICES KILN_FOURCC('V', 'T', 'X', '0')  /* interleaved stream 0 */
#define KILN_CHUNK_MESH_INDICES KILN_FOURCC('I', 'D', 'X', ' ')   /* u16[] or u32[] */
#define KILN_CHUNK_MESH_SUBMESHES KILN_FOURCC('S', 'U', 'B', 'M') /* kiln_submesh[] */
#define KILN_CHUNK_MESH_LODS KILN_FOURCC('L', 'O', 'D', 'S')      /* kiln_lod[] */
#define KILN_CHUNK_MESH_MESHLETS KILN_FOURCC('M', 'L', 'E', 'T')  /* kiln_meshlet[] */
#define KILN_CHUNK_MESH_MESHLET_VERTICES KILN_FOURCC('M', 'L', 'V', 'X')  /* u32[] */
#define KILN_CHUNK_MESH_MESHLET_TRIANGLES KILN_FOURCC('M', 'L', 'T', 'R') /* u8[3][] */
/* Optional: u32 offsets[submesh_count] (from the chunk's start, or
 * KILN_SUBMESH_UNNAMED), then NUL-terminated UTF-8 names (kmesh.md). */
#define KILN_CHUNK_MESH_SUBMESH_NAMES KILN_FOURCC('S', 'N', 'A', 'M')
#define KILN_SUBMESH_UNNAMED 0xFFFFFFFFu
/* Version 5: morph target deltas, f32x3 per vertex, one block per target and
 * attribute (target-major; position, normal, tangent as morph_attributes
 * has them), each vertex_count * 12 bytes (kmesh.md MDLT). */
#define KILN_CHUNK_MESH_MORPH_DELTAS KILN_FOURCC('M', 'D', 'L', 'T')
/* Optional: u32 offsets[morph_target_count] (or KILN_SUBMESH_UNNAMED), then
 * NUL-terminated UTF-8 names, as SNAM (kmesh.md MNAM). */
#define KILN_CHUNK_MESH_MORPH_NAMES KILN_FOURCC('M', 'N', 'A', 'M')
/* kiln_mesh_desc.morph_attributes: which deltas every target has. */
#define KILN_MORPH_POSITION 1u
#define KILN_MORPH_NORMAL 2u
#define KILN_MORPH_TANGENT 4u
#define KILN_MORPH_ALL_ 7u

/* What a vertex attribute means. 0 is invalid. */
typedef enum kiln_vertex_semantic {
    KILN_SEMANTIC_INVALID = 0,
    KILN_SEMANTIC_POSITION = 1,
    KILN_SEMANTIC_NORMAL = 2,
    KILN_SEMANTIC_TANGENT = 3,
    KILN_SEMANTIC_TEXCOORD0 = 4,
    KILN_SEMANTIC_TEXCOORD1 = 5,
    KILN_SEMANTIC_COLOR0 = 6,
    KILN_SEMANTIC_JOINTS0 = 7,
    KILN_SEMANTIC_WEIGHTS0 = 8,
    /* kmesh.md revision 9: influences 5 to 8 (mesh.skin_influences: 8) */
    KILN_SEMANTIC_JOINTS1 = 9,
    KILN_SEMANTIC_WEIGHTS1 = 10,
    KILN_SEMANTIC_COUNT_ = 11
} kiln_vertex_semantic;

/* How a vertex attribute is stored. 0 is invalid. */
typedef enum kiln_vertex_format {
    KILN_VFORMAT_INVALID = 0,
    KILN_VFORMAT_F32X2 = 1,
    KILN_VFORMAT_F32X3 = 2,
    KILN_VFORMAT_F32X4 = 3,
    KILN_VFORMAT_OCT_SNORM16X2 = 4, /* octahedral unit vector, snorm16 x/y */
    KILN_VFORMAT_UNORM8X4 = 5,
    KILN_VFORMAT_UNORM16X2 = 6,
    KILN_VFORMAT_UNORM16X4 = 7,
    KILN_VFORMAT_SNORM16X4 = 8,
    KILN_VFORMAT_U8X4 = 9,
    KILN_VFORMAT_U16X4 = 10,
    /* Octahedral unit vector plus a sign: x as OCT_SNORM16X2; y' = w * (0.5 +
     * 0.5 * y), never 0, so sign(y') is the handedness w (tangents). */
    KILN_VFORMAT_OCT_SIGNED_SNORM16X2 = 11,
    KILN_VFORMAT_COUNT_ = 12
} kiln_vertex_format;

/* What a submesh's indices draw (kiln_submesh.topology): lists, no strips and
 * no primitive restart. 0 is triangles, so a zero-filled record is the
 * common case. */
typedef enum kiln_topology {
    KILN_TOPOLOGY_TRIANGLES = 0, /* 3 indices per triangle */
    KILN_TOPOLOGY_LINES = 1,     /* 2 indices per line segment */
    KILN_TOPOLOGY_POINTS = 2,    /* 1 index per point */
    KILN_TOPOLOGY_COUNT_ = 3
} kiln_topology;

/* kiln_mesh_desc.flags (kmesh.md). STREAMS: VTX0 holds one tightly packed
 * stream per attribute, in attribute order, each padded to 16 bytes
 * (attribute i has stream i and offset 0); without it, VTX0 is interleaved. */
#define KILN_MESH_FLAG_STREAMS 1u
#define KILN_MESH_FLAGS_KNOWN_ KILN_MESH_FLAG_STREAMS

typedef struct kiln_mesh_desc {
    uint32_t vertex_count;
    uint32_t index_count; /* all levels of detail of every submesh */
    uint32_t index_size;  /* bytes per index: 2 or 4 */
    uint32_t submesh_count;
    uint32_t attribute_count; /* entries in the MATR chunk */
    uint32_t vertex_stride;   /* bytes per vertex in VTX0 (all streams), multiple of 4 */
    uint32_t material_count;  /* material slots; every submesh slot < this */
    uint32_t flags;
    float aabb_min[3];
    float aabb_max[3];
    float sphere[4];                 /* centre x, y, z, radius */
    uint32_t lod_count;              /* levels per submesh, level 0 included (>= 1) */
    uint32_t meshlet_count;          /* entries in MLET */
    uint32_t meshlet_vertex_count;   /* entries in MLVX */
    uint32_t meshlet_triangle_count; /* triangles in MLTR (3 bytes each) */
    uint32_t meshlet_max_vertices;   /* limits the meshlets were built with */
    uint32_t meshlet_max_triangles;
    float position_offset[3]; /* quantised positions: p = offset + scale * q */
    float position_scale[3];  /* (0 and 1 for float positions) */
    /* Version 5 (reserved, 0, before): morph targets and their deltas. */
    uint32_t morph_target_count; /* targets in MDLT (0: none) */
    uint32_t morph_attributes;   /* KILN_MORPH_* bits; 0 exactly when no targets */
} kiln_mesh_desc;

typedef struct kiln_vertex_attribute {
    uint16_t semantic; /* kiln_vertex_semantic */
    uint16_t format;   /* kiln_vertex_format */
    uint16_t stream;   /* 0 interleaved; its index with KILN_MESH_FLAG_STREAMS */
    uint16_t offset;   /* byte offset within a vertex (0 with streams) */
} kiln_vertex_attribute;

typedef struct kiln_submesh {
    uint32_t index_offset;  /* first index of level 0 in IDX */
    uint32_t index_count;   /* level 0, a multiple of the topology's primitive size */
    uint32_t material_slot; /* < kiln_mesh_desc.material_count */
    uint16_t topology;      /* kiln_topology */
    uint16_t flags;         /* none defined yet */
    float aabb_min[3];
    float aabb_max[3];
    float sphere[4];
    uint32_t meshlet_offset; /* first of this submesh's meshlets in MLET */
    uint32_t meshlet_count;
} kiln_submesh;

/* kiln_lod.flags */
#define KILN_LOD_FLAG_REUSED 0x1u /* could not be reduced: same range as the level before */

/* One level of detail of one submesh: entry [submesh * lod_count + level]. */
typedef struct kiln_lod {
    uint32_t index_offset;
    uint32_t index_count;
    float error; /* simplification error, relative to the mesh's extent */
    uint32_t flags;
} kiln_lod;

/* A meshlet: up to meshlet_max_vertices vertices (MLVX entries naming VTX0
 * vertices) and meshlet_max_triangles triangles (MLTR byte triples indexing
 * the meshlet's own vertices), with culling data. */
typedef struct kiln_meshlet {
    uint32_t vertex_offset;   /* first entry in MLVX */
    uint32_t triangle_offset; /* first triangle in MLTR */
    uint32_t vertex_count;
    uint32_t triangle_count;
    float center[3]; /* bounding sphere */
    float radius;
    float cone_apex[3]; /* backface cone: cull if dot(normalize(apex - eye), axis) >= cutoff */
    float cone_cutoff;
    float cone_axis[3];
    int8_t cone_axis_s8[3]; /* the cone quantised to 8 bits (axis, cutoff) */
    int8_t cone_cutoff_s8;
} kiln_meshlet;

/* ---------------------------------------------------------------------------
 * Manifest, kind MANI (docs/formats/kman.md): ref hash -> runtime path
 * ------------------------------------------------------------------------- */

#define KILN_MANIFEST_VERSION 2u /* 2: asset IDs (MIDS, MEID); version 1 is read too */

#define KILN_CHUNK_MANIFEST_ENTRIES KILN_FOURCC('M', 'E', 'N', 'T') /* kiln_manifest_entry[] */
#define KILN_CHUNK_MANIFEST_STRINGS KILN_FOURCC('M', 'S', 'T', 'R') /* NUL-terminated UTF-8 */
#define KILN_CHUNK_MANIFEST_IDS KILN_FOURCC('M', 'I', 'D', 'S')     /* kiln_manifest_id[] */
/* uint32_t per MENT entry: the row in MIDS of the asset that made it, or
 * KILN_MANIFEST_NO_ID. */
#define KILN_CHUNK_MANIFEST_ENTRY_IDS KILN_FOURCC('M', 'E', 'I', 'D')
#define KILN_MANIFEST_NO_ID 0xffffffffu

/* What a ref names. 0 is invalid. */
typedef enum kiln_asset_kind {
    KILN_ASSET_INVALID = 0,
    KILN_ASSET_MESH = 1,
    KILN_ASSET_MATERIAL = 2, /* a row of a material table */
    KILN_ASSET_TEXTURE = 3,
    KILN_ASSET_SCENE = 4,
    KILN_ASSET_ANIMATION = 5,
    KILN_ASSET_SHADER = 6, /* a shader program (.kshader) */
    KILN_ASSET_KIND_COUNT_ = 7
} kiln_asset_kind;

/* Colour space of a texture's texels. */
typedef enum kiln_color_space {
    KILN_COLOR_SPACE_NONE = 0, /* not a texture */
    KILN_COLOR_SPACE_LINEAR = 1,
    KILN_COLOR_SPACE_SRGB = 2,
    KILN_COLOR_SPACE_COUNT_ = 3
} kiln_color_space;

/* One ref, sorted by hash; strings are offsets into MSTR. */
typedef struct kiln_manifest_entry {
    uint64_t hash;        /* FNV-1a 64 of the ref */
    uint32_t path_offset; /* runtime path, relative to the output root */
    uint32_t path_length; /* bytes, without the NUL that follows */
    uint32_t ref_offset;  /* the canonical ref itself */
    uint32_t ref_length;
    uint16_t kind;        /* kiln_asset_kind */
    uint16_t color_space; /* kiln_color_space */
    uint32_t index;       /* row within the file (materials), else 0 */
} kiln_manifest_entry;

/* One asset's stable ID (kiln_asset_id), sorted by (id_hi, id_lo). */
typedef struct kiln_manifest_id {
    uint64_t id_hi;
    uint64_t id_lo;
    uint32_t entry;    /* the MENT index of the asset's main ref */
    uint32_t reserved; /* 0 */
} kiln_manifest_id;

/* ---------------------------------------------------------------------------
 * Materials, kind MATL (docs/formats/kmat.md): one row per material slot
 * ------------------------------------------------------------------------- */

#define KILN_MATERIAL_VERSION 2u /* 2: names (MTNM), samplers, specular, shadow flags */

#define KILN_KIND_MATERIALS KILN_FOURCC('M', 'A', 'T', 'L')
#define KILN_CHUNK_MATERIAL_DESC KILN_FOURCC('M', 'T', 'D', 'S')    /* kiln_material_desc */
#define KILN_CHUNK_MATERIAL_ROWS KILN_FOURCC('M', 'T', 'R', 'W')    /* kiln_material[] */
#define KILN_CHUNK_MATERIAL_DROPPED KILN_FOURCC('M', 'D', 'R', 'P') /* text, see kmat.md */
#define KILN_CHUNK_MATERIAL_NAMES KILN_FOURCC('M', 'T', 'N', 'M')   /* NUL-terminated UTF-8 */
#define KILN_CHUNK_MATERIAL_SOURCES KILN_FOURCC('M', 'S', 'R', 'C') /* u64[]: standalone refs */

/* Texture slots of a material row, in this order. */
typedef enum kiln_material_slot {
    KILN_MATERIAL_SLOT_BASE_COLOR = 0,         /* sRGB RGBA */
    KILN_MATERIAL_SLOT_METALLIC_ROUGHNESS = 1, /* linear: G roughness, B metallic */
    KILN_MATERIAL_SLOT_NORMAL = 2,             /* linear tangent-space normal map */
    KILN_MATERIAL_SLOT_OCCLUSION = 3,          /* linear: R occlusion */
    KILN_MATERIAL_SLOT_EMISSIVE = 4,           /* sRGB RGB */
    KILN_MATERIAL_SLOT_ALPHA = 5,              /* linear: R opacity (MTL map_d) */
    KILN_MATERIAL_SLOT_COUNT = 6
} kiln_material_slot;

typedef enum kiln_alpha_mode {
    KILN_ALPHA_OPAQUE = 0,
    KILN_ALPHA_MASK = 1, /* alpha-tested at alpha_cutoff */
    KILN_ALPHA_BLEND = 2,
    KILN_ALPHA_MODE_COUNT_ = 3
} kiln_alpha_mode;

/* kiln_material.flags */
#define KILN_MATERIAL_FLAG_DOUBLE_SIDED 0x1u
#define KILN_MATERIAL_FLAG_UNLIT 0x2u /* KHR_materials_unlit: base colour only */
#define KILN_MATERIAL_FLAG_CAST_SHADOWS 0x4u
#define KILN_MATERIAL_FLAG_RECEIVE_SHADOWS 0x8u
#define KILN_MATERIAL_FLAG_TRANSPARENT                                                             \
    0x10u /* drawn in the blended pass (default: alpha BLEND)                                      \
           */
#define KILN_MATERIAL_FLAGS_KNOWN 0x1fu

/* How a texture slot is sampled (glTF's sampler, as an engine creates it).
 * 0 is glTF's default: repeat, and linear filtering with linear mips. The
 * wrap values are VkSamplerAddressMode's. */
typedef enum kiln_wrap {
    KILN_WRAP_REPEAT = 0,
    KILN_WRAP_MIRRORED_REPEAT = 1,
    KILN_WRAP_CLAMP_TO_EDGE = 2,
    KILN_WRAP_COUNT_ = 3
} kiln_wrap;

typedef enum kiln_filter {
    KILN_FILTER_LINEAR = 0,
    KILN_FILTER_NEAREST = 1,
    KILN_FILTER_COUNT_ = 2
} kiln_filter;

typedef enum kiln_mip_filter {
    KILN_MIP_LINEAR = 0,
    KILN_MIP_NEAREST = 1,
    KILN_MIP_NONE = 2, /* sample level 0 only */
    KILN_MIP_FILTER_COUNT_ = 3
} kiln_mip_filter;

/* kiln_material_desc.flags: none defined yet. */
typedef struct kiln_material_desc {
    uint32_t material_count; /* rows in MTRW */
    uint32_t row_size;       /* sizeof(kiln_material) == 320 */
    uint32_t flags;
    uint32_t reserved;
} kiln_material_desc;

/* One texture slot: which texture (by ref hash) and how it is sampled. The
 * transform is KHR_texture_transform's: uv' = T(offset) R(rotation) S(scale) uv. */
typedef struct kiln_material_texture {
    uint64_t texture; /* FNV-1a 64 of the texture's ref; 0 = no texture */
    float offset[2];
    float scale[2];
    float rotation;     /* radians, counter-clockwise */
    uint32_t texcoord;  /* UV set: 0 or 1 */
    uint8_t wrap_s;     /* kiln_wrap, along U */
    uint8_t wrap_t;     /* kiln_wrap, along V */
    uint8_t mag_filter; /* kiln_filter */
    uint8_t min_filter; /* kiln_filter */
    uint8_t mip_filter; /* kiln_mip_filter */
    uint8_t reserved[3];
} kiln_material_texture;

/* One metallic-roughness material (glTF 2.0's model). */
typedef struct kiln_material {
    float base_color[4]; /* linear RGBA factor */
    float emissive[3];   /* linear RGB factor, emissive strength applied */
    float metallic;
    float roughness;
    float normal_scale;
    float occlusion_strength;
    float alpha_cutoff;  /* MASK only */
    uint32_t alpha_mode; /* kiln_alpha_mode */
    uint32_t flags;      /* KILN_MATERIAL_FLAG_* */
    uint32_t name;       /* byte offset of the source's name in MTNM; 0: "" */
    uint32_t reserved;
    float specular_color[3]; /* KHR_materials_specular's colour factor (default 1, 1, 1) */
    float specular;          /* KHR_materials_specular's strength factor (default 1) */
    kiln_material_texture textures[KILN_MATERIAL_SLOT_COUNT];
} kiln_material;

/* ---------------------------------------------------------------------------
 * Scene, kind SCEN (docs/formats/kscene.md): a node graph in depth-first order
 * ------------------------------------------------------------------------- */

/* 2: instances (SINS, SINR, instance_count); cameras, lights. 3: nodes in
 * depth-first pre-order, each subtree a range (subtree_end); no level table. */
#define KILN_SCENE_VERSION 3u

#define KILN_KIND_SCENE KILN_FOURCC('S', 'C', 'E', 'N')
#define KILN_CHUNK_SCENE_DESC KILN_FOURCC('S', 'D', 'S', 'C')       /* kiln_scene_desc */
#define KILN_CHUNK_SCENE_HIERARCHY KILN_FOURCC('S', 'H', 'I', 'E')  /* kiln_scene_hierarchy[] */
#define KILN_CHUNK_SCENE_TRANSFORMS KILN_FOURCC('S', 'T', 'R', 'S') /* kiln_scene_transform[] */
#define KILN_CHUNK_SCENE_NODES KILN_FOURCC('S', 'N', 'O', 'D')      /* kiln_scene_node[] */
#define KILN_CHUNK_SCENE_MESHES KILN_FOURCC('S', 'M', 'S', 'H')     /* u64[]: mesh ref hashes */
#define KILN_CHUNK_SCENE_MATERIALS KILN_FOURCC('S', 'M', 'T', 'L')  /* u64[]: .kmat refs */
#define KILN_CHUNK_SCENE_SCENES KILN_FOURCC('S', 'S', 'C', 'N')     /* kiln_scene_entry[] */
#define KILN_CHUNK_SCENE_ROOTS KILN_FOURCC('S', 'R', 'O', 'T')      /* u32[]: root nodes */
#define KILN_CHUNK_SCENE_STRINGS KILN_FOURCC('S', 'S', 'T', 'R')    /* NUL-terminated UTF-8 */
#define KILN_CHUNK_SCENE_LINKS KILN_FOURCC('S', 'L', 'N', 'K')      /* kiln_scene_link[] (levels) */
#define KILN_CHUNK_SCENE_CAMERAS KILN_FOURCC('S', 'C', 'A', 'M')    /* kiln_scene_camera[] */
#define KILN_CHUNK_SCENE_LIGHTS KILN_FOURCC('S', 'L', 'G', 'T')     /* kiln_scene_light[] */
#define KILN_CHUNK_SCENE_INSTANCES KILN_FOURCC('S', 'I', 'N', 'S')  /* kiln_scene_transform[] */
#define KILN_CHUNK_SCENE_INSTANCE_RANGES KILN_FOURCC('S', 'I', 'N', 'R') /* per node */

/* kiln_scene_camera.type */
typedef enum kiln_camera_type {
    KILN_CAMERA_PERSPECTIVE = 0,
    KILN_CAMERA_ORTHOGRAPHIC = 1
} kiln_camera_type;

/* kiln_scene_light.type (KHR_lights_punctual) */
typedef enum kiln_light_type {
    KILN_LIGHT_DIRECTIONAL = 0,
    KILN_LIGHT_POINT = 1,
    KILN_LIGHT_SPOT = 2
} kiln_light_type;

/* Revision 3: skins. SSKN holds skin_count kiln_scene_skin, SJNT their joints
 * (each skin's a range, the ranges tiling SJNT in order). */
#define KILN_CHUNK_SCENE_SKINS KILN_FOURCC('S', 'S', 'K', 'N')  /* kiln_scene_skin[] */
#define KILN_CHUNK_SCENE_JOINTS KILN_FOURCC('S', 'J', 'N', 'T') /* kiln_scene_joint[] */

/* kiln_scene_node.flags */
#define KILN_SCENE_NODE_FLAG_SKINNED 0x1u /* the source skins its mesh: joints place it */
#define KILN_SCENE_NODE_FLAGS_KNOWN 0x1u

/* Every count of the file. */
typedef struct kiln_scene_desc {
    uint32_t node_count;
    uint32_t level_count;    /* depth levels: deepest depth + 1 (0 without nodes) */
    uint32_t scene_count;    /* entries in SSCN */
    int32_t default_scene;   /* index into SSCN, or -1 when there are no scenes */
    uint32_t root_count;     /* entries in SROT (all scenes' roots) */
    uint32_t mesh_count;     /* entries in SMSH */
    uint32_t material_count; /* entries in SMTL */
    uint32_t skin_count;
    uint32_t camera_count;
    uint32_t light_count;
    uint32_t strings_size;   /* bytes in SSTR */
    uint32_t flags;          /* none defined yet */
    uint32_t instance_count; /* entries in SINS (version 2; reserved, 0, in version 1) */
    uint32_t reserved[3];
} kiln_scene_desc;

/* Where node i sits. Nodes are in depth-first pre-order: each node's subtree
 * is the range i .. subtree_end - 1 right after it, so a parent precedes its
 * children (one forward pass computes every global transform) and a subtree
 * is recomputed by streaming its range. */
typedef struct kiln_scene_hierarchy {
    int32_t parent;       /* -1 for a root (depth 0) */
    int32_t first_child;  /* i + 1 when the node has children, else -1 */
    uint32_t subtree_end; /* one past its last descendant (i + 1 for a leaf) */
    int32_t next_sibling; /* subtree_end when that is the next child of the same parent, else -1
                             (always -1 for roots) */
    uint32_t depth;       /* 0 for roots, the parent's depth + 1 otherwise */
    uint32_t reserved;
} kiln_scene_hierarchy;

/* A local transform, relative to the parent: M = T * R * S (glTF's order). */
typedef struct kiln_scene_transform {
    float translation[3];
    float rotation[4]; /* unit quaternion x, y, z, w */
    float scale[3];
} kiln_scene_transform;

/* What a node carries besides its transform. Indices are -1 for none. */
typedef struct kiln_scene_node {
    int32_t mesh;         /* into SMSH */
    int32_t materials;    /* into SMTL: the material table the mesh's slots index */
    int32_t skin;         /* into SSKN: the skin placing the mesh's vertices */
    int32_t camera;       /* into SCAM */
    int32_t light;        /* into SLGT */
    int32_t source;       /* the node's index in the source file; -1 when the cooker made it */
    uint32_t name_offset; /* into SSTR */
    uint32_t name_length;
    uint32_t extras_offset; /* glTF node extras as JSON text, in SSTR */
    uint32_t extras_length; /* 0: none */
    uint32_t flags;         /* KILN_SCENE_NODE_FLAG_* */
    uint32_t reserved;
} kiln_scene_node;

/* What a node of a level instantiates and carries (SLNK, document revision
 * 2): node i's entry, when the file has the chunk. */
typedef struct kiln_scene_link {
    uint64_t scene;             /* ref hash of the .kscene placed below the node; 0: none */
    uint32_t ref_offset;        /* that ref ("models/truck/scene") in SSTR; 0 with scene 0 */
    uint32_t ref_length;        /* bytes, without the NUL; 0 exactly when scene is 0 */
    uint32_t components_offset; /* the entity's components as compact JSON in SSTR */
    uint32_t components_length; /* 0: none (and components_offset 0) */
    uint32_t flags;             /* none defined: 0 */
    uint32_t reserved;
} kiln_scene_link;

/* A skin: a range of SJNT. A skinned vertex's joint index j names joint
 * joint_offset + j. */
typedef struct kiln_scene_skin {
    uint32_t joint_offset; /* first joint in SJNT: the previous skin's end (0 for skin 0) */
    uint32_t joint_count;  /* at least 1 */
    int32_t skeleton;      /* the skeleton's root node (glTF skin.skeleton), or -1 */
    int32_t source;        /* the skin's index in the source file; -1 when the cooker made it */
    uint32_t name_offset;  /* into SSTR */
    uint32_t name_length;
    uint32_t root_joint; /* the first joint without a joint ancestor: weightless vertices' */
    uint32_t reserved;
} kiln_scene_skin;

/* A joint of a skin: skinning matrix = world(node) * inverse_bind. */
typedef struct kiln_scene_joint {
    uint32_t node;  /* the joint's node */
    int32_t parent; /* the nearest ancestor joint of the same skin (index within the skin), or -1 */
    uint32_t reserved[2];
    float inverse_bind[16]; /* column-major; affine (last row 0 0 0 1) */
} kiln_scene_joint;

/* One scene of the source (glTF scenes[i]): a name and its root nodes. */
typedef struct kiln_scene_entry {
    uint32_t name_offset; /* into SSTR */
    uint32_t name_length;
    uint32_t root_offset; /* first of its roots in SROT */
    uint32_t root_count;
} kiln_scene_entry;

/* A camera (SCAM). It looks down its node's -Z axis with +Y up (glTF). */
typedef struct kiln_scene_camera {
    uint32_t type;        /* kiln_camera_type */
    uint32_t name_offset; /* into SSTR */
    uint32_t name_length;
    float yfov;   /* perspective: vertical field of view in radians; 0 for orthographic */
    float aspect; /* perspective: width / height, 0 = the viewport's; 0 for orthographic */
    float xmag;   /* orthographic: half width (not 0); 0 for perspective */
    float ymag;   /* orthographic: half height (not 0); 0 for perspective */
    float znear;  /* perspective > 0, orthographic >= 0 */
    float zfar;   /* > znear; 0 = infinite (perspective only) */
    uint32_t reserved[3];
} kiln_scene_camera;

/* A punctual light (SLGT, KHR_lights_punctual). Directional and spot lights
 * shine down their node's -Z axis. */
typedef struct kiln_scene_light {
    uint32_t type;        /* kiln_light_type */
    uint32_t name_offset; /* into SSTR */
    uint32_t name_length;
    float color[3];   /* linear RGB, each in [0, 1] */
    float intensity;  /* candela (point, spot) or lux (directional), >= 0 */
    float range;      /* > 0, or 0 = infinite */
    float inner_cone; /* spot: 0 <= inner < outer <= pi/2 radians; 0 for the others */
    float outer_cone;
    uint32_t reserved[2];
} kiln_scene_light;

/* A node's instances (SINR, one per node when instance_count > 0): SINS
 * entries first .. first + count - 1, each relative to the node. */
typedef struct kiln_scene_instance_range {
    uint32_t first;
    uint32_t count;
} kiln_scene_instance_range;
/* ---------------------------------------------------------------------------
 * Shader, kind SHDR (docs/formats/kshader.md): one program, SPIR-V per stage
 * with reflection
 * ------------------------------------------------------------------------- */

#define KILN_SHADER_VERSION 1u
#define KILN_SPIRV_MAGIC 0x07230203u

#define KILN_KIND_SHADER KILN_FOURCC('S', 'H', 'D', 'R')
#define KILN_CHUNK_SHADER_DESC KILN_FOURCC('S', 'H', 'D', 'S')     /* kiln_shader_desc */
#define KILN_CHUNK_SHADER_STAGES KILN_FOURCC('S', 'S', 'T', 'G')   /* kiln_shader_stage_desc[] */
#define KILN_CHUNK_SHADER_CODE KILN_FOURCC('S', 'P', 'R', 'V')     /* u32[]: SPIR-V words */
#define KILN_CHUNK_SHADER_IO KILN_FOURCC('S', 'V', 'I', 'O')       /* kiln_shader_io[] */
#define KILN_CHUNK_SHADER_BINDINGS KILN_FOURCC('S', 'B', 'N', 'D') /* kiln_shader_binding[] */
#define KILN_CHUNK_SHADER_PUSH KILN_FOURCC('S', 'P', 'S', 'H')     /* kiln_shader_push_constant[] */
#define KILN_CHUNK_SHADER_SPEC KILN_FOURCC('S', 'S', 'P', 'C')     /* kiln_shader_spec_constant[] */
#define KILN_CHUNK_SHADER_STRINGS KILN_FOURCC('S', 'H', 'S', 'T')  /* NUL-terminated UTF-8 */
/* Document revision 2: per push-constant block its instance name (optional). */
#define KILN_CHUNK_SHADER_PUSH_INSTANCES                                                           \
    KILN_FOURCC('S', 'P', 'S', 'I') /* kiln_shader_push_instance[] */

/* A pipeline stage; its bit in a stage mask is 1 << stage. */
typedef enum kiln_shader_stage {
    KILN_SHADER_STAGE_VERTEX = 0,
    KILN_SHADER_STAGE_TESS_CONTROL = 1,
    KILN_SHADER_STAGE_TESS_EVALUATION = 2,
    KILN_SHADER_STAGE_GEOMETRY = 3,
    KILN_SHADER_STAGE_FRAGMENT = 4,
    KILN_SHADER_STAGE_COMPUTE = 5,
    KILN_SHADER_STAGE_TASK = 6,
    KILN_SHADER_STAGE_MESH = 7,
    KILN_SHADER_STAGE_RAYGEN = 8,
    KILN_SHADER_STAGE_ANY_HIT = 9,
    KILN_SHADER_STAGE_CLOSEST_HIT = 10,
    KILN_SHADER_STAGE_MISS = 11,
    KILN_SHADER_STAGE_INTERSECTION = 12,
    KILN_SHADER_STAGE_CALLABLE = 13,
    KILN_SHADER_STAGE_COUNT_ = 14
} kiln_shader_stage;

/* The Vulkan version the SPIR-V was compiled for (shader.target). */
typedef enum kiln_shader_target {
    KILN_SHADER_TARGET_VULKAN_1_0 = 0,
    KILN_SHADER_TARGET_VULKAN_1_1 = 1,
    KILN_SHADER_TARGET_VULKAN_1_2 = 2,
    KILN_SHADER_TARGET_VULKAN_1_3 = 3,
    KILN_SHADER_TARGET_COUNT_ = 4
} kiln_shader_target;

/* A descriptor's type, in SPIRV-Cross's terms. 0 is invalid. */
typedef enum kiln_binding_type {
    KILN_BINDING_INVALID = 0,
    KILN_BINDING_UNIFORM_BUFFER = 1,
    KILN_BINDING_STORAGE_BUFFER = 2,
    KILN_BINDING_SAMPLED_IMAGE = 3, /* combined image sampler (and texel buffer) */
    KILN_BINDING_SEPARATE_IMAGE = 4,
    KILN_BINDING_SEPARATE_SAMPLER = 5,
    KILN_BINDING_STORAGE_IMAGE = 6,
    KILN_BINDING_SUBPASS_INPUT = 7,
    KILN_BINDING_ACCELERATION_STRUCTURE = 8,
    KILN_BINDING_TYPE_COUNT_ = 9
} kiln_binding_type;

/* The scalar type of a stage input/output or specialization constant. */
typedef enum kiln_shader_base_type {
    KILN_SHADER_TYPE_UNKNOWN = 0,
    KILN_SHADER_TYPE_BOOL = 1,
    KILN_SHADER_TYPE_INT8 = 2,
    KILN_SHADER_TYPE_UINT8 = 3,
    KILN_SHADER_TYPE_INT16 = 4,
    KILN_SHADER_TYPE_UINT16 = 5,
    KILN_SHADER_TYPE_INT32 = 6,
    KILN_SHADER_TYPE_UINT32 = 7,
    KILN_SHADER_TYPE_INT64 = 8,
    KILN_SHADER_TYPE_UINT64 = 9,
    KILN_SHADER_TYPE_FLOAT16 = 10,
    KILN_SHADER_TYPE_FLOAT32 = 11,
    KILN_SHADER_TYPE_FLOAT64 = 12,
    KILN_SHADER_TYPE_STRUCT = 13, /* a block: vecsize and columns are 0 */
    KILN_SHADER_TYPE_COUNT_ = 14
} kiln_shader_base_type;

/* Every count of the file. */
typedef struct kiln_shader_desc {
    uint32_t stage_count; /* entries in SSTG, 1..14, each stage at most once */
    uint32_t stage_mask;  /* OR of 1 << stage over SSTG */
    uint32_t target;      /* kiln_shader_target */
    uint32_t flags;       /* none defined yet */
    uint32_t code_words;  /* u32 words in SPRV */
    uint32_t io_count;    /* entries in SVIO */
    uint32_t binding_count;
    uint32_t push_constant_count;
    uint32_t spec_constant_count;
    uint32_t strings_size; /* bytes in SHST */
    uint32_t reserved[6];
} kiln_shader_desc;

/* One stage of the program, in pipeline order (ascending kiln_shader_stage).
 * Ranges index SPRV (in words), SVIO, SPSH and SSPC. */
typedef struct kiln_shader_stage_desc {
    uint32_t stage;        /* kiln_shader_stage */
    uint32_t flags;        /* none defined yet */
    uint32_t entry_offset; /* entry point name in SHST */
    uint32_t entry_length;
    uint32_t code_offset; /* first word of this stage's module in SPRV */
    uint32_t code_words;
    uint32_t input_offset; /* stage inputs (by location) in SVIO */
    uint32_t input_count;
    uint32_t output_offset; /* stage outputs (by location) in SVIO */
    uint32_t output_count;
    uint32_t push_offset; /* push-constant ranges in SPSH */
    uint32_t push_count;
    uint32_t spec_offset; /* specialization constants in SSPC */
    uint32_t spec_count;
    uint32_t workgroup_size[3]; /* compute, task, mesh; else 0 */
    uint32_t reserved[3];
} kiln_shader_stage_desc;

/* A user-defined stage input or output (built-ins are not listed). */
typedef struct kiln_shader_io {
    uint32_t location;
    uint32_t name_offset; /* into SHST */
    uint32_t name_length;
    uint16_t base_type;  /* kiln_shader_base_type */
    uint8_t vecsize;     /* components: 1-4 */
    uint8_t columns;     /* 1, or 2-4 for a matrix */
    uint32_t array_size; /* 0: not an array */
    uint32_t flags;      /* none defined yet */
} kiln_shader_io;

/* One descriptor of the program: every stage that uses (set, binding). */
typedef struct kiln_shader_binding {
    uint32_t set;
    uint32_t binding;
    uint32_t type;        /* kiln_binding_type */
    uint32_t count;       /* descriptors: 1, the array size, or 0 for a runtime-sized array */
    uint32_t stages;      /* stage mask */
    uint32_t name_offset; /* into SHST: the block's type name for buffers, else the variable's */
    uint32_t name_length;
    uint32_t block_size; /* declared bytes of a buffer block (0 for others) */
} kiln_shader_binding;

/* A push-constant block of one stage: the bytes [offset, offset + size) it uses. */
typedef struct kiln_shader_push_constant {
    uint32_t offset;
    uint32_t size;
    uint32_t name_offset; /* into SHST: the block's type name (as for buffers' bindings) */
    uint32_t name_length;
} kiln_shader_push_constant;

/* The variable of a push-constant block (SPSI, parallel to SPSH): its
 * instance name, "" for an anonymous block. */
typedef struct kiln_shader_push_instance {
    uint32_t name_offset; /* into SHST */
    uint32_t name_length;
} kiln_shader_push_instance;

/* A specialization constant of one stage. */
typedef struct kiln_shader_spec_constant {
    uint32_t constant_id;
    uint32_t base_type;     /* kiln_shader_base_type: a scalar */
    uint32_t default_value; /* its bits (the low 32 for 64-bit types) */
    uint32_t name_offset;   /* into SHST */
    uint32_t name_length;
    uint32_t reserved;
} kiln_shader_spec_constant;

/* ---------------------------------------------------------------------------
 * Animation clips, kind ANIM (docs/formats/kanim.md): every clip of a source
 * ------------------------------------------------------------------------- */

#define KILN_ANIM_VERSION 2u /* 2: quantized channels (AQNT), clip errors (AERR), shared times */

#define KILN_KIND_ANIM KILN_FOURCC('A', 'N', 'I', 'M')
#define KILN_CHUNK_ANIM_DESC KILN_FOURCC('A', 'D', 'S', 'C')      /* kiln_anim_desc */
#define KILN_CHUNK_ANIM_CLIPS KILN_FOURCC('A', 'C', 'L', 'P')     /* kiln_anim_clip[] */
#define KILN_CHUNK_ANIM_CHANNELS KILN_FOURCC('A', 'C', 'H', 'N')  /* kiln_anim_channel[] */
#define KILN_CHUNK_ANIM_TIMES KILN_FOURCC('A', 'T', 'I', 'M')     /* f32[]: key times */
#define KILN_CHUNK_ANIM_VALUES KILN_FOURCC('A', 'V', 'A', 'L')    /* f32[]: key values */
#define KILN_CHUNK_ANIM_MORPHS KILN_FOURCC('A', 'M', 'P', 'H')    /* kiln_anim_morph[] */
#define KILN_CHUNK_ANIM_WEIGHTS KILN_FOURCC('A', 'W', 'G', 'T')   /* f32[]: default weights */
#define KILN_CHUNK_ANIM_STRINGS KILN_FOURCC('A', 'S', 'T', 'R')   /* NUL-terminated UTF-8 */
#define KILN_CHUNK_ANIM_QUANTIZED KILN_FOURCC('A', 'Q', 'N', 'T') /* u16[]: quantized keys */
#define KILN_CHUNK_ANIM_ERRORS KILN_FOURCC('A', 'E', 'R', 'R')    /* kiln_anim_clip_error[] */

/* What a channel drives. */
typedef enum kiln_anim_path {
    KILN_ANIM_TRANSLATION = 0, /* 3 components */
    KILN_ANIM_ROTATION = 1,    /* 4: quaternion x y z w */
    KILN_ANIM_SCALE = 2,       /* 3 */
    KILN_ANIM_WEIGHTS = 3,     /* the node's morph target count */
    KILN_ANIM_PATH_COUNT_ = 4
} kiln_anim_path;

/* How values between keys are found (glTF 2.0 Appendix C). */
typedef enum kiln_anim_interpolation {
    KILN_ANIM_LINEAR = 0,
    KILN_ANIM_STEP = 1,
    KILN_ANIM_CUBICSPLINE = 2, /* per key: in tangent, value, out tangent */
    KILN_ANIM_INTERPOLATION_COUNT_ = 3
} kiln_anim_interpolation;

/* How a channel's key values are stored (version 2). */
typedef enum kiln_anim_encoding {
    KILN_ANIM_FLOAT = 0,     /* f32 in AVAL */
    KILN_ANIM_QUANTIZED = 1, /* 3 x u16 per key in AQNT: rotations smallest-three (48 bits),
                              * translations and scales min + q * step (range in AVAL) */
    KILN_ANIM_ENCODING_COUNT_ = 2
} kiln_anim_encoding;

typedef struct kiln_anim_desc {
    uint32_t clip_count;    /* entries in ACLP */
    uint32_t channel_count; /* entries in ACHN, every clip's */
    uint32_t time_count;    /* floats in ATIM */
    uint32_t value_count;   /* floats in AVAL */
    uint32_t node_count;    /* nodes of the scene the channels target */
    uint32_t morph_count;   /* entries in AMPH */
    uint32_t weight_count;  /* floats in AWGT: every morph node's weights */
    uint32_t strings_size;  /* bytes in ASTR */
    uint64_t scene;         /* ref hash of the .kscene the channels target */
    uint32_t flags;         /* none defined yet */
    uint32_t quant_count;   /* u16 words in AQNT (version 2; 0 in version 1) */
    uint32_t reserved[4];
} kiln_anim_desc;

/* A clip: a range of channels. */
typedef struct kiln_anim_clip {
    uint32_t name_offset; /* into ASTR */
    uint32_t name_length;
    uint32_t first_channel; /* clips' channel ranges follow each other in order */
    uint32_t channel_count;
    float start;             /* the earliest key time of its channels (0 without channels) */
    float duration;          /* the latest key time (0 without channels) */
    uint32_t dropped_offset; /* into ASTR: what the source clip held that was not cooked */
    uint32_t dropped_length; /* 0: nothing */
} kiln_anim_clip;

/* One animated property of one node. */
typedef struct kiln_anim_channel {
    uint32_t node;         /* .kscene node index */
    int32_t source_node;   /* the node's index in the source file, or -1 */
    uint8_t path;          /* kiln_anim_path */
    uint8_t interpolation; /* kiln_anim_interpolation */
    uint16_t components;   /* values per key (per group for CUBICSPLINE) */
    uint32_t key_count;    /* at least 1 */
    uint32_t time_offset;  /* first of key_count floats in ATIM */
    uint32_t value_offset; /* FLOAT: first of key_count * components (x 3 CUBICSPLINE) in AVAL;
                            * QUANTIZED: first of key_count * 3 u16 in AQNT */
    union {
        uint32_t weight_offset; /* WEIGHTS: the node's first weight in a pose */
        uint32_t range_offset;  /* QUANTIZED translation / scale: min xyz, step xyz in AVAL */
    };                          /* else 0 */
    uint8_t encoding;           /* kiln_anim_encoding (version 2; 0 in version 1) */
    uint8_t reserved[3];
} kiln_anim_channel;

/* What a clip lost against its source (anim.reduce, anim.quantize), measured
 * by the cooker at every source key time and three points between each two
 * (version 2; all 0 for an exact clip). */
typedef struct kiln_anim_clip_error {
    float translation; /* largest distance, scene units */
    float rotation;    /* largest angle between the rotations, radians */
    float scale;       /* largest difference of a component */
    float weights;     /* largest difference of a morph weight */
} kiln_anim_clip_error;

/* A node whose mesh has morph targets: its weights' place in a pose and in
 * AWGT (its default weights). */
typedef struct kiln_anim_morph {
    uint32_t node;
    uint32_t weight_offset;
    uint32_t weight_count;
    uint32_t reserved;
} kiln_anim_morph;

/* Sizes are part of the format: a change is a version bump. */
#if defined(__cplusplus)
#define KILN_FORMAT_ASSERT_(c, m) static_assert(c, m)
#else
#define KILN_FORMAT_ASSERT_(c, m) _Static_assert(c, m)
#endif
KILN_FORMAT_ASSERT_(sizeof(kiln_container_header) == 48, "container header is 48 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_chunk_entry) == 32, "chunk entry is 32 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_mesh_desc) == 128, "mesh descriptor is 128 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_vertex_attribute) == 8, "vertex attribute is 8 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_submesh) == 64, "submesh is 64 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_lod) == 16, "lod is 16 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_meshlet) == 64, "meshlet is 64 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_manifest_entry) == 32, "manifest entry is 32 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_manifest_id) == 24, "manifest ID row is 24 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_material_desc) == 16, "material descriptor is 16 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_material_texture) == 40, "material texture slot is 40 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_material) == 320, "material row is 320 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_scene_desc) == 64, "scene descriptor is 64 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_scene_hierarchy) == 24, "scene hierarchy record is 24 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_scene_transform) == 40, "scene transform is 40 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_scene_node) == 48, "scene node is 48 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_scene_entry) == 16, "scene entry is 16 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_scene_link) == 32, "scene link is 32 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_scene_camera) == 48, "scene camera is 48 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_scene_light) == 48, "scene light is 48 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_scene_instance_range) == 8, "instance range is 8 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_shader_desc) == 64, "shader descriptor is 64 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_shader_stage_desc) == 80, "shader stage is 80 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_shader_io) == 24, "shader input/output is 24 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_shader_binding) == 32, "shader binding is 32 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_shader_push_constant) == 16, "push-constant range is 16 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_shader_push_instance) == 8, "push-constant instance is 8 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_shader_spec_constant) == 24, "spec constant is 24 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_scene_skin) == 32, "scene skin is 32 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_scene_joint) == 80, "scene joint is 80 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_anim_desc) == 64, "animation descriptor is 64 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_anim_clip) == 32, "animation clip is 32 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_anim_channel) == 32, "animation channel is 32 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_anim_morph) == 16, "animation morph node is 16 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_anim_clip_error) == 16, "animation clip error is 16 bytes");

/* ---------------------------------------------------------------------------
 * Pack (.kpak): a whole runtime tree in one file (docs/formats/kpak.md).
 * Not a container: a header, a path-sorted table of contents, a string table
 * of paths, then 16-byte aligned payloads in table order.
 * ------------------------------------------------------------------------- */

#define KILN_PACK_MAGIC "KILNPAK" /* 8 bytes with the NUL */
#define KILN_PACK_VERSION 3u      /* 2: kind 5, scene; 3: kind 6, shader, and 7, anim */
#define KILN_PACK_ALIGNMENT 16u
#define KILN_PACK_MAX_PATH 4096u

/* What an entry holds, from its file name (kpak.md "Kinds"). */
typedef enum kiln_pack_kind {
    KILN_PACK_OTHER = 0,
    KILN_PACK_MESH = 1,     /* .kmesh */
    KILN_PACK_MATERIAL = 2, /* .kmat */
    KILN_PACK_TEXTURE = 3,  /* .ktx2 */
    KILN_PACK_MANIFEST = 4, /* assets.kman */
    KILN_PACK_SCENE = 5,    /* .kscene */
    KILN_PACK_SHADER = 6,   /* .kshader */
    KILN_PACK_ANIM = 7,     /* .kanim */
    KILN_PACK_KIND_COUNT_ = 8
} kiln_pack_kind;

typedef struct kiln_pack_header {
    char magic[8];    /* KILN_PACK_MAGIC, NUL-padded */
    uint32_t version; /* KILN_PACK_VERSION */
    uint32_t entry_count;
    uint64_t toc_offset;     /* = sizeof(kiln_pack_header) */
    uint64_t strings_offset; /* = toc_offset + entry_count * sizeof(kiln_pack_entry_disk) */
    uint64_t strings_size;   /* paths, each followed by one NUL */
    uint64_t payload_offset; /* strings end rounded up to KILN_PACK_ALIGNMENT */
    uint64_t file_size;      /* the whole file */
    uint64_t reserved;       /* 0 */
} kiln_pack_header;

typedef struct kiln_pack_entry_disk {
    uint64_t offset;      /* from the start of the file, a multiple of 16 */
    uint64_t size;        /* payload bytes (padding excluded) */
    uint32_t path_offset; /* into the string table */
    uint16_t path_length; /* bytes, without the NUL */
    uint16_t kind;        /* kiln_pack_kind */
    uint64_t reserved;    /* 0 */
} kiln_pack_entry_disk;

KILN_FORMAT_ASSERT_(sizeof(kiln_pack_header) == 64, "pack header is 64 bytes");
KILN_FORMAT_ASSERT_(sizeof(kiln_pack_entry_disk) == 32, "pack entry is 32 bytes");

#ifdef __cplusplus
}
#endif

#endif /* KILN_FORMAT_H */
