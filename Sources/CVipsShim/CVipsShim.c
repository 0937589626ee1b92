#include "CVipsShim.h"

#include <dlfcn.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vips/vips.h>

/// Every libvips and GLib function the shim calls. libvips (and the hundred libraries it brings)
/// is loaded with `dlopen` by `tpv_start`, the first time a photo must be decoded: a build
/// that publishes every photo as stored does not pay for loading it.
#define TPV_FUNCTIONS(X) \
  X(g_free) \
  X(g_log_set_handler) \
  X(g_object_unref) \
  X(g_signal_connect_data) \
  X(g_strdup) \
  X(g_strfreev) \
  X(vips_area_unref) \
  X(vips_array_double_new) \
  X(vips_block_untrusted_set) \
  X(vips_cache_set_max) \
  X(vips_cache_set_max_files) \
  X(vips_cache_set_max_mem) \
  X(vips_cast_uchar) \
  X(vips_colourspace) \
  X(vips_concurrency_set) \
  X(vips_copy) \
  X(vips_error) \
  X(vips_error_buffer) \
  X(vips_error_clear) \
  X(vips_flatten) \
  X(vips_flip) \
  X(vips_gifload_source) \
  X(vips_heifload_source) \
  X(vips_image_copy_memory) \
  X(vips_image_get_fields) \
  X(vips_image_get_height) \
  X(vips_image_get_int) \
  X(vips_image_get_typeof) \
  X(vips_image_get_width) \
  X(vips_image_hasalpha) \
  X(vips_image_new_from_memory) \
  X(vips_image_remove) \
  X(vips_image_set_int) \
  X(vips_image_write_to_memory) \
  X(vips_init) \
  X(vips_isprefix) \
  X(vips_jpegload_source) \
  X(vips_jpegsave_buffer) \
  X(vips_operation_block_set) \
  X(vips_pngload_source) \
  X(vips_ppmload_source) \
  X(vips_rot) \
  X(vips_source_custom_new) \
  X(vips_source_rewind) \
  X(vips_thumbnail_image) \
  X(vips_tiffload_source) \
  X(vips_version_string) \
  X(vips_webpload_source) \
  X(vips_webpsave_buffer)

#define TPV_POINTER(name) static __typeof__(name) *tpv_p_##name;
TPV_FUNCTIONS(TPV_POINTER)
#undef TPV_POINTER

/// libvips' HEIF saver, looked up apart: a libvips built without libheif has none, and then
/// taskpress publishes WebP alone (NULL).
static __typeof__(vips_heifsave_buffer) *tpv_p_vips_heifsave_buffer;

/// libvips' SVG loader (through librsvg) and PNG saver, looked up apart: a libvips built without
/// them has no social card (NULL).
static __typeof__(vips_svgload_buffer) *tpv_p_vips_svgload_buffer;
static __typeof__(vips_pngsave_buffer) *tpv_p_vips_pngsave_buffer;

/// A libvips or GLib function, as loaded.
#define V(name) (*tpv_p_##name)

/// The message of the last `dlopen` or `dlsym` that failed, or of a function not found.
static char tpv_load_error[512];

