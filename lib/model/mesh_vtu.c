/* VTK XML unstructured grids (.vtu) as VTK's vtkXMLUnstructuredGridWriter writes them:
 * one piece, arrays ascii, binary (base64) or appended (base64 or raw), uncompressed or
 * zlib-compressed, UInt32 or UInt64 headers, either byte order. An integer cell-data
 * array NAME gives groups "NAME:VALUE" (Gmsh's CellEntityIds, meshio's gmsh:physical). */
#include "mesh_private.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if FCD_HAVE_ZLIB
#include <zlib.h>
#endif

typedef struct {
  fcd__meshsrc *ms;
  const char *text, *end;
  int big, hdr8, zlib; /* big-endian data; UInt64 headers; zlib blocks */
  const char *app;     /* appended data: the byte after '_' */
  int app_raw;
} vtu;

static fcd_status bad(const vtu *v, const char *what) {
  return fcd__err(v->ms->sys, FCD_E_FORMAT, "%s: %s", v->ms->path, what);
}

/* the next tag <name ...> from p before end: its start (at '<') and the end of the tag
 * (at '>'); NULL when none */
static const char *find_tag(const char *p, const char *end, const char *name, const char **te) {
  size_t n = strlen(name);
  for (; p && p + n + 1 < end; p++) {
    p = memchr(p, '<', (size_t)(end - p));
    if (!p || p + n + 1 >= end) return NULL;
    if (strncmp(p + 1, name, n) == 0 && (p[1 + n] == ' ' || p[1 + n] == '>' ||
                                         p[1 + n] == '/' || p[1 + n] == '\n' || p[1 + n] == '\t' ||
                                         p[1 + n] == '\r')) {
      *te = memchr(p, '>', (size_t)(end - p));
      return *te ? p : NULL;
    }
  }
  return NULL;
}

/* attribute name="value" of the tag [s, e) into out; 0 when absent */
static int attr(const char *s, const char *e, const char *name, char *out, size_t cap) {
  size_t n = strlen(name);
  for (const char *p = s + 1; p + n + 2 < e; p++) { /* s is the tag's '<' */
    if ((p[-1] == ' ' || p[-1] == '\n' || p[-1] == '\t' || p[-1] == '\r') &&
        strncmp(p, name, n) == 0 && p[n] == '=' && (p[n + 1] == '"' || p[n + 1] == '\'')) {
      char q = p[n + 1];
      const char *a = p + n + 2, *b = memchr(a, q, (size_t)(e - a));
      if (!b) return 0;
      size_t len = (size_t)(b - a);
      if (len >= cap) len = cap - 1;
      memcpy(out, a, len);
      out[len] = 0;
      return 1;
    }
  }
  return 0;
}

/* an array's value as an integer: whole, and within +-2^53 (a double holds those
 * exactly; a cast of anything else is undefined) */
static long long whole(double d, int *ok) {
  if (!(d >= -9007199254740992.0 && d <= 9007199254740992.0) || d != (double)(long long)d) {
    *ok = 0;
    return 0;
  }
  return (long long)d;
}

static int b64val(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

/* decodes base64 from *p (skipping blanks) until nbytes are out or the text ends at a
 * character that is not base64; *p moves past the 4-character groups used. 1 when all
 * nbytes were decoded. */
static int b64(const char **p, const char *end, unsigned char *out, size_t nbytes) {
  size_t got = 0;
  const char *s = *p;
  while (got < nbytes) {
    int v[4], k = 0;
    while (k < 4 && s < end) {
      char c = *s;
      if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
        s++;
        continue;
      }
      if (c == '=') {
        v[k++] = -2;
        s++;
        continue;
      }
      int x = b64val(c);
      if (x < 0) break;
      v[k++] = x;
      s++;
    }
    if (k < 4 || v[0] < 0 || v[1] < 0) return 0;
    unsigned char b[3] = {(unsigned char)(v[0] << 2 | v[1] >> 4), 0, 0};
    int nb = 1;
    if (v[2] >= 0) {
      b[1] = (unsigned char)((v[1] & 15) << 4 | v[2] >> 2);
      nb = 2;
      if (v[3] >= 0) {
        b[2] = (unsigned char)((v[2] & 3) << 6 | v[3]);
        nb = 3;
      }
    }
    for (int i = 0; i < nb && got < nbytes; i++) out[got++] = b[i];
    if (nb < 3) break;
  }
  *p = s;
  return got == nbytes;
}

static uint64_t get_uint(const vtu *v, const unsigned char *b, int size) {
  uint64_t x = 0;
  for (int k = 0; k < size; k++) x |= (uint64_t)b[v->big ? size - 1 - k : k] << (8 * k);
  return x;
}

