/*
 * url.c — the label of a remote cache URL: what messages may show of it.
 *
 * A URL may carry "user:password@" and a query (a signed token); a label
 * drops both, and a fragment, so that a reason or a report line can name the
 * server without leaking a secret. Shared by the HTTP and Redis transports.
 */
#include <string.h>

#include "build/remote/transport.h"

void remote_url_label(const char *url, char *label, size_t label_size) {
    if (label_size == 0)
        return;
    label[0] = '\0';
    if (url == NULL)
        return;
    const char *scheme_end = strstr(url, "://");
    const char *authority = scheme_end != NULL ? scheme_end + 3 : url;
    /* The userinfo ends at the last '@', wherever it is: a password holding
     * an unencoded '/', '?' or '#' must not end the authority early and show
     * its tail. A path with an '@' (rare in a cache prefix) loses its head in
     * the label, which only names the server. */
    const char *at = strrchr(authority, '@');
    const char *rest = at != NULL ? at + 1 : authority;
    size_t rest_length = strcspn(rest, "?#");
    size_t head_length = (size_t)(authority - url);

    size_t length = 0;
    for (size_t i = 0; i < head_length && length + 1 < label_size; i++)
        label[length++] = url[i];
    for (size_t i = 0; i < rest_length && length + 1 < label_size; i++)
        label[length++] = rest[i];
    label[length] = '\0';
}
