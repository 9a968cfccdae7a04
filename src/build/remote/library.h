/*
 * build/remote/library.h — the remote cache's client libraries (libcurl for
 * http.c, hiredis for redis.c), loaded with dlopen when a transport of their
 * kind is opened rather than linked: a build without a remote cache, which is
 * most builds, does not pay for loading them and the ~25 libraries libcurl
 * pulls in (TLS, Kerberos, LDAP, ...: about 4.5 ms of every kiln start,
 * BENCHMARKS.md "Cook time against gltfpack").
 *
 * The programs are still built against the libraries' headers, and the
 * packages that hold them are those of scripts/packages/run.txt. A library
 * that cannot be loaded is a reason the transport does not open: the build
 * warns once per server and goes on without the remote cache.
 */
#ifndef KILN_BUILD_REMOTE_LIBRARY_H
#define KILN_BUILD_REMOTE_LIBRARY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* One function a library must have: its name, and where in the caller's
 * table of function pointers its address goes. */
typedef struct library_symbol {
    const char *name;
    size_t offset;
} library_symbol;

/* The entry of `function` in a table of symbols for the struct `table`,
 * whose member `field` takes its address. */
#define LIBRARY_SYMBOL(table, function, field)                                                     \
    { #function, offsetof(__typeof__(table), field) }

/* Loads `file` (a soname, or a path) and fills the function pointers of
 * `table` named by `symbols`. False when the library or one of the functions
 * is missing, with why in `reason` (dlerror's words: "libcurl.so.4: cannot
 * open shared object file: ..."); the table is then partly filled and must
 * not be used. The library stays
 * loaded for the rest of the process. */
bool library_load(const char *file, const library_symbol *symbols, size_t count, void *table,
                  char *reason, size_t reason_size);

/* A library a transport loads on its first open. A failed load is not
 * remembered: the next open tries again, so a `kiln watch` started before
 * the package was installed finds it at its next build. Once loaded, the
 * table never changes again, and opens only read the flag (under the lock). */
typedef struct library_once {
    pthread_mutex_t lock;
    bool loaded;
} library_once;

#define LIBRARY_ONCE_INIT                                                                          \
    { PTHREAD_MUTEX_INITIALIZER, false }

/* What a library needs once loaded before its first use (libcurl's global
 * init): false, with why in `reason`, fails the load. */
typedef bool (*library_start)(char *reason, size_t reason_size);

/* library_load of `file` into `table`, then `start` (may be NULL), unless an
 * earlier call did both already. True when the table may be used. */
bool library_load_once(library_once *once, const char *file, const library_symbol *symbols,
                       size_t count, void *table, library_start start, char *reason,
                       size_t reason_size);

#endif
