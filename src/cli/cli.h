/*
 * cli.h — the pieces of the `kiln` command-line tool shared between files.
 *
 *   main.c       the executable: calls cli_main
 *   commands.c   cli_main, the dispatch table: command name -> function
 *   cmd_*.c      one file per command (build, info, check, init, pack, clean, pose,
 *                watch, extract, report, mv); source_settings.c: one source's
 *                settings and where they come from (init --sidecar, info --settings)
 *   watch*.c     the parts of `kiln watch` (watch.h): its events, rounds and
 *                cook server
 *   report_*.c   the HTML build report (report.h)
 *   progress.c   the terminal's build_progress (the engine is build/build.h), how
 *                diagnostics name sources
 *   options.c    getopt_long helpers and usage errors
 *   paths.c      small path helpers
 *   json.c       JSON documents through jansson
 *   info*.c      the parts of `kiln info` (info.h)
 *
 * Output conventions: results go to stdout; diagnostics (`path: error: …`),
 * progress and usage errors go to stderr. Exit status: 0 success, 1 something
 * failed (an asset, a check, a missing folder), 2 the command line was wrong.
 */
#ifndef KILN_CLI_CLI_H
#define KILN_CLI_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "build/build.h"
#include "cook/cook.h"

enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_FAILURE = 1,
    CLI_EXIT_USAGE = 2,
};

/* ---------------------------------------------------------------------------
 * Commands: argv[0] is the command's name, its options follow.
 * ------------------------------------------------------------------------- */

/* The whole command line (argv[0] is the program): what `kiln` runs. */
int cli_main(int argc, char **argv);

