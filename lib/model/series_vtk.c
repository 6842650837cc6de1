/* A series' frames as legacy VTK 3.0 BINARY unstructured grids (NAME-00000k.vtk) and a
 * ParaView file series (NAME.vtk.series, the JSON list ParaView 5.5 and later opens as
 * one animated dataset): for readers of the legacy format only (older VTK pipelines,
 * some post-processors). The values are big-endian, as the legacy format requires; the
 * cells are written as the legacy CELLS section (each cell's node count, then its
 * nodes), the time as the field TimeValue, the series' field data beside it, and the
 * point data as one FIELD of all the frame's arrays. */
#include "model.h"

#include <string.h>

enum { CHUNK = 8192 }; /* values converted per write */

/* n values of type (FCD__AT_*) from data, as big-endian doubles (reals) or 32-bit
 * integers; 0 on a write error */
static int put_values(FILE *fp, const void *data, uint64_t n, int type) {
  unsigned char buf[CHUNK * 8];
  int size = type == FCD__AT_REAL ? 8 : 4, little = fcd__little_endian();
  for (uint64_t i0 = 0; i0 < n; i0 += CHUNK) {
    uint64_t m = n - i0 < CHUNK ? n - i0 : CHUNK;
    for (uint64_t i = 0; i < m; i++) {
      unsigned char b[8];
      uint64_t j = i0 + i;
      if (type == FCD__AT_REAL) memcpy(b, (const double *)data + j, 8);
      else {
        int32_t x = type == FCD__AT_INT32   ? ((const int32_t *)data)[j]
                    : type == FCD__AT_INT64 ? (int32_t)((const int64_t *)data)[j]
                                            : (int32_t)((const unsigned char *)data)[j];
        memcpy(b, &x, 4);
      }
      for (int k = 0; k < size; k++) buf[i * size + k] = b[little ? size - 1 - k : k];
    }
    if (fwrite(buf, (size_t)size, (size_t)m, fp) != (size_t)m) return 0;
  }
  return 1;
}

/* the values, then the newline that ends a binary block */
static int put_block(FILE *fp, const void *data, uint64_t n, int type) {
  return put_values(fp, data, n, type) && fputc('\n', fp) != EOF;
}

/* the index of the array that is `what` */
static int find(const fcd__frame *f, int what) {
  for (int k = 0; k < f->na; k++)
    if (f->a[k].what == what) return k;
  return -1;
}

static int64_t at(const void *data, int type, fcd_index i) {
  return type == FCD__AT_INT32 ? ((const int32_t *)data)[i] : ((const int64_t *)data)[i];
}

/* CELLS: each cell's node count, then its nodes (both read from the frame's
 * connectivity and offsets, which the frame keeps valid together for this) */
static int put_cells(const fcd__frame *f, FILE *fp) {
  int kc = find(f, FCD__AW_CONNECTIVITY), ko = find(f, FCD__AW_OFFSETS);
  int type = f->a[kc].type;
  uint64_t nconn = f->a[kc].count;
  fprintf(fp, "CELLS %lld %llu\n", (long long)f->ncells,
          (unsigned long long)(nconn + (uint64_t)f->ncells));
  const void *conn = f->data(f, kc), *ends = f->data(f, ko);
  int32_t buf[CHUNK];
  int nb = 0, ok = 1;
  int64_t start = 0;
  for (fcd_index c = 0; c < f->ncells && ok; c++) {
    int64_t end = at(ends, type, c);
    for (int64_t q = start - 1; q < end && ok; q++) {
      buf[nb++] = q < start ? (int32_t)(end - start) : (int32_t)at(conn, type, (fcd_index)q);
      if (nb == CHUNK) {
        ok = put_values(fp, buf, (uint64_t)nb, FCD__AT_INT32);
        nb = 0;
      }
    }
    start = end;
  }
  return ok && put_block(fp, buf, (uint64_t)nb, FCD__AT_INT32);
}

static int vtk_frame(const fcd__frame *f, FILE *fp) {
  fprintf(fp, "# vtk DataFile Version 3.0\nfcd series frame, t = %.17g\nBINARY\n"
          "DATASET UNSTRUCTURED_GRID\nFIELD FieldData %d\nTimeValue 1 1 double\n", f->t,
          1 + f->nfd);
  int ok = put_block(fp, &f->t, 1, FCD__AT_REAL);
  for (int k = 0; k < f->nfd && ok; k++) {
    fprintf(fp, "%s 1 1 double\n", f->fd_name[k]);
    ok = put_block(fp, &f->fd_val[k], 1, FCD__AT_REAL);
  }
  int kp = find(f, FCD__AW_POINTS), kt = find(f, FCD__AW_TYPES);
  fprintf(fp, "POINTS %lld double\n", (long long)f->nnodes);
  ok = ok && put_block(fp, f->data(f, kp), f->a[kp].count, FCD__AT_REAL);
  ok = ok && put_cells(f, fp);
  fprintf(fp, "CELL_TYPES %lld\n", (long long)f->ncells);
  ok = ok && put_block(fp, f->data(f, kt), f->a[kt].count, FCD__AT_UINT8);
  int npd = 0;
  for (int k = 0; k < f->na; k++) npd += f->a[k].what == FCD__AW_POINT_DATA;
  fprintf(fp, "POINT_DATA %lld\nFIELD point_data %d\n", (long long)f->nnodes, npd);
  for (int k = 0; k < f->na && ok; k++) {
    const fcd__frame_array *a = &f->a[k];
    if (a->what != FCD__AW_POINT_DATA) continue;
    fprintf(fp, "%s %d %lld %s\n", a->name, a->ncomp, (long long)f->nnodes,
            a->type == FCD__AT_REAL ? "double" : "int");
    ok = put_block(fp, f->data(f, k), a->count, a->type);
  }
  return ok;
}

static const char *series_head(void) {
  return "{\n  \"file-series-version\" : \"1.0\",\n  \"files\" : [\n";
}

/* entries after the first are preceded by the comma JSON wants between them: the file is
 * valid JSON with the closing text after any entry */
static int series_entry(char *buf, size_t cap, fcd_index k, fcd_real t, const char *file) {
  return snprintf(buf, cap, "%s    { \"name\" : \"%s\", \"time\" : %.17g }", k ? ",\n" : "",
                  file, t);
}

const fcd__series_writer fcd__writer_vtk = {
    {FCD_OUTPUT_VTK, "vtk", "legacy VTK 3.0 BINARY unstructured grids (.vtk), and a ParaView "
     "file series (.vtk.series)"},
    "vtk", "vtk.series", vtk_frame, series_head, "\n  ]\n}\n", series_entry};
