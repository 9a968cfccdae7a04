/* fuzz_assimp_scene.c — kiln's conversion of an assimp scene into its IR
 * (assimp_convert_scene: assimp.c and assimp_anim.c) on an aiScene built from
 * the fuzz bytes, without assimp's readers.
 *
 * Why: fuzz_assimp runs the whole importer, but assimp's own parsers crash or
 * loop every few hundred inputs, take milliseconds per input and give
 * libFuzzer no coverage; so the ~2,900 lines that trust assimp's output were
 * barely reached. Here every aiScene field kiln reads comes straight from the
 * bytes: arrays match their counts (assimp guarantees that), values do not
 * (floats bit for bit, so NaN and inf; names from a small pool, so repeated,
 * empty or naming nothing; indices raw unless the scene is "validated").
 *
 * The first byte's bit 0 picks the shape: a scene assimp validated
 * (aiProcess_ValidateDataStructure: face and bone vertex indices, node mesh
 * indices and material indices in range, faces of 1-3 corners, a material
 * when there are meshes) or one kiln re-reads without validation (a point
 * cloud: any index, faces of 0-5 corners). Materials are aiMaterialProperty
 * arrays as assimp's own C getters (aiGetMaterialFloatArray, ...String,
 * ...Texture) read them: well-formed per type (a string is a u32 length, the
 * bytes and a NUL), any key, semantic and value.
 *
 * Checked beyond "no crash": the conversion fails only with an error and
 * succeeds only without one; what it returns holds ir.h's invariants
 * (check_asset, written here from ir.h, independent of kiln's own checks),
 * and passes ir_wire_read, which is what a build does with it: the isolated
 * importer's child sends the IR to the parent, which refuses one that breaks
 * them. Any violation aborts, so libFuzzer reports it.
 *
 * Everything is allocated here and freed here; assimp allocates nothing (its
 * aiReleaseImport is never called on this scene). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <assimp/scene.h>

#include "cook/import/assimp_convert.h"
#include "cook/import/isolate.h"
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---------------------------------------------------------------------------
 * Reading the bytes (a small FuzzedDataProvider): past the end, zeros.
 * ------------------------------------------------------------------------- */

typedef struct fdp {
    const uint8_t *data;
    size_t size, pos;
} fdp;

static uint8_t take_u8(fdp *in) {
    return in->pos < in->size ? in->data[in->pos++] : 0;
}

static uint32_t take_u32(fdp *in) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)take_u8(in) << (8 * i);
    return v;
}

static unsigned take_count(fdp *in, unsigned max) {
    return take_u8(in) % (max + 1);
}

/* One byte picks a value that matters (0, 1, NaN, inf, FLT_MAX, denormals),
 * a small multiple of 1/8, or the next four bytes' bits. */
