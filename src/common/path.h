/*
 * path.h — walking a relative path segment by segment, the one way refs
 * (ref.c), a source's dependencies (cook/core/context.c) and glTF URIs read
 * one. '/' and '\' both separate: sources written on Windows name files so.
 */
#ifndef KILN_COMMON_PATH_H
#define KILN_COMMON_PATH_H

#include <stdbool.h>
#include <stddef.h>

typedef struct path_segment {
    const char *start;
    size_t length;
} path_segment;

/* An absolute path: POSIX or UNC root, or a drive letter ("C:"). */
static inline bool path_is_absolute(const char *path) {
    return path[0] == '/' || path[0] == '\\' || (path[0] != '\0' && path[1] == ':');
}

/* The next meaningful segment of a path at p into *out: empty segments
 * ("a//b") and "." are skipped. Returns where to continue, or NULL at the end. */
static inline const char *path_next_segment(const char *p, path_segment *out) {
    while (*p != '\0') {
        const char *start = p;
        while (*p != '\0' && *p != '/' && *p != '\\')
            p++;
        size_t length = (size_t)(p - start);
        if (*p != '\0')
            p++; /* the separator */
        if (length == 0 || (length == 1 && start[0] == '.'))
            continue;
        out->start = start;
        out->length = length;
        return p;
    }
    return NULL;
}

/* The segment is "..". */
static inline bool path_segment_is_parent(const path_segment *segment) {
    return segment->length == 2 && segment->start[0] == '.' && segment->start[1] == '.';
}

/* Every '/'-separated segment of `path` is a name: none is empty, "." or
 * "..". With a relative start, the path stays below where it starts. */
static inline bool path_segments_are_names(const char *path) {
    for (const char *segment = path;;) {
        const char *end = segment;
        while (*end != '\0' && *end != '/')
            end++;
        size_t length = (size_t)(end - segment);
        if (length == 0 || (length == 1 && segment[0] == '.') ||
            (length == 2 && segment[0] == '.' && segment[1] == '.'))
            return false;
        if (*end == '\0')
            return true;
        segment = end + 1;
    }
}

/* A path as resolving a dependency returns it: relative, '/'-separated, and
 * made of names only (what another process claims it read is checked so). */
static inline bool path_is_plain_relative(const char *path) {
    for (const char *p = path; *p != '\0'; p++)
        if (*p == '\\')
            return false;
    return !path_is_absolute(path) && path_segments_are_names(path);
}

#endif /* KILN_COMMON_PATH_H */