int cmd_build(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_clean(int argc, char **argv);
int cmd_pose(int argc, char **argv);
int cmd_mv(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_extract(int argc, char **argv);
int cmd_report(int argc, char **argv);

void cmd_build_usage(FILE *out);
void cmd_info_usage(FILE *out);
void cmd_check_usage(FILE *out);
void cmd_init_usage(FILE *out);
void cmd_pack_usage(FILE *out);
void cmd_clean_usage(FILE *out);
void cmd_pose_usage(FILE *out);
void cmd_mv_usage(FILE *out);
void cmd_watch_usage(FILE *out);
void cmd_extract_usage(FILE *out);
void cmd_report_usage(FILE *out);

/* `kiln info [--json] FILE.kshader` (shader_info.c): the program's stages,
 * entry points, SPIR-V bytes and reflected interface. */
int cli_shader_info(const char *path, bool json);
/* `kiln pack info FILE` and `kiln info [--json] FILE.kpak` (cmd_pack.c): the
 * pack's layout and entries; exit status 1 with the reason when it is no
 * valid pack. */
int cli_pack_describe(const char *path, bool json);

/* ---------------------------------------------------------------------------
 * options.c
 * ------------------------------------------------------------------------- */

/* Every command's getopt_long string starts with this, so that a missing
 * option value is told apart from an unknown option. */
#define CLI_GETOPT_PREFIX ":"

/* Prepares getopt_long for parsing a new argument vector. */
void cli_getopt_reset(void);

/* Turns a getopt_long error return (':' or '?') into a message on stderr;
 * `options` is the table that was passed to getopt_long. Returns CLI_EXIT_USAGE. */
int cli_option_error(const char *command, char **argv, const struct option *options,
                     int getopt_result);

/* The one of `names` nearest to `typed` within two edits (letters inserted,
 * removed, replaced or two neighbours swapped), for "did you mean"; NULL
 * when none is that close. */
const char *cli_nearest_name(const char *typed, const char *const *names, size_t count);

/* An option's whole number: least..most in decimal digits alone (no sign,
 * no spaces, no suffix); false for anything else. */
bool cli_parse_whole(const char *text, unsigned long least, unsigned long most,
                     unsigned long *value);

/* Fails with a usage error when operands are left after the options. */
bool cli_reject_operands(const char *command, int argc, char **argv);

/* "kiln: error: <message>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* cli_error plus a hint to run `kiln <command> --help`; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The hint alone, after an error the engine said (build_status BUILD_USAGE);
 * returns CLI_EXIT_USAGE. */
int cli_usage_hint(const char *command);

/* "s" unless count is 1, for "1 file" / "2 files". */
const char *cli_plural(size_t count);

/* source_settings.c: `kiln init --sidecar SOURCE` and `kiln info --settings
 * SOURCE` (kiln.yml found as `kiln build` finds it). */
int cli_init_sidecar(const char *config, const char *input, const char *source);
int cli_print_source_settings(const char *input, const char *source);

/* ---------------------------------------------------------------------------
 * paths.c
 * ------------------------------------------------------------------------- */

/* True when `path` is an existing folder. Otherwise prints
 * "kiln: error: <role> folder '<path>' does not exist" (or "is not a folder"). */
bool cli_require_folder(const char *path, const char *role);

/* True when both paths name the same existing file or folder. */
bool cli_same_file(const char *a, const char *b);

/* The part of `path` after its last '/'. */
const char *cli_file_name(const char *path);

/* `path` (as typed, relative to the working folder) relative to the input
 * folder `input` ("assets/props/crate.obj" -> "props/crate.obj"; caller
 * frees), or NULL when it is not inside it or its folder does not exist.
 * The file itself need not exist (kiln mv's destination). */
char *cli_input_relative(const char *input, const char *path);

/* Source diagnostics name their files relative to the input folder; printed,
 * they start with the input folder as given ("assets/models/cube.obj:3: ..."),
 * so that the path opens from the current folder. NULL: print them as they
 * are (kiln.yml's own messages, before a build names its input). */
void cli_set_source_folder(const char *folder);
/* The folder set by cli_set_source_folder, or NULL. */
const char *cli_source_folder(void);

/* Lists the files of a cooked output folder (sorted, relative paths). Prints
 * an error and returns false when the folder is missing or unreadable. */
bool cli_list_output(const char *output, strlist *files);

/* ---------------------------------------------------------------------------
 * cooked.c — what an output folder holds
 * ------------------------------------------------------------------------- */

/* A cooked file's kind comes from its name: kiln_pack_kind_of (kiln.h), the
 * runtime's one table, named by kiln_pack_kind_str. */

/* qsort/bsearch comparison of two `const char *` elements, bytewise. */
int cli_compare_strings(const void *a, const void *b);
/* The runtime's message without the "<file>: " it starts with, for printing
 * after "<path>: error: ". */
const char *cli_kiln_error_detail(const kiln_error *error, const char *path);
/* jansson values, printed by cli_json_print. A number that is whole within
 * 2^53 is written as an integer (as %g did), any other rounded to
 * `significant` digits (9 is exact for a float); NaN and infinity are null. */
/* ---------------------------------------------------------------------------
 * json.c — the commands' JSON documents (jansson)
 * ------------------------------------------------------------------------- */

struct json_t;
struct json_t *cli_json_number(double value, int significant);
/* A JSON string of `text`; bytes that are not UTF-8 become U+FFFD. */
struct json_t *cli_json_string(const char *text);
/* The document on `out` as the commands print it: a top-level object with
 * one key per line, an array of objects one object per line, everything
 * else compact; a newline at the end. False when it cannot be written. */
bool cli_json_print(FILE *out, const struct json_t *document);
/* The document compact on one line, and a newline. */
bool cli_json_print_line(FILE *out, const struct json_t *document);

/* ---------------------------------------------------------------------------
 * progress.c — a build's live output, safe to call from every worker
 * ------------------------------------------------------------------------- */

typedef struct progress_reporter progress_reporter;

/* An asset cooking for longer than this shows in the progress line. */
#define PROGRESS_SLOW_SECONDS 2

/* `total`: the assets the build will finish (cooked, failed, up to date or
 * through a model); `workers`: how many cook at once (-j). NULL on allocation
 * failure. The updating line is shown only when stderr is a terminal and
 * verbosity is not quiet; an asset cooking for more than PROGRESS_SLOW_SECONDS
 * then shows in it with its stage. */
progress_reporter *progress_create(size_t total, progress_verbosity verbosity, unsigned workers);
void progress_destroy(progress_reporter *reporter);

/* Returns where the asset's cook reports its stage (cook_request.activity),
 * or NULL when nothing shows it. */
cook_activity *progress_asset_started(progress_reporter *reporter, const char *source_path);
/* Prints the asset's diagnostics (errors only when quiet), in verbose mode a
 * line saying what was cooked, and moves the progress line on. */
void progress_asset_finished(progress_reporter *reporter, const char *source_path,
                             const cook_asset_result *result);
/* Counts an asset as done that needed no cooking (up to date, or cooked
 * through a model), printing only the diagnostics its cache record replays
 * (`replayed`, may be NULL) as its cook printed them. */
void progress_asset_settled(progress_reporter *reporter, const char *source_path,
                            const cook_diag *replayed);
/* More assets will finish than `total` said (references found while cooking). */
void progress_add_total(progress_reporter *reporter, size_t more);
/* Removes the progress line for good (before the summary). */
void progress_end(progress_reporter *reporter);

/* Writes diagnostic text line by line; with errors_only, only lines that
 * contain ": error: " are kept. */
void progress_write_diagnostics(FILE *stream, const char *text, size_t size, bool errors_only);

/* The terminal's build_progress: the progress line above, while a build
 * cooks, and the engine's messages on stdout and stderr. */
const build_progress *cli_terminal_progress(void);
/* Options whose messages go to the terminal, for engine calls outside a build
 * (build_require_folder, build_list_output). */
const build_options *cli_message_options(void);

/* ---------------------------------------------------------------------------
 * cmd_build.c: the options build, watch and clean share
 * ------------------------------------------------------------------------- */

/* The options `kiln build` and `kiln clean` share: where the output folder
 * is (-o, --config, --preset), -n / --dry-run, -q, -v and -h. Each command's
 * table starts with BUILD_SHARED_LONG_OPTIONS; its own long options take
 * values from BUILD_OPTION_OWN on. */
enum {
    BUILD_OPTION_CONFIG = 256,
    BUILD_OPTION_PRESET,
    BUILD_OPTION_IMPORT_TIMEOUT,
    BUILD_OPTION_ASSET_TIMEOUT,
    BUILD_OPTION_MEMORY_LIMIT,
    BUILD_OPTION_REMOTE_CACHE,
    BUILD_OPTION_NO_REMOTE_CACHE,
    BUILD_OPTION_REMOTE_CACHE_MODE,
    BUILD_OPTION_OWN
};
#define BUILD_SHARED_SHORT_OPTIONS "o:nqvh"
/* clang-format off */
#define BUILD_SHARED_LONG_OPTIONS                                                                  \
    {"output", required_argument, NULL, 'o'},                                                      \
    {"config", required_argument, NULL, BUILD_OPTION_CONFIG},                                      \
    {"preset", required_argument, NULL, BUILD_OPTION_PRESET},                                      \
    {"dry-run", no_argument, NULL, 'n'},                                                           \
    {"quiet", no_argument, NULL, 'q'},                                                             \
    {"verbose", no_argument, NULL, 'v'},                                                           \
    {"help", no_argument, NULL, 'h'}
/* The options of the commands that cook (build, watch), taken by
 * build_cook_option. */
#define BUILD_COOK_SHORT_OPTIONS "i:j:"
#define BUILD_COOK_LONG_OPTIONS                                                                    \
    {"input", required_argument, NULL, 'i'},                                                       \
    {"jobs", required_argument, NULL, 'j'},                                                        \
    {"memory-limit", required_argument, NULL, BUILD_OPTION_MEMORY_LIMIT},                          \
    {"import-timeout", required_argument, NULL, BUILD_OPTION_IMPORT_TIMEOUT},                      \
    {"asset-timeout", required_argument, NULL, BUILD_OPTION_ASSET_TIMEOUT},                        \
    {"remote-cache", required_argument, NULL, BUILD_OPTION_REMOTE_CACHE},                          \
    {"no-remote-cache", no_argument, NULL, BUILD_OPTION_NO_REMOTE_CACHE},                          \
    {"remote-cache-mode", required_argument, NULL, BUILD_OPTION_REMOTE_CACHE_MODE}
/* clang-format on */

/* build_default_options with the terminal's progress. */
build_options cli_default_build_options(void);
/* Takes one shared option other than -h (its value in optarg); false when
 * `option` is not one. */
bool build_shared_option(int option, build_options *options);
/* After the options: -q with -v, or an empty folder name, is a usage error
 * (returns CLI_EXIT_USAGE); otherwise sets the verbosity and returns -1. */
int build_shared_options_done(const char *command, build_options *options);
/* BUILD_COOK_LONG_OPTIONS of build and watch: 0 when `option` is none of
 * them, -1 when taken, else a usage error's exit status. */
int build_cook_option(const char *command, int option, const char *arg, build_options *options);
/* A cooking command's own options, for cli_parse_cook_options: -1 when
 * `option` is one (taken, its value in `arg`), 0 when it is not, else a
 * usage error's exit status. */
typedef int (*cli_own_option)(int option, const char *arg, void *context);
/* The getopt_long loop of build and watch over `long_options` (which holds
 * BUILD_SHARED_LONG_OPTIONS and BUILD_COOK_LONG_OPTIONS): the cook options
 * (build_cook_option), then the command's (`own`), -h (`usage` on stdout,
 * CLI_EXIT_OK), then the shared ones (build_shared_option); anything else is
 * a usage error. Returns -1 when every option was taken (the operands start
 * at optind), otherwise the exit status. */
int cli_parse_cook_options(const char *command, int argc, char **argv,
                           const struct option *long_options, void (*usage)(FILE *),
                           cli_own_option own, void *context, build_options *options);
/* build_setup_load for a command: also says how to start when there is no
 * kiln.yml and no input folder (`kiln init`, or -i DIR). */
int cli_build_setup_load(const build_options *options, build_setup *setup);

/* The folders of a command that reads the output (info, check, pack info):
 * -i and -o as given (NULL: not given), else kiln.yml's preset and
 * `input:`/`output:`, else the defaults: build_setup_load decides, as for
 * build, clean and watch. Returns -1 to go on, else the exit status; the
 * caller frees setup->config either way. */
int cli_load_folders(const char *input, const char *output, build_setup *setup);

#endif /* KILN_CLI_CLI_H */
