// photo_floor: the libvips floor of taskpress's photo phase (Scripts/bench-photos,
// Scripts/benchmark). It makes the renditions taskpress makes, with libvips' own calls and
// nothing else, on JOBS threads, from the photos of a possessions database:
//
//   - a JPEG, PNG or WebP no wider than the second width, or any JPEG, PNG, WebP or GIF of at
//     most 64 KB, is written as stored (taskpress cuts its metadata out losslessly);
//   - any other photo is decoded once with vips_thumbnail_buffer (shrink-on-load where the
//     format allows, turned upright) to the widest width, held in memory, and every narrower
//     width is made from there; a rendition per width smaller than the photo, and one at its own
//     width when it is smaller than the widest; WebP at QUALITY and EFFORT, metadata stripped.
//
// Compiled by the scripts that use it (cc $(pkg-config --cflags --libs vips sqlite3)); not
// committed as a binary.
//
// Usage: photo_floor DATABASE OUTDIR [--jobs N] [--quality Q] [--effort E]
//                    [--widths 240,640,1024,1600] [--limit N]
// Prints: "photos N decoded D stored S files F bytes B seconds T" (T: wall time from the
// first photo read to the last file written).
#define _GNU_SOURCE  // strcasestr
#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <vips/vips.h>

static sqlite3_stmt *rows;
static pthread_mutex_t rows_lock = PTHREAD_MUTEX_INITIALIZER;
/// Set once the rows ran out: another sqlite3_step would start the query again.
static int rows_done = 0;
static const char *outdir;
static int widths[16];
static int width_count = 0;
static int quality = 80;
static int effort = 4;
static long decoded, stored, files, bytes_out;
static int failed_photos;

static void die(const char *what) {
  fprintf(stderr, "photo_floor: %s: %s\n", what, vips_error_buffer());
  exit(1);
}

static int write_file(const char *path, const void *bytes, size_t length) {
  FILE *file = fopen(path, "wb");
  if (file == NULL) return -1;
  size_t done = fwrite(bytes, 1, length, file);
  if (fclose(file) != 0 || done != length) return -1;
  return 0;
}

/// The next photo: its id and bytes (malloc'd), or 0 at the end.
static int next_photo(sqlite3_int64 *id, void **bytes, int *length) {
  pthread_mutex_lock(&rows_lock);
  int found = 0;
  if (!rows_done && sqlite3_step(rows) == SQLITE_ROW) {
    *id = sqlite3_column_int64(rows, 0);
    *length = sqlite3_column_bytes(rows, 1);
    *bytes = malloc(*length > 0 ? *length : 1);
    memcpy(*bytes, sqlite3_column_blob(rows, 1), *length);
    found = 1;
  } else {
    rows_done = 1;
  }
  pthread_mutex_unlock(&rows_lock);
  return found;
}

static int is_format(const char *loader, const char *name) {
  return strcasestr(loader, name) != NULL;
}

