/*
 * cook_server.h — the cook-on-demand protocol between `kiln watch --serve`
 * (src/cli/cmd_watch.c) and a development runtime (src/runtime/manager_dev.c).
 *
 * Transport: a Unix domain stream socket, <output folder>/.kiln-serve, mode
 * 0600 (only its owner can connect), created when the watch starts serving
 * and removed when it exits. Several clients may be connected at once; each
 * sends requests one line at a time and reads one reply line per request,
 * in order. The server closes, without a reply, a connection silent for its
 * idle timeout (`--idle-timeout`, 60 s by default) and, with every place
 * taken, the one silent longest to let a new client in: a client reconnects
 * when it next asks.
 *
 *   request  COOK <ref>\n     <ref>: a ref as the manifest names it
 *                             ("props/crate", "props/crate/mesh0"), a source
 *                             path relative to the input folder, of any kind
 *                             ("props/crate.obj", "levels/yard.level": the
 *                             file of its own ref, else of its scene) or a
 *                             cooked path relative to the output folder
 *   reply    OK <path>\n      the asset is cooked and up to date; <path> is its
 *                             cooked file relative to the output folder, and
 *                             assets.kman names it
 *            ERR <message>\n  nothing produces <ref>, its cook failed (the
 *                             message quotes the first error), or the request
 *                             was malformed
 *
 *   request  FRESH <ref>\n    is <ref>'s cooked file that of its sources as they
 *                             are now? Answered from what the watch knows (it
 *                             brought the output up to date when it started
 *                             and has seen every change since), without a
 *                             build when nothing changed, so a development
 *                             runtime asks it before it first reads a file
 *   reply    SAME <ref>\n     yes: no change seen since the last round touched
 *                             the files its sources read, and none of them
 *                             failed its last cook
 *            OK <ref>\n       changes were waiting (a save not cooked yet):
 *                             their round ran first, the manifest is written
 *                             again; read the manifest, then the file
 *            ERR <message>\n  the source producing <ref> (the one whose own
 *                             ref is <ref> or, longest, a folder of it) failed
 *                             its last cook: what is on disk, if anything, is
 *                             an older version; the message quotes the error
 *
 * A line (request or reply, '\n' included) is at most COOK_SERVER_LINE_MAX
 * bytes; a longer request gets an ERR reply and the rest of its line is
 * discarded. A request is handled before the changes the watch has queued
 * (it cooks only the sources that produce <ref>, and only when they are
 * missing or stale); a reply comes after the manifest is written. While a
 * round cooks, a request whose sources the last published round left up to
 * date is answered at once from it; any other waits for the round to
 * publish (and, if the round did not cover it, for a focused round of its
 * own). A client's replies come in the order of its requests.
 */
#ifndef KILN_COMMON_COOK_SERVER_H
#define KILN_COMMON_COOK_SERVER_H

#define COOK_SERVER_SOCKET_NAME ".kiln-serve"
#define COOK_SERVER_LINE_MAX 1024
#define COOK_SERVER_REQUEST "COOK "
#define COOK_SERVER_OK "OK "
#define COOK_SERVER_ERR "ERR "
#define COOK_SERVER_FRESH "FRESH "
#define COOK_SERVER_SAME "SAME "

#endif /* KILN_COMMON_COOK_SERVER_H */