static float take_float(fdp *in) {
    static const float special[16] = {0.0f,     1.0f,      -1.0f,   0.5f,     2.0f,    NAN,
                                      INFINITY, -INFINITY, FLT_MAX, -FLT_MAX, FLT_MIN, 1e-45f,
                                      1e30f,    -0.0f,     1e-6f,   1e6f};
    uint8_t tag = take_u8(in);
    if (tag < 16)
        return special[tag];
    if (tag < 192)
        return (float)((int)tag - 104) / 8.0f;
    uint32_t bits = take_u32(in);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static double take_double(fdp *in) {
    if (in->pos < in->size && in->data[in->pos] == 0xff) { /* a double's own bits */
        in->pos++;
        uint64_t bits = (uint64_t)take_u32(in) | (uint64_t)take_u32(in) << 32;
        double d;
        memcpy(&d, &bits, sizeof d);
        return d;
    }
    return take_float(in);
}

static struct aiVector3D take_vec3(fdp *in) {
    struct aiVector3D v;
    v.x = take_float(in);
    v.y = take_float(in);
    v.z = take_float(in);
    return v;
}

static void set_string(struct aiString *s, const char *text, size_t length) {
    if (length > sizeof s->data - 1) /* assimp keeps length < 1024 */
        length = sizeof s->data - 1;
    memcpy(s->data, text, length);
    s->data[length] = '\0';
    s->length = (ai_uint32)length;
}

/* Names from a pool, so that nodes, bones, channels, cameras and lights
 * name each other (or repeat, or name nothing); else a long name, or up to
 * 16 raw bytes (NULs, non-UTF-8). */
static void take_name(fdp *in, struct aiString *s) {
    static const char *const pool[] = {"",       "root",  "Armature", "Bone", "Bone.001", "mesh",
                                       "Camera", "Light", "a",        "a b",  "\xff\xfe", "Scene"};
    const unsigned count = sizeof pool / sizeof pool[0];
    uint8_t tag = take_u8(in);
    if (tag < 0xf0) {
        set_string(s, pool[tag % count], strlen(pool[tag % count]));
    } else if (tag == 0xf0) { /* long: past kiln's message and label buffers */
        char text[1100];
        size_t length = 200 + (size_t)take_u8(in) * 4;
        memset(text, 'n', sizeof text);
        set_string(s, text, length);
    } else {
        char text[16];
        size_t length = take_count(in, 16);
        for (size_t i = 0; i < length; i++)
            text[i] = (char)take_u8(in);
        set_string(s, text, length);
    }
}

/* Identity, a translation, a scale and translation, or 16 values. */
static void take_matrix(fdp *in, struct aiMatrix4x4 *m) {
    memset(m, 0, sizeof *m);
    m->a1 = m->b2 = m->c3 = m->d4 = 1.0f;
    switch (take_u8(in) % 4) {
    case 0:
        break;
    case 2:
        m->a1 = take_float(in);
        m->b2 = take_float(in);
        m->c3 = take_float(in);
        /* fall through */
    case 1:
        m->a4 = take_float(in);
        m->b4 = take_float(in);
        m->c4 = take_float(in);
        break;
    default: {
        ai_real *e = &m->a1;
        for (int i = 0; i < 16; i++)
            e[i] = take_float(in);
    }
    }
}

static void *zalloc(size_t count, size_t size) {
    void *p = calloc(count ? count : 1, size);
    if (p == NULL)
        abort(); /* tiny sizes: never */
    return p;
}

/* What the scene is built with: the shape, and the counts indices refer to. */
typedef struct build {
    fdp in;
    bool validated;
    unsigned meshes, materials, textures;
    struct aiNode **nodes; /* every node, for freeing */
    unsigned node_count;
} build;

/* An index into `count` things: in range when validated (count > 0), else
 * a raw byte (out of range as often as not). */
static unsigned take_index(build *b, unsigned count) {
    uint8_t v = take_u8(&b->in);
    return b->validated && count > 0 ? v % count : v;
}

/* ---------------------------------------------------------------------------
 * The node tree: up to 64 nodes, each parent before its children (assimp
 * cannot make cycles), chains as deep as the count.
 * ------------------------------------------------------------------------- */

static struct aiNode *build_nodes(build *b) {
    fdp *in = &b->in;
    unsigned n = 1 + take_count(in, 63);
    b->nodes = zalloc(n, sizeof *b->nodes);
    b->node_count = n;
    unsigned *parent = zalloc(n, sizeof *parent), *children = zalloc(n, sizeof *children);
    for (unsigned i = 0; i < n; i++) {
        struct aiNode *node = zalloc(1, sizeof *node);
        b->nodes[i] = node;
        take_name(in, &node->mName);
        take_matrix(in, &node->mTransformation);
        if (i > 0) {
            uint8_t p = take_u8(in);
            parent[i] = p == 0xff ? i - 1 : p % i; /* 0xff: a chain */
            children[parent[i]]++;
        }
        /* Up to four meshes; a validated scene's in range, and none when
         * the scene has none. */
        node->mNumMeshes = b->validated && b->meshes == 0 ? 0 : take_count(in, 4);
        if (node->mNumMeshes > 0) {
            node->mMeshes = zalloc(node->mNumMeshes, sizeof *node->mMeshes);
            for (unsigned k = 0; k < node->mNumMeshes; k++)
                node->mMeshes[k] = take_index(b, b->meshes);
        }
    }
    for (unsigned i = 0; i < n; i++) {
        if (children[i] > 0)
            b->nodes[i]->mChildren = zalloc(children[i], sizeof(struct aiNode *));
    }
    for (unsigned i = 1; i < n; i++) {
        struct aiNode *p = b->nodes[parent[i]];
        p->mChildren[p->mNumChildren++] = b->nodes[i];
        b->nodes[i]->mParent = p;
    }
    free(parent);
    free(children);
    return b->nodes[0];
}

static void free_nodes(build *b) {
    for (unsigned i = 0; i < b->node_count; i++) {
        free(b->nodes[i]->mChildren);
        free(b->nodes[i]->mMeshes);
        free(b->nodes[i]);
    }
    free(b->nodes);
}

/* ---------------------------------------------------------------------------
 * Meshes: up to 256 vertices, 128 faces, 4 bones of 16 weights, 4 morph
 * targets (aiAnimMesh).
 * ------------------------------------------------------------------------- */

static struct aiVector3D *take_vec3s(fdp *in, unsigned n) {
    struct aiVector3D *v = zalloc(n, sizeof *v);
    for (unsigned i = 0; i < n; i++)
        v[i] = take_vec3(in);
    return v;
}

static struct aiColor4D *take_colors(fdp *in, unsigned n) {
    struct aiColor4D *c = zalloc(n, sizeof *c);
    for (unsigned i = 0; i < n; i++) {
        c[i].r = take_float(in);
        c[i].g = take_float(in);
        c[i].b = take_float(in);
        c[i].a = take_float(in);
    }
    return c;
}

static void build_faces(build *b, struct aiMesh *m) {
    fdp *in = &b->in;
    m->mNumFaces = b->validated && m->mNumVertices == 0 ? 0 : take_count(in, 128);
    if (m->mNumFaces == 0)
        return;
    m->mFaces = zalloc(m->mNumFaces, sizeof *m->mFaces);
    unsigned kinds = 0;
    for (unsigned f = 0; f < m->mNumFaces; f++) {
        struct aiFace *face = &m->mFaces[f];
        /* Triangulate leaves 1-3 corners; unvalidated, anything (0 too). */
        face->mNumIndices = b->validated ? 1 + take_count(in, 2) : take_count(in, 5);
        kinds |= face->mNumIndices == 1   ? aiPrimitiveType_POINT
                 : face->mNumIndices == 2 ? aiPrimitiveType_LINE
                 : face->mNumIndices == 3 ? aiPrimitiveType_TRIANGLE
                                          : aiPrimitiveType_POLYGON;
        if (face->mNumIndices == 0)
            continue;
        face->mIndices = zalloc(face->mNumIndices, sizeof *face->mIndices);
        for (unsigned c = 0; c < face->mNumIndices; c++) {
            unsigned v = take_u8(&b->in);
            face->mIndices[c] = b->validated ? v % m->mNumVertices : v | (unsigned)take_u8(in) << 8;
        }
    }
    /* Validated: what the faces are (SortByPType); else any bits. */
    m->mPrimitiveTypes = b->validated ? kinds : take_u8(in) & 0xfu;
}

static struct aiBone *build_bone(build *b, const struct aiMesh *m) {
    fdp *in = &b->in;
    struct aiBone *bone = zalloc(1, sizeof *bone);
    take_name(in, &bone->mName);
    take_matrix(in, &bone->mOffsetMatrix);
    bone->mNumWeights = take_count(in, 16);
    if (bone->mNumWeights > 0)
        bone->mWeights = zalloc(bone->mNumWeights, sizeof *bone->mWeights);
    for (unsigned w = 0; w < bone->mNumWeights; w++) {
        bone->mWeights[w].mVertexId = take_index(b, m->mNumVertices);
        bone->mWeights[w].mWeight = take_float(in);
    }
    return bone;
}

static struct aiAnimMesh *build_anim_mesh(build *b, const struct aiMesh *m) {
    fdp *in = &b->in;
    struct aiAnimMesh *a = zalloc(1, sizeof *a);
    take_name(in, &a->mName);
    uint8_t flags = take_u8(in);
    /* Mostly the mesh's vertex count, as formats give it. */
    a->mNumVertices = flags & 0x80 ? take_count(in, 255) : m->mNumVertices;
    unsigned n = a->mNumVertices;
    if (flags & 1)
        a->mVertices = take_vec3s(in, n);
    if (flags & 2)
        a->mNormals = take_vec3s(in, n);
    if (flags & 4) {
        a->mTangents = take_vec3s(in, n);
        a->mBitangents = take_vec3s(in, n);
    }
    if (flags & 8)
        a->mColors[0] = take_colors(in, n);
    if (flags & 16)
        a->mTextureCoords[0] = take_vec3s(in, n);
    a->mWeight = take_float(in);
    return a;
}

static void free_anim_mesh(struct aiAnimMesh *a) {
    free(a->mVertices);
    free(a->mNormals);
    free(a->mTangents);
    free(a->mBitangents);
    free(a->mColors[0]);
    free(a->mTextureCoords[0]);
    free(a);
}

static struct aiMesh *build_mesh(build *b) {
    fdp *in = &b->in;
    struct aiMesh *m = zalloc(1, sizeof *m);
    take_name(in, &m->mName);
    unsigned n = m->mNumVertices = take_count(in, 255);
    uint8_t streams = take_u8(in);
    if (n > 0 || !b->validated)
        m->mVertices = take_vec3s(in, n);
    if (streams & 1)
        m->mNormals = take_vec3s(in, n);
    if (streams & 2) {
        m->mTangents = take_vec3s(in, n);
        m->mBitangents = take_vec3s(in, n);
    }
    for (int k = 0; k < 3; k++) {
        if (streams & (4 << k)) {
            m->mTextureCoords[k] = take_vec3s(in, n);
            m->mNumUVComponents[k] = 2;
        }
    }
    for (int k = 0; k < 2; k++)
        if (streams & (32 << k))
            m->mColors[k] = take_colors(in, n);
    build_faces(b, m);
    m->mMaterialIndex = take_index(b, b->materials);
    if (streams & 128) {
        m->mNumBones = 1 + take_count(in, 3);
        m->mBones = zalloc(m->mNumBones, sizeof *m->mBones);
        for (unsigned i = 0; i < m->mNumBones; i++)
            m->mBones[i] = build_bone(b, m);
    }
    m->mNumAnimMeshes = take_count(in, 4);
    if (m->mNumAnimMeshes > 0) {
        m->mAnimMeshes = zalloc(m->mNumAnimMeshes, sizeof *m->mAnimMeshes);
        for (unsigned i = 0; i < m->mNumAnimMeshes; i++)
            m->mAnimMeshes[i] = build_anim_mesh(b, m);
        m->mMethod = take_count(in, 3);
    }
    return m;
}

static void free_mesh(struct aiMesh *m) {
    free(m->mVertices);
    free(m->mNormals);
    free(m->mTangents);
    free(m->mBitangents);
    for (int k = 0; k < AI_MAX_NUMBER_OF_TEXTURECOORDS; k++)
        free(m->mTextureCoords[k]);
    for (int k = 0; k < AI_MAX_NUMBER_OF_COLOR_SETS; k++)
        free(m->mColors[k]);
    for (unsigned f = 0; m->mFaces != NULL && f < m->mNumFaces; f++)
        free(m->mFaces[f].mIndices);
    free(m->mFaces);
    for (unsigned i = 0; i < m->mNumBones; i++) {
        free(m->mBones[i]->mWeights);
        free(m->mBones[i]);
    }
    free(m->mBones);
    for (unsigned i = 0; i < m->mNumAnimMeshes; i++)
        free_anim_mesh(m->mAnimMeshes[i]);
    free(m->mAnimMeshes);
    free(m);
}

/* ---------------------------------------------------------------------------
 * Materials: up to 12 properties of the keys convert_material reads (or any
 * other), each well-formed for its type as aiMaterial::AddBinaryProperty
 * makes it, with any value.
 * ------------------------------------------------------------------------- */

typedef struct key_info {
    const char *key;
    enum aiPropertyTypeInfo type; /* what readers store under it */
    bool texture;                 /* semantic is a texture type */
} key_info;

static const key_info material_keys[] = {
    {"?mat.name", aiPTI_String, false},
    {"$clr.diffuse", aiPTI_Float, false},
    {"$clr.base", aiPTI_Float, false},
    {"$clr.emissive", aiPTI_Float, false},
    {"$mat.opacity", aiPTI_Float, false},
    {"$mat.emissiveIntensity", aiPTI_Float, false},
    {"$mat.shininess", aiPTI_Float, false},
    {"$mat.shinpercent", aiPTI_Float, false},
    {"$mat.shadingm", aiPTI_Integer, false},
    {"$mat.roughnessFactor", aiPTI_Float, false},
    {"$mat.glossinessFactor", aiPTI_Float, false},
    {"$mat.metallicFactor", aiPTI_Float, false},
    {"$mat.gltf.alphaMode", aiPTI_String, false},
    {"$mat.gltf.alphaCutoff", aiPTI_Float, false},
    {"$mat.bumpscaling", aiPTI_Float, false},
    {"$mat.twosided", aiPTI_Integer, false},
    {"$tex.file", aiPTI_String, true},
    {"$tex.file", aiPTI_String, true},
    {"$tex.file", aiPTI_String, true},
    {"$tex.uvwsrc", aiPTI_Integer, true},
    {"$tex.mapping", aiPTI_Integer, true},
    {"$tex.scale", aiPTI_Float, true},
    {"$tex.strength", aiPTI_Float, true},
    {"$clr.specular", aiPTI_Float, false},
};

/* A string property's bytes: u32 length, the text, a NUL. */
static void string_data(struct aiMaterialProperty *p, const char *text, size_t length) {
    uint32_t n = (uint32_t)length;
    p->mDataLength = 4 + n + 1;
    p->mData = zalloc(p->mDataLength, 1);
    memcpy(p->mData, &n, 4);
    memcpy(p->mData + 4, text, n);
}

static void take_string_value(fdp *in, const char *key, struct aiMaterialProperty *p) {
    static const char *const paths[] = {"*0",
                                        "*1",
                                        "*3",
                                        "*9",
                                        "*",
                                        "*-1",
                                        "*1x",
                                        "tex.png",
                                        "emb.png",
                                        "dir/emb.png",
                                        "",
                                        "../up.png",
                                        "..\\up.png",
                                        "/abs/dir/tex.png",
                                        "C:\\dir\\emb.png"};
    static const char *const modes[] = {"OPAQUE", "MASK", "BLEND", "blend", "MASKED"};
    uint8_t tag = take_u8(in);
    if (strcmp(key, "$tex.file") == 0 && tag < 0xf0) {
        const char *s = paths[tag % (sizeof paths / sizeof paths[0])];
        string_data(p, s, strlen(s));
    } else if (strcmp(key, "$mat.gltf.alphaMode") == 0 && tag < 0xf0) {
        const char *s = modes[tag % (sizeof modes / sizeof modes[0])];
        string_data(p, s, strlen(s));
    } else {
        struct aiString name;
        take_name(in, &name);
        string_data(p, name.data, name.length);
    }
}

static void build_property(fdp *in, struct aiMaterialProperty *p) {
    const unsigned known = sizeof material_keys / sizeof material_keys[0];
    unsigned which = take_u8(in) % (known + 2);
    const key_info *info = which < known ? &material_keys[which] : NULL;
    if (info != NULL) {
        set_string(&p->mKey, info->key, strlen(info->key));
    } else { /* a key kiln does not read */
        take_name(in, &p->mKey);
    }
    uint8_t semantic = take_u8(in);
    /* Texture keys: a texture type (0..21, or beyond); others: 0 mostly. */
    p->mSemantic = info != NULL && info->texture ? semantic % 23u
                   : semantic >= 0xf0            ? semantic & 0xfu
                                                 : 0;
    p->mIndex = take_u8(in) >= 0xf0 ? 1 : 0;
    uint8_t type = take_u8(in);
    p->mType = info != NULL && type < 0xc0 ? info->type : (enum aiPropertyTypeInfo)(1 + type % 5);
    switch (p->mType) {
    case aiPTI_Float: {
        unsigned n = 1 + take_count(in, 3);
        float v[4];
        for (unsigned i = 0; i < n; i++)
            v[i] = take_float(in);
        p->mDataLength = (unsigned)(n * sizeof(float));
        p->mData = zalloc(p->mDataLength, 1);
        memcpy(p->mData, v, p->mDataLength);
        break;
    }
    case aiPTI_Double: {
        unsigned n = 1 + take_count(in, 3);
        double v[4];
        for (unsigned i = 0; i < n; i++)
            v[i] = take_double(in);
        p->mDataLength = (unsigned)(n * sizeof(double));
        p->mData = zalloc(p->mDataLength, 1);
        memcpy(p->mData, v, p->mDataLength);
        break;
    }
    case aiPTI_String:
        take_string_value(in, p->mKey.data, p);
        break;
    case aiPTI_Integer: {
        uint8_t form = take_u8(in);
        if (form & 1) { /* a bool: one byte */
            p->mDataLength = 1;
            p->mData = zalloc(1, 1);
            p->mData[0] = (char)take_u8(in);
            break;
        }
        unsigned n = 1 + (form >> 1) % 4;
        int32_t v[4];
        for (unsigned i = 0; i < n; i++) {
            uint8_t small = take_u8(in);
            v[i] = small < 0xf0 ? (int32_t)small - 8 : (int32_t)take_u32(in);
        }
        p->mDataLength = (unsigned)(n * sizeof(int32_t));
        p->mData = zalloc(p->mDataLength, 1);
        memcpy(p->mData, v, p->mDataLength);
        break;
    }
    default: { /* aiPTI_Buffer: one byte or 4 to 16 */
        p->mType = aiPTI_Buffer;
        unsigned n = take_count(in, 13);
        n = n == 0 ? 1 : n + 3;
        p->mDataLength = n;
        p->mData = zalloc(n, 1);
        for (unsigned i = 0; i < n; i++)
            p->mData[i] = (char)take_u8(in);
        break;
    }
    }
}

static struct aiMaterial *build_material(fdp *in) {
    struct aiMaterial *m = zalloc(1, sizeof *m);
    m->mNumProperties = take_count(in, 12);
    m->mNumAllocated = m->mNumProperties;
    m->mProperties = zalloc(m->mNumProperties, sizeof *m->mProperties);
    for (unsigned i = 0; i < m->mNumProperties; i++) {
        m->mProperties[i] = zalloc(1, sizeof(struct aiMaterialProperty));
        build_property(in, m->mProperties[i]);
    }
    return m;
}

static void free_material(struct aiMaterial *m) {
    for (unsigned i = 0; i < m->mNumProperties; i++) {
        free(m->mProperties[i]->mData);
        free(m->mProperties[i]);
    }
    free(m->mProperties);
    free(m);
}

/* ---------------------------------------------------------------------------
 * Embedded textures: compressed (mHeight 0, mWidth bytes) or raw texels.
 * ------------------------------------------------------------------------- */

static struct aiTexture *build_texture(fdp *in) {
    static const char *const names[] = {"", "emb.png", "dir/emb.png", "tex.png", "*0"};
    struct aiTexture *t = zalloc(1, sizeof *t);
    uint8_t tag = take_u8(in);
    if (tag < 0xf0)
        set_string(&t->mFilename, names[tag % 5], strlen(names[tag % 5]));
    else
        take_name(in, &t->mFilename);
    size_t texels;
    if (take_u8(in) & 1) { /* compressed: a file's bytes */
        t->mWidth = take_count(in, 64);
        t->mHeight = 0;
        memcpy(t->achFormatHint, "png", 4);
        texels = (t->mWidth + 3) / 4;
    } else {
        t->mWidth = 1 + take_count(in, 3);
        t->mHeight = 1 + take_count(in, 3);
        memcpy(t->achFormatHint, "rgba8888", 9);
        texels = (size_t)t->mWidth * t->mHeight;
    }
    t->pcData = zalloc(texels, sizeof *t->pcData);
    uint8_t *bytes = (uint8_t *)t->pcData;
    for (size_t i = 0; i < texels * sizeof *t->pcData; i++)
        bytes[i] = take_u8(in);
    return t;
}

/* ---------------------------------------------------------------------------
 * Animations: up to 6 node channels of up to 8 keys of each kind, times
 * raw or increasing, plus mesh and morph mesh channels.
 * ------------------------------------------------------------------------- */

/* Key times: raw, or increasing by steps read from the bytes (which may
 * themselves be 0, negative, NaN or inf). */
static double take_time(fdp *in, bool increasing, double before, unsigned k) {
    if (!increasing || k == 0)
        return take_double(in);
    return before + fabs(take_float(in));
}

static struct aiNodeAnim *build_node_anim(fdp *in) {
    struct aiNodeAnim *c = zalloc(1, sizeof *c);
    take_name(in, &c->mNodeName);
    uint8_t flags = take_u8(in);
    c->mNumPositionKeys = take_count(in, 8);
    c->mNumRotationKeys = take_count(in, 8);
    c->mNumScalingKeys = take_count(in, 8);
    if (c->mNumPositionKeys > 0)
        c->mPositionKeys = zalloc(c->mNumPositionKeys, sizeof *c->mPositionKeys);
    if (c->mNumRotationKeys > 0)
        c->mRotationKeys = zalloc(c->mNumRotationKeys, sizeof *c->mRotationKeys);
    if (c->mNumScalingKeys > 0)
        c->mScalingKeys = zalloc(c->mNumScalingKeys, sizeof *c->mScalingKeys);
    double t = 0;
    for (unsigned k = 0; k < c->mNumPositionKeys; k++) {
        t = c->mPositionKeys[k].mTime = take_time(in, flags & 1, t, k);
        c->mPositionKeys[k].mValue = take_vec3(in);
    }
    for (unsigned k = 0; k < c->mNumRotationKeys; k++) {
        t = c->mRotationKeys[k].mTime = take_time(in, flags & 2, t, k);
        struct aiQuaternion *q = &c->mRotationKeys[k].mValue;
        q->w = take_float(in);
        q->x = take_float(in);
        q->y = take_float(in);
        q->z = take_float(in);
    }
    for (unsigned k = 0; k < c->mNumScalingKeys; k++) {
        t = c->mScalingKeys[k].mTime = take_time(in, flags & 4, t, k);
        c->mScalingKeys[k].mValue = take_vec3(in);
    }
    c->mPreState = (enum aiAnimBehaviour)take_count(in, 4);
    c->mPostState = (enum aiAnimBehaviour)take_count(in, 4);
    return c;
}

static struct aiMeshAnim *build_mesh_anim(fdp *in) {
    struct aiMeshAnim *c = zalloc(1, sizeof *c);
    take_name(in, &c->mName);
    c->mNumKeys = take_count(in, 4);
    if (c->mNumKeys > 0)
        c->mKeys = zalloc(c->mNumKeys, sizeof *c->mKeys);
    for (unsigned k = 0; k < c->mNumKeys; k++) {
        c->mKeys[k].mTime = take_double(in);
        c->mKeys[k].mValue = take_u8(in);
    }
    return c;
}

static struct aiMeshMorphAnim *build_morph_anim(fdp *in) {
    struct aiMeshMorphAnim *c = zalloc(1, sizeof *c);
    take_name(in, &c->mName);
    c->mNumKeys = take_count(in, 4);
    if (c->mNumKeys > 0)
        c->mKeys = zalloc(c->mNumKeys, sizeof *c->mKeys);
    for (unsigned k = 0; k < c->mNumKeys; k++) {
        struct aiMeshMorphKey *key = &c->mKeys[k];
        key->mTime = take_double(in);
        key->mNumValuesAndWeights = take_count(in, 4);
        key->mValues = zalloc(key->mNumValuesAndWeights, sizeof *key->mValues);
        key->mWeights = zalloc(key->mNumValuesAndWeights, sizeof *key->mWeights);
        for (unsigned i = 0; i < key->mNumValuesAndWeights; i++) {
            key->mValues[i] = take_u8(in);
            key->mWeights[i] = take_double(in);
        }
    }
    return c;
}

static struct aiAnimation *build_animation(fdp *in) {
    struct aiAnimation *a = zalloc(1, sizeof *a);
    take_name(in, &a->mName);
    a->mDuration = take_double(in);
    a->mTicksPerSecond = take_double(in);
    a->mNumChannels = take_count(in, 6);
    if (a->mNumChannels > 0)
        a->mChannels = zalloc(a->mNumChannels, sizeof *a->mChannels);
    for (unsigned c = 0; c < a->mNumChannels; c++)
        a->mChannels[c] = build_node_anim(in);
    a->mNumMeshChannels = take_count(in, 2);
    if (a->mNumMeshChannels > 0)
        a->mMeshChannels = zalloc(a->mNumMeshChannels, sizeof *a->mMeshChannels);
    for (unsigned c = 0; c < a->mNumMeshChannels; c++)
        a->mMeshChannels[c] = build_mesh_anim(in);
    a->mNumMorphMeshChannels = take_count(in, 2);
    if (a->mNumMorphMeshChannels > 0)
        a->mMorphMeshChannels = zalloc(a->mNumMorphMeshChannels, sizeof *a->mMorphMeshChannels);
    for (unsigned c = 0; c < a->mNumMorphMeshChannels; c++)
        a->mMorphMeshChannels[c] = build_morph_anim(in);
    return a;
}

static void free_animation(struct aiAnimation *a) {
    for (unsigned c = 0; c < a->mNumChannels; c++) {
        free(a->mChannels[c]->mPositionKeys);
        free(a->mChannels[c]->mRotationKeys);
        free(a->mChannels[c]->mScalingKeys);
        free(a->mChannels[c]);
    }
    free(a->mChannels);
    for (unsigned c = 0; c < a->mNumMeshChannels; c++) {
        free(a->mMeshChannels[c]->mKeys);
        free(a->mMeshChannels[c]);
    }
    free(a->mMeshChannels);
    for (unsigned c = 0; c < a->mNumMorphMeshChannels; c++) {
        for (unsigned k = 0; k < a->mMorphMeshChannels[c]->mNumKeys; k++) {
            free(a->mMorphMeshChannels[c]->mKeys[k].mValues);
            free(a->mMorphMeshChannels[c]->mKeys[k].mWeights);
        }
        free(a->mMorphMeshChannels[c]->mKeys);
        free(a->mMorphMeshChannels[c]);
    }
    free(a->mMorphMeshChannels);
    free(a);
}

/* ---------------------------------------------------------------------------
 * Cameras and lights
 * ------------------------------------------------------------------------- */

static struct aiCamera *build_camera(fdp *in) {
    struct aiCamera *c = zalloc(1, sizeof *c);
    take_name(in, &c->mName);
    c->mPosition = take_vec3(in);
    c->mUp = take_vec3(in);
    c->mLookAt = take_vec3(in);
    c->mHorizontalFOV = take_float(in);
    c->mClipPlaneNear = take_float(in);
    c->mClipPlaneFar = take_float(in);
    c->mAspect = take_float(in);
    c->mOrthographicWidth = take_float(in);
    return c;
}

static struct aiColor3D take_color3(fdp *in) {
    struct aiColor3D c;
    c.r = take_float(in);
    c.g = take_float(in);
    c.b = take_float(in);
    return c;
}

static struct aiLight *build_light(fdp *in) {
    struct aiLight *l = zalloc(1, sizeof *l);
    take_name(in, &l->mName);
    l->mType = (enum aiLightSourceType)take_count(in, 6); /* 6: none of assimp's */
    l->mPosition = take_vec3(in);
    l->mDirection = take_vec3(in);
    l->mUp = take_vec3(in);
    l->mAttenuationConstant = take_float(in);
    l->mAttenuationLinear = take_float(in);
    l->mAttenuationQuadratic = take_float(in);
    l->mColorDiffuse = take_color3(in);
    l->mColorSpecular = take_color3(in);
    l->mColorAmbient = take_color3(in);
    l->mAngleInnerCone = take_float(in);
    l->mAngleOuterCone = take_float(in);
    return l;
}

/* ---------------------------------------------------------------------------
 * The scene
 * ------------------------------------------------------------------------- */

static void build_scene(build *b, struct aiScene *s) {
    fdp *in = &b->in;
    uint8_t shape = take_u8(in);
    b->validated = (shape & 1) != 0;
    b->meshes = s->mNumMeshes = take_count(in, 8);
    s->mNumMaterials = take_count(in, 4);
    if (b->validated && s->mNumMeshes > 0 && s->mNumMaterials == 0)
        s->mNumMaterials = 1; /* assimp adds a default one */
    b->materials = s->mNumMaterials;
    b->textures = s->mNumTextures = take_count(in, 4);
    s->mNumAnimations = take_count(in, 2);
    s->mNumCameras = take_count(in, 2);
    s->mNumLights = take_count(in, 2);

    s->mRootNode = build_nodes(b);
    if (s->mNumMeshes > 0)
        s->mMeshes = zalloc(s->mNumMeshes, sizeof *s->mMeshes);
    for (unsigned i = 0; i < s->mNumMeshes; i++)
        s->mMeshes[i] = build_mesh(b);
    if (s->mNumMaterials > 0)
        s->mMaterials = zalloc(s->mNumMaterials, sizeof *s->mMaterials);
    for (unsigned i = 0; i < s->mNumMaterials; i++)
        s->mMaterials[i] = build_material(in);
    if (s->mNumTextures > 0)
        s->mTextures = zalloc(s->mNumTextures, sizeof *s->mTextures);
    for (unsigned i = 0; i < s->mNumTextures; i++)
        s->mTextures[i] = build_texture(in);
    if (s->mNumAnimations > 0)
        s->mAnimations = zalloc(s->mNumAnimations, sizeof *s->mAnimations);
    for (unsigned i = 0; i < s->mNumAnimations; i++)
        s->mAnimations[i] = build_animation(in);
    if (s->mNumCameras > 0)
        s->mCameras = zalloc(s->mNumCameras, sizeof *s->mCameras);
    for (unsigned i = 0; i < s->mNumCameras; i++)
        s->mCameras[i] = build_camera(in);
    if (s->mNumLights > 0)
        s->mLights = zalloc(s->mNumLights, sizeof *s->mLights);
    for (unsigned i = 0; i < s->mNumLights; i++)
        s->mLights[i] = build_light(in);
}

static void free_scene(build *b, struct aiScene *s) {
    free_nodes(b);
    for (unsigned i = 0; i < s->mNumMeshes; i++)
        free_mesh(s->mMeshes[i]);
    free(s->mMeshes);
    for (unsigned i = 0; i < s->mNumMaterials; i++)
        free_material(s->mMaterials[i]);
    free(s->mMaterials);
    for (unsigned i = 0; i < s->mNumTextures; i++) {
        free(s->mTextures[i]->pcData);
        free(s->mTextures[i]);
    }
    free(s->mTextures);
    for (unsigned i = 0; i < s->mNumAnimations; i++)
        free_animation(s->mAnimations[i]);
    free(s->mAnimations);
    for (unsigned i = 0; i < s->mNumCameras; i++)
        free(s->mCameras[i]);
    free(s->mCameras);
    for (unsigned i = 0; i < s->mNumLights; i++)
        free(s->mLights[i]);
    free(s->mLights);
}

/* ---------------------------------------------------------------------------
 * The IR's invariants (ir.h), checked from the IR alone
 * ------------------------------------------------------------------------- */

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_assimp_scene: IR invariant broken: %s (%s:%d)\n", #cond,         \
                    __FILE__, __LINE__);                                                           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static bool finite_all(const float *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return false;
    return true;
}

