/*
 * floor -- the cost of the file system for writing a given tree.
 *
 *   floor [-j THREADS] SOURCE DEST
 *
 * Loads every folder and regular file under SOURCE (paths and contents) into memory, which is
 * not timed. Then, timed with clock_gettime(CLOCK_MONOTONIC), creates DEST (which must not
 * exist) with the same folders and writes every file with open/write/close, THREADS threads
 * (default 2) taking chunks of the file list. The result is the same files with the same bytes:
 * the least any generator can spend to produce that tree on this file system.
 *
 * Prints one line on stdout:
 *   seconds=1.234567 files=N folders=N bytes=N threads=N
 *
 * Build: cc -O2 -pthread -o floor floor.c
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct file {
    char *path; /* absolute destination path */
    char *data;
    size_t size;
};

struct list {
    void *items;
    size_t count, capacity, item_size;
};

static struct list files = {.item_size = sizeof(struct file)};
static struct list folders = {.item_size = sizeof(char *)}; /* relative paths, parents first */
static atomic_size_t next_index;
static const size_t chunk = 64;

static void die(const char *what, const char *path) {
    fprintf(stderr, "floor: %s '%s': %s\n", what, path, strerror(errno));
    exit(1);
}

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "floor: out of memory\n");
        exit(1);
    }
    return p;
}

static void *push(struct list *l) {
    if (l->count == l->capacity) {
        l->capacity = l->capacity ? l->capacity * 2 : 1024;
        l->items = realloc(l->items, l->capacity * l->item_size);
        if (!l->items) {
            fprintf(stderr, "floor: out of memory\n");
            exit(1);
        }
    }
    return (char *)l->items + l->item_size * l->count++;
}

static char *join(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    char *s = xmalloc(la + lb + 2);
    memcpy(s, a, la);
    s[la] = '/';
    memcpy(s + la + 1, b, lb + 1);
    return s;
}

static char *read_whole(const char *path, size_t *size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) die("cannot open", path);
    struct stat st;
    if (fstat(fd, &st) != 0) die("cannot stat", path);
    char *data = xmalloc((size_t)st.st_size);
    size_t done = 0;
    while (done < (size_t)st.st_size) {
        ssize_t n = read(fd, data + done, (size_t)st.st_size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) die("cannot read", path);
        if (n == 0) break;
        done += (size_t)n;
    }
    close(fd);
    *size = done;
    return data;
}

/* Walks SOURCE/rel; records folders (parents first) and files with their contents. */
static void load(const char *source, const char *dest, const char *rel) {
    char *dir_path = rel[0] ? join(source, rel) : strdup(source);
    DIR *dir = opendir(dir_path);
    if (!dir) die("cannot open folder", dir_path);
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        const char *name = entry->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) continue;
        char *child_rel = rel[0] ? join(rel, name) : strdup(name);
        char *child_path = join(source, child_rel);
        struct stat st;
        if (lstat(child_path, &st) != 0) die("cannot stat", child_path);
        if (S_ISDIR(st.st_mode)) {
            *(char **)push(&folders) = strdup(child_rel);
            load(source, dest, child_rel);
        } else if (S_ISREG(st.st_mode)) {
            struct file *f = push(&files);
            f->data = read_whole(child_path, &f->size);
            f->path = join(dest, child_rel);
        } else {
            fprintf(stderr, "floor: skipping '%s' (not a file or folder)\n", child_path);
        }
        free(child_path);
        free(child_rel);
    }
    closedir(dir);
    free(dir_path);
}

static void write_file(const struct file *f) {
    int fd = open(f->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) die("cannot create", f->path);
    size_t done = 0;
    while (done < f->size) {
        ssize_t n = write(fd, f->data + done, f->size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) die("cannot write", f->path);
        done += (size_t)n;
    }
    if (close(fd) != 0) die("cannot close", f->path);
}

static void *writer(void *unused) {
    (void)unused;
    const struct file *all = files.items;
    for (;;) {
        size_t start = atomic_fetch_add(&next_index, chunk);
        if (start >= files.count) break;
        size_t end = start + chunk < files.count ? start + chunk : files.count;
        for (size_t i = start; i < end; i++) write_file(&all[i]);
    }
    return NULL;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    int threads = 2;
    int opt;
    while ((opt = getopt(argc, argv, "j:")) != -1) {
        if (opt == 'j' && atoi(optarg) > 0) {
            threads = atoi(optarg);
        } else {
            fprintf(stderr, "usage: floor [-j THREADS] SOURCE DEST\n");
            return 64;
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, "usage: floor [-j THREADS] SOURCE DEST\n");
        return 64;
    }
    const char *source = argv[optind], *dest = argv[optind + 1];
    struct stat st;
    if (lstat(dest, &st) == 0) {
        fprintf(stderr, "floor: '%s' exists; give a new folder\n", dest);
        return 1;
    }

    load(source, dest, ""); /* not timed */
    char **dirs = folders.items;
    char **dir_paths = xmalloc(sizeof(char *) * (folders.count + 1));
    for (size_t i = 0; i < folders.count; i++) dir_paths[i] = join(dest, dirs[i]);
    size_t bytes = 0;
    for (size_t i = 0; i < files.count; i++) bytes += ((struct file *)files.items)[i].size;

    double start = now();
    if (mkdir(dest, 0755) != 0) die("cannot create folder", dest);
    for (size_t i = 0; i < folders.count; i++)
        if (mkdir(dir_paths[i], 0755) != 0) die("cannot create folder", dir_paths[i]);
    pthread_t *ids = xmalloc(sizeof(pthread_t) * (size_t)threads);
    for (int t = 0; t < threads; t++)
        if (pthread_create(&ids[t], NULL, writer, NULL) != 0) {
            fprintf(stderr, "floor: cannot start a thread\n");
            return 1;
        }
    for (int t = 0; t < threads; t++) pthread_join(ids[t], NULL);
    double seconds = now() - start;

    printf("seconds=%.6f files=%zu folders=%zu bytes=%zu threads=%d\n", seconds, files.count,
           folders.count + 1, bytes, threads);
    return 0;
}
