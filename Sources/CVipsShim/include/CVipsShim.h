#ifndef TASKPRESS_CVIPSSHIM_H
#define TASKPRESS_CVIPSSHIM_H

// The few libvips calls taskpress's photos make, without libvips' variadic API or its headers.
// Every function reads the photo through `tpv_reader` (a custom libvips source), decodes it with
// the loader of `format` only, and never touches the file system.

#include <stddef.h>
#include <stdint.h>

/// The loaders taskpress uses; no other loader ever sees a photo.
typedef enum {
  TPV_JPEG = 1,
  TPV_PNG = 2,
  TPV_WEBP = 3,
  TPV_GIF = 4,
  TPV_TIFF = 5,
  TPV_HEIF = 6,
  /// Binary PPM: what taskpress makes of a BMP (libvips reads BMP only through ImageMagick).
  TPV_PPM = 7,
} tpv_format;

/// Where a photo's bytes come from: `read` copies up to `length` bytes at the current position
/// into `buffer` and returns how many (0 at the end, -1 on an error); `seek` moves the position
/// as `lseek` does and returns it (or -1).
typedef struct {
  void *context;
  int64_t (*read)(void *context, void *buffer, int64_t length);
  int64_t (*seek)(void *context, int64_t offset, int whence);
} tpv_reader;

/// What a photo's header says, before any pixel is decoded.
typedef struct {
  int width;
  int height;
  /// The EXIF orientation, 1-8 (1 when there is none).
  int orientation;
} tpv_header;

/// A rendition: WebP or JPEG bytes (free with `tpv_free`) and their size in pixels.
typedef struct {
  void *bytes;
  size_t length;
  int width;
  int height;
} tpv_image;

/// Loads libvips (`dlopen`) and starts it, once per process: untrusted loaders blocked, no
/// operation cache, one worker thread per pipeline, its warnings kept off stderr, and glibc's
/// malloc told to give large blocks back (see `tpv_bound_heap`). Returns 0, or -1 with `*error` set
/// (free with `tpv_free`).
int tpv_start(char **error);

/// The libvips version, e.g. `8.14.1` (once `tpv_start` succeeded).
const char *tpv_version(void);

/// Reads the header of the photo. Returns 0, or -1 with `*error` set.
int tpv_read_header(tpv_format format, tpv_reader reader, tpv_header *header, char **error);

/// Decodes the photo once (shrinking on load where the format can), scales it to the widest of
/// `widths` (pixels as it is shown, after its EXIF orientation), turns it upright, and encodes
/// one rendition per width into `images[i]` (made from the widest, in memory) as WebP (`jpeg`
/// 0) or JPEG (`jpeg` 1) at `quality`, without its metadata unless `keep_metadata`.
/// `fail_on_warning` makes any decoder warning (damaged data) an error. With `avif_quality` above
/// 0, each width is also encoded as AVIF (libvips' `heifsave` with AV1, 8 bits, at that quality
/// and `avif_effort`, 0-9) into `images[count + i]`: `images` then holds `2 * count` images,
/// zeroed by the caller. Returns 0, or -1 with `*error` set and no image left to free.
int tpv_make_renditions(
    tpv_format format, tpv_reader reader, const int *widths, int count, int quality, int jpeg,
    int keep_metadata, int fail_on_warning, int avif_quality, int avif_effort, tpv_image *images,
    char **error);

/// Whether this libvips can encode AVIF: a 16 x 16 image encoded as `tpv_make_renditions` would.
/// Returns 0, or -1 with `*error` set (no HEIF saver, or no AV1 encoder in libheif).
int tpv_avif_probe(char **error);

/// Decodes the photo to 8-bit sRGB pixels, 3 bytes each, row by row, as stored (not turned by
/// its orientation): for checking renditions. Returns 0, or -1 with `*error` set.
int tpv_decode_rgb(tpv_format format, tpv_reader reader, tpv_image *image, char **error);

/// Renders an SVG (`length` bytes, composed by taskpress: never a photo) with libvips' `svgload`
/// (librsvg) at its own size, without alpha, as PNG with no metadata into `image`. Returns 0, or
/// -1 with `*error` set (no SVG loader in this libvips, or an SVG librsvg refuses).
int tpv_svg_to_png(const char *svg, size_t length, tpv_image *image, char **error);

/// libvips keeps one error buffer for the whole process, so a failing operation's message may
/// be another thread's. Operations run between `tpv_lock(0)` and `tpv_unlock()`, beside each
/// other; one that failed runs again between `tpv_lock(1)` (alone, the buffer emptied) and
/// `tpv_unlock()`, so that the reason it reads is its own.
void tpv_lock(int exclusive);
void tpv_unlock(void);

/// Frees what the functions above allocated.
void tpv_free(void *pointer);

#endif