static bool unit(const float *v, int n, double tolerance) {
    double sum = 0;
    for (int k = 0; k < n; k++)
        sum += (double)v[k] * v[k];
    return fabs(sqrt(sum) - 1.0) <= tolerance;
}

static void check_mesh(const ir_asset *a, const ir_mesh *m) {
    size_t n = m->vertex_count;
    CHECK(n == 0 || m->positions != NULL);
    CHECK(m->positions == NULL || finite_all(m->positions, 3 * n));
    if (m->normals != NULL)
        for (size_t v = 0; v < n; v++)
            CHECK(finite_all(m->normals + 3 * v, 3) && unit(m->normals + 3 * v, 3, 1e-3));
    if (m->tangents != NULL)
        for (size_t v = 0; v < n; v++)
            CHECK(finite_all(m->tangents + 4 * v, 4) && unit(m->tangents + 4 * v, 3, 1e-3) &&
                  fabsf(m->tangents[4 * v + 3]) == 1.0f);
    for (int k = 0; k < 2; k++)
        CHECK(m->texcoords[k] == NULL || finite_all(m->texcoords[k], 2 * n));
    CHECK(m->colors == NULL || finite_all(m->colors, 4 * n));
    CHECK((m->joints == NULL) == (m->weights == NULL));
    CHECK((m->joints1 == NULL) == (m->weights1 == NULL));
    CHECK(m->joints1 == NULL || m->joints != NULL);
    if (m->weights != NULL) {
        for (size_t v = 0; v < n; v++) {
            float w[8] = {0};
            memcpy(w, m->weights + 4 * v, 4 * sizeof(float));
            if (m->weights1 != NULL)
                memcpy(w + 4, m->weights1 + 4 * v, 4 * sizeof(float));
            double sum = 0;
            for (int k = 0; k < 8; k++) {
                CHECK(isfinite(w[k]) && w[k] >= 0.0f);
                CHECK(k == 0 || w[k] <= w[k - 1]); /* largest first across both sets */
                sum += w[k];
            }
            CHECK(fabs(sum - 1.0) <= 1e-3);
        }
    }
    /* Morph targets: the same streams in every target, finite deltas. */
    CHECK((m->target_count == 0) == (m->targets == NULL));
    for (uint32_t t = 0; t < m->target_count; t++) {
        for (int k = 0; k < 3; k++) {
            float *const *s = (float *const *)ir_morph_stream((ir_morph_target *)&m->targets[t], k);
            float *const *s0 =
                (float *const *)ir_morph_stream((ir_morph_target *)&m->targets[0], k);
            CHECK((*s == NULL) == (*s0 == NULL));
            CHECK(*s == NULL || finite_all(*s, 3 * n));
        }
    }
    CHECK(m->index_count == 0 || m->indices != NULL);
    for (uint32_t i = 0; i < m->index_count; i++)
        CHECK(m->indices[i] < n);
    /* Submeshes tile the index buffer in order, whole primitives each. */
    uint64_t covered = 0;
    for (uint32_t s = 0; s < m->submesh_count; s++) {
        const ir_submesh *sub = &m->submeshes[s];
        CHECK(sub->topology < KILN_TOPOLOGY_COUNT_);
        CHECK(sub->index_offset == covered);
        CHECK(sub->index_count % kiln_topology_index_count(sub->topology) == 0);
        CHECK(sub->material < a->material_count);
        covered += sub->index_count;
    }
    CHECK(covered == m->index_count);
    CHECK(m->lods == NULL && m->meshlets == NULL); /* importers build none */
}