/* a zlib-compressed array at p: nblocks, block size, last block size and each block's
 * compressed size, then the blocks (base64 unless raw) */
static fcd_status inflate_array(vtu *v, const char *p, const char *end, int raw,
                                unsigned char **out, size_t *n) {
#if FCD_HAVE_ZLIB
  int hs = v->hdr8 ? 8 : 4;
  size_t total;
  /* compressed: nblocks, block size, last block size, then each block's compressed size */
  uint64_t nb, bs, last;
  unsigned char hb[24];
  const char *q = p;
  if (raw) {
    if (end - q < 3 * hs) return bad(v, "a compressed array's header is cut short");
    memcpy(hb, q, 3 * (size_t)hs);
  } else if (!b64(&q, end, hb, 3 * (size_t)hs))
    return bad(v, "bad base64 header");
  nb = get_uint(v, hb, hs);
  bs = get_uint(v, hb + hs, hs);
  last = get_uint(v, hb + 2 * hs, hs);
  if (nb > (uint64_t)(end - p) || bs > ((uint64_t)1 << 32))
    return bad(v, "a compressed array's header promises more blocks than the file holds");
  size_t hbytes = (size_t)(3 + nb) * (size_t)hs;
  unsigned char *hdr = fcd__malloc(hbytes + 3);
  if (!hdr) return fcd__err(v->ms->sys, FCD_E_NOMEM, "out of memory");
  q = p;
  if (raw) {
    if ((size_t)(end - q) < hbytes) {
      fcd__free(hdr);
      return bad(v, "a compressed array's header is cut short");
    }
    memcpy(hdr, q, hbytes);
    q += hbytes;
  } else if (!b64(&q, end, hdr, hbytes)) {
    fcd__free(hdr);
    return bad(v, "bad base64 header");
  }
  size_t csum = 0;
  for (uint64_t k = 0; k < nb; k++) csum += (size_t)get_uint(v, hdr + (3 + k) * hs, hs);
  total = nb ? (size_t)((nb - 1) * bs + (last ? last : bs)) : 0;
  if (csum > (size_t)(end - p) || total > (size_t)(end - p) * 1032 + 64) {
    fcd__free(hdr);
    return bad(v, "a compressed array's sizes exceed what the file holds");
  }
  unsigned char *cbuf = fcd__malloc(csum + 3), *buf = fcd__malloc(total + 1);
  fcd_status st = FCD_OK;
  if (!cbuf || !buf) st = fcd__err(v->ms->sys, FCD_E_NOMEM, "out of memory");
  else if (raw) {
    if ((size_t)(end - q) < csum) st = bad(v, "a compressed array is cut short");
    else memcpy(cbuf, q, csum);
  } else if (!b64(&q, end, cbuf, csum))
    st = bad(v, "a compressed array's base64 data end early");
  size_t at = 0, cat = 0;
  for (uint64_t k = 0; st == FCD_OK && k < nb; k++) {
    size_t cs = (size_t)get_uint(v, hdr + (3 + k) * hs, hs);
    uLongf want = (uLongf)(k + 1 == nb && last ? last : bs);
    if (uncompress(buf + at, &want, cbuf + cat, (uLong)cs) != Z_OK ||
        want != (uLongf)(k + 1 == nb && last ? last : bs))
      st = bad(v, "a compressed block does not inflate to its stated size");
    at += (size_t)want;
    cat += cs;
  }
  fcd__free(hdr);
  fcd__free(cbuf);
  if (st != FCD_OK) {
    fcd__free(buf);
    return st;
  }
  *out = buf;
  *n = total;
  return FCD_OK;
#else
  (void)p;
  (void)end;
  (void)raw;
  (void)out;
  (void)n;
  return fcd__err(v->ms->sys, FCD_E_UNSUPPORTED, "%s: zlib-compressed arrays need fcd built "
                  "with zlib", v->ms->path);
#endif
}

/* the bytes of a binary or appended array: its header read and the data decoded (and
 * inflated) into a new block of *n bytes */
