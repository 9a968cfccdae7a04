/*
 * cli.h — the pieces of the `kiln` command-line tool shared between files.
 *
 *   main.c       the executable: calls cli_main
 *   commands.c   cli_main, the dispatch table: command name -> function
 *   cmd_*.c      one file per command (build, info, check, init, pack, clean, pose,
 *                watch)
 *   build/       the modules of `kiln build` (build/build.h)
 *   options.c    getopt_long helpers and usage errors
 *   paths.c      small path helpers, how diagnostics name sources
 *   json.c       JSON documents through jansson
 *   info*.c      the parts of `kiln info` (info.h)
 *   progress.c   what a build prints while it runs
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

#include "cook/cook.h"

enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_FAILURE = 1,
    CLI_EXIT_USAGE = 2,
};

#define CLI_DEFAULT_INPUT "assets"
#define CLI_DEFAULT_OUTPUT "runtime"
#define CLI_CONFIG_FILE "kiln.yml"

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
int cmd_watch(int argc, char **argv);

void cmd_build_usage(FILE *out);
void cmd_info_usage(FILE *out);
void cmd_check_usage(FILE *out);
void cmd_init_usage(FILE *out);
void cmd_pack_usage(FILE *out);
void cmd_clean_usage(FILE *out);
void cmd_pose_usage(FILE *out);
void cmd_watch_usage(FILE *out);

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

/* Fails with a usage error when operands are left after the options. */
bool cli_reject_operands(const char *command, int argc, char **argv);

/* "kiln: error: <message>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* cli_error plus a hint to run `kiln <command> --help`; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* "s" unless count is 1, for "1 file" / "2 files". */
const char *cli_plural(size_t count);

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

/* Source diagnostics name their files relative to the input folder; printed,
 * they start with the input folder as given ("assets/models/cube.obj:3: ..."),
 * so that the path opens from the current folder. NULL: print them as they
 * are (kiln.yml's own messages, before a build names its input). */
void cli_set_source_folder(const char *folder);
/* What goes before diagnostic `line` when printed: the input folder and a
 * '/', or nothing. */
void cli_append_source_folder(bytebuf *out, const char *line);

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

typedef enum progress_verbosity {
    PROGRESS_QUIET = 0,   /* errors only */
    PROGRESS_NORMAL = 1,  /* diagnostics, summary, progress line on a terminal */
    PROGRESS_VERBOSE = 2, /* plus one line per asset and per skipped file */
} progress_verbosity;

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
/* Prints a line on `stream` without tearing the progress line. */
void progress_print(progress_reporter *reporter, FILE *stream, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Removes the progress line for good (before the summary). */
void progress_end(progress_reporter *reporter);

/* Writes diagnostic text line by line; with errors_only, only lines that
 * contain ": error: " are kept. */
void progress_write_diagnostics(FILE *stream, const char *text, size_t size, bool errors_only);

#endif /* KILN_CLI_CLI_H */