static void check_material(const ir_asset *a, const ir_material *m) {
    CHECK(m->name != NULL);
    CHECK(finite_all(m->base_color, 4) && finite_all(m->emissive, 3));
    for (int k = 0; k < 4; k++)
        CHECK(m->base_color[k] >= 0.0f && m->base_color[k] <= 1.0f);
    for (int k = 0; k < 3; k++)
        CHECK(m->emissive[k] >= 0.0f);
    CHECK(m->metallic >= 0.0f && m->metallic <= 1.0f);
    CHECK(m->roughness >= 0.0f && m->roughness <= 1.0f);
    CHECK(isfinite(m->normal_scale) && isfinite(m->occlusion_strength) &&
          isfinite(m->alpha_cutoff));
    CHECK(m->alpha_mode <= IR_ALPHA_BLEND);
    for (int s = 0; s < IR_SLOT_COUNT; s++) {
        const ir_texture_ref *t = &m->textures[s];
        CHECK(t->image >= -1 && (t->image < 0 || (uint32_t)t->image < a->image_count));
        CHECK(t->texcoord <= 1);
        CHECK(finite_all(t->offset, 2) && isfinite(t->rotation) && finite_all(t->scale, 2));
    }
}

static void check_nodes(const ir_asset *a) {
    for (uint32_t i = 0; i < a->node_count; i++) {
        const ir_node *node = &a->nodes[i];
        CHECK(node->parent >= -1 && node->parent < (int32_t)i); /* parents first */
        CHECK(node->mesh >= -1 && (node->mesh < 0 || (uint32_t)node->mesh < a->mesh_count));
        CHECK(node->skin >= -1 && (node->skin < 0 || (uint32_t)node->skin < a->skin_count));
        CHECK(node->camera >= -1 && (node->camera < 0 || (uint32_t)node->camera < a->camera_count));
        CHECK(node->light >= -1 && (node->light < 0 || (uint32_t)node->light < a->light_count));
        CHECK(node->instance_count == 0 && node->instance_offset == 0);
        CHECK(finite_all(node->translation, 3) && finite_all(node->rotation, 4) &&
              finite_all(node->scale, 3) && finite_all(node->matrix, 16));
        CHECK(unit(node->rotation, 4, 2e-3));
        uint32_t targets = node->mesh >= 0 ? a->meshes[node->mesh].target_count : 0;
        CHECK(node->weight_count == targets); /* one weight per morph target */
        CHECK(node->weights == NULL || finite_all(node->weights, node->weight_count));
        /* A skinned mesh's joint indices name joints of the node's skin. */
        if (node->mesh >= 0 && node->skin >= 0 && a->meshes[node->mesh].joints != NULL) {
            const ir_mesh *m = &a->meshes[node->mesh];
            uint32_t joints = a->skins[node->skin].joint_count;
            for (size_t v = 0; v < 4 * (size_t)m->vertex_count; v++) {
                CHECK(m->joints[v] < joints);
                CHECK(m->joints1 == NULL || m->joints1[v] < joints);
            }
        }
    }
    /* Node sources (assimp: the depth-first position) are distinct. */
    for (uint32_t i = 0; i < a->node_count; i++)
        for (uint32_t j = i + 1; j < a->node_count && a->nodes[i].source >= 0; j++)
            CHECK(a->nodes[j].source != a->nodes[i].source);
}

