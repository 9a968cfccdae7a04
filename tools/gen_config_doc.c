/*
 * gen_config_doc.c — prints the settings reference of docs/configuration.md
 * (the part between "<!-- generated: settings -->" and "<!-- end generated -->")
 * from the settings table, cook_setting_table (src/cook/core/settings.c):
 * one markdown row per key with its type, default, allowed values and
 * description. `make docs` writes it into the document
 * (scripts/config_doc.sh); the ctest config_doc_current fails when the two
 * differ.
 */
#include <stdio.h>
#include <string.h>

#include "cook/core/core.h"

/* Text for a markdown table cell: '|' escaped, '<' and '>' as entities. */
static void cell(const char *text) {
    for (const char *c = text; *c; c++) {
        if (*c == '|')
            fputs("\\|", stdout);
        else if (*c == '<')
            fputs("&lt;", stdout);
        else if (*c == '>')
            fputs("&gt;", stdout);
        else
            putchar(*c);
    }
}

static void names(const char *const *list) {
    for (size_t i = 0; list[i] != NULL; i++)
        printf("%s`%s`", i ? ", " : "", list[i]);
}

static const char *type_name(cook_setting_type type) {
    switch (type) {
    case COOK_SETTING_BOOL:
        return "bool";
    case COOK_SETTING_UINT:
    case COOK_SETTING_INT:
        return "integer";
    case COOK_SETTING_RATIOS:
        return "list of numbers";
    case COOK_SETTING_ENUM:
        return "name";
    case COOK_SETTING_TEXT:
        return "text";
    case COOK_SETTING_TOLERANCE:
        return "bool, number or map";
    }
    return "?";
}

static void default_value(const cook_setting *key) {
    switch (key->type) {
    case COOK_SETTING_BOOL:
    case COOK_SETTING_TOLERANCE:
        printf("`%s`", key->default_value ? "true" : "false");
        break;
    case COOK_SETTING_UINT:
    case COOK_SETTING_INT:
        printf("`%ld`", key->default_value);
        break;
    case COOK_SETTING_ENUM:
        printf("`%s`", key->names[key->default_value]);
        break;
    case COOK_SETTING_RATIOS:
        printf("`[");
        for (long i = 0; i < key->default_value; i++)
            printf("%s%g", i ? ", " : "", (double)key->default_ratios[i]);
        printf("]`");
        break;
    case COOK_SETTING_TEXT:
        printf("none");
        break;
    }
}

static void allowed(const cook_setting *key) {
    switch (key->type) {
    case COOK_SETTING_BOOL:
        printf("`true`, `false`");
        break;
    case COOK_SETTING_UINT:
    case COOK_SETTING_INT:
        printf("%ld..%ld", key->min, key->max);
        if (key->multiple_of > 1)
            printf(", a multiple of %ld", key->multiple_of);
        if (key->zero_error != NULL)
            printf(", not 0");
        break;
    case COOK_SETTING_RATIOS:
        printf("up to %ld numbers in (0, 1]", key->max);
        break;
    case COOK_SETTING_ENUM:
        names(key->names);
        break;
    case COOK_SETTING_TEXT:
        printf("as the description says");
        break;
    case COOK_SETTING_TOLERANCE:
        printf("`false`, `true`, a number, or a map of ");
        names(cook_tolerance_names);
        break;
    }
}

int main(void) {
    printf("| key | type | default | allowed values | description |\n");
    printf("|---|---|---|---|---|\n");
    for (size_t i = 0; i < cook_setting_count; i++) {
        const cook_setting *key = &cook_setting_table[i];
        printf("| `%s` | %s | ", key->name, type_name(key->type));
        default_value(key);
        printf(" | ");
        allowed(key);
        printf(" | ");
        cell(key->description != NULL ? key->description : "");
        if (key->not_output)
            printf(" (not part of the output: changing it recooks nothing)");
        printf(" |\n");
    }
    return ferror(stdout) ? 1 : 0;
}
