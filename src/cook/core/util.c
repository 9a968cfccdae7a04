/* util.c — the cooker's small containers, paths, file reading and clock. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/path.h"
#include "cook/core/core.h"
#include "cook/core/parallel.h"

static bool bytebuf_reserve(bytebuf *buf, size_t extra) {
    if (buf->failed)
        return false;
    if (extra <= buf->cap - buf->size)
        return true;
    size_t needed;
    if (__builtin_add_overflow(buf->size, extra, &needed)) {
        buf->failed = true;
        return false;
    }
    uint8_t *data = array_grow(buf->data, &buf->cap, needed, 1, 256);
    if (data == NULL) {
        buf->failed = true;
        return false;
    }
    buf->data = data;
    return true;
}

void bytebuf_append(bytebuf *buf, const void *data, size_t size) {
    if (size == 0 || !bytebuf_reserve(buf, size))
        return;
    memcpy(buf->data + buf->size, data, size);
    buf->size += size;
}

void bytebuf_append_zeros(bytebuf *buf, size_t count) {
    if (count == 0 || !bytebuf_reserve(buf, count))
        return;
    memset(buf->data + buf->size, 0, count);
    buf->size += count;
}

uint8_t *bytebuf_extend(bytebuf *buf, size_t count) {
    if (!bytebuf_reserve(buf, count))
        return NULL;
    uint8_t *start = buf->data + buf->size;
    buf->size += count;
    return start;
}

void bytebuf_printf(bytebuf *buf, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    va_list copy;
    va_copy(copy, args);
    int length = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    /* Keep one spare byte so the text stays NUL-terminated for callers. */
    if (length >= 0 && bytebuf_reserve(buf, (size_t)length + 1)) {
        vsnprintf((char *)buf->data + buf->size, (size_t)length + 1, fmt, args);
        buf->size += (size_t)length;
    }
    va_end(args);
}

/* The length of the valid shortest-form UTF-8 sequence at p (1 to 4), or 0
 * when p[0] does not start one (a lone continuation byte, a truncated or
 * overlong sequence, a surrogate, beyond U+10FFFF); 0 for the NUL too. */
static size_t utf8_length(const unsigned char *p) {
    unsigned c = p[0];
    if (c == 0)
        return 0;
    if (c < 0x80)
        return 1;
    size_t length;
    unsigned low = 0x80, high = 0xbf; /* the second byte's range */
    if (c >= 0xc2 && c <= 0xdf) {
        length = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        length = 3;
        low = c == 0xe0 ? 0xa0 : 0x80;  /* no overlong forms */
        high = c == 0xed ? 0x9f : 0xbf; /* no surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        length = 4;
        low = c == 0xf0 ? 0x90 : 0x80;
        high = c == 0xf4 ? 0x8f : 0xbf; /* nothing above U+10FFFF */
    } else {
        return 0;
    }
    if (p[1] < low || p[1] > high)
        return 0;
    for (size_t i = 2; i < length; i++)
        if (p[i] < 0x80 || p[i] > 0xbf) /* a NUL stops here too */
            return 0;
    return length;
}

void bytebuf_append_json_string(bytebuf *buf, const char *text) {
    bytebuf_append(buf, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0';) {
        size_t step = 1;
        switch (*p) {
        case '"':
            bytebuf_append(buf, "\\\"", 2);
            break;
        case '\\':
            bytebuf_append(buf, "\\\\", 2);
            break;
        case '\n':
            bytebuf_append(buf, "\\n", 2);
            break;
        case '\r':
            bytebuf_append(buf, "\\r", 2);
            break;
        case '\t':
            bytebuf_append(buf, "\\t", 2);
            break;
        default:
            if (*p < 0x20) {
                bytebuf_printf(buf, "\\u%04x", *p);
            } else if ((step = utf8_length(p)) > 0) {
                bytebuf_append(buf, p, step);
            } else {
                /* JSON is UTF-8: a byte that is not (a file name in Latin-1)
                 * becomes U+FFFD, or no JSON reader would take the text. */
                bytebuf_append(buf, "\xef\xbf\xbd", 3);
                step = 1;
            }
        }
        p += step;
    }
    bytebuf_append(buf, "\"", 1);
}