static void check_skins(const ir_asset *a) {
    for (uint32_t s = 0; s < a->skin_count; s++) {
        const ir_skin *skin = &a->skins[s];
        CHECK(skin->joint_count >= 1);
        for (uint32_t j = 0; j < skin->joint_count; j++) {
            CHECK(skin->joints[j] < a->node_count);
            for (uint32_t k = 0; k < j; k++)
                CHECK(skin->joints[k] != skin->joints[j]); /* distinct */
        }
        CHECK(finite_all(skin->inverse_bind, 16 * (size_t)skin->joint_count));
        CHECK(skin->skeleton >= -1 && skin->skeleton < (int32_t)a->node_count);
    }
}

static void check_cameras_lights(const ir_asset *a) {
    for (uint32_t i = 0; i < a->camera_count; i++) {
        const ir_camera *c = &a->cameras[i];
        CHECK(c->name != NULL);
        const float v[6] = {c->yfov, c->aspect, c->xmag, c->ymag, c->znear, c->zfar};
        if (getenv("FUZZ_VERBOSE") != NULL)
            fprintf(stderr, "camera %u: type %d yfov %g aspect %g xmag %g ymag %g near %g far %g\n",
                    i, (int)c->type, v[0], v[1], v[2], v[3], v[4], v[5]);
        CHECK(finite_all(v, 6));
        if (c->type == IR_CAMERA_PERSPECTIVE)
            CHECK(c->yfov > 0 && c->aspect >= 0 && c->znear > 0 &&
                  (c->zfar == 0 || c->zfar > c->znear));
        else
            CHECK(c->type == IR_CAMERA_ORTHOGRAPHIC && c->xmag != 0 && c->ymag != 0 &&
                  c->znear >= 0 && c->zfar > c->znear);
    }
    for (uint32_t i = 0; i < a->light_count; i++) {
        const ir_light *l = &a->lights[i];
        CHECK(l->name != NULL && l->type <= IR_LIGHT_SPOT);
        for (int k = 0; k < 3; k++)
            CHECK(l->color[k] >= 0.0f && l->color[k] <= 1.0f);
        CHECK(isfinite(l->intensity) && l->intensity >= 0 && isfinite(l->range) && l->range >= 0);
        if (l->type == IR_LIGHT_SPOT)
            CHECK(l->inner_cone >= 0 && l->inner_cone < l->outer_cone &&
                  l->outer_cone <= 1.5707964f);
        else
            CHECK(l->inner_cone == 0 && l->outer_cone == 0);
    }
}

