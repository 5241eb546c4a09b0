/* dataset_io.h - reading and writing batches of n x n float32 matrices (row-major).
 *
 * Binary format (little-endian), written and validated here:
 *   offset 0   8 bytes  magic "CHOLBAT\0"
 *   offset 8   uint32   version (1)
 *   offset 12  uint32   element type (1 = float32)
 *   offset 16  uint64   n
 *   offset 24  uint64   count
 *   offset 32  count*n*n float32 values, matrix after matrix, each row-major
 *
 * Text format of the seed project: line 1 count, line 2 n, then count*n rows of n numbers.
 * A single matrix may also be given with only n on line 1, then n rows of n numbers. Lines 1
 * and 2 holding one plain integer each always mean "count, n" (so a single 1 x 1 matrix is
 * written as a batch of one). A '#' starts a comment to the end of its line; a UTF-8
 * byte-order mark at the start is skipped.
 *
 * dataset_read() recognises both (binary by its magic, text when the file starts like a number)
 * and rejects, with a message that names the file and what is wrong: a missing or unreadable
 * file, a directory, a truncated header, a wrong magic, an unknown version or element type, a
 * header that disagrees with the file size (sizes compared without overflow), a count or n out
 * of range, non-numeric, missing or extra values, a NUL byte in a text file, and (unless
 * DATASET_ALLOW_NONFINITE is given) NaN or Inf values.
 *
 * Writers create the output file's missing parent directories. */
#ifndef DATASET_IO_H
#define DATASET_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DATASET_MAGIC "CHOLBAT" /* 7 characters plus the terminating zero: 8 bytes */
#define DATASET_VERSION 1u
#define DATASET_ELEM_FLOAT32 1u
#define DATASET_HEADER_BYTES 32
#define DATASET_MAX_N 65536
#define DATASET_ERR_LEN 512

typedef struct {
    int n;
    size_t count;
    float *data; /* count*n*n floats, row-major; owned, release with dataset_free */
} dataset;

typedef enum { DATASET_BINARY = 0, DATASET_TEXT = 1 } dataset_format;

/* 0 on success; -1 with a message in err on any problem (out is then empty). */
int dataset_read(const char *path, dataset *out, char *err, size_t errlen);

/* dataset_read with flags: DATASET_ALLOW_NONFINITE accepts NaN and Inf values (the batched
 * driver factors such matrices and reports them through info, as LAPACK does). */
#define DATASET_ALLOW_NONFINITE 1u
int dataset_read_opts(const char *path, dataset *out, unsigned flags, char *err, size_t errlen);

/* Create the missing parent directories of path (like mkdir -p of its dirname). 0 or -1 with a
 * message naming the directory that could not be made. */
int dataset_make_parent_dirs(const char *path, char *err, size_t errlen);
int dataset_write(const char *path, const dataset *d, dataset_format fmt, char *err, size_t errlen);
void dataset_free(dataset *d);

/* For writers that stream a large batch in slabs: create path, write the binary header for
 * d->n and d->count (d->data is not used) and return the open file; the caller appends the
 * count*n*n floats and closes it. */
int dataset_write_header(const char *path, const dataset *d, FILE **f, char *err, size_t errlen);

/* Parse "bin" / "txt" (also "binary" / "text"). 0 on success, -1 if unknown. */
int dataset_format_parse(const char *s, dataset_format *out);

#ifdef __cplusplus
}
#endif

#endif