/* The length of the printable UTF-8 sequence at p (1 to 4), or 0 when the
 * byte must be escaped: a C0 or C1 control (ESC, newline, U+009B CSI), DEL,
 * or a byte that does not start a valid shortest-form sequence. */
static size_t printable_length(const unsigned char *p) {
    if (p[0] < 0x20 || p[0] == 0x7f)
        return 0;
    if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
        return 0; /* U+0080..U+009F: C1 controls */
    return utf8_length(p);
}

/* The one rule of the escaped form: the next piece of `text` at *p, either
 * a printable UTF-8 character as it is or a "\xNN" escape (in escaped[]);
 * *p moves past the bytes it shows. Both escaping functions below write
 * these pieces, so the two can never disagree. */
static size_t next_shown_piece(const unsigned char **p, char escaped[4], const void **piece) {
    static const char hex[] = "0123456789ABCDEF";
    size_t length = printable_length(*p);
    if (length > 0) {
        *piece = *p;
        *p += length;
        return length;
    }
    escaped[0] = '\\';
    escaped[1] = 'x';
    escaped[2] = hex[**p >> 4];
    escaped[3] = hex[**p & 15];
    *piece = escaped;
    *p += 1;
    return 4;
}

void bytebuf_append_escaped(bytebuf *buf, const char *text) {
    char escaped[4];
    const unsigned char *p = (const unsigned char *)(text ? text : ""), *run = p;
    while (*p != '\0') {
        const unsigned char *at = p;
        const void *piece;
        size_t piece_length = next_shown_piece(&p, escaped, &piece);
        if (piece == at)
            continue; /* printable runs are appended whole (diagnostics' cost) */
        bytebuf_append(buf, run, (size_t)(at - run));
        bytebuf_append(buf, piece, piece_length);
        run = p;
    }
    bytebuf_append(buf, run, (size_t)(p - run));
    /* NUL-terminated, as bytebuf_printf keeps text: one spare byte. */
    if (bytebuf_reserve(buf, 1))
        buf->data[buf->size] = '\0';
}

const char *cook_escape_to(char *out, size_t out_size, const char *text) {
    if (out_size == 0)
        return out;
    size_t used = 0;
    char escaped[4];
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p != '\0';) {
        const void *piece;
        size_t piece_length = next_shown_piece(&p, escaped, &piece);
        if (used + piece_length >= out_size)
            break; /* never half an escape or half a character */
        memcpy(out + used, piece, piece_length);
        used += piece_length;
    }
    out[used] = '\0';
    return out;
}

void bytebuf_free(bytebuf *buf) {
    free(buf->data);
    memset(buf, 0, sizeof *buf);
}

bool string_table_add(bytebuf *strings, const char *text, uint32_t *offset, uint32_t *length) {
    size_t size = text != NULL ? strlen(text) : 0;
    if (strings->size + size + 1 > UINT32_MAX)
        return false;
    *offset = (uint32_t)strings->size;
    if (length != NULL)
        *length = (uint32_t)size;
    bytebuf_append(strings, text != NULL ? text : "", size);
    bytebuf_append_zeros(strings, 1);
    return true;
}

char *cook_strdup(const char *text) {
    size_t size = strlen(text) + 1;
    char *copy = malloc(size);
    if (copy != NULL)
        memcpy(copy, text, size);
    return copy;
}

void cook_text_trim(const unsigned char **begin, const unsigned char **end) {
    if (*end - *begin >= 3 && memcmp(*begin, "\xef\xbb\xbf", 3) == 0)
        *begin += 3;
    while (*end > *begin && (*end)[-1] == 0x1a)
        (*end)--;
}