static void check_animations(const ir_asset *a) {
    for (uint32_t c = 0; c < a->animation_count; c++) {
        const ir_animation *clip = &a->animations[c];
        CHECK(clip->name != NULL);
        for (uint32_t s = 0; s < clip->sampler_count; s++) {
            const ir_anim_sampler *sm = &clip->samplers[s];
            CHECK(sm->key_count >= 1 && sm->components >= 1);
            CHECK(sm->interpolation == IR_INTERP_LINEAR); /* assimp 5.2 has no other */
            for (uint32_t k = 0; k < sm->key_count; k++)
                CHECK(isfinite(sm->times[k]) && sm->times[k] >= 0.0f &&
                      (k == 0 || sm->times[k] > sm->times[k - 1]));
            CHECK(finite_all(sm->values, (size_t)sm->key_count * sm->components));
        }
        for (uint32_t i = 0; i < clip->channel_count; i++) {
            const ir_anim_channel *ch = &clip->channels[i];
            CHECK(ch->node < a->node_count && ch->sampler < clip->sampler_count);
            CHECK(ch->path <= IR_ANIM_WEIGHTS);
            const ir_anim_sampler *sm = &clip->samplers[ch->sampler];
            uint32_t want = ch->path == IR_ANIM_WEIGHTS    ? a->nodes[ch->node].weight_count
                            : ch->path == IR_ANIM_ROTATION ? 4u
                                                           : 3u;
            CHECK(sm->components == want);
            if (ch->path == IR_ANIM_ROTATION)
                for (uint32_t k = 0; k < sm->key_count; k++)
                    CHECK(unit(sm->values + 4 * (size_t)k, 4, 2e-3));
            for (uint32_t j = 0; j < i; j++) /* one channel per node and path */
                CHECK(clip->channels[j].node != ch->node || clip->channels[j].path != ch->path);
        }
    }
}

