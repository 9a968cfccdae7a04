/* build_project (build/build.h): the examples built in process write, file
 * for file and byte for byte, what `kiln build` writes for the same tree; the
 * report counts what the progress interface saw, and a second build finds
 * everything up to date without rewriting the manifest; failures come back
 * as a status and a message, with nothing printed. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "build/build.h"
#include "cli/cli.h"
#include "test_support.h"

#define EXAMPLES KILN_EXAMPLES_DIR

/* What the progress interface was told. */
typedef struct seen {
    pthread_mutex_t lock;
    size_t total;    /* begin's total plus every add_total */
    size_t finished; /* asset_finished and asset_settled calls */
    size_t begins, ends;
    size_t out_bytes, err_bytes;
} seen;

static void on_begin(void *context, size_t total, progress_verbosity verbosity, unsigned workers) {
    (void)verbosity;
    (void)workers;
    seen *s = context;
    s->total += total;
    s->begins++;
}

static void on_add_total(void *context, size_t more) {
    seen *s = context;
    pthread_mutex_lock(&s->lock);
    s->total += more;
    pthread_mutex_unlock(&s->lock);
}

static void on_finished(void *context, const char *source, const cook_asset_result *result) {
    (void)source;
    (void)result;
    seen *s = context;
    pthread_mutex_lock(&s->lock);
    s->finished++;
    pthread_mutex_unlock(&s->lock);
}

static void on_settled(void *context, const char *source, const cook_diag *replayed) {
    (void)replayed;
    on_finished(context, source, NULL);
}

static void on_end(void *context) {
    ((seen *)context)->ends++;
}

static void on_message(void *context, build_stream stream, const char *text, size_t size) {
    seen *s = context;
    assert_true(size > 0 && text[size - 1] == '\n'); /* whole lines */
    pthread_mutex_lock(&s->lock);
    *(stream == BUILD_STREAM_OUT ? &s->out_bytes : &s->err_bytes) += size;
    pthread_mutex_unlock(&s->lock);
}

static build_progress progress_into(seen *s) {
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    return (build_progress){.context = s,
                            .begin = on_begin,
                            .add_total = on_add_total,
                            .asset_finished = on_finished,
                            .asset_settled = on_settled,
                            .end = on_end,
                            .message = on_message};
}

static build_options examples_options(const char *output, const build_progress *progress) {
    build_options options = build_default_options();
    options.config = EXAMPLES "/kiln.yml"; /* input: assets, next to it */
    options.output = output;
    options.jobs = 2;
    options.progress = progress;
    return options;
}

static void run_cli(const char *output) {
    char *argv[] = {"kiln", "build", "--config", EXAMPLES "/kiln.yml", "-o", (char *)output, "-j",
                    "2",    "-q",    NULL};
    assert_int_equal(cli_main(9, argv), CLI_EXIT_OK);
}

static void assert_same_files(const char *a, const char *b) {
    strlist a_files = {0}, b_files = {0};
    char reason[256];
    assert_true(discover_walk(a, NULL, &a_files, reason, sizeof reason));
    assert_true(discover_walk(b, NULL, &b_files, reason, sizeof reason));
    assert_true(a_files.count > 0);
    assert_int_equal(a_files.count, b_files.count);
    for (size_t i = 0; i < a_files.count; i++) {
        assert_string_equal(a_files.items[i], b_files.items[i]);
        char *a_path = test_path_join(a, a_files.items[i]);
        char *b_path = test_path_join(b, b_files.items[i]);
        size_t a_size = 0, b_size = 0;
        uint8_t *a_bytes = test_read_file(a_path, &a_size);
        uint8_t *b_bytes = test_read_file(b_path, &b_size);
        if (a_size != b_size || memcmp(a_bytes, b_bytes, a_size) != 0)
            fail_msg("%s differs between the in-process build and kiln build", a_files.items[i]);
        free(a_bytes);
        free(b_bytes);
        free(a_path);
        free(b_path);
    }
    strlist_free(&a_files);
    strlist_free(&b_files);
}

static void in_process_build_writes_what_the_cli_writes(void **state) {
    (void)state;
    char *root = test_make_temp_dir("build_inprocess");
    char *in_process = test_path_join(root, "in_process");
    char *by_cli = test_path_join(root, "by_cli");

    seen first;
    build_progress progress = progress_into(&first);
    build_options options = examples_options(in_process, &progress);
    build_report report;
    assert_int_equal(build_project(&options, &report), BUILD_OK);
    assert_string_equal(report.error, "");
    assert_true(report.cooked > 0);
    assert_int_equal(report.failed, 0);
    assert_int_equal(report.up_to_date, 0);
    assert_true(report.output_files > report.cooked);
    assert_true(report.output_bytes > 0);
    /* The progress total, the events and the report count the same sources. */
    assert_int_equal(first.begins, 1);
    assert_int_equal(first.ends, 1);
    assert_int_equal(first.total, first.finished);
    assert_int_equal(first.total, report.cooked + report.failed + report.through_model +
                                      report.up_to_date + report.unreached);
    assert_true(first.out_bytes > 0); /* the summary, through the interface */

    run_cli(by_cli);
    assert_same_files(in_process, by_cli);

    /* Again: everything up to date, and the manifest is not rewritten. */
    char *manifest = test_path_join(in_process, KILN_MANIFEST_FILE_NAME);
    struct stat before, after;
    assert_int_equal(stat(manifest, &before), 0);
    seen second;
    progress = progress_into(&second);
    assert_int_equal(build_project(&options, &report), BUILD_OK);
    assert_int_equal(report.cooked, 0);
    assert_int_equal(report.up_to_date + report.through_model, second.total);
    assert_int_equal(second.total, first.total);
    assert_int_equal(stat(manifest, &after), 0);
    assert_int_equal(before.st_ino, after.st_ino);
    assert_true(before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
                before.st_mtim.tv_nsec == after.st_mtim.tv_nsec);
    free(manifest);
    free(by_cli);
    free(in_process);
    free(root);
}

static void a_failure_is_a_status_and_a_message(void **state) {
    (void)state;
    char *root = test_make_temp_dir("build_inprocess_fail");
    char *missing = test_path_join(root, "no_such_input");
    char *output = test_path_join(root, "out");
    build_options options = build_default_options(); /* no progress: silent */
    options.config = NULL;
    options.input = missing;
    options.output = output;
    build_report report;
    assert_int_equal(build_project(&options, &report), BUILD_FAILED);
    assert_non_null(strstr(report.error, "input folder"));
    assert_non_null(strstr(report.error, "does not exist"));
    free(output);
    free(missing);
    free(root);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(in_process_build_writes_what_the_cli_writes),
        cmocka_unit_test(a_failure_is_a_status_and_a_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