char *cook_path_join(const char *dir, const char *name) {
    size_t dir_length = strlen(dir);
    size_t name_length = strlen(name);
    char *joined = malloc(dir_length + name_length + 2);
    if (joined == NULL)
        return NULL;
    if (dir_length == 0 || name_length == 0) {
        memcpy(joined, dir_length == 0 ? name : dir, dir_length + name_length + 1);
        return joined;
    }
    memcpy(joined, dir, dir_length);
    if (dir[dir_length - 1] != '/')
        joined[dir_length++] = '/';
    memcpy(joined + dir_length, name, name_length + 1);
    return joined;
}

char *cook_path_resolve(const char *source_path, const char *relative, char *reason,
                        size_t reason_size) {
    if (relative[0] == '\0') {
        snprintf(reason, reason_size, "empty path");
        return NULL;
    }
    if (path_is_absolute(relative)) {
        snprintf(reason, reason_size, "absolute path '%s' is not allowed", relative);
        return NULL;
    }
    const char *slash = strrchr(source_path, '/');
    size_t dir_length = slash ? (size_t)(slash - source_path) : 0;
    size_t joined_size = dir_length + 1 + strlen(relative) + 1;
    char *joined = malloc(joined_size);
    char *out = malloc(joined_size);
    if (joined == NULL || out == NULL) {
        free(joined);
        free(out);
        snprintf(reason, reason_size, "out of memory");
        return NULL;
    }
    snprintf(joined, joined_size, "%.*s%s%s", (int)dir_length, source_path, dir_length ? "/" : "",
             relative);

    size_t length = 0;
    path_segment segment;
    for (const char *p = joined; (p = path_next_segment(p, &segment)) != NULL;) {
        if (path_segment_is_parent(&segment)) {
            if (length == 0) {
                snprintf(reason, reason_size, "path '%s' leaves the input folder", relative);
                free(joined);
                free(out);
                return NULL;
            }
            while (length > 0 && out[length - 1] != '/')
                length--;
            if (length > 0)
                length--; /* the '/' before the dropped segment */
            continue;
        }
        if (length > 0)
            out[length++] = '/';
        memcpy(out + length, segment.start, segment.length);
        length += segment.length;
    }
    out[length] = '\0';
    free(joined);
    if (length == 0) {
        snprintf(reason, reason_size, "path '%s' names the input folder itself", relative);
        free(out);
        return NULL;
    }
    return out;
}

char *cook_path_relative(const char *from_file, const char *to) {
    /* The folders both paths share, up to a '/' of each. */
    size_t common = 0;
    for (size_t i = 0; from_file[i] != '\0' && from_file[i] == to[i]; i++)
        if (from_file[i] == '/')
            common = i + 1;
    size_t ups = 0;
    for (const char *p = from_file + common; *p != '\0'; p++)
        ups += *p == '/';
    size_t rest = strlen(to + common);
    char *out = malloc(ups * 3 + rest + 1);
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < ups; i++)
        memcpy(out + i * 3, "../", 3);
    memcpy(out + ups * 3, to + common, rest + 1);
    return out;
}

bool strlist_push(strlist *list, const char *text) {
    char **items = array_grow(list->items, &list->cap, list->count + 1, sizeof *items, 8);
    if (items == NULL)
        return false;
    list->items = items;
    char *copy = cook_strdup(text);
    if (copy == NULL)
        return false;
    list->items[list->count++] = copy;
    return true;
}

bool strlist_push_all(strlist *list, const strlist *from) {
    for (size_t i = 0; i < from->count; i++) {
        if (!strlist_push(list, from->items[i]))
            return false;
    }
    return true;
}

bool strlist_contains(const strlist *list, const char *text) {
    for (size_t i = 0; i < list->count; i++)
        if (strcmp(list->items[i], text) == 0)
            return true;
    return false;
}

