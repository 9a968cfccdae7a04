/*
 * cmd_report.c — `kiln report [-o OUTPUT] [FILE.html]`: the output folder's
 * build report as one self-contained HTML page (report.h); also what `kiln
 * build --report FILE.html` writes after its build.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/report.h"

#define COMMAND "report"
#define REPORT_DEFAULT_FILE "kiln-report.html"

static const struct option report_long_options[] = {
    {"output", required_argument, NULL, 'o'},
    {"config", required_argument, NULL, 'c'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

void cmd_report_usage(FILE *out) {
    fprintf(out, "Usage: kiln report [-o OUTPUT] [--config FILE] [FILE.html]\n"
                 "\n"
                 "Writes one self-contained HTML page (default " REPORT_DEFAULT_FILE ") about the\n"
                 "output folder: per asset ref of its manifest the kind, source, cooked file\n"
                 "and size, cook time per stage, the warnings of its last cook, the refs it\n"
                 "names and that name it, and a thumbnail (textures decoded from what was\n"
                 "cooked; scenes rendered by the Vulkan viewer kiln-view where it is\n"
                 "installed); bytes per kind as a chart; the assets the last build cooked\n"
                 "marked. The page needs no network: sort by a column's head, filter with the\n"
                 "box (or FILE.html?filter=TEXT&sort=bytes&order=desc).\n"
                 "\n"
                 "Options:\n"
                 "  -o, --output DIR   the output folder (default: as `kiln build` decides it)\n"
                 "      --config FILE  read FILE instead of looking for " BUILD_CONFIG_FILE "\n"
                 "  -h, --help         show this help\n"
                 "\n"
                 "Exit status: 0, 1 when the folder has no manifest or the page cannot be\n"
                 "written, 2 for a command-line mistake.\n");
}

int report_write_file(const char *output, const char *html_path) {
    report r;
    char reason[512];
    if (!report_load(&r, output, reason, sizeof reason)) {
        cli_error("%s: no build to report on: %s", output, reason);
        return CLI_EXIT_FAILURE;
    }
    report_make_thumbnails(&r);
    bytebuf html = {0};
    report_write_html(&r, &html);
    report_free(&r);
    bool ok = !html.failed;
    if (!ok)
        cli_error("%s: out of memory", html_path);
    else if (!write_file_atomic(html_path, html.data, html.size, reason, sizeof reason)) {
        cli_error("%s: cannot write: %s", html_path, reason);
        ok = false;
    }
    bytebuf_free(&html);
    return ok ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

int cmd_report(int argc, char **argv) {
    const char *output = NULL, *config = NULL;
    cli_getopt_reset();
    int option;
    while ((option = getopt_long(argc, argv, CLI_GETOPT_PREFIX "o:h", report_long_options, NULL)) !=
           -1) {
        if (option == 'o') {
            output = optarg;
        } else if (option == 'c') {
            config = optarg;
        } else if (option == 'h') {
            cmd_report_usage(stdout);
            return CLI_EXIT_OK;
        } else {
            return cli_option_error(COMMAND, argv, report_long_options, option);
        }
    }
    if (argc - optind > 1)
        return cli_usage_error(COMMAND, "unexpected argument '%s'", argv[optind + 1]);
    const char *html_path = optind < argc ? argv[optind] : REPORT_DEFAULT_FILE;
    build_options options = build_default_options();
    options.progress = cli_terminal_progress();
    options.output = output;
    options.config = config;
    build_setup setup;
    int status = build_setup_load(&options, &setup);
    if (status < 0)
        status = report_write_file(setup.output, html_path);
    config_free(&setup.config);
    return status;
}
