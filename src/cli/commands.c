/*
 * commands.c — `kiln [command] [options]`: a table from command names to their
 * functions (cli_main). Without a command (or when the first argument is an
 * option) the command is `build`.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    void (*usage)(FILE *out);
    const char *summary;
} cli_command;

static const cli_command commands[] = {
    {"build", cmd_build, cmd_build_usage, "cook the input folder into the output folder (default)"},
    {"info", cmd_info, cmd_info_usage, "list what the output folder holds (--json for scripts)"},
    {"check", cmd_check, cmd_check_usage, "validate every cooked file; non-zero exit on problems"},
    {"init", cmd_init, cmd_init_usage, "write a commented starter kiln.yml"},
    {"pack", cmd_pack, cmd_pack_usage, "pack info [FILE]: layout and entries of a .kpak"},
    {"clean", cmd_clean, cmd_clean_usage, "remove what kiln wrote into the output folder"},
    {"watch", cmd_watch, cmd_watch_usage,
     "build, then cook again what changes (--serve: on demand)"},
    {"pose", cmd_pose, cmd_pose_usage, "print a cooked scene's nodes with their world matrices"},
    {"mv", cmd_mv, cmd_mv_usage, "move a source with its sidecar, keeping its ID; fix levels"},
    {"extract", cmd_extract, cmd_extract_usage, "decode a cooked texture's image to PNG"},
    {"report", cmd_report, cmd_report_usage, "write the output folder's HTML build report"},
};

#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

static const cli_command *find_command(const char *name) {
    for (size_t i = 0; i < COMMAND_COUNT; i++) {
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    }
    return NULL;
}

static void print_version(void) {
    printf("kiln %s (encoder %u)\n", KILN_VERSION_STRING, KILN_ENCODER_VERSION);
}

static void print_help(FILE *out) {
    fprintf(out,
            "kiln %s - cooks game assets into engine-ready files\n"
            "\n"
            "Usage: kiln [command] [options]\n"
            "\n"
            "Commands:\n",
            KILN_VERSION_STRING);
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "  %-8s %s\n", "help", "list the commands, or show one command's options");
    fprintf(out, "\n"
                 "Run 'kiln COMMAND --help' (or 'kiln help COMMAND') for a command's options.\n"
                 "'kiln --version' prints the version and the encoder version.\n");
}

static int top_level_usage_error(const char *what, const char *argument) {
    cli_error("%s '%s'", what, argument);
    fprintf(stderr, "Run 'kiln help' for the list of commands.\n");
    return CLI_EXIT_USAGE;
}

/* "unknown command 'buidl'", with the nearest command's name when one is close. */
static int unknown_command(const char *typed) {
    const char *names[COMMAND_COUNT + 1];
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        names[i] = commands[i].name;
    names[COMMAND_COUNT] = "help";
    const char *nearest = cli_nearest_name(typed, names, COMMAND_COUNT + 1);
    if (nearest == NULL)
        return top_level_usage_error("unknown command", typed);
    cli_error("unknown command '%s'; did you mean '%s'?", typed, nearest);
    fprintf(stderr, "Run 'kiln help' for the list of commands.\n");
    return CLI_EXIT_USAGE;
}

static void help_usage(FILE *out) {
    fprintf(out, "Usage: kiln help [COMMAND]\n"
                 "\n"
                 "Lists the commands, or shows COMMAND's options (as 'kiln COMMAND --help').\n");
}

static bool is_option(const char *argument, const char *long_name, const char *short_name) {
    return strcmp(argument, long_name) == 0 ||
           (short_name != NULL && strcmp(argument, short_name) == 0);
}

/* `kiln help [command]`: argv[0] is "help". `kiln help help` and
 * `kiln help --help` show help's own usage. */
static int run_help(int argc, char **argv) {
    if (argc <= 1) {
        print_help(stdout);
        return CLI_EXIT_OK;
    }
    if (argc > 2)
        return top_level_usage_error("unexpected argument", argv[2]);
    if (strcmp(argv[1], "help") == 0 || is_option(argv[1], "--help", "-h")) {
        help_usage(stdout);
        return CLI_EXIT_OK;
    }
    const cli_command *command = find_command(argv[1]);
    if (command == NULL)
        return unknown_command(argv[1]);
    command->usage(stdout);
    return CLI_EXIT_OK;
}

int cli_main(int argc, char **argv) {
    char build_name[] = "build";
    if (argc < 2) {
        /* `kiln` alone builds with the defaults. */
        char *build_argv[] = {build_name, NULL};
        return cmd_build(1, build_argv);
    }
    const char *first = argv[1];
    if (is_option(first, "--version", NULL)) {
        if (argc > 2)
            return top_level_usage_error("unexpected argument", argv[2]);
        print_version();
        return CLI_EXIT_OK;
    }
    if (is_option(first, "--help", "-h"))
        return run_help(argc - 1, argv + 1);
    if (strcmp(first, "help") == 0)
        return run_help(argc - 1, argv + 1);

    if (first[0] == '-') {
        /* Options straight away: they are build's; argv[0] becomes its name. */
        argv[0] = build_name;
        return cmd_build(argc, argv);
    }
    const cli_command *command = find_command(first);
    if (command == NULL)
        return unknown_command(first);
    return command->run(argc - 1, argv + 1);
}
