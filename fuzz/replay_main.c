/* replay_main.c — a plain main() for a fuzz harness built without libFuzzer
 * (gcc, every `make test`): runs LLVMFuzzerTestOneInput once on each file
 * named, or on each file of each folder named, in sorted order. A crash or a
 * sanitizer report fails the ctest that runs it; a folder that does not exist
 * is skipped (a harness with no regressions yet). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return 0;
    uint8_t *data = NULL;
    size_t size = 0, cap = 0;
    for (;;) {
        if (size == cap) {
            cap = cap ? cap * 2 : 65536;
            uint8_t *grown = realloc(data, cap);
            if (grown == NULL)
                break;
            data = grown;
        }
        size_t got = fread(data + size, 1, cap - size, file);
        size += got;
        if (got == 0)
            break;
    }
    fclose(file);
    /* An exact-size copy: ASan sees the end of the input. */
    uint8_t *exact = malloc(size ? size : 1);
    if (exact != NULL && size > 0)
        memcpy(exact, data, size);
    free(data);
    if (exact == NULL)
        return 0;
    LLVMFuzzerTestOneInput(exact, size);
    free(exact);
    return 1;
}

static int compare_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_folder(const char *folder) {
    DIR *dir = opendir(folder);
    if (dir == NULL)
        return 0;
    char **names = NULL;
    size_t count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.')
            continue;
        char **grown = realloc(names, (count + 1) * sizeof *names);
        if (grown == NULL)
            break;
        names = grown;
        size_t length = strlen(folder) + strlen(entry->d_name) + 2;
        if ((names[count] = malloc(length)) == NULL)
            break;
        snprintf(names[count++], length, "%s/%s", folder, entry->d_name);
    }
    closedir(dir);
    qsort(names, count, sizeof *names, compare_names);
    int ran = 0;
    for (size_t i = 0; i < count; i++) {
        struct stat info;
        if (stat(names[i], &info) == 0 && S_ISREG(info.st_mode))
            ran += run_file(names[i]);
        free(names[i]);
    }
    free(names);
    return ran;
}

int main(int argc, char **argv) {
    int ran = 0;
    for (int i = 1; i < argc; i++) {
        struct stat info;
        if (stat(argv[i], &info) != 0)
            continue;
        ran += S_ISDIR(info.st_mode) ? run_folder(argv[i]) : run_file(argv[i]);
    }
    printf("replayed %d input%s\n", ran, ran == 1 ? "" : "s");
    return 0;
}
