/* cooked.c — messages about the files of an output folder. */
#include <string.h>

#include "cli/cli.h"

const char *cli_kiln_error_detail(const kiln_error *error, const char *path) {
    return inspect_error_detail(error, path);
}