static void one_photo(sqlite3_int64 id, void *bytes, int length) {
  char path[4096];
  const char *loader = vips_foreign_find_load_buffer(bytes, length);
  if (loader == NULL) {
    __sync_fetch_and_add(&failed_photos, 1);
    vips_error_clear();
    return;
  }
  int browser = is_format(loader, "Jpeg") || is_format(loader, "Png") || is_format(loader, "Webp");
  int as_stored = length <= 64 * 1024 && (browser || is_format(loader, "Gif"));
  if (!as_stored && browser) {
    VipsImage *header = vips_image_new_from_buffer(bytes, length, "", NULL);
    if (header != NULL) {
      int second = width_count > 1 ? widths[1] : widths[0];
      as_stored = vips_image_get_width(header) <= second;
      g_object_unref(header);
    }
  }
  if (as_stored) {
    snprintf(path, sizeof path, "%s/%lld.stored", outdir, (long long)id);
    if (write_file(path, bytes, length)) die(path);
    __sync_fetch_and_add(&stored, 1);
    __sync_fetch_and_add(&files, 1);
    __sync_fetch_and_add(&bytes_out, length);
    return;
  }
  int widest = widths[width_count - 1];
  VipsImage *scaled = NULL;
  if (vips_thumbnail_buffer(bytes, length, &scaled, widest, "height", VIPS_MAX_COORD, "size",
                            VIPS_SIZE_DOWN, NULL)) {
    __sync_fetch_and_add(&failed_photos, 1);
    vips_error_clear();
    return;
  }
  VipsImage *base = vips_image_copy_memory(scaled);
  g_object_unref(scaled);
  if (base == NULL) die("copy to memory");
  __sync_fetch_and_add(&decoded, 1);
  int shown = vips_image_get_width(base);
  for (int i = 0; i < width_count + 1; i++) {
    int width;
    if (i < width_count) {
      if (widths[i] >= shown) continue;
      width = widths[i];
    } else {
      if (shown > widest) break;
      width = shown;
    }
    VipsImage *image = base;
    VipsImage *smaller = NULL;
    if (width < shown) {
      if (vips_thumbnail_image(base, &smaller, width, "height", VIPS_MAX_COORD, "size",
                               VIPS_SIZE_DOWN, NULL))
        die("thumbnail");
      image = smaller;
    }
    void *encoded = NULL;
    size_t encoded_length = 0;
    if (vips_webpsave_buffer(image, &encoded, &encoded_length, "Q", quality, "effort", effort,
                             "strip", TRUE, NULL))
      die("webpsave");
    snprintf(path, sizeof path, "%s/%lld-%dw.webp", outdir, (long long)id, width);
    if (write_file(path, encoded, encoded_length)) die(path);
    g_free(encoded);
    if (smaller != NULL) g_object_unref(smaller);
    __sync_fetch_and_add(&files, 1);
    __sync_fetch_and_add(&bytes_out, (long)encoded_length);
  }
  g_object_unref(base);
}

static void *worker(void *unused) {
  (void)unused;
  sqlite3_int64 id;
  void *bytes;
  int length;
  while (next_photo(&id, &bytes, &length)) {
    one_photo(id, bytes, length);
    free(bytes);
  }
  return NULL;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  if (VIPS_INIT(argv[0])) die("vips_init");
  if (argc < 3) {
    fprintf(stderr, "usage: photo_floor DATABASE OUTDIR [--jobs N] [--quality Q] [--effort E] "
                    "[--widths 240,640,1024,1600] [--limit N]\n");
    return 2;
  }
  const char *database = argv[1];
  outdir = argv[2];
  int jobs = 2;
  const char *width_list = "240,640,1024,1600";
  int limit = -1;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--jobs") == 0) jobs = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--quality") == 0) quality = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--effort") == 0) effort = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--widths") == 0) width_list = argv[i + 1];
    else if (strcmp(argv[i], "--limit") == 0) limit = atoi(argv[i + 1]);
    else {
      fprintf(stderr, "photo_floor: unknown option '%s'\n", argv[i]);
      return 2;
    }
  }
  for (const char *p = width_list; *p && width_count < 16;) {
    widths[width_count++] = atoi(p);
    p = strchr(p, ',');
    if (p == NULL) break;
    p++;
  }
  if (jobs < 1 || jobs > 64 || width_count == 0) {
    fprintf(stderr, "photo_floor: bad --jobs or --widths\n");
    return 2;
  }
  if (mkdir(outdir, 0755) && errno != EEXIST) {
    perror(outdir);
    return 1;
  }
  // As taskpress runs libvips: one thread per pipeline, no operation cache.
  vips_concurrency_set(1);
  vips_cache_set_max(0);
  vips_cache_set_max_mem(0);
  vips_cache_set_max_files(0);

  sqlite3 *db;
  if (sqlite3_open_v2(database, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db,
                         "SELECT id, photo FROM possessions WHERE photo IS NOT NULL AND "
                         "length(photo) > 0 ORDER BY id LIMIT ?",
                         -1, &rows, NULL) != SQLITE_OK ||
      sqlite3_bind_int(rows, 1, limit) != SQLITE_OK) {
    fprintf(stderr, "photo_floor: %s: %s\n", database, sqlite3_errmsg(db));
    return 1;
  }
  double started = now();
  pthread_t threads[64];
  for (int i = 0; i < jobs; i++) pthread_create(&threads[i], NULL, worker, NULL);
  for (int i = 0; i < jobs; i++) pthread_join(threads[i], NULL);
  double seconds = now() - started;
  sqlite3_finalize(rows);
  sqlite3_close(db);
  printf("photos %ld decoded %ld stored %ld failed %d files %ld bytes %ld seconds %.3f\n",
         decoded + stored + failed_photos, decoded, stored, failed_photos, files, bytes_out,
         seconds);
  return 0;
}