static fcd_status array_bytes(vtu *v, const char *inline_start, const char *inline_end,
                              long long offset, unsigned char **out, size_t *n) {
  int hs = v->hdr8 ? 8 : 4;
  const char *p = inline_start, *end = inline_end;
  if (!p) { /* appended */
    if (offset < 0 || offset > v->end - v->app) return bad(v, "an array's offset is past the file");
    p = v->app + offset;
    end = v->end;
  }
  int raw = !inline_start && v->app_raw;
  unsigned char h[8 * 4];
  size_t total = 0;
  if (!v->zlib) {
    if (raw) {
      if (end - p < hs) return bad(v, "an array's header is cut short");
      memcpy(h, p, (size_t)hs);
      p += hs;
    } else {
      /* header and data are one base64 stream: the header first */
      const char *q = p;
      unsigned char first[12];
      if (!b64(&q, end, first, (size_t)hs)) return bad(v, "bad base64 header");
      memcpy(h, first, (size_t)hs);
    }
    total = (size_t)get_uint(v, h, hs);
    if (total > (size_t)(end - p)) return bad(v, "an array's header promises more bytes than the file holds");
    unsigned char *buf = fcd__malloc(hs + total + 3);
    if (!buf) return fcd__err(v->ms->sys, FCD_E_NOMEM, "out of memory");
    if (raw) memcpy(buf + hs, p, total);
    else if (!b64(&p, end, buf, hs + total)) {
      fcd__free(buf);
      return bad(v, "an array's base64 data end early");
    }
    memmove(buf, buf + hs, total);
    *out = buf;
    *n = total;
    return FCD_OK;
  }
  return inflate_array(v, p, end, raw, out, n);
}


