/*
 * cmd_extract.c — `kiln extract TEXTURE.ktx2 OUT.png [--level N] [--face F]
 * [--layer L] [--via TARGET]`: one image of a cooked texture decoded to RGBA8
 * (inspect_texture_decode) and written as PNG, so a person sees what a GPU
 * samples.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/ktx2_format.h"

#define COMMAND "extract"

enum { OPTION_LEVEL = 256, OPTION_FACE, OPTION_LAYER, OPTION_VIA };

static const struct option extract_long_options[] = {
    {"level", required_argument, NULL, OPTION_LEVEL},
    {"face", required_argument, NULL, OPTION_FACE},
    {"layer", required_argument, NULL, OPTION_LAYER},
    {"via", required_argument, NULL, OPTION_VIA},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

void cmd_extract_usage(FILE *out) {
    fprintf(out, "Usage: kiln extract TEXTURE.ktx2 OUT.png [--level N] [--face F] [--layer L]\n"
                 "                    [--via TARGET]\n"
                 "\n"
                 "Decodes one image of a cooked texture and writes it as an 8-bit RGBA PNG:\n"
                 "what a GPU samples. Block formats (BC1-BC7, ASTC) are decoded by kiln's own\n"
                 "decoders, UASTC by libkiln's (UNORM8 interpolation, as Basis Universal's\n"
                 "unpack); sRGB textures keep their sRGB values; float textures (RGBA16F,\n"
                 "BC6H, ASTC HDR) are tone-mapped (v / (1 + v), gamma 1/2.2) with alpha\n"
                 "clamped to 0..1. A 3D texture's slices are stacked top to bottom.\n"
                 "\n"
                 "Options:\n"
                 "      --level N     mip level (default 0, the largest)\n"
                 "      --face F      cubemap face 0..5 (+X -X +Y -Y +Z -Z; default 0)\n"
                 "      --layer L     array layer (default 0)\n"
                 "      --via TARGET  how a UASTC texture is decoded: rgba (the default:\n"
                 "                    straight to RGBA8), or bc7, astc, etc1, etc2, bc1, bc3\n"
                 "                    (transcoded to BC7, ASTC 4x4, ETC1 RGB, ETC2 RGBA8, BC1\n"
                 "                    or BC3 as libkiln does at load time, then decoded: what\n"
                 "                    such a GPU samples); for other formats an error\n"
                 "  -h, --help        show this help\n"
                 "\n"
                 "Exit status: 0, 1 when the texture cannot be read or decoded, the image\n"
                 "does not exist or the PNG cannot be written, 2 for a command-line mistake.\n");
}

/* --via's names of the transcode targets. */
static const struct {
    const char *name;
    kiln_transcode_target target;
} via_targets[] = {
    {"rgba", KILN_TRANSCODE_RGBA8},      {"bc7", KILN_TRANSCODE_BC7},
    {"astc", KILN_TRANSCODE_ASTC_4X4},   {"etc1", KILN_TRANSCODE_ETC1_RGB},
    {"etc2", KILN_TRANSCODE_ETC2_RGBA8}, {"bc1", KILN_TRANSCODE_BC1},
    {"bc3", KILN_TRANSCODE_BC3},
};

/* "rgba, bc7, …": the names, for an error. */
static void via_accepted(char *out, size_t size) {
    out[0] = '\0';
    for (size_t i = 0; i < sizeof via_targets / sizeof via_targets[0]; i++)
        snprintf(out + strlen(out), size - strlen(out), "%s%s", i ? ", " : "", via_targets[i].name);
}

static bool via_target(const char *name, kiln_transcode_target *target) {
    for (size_t i = 0; i < sizeof via_targets / sizeof via_targets[0]; i++)
        if (strcmp(name, via_targets[i].name) == 0) {
            *target = via_targets[i].target;
            return true;
        }
    return false;
}

typedef struct extract_request {
    const char *texture, *png;
    inspect_texture_image which;
    const char *via;
} extract_request;

