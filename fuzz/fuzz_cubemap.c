/* fuzz_cubemap.c — a cubemap folder ("sky.env/") described in bytes, through
 * the cubemap driver's own steps (src/cook/drivers/cubemap.c): its listing
 * sorted as the walk sorts it, the six faces picked from the names
 * (cubemap_pick_faces: face names, extensions, duplicates, missing faces),
 * then each face decoded and checked against +X in driver order
 * (cubemap_decode_face: square, same size, all HDR or all LDR), stopping at
 * the first failure as the driver does.
 *
 * The description: files separated by the line "--" ("\n--\n"); each file is
 * its name up to the first '\n', then its bytes. A file named twice keeps its
 * first bytes. For example
 *   px.png\n<PNG bytes>\n--\nnx.hdr\n<HDR bytes>\n--\nreadme.txt\nhello
 * Decoding uses texture.max_dimension 1024 so an image claiming to be huge is
 * refused before it is allocated, as at any limit. */
#include "cook/drivers/drivers.h"
#include "fuzz_import.h"

#define MAX_FILES 64

typedef struct fuzz_file {
    const uint8_t *name, *bytes;
    size_t name_size, size;
} fuzz_file;

static const uint8_t *find_separator(const uint8_t *p, const uint8_t *end) {
    for (; end - p >= 4; p++)
        if (p[0] == '\n' && p[1] == '-' && p[2] == '-' && p[3] == '\n')
            return p;
    return NULL;
}

static size_t split_files(const uint8_t *data, size_t size, fuzz_file *files) {
    size_t count = 0;
    const uint8_t *p = data, *end = data + size;
    while (count < MAX_FILES && p < end) {
        const uint8_t *stop = find_separator(p, end);
        const uint8_t *file_end = stop != NULL ? stop : end;
        const uint8_t *newline = memchr(p, '\n', (size_t)(file_end - p));
        const uint8_t *name_end = newline != NULL ? newline : file_end;
        files[count++] =
            (fuzz_file){.name = p,
                        .name_size = (size_t)(name_end - p),
                        .bytes = newline != NULL ? newline + 1 : file_end,
                        .size = newline != NULL ? (size_t)(file_end - newline - 1) : 0};
        if (stop == NULL)
            break;
        p = stop + 4;
    }
    return count;
}

/* The bytes of the first file named `name`. */
static const fuzz_file *file_named(const fuzz_file *files, size_t count, const char *name) {
    size_t length = strlen(name);
    for (size_t i = 0; i < count; i++)
        if (files[i].name_size == length && memcmp(files[i].name, name, length) == 0)
            return &files[i];
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_file files[MAX_FILES];
    size_t count = split_files(data, size, files);
    strlist names = {0};
    for (size_t i = 0; i < count; i++) {
        /* A name with a NUL byte cannot be a file name; the listing has no
         * empty names and each name once. */
        if (files[i].name_size == 0 || memchr(files[i].name, '\0', files[i].name_size) != NULL)
            continue;
        char *name = fuzz_text(files[i].name, files[i].name_size);
        if (name != NULL && !strlist_contains(&names, name))
            (void)strlist_push(&names, name);
        free(name);
    }
    strlist_sort(&names); /* as discover_walk sorts a folder */

    cook_settings settings;
    cook_settings_default(&settings);
    settings.texture_max_dimension = 1024;
    cook_diag diag = {0};
    cook_context ctx = {
        .input_root = FUZZ_INPUT_ROOT,
        .source_path = "fuzz.env",
        .ref = "fuzz",
        .settings = &settings,
        .diag = &diag,
    };
    char *faces[CUBEMAP_FACES] = {0};
    ir_decoded_image images[CUBEMAP_FACES] = {0};
    cubemap_face_shape first = {0};
    bool ok = cubemap_pick_faces(&ctx, &names, faces);
    for (uint32_t f = 0; ok && f < CUBEMAP_FACES; f++) {
        const fuzz_file *file = file_named(files, count, faces[f]);
        ok = file != NULL;
        /* An exact-size copy: ASan sees the end of the face's bytes. */
        uint8_t *bytes = ok ? fuzz_copy(file->bytes, file->size) : NULL;
        ok = bytes != NULL && cubemap_decode_face(&ctx, bytes, file->size, faces[f], f,
                                                  f > 0 ? &first : NULL, &images[f]);
        free(bytes);
        if (ok && f == 0)
            first = (cubemap_face_shape){.size = images[0].width, .hdr = images[0].rgbaf != NULL};
    }
    for (uint32_t f = 0; f < CUBEMAP_FACES; f++) {
        size_t texels = (size_t)images[f].width * images[f].height * 4;
        if (ok && images[f].rgba8 != NULL)
            fuzz_touch(images[f].rgba8, texels);
        if (ok && images[f].rgbaf != NULL)
            fuzz_touch(images[f].rgbaf, texels * sizeof(float));
        ir_decoded_image_free(&images[f]);
        free(faces[f]);
    }
    strlist_free(&names);
    diag_free(&diag);
    return 0;
}