static void check_asset(const ir_asset *a) {
    for (uint32_t i = 0; i < a->mesh_count; i++)
        check_mesh(a, &a->meshes[i]);
    for (uint32_t i = 0; i < a->material_count; i++)
        check_material(a, &a->materials[i]);
    for (uint32_t i = 0; i < a->image_count; i++) {
        const ir_image *image = &a->images[i];
        CHECK(image->name != NULL);
        CHECK((image->path == NULL) != (image->bytes == NULL)); /* a file, or embedded bytes */
        CHECK(image->path == NULL || image->path[0] != '/');
    }
    check_nodes(a);
    check_skins(a);
    check_cameras_lights(a);
    CHECK(a->instance_count == 0 && a->scene_count == 0);
    check_animations(a);
}

/* What a build does with the IR: the isolated importer's child writes it,
 * the parent reads it back and refuses one that breaks ir.h. */
static void check_wire(const ir_asset *a) {
    bytebuf wire = {0};
    CHECK(ir_wire_write(a, &wire));
    wire_reader in = {.data = wire.data, .size = wire.size};
    ir_asset back;
    char reason[256] = "";
    if (!ir_wire_read(&in, &back, reason, sizeof reason)) {
        fprintf(stderr, "fuzz_assimp_scene: ir_wire_read refuses the IR: %s\n", reason);
        abort();
    }
    CHECK(in.pos == wire.size);
    ir_asset_free(&back);
    bytebuf_free(&wire);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    build b = {.in = {.data = data, .size = size}};
    struct aiScene scene;
    memset(&scene, 0, sizeof scene);
    build_scene(&b, &scene);

    cook_settings settings;
    cook_settings_default(&settings);
    cook_diag diag = {0};
    cook_context ctx = {
        .input_root = FUZZ_INPUT_ROOT,
        .source_path = "fuzz.fbx",
        .ref = "fuzz",
        .source = data,
        .source_size = size,
        .settings = &settings,
        .diag = &diag,
    };
    ir_asset asset;
    bool ok = assimp_convert_scene(&ctx, &scene, &asset);
    if (getenv("FUZZ_VERBOSE") != NULL) /* triage: what kiln said */
        fprintf(stderr, "%s: %.*s", ok ? "converted" : "refused", (int)diag.text.size,
                diag.text.data ? (const char *)diag.text.data : "");
    /* Failure is an error; success has none; every message names the file. */
    CHECK(ok == (diag.errors == 0));
    for (size_t at = 0; at < diag.text.size;) {
        CHECK(diag.text.size - at > strlen("fuzz.fbx: ") &&
              memcmp(diag.text.data + at, "fuzz.fbx: ", strlen("fuzz.fbx: ")) == 0);
        const uint8_t *end = memchr(diag.text.data + at, '\n', diag.text.size - at);
        CHECK(end != NULL);
        at = (size_t)(end - diag.text.data) + 1;
    }
    if (ok) {
        check_asset(&asset);
        check_wire(&asset);
    } else {
        CHECK(asset.mesh_count == 0 && asset.node_count == 0 && asset.meshes == NULL);
    }
    ir_asset_free(&asset);
    strlist_free(&ctx.dependencies);
    strlist_free(&ctx.references);
    strlist_free(&ctx.absent);
    diag_free(&diag);
    free_scene(&b, &scene);
    return 0;
}