/// Loads libvips and looks up every function; 0, or -1 with `tpv_load_error` set.
static int tpv_load_library(void) {
  void *library = dlopen("libvips.so.42", RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    const char *reason = dlerror();
    snprintf(tpv_load_error, sizeof tpv_load_error,
             "libvips could not be loaded (%s); install the Debian package libvips42",
             reason ? reason : "libvips.so.42 not found");
    return -1;
  }
#define TPV_LOOK_UP(name)                                                                    \
  tpv_p_##name = (__typeof__(name) *)dlsym(library, #name);                                  \
  if (tpv_p_##name == NULL) {                                                                \
    snprintf(tpv_load_error, sizeof tpv_load_error, "libvips has no function %s", #name); \
    return -1;                                                                               \
  }
  TPV_FUNCTIONS(TPV_LOOK_UP)
#undef TPV_LOOK_UP
  tpv_p_vips_heifsave_buffer =
      (__typeof__(vips_heifsave_buffer) *)dlsym(library, "vips_heifsave_buffer");
  tpv_p_vips_svgload_buffer =
      (__typeof__(vips_svgload_buffer) *)dlsym(library, "vips_svgload_buffer");
  tpv_p_vips_pngsave_buffer =
      (__typeof__(vips_pngsave_buffer) *)dlsym(library, "vips_pngsave_buffer");
  return 0;
}

/// Held shared by every photo's operation and exclusively by one whose reason is read.
static pthread_rwlock_t tpv_error_lock = PTHREAD_RWLOCK_INITIALIZER;

void tpv_lock(int exclusive) {
  if (exclusive) {
    pthread_rwlock_wrlock(&tpv_error_lock);
    V(vips_error_clear)();
  } else {
    pthread_rwlock_rdlock(&tpv_error_lock);
  }
}

void tpv_unlock(void) { pthread_rwlock_unlock(&tpv_error_lock); }

static void tpv_quiet(
    const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
  (void)domain;
  (void)level;
  (void)message;
  (void)data;
}

/// The error libvips recorded, copied (its buffer is shared by every thread).
static void tpv_take_error(char **error, const char *fallback) {
  if (error == NULL) {
    V(vips_error_clear)();
    return;
  }
  const char *text = V(vips_error_buffer)();
  if (text == NULL || text[0] == '\0') text = fallback;
  char *copy = V(g_strdup)(text);
  // One line: the last newline and everything but the first message dropped.
  char *newline = strchr(copy, '\n');
  if (newline != NULL) *newline = '\0';
  *error = copy;
  V(vips_error_clear)();
}

/// Keeps glibc's heap from growing with the number of photos decoded. By default glibc raises
/// its mmap threshold to the size of each large block freed (up to 32 MB), so that after the
/// first photo its pixel buffers and encoder buffers come from the heaps of malloc's arenas (one
/// per thread that allocates, up to 8 per core), where the holes they leave are kept: peak RSS
/// went from 306 MB at 20 phone photos to 386 MB at 50 (and 457 MB at 500). A fixed threshold
/// (which also turns the raising off) gives every block of 128 KB or more back when it is freed,
/// two arenas bound what the threads of taskpress and libvips keep, and `malloc_trim` after each
/// photo returns the free pages left in them: 164-172 MB at 50. Only a build that decodes a
/// photo gets here: one whose photos are all published as stored keeps glibc's defaults.
static void tpv_bound_heap(void) {
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  mallopt(M_ARENA_MAX, 2);
}

int tpv_start(char **error) {
  if (tpv_load_library()) {
    if (error != NULL) *error = strdup(tpv_load_error);
    return -1;
  }
  if (V(vips_init)("taskpress")) {
    tpv_take_error(error, "libvips did not start");
    return -1;
  }
  tpv_bound_heap();
  V(vips_block_untrusted_set)(TRUE);
  // The PPM loader only ever reads what taskpress makes of a BMP (its own header, then the
  // pixels): no database bytes reach it as they are.
  V(vips_operation_block_set)("VipsForeignLoadPpmSource", FALSE);
  // The SVG loader (librsvg, untrusted) only ever reads the social card taskpress composes
  // (`tpv_svg_to_png`): no database bytes reach it, and no other loader of SVG is unblocked.
  V(vips_operation_block_set)("VipsForeignLoadSvgBuffer", FALSE);
  V(vips_concurrency_set)(1);
  V(vips_cache_set_max)(0);
  V(vips_cache_set_max_mem)(0);
  V(vips_cache_set_max_files)(0);
  V(g_log_set_handler)("VIPS", G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION,
                    tpv_quiet, NULL);
  return 0;
}

const char *tpv_version(void) { return V(vips_version_string)(); }

static gint64 tpv_on_read(VipsSourceCustom *source, void *buffer, gint64 length, gpointer data) {
  (void)source;
  tpv_reader *reader = data;
  return reader->read(reader->context, buffer, length);
}

static gint64 tpv_on_seek(VipsSourceCustom *source, gint64 offset, int whence, gpointer data) {
  (void)source;
  tpv_reader *reader = data;
  return reader->seek(reader->context, offset, whence);
}

static VipsSource *tpv_source(tpv_reader *reader) {
  VipsSourceCustom *source = V(vips_source_custom_new)();
  V(g_signal_connect_data)(source, "read", G_CALLBACK(tpv_on_read), reader, NULL, 0);
  V(g_signal_connect_data)(source, "seek", G_CALLBACK(tpv_on_seek), reader, NULL, 0);
  return (VipsSource *)source;
}

/// Loads with the format's own loader only; `shrink` (JPEG only) divides the size on load.
static int tpv_load(
    tpv_format format, VipsSource *source, int shrink, VipsFailOn fail_on, VipsImage **out) {
  switch (format) {
    case TPV_JPEG:
      return V(vips_jpegload_source)(source, out, "shrink", shrink, "autorotate", FALSE,
                                  "fail_on", fail_on, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    case TPV_PNG:
      return V(vips_pngload_source)(source, out, "fail_on", fail_on, "access",
                                 VIPS_ACCESS_SEQUENTIAL, NULL);
    case TPV_WEBP:
      return V(vips_webpload_source)(source, out, "fail_on", fail_on, "access",
                                  VIPS_ACCESS_SEQUENTIAL, NULL);
    case TPV_GIF:
      return V(vips_gifload_source)(source, out, "fail_on", fail_on, "access",
                                 VIPS_ACCESS_SEQUENTIAL, NULL);
    case TPV_TIFF:
      return V(vips_tiffload_source)(source, out, "fail_on", fail_on, "access",
                                  VIPS_ACCESS_SEQUENTIAL, NULL);
    case TPV_HEIF:
      return V(vips_heifload_source)(source, out, "fail_on", fail_on, "access",
                                  VIPS_ACCESS_SEQUENTIAL, NULL);
    case TPV_PPM:
      return V(vips_ppmload_source)(source, out, "fail_on", fail_on, "access",
                                 VIPS_ACCESS_SEQUENTIAL, NULL);
  }
  V(vips_error)("taskpress", "unknown format");
  return -1;
}

static int tpv_orientation(VipsImage *image) {
  int orientation = 1;
  if (V(vips_image_get_typeof)(image, VIPS_META_ORIENTATION) &&
      V(vips_image_get_int)(image, VIPS_META_ORIENTATION, &orientation) == 0 && orientation >= 1 &&
      orientation <= 8)
    return orientation;
  return 1;
}

int tpv_read_header(tpv_format format, tpv_reader reader, tpv_header *header, char **error) {
  VipsSource *source = tpv_source(&reader);
  VipsImage *image = NULL;
  int result = tpv_load(format, source, 1, VIPS_FAIL_ON_NONE, &image);
  if (result == 0) {
    header->width = V(vips_image_get_width)(image);
    header->height = V(vips_image_get_height)(image);
    header->orientation = tpv_orientation(image);
    V(g_object_unref)(image);
  } else {
    tpv_take_error(error, "the header could not be read");
  }
  V(g_object_unref)(source);
  return result == 0 ? 0 : -1;
}

/// Turns `in` upright by its EXIF orientation (EXIF 2.3, tag 0x0112): `t` holds the steps.
static int tpv_upright(VipsImage *in, int orientation, VipsImage **t, VipsImage **out) {
  VipsAngle angle = VIPS_ANGLE_D0;
  int flip = -1;
  switch (orientation) {
    case 2: flip = VIPS_DIRECTION_HORIZONTAL; break;
    case 3: angle = VIPS_ANGLE_D180; break;
    case 4: flip = VIPS_DIRECTION_VERTICAL; break;
    case 5: angle = VIPS_ANGLE_D90; flip = VIPS_DIRECTION_HORIZONTAL; break;  // transpose
    case 6: angle = VIPS_ANGLE_D90; break;
    case 7: angle = VIPS_ANGLE_D90; flip = VIPS_DIRECTION_VERTICAL; break;  // transverse
    case 8: angle = VIPS_ANGLE_D270; break;
    default: *out = in; return 0;
  }
  // Rotating needs random access: the image (already small) is copied to memory first.
  t[0] = V(vips_image_copy_memory)(in);
  if (t[0] == NULL) return -1;
  VipsImage *current = t[0];
  if (angle != VIPS_ANGLE_D0) {
    if (V(vips_rot)(current, &t[1], angle, NULL)) return -1;
    current = t[1];
  }
  if (flip >= 0) {
    if (V(vips_flip)(current, &t[2], (VipsDirection)flip, NULL)) return -1;
    current = t[2];
  }
  *out = current;
  return 0;
}

/// A copy of `in` without EXIF, XMP, IPTC, Photoshop and comment metadata (the ICC profile
/// stays), or with only its orientation set upright when `keep_metadata`.
static int tpv_without_metadata(VipsImage *in, int keep_metadata, VipsImage **out) {
  if (V(vips_copy)(in, out, NULL)) return -1;
  if (keep_metadata) {
    // The pixels are upright now; viewers must not turn them again.
    if (V(vips_image_get_typeof)(*out, VIPS_META_ORIENTATION))
      V(vips_image_set_int)(*out, VIPS_META_ORIENTATION, 1);
    return 0;
  }
  gchar **fields = V(vips_image_get_fields)(*out);
  for (int i = 0; fields[i] != NULL; i++) {
    const char *name = fields[i];
    if (V(vips_isprefix)("exif-", name) || V(vips_isprefix)("xmp-", name) ||
        V(vips_isprefix)("iptc-", name) || V(vips_isprefix)("photoshop-", name) ||
        strstr(name, "comment") != NULL || strcmp(name, VIPS_META_ORIENTATION) == 0)
      V(vips_image_remove)(*out, name);
  }
  V(g_strfreev)(fields);
  return 0;
}

/// Encodes `image` as WebP or JPEG into `out`.
static int tpv_encode(VipsImage *image, int quality, int jpeg, int keep_metadata, tpv_image *out) {
  void *bytes = NULL;
  size_t length = 0;
  int failed = jpeg ? V(vips_jpegsave_buffer)(image, &bytes, &length, "Q", quality, "strip",
                                           !keep_metadata, "optimize_coding", TRUE, NULL)
                    : V(vips_webpsave_buffer)(image, &bytes, &length, "Q", quality, "strip",
                                           !keep_metadata, NULL);
  if (failed) return -1;
  out->bytes = bytes;
  out->length = length;
  out->width = V(vips_image_get_width)(image);
  out->height = V(vips_image_get_height)(image);
  return 0;
}

/// Encodes `image` as AVIF (HEIF with AV1) into `out`: `quality` and `effort` (0-9) as libvips
/// takes them.
static int tpv_encode_avif(
    VipsImage *image, int quality, int effort, int keep_metadata, tpv_image *out) {
  if (tpv_p_vips_heifsave_buffer == NULL) {
    V(vips_error)("taskpress", "this libvips has no HEIF saver (heifsave)");
    return -1;
  }
  void *bytes = NULL;
  size_t length = 0;
  if (V(vips_heifsave_buffer)(image, &bytes, &length, "Q", quality, "compression",
                              VIPS_FOREIGN_HEIF_COMPRESSION_AV1, "effort", effort, "bitdepth", 8,
                              "strip", !keep_metadata, NULL))
    return -1;
  out->bytes = bytes;
  out->length = length;
  out->width = V(vips_image_get_width)(image);
  out->height = V(vips_image_get_height)(image);
  return 0;
}

int tpv_avif_probe(char **error) {
  static const unsigned char pixels[16 * 16 * 3] = {0};
  tpv_image out = {0};
  VipsImage *image = V(vips_image_new_from_memory)(pixels, sizeof pixels, 16, 16, 3,
                                                   VIPS_FORMAT_UCHAR);
  int failed = image == NULL || tpv_encode_avif(image, 50, 9, 0, &out);
  if (failed) tpv_take_error(error, "AVIF could not be encoded");
  if (image != NULL) V(g_object_unref)(image);
  if (out.bytes != NULL) V(g_free)(out.bytes);
  return failed ? -1 : 0;
}

int tpv_make_renditions(
    tpv_format format, tpv_reader reader, const int *widths, int count, int quality, int jpeg,
    int keep_metadata, int fail_on_warning, int avif_quality, int avif_effort,
    tpv_image *images, char **error) {
  VipsFailOn fail_on = fail_on_warning ? VIPS_FAIL_ON_WARNING : VIPS_FAIL_ON_ERROR;
  VipsSource *source = tpv_source(&reader);
  VipsImage *header = NULL;
  VipsImage *t[9] = {NULL};
  int made = 0;
  int failed = 1;
  int widest = 0;
  for (int i = 0; i < count; i++)
    if (widths[i] > widest) widest = widths[i];
  if (count < 1 || widest < 1) {
    V(vips_error)("taskpress", "no width asked for");
    goto done;
  }

  // The JPEG shrink on load: the largest that leaves at least twice the pixels wanted.
  int shrink = 1;
  if (format == TPV_JPEG) {
    if (tpv_load(format, source, 1, fail_on, &header)) goto done;
    int orientation = tpv_orientation(header);
    int shown = orientation >= 5 ? V(vips_image_get_height)(header) : V(vips_image_get_width)(header);
    V(g_object_unref)(header);
    header = NULL;
    if (V(vips_source_rewind)(source)) goto done;
    double factor = (double)shown / (double)widest;
    shrink = factor >= 16 ? 8 : factor >= 8 ? 4 : factor >= 4 ? 2 : 1;
  }
  if (tpv_load(format, source, shrink, fail_on, &t[0])) goto done;
  int orientation = tpv_orientation(t[0]);
  // Scaled as stored to the widest size asked for, turned upright on the small image, and
  // decoded once into memory: the narrower sizes are made from there.
  if (orientation >= 5) {
    if (V(vips_thumbnail_image)(t[0], &t[1], VIPS_MAX_COORD, "height", widest, "size",
                             VIPS_SIZE_DOWN, "no_rotate", TRUE, NULL))
      goto done;
  } else {
    if (V(vips_thumbnail_image)(t[0], &t[1], widest, "height", VIPS_MAX_COORD, "size",
                             VIPS_SIZE_DOWN, "no_rotate", TRUE, NULL))
      goto done;
  }
  VipsImage *current = NULL;
  if (tpv_upright(t[1], orientation, &t[2], &current)) goto done;
  if (tpv_without_metadata(current, keep_metadata, &t[5])) goto done;
  current = t[5];
  if (jpeg && V(vips_image_hasalpha)(current)) {
    double white[3] = {255, 255, 255};
    VipsArrayDouble *background = V(vips_array_double_new)(white, 3);
    int flattened = V(vips_flatten)(current, &t[6], "background", background, NULL);
    V(vips_area_unref)((VipsArea *)background);
    if (flattened) goto done;
    current = t[6];
  }
  t[7] = V(vips_image_copy_memory)(current);
  if (t[7] == NULL) goto done;
  VipsImage *base = t[7];
  for (; made < count; made++) {
    VipsImage *smaller = NULL;
    VipsImage *image = base;
    if (widths[made] < V(vips_image_get_width)(base)) {
      if (V(vips_thumbnail_image)(base, &smaller, widths[made], "height", VIPS_MAX_COORD, "size",
                               VIPS_SIZE_DOWN, "no_rotate", TRUE, NULL))
        goto done;
      image = smaller;
    }
    int encoded = tpv_encode(image, quality, jpeg, keep_metadata, &images[made]);
    if (!encoded && avif_quality > 0)
      encoded = tpv_encode_avif(image, avif_quality, avif_effort, keep_metadata,
                                &images[count + made]);
    if (smaller != NULL) V(g_object_unref)(smaller);
    if (encoded) goto done;
  }
  failed = 0;

done:
  if (failed) {
    tpv_take_error(error, "the photo could not be decoded");
    for (int i = 0; i < (avif_quality > 0 ? 2 * count : count); i++) {
      if (images[i].bytes != NULL) V(g_free)(images[i].bytes);
      images[i].bytes = NULL;
    }
  }
  for (int i = 0; i < 9; i++)
    if (t[i] != NULL) V(g_object_unref)(t[i]);
  if (header != NULL) V(g_object_unref)(header);
  V(g_object_unref)(source);
  // The photo's buffers were freed: the pages they leave in malloc's arenas go back.
#ifdef __GLIBC__
  malloc_trim(0);
#endif
  return failed ? -1 : 0;
}

int tpv_decode_rgb(tpv_format format, tpv_reader reader, tpv_image *out, char **error) {
  VipsSource *source = tpv_source(&reader);
  VipsImage *t[4] = {NULL};
  int failed = 1;
  if (tpv_load(format, source, 1, VIPS_FAIL_ON_ERROR, &t[0])) goto done;
  if (V(vips_colourspace)(t[0], &t[1], VIPS_INTERPRETATION_sRGB, NULL)) goto done;
  VipsImage *current = t[1];
  if (V(vips_image_hasalpha)(current)) {
    if (V(vips_flatten)(current, &t[2], NULL)) goto done;
    current = t[2];
  }
  if (V(vips_cast_uchar)(current, &t[3], NULL)) goto done;
  size_t length = 0;
  void *bytes = V(vips_image_write_to_memory)(t[3], &length);
  if (bytes == NULL) goto done;
  out->bytes = bytes;
  out->length = length;
  out->width = V(vips_image_get_width)(t[3]);
  out->height = V(vips_image_get_height)(t[3]);
  failed = 0;
done:
  if (failed) tpv_take_error(error, "the photo could not be decoded");
  for (int i = 0; i < 4; i++)
    if (t[i] != NULL) V(g_object_unref)(t[i]);
  V(g_object_unref)(source);
  return failed ? -1 : 0;
}

int tpv_svg_to_png(const char *svg, size_t length, tpv_image *out, char **error) {
  VipsImage *t[2] = {NULL};
  int failed = 1;
  if (tpv_p_vips_svgload_buffer == NULL || tpv_p_vips_pngsave_buffer == NULL) {
    V(vips_error)("taskpress", "this libvips has no SVG loader (svgload) or PNG saver (pngsave)");
    goto done;
  }
  // The buffer is only read, and only during the call.
  if (V(vips_svgload_buffer)((void *)svg, length, &t[0], NULL)) goto done;
  // Opaque, without its alpha band: the card's background covers it.
  double white[3] = {255, 255, 255};
  VipsArrayDouble *background = V(vips_array_double_new)(white, 3);
  int flattened = V(vips_flatten)(t[0], &t[1], "background", background, NULL);
  V(vips_area_unref)((VipsArea *)background);
  if (flattened) goto done;
  void *bytes = NULL;
  size_t size = 0;
  // No metadata: the same pixels give the same bytes.
  if (V(vips_pngsave_buffer)(t[1], &bytes, &size, "strip", TRUE, "interlace", FALSE, NULL))
    goto done;
  out->bytes = bytes;
  out->length = size;
  out->width = V(vips_image_get_width)(t[1]);
  out->height = V(vips_image_get_height)(t[1]);
  failed = 0;
done:
  if (failed) tpv_take_error(error, "the SVG could not be rendered");
  for (int i = 0; i < 2; i++)
    if (t[i] != NULL) V(g_object_unref)(t[i]);
  return failed ? -1 : 0;
}

void tpv_free(void *pointer) {
  // Before libvips is loaded only `tpv_start`'s message (from strdup) is freed here.
  if (tpv_p_g_free != NULL)
    V(g_free)(pointer);
  else
    free(pointer);
}
