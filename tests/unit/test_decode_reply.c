/* test_decode_reply.c — the parent's reading of the isolated decoders'
 * replies (image_reply_read, draco_reply_read in import/isolate_decode.c),
 * built here byte by byte as the layout in isolate_decode.c's top comment
 * says: a good reply is taken as it is, a refusal keeps the child's reason,
 * and a refusal without one (empty: found by fuzz_isolate_reply) is an
 * invalid reply naming the library rather than an error that says nothing. */
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

#include "cook/import/import.h"
#include "cook/import/isolate.h"

#define IMAGE_REPLY_MAGIC 0x534d494bu /* "KIMS" */
#define DRACO_REPLY_MAGIC 0x5352444bu /* "KDRS" */

static const image_limits limits = {.max_dimension = 16, .max_pixels = 256};

/* The body, then the image footer: magic, version 1, ok. Returns whether the
 * reply was accepted; *reason holds the reason otherwise. */
static bool read_image(const void *body, size_t size, uint8_t ok, ir_decoded_image *image,
                       char *reason, size_t reason_size) {
    bytebuf reply = {0};
    bytebuf_append(&reply, body, size);
    wire_put_u32(&reply, IMAGE_REPLY_MAGIC);
    wire_put_u32(&reply, 1);
    wire_put_u8(&reply, ok);
    assert_false(reply.failed);
    reason[0] = '\0';
    bool read =
        image_reply_read(reply.data, reply.size, "libspng", &limits, image, reason, reason_size);
    if (!read)
        bytebuf_free(&reply);
    return read;
}

static void an_image_reply_gives_its_pixels(void **state) {
    (void)state;
    bytebuf body = {0};
    const uint8_t pixels[8] = {255, 0, 0, 255, 0, 255, 0, 128};
    bytebuf_append(&body, pixels, sizeof pixels);
    const uint32_t fields[5] = {2, 1, 3, 8, 0}; /* width, height, channels, bits, format */
    for (int i = 0; i < 5; i++)
        wire_put_u32(&body, fields[i]);
    ir_decoded_image image;
    char reason[256];
    assert_true(read_image(body.data, body.size, 1, &image, reason, sizeof reason));
    assert_int_equal(image.width, 2);
    assert_int_equal(image.height, 1);
    assert_int_equal(image.source_channels, 3);
    assert_int_equal(image.source_bits, 8);
    assert_memory_equal(image.rgba8, pixels, sizeof pixels);
    ir_decoded_image_free(&image);
    bytebuf_free(&body);
}

static void an_image_refusal_needs_a_reason(void **state) {
    (void)state;
    ir_decoded_image image;
    char reason[256];
    assert_false(read_image("bad CRC", 7, 0, &image, reason, sizeof reason));
    assert_string_equal(reason, "bad CRC");
    assert_false(read_image("", 0, 0, &image, reason, sizeof reason));
    assert_string_equal(reason, "libspng sent an invalid result");
}

/* A Draco refusal: magic, version 1, ok 0, the reason as a wire string. */
static bool read_draco_refusal(const char *why, char *reason, size_t reason_size) {
    bytebuf reply = {0};
    wire_put_u32(&reply, DRACO_REPLY_MAGIC);
    wire_put_u32(&reply, 1);
    wire_put_u8(&reply, 0);
    wire_put_string(&reply, why);
    assert_false(reply.failed);
    draco_mesh mesh;
    reason[0] = '\0';
    bool read = draco_reply_read(reply.data, reply.size, NULL, 0, 1024, &mesh, reason, reason_size);
    bytebuf_free(&reply);
    return read;
}

static void a_draco_refusal_needs_a_reason(void **state) {
    (void)state;
    char reason[256];
    assert_false(read_draco_refusal("not a mesh", reason, sizeof reason));
    assert_string_equal(reason, "not a mesh");
    assert_false(read_draco_refusal("", reason, sizeof reason));
    assert_string_equal(reason, "libdraco sent an invalid result");
    assert_false(read_draco_refusal(NULL, reason, sizeof reason));
    assert_string_equal(reason, "libdraco sent an invalid result");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_image_reply_gives_its_pixels),
        cmocka_unit_test(an_image_refusal_needs_a_reason),
        cmocka_unit_test(a_draco_refusal_needs_a_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
