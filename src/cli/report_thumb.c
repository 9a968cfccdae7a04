/*
 * report_thumb.c — the build report's thumbnails (report.h): a texture's
 * cooked image decoded (inspect_texture_decode) and shrunk; a scene rendered
 * headless by the Vulkan viewer, `kiln-view OUTPUT REF --headless --render
 * PNG --size 128x128`, found next to the kiln executable or on PATH.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/report.h"

#define VIEWER_NAME "kiln-view"
#define VIEWER_TIMEOUT_SECONDS 60 /* one thumbnail; a hung renderer is stopped */

extern char **environ;

char *report_png_data_uri(const uint8_t *png, size_t size) {
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    static const char prefix[] = "data:image/png;base64,";
    size_t length = sizeof prefix - 1 + (size + 2) / 3 * 4;
    char *uri = malloc(length + 1);
    if (uri == NULL)
        return NULL;
    char *at = uri + sizeof prefix - 1;
    memcpy(uri, prefix, sizeof prefix - 1);
    for (size_t i = 0; i < size; i += 3) {
        uint32_t group = (uint32_t)png[i] << 16;
        if (i + 1 < size)
            group |= (uint32_t)png[i + 1] << 8;
        if (i + 2 < size)
            group |= png[i + 2];
        *at++ = digits[group >> 18 & 63];
        *at++ = digits[group >> 12 & 63];
        *at++ = i + 1 < size ? digits[group >> 6 & 63] : '=';
        *at++ = i + 2 < size ? digits[group & 63] : '=';
    }
    *at = '\0';
    return uri;
}

/* "no thumbnail: <why>" */
static void set_note(report_row *row, const char *why) {
    static const char prefix[] = "no thumbnail: ";
    size_t size = sizeof prefix + strlen(why);
    row->thumbnail_note = malloc(size);
    if (row->thumbnail_note != NULL)
        snprintf(row->thumbnail_note, size, "%s%s", prefix, why);
}

/* The smallest level still at least REPORT_THUMB_SIDE on its longer side
 * (less to decode), else level 0. */
static uint32_t thumbnail_level(const kiln_ktx2_view *view) {
    uint32_t level = 0;
    for (uint32_t l = 1; l < view->levels; l++) {
        uint32_t width, height, depth;
        kiln_ktx2_level_extent(view, l, &width, &height, &depth);
        if ((width > height ? width : height) < REPORT_THUMB_SIDE)
            break;
        level = l;
    }
    return level;
}

static void texture_thumbnail(const char *output, report_row *row) {
    char *full = cook_path_join(output, row->path);
    kiln_ktx2_file file = {0};
    kiln_error error;
    if (full == NULL || kiln_ktx2_map(&file, full, &error) != KILN_OK) {
        set_note(row, full ? inspect_error_detail(&error, full) : "no memory");
        free(full);
        return;
    }
    free(full);
    inspect_texture_image which = {.level = thumbnail_level(&file.view)};
    inspect_rgba8_image image, small;
    char reason[512];
    uint8_t *png = NULL;
    size_t png_size = 0;
    bool ok = inspect_texture_decode(&file.view, &which, &image, reason, sizeof reason);
    kiln_ktx2_close(&file);
    if (!ok) {
        set_note(row, reason);
        return;
    }
    ok = inspect_rgba8_thumbnail(&image, REPORT_THUMB_SIDE, &small);
    inspect_rgba8_image_free(&image);
    if (ok) {
        ok = inspect_png_encode(&small, &png, &png_size, reason, sizeof reason);
        inspect_rgba8_image_free(&small);
    }
    row->thumbnail = ok ? report_png_data_uri(png, png_size) : NULL;
    if (row->thumbnail == NULL)
        set_note(row, ok ? "out of memory" : reason);
    free(png);
}

static bool is_executable(const char *path) {
    struct stat info;
    return stat(path, &info) == 0 && S_ISREG(info.st_mode) && access(path, X_OK) == 0;
}

