/* options.c — getopt_long helpers and usage errors shared by the commands. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

bool cli_parse_whole(const char *text, unsigned long least, unsigned long most,
                     unsigned long *value) {
    if (text[0] < '0' || text[0] > '9')
        return false; /* strtoul would take a sign or spaces */
    char *end = NULL;
    errno = 0;
    unsigned long parsed = strtoul(text, &end, 10);
    if (errno != 0 || *end != '\0' || parsed < least || parsed > most)
        return false;
    *value = parsed;
    return true;
}

void cli_getopt_reset(void) {
#ifdef __GLIBC__
    optind = 0; /* glibc: 0 also resets its internal state (argument permutation) */
#else
    optind = 1;
#endif
    opterr = 0; /* the commands print their own messages */
}

__attribute__((format(printf, 1, 0))) static void vprint_error(const char *fmt, va_list args) {
    char message[2048], escaped[4 * sizeof message];
    vsnprintf(message, sizeof message, fmt, args);
    /* Messages name files: printed escaped (cook_escape_to). */
    fprintf(stderr, "kiln: error: %s\n", cook_escape_to(escaped, sizeof escaped, message));
}

void cli_error(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vprint_error(fmt, args);
    va_end(args);
}

int cli_usage_error(const char *command, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vprint_error(fmt, args);
    va_end(args);
    return cli_usage_hint(command);
}

int cli_usage_hint(const char *command) {
    fprintf(stderr, "Try 'kiln %s --help' for the list of options.\n", command);
    return CLI_EXIT_USAGE;
}

/* The long option `typed` ("--name" or "--name=value") names, if it is one of
 * `options` whose value is `short_value` (0: any). */
static const struct option *typed_long_option(const char *typed, const struct option *options,
                                              int short_value) {
    if (typed == NULL || strncmp(typed, "--", 2) != 0)
        return NULL;
    const char *name = typed + 2;
    size_t length = strcspn(name, "=");
    for (const struct option *option = options; option->name != NULL; option++) {
        if (strlen(option->name) == length && strncmp(option->name, name, length) == 0 &&
            (short_value == 0 || option->val == short_value))
            return option;
    }
    return NULL;
}

/* The optimal string alignment distance (Damerau-Levenshtein with adjacent
 * transpositions) between a and b, or SIZE_MAX when either is too long to
 * be a name worth comparing. */
static size_t edit_distance(const char *a, const char *b) {
    enum { LONGEST = 64 };
    size_t a_length = strlen(a), b_length = strlen(b);
    if (a_length >= LONGEST || b_length >= LONGEST)
        return SIZE_MAX;
    size_t d[LONGEST + 1][LONGEST + 1];
    for (size_t i = 0; i <= a_length; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= b_length; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= a_length; i++) {
        for (size_t j = 1; j <= b_length; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[a_length][b_length];
}

const char *cli_nearest_name(const char *typed, const char *const *names, size_t count) {
    /* At most two edits, and fewer than the typed word has letters: "x" is
     * no misspelling of "init". */
    size_t limit = strlen(typed) > 2 ? 2 : strlen(typed) - (strlen(typed) > 0);
    const char *nearest = NULL;
    size_t nearest_distance = SIZE_MAX;
    for (size_t i = 0; i < count; i++) {
        size_t distance = edit_distance(typed, names[i]);
        if (distance <= limit && distance < nearest_distance) {
            nearest = names[i];
            nearest_distance = distance;
        }
    }
    return nearest;
}

/* "unknown option '--jbos'", naming the nearest long option of `options`
 * when one is close. */
static int unknown_long_option(const char *command, const char *typed,
                               const struct option *options) {
    int length = typed != NULL ? (int)strcspn(typed, "=") : 1;
    const char *shown = typed != NULL ? typed : "?";
    char name[64] = "";
    if (typed != NULL && strncmp(typed, "--", 2) == 0 && length - 2 < (int)sizeof name)
        snprintf(name, sizeof name, "%.*s", length - 2, typed + 2);
    const char *names[128];
    size_t count = 0;
    for (const struct option *option = options; option->name != NULL && count < 128; option++)
        names[count++] = option->name;
    const char *nearest = name[0] != '\0' ? cli_nearest_name(name, names, count) : NULL;
    if (nearest != NULL)
        return cli_usage_error(command, "unknown option '%.*s'; did you mean '--%s'?", length,
                               shown, nearest);
    return cli_usage_error(command, "unknown option '%.*s'", length, shown);
}

int cli_option_error(const char *command, char **argv, const struct option *options,
                     int getopt_result) {
    /* getopt_long puts a short option's letter (or a long option's value) in
     * optopt, 0 for an unknown long option. A long option is always consumed
     * whole, so it is then argv[optind - 1]; a short one may sit in a cluster. */
    const char *typed = optind > 0 ? argv[optind - 1] : NULL;
    const struct option *long_option = typed_long_option(typed, options, optopt);
    bool is_long = optopt == 0 || long_option != NULL;

    if (getopt_result == ':') {
        if (is_long)
            return cli_usage_error(command, "option '--%s' needs a value",
                                   long_option != NULL ? long_option->name : "?");
        return cli_usage_error(command, "option '-%c' needs a value", optopt);
    }
    if (long_option != NULL && strchr(typed, '=') != NULL)
        return cli_usage_error(command, "option '--%s' takes no value", long_option->name);
    if (is_long)
        return unknown_long_option(command, typed, options);
    if (optopt > 32 && optopt < 127)
        return cli_usage_error(command, "unknown option '-%c'", optopt);
    return cli_usage_error(command, "unknown option");
}

bool cli_reject_operands(const char *command, int argc, char **argv) {
    if (optind >= argc)
        return true;
    cli_usage_error(command, "unexpected argument '%s'", argv[optind]);
    return false;
}

const char *cli_plural(size_t count) {
    return count == 1 ? "" : "s";
}