/* a DataArray (its tag [s, e)) as count doubles */
static fcd_status read_array(vtu *v, const char *s, const char *e, size_t count, double *out) {
  char type[32], format[32], off[32];
  if (!attr(s, e, "type", type, sizeof type) || !attr(s, e, "format", format, sizeof format))
    return bad(v, "a DataArray without its type or format");
  int size = 0, isreal = 0, issigned = 1;
  if (!strcmp(type, "Float64")) size = 8, isreal = 1;
  else if (!strcmp(type, "Float32")) size = 4, isreal = 1;
  else if (!strcmp(type, "Int64")) size = 8;
  else if (!strcmp(type, "UInt64")) size = 8, issigned = 0;
  else if (!strcmp(type, "Int32")) size = 4;
  else if (!strcmp(type, "UInt32")) size = 4, issigned = 0;
  else if (!strcmp(type, "Int16")) size = 2;
  else if (!strcmp(type, "UInt16")) size = 2, issigned = 0;
  else if (!strcmp(type, "Int8")) size = 1;
  else if (!strcmp(type, "UInt8")) size = 1, issigned = 0;
  else return bad(v, "a DataArray of an unknown type");
  const char *content = e + 1, *cend = NULL;
  if (e[-1] != '/') {
    cend = strstr(content, "</DataArray>");
    if (!cend || cend > v->end) return bad(v, "a DataArray without its end");
  }
  if (!strcmp(format, "ascii")) {
    const char *p = content;
    for (size_t k = 0; k < count; k++) {
      char *q;
      while (p < cend && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
      if (!cend || p >= cend) return bad(v, "an ascii DataArray holds fewer values than the piece needs");
      out[k] = strtod(p, &q);
      if (q == p || !isfinite(out[k])) return bad(v, "an ascii DataArray value is not a finite number");
      p = q;
    }
    return FCD_OK;
  }
  unsigned char *b = NULL;
  size_t n = 0;
  long long offset = -1;
  if (!strcmp(format, "binary")) {
    if (!cend) return bad(v, "a binary DataArray without data");
    FCD_TRY(array_bytes(v, content, cend, -1, &b, &n));
  } else if (!strcmp(format, "appended")) {
    if (!v->app) return bad(v, "an appended DataArray but no AppendedData");
    if (!attr(s, e, "offset", off, sizeof off)) return bad(v, "an appended DataArray without its offset");
    char *q;
    errno = 0;
    offset = strtoll(off, &q, 10);
    if (*q || errno) return bad(v, "a DataArray's offset is not an integer");
    FCD_TRY(array_bytes(v, NULL, NULL, offset, &b, &n));
  } else
    return bad(v, "a DataArray format other than ascii, binary and appended");
  if (n < count * (size_t)size) {
    fcd__free(b);
    return bad(v, "a DataArray holds fewer values than the piece needs");
  }
  for (size_t k = 0; k < count; k++) {
    uint64_t x = get_uint(v, b + k * size, size);
    if (isreal) {
      if (size == 8) memcpy(&out[k], &x, 8);
      else {
        uint32_t y = (uint32_t)x;
        float f;
        memcpy(&f, &y, 4);
        out[k] = f;
      }
      if (!isfinite(out[k])) {
        fcd__free(b);
        return bad(v, "a DataArray value is not finite");
      }
    } else if (issigned && size < 8 && (x >> (8 * size - 1)) & 1)
      out[k] = (double)((int64_t)x - ((int64_t)1 << (8 * size)));
    else
      out[k] = (double)(issigned ? (int64_t)x : (double)x);
  }
  fcd__free(b);
  return FCD_OK;
}

/* the DataArray named name inside [s, e) */
static const char *named_array(const char *s, const char *e, const char *name, const char **te) {
  for (const char *p = s; (p = find_tag(p, e, "DataArray", te)) != NULL; p = *te) {
    char n[64];
    if (attr(p, *te, "Name", n, sizeof n) && strcmp(n, name) == 0) return p;
  }
  return NULL;
}

/* integer cell-data arrays of the piece [pe, pend): groups "NAME:VALUE" */
static fcd_status cell_groups(vtu *v, const char *pe, const char *pend, long long nc) {
  fcd__meshsrc *ms = v->ms;
  fcd_status st = FCD_OK;
  const char *de;
  double *grp = NULL;
  const char *cde = NULL, *cd = find_tag(pe, pend, "CellData", &cde);
  const char *cdend = cd && cde[-1] != '/' ? strstr(cde, "</CellData>") : NULL;
  if (cdend && cdend > pend) cdend = NULL;
  if (cdend && !(grp = fcd__malloc_array((size_t)nc + 1, sizeof *grp)))
    st = fcd__err(ms->sys, FCD_E_NOMEM, "out of memory");
  for (const char *p = cde; st == FCD_OK && cdend && (p = find_tag(p, cdend, "DataArray", &de)); p = de) {
    char type[16], name[64], nco[16];
    if (!attr(p, de, "type", type, sizeof type) || strstr(type, "Int") == NULL ||
        !attr(p, de, "Name", name, sizeof name) ||
        (attr(p, de, "NumberOfComponents", nco, sizeof nco) && strcmp(nco, "1") != 0))
      continue;
    if ((st = read_array(v, p, de, (size_t)nc, grp)) != FCD_OK) break;
    for (long long c = 0; c < nc && st == FCD_OK; c++) {
      char g[96];
      int ok = 1;
      long long val = whole(grp[c], &ok);
      if (!ok) {
        st = bad(v, "a cell-data value is not an integer");
        break;
      }
      snprintf(g, sizeof g, "%s:%lld", name, val);
      fcd__mgroup *G = fcd__ms_group(ms, g, FCD__G_ELEMENTS);
      if (!G || !fcd__ms_group_add(G, c, 0, NULL))
        st = fcd__err(ms->sys, FCD_E_NOMEM, "out of memory");
    }
  }
  fcd__free(grp);
  return st;
}

fcd_status fcd__read_vtu(fcd__meshsrc *ms, const char *text, size_t len) {
  vtu v;
  memset(&v, 0, sizeof v);
  v.ms = ms;
  v.text = text;
  v.end = text + len;
  const char *te, *t = find_tag(text, v.end, "VTKFile", &te);
  char a[64];
  if (!t) return bad(&v, "no VTKFile element");
  if (!attr(t, te, "type", a, sizeof a) || strcmp(a, "UnstructuredGrid") != 0)
    return fcd__err(ms->sys, FCD_E_UNSUPPORTED, "%s: only VTK XML UnstructuredGrid files are "
                    "read", ms->path);
  v.big = attr(t, te, "byte_order", a, sizeof a) && strcmp(a, "BigEndian") == 0;
  v.hdr8 = attr(t, te, "header_type", a, sizeof a) && strcmp(a, "UInt64") == 0;
  if (attr(t, te, "compressor", a, sizeof a)) {
    if (strcmp(a, "vtkZLibDataCompressor") != 0)
      return fcd__err(ms->sys, FCD_E_UNSUPPORTED, "%s: compressor %s (zlib is read)", ms->path, a);
    v.zlib = 1;
  }
  const char *ae, *ad = find_tag(te, v.end, "AppendedData", &ae);
  if (ad) {
    v.app_raw = attr(ad, ae, "encoding", a, sizeof a) && strcmp(a, "raw") == 0;
    const char *u = memchr(ae, '_', (size_t)(v.end - ae));
    if (!u) return bad(&v, "AppendedData without its '_'");
    v.app = u + 1;
  }
  const char *pe, *piece = find_tag(te, ad ? ad : v.end, "Piece", &pe);
  if (!piece) return bad(&v, "no Piece");
  const char *pend = strstr(pe, "</Piece>");
  if (!pend || (ad && pend > ad)) return bad(&v, "a Piece without its end");
  const char *pe2;
  if (find_tag(pend, ad ? ad : v.end, "Piece", &pe2))
    return fcd__err(ms->sys, FCD_E_UNSUPPORTED, "%s: several pieces (one is read)", ms->path);
  long long np = -1, nc = -1;
  if (attr(piece, pe, "NumberOfPoints", a, sizeof a)) np = strtoll(a, NULL, 10);
  if (attr(piece, pe, "NumberOfCells", a, sizeof a)) nc = strtoll(a, NULL, 10);
  if (np < 0 || nc < 0 || np > (long long)len || nc > (long long)len)
    return bad(&v, "a Piece needs NumberOfPoints and NumberOfCells");
  const char *se, *sec = find_tag(pe, pend, "Points", &se);
  const char *de, *da = sec ? find_tag(se, pend, "DataArray", &de) : NULL;
  if (!da) return bad(&v, "no Points array");
  double *x = fcd__malloc_array((size_t)np * 3 + 1, sizeof *x);
  double *off = fcd__malloc_array((size_t)nc + 1, sizeof *off);
  double *ty = fcd__malloc_array((size_t)nc + 1, sizeof *ty);
  double *conn = NULL;
  fcd_status st = FCD_OK;
  if (!x || !off || !ty) st = fcd__err(ms->sys, FCD_E_NOMEM, "out of memory");
  if (st == FCD_OK) st = read_array(&v, da, de, (size_t)np * 3, x);
  for (long long p = 0; st == FCD_OK && p < np; p++)
    if (!fcd__ms_node(ms, p, x[3 * p], x[3 * p + 1], x[3 * p + 2]))
      st = fcd__err(ms->sys, FCD_E_NOMEM, "out of memory");
  const char *ce, *cells = st == FCD_OK ? find_tag(pe, pend, "Cells", &ce) : NULL;
  const char *cend = cells ? strstr(ce, "</Cells>") : NULL;
  const char *e1, *e2, *e3;
  const char *aconn = cend ? named_array(ce, cend, "connectivity", &e1) : NULL;
  const char *aoff = cend ? named_array(ce, cend, "offsets", &e2) : NULL;
  const char *atyp = cend ? named_array(ce, cend, "types", &e3) : NULL;
  if (st == FCD_OK && (!aconn || !aoff || !atyp))
    st = bad(&v, "Cells need connectivity, offsets and types");
  if (st == FCD_OK) st = read_array(&v, aoff, e2, (size_t)nc, off);
  if (st == FCD_OK) st = read_array(&v, atyp, e3, (size_t)nc, ty);
  int whole_ok = 1;
  long long nconn = st == FCD_OK && nc ? whole(off[nc - 1], &whole_ok) : 0;
  if (st == FCD_OK && (!whole_ok || nconn < 0 || nconn > (long long)len))
    st = bad(&v, "the last offset is not the connectivity's size");
  if (st == FCD_OK && !(conn = fcd__malloc_array((size_t)nconn + 1, sizeof *conn)))
    st = fcd__err(ms->sys, FCD_E_NOMEM, "out of memory");
  if (st == FCD_OK) st = read_array(&v, aconn, e1, (size_t)nconn, conn);
  int64_t nodes[32];
  for (long long c = 0; st == FCD_OK && c < nc; c++) {
    int ok = 1;
    long long a0 = c ? whole(off[c - 1], &ok) : 0, a1 = whole(off[c], &ok);
    long long tt = whole(ty[c], &ok);
    int ct = ok && tt >= 0 && tt <= 100 ? (int)tt : -1, per = fcd__vtk_nodes_of(ct);
    if (!ok) {
      st = bad(&v, "a cell's offset or type is not an integer");
      break;
    }
    if (!per) {
      st = fcd__err(ms->sys, FCD_E_UNSUPPORTED, "%s: cell %lld: VTK type %d is not read",
                    ms->path, c, ct);
      break;
    }
    if (a1 - a0 != per || a0 < 0 || a1 > nconn) {
      st = bad(&v, "a cell's node count does not match its type");
      break;
    }
    for (int k = 0; k < per; k++) nodes[k] = whole(conn[a0 + k], &ok);
    if (!ok) {
      st = bad(&v, "a cell's node is not an integer");
      break;
    }
    if (!fcd__ms_elem(ms, c, ct, nodes)) st = fcd__err(ms->sys, FCD_E_NOMEM, "out of memory");
  }
  if (st == FCD_OK) st = cell_groups(&v, pe, pend, nc);
  fcd__free(x);
  fcd__free(off);
  fcd__free(ty);
  fcd__free(conn);
  return st;
}