static int parse_arguments(int argc, char **argv, extract_request *request) {
    cli_getopt_reset();
    int option;
    while ((option = getopt_long(argc, argv, CLI_GETOPT_PREFIX "h", extract_long_options, NULL)) !=
           -1) {
        uint32_t *index = option == OPTION_LEVEL   ? &request->which.level
                          : option == OPTION_FACE  ? &request->which.face
                          : option == OPTION_LAYER ? &request->which.layer
                                                   : NULL;
        unsigned long value;
        if (index != NULL) {
            if (!cli_parse_whole(optarg, 0, UINT32_MAX, &value))
                return cli_usage_error(COMMAND, "'%s' is not a %s number", optarg,
                                       extract_long_options[option - OPTION_LEVEL].name);
            *index = (uint32_t)value;
        } else if (option == OPTION_VIA) {
            request->via = optarg;
        } else if (option == 'h') {
            cmd_extract_usage(stdout);
            return CLI_EXIT_OK;
        } else {
            return cli_option_error(COMMAND, argv, extract_long_options, option);
        }
    }
    if (argc - optind != 2) {
        if (argc - optind > 2)
            return cli_usage_error(COMMAND, "unexpected argument '%s'", argv[optind + 2]);
        return cli_usage_error(COMMAND, "needs a texture and a PNG to write");
    }
    request->texture = argv[optind];
    request->png = argv[optind + 1];
    return -1;
}

/* Writes `size` bytes to `path` (created or replaced). */
static bool write_file(const char *path, const uint8_t *data, size_t size) {
    FILE *file = fopen(path, "wb");
    if (file == NULL) {
        cli_error("%s: cannot write: %s", path, strerror(errno));
        return false;
    }
    bool ok = fwrite(data, 1, size, file) == size;
    int write_errno = errno;
    ok = fclose(file) == 0 && ok;
    if (!ok)
        cli_error("%s: cannot write: %s", path, strerror(write_errno ? write_errno : EIO));
    return ok;
}

int cmd_extract(int argc, char **argv) {
    extract_request request = {0};
    int status = parse_arguments(argc, argv, &request);
    if (status >= 0)
        return status;
    kiln_ktx2_file file = {0};
    kiln_error error;
    if (kiln_ktx2_map(&file, request.texture, &error) != KILN_OK) {
        cli_error("%s: %s", request.texture, inspect_error_detail(&error, request.texture));
        return CLI_EXIT_FAILURE;
    }
    bool uastc = file.view.vk_format == KTX2_VK_FORMAT_UNDEFINED &&
                 file.view.dfd_color_model == KTX2_DF_MODEL_UASTC;
    /* --via names how a UASTC file is decoded; on another format, or naming
     * no target, it is refused rather than ignored. */
    if (request.via != NULL && (!uastc || !via_target(request.via, &request.which.via))) {
        if (!uastc)
            cli_error("%s: --via %s: not a UASTC texture (it is %s)", request.texture, request.via,
                      kiln_ktx2_format_str(file.view.vk_format));
        else {
            char accepted[128];
            via_accepted(accepted, sizeof accepted);
            cli_error("%s: --via %s: not a transcode target kiln has (accepted: %s)",
                      request.texture, request.via, accepted);
        }
        kiln_ktx2_close(&file);
        return CLI_EXIT_FAILURE;
    }
    inspect_rgba8_image image;
    char reason[512];
    bool ok = inspect_texture_decode(&file.view, &request.which, &image, reason, sizeof reason);
    kiln_ktx2_close(&file);
    if (!ok) {
        cli_error("%s: %s", request.texture, reason);
        return CLI_EXIT_FAILURE;
    }
    uint8_t *png = NULL;
    size_t png_size = 0;
    ok = inspect_png_encode(&image, &png, &png_size, reason, sizeof reason);
    inspect_rgba8_image_free(&image);
    if (!ok)
        cli_error("%s: %s", request.png, reason);
    else
        ok = write_file(request.png, png, png_size);
    free(png);
    return ok ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}