/* kiln-view beside the running kiln, else the first one on PATH. */
static void find_viewer(char *out, size_t size) {
    out[0] = '\0';
    char self[4096];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length > 0) {
        self[length] = '\0';
        char *slash = strrchr(self, '/');
        if (slash != NULL) {
            *slash = '\0';
            int n = snprintf(out, size, "%s/" VIEWER_NAME, self);
            if (n > 0 && (size_t)n < size && is_executable(out))
                return;
        }
    }
    const char *path = getenv("PATH");
    char *copy = cook_strdup(path != NULL ? path : "");
    char *cursor = copy;
    for (char *dir; copy != NULL && (dir = strsep(&cursor, ":")) != NULL;) {
        snprintf(out, size, "%s/" VIEWER_NAME, dir[0] != '\0' ? dir : ".");
        if (is_executable(out)) {
            free(copy);
            return;
        }
    }
    free(copy);
    out[0] = '\0';
}

/* Runs the viewer for one scene into `png_path`, its output discarded;
 * false with what went wrong. */
static bool run_viewer(const char *viewer, const char *output, const char *ref,
                       const char *png_path, char *reason, size_t reason_size) {
    char size_arg[32];
    snprintf(size_arg, sizeof size_arg, "%ux%u", REPORT_THUMB_SIDE, REPORT_THUMB_SIDE);
    char *argv[] = {(char *)viewer,   (char *)output, (char *)ref, "--headless", "--render",
                    (char *)png_path, "--size",       size_arg,    NULL};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int spawned = posix_spawn(&pid, viewer, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
        if (snprintf(reason, reason_size, "cannot start %s: %s", viewer, strerror(spawned)) < 0)
            reason[0] = '\0';
        return false;
    }
    int status = 0;
    for (int waited_ms = 0;; waited_ms += 50) {
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid)
            break;
        if (done < 0 && errno != EINTR) {
            snprintf(reason, reason_size, "lost the viewer: %s", strerror(errno));
            return false;
        }
        if (waited_ms >= VIEWER_TIMEOUT_SECONDS * 1000) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            snprintf(reason, reason_size, "kiln-view took longer than %d s; stopped",
                     VIEWER_TIMEOUT_SECONDS);
            return false;
        }
        nanosleep(&(struct timespec){.tv_nsec = 50 * 1000 * 1000}, NULL);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(reason, reason_size, "kiln-view failed (%s %d)",
                 WIFEXITED(status) ? "exit status" : "signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        return false;
    }
    return true;
}

static void scene_thumbnail(const report *r, report_row *row, const char *scratch) {
    if (r->viewer[0] == '\0') {
        set_note(row, "the Vulkan viewer (" VIEWER_NAME ") is not installed");
        return;
    }
    char *png_path = cook_path_join(scratch, "thumbnail.png");
    char reason[512] = "out of memory";
    uint8_t *png = NULL;
    size_t size = 0;
    bool ok = png_path != NULL &&
              run_viewer(r->viewer, r->output, row->ref, png_path, reason, sizeof reason) &&
              cook_read_file(png_path, (size_t)64 << 20, &png, &size, reason, sizeof reason);
    if (png_path != NULL)
        unlink(png_path);
    free(png_path);
    row->thumbnail = ok ? report_png_data_uri(png, size) : NULL;
    free(png);
    if (row->thumbnail == NULL)
        set_note(row, ok ? "out of memory" : reason);
}

void report_make_thumbnails(report *r) {
    find_viewer(r->viewer, sizeof r->viewer);
    /* The viewer's PNGs go through a private folder of the temporary one. */
    const char *tmp = getenv("TMPDIR");
    char scratch[4096];
    snprintf(scratch, sizeof scratch, "%s/kiln-report-XXXXXX",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    char *folder = mkdtemp(scratch);
    for (size_t i = 0; i < r->row_count; i++) {
        report_row *row = &r->rows[i];
        if (row->kind == KILN_ASSET_TEXTURE)
            texture_thumbnail(r->output, row);
        else if (row->kind == KILN_ASSET_SCENE && folder != NULL)
            scene_thumbnail(r, row, folder);
        else if (row->kind == KILN_ASSET_SCENE)
            set_note(row, "no temporary folder");
    }
    if (folder != NULL)
        rmdir(folder);
}