static int compare_strings(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void strlist_sort(strlist *list) {
    if (list->count > 1)
        qsort(list->items, list->count, sizeof *list->items, compare_strings);
}

void strlist_free(strlist *list) {
    for (size_t i = 0; i < list->count; i++)
        free(list->items[i]);
    free(list->items);
    memset(list, 0, sizeof *list);
}

FILE *cook_open_regular(const char *path, struct stat *info, char *reason, size_t reason_size) {
    /* O_NONBLOCK: opening a FIFO for reading would wait for a writer. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(reason, reason_size, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(reason, reason_size, "cannot open: %s", strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(reason, reason_size, "%s, not a regular file (not read)",
                 S_ISDIR(st.st_mode)    ? "a folder"
                 : S_ISFIFO(st.st_mode) ? "a FIFO"
                 : S_ISSOCK(st.st_mode) ? "a socket"
                 : S_ISCHR(st.st_mode)  ? "a character device"
                 : S_ISBLK(st.st_mode)  ? "a block device"
                                        : "something else");
        close(fd);
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    FILE *file = fdopen(fd, "rb");
    if (file == NULL) {
        snprintf(reason, reason_size, "cannot open: %s", strerror(errno));
        close(fd);
        return NULL;
    }
    if (info != NULL)
        *info = st;
    return file;
}

/* Pieces of a file read on several threads: large enough that a piece
 * costs far more than handing it to a thread. */
#define READ_PIECE ((size_t)8 << 20)

typedef struct read_job {
    int fd;
    uint8_t *data;
    size_t length;
    _Atomic int error; /* an errno, or -1 for a file shorter than its size */
} read_job;

static void read_piece(void *ctx, uint32_t piece) {
    read_job *job = ctx;
    size_t at = (size_t)piece * READ_PIECE;
    size_t end = at + READ_PIECE < job->length ? at + READ_PIECE : job->length;
    while (at < end) {
        ssize_t got = pread(job->fd, job->data + at, end - at, (off_t)at);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            job->error = got < 0 ? errno : -1;
            return;
        }
        at += (size_t)got;
    }
}

bool cook_read_file_on(unsigned threads, const char *path, size_t max_size, uint8_t **out,
                       size_t *size, char *reason, size_t reason_size) {
    *out = NULL;
    *size = 0;
    struct stat st;
    FILE *file = cook_open_regular(path, &st, reason, reason_size);
    if (file == NULL)
        return false;
    if ((uint64_t)st.st_size > max_size) {
        snprintf(reason, reason_size, "file is %lld bytes, above the limit of %zu",
                 (long long)st.st_size, max_size);
        fclose(file);
        return false;
    }
    size_t length = (size_t)st.st_size;
    uint8_t *data = malloc(length + 1);
    if (data == NULL) {
        snprintf(reason, reason_size, "out of memory reading %zu bytes", length);
        fclose(file);
        return false;
    }
    read_job job = {.fd = fileno(file), .data = data, .length = length};
    parallel_for(threads, (uint32_t)((length + READ_PIECE - 1) / READ_PIECE), read_piece, &job);
    fclose(file);
    if (job.error != 0) {
        snprintf(reason, reason_size, "read failed: %s",
                 job.error > 0 ? strerror(job.error) : "the file became shorter while read");
        free(data);
        return false;
    }
    data[length] = '\0';
    *out = data;
    *size = length;
    return true;
}

bool cook_read_file(const char *path, size_t max_size, uint8_t **out, size_t *size, char *reason,
                    size_t reason_size) {
    return cook_read_file_on(1, path, max_size, out, size, reason, reason_size);
}

char *cook_output_path(const char *source_path, const char *suffix) {
    const char *slash = strrchr(source_path, '/');
    const char *name = slash ? slash + 1 : source_path;
    const char *dot = strrchr(name, '.');
    size_t stem_length = (dot && dot != name) ? (size_t)(dot - source_path) : strlen(source_path);
    size_t size = stem_length + strlen(suffix) + 1;
    char *out = malloc(size);
    if (out != NULL)
        snprintf(out, size, "%.*s%s", (int)stem_length, source_path, suffix);
    return out;
}
